#include "floe/parquet/byte_stream_split.h"

#include <cstring>
#include <random>

#include <gtest/gtest.h>

namespace floe::parquet {
namespace {

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

// The spec's example: three FLOATs AA BB CC DD | 00 11 22 33 | A3 B4 C5 D6 become
// AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6.
TEST(ByteStreamSplitTest, SpecExample) {
  const std::vector<uint8_t> raw = {0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11,
                                    0x22, 0x33, 0xa3, 0xb4, 0xc5, 0xd6};
  const std::vector<uint8_t> split = {0xaa, 0x00, 0xa3, 0xbb, 0x11, 0xb4,
                                      0xcc, 0x22, 0xc5, 0xdd, 0x33, 0xd6};
  float values[3];
  std::memcpy(values, raw.data(), 12);
  ByteStreamSplitEncoder e(PhysicalType::kFloat, 0);
  ASSERT_TRUE(e.Put(std::span<const float>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes, split);
  ByteStreamSplitDecoder d(PhysicalType::kFloat, 0);
  ASSERT_TRUE(d.SetData(3, split).has_value());
  float out[3];
  ASSERT_TRUE(d.Decode(std::span<float>(out)).has_value());
  EXPECT_EQ(std::memcmp(out, raw.data(), 12), 0);
}

template <typename T>
void RoundTrip(PhysicalType type, size_t n) {
  std::mt19937_64 rng(n);
  std::vector<T> values(n);
  for (auto& v : values) {
    uint64_t bits = rng();
    std::memcpy(&v, &bits, sizeof(T));
  }
  ByteStreamSplitEncoder e(type, 0);
  ASSERT_TRUE(e.Put(std::span<const T>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  ASSERT_EQ(bytes.size(), n * sizeof(T));
  ByteStreamSplitDecoder d(type, 0);
  ASSERT_TRUE(d.SetData(static_cast<int64_t>(n), bytes).has_value());
  std::vector<T> out(n);
  if (n >= 3) {
    ASSERT_TRUE(d.Decode(std::span<T>(out).first(1)).has_value());
    ASSERT_TRUE(d.Skip(1).has_value());
    out[1] = values[1];
    ASSERT_TRUE(d.Decode(std::span<T>(out).subspan(2)).has_value());
  } else {
    ASSERT_TRUE(d.Decode(std::span<T>(out)).has_value());
  }
  if (n > 0) {
    EXPECT_EQ(std::memcmp(out.data(), values.data(), n * sizeof(T)), 0);
  }
}

TEST(ByteStreamSplitTest, RoundTripsEveryType) {
  for (size_t n : {0, 1, 2, 3, 100, 1001}) {
    RoundTrip<float>(PhysicalType::kFloat, n);
    RoundTrip<double>(PhysicalType::kDouble, n);
    RoundTrip<int32_t>(PhysicalType::kInt32, n);
    RoundTrip<int64_t>(PhysicalType::kInt64, n);
  }
  // FIXED_LEN_BYTE_ARRAY(3)
  std::vector<uint8_t> flba = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  ByteStreamSplitEncoder e(PhysicalType::kFixedLenByteArray, 3);
  ASSERT_TRUE(e.PutFixedWidth(flba).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes, (std::vector<uint8_t>{1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12}));
  ByteStreamSplitDecoder d(PhysicalType::kFixedLenByteArray, 3);
  ASSERT_TRUE(d.SetData(4, bytes).has_value());
  std::vector<uint8_t> out(12);
  ASSERT_TRUE(d.DecodeFixedWidth(out).has_value());
  EXPECT_EQ(out, flba);
}

TEST(ByteStreamSplitTest, LengthMustMatch) {
  ByteStreamSplitDecoder d(PhysicalType::kDouble, 0);
  EXPECT_EQ(ErrorOf(d.SetData(1, std::vector<uint8_t>(12))),
            "corrupt: BYTE_STREAM_SPLIT: 12 bytes is not a whole number of 8-byte values");
  EXPECT_EQ(ErrorOf(d.SetData(3, std::vector<uint8_t>(16))),
            "corrupt: BYTE_STREAM_SPLIT: 3 values need 24 bytes, the page has 16");
  ASSERT_TRUE(d.SetData(2, std::vector<uint8_t>(16)).has_value());
  double out[3];
  EXPECT_EQ(ErrorOf(d.Decode(std::span<double>(out, 3))),
            "corrupt: BYTE_STREAM_SPLIT: 3 values requested, the page has 2 left");
}

}  // namespace
}  // namespace floe::parquet
