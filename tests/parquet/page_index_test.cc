#include "floe/parquet/page_index.h"

#include <gtest/gtest.h>

#include "floe/parquet/bloom_filter_header.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/page_header.h"
#include "parquet/parquet_test_util.h"

namespace floe::parquet {
namespace {

using testing::DataFile;
using testing::ReadFileBytes;

TEST(PageIndexTest, ParsesTheCorpusPageIndex) {
  // alltypes_tiny_pages.parquet (parquet-mr) has many small pages and a page index per column.
  auto bytes = ReadFileBytes(DataFile("alltypes_tiny_pages.parquet"));
  auto footer = ParseFooter("alltypes_tiny_pages.parquet", bytes.size(), bytes);
  ASSERT_TRUE(footer.has_value());
  const RowGroup& rg = footer->metadata->row_groups[0];
  int with_column_index = 0;
  for (const ColumnChunk& chunk : rg.columns) {
    ASSERT_TRUE(chunk.offset_index_offset.has_value());
    if (!chunk.column_index_offset) {
      // Only the INT96 column: its order is undefined, so no min/max per page.
      EXPECT_EQ(chunk.meta_data->type, PhysicalType::kInt96);
      continue;
    }
    ++with_column_index;
    auto offsets =
        ParseOffsetIndex(ByteView(bytes).subspan(static_cast<size_t>(*chunk.offset_index_offset),
                                                 static_cast<size_t>(*chunk.offset_index_length)));
    ASSERT_TRUE(offsets.has_value()) << offsets.error().ToString();
    auto index =
        ParseColumnIndex(ByteView(bytes).subspan(static_cast<size_t>(*chunk.column_index_offset),
                                                 static_cast<size_t>(*chunk.column_index_length)));
    ASSERT_TRUE(index.has_value()) << index.error().ToString();
    const auto& pages = offsets->page_locations;
    ASSERT_GT(pages.size(), 1u);
    EXPECT_EQ(index->num_pages(), pages.size());
    EXPECT_EQ(pages[0].first_row_index, 0);
    // parquet-mr 1.12 points data_page_offset at the dictionary page (and leaves
    // dictionary_page_offset unset): the first data page is the first page after it.
    size_t header_len = 0;
    auto first = ParsePageHeader(
        ByteView(bytes).subspan(static_cast<size_t>(chunk.meta_data->data_page_offset)),
        &header_len);
    ASSERT_TRUE(first.has_value());
    int64_t first_data_page = chunk.meta_data->data_page_offset;
    if (first->type == PageType::kDictionaryPage) {
      EXPECT_FALSE(chunk.meta_data->dictionary_page_offset.has_value());
      first_data_page += static_cast<int64_t>(header_len) + first->compressed_page_size;
    }
    EXPECT_EQ(pages[0].offset, first_data_page);
    for (size_t i = 1; i < pages.size(); ++i) {
      EXPECT_GT(pages[i].first_row_index, pages[i - 1].first_row_index);
      EXPECT_EQ(pages[i].offset, pages[i - 1].offset + pages[i - 1].compressed_page_size);
    }
    EXPECT_LT(pages.back().first_row_index, rg.num_rows);
    // Round trips.
    EXPECT_EQ(*ParseOffsetIndex(*SerializeOffsetIndex(*offsets)), *offsets);
    EXPECT_EQ(*ParseColumnIndex(*SerializeColumnIndex(*index)), *index);
  }
  EXPECT_EQ(with_column_index, 12);
}

TEST(PageIndexTest, RoundTripAndConsistencyChecks) {
  ColumnIndex ci;
  ci.null_pages = {false, true, false};
  ci.min_values = {"a", "", "m"};
  ci.max_values = {"f", "", "z"};
  ci.boundary_order = BoundaryOrder::kAscending;
  ci.null_counts = std::vector<int64_t>{0, 10, 2};
  ci.definition_level_histograms = {0, 5, 10, 0, 2, 3};
  auto parsed = ParseColumnIndex(*SerializeColumnIndex(ci));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, ci);

  ColumnIndex bad = ci;
  bad.max_values.pop_back();
  auto r = ParseColumnIndex(*SerializeColumnIndex(bad));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(),
            "corrupt: ColumnIndex: null_pages, min_values and max_values have 3, 3 and 2 entries; "
            "they must match");
  bad = ci;
  bad.null_counts->push_back(1);
  EXPECT_EQ(ParseColumnIndex(*SerializeColumnIndex(bad)).error().ToString(),
            "corrupt: ColumnIndex: 4 null_counts for 3 pages");

  OffsetIndex oi;
  oi.page_locations = {{4, 100, 0}, {104, 80, 1000}};
  oi.unencoded_byte_array_data_bytes = {500, 400};
  EXPECT_EQ(*ParseOffsetIndex(*SerializeOffsetIndex(oi)), oi);
  oi.page_locations[1].offset = -1;
  EXPECT_EQ(ParseOffsetIndex(*SerializeOffsetIndex(oi)).error().ToString(),
            "corrupt: OffsetIndex: page 1 has a negative offset, size or first row (-1, 80, 1000)");
  auto junk = ParseOffsetIndex(std::vector<uint8_t>{0x19, 0xfc, 0xff, 0xff, 0xff, 0x07});
  ASSERT_FALSE(junk.has_value());
  EXPECT_EQ(junk.error().message.rfind("OffsetIndex is not valid Thrift compact data", 0), 0u);
}

TEST(BloomFilterHeaderTest, CorpusFilters) {
  // bloom_filter.xxhash.bin: a header then a 1024-byte bitset.
  auto bytes = ReadFileBytes(DataFile("bloom_filter.xxhash.bin"));
  size_t len = 0;
  auto h = ParseBloomFilterHeader(bytes, &len);
  ASSERT_TRUE(h.has_value()) << h.error().ToString();
  EXPECT_EQ(h->num_bytes, 1024);
  EXPECT_TRUE(h->usable());
  EXPECT_EQ(len + 1024, bytes.size());

  // A filter inside a file, found through the column metadata.
  auto file = ReadFileBytes(DataFile("data_index_bloom_encoding_with_length.parquet"));
  auto footer = ParseFooter("f", file.size(), file);
  ASSERT_TRUE(footer.has_value());
  const auto& meta = *footer->metadata->row_groups[0].columns[0].meta_data;
  ByteView filter = ByteView(file).subspan(static_cast<size_t>(*meta.bloom_filter_offset),
                                           static_cast<size_t>(*meta.bloom_filter_length));
  auto fh = ParseBloomFilterHeader(filter, &len);
  ASSERT_TRUE(fh.has_value()) << fh.error().ToString();
  EXPECT_EQ(len + static_cast<size_t>(fh->num_bytes), filter.size());
  EXPECT_TRUE(fh->usable());
}

TEST(BloomFilterHeaderTest, RoundTripAndChecks) {
  BloomFilterHeader h;
  h.num_bytes = 4096;
  auto bytes = SerializeBloomFilterHeader(h);
  ASSERT_TRUE(bytes.has_value());
  size_t len = 0;
  EXPECT_EQ(*ParseBloomFilterHeader(*bytes, &len), h);
  EXPECT_EQ(len, bytes->size());
  h.num_bytes = 100;
  auto bad = ParseBloomFilterHeader(*SerializeBloomFilterHeader(h), &len);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().ToString(),
            "corrupt: BloomFilterHeader: bitset size 100 is not a positive multiple of 32 bytes");
  // A newer hash: parses, but the filter cannot be used.
  h.num_bytes = 32;
  h.hash = BloomFilterHeader::Hash::kUnrecognized;
  auto newer = ParseBloomFilterHeader(*SerializeBloomFilterHeader(h), &len);
  ASSERT_TRUE(newer.has_value());
  EXPECT_FALSE(newer->usable());
  // The legacy bloom_filter.bin (no Thrift header) is not mistaken for one.
  auto legacy = ReadFileBytes(DataFile("bloom_filter.bin"));
  EXPECT_FALSE(ParseBloomFilterHeader(legacy, &len).has_value());
}

}  // namespace
}  // namespace floe::parquet
