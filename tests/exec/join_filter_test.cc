// JoinKeyFilter: every build key passes (dense keys by a bitmap, sparse ones by a Bloom filter),
// NULLs and values outside the keys' range never do, few other values pass the Bloom filter,
// keys of one integer width test columns of the other, and non-integer keys make no filter.
#include "floe/exec/join_filter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "floe/columnar/column_builder.h"

namespace floe::exec {
namespace {

namespace c = columnar;

c::ColumnPtr Ints(const std::vector<std::optional<int64_t>>& v) {
  c::FixedWidthBuilder<int64_t> b(c::Int64());
  for (const auto& x : v) x ? b.Append(*x) : b.AppendNull();
  return b.Finish();
}

c::ColumnPtr Dates(const std::vector<int32_t>& v) {
  c::FixedWidthBuilder<int32_t> b(c::Date32());
  for (int32_t x : v) b.Append(x);
  return b.Finish();
}

std::vector<uint8_t> Flags(std::initializer_list<int> v) { return {v.begin(), v.end()}; }

TEST(JoinKeyFilter, DenseKeysPassAndOthersDoNot) {
  // Keys 10, 12, 14 (a NULL among them matches nothing); 11 and 13 lie between them.
  auto f = JoinKeyFilter::Of(*Ints({10, 12, std::nullopt, 14, 12}), 5);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->keys(), 3);
  EXPECT_EQ(f->Test(*Ints({9, 10, 11, 12, 13, 14, 15, std::nullopt, -10})),
            Flags({0, 1, 0, 1, 0, 1, 0, 0, 0}));
}

TEST(JoinKeyFilter, OnlyTheFirstRowsAreKeys) {
  auto f = JoinKeyFilter::Of(*Ints({1, 2, 3, 4}), 2);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->Test(*Ints({1, 2, 3, 4})), Flags({1, 1, 0, 0}));
}

TEST(JoinKeyFilter, SparseKeysPassAndFewOthersDo) {
  // 5000 keys a million apart (a range of 5e9: a Bloom filter, not a bitmap). Every key passes;
  // of the 5000 values beside them (key + 1) -- inside the range, so only the filter's bits
  // decide -- under 5% pass.
  std::vector<std::optional<int64_t>> keys, others;
  for (int64_t i = 0; i < 5000; ++i) {
    keys.push_back(i * 1000000 - 7);
    others.push_back(i * 1000000 - 6);
  }
  auto f = JoinKeyFilter::Of(*Ints(keys), 5000);
  ASSERT_NE(f, nullptr);
  const std::vector<uint8_t> pass = f->Test(*Ints(keys));
  EXPECT_EQ(std::count(pass.begin(), pass.end(), 1), 5000);
  const std::vector<uint8_t> other = f->Test(*Ints(others));
  EXPECT_LT(std::count(other.begin(), other.end(), 1), 250);
  // Outside the keys' range nothing passes.
  EXPECT_EQ(f->Test(*Ints({-8, 4999000000 - 6, INT64_MIN, INT64_MAX})), Flags({0, 0, 0, 0}));
}

TEST(JoinKeyFilter, ExtremeKeysMakeABloomFilterWithoutOverflow) {
  auto f = JoinKeyFilter::Of(*Ints({INT64_MIN, 0, INT64_MAX}), 3);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->Test(*Ints({INT64_MIN, 0, INT64_MAX})), Flags({1, 1, 1}));
}

TEST(JoinKeyFilter, DatesTestDatesAndNoKeysPassNothing) {
  auto f = JoinKeyFilter::Of(*Dates({19000, 19002}), 2);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->Test(*Dates({18999, 19000, 19001, 19002})), Flags({0, 1, 0, 1}));
  auto none = JoinKeyFilter::Of(*Ints({std::nullopt, std::nullopt}), 2);
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->keys(), 0);
  EXPECT_EQ(none->Test(*Ints({0, 1, std::nullopt})), Flags({0, 0, 0}));
}

TEST(JoinKeyFilter, StringKeysMakeNoFilterAndOtherColumnsPass) {
  c::BinaryBuilder s(c::String());
  ASSERT_TRUE(s.Append("a"));
  EXPECT_EQ(JoinKeyFilter::Of(*s.Finish(), 1), nullptr);
  auto f = JoinKeyFilter::Of(*Ints({5}), 1);
  c::FixedWidthBuilder<double> d(c::Float64());
  d.Append(1.5);
  EXPECT_EQ(f->Test(*d.Finish()), Flags({1}));
}

}  // namespace
}  // namespace floe::exec
