#include "floe/base/pod_vector.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace floe {
namespace {

struct Wide {
  int64_t a = 7;  // a non-zero default: new elements must be T{}, not zeroed bytes
  int64_t b = 0;
  int32_t c = -1;
};

TEST(PodVector, NewElementsAreValueInitialised) {
  PodVector<Wide> v;
  EXPECT_TRUE(v.empty());
  v.resize(3);
  ASSERT_EQ(v.size(), 3u);
  for (const Wide& w : v) {
    EXPECT_EQ(w.a, 7);
    EXPECT_EQ(w.b, 0);
    EXPECT_EQ(w.c, -1);
  }
}

// From a malloc'd block through the switch to a mapped one (1 MiB) and several remaps past it:
// every element written keeps its value, and the capacity never falls below the size.
TEST(PodVector, KeepsItsElementsAsItGrowsPastTheMappedSize) {
  PodVector<Wide> v;
  constexpr int64_t kRows = 300'000;  // 24 bytes each: about 7 MiB
  for (int64_t i = 0; i < kRows; ++i) {
    v.resize(v.size() + 1);
    v[static_cast<size_t>(i)].b = i * 3;
    ASSERT_GE(v.capacity(), v.size());
  }
  for (int64_t i = 0; i < kRows; ++i) {
    ASSERT_EQ(v[static_cast<size_t>(i)].b, i * 3) << i;
    ASSERT_EQ(v[static_cast<size_t>(i)].a, 7) << i;
  }
  // A block exactly at the threshold, then one more element: 1 MiB is not a multiple of 24.
  PodVector<Wide> edge;
  edge.reserve((size_t{1} << 20) / sizeof(Wide) + 1);
  edge.resize(edge.capacity());
  edge[edge.size() - 1].b = 42;
  edge.push_back(Wide{1, 2, 3});
  EXPECT_EQ(edge[edge.size() - 2].b, 42);
  EXPECT_EQ(edge[edge.size() - 1].c, 3);
}

// A hash table's rebuild: a new block of zero bytes, small (calloc) or mapped, whatever the
// old block held.
TEST(PodVector, AssignZeroGivesZeroBytesOfTheSizeAsked) {
  for (size_t n : {size_t{64}, size_t{1} << 18}) {
    PodVector<int64_t> v;
    for (int64_t i = 1; i <= 1000; ++i) v.push_back(i);
    v.assign_zero(n);
    ASSERT_EQ(v.size(), n);
    ASSERT_GE(v.capacity(), n);
    size_t nonzero = 0;
    for (int64_t x : v) nonzero += x != 0 ? 1 : 0;
    EXPECT_EQ(nonzero, 0u) << n;
    v[n - 1] = 9;  // writable to the end
    EXPECT_EQ(v[n - 1], 9);
  }
}

TEST(PodVector, MovesTakeTheBlock) {
  PodVector<int64_t> v;
  for (int64_t i = 0; i < 200'000; ++i) v.push_back(i);
  const int64_t* block = v.data();
  PodVector<int64_t> w(std::move(v));
  EXPECT_EQ(w.data(), block);
  EXPECT_EQ(w.size(), 200'000u);
  EXPECT_EQ(v.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  PodVector<int64_t> small;
  small.push_back(5);
  small = std::move(w);
  EXPECT_EQ(small[199'999], 199'999);
}

// A released mapped block is kept and serves the next array of about its size: the same pages
// (reserve leaves what they held: a fresh mapping would read zeros), zeroed again for
// assign_zero, holding an array's elements when one grows into it.
TEST(PodVector, ReleasedBlocksServeTheNextArrayOfTheirSize) {
  constexpr size_t kN = (size_t{3} << 20) / sizeof(int64_t);  // 3 MiB
  const int64_t* first = nullptr;
  {
    PodVector<int64_t> a;
    a.assign_zero(kN);
    first = a.data();
    for (size_t i = 0; i < kN; ++i) a[i] = static_cast<int64_t>(i) + 1;
  }
  {
    PodVector<int64_t> r;
    r.reserve(kN);
    ASSERT_EQ(r.data(), first);
    EXPECT_EQ(r.data()[5], 6);
    EXPECT_EQ(r.data()[kN - 1], static_cast<int64_t>(kN));
  }
  PodVector<int64_t> b;
  b.assign_zero(kN);
  ASSERT_EQ(b.data(), first);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(b[i], 0) << i;
  b = PodVector<int64_t>();  // releases the block again
  // An array growing past 1 MiB moves into the kept block with its elements.
  PodVector<int64_t> c;
  for (size_t i = 0; i < kN / 2; ++i) c.push_back(static_cast<int64_t>(i) * 7);
  EXPECT_EQ(c.data(), first);
  for (size_t i = 0; i < kN / 2; ++i) ASSERT_EQ(c[i], static_cast<int64_t>(i) * 7) << i;
}

}  // namespace
}  // namespace floe
