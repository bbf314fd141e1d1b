#include "floe/columnar/column.h"

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

TEST(ColumnBuilder, AllValidColumnsCarryNoBitmap) {
  FixedWidthBuilder<int64_t> b(Int64());
  for (int64_t i = 0; i < 10; ++i) b.Append(i * 3);
  ColumnPtr c = b.Finish();
  EXPECT_EQ(c->length, 10);
  EXPECT_EQ(c->null_count, 0);
  EXPECT_TRUE(c->validity.empty());
  EXPECT_EQ(c->values.size(), 80u);
  EXPECT_EQ(c->Value<int64_t>(7), 21);
  EXPECT_TRUE(c->Validate().has_value());
}

TEST(ColumnBuilder, FirstNullMaterialisesTheBitmapWithEarlierRowsValid) {
  FixedWidthBuilder<int32_t> b(Int32());
  for (int i = 0; i < 9; ++i) b.Append(i);
  b.AppendNull();
  b.Append(42);
  b.AppendNull();
  ColumnPtr c = b.Finish();
  ASSERT_EQ(c->length, 12);
  EXPECT_EQ(c->null_count, 2);
  ASSERT_EQ(c->validity.size(), 2u);
  // Arrow's LSB-first bit order: rows 0-7 valid, row 8 valid, 9 null, 10 valid, 11 null.
  EXPECT_EQ(c->validity[0], 0xFF);
  EXPECT_EQ(c->validity[1], 0b0101);
  EXPECT_TRUE(c->IsNull(9));
  EXPECT_EQ(c->Value<int32_t>(10), 42);
  EXPECT_TRUE(c->Validate().has_value());
}

TEST(ColumnBuilder, BuilderIsReusableAfterFinish) {
  FixedWidthBuilder<double> b(Float64());
  b.AppendNull();
  (void)b.Finish();
  b.Append(1.5);
  ColumnPtr c = b.Finish();
  EXPECT_EQ(c->length, 1);
  EXPECT_EQ(c->null_count, 0);
  EXPECT_TRUE(c->validity.empty());
}

TEST(ColumnBuilder, StringsUseInt32Offsets) {
  BinaryBuilder b(String());
  ASSERT_TRUE(b.Append("ab").has_value());
  b.AppendNull();
  ASSERT_TRUE(b.Append("").has_value());
  ASSERT_TRUE(b.Append("xyz").has_value());
  ColumnPtr c = b.Finish();
  ASSERT_EQ(c->length, 4);
  EXPECT_EQ(c->offsets.size(), 20u);
  const int32_t* o = c->Offsets();
  EXPECT_EQ(std::vector<int32_t>(o, o + 5), (std::vector<int32_t>{0, 2, 2, 2, 5}));
  EXPECT_EQ(c->values.string_view(), "abxyz");
  EXPECT_EQ(c->BytesAt(3), "xyz");
  EXPECT_EQ(ValueToString(*c, 1), "NULL");
  EXPECT_EQ(ValueToString(*c, 0), "'ab'");
  EXPECT_TRUE(c->Validate().has_value());
}

TEST(ColumnBuilder, FixedSizeBinaryRejectsWrongWidths) {
  BinaryBuilder b(FixedSizeBinary(3));
  ASSERT_TRUE(b.Append("abc").has_value());
  auto bad = b.Append("abcd");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().ToString(), "invalid input: value of 4 bytes for fixed_size_binary[3]");
  b.AppendNull();
  ColumnPtr c = b.Finish();
  EXPECT_EQ(c->length, 2);
  EXPECT_EQ(c->values.size(), 6u);
  EXPECT_EQ(ValueToString(*c, 0), "0x616263");
}

TEST(ColumnBuilder, BoolsArePackedBits) {
  BoolBuilder b;
  for (int i = 0; i < 10; ++i) {
    if (i == 4) {
      b.AppendNull();
    } else {
      b.Append(i % 3 == 0);
    }
  }
  ColumnPtr c = b.Finish();
  ASSERT_EQ(c->length, 10);
  EXPECT_EQ(c->values.size(), 2u);
  EXPECT_TRUE(c->BoolAt(0));
  EXPECT_FALSE(c->BoolAt(1));
  EXPECT_TRUE(c->BoolAt(9));
  EXPECT_TRUE(c->IsNull(4));
  EXPECT_EQ(ValueToString(*c, 3), "true");
  EXPECT_TRUE(c->Validate().has_value());
}

TEST(Column, ValidateRejectsBadOffsets) {
  Column c;
  c.type = String();
  c.length = 2;
  std::vector<int32_t> off{0, 5, 3};
  c.offsets = Buffer::Copy({reinterpret_cast<const uint8_t*>(off.data()), 12});
  c.values = Buffer::FromString("hello");
  auto s = c.Validate();
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().ToString(), "corrupt: string column of 2 rows: offsets not monotone");
  off = {0, 2, 9};
  c.offsets = Buffer::Copy({reinterpret_cast<const uint8_t*>(off.data()), 12});
  EXPECT_EQ(c.Validate().error().message, "string column of 2 rows: offsets past the data");
}

TEST(Column, ValueToStringFormatsTemporalTypes) {
  FixedWidthBuilder<int32_t> dates(Date32());
  dates.Append(0);
  dates.Append(19725);   // 2024-01-03 (Python: (date(2024,1,3) - date(1970,1,1)).days)
  dates.Append(-25509);  // 1900-02-28
  dates.Append(11016);   // 2000-02-29
  ColumnPtr d = dates.Finish();
  EXPECT_EQ(ValueToString(*d, 0), "1970-01-01");
  EXPECT_EQ(ValueToString(*d, 1), "2024-01-03");
  EXPECT_EQ(ValueToString(*d, 2), "1900-02-28");
  EXPECT_EQ(ValueToString(*d, 3), "2000-02-29");

  FixedWidthBuilder<int64_t> ts(Timestamp(TimeUnit::kMilli, "UTC"));
  ts.Append(1704285296789);  // 2024-01-03T12:34:56.789Z
  ColumnPtr t = ts.Finish();
  EXPECT_EQ(ValueToString(*t, 0), "2024-01-03T12:34:56.789Z");

  FixedWidthBuilder<int64_t> us(Timestamp(TimeUnit::kMicro));
  us.Append(-1000000);  // one second before the epoch
  EXPECT_EQ(ValueToString(*us.Finish(), 0), "1969-12-31T23:59:59.000000");
}

TEST(DataType, EqualityAndNames) {
  EXPECT_EQ(Decimal128(10, 2), Decimal128(10, 2));
  EXPECT_NE(Decimal128(10, 2), Decimal128(10, 3));
  EXPECT_NE(Timestamp(TimeUnit::kMicro, "UTC"), Timestamp(TimeUnit::kMicro));
  EXPECT_EQ(Decimal128(10, 2).ToString(), "decimal(10, 2)");
  EXPECT_EQ(Timestamp(TimeUnit::kMicro, "UTC").ToString(), "timestamp[us, UTC]");
  EXPECT_EQ(List(Field{"element", Int32()}).ToString(), "list<element: int32>");
  EXPECT_EQ(Map(Field{"key", String()}, Field{"value", Int64()}).ToString(), "map<string, int64>");
  EXPECT_EQ(Decimal128(38, 0).FixedWidth(), 16);
  Schema s{{Field{"a", Int32()}, Field{"b", String(), false, 7}}};
  EXPECT_EQ(s.IndexOf("b"), 1);
  EXPECT_EQ(s.IndexOf("c"), std::nullopt);
  EXPECT_EQ(s.ToString(), "a: int32\nb: string not null\n");
}

}  // namespace
}  // namespace floe::columnar
