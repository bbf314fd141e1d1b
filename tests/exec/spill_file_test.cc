// Spill files: batches (nulls, strings, absent columns) read back as written, twice; a spill
// directory that cannot be made is one error naming it; the directory is gone afterwards. And the
// external sort's merge of sorted runs against the in-memory sort.
#include "floe/exec/spill_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "floe/exec/external_sort.h"
#include "floe/exec/key_partition.h"
#include "floe/exec/value.h"
#include "support/temp_dir.h"

namespace floe::exec {
namespace {

columnar::RecordBatch Batch(int64_t from, int64_t n) {
  ValueColumnBuilder ints(columnar::Int64()), strs(columnar::String());
  for (int64_t i = from; i < from + n; ++i) {
    if (i % 7 == 3) {
      ints.AppendNull();
    } else {
      EXPECT_TRUE(ints.Append(Value::Int((i * 7919) % 1000)));
    }
    EXPECT_TRUE(
        strs.Append(Value::Str(std::string(static_cast<size_t>(i % 13), 'x') + std::to_string(i))));
  }
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(
      columnar::Schema{{{"x", columnar::Int64(), true}, {"s", columnar::String(), true}}});
  b.columns = {ints.Finish(), strs.Finish()};
  b.num_rows = n;
  return b;
}

std::vector<std::string> Rows(const columnar::RecordBatch& b) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    std::string row;
    for (const auto& c : b.columns) {
      row += (c ? columnar::ValueToString(*c, r) : "absent") + "|";
    }
    out.push_back(row);
  }
  return out;
}

TEST(SpillFile, BatchesReadBackAsWrittenAndTheDirectoryGoes) {
  testing::TempDir tmp;
  std::string made;
  {
    SpillDirectory dir(tmp.str());
    auto f = SpillFile::Create(dir, "test");
    ASSERT_TRUE(f) << f.error().ToString();
    columnar::RecordBatch a = Batch(0, 100), b = Batch(100, 50);
    b.columns.push_back(nullptr);  // an absent slot
    a.columns.push_back(nullptr);
    ASSERT_TRUE((*f)->Append(a));
    ASSERT_TRUE((*f)->Append(b));
    EXPECT_EQ((*f)->rows(), 150);
    EXPECT_GT(dir.bytes_written.value(), 0);
    const std::vector<columnar::DataType> types = {columnar::Int64(), columnar::String(),
                                                   columnar::Int64()};
    for (int pass = 0; pass < 2; ++pass) {
      ASSERT_TRUE((*f)->Rewind());
      auto x = (*f)->Next(types);
      ASSERT_TRUE(x && *x);
      for (const auto& c : (*x)->columns) {
        if (c) {
          EXPECT_TRUE(c->Validate()) << c->Validate().error().ToString();
        }
      }
      EXPECT_EQ(Rows(**x), Rows(a));
      auto y = (*f)->Next(types);
      ASSERT_TRUE(y && *y);
      EXPECT_EQ(Rows(**y), Rows(b));
      auto end = (*f)->Next(types);
      ASSERT_TRUE(end);
      EXPECT_FALSE(*end);
    }
    made = std::filesystem::path((*f)->path()).parent_path().string();
    EXPECT_TRUE(std::filesystem::exists(made));
    EXPECT_FALSE(std::filesystem::exists((*f)->path()));  // unlinked at once
  }
  EXPECT_FALSE(std::filesystem::exists(made));
}

TEST(SpillFile, AnUnwritableDirectoryIsOneError) {
  SpillDirectory dir("/proc/floe-spill-test");
  auto f = SpillFile::Create(dir, "test");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("temp_directory '/proc/floe-spill-test'"), std::string::npos)
      << f.error().message;
}

// A row's partition is its key values' (what splitting a hash aggregate's groups uses), for the
// types with a fast path and the others.
TEST(KeyPartition, RowsAndKeyValuesAgree) {
  ValueColumnBuilder i64(columnar::Int64()), date(columnar::Date32()), str(columnar::String()),
      dbl(columnar::Float64());
  std::vector<int32_t> i32s;  // an int column as a file gives it, without nulls
  const int64_t n = 500;
  for (int64_t r = 0; r < n; ++r) {
    if (r % 11 == 0) {
      for (auto* b : {&i64, &date, &str, &dbl}) b->AppendNull();
      i32s.push_back(7);
      continue;
    }
    EXPECT_TRUE(i64.Append(Value::Int(r * 1000003)));
    i32s.push_back(static_cast<int32_t>(r % 77));
    EXPECT_TRUE(date.Append(Value::Int(19000 + r % 5)));
    EXPECT_TRUE(str.Append(Value::Str("k" + std::to_string(r % 13))));
    EXPECT_TRUE(dbl.Append(Value::Double(r % 3 == 0 ? -0.0 : static_cast<double>(r % 7))));
  }
  auto i32 = std::make_shared<columnar::Column>();
  i32->type = columnar::Int32();
  i32->length = n;
  i32->values = Buffer::Adopt(std::move(i32s));
  const std::vector<columnar::ColumnPtr> keys = {i64.Finish(), i32, date.Finish(), str.Finish(),
                                                 dbl.Finish()};
  for (uint64_t seed : {0, 1, 2}) {
    auto parts = PartitionRows(keys, n, seed, 16);
    ASSERT_TRUE(parts);
    std::set<uint32_t> seen;
    for (int64_t r = 0; r < n; ++r) {
      std::vector<Value> key;
      for (const auto& k : keys) key.push_back(ValueAt(*k, r).value());
      EXPECT_EQ((*parts)[static_cast<size_t>(r)], PartitionOfKey(key, seed, 16)) << r;
      seen.insert((*parts)[static_cast<size_t>(r)]);
    }
    EXPECT_GT(seen.size(), 8u);  // spread
  }
}

TEST(ExternalSort, MergedRunsGiveTheInMemoryOrder) {
  testing::TempDir tmp;
  SpillDirectory dir(tmp.str());
  std::vector<SortKey> keys = {{ColumnRef(0, columnar::Int64(), "x"), true, true},
                               {ColumnRef(1, columnar::String(), "s"), false, false}};
  MemoryBudget budget(64 * 1024);  // a run every few batches
  ExternalSort spilled(keys, 5, &budget, &dir);
  ExternalSort memory(keys, 5, nullptr, nullptr);
  for (int k = 0; k < 40; ++k) {
    ASSERT_TRUE(spilled.Consume(Batch(k * 500, 500)));
    ASSERT_TRUE(memory.Consume(Batch(k * 500, 500)));
  }
  EXPECT_GT(spilled.runs(), 2);
  EXPECT_EQ(memory.runs(), 0);
  std::vector<std::string> a, b;
  const auto schema = Batch(0, 1).schema;
  ASSERT_TRUE(spilled.Finish(schema, [&](columnar::RecordBatch x) -> Status {
    for (auto& r : Rows(x)) a.push_back(r);
    return {};
  }));
  ASSERT_TRUE(memory.Finish(schema, [&](columnar::RecordBatch x) -> Status {
    for (auto& r : Rows(x)) b.push_back(r);
    return {};
  }));
  EXPECT_EQ(a.size(), 40u * 500 - 5);
  EXPECT_EQ(a, b);
  EXPECT_EQ(budget.used(), 0);
}

}  // namespace
}  // namespace floe::exec
