#include "floe/parquet/page_index_check.h"

#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/page_header.h"
#include "parquet/read_fixture_util.h"
#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

using testing::LoadedFile;
using testing::LoadFile;

// A chunk of an optional INT64 column at [100, +1000) whose first data page is at 150, in a row
// group of 300 rows; three pages of 100 rows.
struct Chunk {
  ColumnDescriptor leaf;
  FileMetaData metadata;
  ColumnMetaData meta;
  OffsetIndex offsets;
  ColumnIndex index;

  Chunk() {
    leaf.max_def = 1;
    leaf.physical = PhysicalType::kInt64;
    leaf.domain = StatsDomain::kSigned;
    metadata.column_orders = {ColumnOrder::kTypeDefinedOrder};
    meta.type = PhysicalType::kInt64;
    meta.data_page_offset = 150;
    meta.dictionary_page_offset = 100;
    meta.num_values = 300;
    meta.total_compressed_size = 1000;
    offsets.page_locations = {{150, 300, 0}, {450, 300, 100}, {750, 300, 200}};
    index.null_pages = {false, false, false};
    index.min_values = {Int(0), Int(100), Int(200)};
    index.max_values = {Int(99), Int(199), Int(299)};
    index.boundary_order = BoundaryOrder::kAscending;
    index.null_counts = std::vector<int64_t>{0, 0, 0};
  }

  static std::string Int(int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

  PageIndexContext Context() const {
    PageIndexContext c;
    c.leaf = &leaf;
    c.metadata = &metadata;
    c.meta = &meta;
    c.chunk = {100, 1000};
    c.row_group_rows = 300;
    return c;
  }
  std::string OffsetError() const {
    auto st = CheckOffsetIndex(offsets, Context());
    return st ? "ok" : st.error().ToString();
  }
  std::string ColumnError() const {
    auto st = CheckColumnIndex(index, offsets, Context());
    return st ? "ok" : st.error().ToString();
  }
};

TEST(PageIndexCheckTest, OffsetIndexRules) {
  EXPECT_EQ(Chunk().OffsetError(), "ok");
  Chunk c;
  c.offsets.page_locations.clear();
  EXPECT_EQ(c.OffsetError(), "corrupt: the offset index lists no pages");
  c = Chunk();
  c.offsets.page_locations[0].first_row_index = 1;
  EXPECT_EQ(c.OffsetError(), "corrupt: the offset index's first page starts at row 1, not 0");
  c = Chunk();
  c.offsets.page_locations[0].offset = 120;  // inside the dictionary page
  EXPECT_EQ(c.OffsetError(),
            "corrupt: the offset index's first page is at offset 120, before the first data "
            "page at 150");
  c = Chunk();
  c.offsets.page_locations[1].compressed_page_size = 0;
  EXPECT_EQ(c.OffsetError(), "corrupt: offset index page 1 is 0 bytes long");
  c = Chunk();
  c.offsets.page_locations[2].compressed_page_size = 400;
  EXPECT_EQ(c.OffsetError(),
            "corrupt: offset index page 2 [750, +400) lies outside the column chunk [100, +1000)");
  c = Chunk();
  c.offsets.page_locations[2].first_row_index = 300;
  EXPECT_EQ(c.OffsetError(),
            "corrupt: offset index page 2 starts at row 300, past the row group's 300 rows");
  c = Chunk();
  c.offsets.page_locations[2].first_row_index = 100;
  EXPECT_EQ(c.OffsetError(),
            "corrupt: offset index page 2 starts at row 100, not after page 1 (row 100)");
  c = Chunk();
  c.offsets.page_locations[2].offset = 700;
  EXPECT_EQ(c.OffsetError(),
            "corrupt: offset index page 2 at offset 700 overlaps page 1 [450, +300)");
}

TEST(PageIndexCheckTest, ColumnIndexRules) {
  EXPECT_EQ(Chunk().ColumnError(), "ok");
  Chunk c;
  c.index.null_pages.pop_back();
  c.index.min_values.pop_back();
  c.index.max_values.pop_back();
  c.index.null_counts->pop_back();
  EXPECT_EQ(c.ColumnError(), "corrupt: the column index has 2 pages, the offset index 3");
  c = Chunk();
  c.index.null_pages[1] = true;  // with bounds
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 1 holds only nulls yet has bounds");
  c = Chunk();
  c.index.null_pages[1] = true;
  c.index.min_values[1] = c.index.max_values[1] = "";
  EXPECT_EQ(c.ColumnError(),
            "corrupt: column index page 1 has 0 nulls in 100 rows but is marked all null");
  c.leaf.max_def = 0;
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 1 of a required column holds only nulls");
  c = Chunk();
  (*c.index.null_counts)[0] = 100;
  EXPECT_EQ(c.ColumnError(),
            "corrupt: column index page 0 has 100 nulls in 100 rows but is not marked all null");
  (*c.index.null_counts)[0] = 101;
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 0 has 101 nulls in 100 rows");
  (*c.index.null_counts)[0] = -1;
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 0 has -1 nulls in 100 rows");
  c.leaf.max_def = 0;
  (*c.index.null_counts)[0] = 3;
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 0 of a required column has 3 nulls");
  c = Chunk();
  c.index.nan_counts = std::vector<int64_t>{0, 101, 0};
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 1 has 101 NaNs in 100 rows");
  c = Chunk();
  c.index.min_values[1] = Chunk::Int(250);
  EXPECT_EQ(c.ColumnError(), "corrupt: column index page 1 has a min of 250 above its max of 199");
  c = Chunk();
  c.index.min_values[2] = Chunk::Int(150);  // ascending mins: 0, 100, 150 -- but maxes fine
  EXPECT_EQ(c.ColumnError(), "ok");
  c.index.max_values[2] = Chunk::Int(180);  // maxes 99, 199, 180
  EXPECT_EQ(c.ColumnError(),
            "corrupt: the column index is ASCENDING but page 2's bounds [150, 180] are not in "
            "order after page 1's [100, 199]");
  c.index.boundary_order = BoundaryOrder::kUnordered;
  EXPECT_EQ(c.ColumnError(), "ok");
  // Against the chunk statistics (exact for integers).
  c = Chunk();
  c.meta.statistics = Statistics{};
  c.meta.statistics->min_value = Chunk::Int(10);
  c.meta.statistics->max_value = Chunk::Int(299);
  EXPECT_EQ(c.ColumnError(),
            "corrupt: column index page 0 has a min of 0, below the chunk's min of 10");
  c.meta.statistics->min_value = Chunk::Int(0);
  c.meta.statistics->max_value = Chunk::Int(290);
  EXPECT_EQ(c.ColumnError(),
            "corrupt: column index page 2 has a max of 299, above the chunk's max of 290");
}

TEST(PageIndexCheckTest, BoundsContradictions) {
  ValueBounds b;
  EXPECT_EQ(BoundsContradiction(b), std::nullopt);
  b.null_count = -2;
  EXPECT_EQ(BoundsContradiction(b), "a null count of -2");
  b.null_count = 11;
  b.num_values = 10;
  EXPECT_EQ(BoundsContradiction(b), "11 nulls among 10 values");
  b.null_count = 0;
  b.min = PredicateValue{int64_t{5}};
  b.max = PredicateValue{int64_t{4}};
  EXPECT_EQ(BoundsContradiction(b), "a min of 5 above its max of 4");
  b.max = PredicateValue{int64_t{5}};
  EXPECT_EQ(BoundsContradiction(b), std::nullopt);
  b.all_null = true;
  EXPECT_EQ(BoundsContradiction(b), "bounds on a page of nulls only");
}

// A page header of `type` whose page takes `stored` bytes and holds `values` levels (v2: `rows`).
std::vector<uint8_t> Page(PageType type, int32_t stored, int32_t values, int32_t rows = 0) {
  PageHeader h;
  h.type = type;
  h.compressed_page_size = stored;
  h.uncompressed_page_size = stored;
  if (type == PageType::kDataPage) h.data_page_header = DataPageHeader{values};
  if (type == PageType::kDataPageV2) {
    DataPageHeaderV2 v2;
    v2.num_values = values;
    v2.num_rows = rows;
    h.data_page_header_v2 = v2;
  }
  if (type == PageType::kDictionaryPage) h.dictionary_page_header = DictionaryPageHeader{values};
  auto bytes = SerializePageHeader(h);
  EXPECT_TRUE(bytes.has_value());
  bytes->resize(bytes->size() + static_cast<size_t>(stored));
  return *bytes;
}

std::string PageError(const std::vector<uint8_t>& page, int32_t indexed_size, int64_t rows,
                      int16_t max_rep = 0) {
  ColumnDescriptor leaf;
  leaf.max_rep = max_rep;
  auto st = CheckPageAgainstIndex(page, PageLocation{500, indexed_size, 0}, rows, leaf);
  return st ? "ok" : st.error().ToString();
}

TEST(PageIndexCheckTest, PagesAgreeWithTheirOffsetIndex) {
  auto v1 = Page(PageType::kDataPage, 40, 100);
  const auto size = static_cast<int32_t>(v1.size());
  EXPECT_EQ(PageError(v1, size, 100), "ok");
  EXPECT_EQ(PageError(v1, size + 1, 100),
            fmt::format("corrupt: the page at offset 500 takes {} bytes with its header, the "
                        "offset index says {}",
                        size, size + 1));
  EXPECT_EQ(PageError(v1, size, 99),
            "corrupt: the page at offset 500 holds 100 values, the offset index gives it 99 rows");
  EXPECT_EQ(PageError(v1, size, 99, 1), "ok");  // a repeated leaf: at least a level per row
  EXPECT_EQ(PageError(v1, size, 101, 1),
            "corrupt: the page at offset 500 holds 100 values, the offset index gives it 101 "
            "rows");
  auto v2 = Page(PageType::kDataPageV2, 40, 100, 90);
  EXPECT_EQ(PageError(v2, static_cast<int32_t>(v2.size()), 90, 1), "ok");
  EXPECT_EQ(PageError(v2, static_cast<int32_t>(v2.size()), 91, 1),
            "corrupt: the page at offset 500 holds 90 rows, the offset index says 91");
  auto dict = Page(PageType::kDictionaryPage, 40, 10);
  EXPECT_EQ(PageError(dict, static_cast<int32_t>(dict.size()), 10),
            "corrupt: the offset index points at a DICTIONARY_PAGE page at offset 500");
  std::vector<uint8_t> junk(40, 0xee);
  EXPECT_TRUE(
      PageError(junk, 40, 10)
          .starts_with("corrupt: no page header at offset 500, where the offset index points: "));
}

// Plans a read of every flat leaf with an IS NOT NULL predicate on it through the page index,
// applies the index and verifies it against the pages of the whole file.
ReadPlan PlanThroughIndex(const LoadedFile& f, int leaf) {
  const ColumnDescriptor& d = f.reader->schema().leaves()[static_cast<size_t>(leaf)];
  ReadOptions o;
  o.use_page_index = true;
  o.predicates.push_back(ColumnPredicate::IsNotNull(d.field_path));
  auto plan = f.reader->Plan(o);
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  if (!plan) return {};
  FetchedBytes all;
  all.Add(0, f.all());
  auto applied = f.reader->ApplyPageIndex(all, &*plan);
  EXPECT_TRUE(applied.has_value()) << applied.error().ToString();
  auto replanned = f.reader->ReplanIfIndexDisagrees(o, all, &*plan);
  EXPECT_TRUE(replanned.has_value()) << replanned.error().ToString();
  return std::move(*plan);
}

// Issue 16, point 3: a predicate whose offset index was turned away left every row of the row
// group "certain to match", so a scan skipped its filter for them (a filtered count became the
// row count). Now such a predicate proves nothing about the pages.
TEST(PageIndexCheckTest, ARejectedOffsetIndexProvesNoRowsMatch) {
  WriterOptions o;
  o.page_row_limit = 100;
  o.write_metadata_checksums = false;  // the rules alone, as in other writers' files
  auto f = testing::WriteInt64File(2, 1000, 0, o);
  ASSERT_TRUE(f.has_value());
  std::vector<uint8_t> bytes(f->bytes.data(), f->bytes.data() + f->bytes.size());
  const ColumnChunk& chunk = f->written.metadata.row_groups[0].columns[0];
  const ByteRange at{*chunk.offset_index_offset, *chunk.offset_index_length};
  auto oi = ParseOffsetIndex(
      ByteView(bytes).subspan(static_cast<size_t>(at.offset), static_cast<size_t>(at.length)));
  ASSERT_TRUE(oi.has_value());
  oi->page_locations[5].first_row_index = 400;  // as long on the wire as 500
  auto lying = SerializeOffsetIndex(*oi);
  ASSERT_TRUE(lying.has_value());
  ASSERT_EQ(static_cast<int64_t>(lying->size()), at.length);
  std::copy(lying->begin(), lying->end(), bytes.begin() + at.offset);

  LoadedFile file;
  file.bytes = bytes;
  auto opened = FileReader::Open("f.parquet", bytes.size(), bytes);
  ASSERT_TRUE(opened && opened->reader);
  file.reader = std::move(*opened->reader);
  ReadOptions read;
  read.use_page_index = true;
  read.predicates.push_back(ColumnPredicate::Range("c0", int64_t{0}, int64_t{699}));
  auto plan = file.reader->Plan(read);
  ASSERT_TRUE(plan.has_value());
  FetchedBytes all;
  all.Add(0, file.all());
  ASSERT_TRUE(file.reader->ApplyPageIndex(all, &*plan).has_value());
  EXPECT_EQ(plan->counts.metadata_rejected, 1);
  EXPECT_EQ(plan->first_rejection,
            "parquet file 'f.parquet': column 'c0' of row group 0: its page index not used: "
            "offset index page 5 starts at row 400, not after page 4 (row 400)");
  ASSERT_EQ(plan->row_groups.size(), 1u);
  EXPECT_EQ(plan->row_groups[0].rows, (std::vector<RowRange>{{0, 1000}}));
  EXPECT_TRUE(plan->row_groups[0].certain.empty());
}

// The checks must not turn away the page indexes real writers (parquet-mr, arrow-rs) put in the
// corpus: rejecting one costs every read of such a file its pruning. The exceptions lie: a
// parquet-mr 1.13 snapshot wrote its pages of required columns as all null (and -1 nulls).
TEST(PageIndexCheckTest, CorpusPageIndexesPass) {
  const std::string kLying = "column index page 0 of a required column holds only nulls";
  int checked = 0;
  for (const auto& path : testing::ParquetFilesUnder(testing::CorpusDir() / "data")) {
    auto bytes = testing::ReadFileBytes(path);
    auto opened = FileReader::Open(path.filename().string(), bytes.size(), bytes);
    if (!opened || !opened->reader) continue;
    const FileReader& reader = *opened->reader;
    bool has_index = false;
    for (const RowGroup& rg : reader.metadata().row_groups) {
      for (const ColumnChunk& c : rg.columns) has_index |= c.offset_index_offset.has_value();
    }
    if (!has_index) continue;
    LoadedFile f;
    f.bytes = std::move(bytes);
    f.reader = reader;
    for (size_t leaf = 0; leaf < reader.schema().leaves().size(); ++leaf) {
      const ColumnDescriptor& d = reader.schema().leaves()[leaf];
      if (d.max_rep > 0 || reader.schema().FieldError(d.top_field)) continue;
      ReadPlan plan = PlanThroughIndex(f, static_cast<int>(leaf));
      if (path.filename().string().starts_with("datapage_v1-")) {
        EXPECT_EQ(plan.counts.metadata_rejected, 1) << path.filename() << " " << d.path;
        EXPECT_EQ(plan.first_rejection,
                  fmt::format("parquet file '{}': column '{}' of row group 0: its column index "
                              "not used: {}",
                              path.filename().string(), d.path, kLying));
      } else {
        EXPECT_EQ(plan.counts.metadata_rejected, 0)
            << path.filename() << " " << d.path << ": " << plan.first_rejection;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
}

// That lying index pruned every page: `a = v` found none of the 40 rows holding v.
TEST(PageIndexCheckTest, AllNullPagesOfARequiredColumnDoNotPrune) {
  LoadedFile f = LoadFile(testing::DataFile("datapage_v1-uncompressed-checksum.parquet"));
  ReadOptions o;
  o.use_page_index = true;
  o.predicates.push_back(ColumnPredicate::Equal("a", int64_t{117835012}));
  auto plan = f.reader->Plan(o);
  ASSERT_TRUE(plan.has_value());
  FetchedBytes all;
  all.Add(0, f.all());
  ASSERT_TRUE(f.reader->ApplyPageIndex(all, &*plan).has_value());
  EXPECT_EQ(plan->counts.metadata_rejected, 1);
  EXPECT_EQ(plan->counts.rows, 5120);
  auto batches = f.reader->ReadAll(std::move(*plan), all);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto values = testing::JsonColumn(*batches, 0);
  EXPECT_EQ(std::count(values.begin(), values.end(), "117835012"), 40);
}

}  // namespace
}  // namespace floe::parquet
