#include "floe/exec/sort.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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

// A key column orders its rows as the values it holds order (CompareValues, which the engine's
// other orderings use): for each type with a typed comparison -- ints of each width, dates,
// timestamps, floats with NaN and -0.0, decimals, strings with bytes above 0x7f, booleans --
// and a row ordering made from Values; NULLs first or last as asked, in either direction.
TEST(Sort, AKeyColumnOrdersRowsAsTheirValuesOrder) {
  using columnar::DataType;
  const double nan = std::nan("");
  struct Case {
    DataType type;
    std::vector<Value> values;  // monostate: NULL
  };
  const std::vector<Case> cases = {
      {columnar::Int8(),
       {Value::Int(-128), Value{}, Value::Int(127), Value::Int(0), Value::Int(-1)}},
      {columnar::Int16(), {Value::Int(300), Value::Int(-300), Value{}, Value::Int(300)}},
      {columnar::Int32(), {Value::Int(INT32_MIN), Value::Int(INT32_MAX), Value::Int(5), Value{}}},
      {columnar::Int64(), {Value::Int(INT64_MAX), Value{}, Value::Int(INT64_MIN), Value::Int(0)}},
      {columnar::UInt8(), {Value::Int(255), Value::Int(0), Value{}, Value::Int(128)}},
      {columnar::UInt16(), {Value::Int(65535), Value::Int(1), Value::Int(32768)}},
      {columnar::UInt32(), {Value::Int(4294967295), Value::Int(2147483648), Value::Int(7)}},
      {columnar::Date32(), {Value::Int(19725), Value{}, Value::Int(-1), Value::Int(0)}},
      {columnar::Timestamp(columnar::TimeUnit::kMicro, ""),
       {Value::Int(1700000000000000), Value::Int(-5), Value{}, Value::Int(1700000000000001)}},
      {columnar::Float32(),
       {Value::Double(1.5), Value::Double(nan), Value::Double(-0.0), Value{}, Value::Double(0.0),
        Value::Double(-1e30)}},
      {columnar::Float64(),
       {Value::Double(nan), Value::Double(-INFINITY), Value::Double(2.5), Value{},
        Value::Double(INFINITY), Value::Double(nan), Value::Double(-0.0), Value::Double(0.0)}},
      {columnar::Decimal128(38, 2),
       {Value{static_cast<__int128>(1) << 100}, Value{static_cast<__int128>(-125)}, Value{},
        Value{static_cast<__int128>(0)}, Value{-(static_cast<__int128>(1) << 90)}}},
      {columnar::String(),
       {Value::Str("b"), Value::Str("\xc3\xa9"), Value::Str(""), Value{}, Value::Str("ab"),
        Value::Str("a"), Value::Str("B")}},
      {columnar::Binary(), {Value::Str(std::string("\x00\xff", 2)), Value::Str("\x7f"), Value{}}},
      {columnar::Bool(), {Value::Bool(true), Value{}, Value::Bool(false), Value::Bool(true)}},
  };
  for (const Case& c : cases) {
    ColumnPtr column;
    const int width = c.type.FixedWidth();
    if (c.type.id != TypeId::kBool && width > 0 && width < 8 && c.type.id != TypeId::kDate32) {
      // Narrow integers and floats, which ValueColumnBuilder does not make: by hand.
      auto col = std::make_shared<columnar::Column>();
      col->type = c.type;
      col->length = static_cast<int64_t>(c.values.size());
      std::vector<uint8_t> bytes(c.values.size() * static_cast<size_t>(width), 0);
      std::vector<uint8_t> valid((c.values.size() + 7) / 8, 0);
      for (size_t i = 0; i < c.values.size(); ++i) {
        const Value& v = c.values[i];
        if (v.is_null()) {
          ++col->null_count;
          continue;
        }
        columnar::SetBit(valid.data(), static_cast<int64_t>(i));
        if (c.type.id == TypeId::kFloat32) {
          const auto f = static_cast<float>(v.d());
          std::memcpy(bytes.data() + i * 4, &f, 4);
        } else {
          const int64_t x = v.i();  // little-endian: the low bytes are the narrow value
          std::memcpy(bytes.data() + i * static_cast<size_t>(width), &x,
                      static_cast<size_t>(width));
        }
      }
      col->values = Buffer(std::move(bytes));
      if (col->null_count > 0) col->validity = Buffer(std::move(valid));
      column = col;
    } else {
      ValueColumnBuilder b(c.type);
      for (const Value& v : c.values) {
        if (v.is_null()) {
          b.AppendNull();
        } else {
          ASSERT_TRUE(b.Append(v)) << c.type.ToString();
        }
      }
      column = b.Finish();
    }
    const auto n = static_cast<int64_t>(c.values.size());
    for (const bool descending : {false, true}) {
      for (const bool nulls_first : {false, true}) {
        auto key = KeyColumn::Of(column, {ColumnRef(0, c.type, "k"), descending, nulls_first});
        ASSERT_TRUE(key) << key.error().ToString();
        for (int64_t x = 0; x < n; ++x) {
          for (int64_t y = 0; y < n; ++y) {
            const Value& a = c.values[static_cast<size_t>(x)];
            const Value& v = c.values[static_cast<size_t>(y)];
            int want = 0;
            if (a.is_null() || v.is_null()) {
              want = a.is_null() == v.is_null() ? 0 : (a.is_null() == nulls_first ? -1 : 1);
            } else {
              want = CompareValues(a, v);
              if (descending) want = -want;
            }
            EXPECT_EQ(key->Compare(x, y), want)
                << c.type.ToString() << " rows " << x << ", " << y << (descending ? " desc" : "")
                << (nulls_first ? " nulls first" : "");
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace floe::exec
