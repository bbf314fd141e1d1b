#include "floe/layout/row_order.h"

#include <cmath>
#include <limits>
#include <optional>
#include <random>

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

// Large sorts of integer keys (the radix path) order rows exactly as the comparison of Iceberg's
// semantics does: several keys, each ascending or descending with NULLs first or last, values at
// the extremes of int64, a subset of the rows, ties kept in input order.
TEST(RowOrder, ManyRowsOfIntegerKeysSortAsTheComparisonDoes) {
  const int64_t n = 20000;
  std::mt19937_64 rng(7);
  std::vector<std::optional<int64_t>> a(n), b(n);
  columnar::FixedWidthBuilder<int64_t> ab(columnar::Int64());
  columnar::FixedWidthBuilder<int32_t> bb(columnar::Int32());
  const int64_t extremes[] = {std::numeric_limits<int64_t>::min(), -1, 0, 1,
                              std::numeric_limits<int64_t>::max()};
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t x = rng();
    if (x % 13 == 0) {
      ab.AppendNull();
    } else {
      a[i] = x % 7 == 0 ? extremes[x % 5] : static_cast<int64_t>(x % 50) - 25;
      ab.Append(*a[i]);
    }
    if (x % 11 == 0) {
      bb.AppendNull();
    } else {
      b[i] = static_cast<int32_t>((x >> 20) % 100000) - 50000;
      bb.Append(static_cast<int32_t>(*b[i]));
    }
  }
  ColumnPtr ac = ab.Finish(), bc = bb.Finish();
  for (int variant = 0; variant < 4; ++variant) {
    const bool a_desc = (variant & 1) != 0, a_nulls_first = (variant & 2) != 0;
    const bool b_desc = !a_desc, b_nulls_first = !a_nulls_first;
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < n; i += 1 + i % 3) rows.push_back(i);  // a subset, in order
    std::vector<int64_t> want = rows;
    auto cmp1 = [](const std::optional<int64_t>& x, const std::optional<int64_t>& y, bool desc,
                   bool nulls_first) {
      if (!x || !y) return !x && !y ? 0 : (!x == nulls_first ? -1 : 1);
      const int r = *x < *y ? -1 : *x > *y ? 1 : 0;
      return desc ? -r : r;
    };
    std::stable_sort(want.begin(), want.end(), [&](int64_t i, int64_t j) {
      if (int r = cmp1(a[i], a[j], a_desc, a_nulls_first); r != 0) return r < 0;
      return cmp1(b[i], b[j], b_desc, b_nulls_first) < 0;
    });
    ASSERT_TRUE(
        SortRows({{ac.get(), a_desc, a_nulls_first}, {bc.get(), b_desc, b_nulls_first}}, &rows));
    EXPECT_EQ(rows, want) << "variant " << variant;
  }
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
