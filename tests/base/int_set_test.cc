#include "floe/base/int_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace floe {
namespace {

std::vector<int64_t> Sorted(const IntSet& s) {
  std::vector<int64_t> out;
  s.ForEach([&](int64_t v) { out.push_back(v); });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(IntSet, StartsEmptyWithoutSlots) {
  IntSet s;
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.capacity(), 0u);
  EXPECT_TRUE(Sorted(s).empty());
}

// The value the table marks free slots with, INT64_MIN, is a value like any other; so are 0,
// -1 and INT64_MAX.
TEST(IntSet, HoldsTheExtremesAndZero) {
  IntSet s;
  for (int64_t v : {INT64_MIN, int64_t{0}, int64_t{-1}, INT64_MAX}) EXPECT_TRUE(s.Insert(v));
  for (int64_t v : {INT64_MIN, int64_t{0}, int64_t{-1}, INT64_MAX}) EXPECT_FALSE(s.Insert(v));
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(Sorted(s), (std::vector<int64_t>{INT64_MIN, -1, 0, INT64_MAX}));
}

// Against std::set over values that collide in their low bits (multiples of 2^20) and random
// ones, many repeated, through several doublings: every value kept once, the table never more
// than half full.
TEST(IntSet, AgreesWithStdSetThroughGrowth) {
  std::mt19937_64 rng(7);
  IntSet s;
  std::set<int64_t> want;
  for (int i = 0; i < 20000; ++i) {
    int64_t v = 0;
    switch (i % 3) {
      case 0:
        v = static_cast<int64_t>(rng() % 3000) << 20;
        break;
      case 1:
        v = static_cast<int64_t>(rng());
        break;
      default:
        v = static_cast<int64_t>(rng() % 500) - 250;
        break;
    }
    EXPECT_EQ(s.Insert(v), want.insert(v).second) << v;
  }
  EXPECT_EQ(s.size(), want.size());
  EXPECT_GE(s.capacity(), 2 * s.size());
  EXPECT_EQ(Sorted(s), std::vector<int64_t>(want.begin(), want.end()));
}

}  // namespace
}  // namespace floe
