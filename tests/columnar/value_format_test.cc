#include "floe/columnar/value_format.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

template <typename T>
ColumnPtr One(DataType type, T v) {
  auto c = std::make_shared<Column>();
  c->type = std::move(type);
  c->length = 1;
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &v, sizeof(T));
  c->values = Buffer(std::move(bytes));
  return c;
}

std::string Json(const Column& c, int64_t row = 0) {
  std::string s;
  AppendJsonValue(c, row, &s);
  return s;
}

std::string Csv(const Column& c, int64_t row = 0) {
  std::string s;
  AppendCsvValue(c, row, &s);
  return s;
}

// IEEE 754 binary16: 0x3c00 = 1, 0xc000 = -2, 0x0001 = 2^-24 (the smallest subnormal),
// 0x7bff = 65504 (the largest finite), 0x8000 = -0, 0x7c00 = +inf, 0x7e00 = NaN.
TEST(ValueFormatTest, HalfToFloat) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
}

TEST(ValueFormatTest, Decimals) {
  EXPECT_EQ(DecimalToString(-1250, 2), "-12.50");
  EXPECT_EQ(DecimalToString(5, 2), "0.05");
  EXPECT_EQ(DecimalToString(-5, 3), "-0.005");
  EXPECT_EQ(DecimalToString(7, 0), "7");
  EXPECT_EQ(DecimalToString(0, 2), "0.00");
  __int128 min = static_cast<__int128>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(Int128ToString(min), "-170141183460469231731687303715884105728");
  EXPECT_EQ(Json(*One(Decimal128(38, 10), static_cast<__int128>(123456))), "\"0.0000123456\"");
}

TEST(ValueFormatTest, FloatsReadBackExactly) {
  EXPECT_EQ(FloatToString(1.0, true), "1.0");
  EXPECT_EQ(FloatToString(0.1, true), "0.1");
  EXPECT_EQ(FloatToString(-0.0, true), "-0.0");
  EXPECT_EQ(FloatToString(1e20, true), "1e+20");
  EXPECT_EQ(FloatToString(std::nan(""), true), "\"NaN\"");
  EXPECT_EQ(FloatToString(-INFINITY, false), "-Infinity");
  EXPECT_EQ(Float32ToString(0.1f, true), "0.1");
  EXPECT_EQ(Json(*One(Float32(), 1.7640524f)), "1.7640524");
  EXPECT_EQ(Json(*One(Float16(), uint16_t{0x3555})), "0.33325195");
  EXPECT_EQ(Json(*One(Float64(), std::numeric_limits<double>::infinity())), "\"Infinity\"");
}

TEST(ValueFormatTest, Temporal) {
  EXPECT_EQ(Json(*One(Date32(), int32_t{19725})), "\"2024-01-03\"");
  EXPECT_EQ(Json(*One(Date32(), int32_t{-719528})), "\"0000-01-01\"");
  EXPECT_EQ(Json(*One(Timestamp(TimeUnit::kMilli), int64_t{-1})), "\"1969-12-31T23:59:59.999\"");
  EXPECT_EQ(Json(*One(Timestamp(TimeUnit::kMicro, "UTC"), int64_t{1704241800000000})),
            "\"2024-01-03T00:30:00.000000Z\"");
  EXPECT_EQ(Json(*One(Timestamp(TimeUnit::kNano), std::numeric_limits<int64_t>::min())),
            "\"1677-09-21T00:12:43.145224192\"");
  EXPECT_EQ(Json(*One(Time64(TimeUnit::kMicro), int64_t{45000123456})), "\"12:30:00.123456\"");
}

TEST(ValueFormatTest, StringsBinaryAndCsv) {
  BinaryBuilder s(String());
  ASSERT_TRUE(s.Append("a\"b\\c\n\x01").has_value());
  ASSERT_TRUE(s.Append("caf\xc3\xa9").has_value());
  ASSERT_TRUE(s.Append("bad \xff byte").has_value());
  ASSERT_TRUE(s.Append("x,y").has_value());
  ASSERT_TRUE(s.Append("").has_value());
  s.AppendNull();
  auto c = s.Finish();
  EXPECT_EQ(Json(*c, 0), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(Json(*c, 1), "\"caf\xc3\xa9\"");
  EXPECT_EQ(Json(*c, 2), "\"bad \xef\xbf\xbd byte\"");
  EXPECT_EQ(Json(*c, 5), "null");
  EXPECT_EQ(Csv(*c, 0), "\"a\"\"b\\c\n\x01\"");
  EXPECT_EQ(Csv(*c, 3), "\"x,y\"");
  EXPECT_EQ(Csv(*c, 4), "\"\"");  // empty, not null
  EXPECT_EQ(Csv(*c, 5), "");
  BinaryBuilder b(Binary());
  ASSERT_TRUE(b.Append(std::string("\x00\xff", 2)).has_value());
  EXPECT_EQ(Json(*b.Finish(), 0), "\"00ff\"");
}

TEST(ValueFormatTest, Nested) {
  // list<int32>: [1, null], [], null
  auto items = std::make_shared<Column>();
  items->type = Int32();
  items->length = 2;
  items->null_count = 1;
  items->values = Buffer(std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0, 0});
  items->validity = Buffer(std::vector<uint8_t>{0x01});
  auto list = std::make_shared<Column>();
  list->type = List(Field{"item", Int32(), true, -1});
  list->length = 3;
  list->null_count = 1;
  list->validity = Buffer(std::vector<uint8_t>{0x03});
  std::vector<int32_t> offsets = {0, 2, 2, 2};
  list->offsets = Buffer::Copy({reinterpret_cast<const uint8_t*>(offsets.data()), 16});
  list->children = {items};
  ASSERT_TRUE(list->Validate().has_value());
  EXPECT_EQ(Json(*list, 0), "[1, null]");
  EXPECT_EQ(Json(*list, 1), "[]");
  EXPECT_EQ(Json(*list, 2), "null");
  EXPECT_EQ(Csv(*list, 0), "\"[1, null]\"");
}

}  // namespace
}  // namespace floe::columnar
