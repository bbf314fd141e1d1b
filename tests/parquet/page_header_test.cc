#include "floe/parquet/page_header.h"

#include <random>

#include <gtest/gtest.h>

#include "floe/parquet/footer.h"
#include "parquet/parquet_test_util.h"

namespace floe::parquet {
namespace {

using testing::DataFile;
using testing::ReadFileBytes;

std::string ErrorOf(const Result<PageHeader>& r) {
  return r.has_value() ? std::string("(no error)") : r.error().ToString();
}

TEST(PageHeaderTest, RoundTripsEveryPageKind) {
  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 400;
  dict.compressed_page_size = 300;
  dict.crc = -123456;
  dict.dictionary_page_header = DictionaryPageHeader{100, Encoding::kPlain, true};

  PageHeader v1;
  v1.type = PageType::kDataPage;
  v1.uncompressed_page_size = 1 << 20;
  v1.compressed_page_size = 1 << 19;
  Statistics st;
  st.min_value = "a";
  st.max_value = "z";
  st.null_count = 3;
  v1.data_page_header =
      DataPageHeader{1000, Encoding::kRleDictionary, Encoding::kRle, Encoding::kBitPacked, st};

  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 5000;
  v2.compressed_page_size = 3000;
  v2.data_page_header_v2 =
      DataPageHeaderV2{100, 10, 90, Encoding::kDeltaBinaryPacked, 20, 30, false, std::nullopt};

  for (const PageHeader& h : {dict, v1, v2}) {
    auto bytes = SerializePageHeader(h);
    ASSERT_TRUE(bytes.has_value());
    // The page follows the header in the same buffer: the parser reports where it starts.
    std::vector<uint8_t> with_page = *bytes;
    with_page.insert(with_page.end(), 50, 0xab);
    size_t len = 0;
    auto parsed = ParsePageHeader(with_page, &len);
    ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
    EXPECT_EQ(*parsed, h);
    EXPECT_EQ(len, bytes->size());
  }
}

TEST(PageHeaderTest, FirstPagesOfCorpusChunks) {
  for (const char* name : {"alltypes_plain.parquet", "datapage_v2.snappy.parquet",
                           "delta_binary_packed.parquet", "int32_with_null_pages.parquet"}) {
    SCOPED_TRACE(name);
    auto bytes = ReadFileBytes(DataFile(name));
    auto footer = ParseFooter(name, bytes.size(), bytes);
    ASSERT_TRUE(footer.has_value());
    for (const auto& chunk : footer->metadata->row_groups[0].columns) {
      const auto& meta = *chunk.meta_data;
      ByteView at = ByteView(bytes).subspan(static_cast<size_t>(meta.chunk_start()));
      size_t len = 0;
      auto h = ParsePageHeader(at, &len);
      ASSERT_TRUE(h.has_value()) << h.error().ToString();
      EXPECT_GT(len, 0u);
      EXPECT_LE(len + static_cast<size_t>(h->compressed_page_size),
                static_cast<size_t>(meta.total_compressed_size));
      // A dictionary_page_offset means a dictionary page first; its absence does not mean
      // there is none (parquet-mr 1.8 wrote dictionaries without setting it).
      if (meta.dictionary_page_offset.value_or(0) > 0) {
        EXPECT_EQ(h->type, PageType::kDictionaryPage);
      }
      EXPECT_NE(h->type, PageType::kIndexPage);
      // Serialising what was parsed gives a header of the same meaning.
      auto again = SerializePageHeader(*h);
      ASSERT_TRUE(again.has_value());
      size_t len2 = 0;
      EXPECT_EQ(*ParsePageHeader(*again, &len2), *h);
    }
  }
}

TEST(PageHeaderTest, InconsistentHeadersAreCorrupt) {
  size_t len = 0;
  PageHeader h;
  h.type = PageType::kDataPage;
  h.compressed_page_size = 10;
  h.uncompressed_page_size = 10;
  EXPECT_EQ(ErrorOf(ParsePageHeader(*SerializePageHeader(h), &len)),
            "corrupt: PageHeader: DATA_PAGE without DataPageHeader");
  h.compressed_page_size = -1;
  EXPECT_EQ(ErrorOf(ParsePageHeader(*SerializePageHeader(h), &len)),
            "corrupt: PageHeader: page sizes are missing or negative (compressed -1, "
            "uncompressed 10)");
  h.compressed_page_size = 10;
  h.type = PageType::kDataPageV2;
  h.data_page_header_v2 = DataPageHeaderV2{5, 1, 5, Encoding::kPlain, 8, 8, true, std::nullopt};
  EXPECT_EQ(ErrorOf(ParsePageHeader(*SerializePageHeader(h), &len)),
            "corrupt: PageHeader: DATA_PAGE_V2 level lengths (8 + 8) do not fit the 10-byte page");
  h.data_page_header_v2 = DataPageHeaderV2{5, 6, 5, Encoding::kPlain, 0, 0, true, std::nullopt};
  EXPECT_EQ(ErrorOf(ParsePageHeader(*SerializePageHeader(h), &len)),
            "corrupt: PageHeader: DATA_PAGE_V2 counts are missing or inconsistent (values 5, "
            "nulls 6, rows 5)");
  // Unknown page types parse; the reader skips them.
  h.type = static_cast<PageType>(9);
  h.data_page_header_v2.reset();
  auto unknown = ParsePageHeader(*SerializePageHeader(h), &len);
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(PageTypeName(unknown->type), "PageType(9)");
  // Truncated headers.
  auto bytes = *SerializePageHeader(h);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    auto r = ParsePageHeader(ByteView(bytes).first(cut), &len);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  }
}

TEST(PageHeaderTest, RandomBytesNeverCrash) {
  std::mt19937 rng(17);
  PageHeader h;
  h.type = PageType::kDataPage;
  h.data_page_header = DataPageHeader{10, Encoding::kPlain, Encoding::kRle, Encoding::kRle,
                                      Statistics{"x", "a", 1, 2, "y", "b", true, false, 0}};
  auto good = *SerializePageHeader(h);
  for (int round = 0; round < 5000; ++round) {
    auto bytes = good;
    for (int f = 0; f < 3; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    size_t len = 0;
    (void)ParsePageHeader(bytes, &len);
  }
}

}  // namespace
}  // namespace floe::parquet
