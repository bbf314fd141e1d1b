// Every type promotion the Iceberg spec allows reads: a file written before a column was widened
// (int -> long, float -> double, decimal(P, S) -> decimal(P', S), P' > P) conforms to the table's
// schema with its values unchanged; what the spec does not allow stays an error naming the column.
#include <gtest/gtest.h>

#include <cstring>

#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema_conform.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

c::ColumnPtr DecimalColumn(int32_t precision, int32_t scale, const std::vector<Int128>& values) {
  auto col = std::make_shared<c::Column>();
  col->type = c::Decimal128(precision, scale);
  col->length = static_cast<int64_t>(values.size());
  std::vector<uint8_t> bytes(values.size() * 16);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  col->values = Buffer(std::move(bytes));
  return col;
}

c::RecordBatch Batch(std::vector<c::Field> fields, std::vector<c::ColumnPtr> cols) {
  c::RecordBatch b;
  auto schema = std::make_shared<c::Schema>();
  schema->fields = std::move(fields);
  b.schema = std::move(schema);
  b.num_rows = cols.empty() ? 0 : cols[0]->length;
  b.columns = std::move(cols);
  return b;
}

TEST(TypePromotion, IntFloatAndDecimalColumnsReadAsTheirWidenedTypes) {
  c::FixedWidthBuilder<int32_t> i(c::Int32());
  i.Append(-7);
  i.Append(2147483647);
  c::FixedWidthBuilder<float> f(c::Float32());
  f.Append(1.5f);
  f.Append(-0.25f);
  c::RecordBatch file = Batch({{"i", c::Int32(), true, 1},
                               {"f", c::Float32(), true, 2},
                               {"d", c::Decimal128(9, 2), true, 3}},
                              {i.Finish(), f.Finish(), DecimalColumn(9, 2, {12345, -999999999})});
  Schema table(1, {{1, "i", false, Primitive(TypeId::kLong)},
                   {2, "f", false, Primitive(TypeId::kDouble)},
                   {3, "d", false, Decimal(12, 2)}});
  auto out = ConformToSchema(file, table, /*by_field_id=*/true);
  ASSERT_TRUE(out.has_value()) << out.error().ToString();
  EXPECT_EQ(out->columns[0]->type, c::Int64());
  EXPECT_EQ(out->columns[0]->Value<int64_t>(0), -7);
  EXPECT_EQ(out->columns[0]->Value<int64_t>(1), 2147483647);
  EXPECT_EQ(out->columns[1]->type, c::Float64());
  EXPECT_EQ(out->columns[1]->Value<double>(0), 1.5);
  EXPECT_EQ(out->columns[1]->Value<double>(1), -0.25);
  EXPECT_EQ(out->columns[2]->type, c::Decimal128(12, 2));
  EXPECT_EQ(LiteralAt(*out->columns[2], 0, *Decimal(12, 2)).value().ToString(), "123.45");
  EXPECT_EQ(LiteralAt(*out->columns[2], 1, *Decimal(12, 2)).value().ToString(), "-9999999.99");
}

TEST(TypePromotion, NarrowingOrRescalingADecimalIsRefused) {
  c::RecordBatch file = Batch({{"d", c::Decimal128(12, 2), true, 3}}, {DecimalColumn(12, 2, {1})});
  Schema narrower(1, {{3, "d", false, Decimal(9, 2)}});
  EXPECT_EQ(ConformToSchema(file, narrower, true).error().ToString(),
            "invalid input: column 'd' has type decimal(12, 2); the table wants decimal(9, 2)");
  Schema rescaled(1, {{3, "d", false, Decimal(14, 4)}});
  EXPECT_EQ(ConformToSchema(file, rescaled, true).error().ToString(),
            "invalid input: column 'd' has type decimal(12, 2); the table wants decimal(14, 4)");
}

}  // namespace
}  // namespace floe::iceberg
