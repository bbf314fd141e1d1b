#include "floe/parquet/delta_byte_array.h"

#include <random>

#include <gtest/gtest.h>

#include "floe/parquet/delta_length_byte_array.h"

namespace floe::parquet {
namespace {

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

std::vector<uint8_t> DeltaEncoding(std::vector<int32_t> values) {
  DeltaBinaryPackedEncoder e(PhysicalType::kInt32);
  EXPECT_TRUE(e.Put(std::span<const int32_t>(values)).has_value());
  std::vector<uint8_t> out;
  EXPECT_TRUE(e.Flush(&out).has_value());
  return out;
}

void Append(std::vector<uint8_t>* out, ByteView bytes) {
  out->insert(out->end(), bytes.begin(), bytes.end());
}

// Arrow-layout input for the encoders.
struct Strings {
  std::vector<int32_t> offsets{0};
  std::string data;
  explicit Strings(const std::vector<std::string>& values) {
    for (const auto& v : values) {
      data += v;
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
  }
};

// The spec's example: "Hello", "World", "Foobar", "ABCDEF" are DeltaEncoding(5, 5, 6, 6)
// followed by "HelloWorldFoobarABCDEF".
TEST(DeltaLengthByteArrayTest, SpecExample) {
  std::vector<uint8_t> expected = DeltaEncoding({5, 5, 6, 6});
  Append(&expected, AsBytes("HelloWorldFoobarABCDEF"));
  Strings in({"Hello", "World", "Foobar", "ABCDEF"});
  DeltaLengthByteArrayEncoder e;
  ASSERT_TRUE(e.PutByteArrays(in.offsets, AsBytes(in.data)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes, expected);
  DeltaLengthByteArrayDecoder d;
  ASSERT_TRUE(d.SetData(4, bytes).has_value());
  ByteArrayBuilder out;
  ASSERT_TRUE(d.DecodeByteArrays(1, &out).has_value());
  ASSERT_TRUE(d.Skip(1).has_value());
  ASSERT_TRUE(d.DecodeByteArrays(2, &out).has_value());
  ASSERT_EQ(out.size(), 3);
  EXPECT_EQ(out.Value(0), "Hello");
  EXPECT_EQ(out.Value(1), "Foobar");
  EXPECT_EQ(out.Value(2), "ABCDEF");
}

// The spec's example: "axis", "axle", "babble", "babyhood" are DeltaEncoding(0, 2, 0, 3),
// DeltaEncoding(4, 2, 6, 5) and "axislebabbleyhood".
TEST(DeltaByteArrayTest, SpecExample) {
  std::vector<uint8_t> expected = DeltaEncoding({0, 2, 0, 3});
  Append(&expected, DeltaEncoding({4, 2, 6, 5}));
  Append(&expected, AsBytes("axislebabbleyhood"));
  Strings in({"axis", "axle", "babble", "babyhood"});
  DeltaByteArrayEncoder e(PhysicalType::kByteArray, 0);
  ASSERT_TRUE(e.PutByteArrays(in.offsets, AsBytes(in.data)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(bytes, expected);
  DeltaByteArrayDecoder d(PhysicalType::kByteArray, 0);
  ASSERT_TRUE(d.SetData(4, expected).has_value());
  ByteArrayBuilder out;
  ASSERT_TRUE(d.DecodeByteArrays(4, &out).has_value());
  EXPECT_EQ(out.Value(0), "axis");
  EXPECT_EQ(out.Value(1), "axle");
  EXPECT_EQ(out.Value(2), "babble");
  EXPECT_EQ(out.Value(3), "babyhood");
}

std::vector<std::string> SampleStrings(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  std::string prev;
  for (size_t i = 0; i < n; ++i) {
    std::string s = prev.substr(0, rng() % (prev.size() + 1));  // shared prefixes
    size_t extra = rng() % 12;
    for (size_t k = 0; k < extra; ++k) s += static_cast<char>('a' + rng() % 26);
    if (i % 17 == 0) s.clear();
    out.push_back(s);
    prev = s;
  }
  return out;
}

TEST(DeltaByteArrayTest, RoundTripsBothEncodings) {
  for (size_t n : {0, 1, 2, 127, 128, 129, 2000}) {
    SCOPED_TRACE(n);
    auto values = SampleStrings(n, n + 1);
    Strings in(values);
    for (Encoding enc : {Encoding::kDeltaLengthByteArray, Encoding::kDeltaByteArray}) {
      auto e = MakeEncoder(enc, PhysicalType::kByteArray);
      ASSERT_TRUE(e.has_value());
      ASSERT_TRUE((*e)->PutByteArrays(in.offsets, AsBytes(in.data)).has_value());
      EXPECT_EQ((*e)->num_values(), static_cast<int64_t>(n));
      size_t estimate = (*e)->EstimatedSize();
      std::vector<uint8_t> bytes;
      ASSERT_TRUE((*e)->Flush(&bytes).has_value());
      EXPECT_LE(bytes.size(), estimate);
      auto d = MakeDecoder(enc, PhysicalType::kByteArray);
      ASSERT_TRUE(d.has_value());
      ASSERT_TRUE((*d)->SetData(static_cast<int64_t>(n), bytes).has_value());
      ByteArrayBuilder out;
      ASSERT_TRUE((*d)->DecodeByteArrays(static_cast<int64_t>(n), &out).has_value());
      ASSERT_EQ(out.size(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out.Value(static_cast<int64_t>(i)), values[i]);
      EXPECT_EQ((*d)->values_left(), 0);
    }
  }
}

TEST(DeltaByteArrayTest, FixedLenByteArray) {
  std::vector<uint8_t> values = {'a', 'b', 'c', 'a', 'b', 'd', 'x', 'b', 'd', 'x', 'b', 'd'};
  DeltaByteArrayEncoder e(PhysicalType::kFixedLenByteArray, 3);
  ASSERT_TRUE(e.PutFixedWidth(values).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  DeltaByteArrayDecoder d(PhysicalType::kFixedLenByteArray, 3);
  ASSERT_TRUE(d.SetData(4, bytes).has_value());
  std::vector<uint8_t> out(12);
  ASSERT_TRUE(d.DecodeFixedWidth(out).has_value());
  EXPECT_EQ(out, values);
  // Decoded as width 2, the values have the wrong length.
  DeltaByteArrayDecoder two(PhysicalType::kFixedLenByteArray, 2);
  ASSERT_TRUE(two.SetData(4, bytes).has_value());
  std::vector<uint8_t> out2(8);
  EXPECT_EQ(ErrorOf(two.DecodeFixedWidth(out2)),
            "corrupt: DELTA_BYTE_ARRAY: a FIXED_LEN_BYTE_ARRAY(2) value has 3 bytes");
}

TEST(DeltaByteArrayTest, MalformedStreamsAreCorrupt) {
  {
    // A prefix longer than the previous value.
    std::vector<uint8_t> bytes = DeltaEncoding({0, 5});
    Append(&bytes, DeltaEncoding({2, 1}));
    Append(&bytes, AsBytes("abc"));
    DeltaByteArrayDecoder d(PhysicalType::kByteArray, 0);
    ASSERT_TRUE(d.SetData(2, bytes).has_value());
    ByteArrayBuilder out;
    EXPECT_EQ(ErrorOf(d.DecodeByteArrays(2, &out)),
              "corrupt: DELTA_BYTE_ARRAY: prefix length 5 exceeds the previous value's 2 bytes");
  }
  {
    // Lengths running past the data.
    std::vector<uint8_t> bytes = DeltaEncoding({3, 4});
    Append(&bytes, AsBytes("abcde"));
    DeltaLengthByteArrayDecoder d;
    ASSERT_TRUE(d.SetData(2, bytes).has_value());
    ByteArrayBuilder out;
    EXPECT_EQ(ErrorOf(d.DecodeByteArrays(2, &out)),
              "corrupt: DELTA_LENGTH_BYTE_ARRAY: a value of 4 bytes does not fit the 2 left");
    std::vector<uint8_t> negative = DeltaEncoding({-1});
    ASSERT_TRUE(d.SetData(1, negative).has_value());
    EXPECT_EQ(ErrorOf(d.DecodeByteArrays(1, &out)),
              "corrupt: DELTA_LENGTH_BYTE_ARRAY: a value of -1 bytes does not fit the 0 left");
  }
  {
    // Lengths stream cut inside a miniblock: its end cannot be found.
    std::vector<uint8_t> bytes = DeltaEncoding({1, 100, 3, 70000, 5});
    bytes.resize(bytes.size() - 3);
    DeltaLengthByteArrayDecoder d;
    EXPECT_EQ(ErrorOf(d.SetData(5, bytes)),
              "corrupt: DELTA_LENGTH_BYTE_ARRAY lengths: DELTA_BINARY_PACKED: data ends in a "
              "miniblock (4 values still to come)");
  }
  std::mt19937 rng(8);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes = DeltaEncoding({0, 1, 2, static_cast<int32_t>(rng() % 5)});
    Append(&bytes, DeltaEncoding({3, 1, 0, static_cast<int32_t>(rng() % 7)}));
    Append(&bytes, AsBytes("abcdefghij"));
    for (int f = 0; f < 3; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    DeltaByteArrayDecoder d(PhysicalType::kByteArray, 0);
    ByteArrayBuilder out;
    if (d.SetData(4, bytes).has_value()) (void)d.DecodeByteArrays(d.values_left(), &out);
  }
}

}  // namespace
}  // namespace floe::parquet
