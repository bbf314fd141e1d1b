#include "floe/layout/row_order.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::layout {
namespace {

using columnar::ColumnPtr;

ColumnPtr Doubles(const std::vector<std::optional<double>>& v) {
  columnar::FixedWidthBuilder<double> b(columnar::Float64());
  for (const auto& x : v) {
    if (x) {
      b.Append(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

std::vector<int64_t> Sorted(const ColumnPtr& c, bool desc, bool nulls_first) {
  auto r = SortIndices({{c.get(), desc, nulls_first}}, c->length);
  EXPECT_TRUE(r) << r.error().ToString();
  return r.value_or(std::vector<int64_t>{});
}

// Iceberg's sort order for floating point: -NaN < -inf < -1 < -0.0 < 0.0 < 1 < inf < NaN, nulls
// where the null order puts them, whatever the direction.
TEST(RowOrder, FloatsFollowIcebergsOrderAndNullsTheirNullOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  //                 0    1     2     3     4          5     6    7            8
  ColumnPtr c = Doubles({1.0, nan, 0.0, -0.0, std::nullopt, -inf, inf, -nan, -1.0});
  EXPECT_EQ(Sorted(c, false, true), (std::vector<int64_t>{4, 7, 5, 8, 3, 2, 0, 6, 1}));
  EXPECT_EQ(Sorted(c, false, false), (std::vector<int64_t>{7, 5, 8, 3, 2, 0, 6, 1, 4}));
  EXPECT_EQ(Sorted(c, true, false), (std::vector<int64_t>{1, 6, 0, 2, 3, 8, 5, 7, 4}));
  EXPECT_EQ(Sorted(c, true, true), (std::vector<int64_t>{4, 1, 6, 0, 2, 3, 8, 5, 7}));
}

// A strict weak ordering: many NaNs and zeros of both signs among other values sort the same
// however they are arranged (std::stable_sort's result is undefined otherwise).
TEST(RowOrder, ManyNaNsAndZerosSortConsistently) {
  std::vector<std::optional<double>> v;
  for (int i = 0; i < 3000; ++i) {
    const int k = (i * 7919) % 6;
    v.push_back(k == 0   ? std::optional<double>(std::nan(""))
                : k == 1 ? std::optional<double>(-0.0)
                : k == 2 ? std::optional<double>(0.0)
                : k == 3 ? std::nullopt
                         : std::optional<double>((i % 97) - 48.5));
  }
  ColumnPtr c = Doubles(v);
  auto rows = Sorted(c, false, false);
  ASSERT_EQ(rows.size(), v.size());
  auto rank = [](const std::optional<double>& x) {
    if (!x) return 4.0e9;  // nulls last
    if (std::isnan(*x)) return 3.0e9;
    if (*x == 0) return std::signbit(*x) ? -0.25 : 0.25;
    return *x;
  };
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LE(rank(v[rows[i - 1]]), rank(v[rows[i]])) << i;
    if (rank(v[rows[i - 1]]) == rank(v[rows[i]])) EXPECT_LT(rows[i - 1], rows[i]);  // stable
  }
}

TEST(RowOrder, SeveralKeysStringsAsUnsignedBytesAndSubsets) {
  columnar::BinaryBuilder s;
  for (const char* v : {"b", "\xc3\xa9", "a", "b", "a"}) ASSERT_TRUE(s.Append(v));
  ColumnPtr strings = s.Finish();
  columnar::FixedWidthBuilder<int32_t> ib(columnar::Int32());
  for (int32_t v : {2, 1, 5, 1, 3}) ib.Append(v);
  ColumnPtr ints = ib.Finish();
  auto r = SortIndices({{strings.get(), false, true}, {ints.get(), true, true}}, 5);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (std::vector<int64_t>{2, 4, 0, 3, 1}));  // "é" (0xc3) after ASCII
  std::vector<int64_t> subset = {4, 1, 3};
  ASSERT_TRUE(SortRows({{ints.get(), false, true}}, &subset));
  EXPECT_EQ(subset, (std::vector<int64_t>{1, 3, 4}));  // 1, 1 (stable), 3
}

TEST(RowOrder, NestedKeysAreAnErrorNamingTheType) {
  columnar::Column list;
  list.type = columnar::List(columnar::Field{"element", columnar::Int32(), true});
  list.length = 0;
  auto r = SortIndices({{&list, false, true}}, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "sorting by a list<element: int32> column");
}

}  // namespace
}  // namespace floe::layout
