#include "floe/exec/hyperloglog.h"

#include <gtest/gtest.h>

#include <cmath>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace floe::exec {
namespace {

uint64_t Hash(int64_t x) { return XXH3_64bits(&x, sizeof x); }

TEST(HyperLogLog, ExactUpToTheLimitWhateverTheRepeats) {
  HyperLogLog h;
  for (int rep = 0; rep < 3; ++rep) {
    for (int64_t i = 0; i < 1000; ++i) h.Add(Hash(i));
  }
  EXPECT_TRUE(h.exact());
  EXPECT_EQ(h.Estimate(), 1000);
  EXPECT_EQ(HyperLogLog{}.Estimate(), 0);
}

TEST(HyperLogLog, LargeCardinalitiesWithinTheStandardError) {
  // 1.04 / sqrt(4096) = 1.6%: each estimate within three of those.
  for (int64_t n : {2'000, 20'000, 1'000'000}) {
    HyperLogLog h;
    for (int64_t i = 0; i < n; ++i) h.Add(Hash(i * 7919 + 13));
    EXPECT_FALSE(h.exact());
    EXPECT_LT(std::abs(static_cast<double>(h.Estimate() - n)) / static_cast<double>(n), 0.048)
        << n << " -> " << h.Estimate();
  }
}

TEST(HyperLogLog, MergedPartialsEstimateAsOnePass) {
  HyperLogLog all, small, big;
  for (int64_t i = 0; i < 50'000; ++i) {
    all.Add(Hash(i));
    (i < 600 ? small : big).Add(Hash(i));
  }
  // Overlap: values seen by both sides count once.
  for (int64_t i = 0; i < 300; ++i) small.Add(Hash(i + 1000));
  HyperLogLog a = small;
  a.Merge(big);
  HyperLogLog b = big;
  b.Merge(small);
  EXPECT_EQ(a.Estimate(), all.Estimate());
  EXPECT_EQ(b.Estimate(), all.Estimate());
  HyperLogLog exact_sides;
  HyperLogLog other;
  for (int64_t i = 0; i < 500; ++i) exact_sides.Add(Hash(i));
  for (int64_t i = 250; i < 900; ++i) other.Add(Hash(i));
  exact_sides.Merge(other);
  EXPECT_TRUE(exact_sides.exact());
  EXPECT_EQ(exact_sides.Estimate(), 900);
}

}  // namespace
}  // namespace floe::exec
