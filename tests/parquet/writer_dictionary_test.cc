#include "floe/parquet/dictionary_encoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "floe/parquet/rle_dictionary.h"

namespace floe::parquet {
namespace {

TEST(WriterDictionaryTest, NumbersDedupeByBitsInFirstSeenOrder) {
  NumericDictionary<double> d;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = {1.5, -0.0, 0.0, 1.5, nan, nan, -0.0};
  std::vector<int32_t> idx(v.size());
  std::vector<int32_t> added;
  d.Insert(v, idx.data(), &added);
  EXPECT_EQ(idx, (std::vector<int32_t>{0, 1, 2, 0, 3, 3, 1}));
  EXPECT_EQ(added, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(d.size(), 4);
  EXPECT_TRUE(std::signbit(d.value(1)));
  EXPECT_FALSE(std::signbit(d.value(2)));
  EXPECT_EQ(d.plain_size(), 32);
  std::vector<uint8_t> page;
  d.WritePlain(&page);
  ASSERT_EQ(page.size(), 32u);
  double first;
  std::memcpy(&first, page.data(), 8);
  EXPECT_EQ(first, 1.5);
}

TEST(WriterDictionaryTest, GrowsPastItsFirstTable) {
  NumericDictionary<int64_t> d;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 100000; ++i) v.push_back((i % 50000) * 1000003);
  std::vector<int32_t> idx(v.size());
  std::vector<int32_t> added;
  d.Insert(v, idx.data(), &added);
  EXPECT_EQ(d.size(), 50000);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(d.value(idx[i]), v[i]);
  d.Reset();
  EXPECT_EQ(d.size(), 0);
}

TEST(WriterDictionaryTest, ByteArraysAndFixedWidth) {
  BytesDictionary d;
  std::vector<std::string_view> v = {"b", "", "a", "b", "", "longer value"};
  std::vector<int32_t> idx(v.size());
  std::vector<int32_t> added;
  d.Insert(v, idx.data(), &added);
  EXPECT_EQ(idx, (std::vector<int32_t>{0, 1, 2, 0, 1, 3}));
  EXPECT_EQ(d.value(3), "longer value");
  EXPECT_EQ(d.plain_size(), 4 * 4 + 1 + 0 + 1 + 12);
  std::vector<uint8_t> page;
  d.WritePlain(&page);
  EXPECT_EQ(page.size(), static_cast<size_t>(d.plain_size()));
  EXPECT_EQ(std::string(page.begin(), page.begin() + 5), std::string("\1\0\0\0b", 5));

  BytesDictionary fixed(3);
  std::vector<std::string_view> f = {"abc", "xyz", "abc"};
  std::vector<int32_t> fidx(3);
  added.clear();
  fixed.Insert(f, fidx.data(), &added);
  EXPECT_EQ(fixed.plain_size(), 6);  // no length prefixes
  page.clear();
  fixed.WritePlain(&page);
  EXPECT_EQ(std::string(page.begin(), page.end()), "abcxyz");
}

std::vector<int32_t> Decode(const std::vector<uint8_t>& page, size_t n, int32_t dict_size) {
  RleDictionaryDecoder d;
  EXPECT_TRUE(d.SetData(static_cast<int64_t>(n), page).has_value());
  std::vector<int32_t> out(n);
  auto s = d.DecodeIndices(out, dict_size);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return out;
}

TEST(WriterDictionaryTest, IndexPagesDecodeWithTheReadersDecoder) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = rng() % 3000;
    const int32_t card = 1 + static_cast<int32_t>(rng() % (trial % 3 == 0 ? 2 : 70000));
    std::vector<int32_t> v;
    while (v.size() < n) {
      const int32_t x = static_cast<int32_t>(rng() % static_cast<uint32_t>(card));
      const size_t run = rng() % 4 == 0 ? rng() % 40 : 1;  // mix long runs with literals
      for (size_t k = 0; k < run && v.size() < n; ++k) v.push_back(x);
    }
    std::vector<uint8_t> page;
    EncodeDictionaryIndices(v, &page);
    ASSERT_EQ(Decode(page, n, card), v) << "trial " << trial;
  }
}

TEST(WriterDictionaryTest, IndexPagesUseRunsAndTheNarrowestWidth) {
  std::vector<int32_t> zeros(1000, 0);
  std::vector<uint8_t> page;
  EncodeDictionaryIndices(zeros, &page);
  // Width 0, one RLE run of 1000 (ULEB128 of 2000 = 0xd0 0x0f), no value bytes.
  EXPECT_EQ(page, (std::vector<uint8_t>{0, 0xd0, 0x0f}));
  page.clear();
  std::vector<int32_t> seven = {1, 2, 3, 4, 5, 6, 7};
  EncodeDictionaryIndices(seven, &page);
  // Width 3, one bit-packed group (header 0x03), 3 bytes.
  ASSERT_EQ(page.size(), 5u);
  EXPECT_EQ(page[0], 3);
  EXPECT_EQ(page[1], 3);
  EXPECT_EQ(Decode(page, 7, 8), seven);
}

}  // namespace
}  // namespace floe::parquet
