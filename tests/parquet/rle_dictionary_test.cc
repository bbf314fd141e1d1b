#include "floe/parquet/rle_dictionary.h"

#include <gtest/gtest.h>

namespace floe::parquet {
namespace {

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

TEST(RleDictionaryTest, RoundTripsIndices) {
  for (int32_t dict_size : {1, 2, 3, 255, 256, 70000}) {
    SCOPED_TRACE(dict_size);
    std::vector<int32_t> indices;
    for (int i = 0; i < 1000; ++i) indices.push_back((i * 31 + i / 50) % dict_size);
    RleDictionaryEncoder e;
    e.Put(indices);
    EXPECT_EQ(e.num_values(), 1000);
    size_t estimate = e.EstimatedSize();
    std::vector<uint8_t> bytes;
    e.Flush(&bytes);
    EXPECT_LE(bytes.size(), estimate);
    // The first byte is the bit width of the largest index.
    int width = 0;
    while ((int64_t{1} << width) <= *std::max_element(indices.begin(), indices.end())) ++width;
    EXPECT_EQ(bytes[0], width);
    RleDictionaryDecoder d;
    ASSERT_TRUE(d.SetData(1000, bytes).has_value());
    std::vector<int32_t> out(1000);
    ASSERT_TRUE(d.DecodeIndices(std::span(out).first(10), dict_size).has_value());
    ASSERT_TRUE(d.Skip(90).has_value());
    ASSERT_TRUE(d.DecodeIndices(std::span(out).subspan(100), dict_size).has_value());
    for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], indices[i]);
    for (int i = 100; i < 1000; ++i) ASSERT_EQ(out[i], indices[i]);
  }
}

TEST(RleDictionaryTest, IndexOutsideTheDictionaryIsCorrupt) {
  RleDictionaryEncoder e;
  std::vector<int32_t> indices = {0, 1, 2, 3};
  e.Put(indices);
  std::vector<uint8_t> bytes;
  e.Flush(&bytes);
  RleDictionaryDecoder d(Encoding::kPlainDictionary);
  ASSERT_TRUE(d.SetData(4, bytes).has_value());
  std::vector<int32_t> out(4);
  EXPECT_EQ(ErrorOf(d.DecodeIndices(std::span(out), 3)),
            "corrupt: PLAIN_DICTIONARY: index 3 is not below the dictionary size 3");
  // Bit width 32 with the top bit set: never a negative index that slips through.
  std::vector<uint8_t> top = {32, 0x02, 0xff, 0xff, 0xff, 0xff};
  ASSERT_TRUE(d.SetData(1, top).has_value());
  EXPECT_EQ(ErrorOf(d.DecodeIndices(std::span(out).first(1), 10)),
            "corrupt: PLAIN_DICTIONARY: index 4294967295 is not below the dictionary size 10");
  std::vector<uint8_t> wide = {33, 0x02, 0};
  EXPECT_EQ(ErrorOf(d.SetData(1, wide)),
            "corrupt: PLAIN_DICTIONARY: index bit width 33 exceeds 32");
  EXPECT_EQ(ErrorOf(d.SetData(1, {})),
            "corrupt: PLAIN_DICTIONARY: page holds no bit width for 1 indices");
  EXPECT_TRUE(d.SetData(0, {}).has_value());
}

TEST(RleDictionaryTest, BitWidthZeroIsOneValue) {
  // Dictionary of one entry: width 0, one RLE run of 5 zeros with no value bytes.
  std::vector<uint8_t> bytes = {0, 0x0a};
  RleDictionaryDecoder d;
  ASSERT_TRUE(d.SetData(5, bytes).has_value());
  std::vector<int32_t> out(5, -1);
  ASSERT_TRUE(d.DecodeIndices(std::span(out), 1).has_value());
  EXPECT_EQ(out, std::vector<int32_t>(5, 0));
}

}  // namespace
}  // namespace floe::parquet
