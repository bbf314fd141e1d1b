#include "floe/exec/sort.h"

#include <gtest/gtest.h>

namespace floe::exec {
namespace {

columnar::RecordBatch Ints(int64_t from, int64_t n) {
  ValueColumnBuilder b(columnar::Int64());
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(b.Append(Value::Int(from + n - 1 - i)));
  columnar::RecordBatch batch;
  batch.schema =
      std::make_shared<columnar::Schema>(columnar::Schema{{{"x", columnar::Int64(), true}}});
  batch.columns = {b.Finish()};
  batch.num_rows = n;
  return batch;
}

TEST(Sort, RowsToKeepSaturates) {
  EXPECT_EQ(RowsToKeep(-1, 5), -1);
  EXPECT_EQ(RowsToKeep(10, 5), 15);
  EXPECT_EQ(RowsToKeep(INT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(RowsToKeep(int64_t{1} << 62, int64_t{1} << 62), INT64_MAX);
}

// LIMIT 2^62 keeps every row: compacting to it every 64 Ki rows re-sorted all rows held so far
// each time (quadratic). A limit beyond what four times can hold never compacts before Finish.
TEST(Sort, AHugeLimitSortsOnceAtTheEnd) {
  Sort sort({{ColumnRef(0, columnar::Int64(), "x"), false, false}}, int64_t{1} << 62, 0);
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(sort.Consume(Ints(k * 10000, 10000)));
  EXPECT_EQ(sort.compactions(), 0);
  auto out = sort.Finish(Ints(0, 0).schema);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(sort.compactions(), 1);
  ASSERT_EQ(out->num_rows, 200000);
  EXPECT_EQ(out->columns[0]->Values<int64_t>()[0], 0);
  EXPECT_EQ(out->columns[0]->Values<int64_t>()[199999], 199999);
}

TEST(Sort, TopNCompactsAsRowsArrive) {
  Sort sort({{ColumnRef(0, columnar::Int64(), "x"), true, false}}, 10, 5);
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(sort.Consume(Ints(k * 10000, 10000)));
  EXPECT_EQ(sort.compactions(), 2);  // at 70,000 and 140,000 rows held (> 64 Ki)
  auto out = sort.Finish(Ints(0, 0).schema);
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_EQ(out->num_rows, 10);
  EXPECT_EQ(out->columns[0]->Values<int64_t>()[0], 199994);
}

}  // namespace
}  // namespace floe::exec
