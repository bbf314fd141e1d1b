// A filter's match bytes over a plan's rows: the ranges SelectMatches builds, the counts
// CountMatches gives without building them, and the per-row flags MatchFlags spreads over the
// plan -- the three read the bytes alike, certain rows (left out of the bytes) included.
#include "floe/parquet/row_selection.h"

#include <gtest/gtest.h>

#include <vector>

namespace floe::parquet {
namespace {

// Two row groups: rows 0-9 of the first, rows 2-5 and 8-11 of the second, whose rows 3-4 and
// 8-9 are certain to match.
ReadPlan Plan() {
  ReadPlan plan;
  RowGroupPlan a;
  a.row_group = 0;
  a.num_rows = 10;
  a.rows = {{0, 10}};
  RowGroupPlan b;
  b.row_group = 1;
  b.num_rows = 12;
  b.rows = {{2, 6}, {8, 12}};
  b.certain = {{3, 5}, {8, 10}};
  plan.row_groups = {a, b};
  return plan;
}

TEST(RowSelection, CountsRangesAndFlagsReadTheMatchesAlike) {
  const ReadPlan plan = Plan();
  // Without trusting the certain rows: a byte for each of the 18 rows.
  const std::vector<uint8_t> all = {1, 1, 0, 0, 1, 0, 1, 1, 1, 0,  // group 0
                                    0, 1, 1, 0, 1, 1, 0, 1};       // group 1
  auto ranges = SelectMatches(plan, all, false);
  ASSERT_TRUE(ranges);
  EXPECT_EQ(ranges->per_group[0], (std::vector<RowRange>{{0, 2}, {4, 5}, {6, 9}}));
  EXPECT_EQ(ranges->per_group[1], (std::vector<RowRange>{{3, 5}, {8, 10}, {11, 12}}));
  auto counts = CountMatches(plan, all, false);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->planned, 18);
  EXPECT_EQ(counts->selected, ranges->selected);
  EXPECT_EQ(counts->selected, 11);
  EXPECT_EQ(counts->ranges, 6);
  EXPECT_EQ(MatchFlags(plan, all, false), all);

  // Trusting them: the certain rows 3-4 and 8-9 of group 1 have no byte.
  const std::vector<uint8_t> some = {1, 1, 0, 0, 1, 0, 1, 1, 1, 0,  // group 0
                                     0, 0, 0, 1};                   // group 1: rows 2, 5, 10, 11
  auto trusted = SelectMatches(plan, some, true);
  ASSERT_TRUE(trusted);
  EXPECT_EQ(trusted->per_group[1], (std::vector<RowRange>{{3, 5}, {8, 10}, {11, 12}}));
  counts = CountMatches(plan, some, true);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->planned, 18);
  EXPECT_EQ(counts->selected, trusted->selected);
  EXPECT_EQ(MatchFlags(plan, some, true), all);

  // Bytes that do not cover the rows are refused.
  EXPECT_FALSE(CountMatches(plan, std::vector<uint8_t>(17, 1), false));
  EXPECT_FALSE(CountMatches(plan, std::vector<uint8_t>(19, 1), false));
  EXPECT_FALSE(CountMatches(plan, all, true));
}

// A plan's first rows: whole ranges, then part of one, the certain rows cut to them; the blocks
// CountMatches sees are kMatchBlockRows of a row group's rows in order, certain ranges touched.
TEST(RowSelection, TheHeadOfAPlanAndTheBlocksItsMatchesTouch) {
  const ReadPlan plan = Plan();
  ReadPlan head = HeadOfPlan(plan, 13);  // group 0's 10 rows, then rows 2-4 of group 1
  ASSERT_EQ(head.row_groups.size(), 2u);
  EXPECT_EQ(head.row_groups[0].rows, (std::vector<RowRange>{{0, 10}}));
  EXPECT_EQ(head.row_groups[1].rows, (std::vector<RowRange>{{2, 5}}));
  EXPECT_EQ(head.row_groups[1].certain, (std::vector<RowRange>{{3, 5}}));
  EXPECT_EQ(HeadOfPlan(plan, 10).row_groups.size(), 1u);
  EXPECT_EQ(HeadOfPlan(plan, 100).row_groups[1].rows, plan.row_groups[1].rows);

  ReadPlan big;
  RowGroupPlan g;
  g.num_rows = 3 * kMatchBlockRows + 5;
  g.rows = {{0, g.num_rows}};
  big.row_groups = {g};
  std::vector<uint8_t> match(static_cast<size_t>(g.num_rows), 0);
  match[kMatchBlockRows + 7] = 1;                  // block 1
  match[static_cast<size_t>(g.num_rows - 1)] = 1;  // the last, short block
  auto counts = CountMatches(big, match, false);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->blocks, 4);
  EXPECT_EQ(counts->touched, 2);
  // A certain range counts its blocks as touched; the other rows' bytes are cut into blocks.
  big.row_groups[0].certain = {{0, kMatchBlockRows + 1}};
  std::vector<uint8_t> rest(static_cast<size_t>(g.num_rows - kMatchBlockRows - 1), 0);
  counts = CountMatches(big, rest, true);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->blocks, 2 + 3);  // 4,097 certain rows; 8,196 others
  EXPECT_EQ(counts->touched, 2);
}

}  // namespace
}  // namespace floe::parquet
