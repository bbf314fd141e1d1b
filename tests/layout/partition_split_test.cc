#include "floe/layout/partition_split.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::layout {
namespace {

TEST(PartitionSplit, GroupsByEveryKeyInFirstAppearanceOrder) {
  columnar::FixedWidthBuilder<int32_t> day(columnar::Int32());
  columnar::BinaryBuilder region;
  const int32_t days[] = {1, 2, 1, 1, 2, 3};
  const char* regions[] = {"eu", "eu", "us", "eu", "eu", nullptr};
  for (int i = 0; i < 6; ++i) {
    day.Append(days[i]);
    if (regions[i]) {
      ASSERT_TRUE(region.Append(regions[i]));
    } else {
      region.AppendNull();
    }
  }
  auto d = day.Finish(), r = region.Finish();
  auto groups = SplitByKeys({d.get(), r.get()}, 6);
  ASSERT_TRUE(groups) << groups.error().ToString();
  ASSERT_EQ(groups->size(), 4u);
  EXPECT_EQ((*groups)[0].rows, (std::vector<int64_t>{0, 3}));  // (1, eu)
  EXPECT_EQ((*groups)[1].rows, (std::vector<int64_t>{1, 4}));  // (2, eu)
  EXPECT_EQ((*groups)[2].rows, (std::vector<int64_t>{2}));     // (1, us)
  EXPECT_EQ((*groups)[3].rows, (std::vector<int64_t>{5}));     // (3, NULL)
  EXPECT_EQ((*groups)[3].first_row, 5);
}

// Strings are delimited in the key: ("ab", "c") and ("a", "bc") are different partitions.
TEST(PartitionSplit, KeysOfSeveralStringsDoNotRunTogether) {
  columnar::BinaryBuilder a, b;
  ASSERT_TRUE(a.Append("ab"));
  ASSERT_TRUE(b.Append("c"));
  ASSERT_TRUE(a.Append("a"));
  ASSERT_TRUE(b.Append("bc"));
  auto x = a.Finish(), y = b.Finish();
  auto groups = SplitByKeys({x.get(), y.get()}, 2);
  ASSERT_TRUE(groups);
  EXPECT_EQ(groups->size(), 2u);
}

TEST(PartitionSplit, NoKeysIsOneGroupOfAllRows) {
  auto groups = SplitByKeys({}, 3);
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].rows, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(SplitByKeys({}, 0)->empty());
}

// One fixed-width key, as bucket and the time transforms give: NULL a group of its own, values
// that differ only in their high bytes different groups, and many distinct values (past the
// short list the split searches first) each in exactly one group, in first-appearance order.
TEST(PartitionSplit, OneFixedWidthKeyGroupsLikeItsValues) {
  columnar::FixedWidthBuilder<int64_t> key(columnar::Int64());
  std::vector<std::optional<int64_t>> values;
  for (int r = 0; r < 500; ++r) {
    std::optional<int64_t> v;
    if (r % 37 != 5) v = (int64_t{(r * 7919) % 41} << 40) + 3;  // 41 values, same low bytes
    values.push_back(v);
    if (v) {
      key.Append(*v);
    } else {
      key.AppendNull();
    }
  }
  auto k = key.Finish();
  auto groups = SplitByKeys({k.get()}, 500);
  ASSERT_TRUE(groups) << groups.error().ToString();
  // What the groups must be, by a plain search over the values.
  std::vector<std::optional<int64_t>> order;
  std::vector<std::vector<int64_t>> rows;
  for (int r = 0; r < 500; ++r) {
    auto at = std::find(order.begin(), order.end(), values[r]);
    if (at == order.end()) {
      order.push_back(values[r]);
      rows.emplace_back();
      at = order.end() - 1;
    }
    rows[at - order.begin()].push_back(r);
  }
  ASSERT_EQ(groups->size(), 42u);  // 41 values and NULL
  ASSERT_EQ(groups->size(), rows.size());
  for (size_t g = 0; g < rows.size(); ++g) {
    EXPECT_EQ((*groups)[g].rows, rows[g]) << g;
    EXPECT_EQ((*groups)[g].first_row, rows[g][0]) << g;
  }
}

}  // namespace
}  // namespace floe::layout
