#include "floe/parquet/decoder.h"

#include <gtest/gtest.h>

#include "floe/parquet/encoder.h"

namespace floe::parquet {
namespace {

TEST(DecoderFactoryTest, MatchesEncodingsToTypes) {
  struct Case {
    Encoding encoding;
    PhysicalType type;
    bool ok;
  };
  const Case cases[] = {
      {Encoding::kPlain, PhysicalType::kInt96, true},
      {Encoding::kPlain, PhysicalType::kBoolean, true},
      {Encoding::kRle, PhysicalType::kBoolean, true},
      {Encoding::kRle, PhysicalType::kInt32, false},
      {Encoding::kRleDictionary, PhysicalType::kByteArray, true},
      {Encoding::kPlainDictionary, PhysicalType::kDouble, true},
      {Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, true},
      {Encoding::kDeltaBinaryPacked, PhysicalType::kFloat, false},
      {Encoding::kDeltaLengthByteArray, PhysicalType::kByteArray, true},
      {Encoding::kDeltaLengthByteArray, PhysicalType::kFixedLenByteArray, false},
      {Encoding::kDeltaByteArray, PhysicalType::kFixedLenByteArray, true},
      {Encoding::kByteStreamSplit, PhysicalType::kInt32, true},
      {Encoding::kByteStreamSplit, PhysicalType::kByteArray, false},
      {Encoding::kBitPacked, PhysicalType::kInt32, false},
      {static_cast<Encoding>(10), PhysicalType::kDouble, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(EncodingName(c.encoding) + " " + PhysicalTypeName(c.type));
    auto d = MakeDecoder(c.encoding, c.type, 4);
    EXPECT_EQ(d.has_value(), c.ok);
    if (d.has_value()) {
      EXPECT_EQ((*d)->encoding(), c.encoding);
    } else {
      EXPECT_EQ(d.error().kind, ErrorKind::kUnsupported);
    }
  }
  auto unknown = MakeDecoder(static_cast<Encoding>(10), PhysicalType::kDouble);
  EXPECT_EQ(unknown.error().ToString(), "unsupported: Encoding(10) encoding for DOUBLE values");
  auto flba = MakeDecoder(Encoding::kPlain, PhysicalType::kFixedLenByteArray, 0);
  EXPECT_EQ(flba.error().ToString(),
            "invalid input: FIXED_LEN_BYTE_ARRAY needs a positive type_length, not 0");
}

TEST(EncoderFactoryTest, WritesWhatFloeWrites) {
  EXPECT_TRUE(MakeEncoder(Encoding::kPlain, PhysicalType::kInt96).has_value());
  EXPECT_TRUE(MakeEncoder(Encoding::kRle, PhysicalType::kBoolean).has_value());
  EXPECT_TRUE(MakeEncoder(Encoding::kDeltaBinaryPacked, PhysicalType::kInt32).has_value());
  EXPECT_TRUE(
      MakeEncoder(Encoding::kByteStreamSplit, PhysicalType::kFixedLenByteArray, 16).has_value());
  auto dict = MakeEncoder(Encoding::kRleDictionary, PhysicalType::kInt32);
  ASSERT_FALSE(dict.has_value());
  EXPECT_EQ(dict.error().ToString(),
            "unsupported: writing RLE_DICTIONARY encoding for INT32 values");
  auto e = *MakeEncoder(Encoding::kPlain, PhysicalType::kInt32);
  std::vector<double> wrong = {1.0};
  auto st = e->Put(std::span<const double>(wrong));
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().ToString(),
            "internal error: PLAIN encoder given DOUBLE values, which it does not take");
}

}  // namespace
}  // namespace floe::parquet
