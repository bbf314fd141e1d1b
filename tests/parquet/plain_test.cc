#include "floe/parquet/plain.h"

#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace floe::parquet {
namespace {

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

template <typename T>
void RoundTripNumbers(PhysicalType type, const std::vector<T>& values) {
  PlainEncoder e(type, 0);
  ASSERT_TRUE(e.Put(std::span<const T>(values)).has_value());
  EXPECT_EQ(e.num_values(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(e.EstimatedSize(), values.size() * sizeof(T));
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  ASSERT_EQ(bytes.size(), values.size() * sizeof(T));
  // PLAIN is the values' little-endian bytes, nothing else.
  if (!values.empty()) {
    EXPECT_EQ(std::memcmp(bytes.data(), values.data(), bytes.size()), 0);
  }
  PlainDecoder d(type, 0);
  ASSERT_TRUE(d.SetData(static_cast<int64_t>(values.size()), bytes).has_value());
  std::vector<T> out(values.size());
  if (values.size() > 2) {
    ASSERT_TRUE(d.Decode(std::span<T>(out).first(1)).has_value());
    ASSERT_TRUE(d.Skip(1).has_value());
    out[1] = values[1];
    ASSERT_TRUE(d.Decode(std::span<T>(out).subspan(2)).has_value());
  } else {
    ASSERT_TRUE(d.Decode(std::span<T>(out)).has_value());
  }
  if (!values.empty()) {
    EXPECT_EQ(0, std::memcmp(out.data(), values.data(), values.size() * sizeof(T)));
  }
  EXPECT_EQ(d.values_left(), 0);
}

TEST(PlainTest, RoundTripsFixedWidthNumbers) {
  for (size_t n : {0, 1, 3, 1000}) {
    std::vector<int32_t> i32(n);
    std::vector<int64_t> i64(n);
    std::vector<float> f(n);
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) {
      i32[i] = i % 2 ? std::numeric_limits<int32_t>::min() + static_cast<int32_t>(i) : -7;
      i64[i] = i % 2 ? std::numeric_limits<int64_t>::max() - static_cast<int64_t>(i) : 0;
      f[i] = i == 1 ? std::numeric_limits<float>::quiet_NaN() : 1.5f * static_cast<float>(i);
      d[i] = i == 2 ? -0.0 : 1e300 / static_cast<double>(i + 1);
    }
    RoundTripNumbers(PhysicalType::kInt32, i32);
    RoundTripNumbers(PhysicalType::kInt64, i64);
    RoundTripNumbers(PhysicalType::kFloat, f);
    RoundTripNumbers(PhysicalType::kDouble, d);
  }
}

TEST(PlainTest, BooleansAreBitPackedLsbFirst) {
  const bool values[] = {true, false, true, true, false, false, false, false, true, true};
  PlainEncoder e(PhysicalType::kBoolean, 0);
  ASSERT_TRUE(e.Put(std::span<const bool>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0x0d, 0x03}));
  PlainDecoder d(PhysicalType::kBoolean, 0);
  ASSERT_TRUE(d.SetData(10, bytes).has_value());
  bool out[10] = {};
  ASSERT_TRUE(d.Decode(std::span<bool>(out, 3)).has_value());
  ASSERT_TRUE(d.Skip(2).has_value());
  ASSERT_TRUE(d.Decode(std::span<bool>(out + 5, 5)).has_value());
  for (int i : {0, 1, 2, 5, 6, 7, 8, 9}) EXPECT_EQ(out[i], values[i]) << i;
  // 16 bits are there, but only 10 values were promised.
  EXPECT_EQ(ErrorOf(d.Decode(std::span<bool>(out, 1))),
            "corrupt: PLAIN BOOLEAN: 1 values requested, the page has 0 left");
  ASSERT_TRUE(d.SetData(17, bytes).has_value());
  bool many[17];
  EXPECT_EQ(ErrorOf(d.Decode(std::span<bool>(many, 17))),
            "corrupt: PLAIN BOOLEAN: page ends after 16 of 17 values");
}

TEST(PlainTest, Int96AndFixedLenByteArray) {
  std::vector<uint8_t> int96(36);
  for (size_t i = 0; i < int96.size(); ++i) int96[i] = static_cast<uint8_t>(i * 7);
  PlainEncoder e(PhysicalType::kInt96, 0);
  ASSERT_TRUE(e.PutFixedWidth(int96).has_value());
  EXPECT_EQ(e.num_values(), 3);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes, int96);
  PlainDecoder d(PhysicalType::kInt96, 0);
  ASSERT_TRUE(d.SetData(3, bytes).has_value());
  std::vector<uint8_t> out(36);
  ASSERT_TRUE(d.DecodeFixedWidth(out).has_value());
  EXPECT_EQ(out, int96);

  PlainDecoder flba(PhysicalType::kFixedLenByteArray, 5);
  ASSERT_TRUE(flba.SetData(7, bytes).has_value());  // 36 bytes = 7 whole values
  std::vector<uint8_t> five(35);
  ASSERT_TRUE(flba.DecodeFixedWidth(five).has_value());
  EXPECT_TRUE(std::equal(five.begin(), five.end(), bytes.begin()));
  ASSERT_TRUE(flba.SetData(8, bytes).has_value());
  std::vector<uint8_t> forty(40);
  EXPECT_EQ(ErrorOf(flba.DecodeFixedWidth(forty)),
            "corrupt: PLAIN FIXED_LEN_BYTE_ARRAY: page ends after 7 of 8 values");
}

TEST(PlainTest, ByteArrays) {
  const std::string data = "helloparquetx";
  const std::vector<int32_t> offsets = {0, 5, 5, 12, 13};  // "hello", "", "parquet", "x"
  PlainEncoder e(PhysicalType::kByteArray, 0);
  ASSERT_TRUE(e.PutByteArrays(offsets, AsBytes(data)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes.size(), 4u * 4 + 13);
  EXPECT_EQ(bytes[0], 5);
  PlainDecoder d(PhysicalType::kByteArray, 0);
  ASSERT_TRUE(d.SetData(4, bytes).has_value());
  ByteArrayBuilder out;
  ASSERT_TRUE(d.DecodeByteArrays(1, &out).has_value());
  ASSERT_TRUE(d.Skip(1).has_value());
  ASSERT_TRUE(d.DecodeByteArrays(2, &out).has_value());
  ASSERT_EQ(out.size(), 3);
  EXPECT_EQ(out.Value(0), "hello");
  EXPECT_EQ(out.Value(1), "parquet");
  EXPECT_EQ(out.Value(2), "x");
  EXPECT_EQ(std::vector<int32_t>(out.offsets().begin(), out.offsets().end()),
            (std::vector<int32_t>{0, 5, 12, 13}));

  // A length running past the end, and a length cut in half.
  std::vector<uint8_t> bad = {10, 0, 0, 0, 'a', 'b'};
  ASSERT_TRUE(d.SetData(1, bad).has_value());
  EXPECT_EQ(ErrorOf(d.DecodeByteArrays(1, &out)),
            "corrupt: PLAIN BYTE_ARRAY: value 0 of 1 claims 10 bytes, 2 remain");
  ASSERT_TRUE(d.SetData(1, std::span(bad).first(3)).has_value());
  EXPECT_EQ(ErrorOf(d.DecodeByteArrays(1, &out)),
            "corrupt: PLAIN BYTE_ARRAY: page ends inside the length of value 0 of 1");
  EXPECT_EQ(ErrorOf(e.PutByteArrays(std::vector<int32_t>{0, 99}, AsBytes(data))),
            "invalid input: PLAIN BYTE_ARRAY: offsets [0, 99) are not inside 13 bytes of data");
}

TEST(PlainTest, WrongOutputTypeIsInternal) {
  PlainDecoder d(PhysicalType::kInt32, 0);
  ASSERT_TRUE(d.SetData(1, std::vector<uint8_t>(4)).has_value());
  std::vector<int64_t> out(1);
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out))),
            "internal error: PLAIN decoder asked for INT64 values, which it does not produce");
}

TEST(PlainTest, RandomInputNeverCrashes) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 16);  // small lengths, some valid
    PlainDecoder d(PhysicalType::kByteArray, 0);
    ASSERT_TRUE(d.SetData(10, bytes).has_value());
    ByteArrayBuilder out;
    (void)d.DecodeByteArrays(1 + static_cast<int64_t>(rng() % 10), &out);
  }
}

}  // namespace
}  // namespace floe::parquet
