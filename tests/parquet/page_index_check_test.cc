#include "floe/parquet/page_index_check.h"

#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_reader.h"
#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

using testing::LoadedFile;
using testing::LoadFile;

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
