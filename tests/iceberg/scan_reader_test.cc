// ReadScan over planned tasks: exact request counts per strategy across many files, the footer
// cache across scans, projection by field id, residual filtering with row-group and page pruning,
// and errors that name the file. Files are floe-written fixtures in a MemStore behind a
// CountingStore; the tasks carry the manifest's length and column sizes as PlanFiles would.
#include "floe/iceberg/scan_reader.h"
#include "floe/exec/residual.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "floe/io/counting_store.h"
#include "floe/io/mem_store.h"
#include "parquet/read_fixture_util.h"

namespace floe::iceberg {
namespace {

using parquet::ReadStrategy;
using parquet::testing::FixtureFile;
using parquet::testing::WriteInt64File;

constexpr int kFiles = 8;
constexpr int64_t kRowsPerFile = 4'000;

Schema TableSchema() {
  std::vector<NestedField> fields;
  for (int c = 0; c < 4; ++c) {
    fields.push_back(NestedField{c + 1, "c" + std::to_string(c), true, Primitive(TypeId::kLong)});
  }
  return Schema(0, std::move(fields));
}

class ScanReaderTest : public ::testing::Test {
 protected:
  // Column 0 of the first file (its ids, which are its row positions) read with `deletes`, by
  // ranged reads (so what is fetched shows), sorted.
  std::vector<int64_t> FirstColumnWithDeletes(std::vector<DataFile> deletes, ScanMetrics* m) {
    std::vector<FileScanTask> one = {tasks_[0]};
    one[0].deletes = std::move(deletes);
    ScanReadOptions o;
    o.use_footer_cache = false;
    o.planner.whole_file_bytes = 0;
    std::vector<int64_t> c0;
    auto st = ReadScan(
        one, TableSchema(), *io_, o, ScanHooks{exec::ResidualMatcher(), {}},
        [&](columnar::RecordBatch b) -> Status {
          for (int64_t r = 0; r < b.num_rows; ++r) c0.push_back(b.column(0)->Value<int64_t>(r));
          return {};
        },
        m);
    EXPECT_TRUE(st.has_value()) << st.error().ToString();
    std::sort(c0.begin(), c0.end());
    return c0;
  }

  void SetUp() override {
    io::MemStore::Forget("scan-reader-test");
    store_ = std::make_shared<io::CountingStore>(io::MemStore::Open("scan-reader-test").value());
    io_ = std::make_unique<FileIO>(store_, "mem://w");
    // kFiles files of 4 columns, ids sorted across files, 2 row groups of 2,000 rows each.
    parquet::WriterOptions o;
    o.row_group_row_limit = 2'000;
    o.page_row_limit = 500;
    for (int i = 0; i < kFiles; ++i) {
      FixtureFile f = WriteInt64File(4, kRowsPerFile, i * kRowsPerFile, o).value();
      const std::string key = "data/f" + std::to_string(i) + ".parquet";
      ASSERT_TRUE(store_->Put(key, f.bytes.view()).has_value());
      FileScanTask t;
      t.file.file_path = "mem://w/" + key;
      t.file.record_count = kRowsPerFile;
      t.file.file_size_in_bytes = f.size();
      for (size_t c = 0; c < f.written.columns.size(); ++c) {
        // Each fixture column is ~8 bytes a row; the manifest records the chunk totals.
        int64_t bytes = 0;
        for (const auto& rg : f.written.metadata.row_groups) {
          bytes += rg.columns[c].meta_data->total_compressed_size;
        }
        t.file.column_sizes[static_cast<int32_t>(c + 1)] = bytes;
      }
      t.residual = True();
      tasks_.push_back(std::move(t));
      total_bytes_ += f.size();
    }
  }
  void TearDown() override { io::MemStore::Forget("scan-reader-test"); }

  struct Outcome {
    io::RequestCounts counts;
    ScanMetrics stats;
    std::vector<int64_t> c0;  // values of the first projected column, sorted
    std::vector<int64_t> c0_as_delivered;
    int64_t rows = 0;
    int columns = -1;
  };

  Outcome Scan(ReadStrategy strategy, const Schema& projected, ScanReadOptions o = {}) {
    o.strategy = strategy;
    if (!footer_cache_) o.use_footer_cache = false;
    store_->Reset();
    Outcome out;
    auto st = ReadScan(
        tasks_, projected, *io_, o, ScanHooks{exec::ResidualMatcher(), {}},
        [&](columnar::RecordBatch b) -> Status {
          out.rows += b.num_rows;
          out.columns = b.num_columns();
          for (int64_t r = 0; r < b.num_rows; ++r) out.c0.push_back(b.column(0)->Value<int64_t>(r));
          return {};
        },
        &out.stats);
    EXPECT_TRUE(st.has_value()) << st.error().ToString();
    out.counts = store_->Snapshot();
    out.c0_as_delivered = out.c0;
    std::sort(out.c0.begin(), out.c0.end());
    return out;
  }

  bool footer_cache_ = false;  // scans use the runtime's footer cache

  Schema Projection(std::vector<int32_t> ids) {
    std::vector<NestedField> fields;
    Schema all = TableSchema();
    for (int32_t id : ids) fields.push_back(*all.FindById(id));
    return Schema(0, std::move(fields));
  }

  std::shared_ptr<io::CountingStore> store_;
  std::unique_ptr<FileIO> io_;
  std::vector<FileScanTask> tasks_;
  int64_t total_bytes_ = 0;
};

TEST_F(ScanReaderTest, FloeReadsEverySmallFileInOneGetAndNoHead) {
  Outcome o = Scan(ReadStrategy::kFloe, TableSchema());
  EXPECT_EQ(o.counts.get, static_cast<uint64_t>(kFiles));
  EXPECT_EQ(o.counts.head, 0u);
  EXPECT_EQ(o.counts.bytes_read, static_cast<uint64_t>(total_bytes_));
  EXPECT_EQ(o.rows, kFiles * kRowsPerFile);
  EXPECT_EQ(o.columns, 4);
  EXPECT_EQ(o.stats.data_files_opened, kFiles);
  EXPECT_EQ(o.stats.row_groups_read, 2 * kFiles);
  EXPECT_EQ(o.stats.rows_read, kFiles * kRowsPerFile);
  EXPECT_EQ(o.stats.requests, kFiles);
  EXPECT_EQ(o.stats.bytes_fetched, total_bytes_);
  for (int64_t i = 0; i < kFiles * kRowsPerFile; ++i) ASSERT_EQ(o.c0[i], i);
}

TEST_F(ScanReaderTest, EachBaselineReproducesItsPeersRequestPattern) {
  struct Case {
    ReadStrategy strategy;
    uint64_t gets_per_file;
    uint64_t heads_per_file;
  };
  // Files of ~130 KB with 2 row groups: parquet-mr = tail + footer + 2 row groups; eager and
  // arrow-rs one GET (whole file <= 1 MiB; the 512 KiB hint holds it); aal HEAD + whole object.
  for (const Case& c : {Case{ReadStrategy::kParquetMr, 4, 0}, Case{ReadStrategy::kEager, 1, 0},
                        Case{ReadStrategy::kArrowRs, 1, 0}, Case{ReadStrategy::kAal, 1, 1}}) {
    SCOPED_TRACE(std::string(parquet::ReadStrategyName(c.strategy)));
    Outcome o = Scan(c.strategy, TableSchema());
    EXPECT_EQ(o.counts.get, c.gets_per_file * kFiles);
    EXPECT_EQ(o.counts.head, c.heads_per_file * kFiles);
    EXPECT_EQ(o.rows, kFiles * kRowsPerFile);
    ASSERT_EQ(o.c0.size(), static_cast<size_t>(kFiles * kRowsPerFile));
    for (int64_t i = 0; i < kFiles * kRowsPerFile; ++i) ASSERT_EQ(o.c0[i], i);
    if (c.strategy != ReadStrategy::kParquetMr) {
      EXPECT_EQ(o.counts.bytes_read, static_cast<uint64_t>(total_bytes_));
    }
  }
}

TEST_F(ScanReaderTest, ProjectionByFieldIdReturnsOnlyThoseColumns) {
  Outcome o = Scan(ReadStrategy::kFloe, Projection({3, 1}));
  EXPECT_EQ(o.columns, 2);
  EXPECT_EQ(o.rows, kFiles * kRowsPerFile);
  EXPECT_EQ(o.counts.get, static_cast<uint64_t>(kFiles));  // small files: still whole
  // The first output column is field 3 (pseudo-random), not the sorted c0.
  EXPECT_NE(o.c0[1], 1);
}

TEST_F(ScanReaderTest, FooterCacheMakesTheSecondScanFetchOnlyData) {
  parquet::FooterCache& cache = io_->runtime().footer_cache();
  cache.set_capacity_bytes(8 << 20);
  footer_cache_ = true;
  ScanReadOptions opts;
  opts.planner.whole_file_bytes = 0;  // the tail + data path on these small files
  opts.planner.max_request_bytes = 0;
  opts.request_budget = 1;  // files one after another, so the tail estimate's learning is exact
  Outcome cold = Scan(ReadStrategy::kFloe, Projection({2}), opts);
  // The first file: a 64 KiB tail (which happens to hold row group 1's chunk of field 2), then
  // row group 0's chunk. Later files: a tail sized from the first file's footer, which holds
  // only the footer, then both row groups' chunks (uncoalesced: max_request_bytes is 0).
  EXPECT_EQ(cold.counts.get, 2u + 3u * (kFiles - 1));
  EXPECT_EQ(cold.counts.head, 0u);
  EXPECT_EQ(cold.stats.footer_cache_hits, 0);
  EXPECT_EQ(cache.entries(), kFiles);
  Outcome warm = Scan(ReadStrategy::kFloe, Projection({2}), opts);
  EXPECT_EQ(warm.stats.footer_cache_hits, kFiles);
  EXPECT_EQ(warm.counts.get, 2u * kFiles);  // one request per row group's chunk, no footer
  EXPECT_LT(warm.counts.bytes_read, cold.counts.bytes_read);
  EXPECT_EQ(warm.rows, cold.rows);
  EXPECT_EQ(warm.c0, cold.c0);
}

TEST_F(ScanReaderTest, ResidualFiltersRowsAndPrunesRowGroupsAndPages) {
  Schema schema = TableSchema();
  // c0 in [5,100, 5,200): in file 1 (ids 4,000..7,999), its first row group, one 500-row page.
  ExprPtr filter = Bind(And(Predicate(Op::kGtEq, "c0", {Literal::Long(5'100)}),
                            Predicate(Op::kLt, "c0", {Literal::Long(5'200)})),
                        schema)
                       .value();
  for (FileScanTask& t : tasks_) t.residual = filter;
  for (ReadStrategy s : {ReadStrategy::kFloe, ReadStrategy::kParquetMr, ReadStrategy::kArrowRs,
                         ReadStrategy::kAal, ReadStrategy::kEager}) {
    SCOPED_TRACE(std::string(parquet::ReadStrategyName(s)));
    Outcome o = Scan(s, Projection({2, 1}));
    EXPECT_EQ(o.rows, 100);
    EXPECT_EQ(o.columns, 2);
    EXPECT_EQ(o.stats.row_groups_read, 1);
    EXPECT_EQ(o.stats.row_groups_skipped, 2 * kFiles - 1);
  }
  // The residual's column need not be projected: it is read and dropped.
  Outcome o = Scan(ReadStrategy::kFloe, Projection({2}));
  EXPECT_EQ(o.rows, 100);
  EXPECT_EQ(o.columns, 1);
  // Page pruning: floe with the page index reads only the matching page of each chunk (c1, and
  // c0 for the residual): 3 of 4 pages skipped in both. Late materialization then decodes c0's
  // 500 rows, and c1 only for the 100 whose c0 matches: the scan produces 100 rows.
  EXPECT_EQ(o.stats.rows_read, 100);
  EXPECT_EQ(o.stats.pages_skipped, 6);
  // Without the page index nothing is skipped, and c1 is still decoded only where c0 matches.
  ScanReadOptions no_index;
  no_index.use_page_index = false;
  o = Scan(ReadStrategy::kFloe, Projection({2}), no_index);
  EXPECT_EQ(o.rows, 100);
  EXPECT_EQ(o.stats.pages_skipped, 0);
  EXPECT_EQ(o.stats.rows_read, 100);
}

// A position delete mask goes into the plan before any data is fetched: a row group whose rows
// are all deleted, and the pages of the others holding only deleted rows, are neither fetched
// nor decoded.
TEST_F(ScanReaderTest, PagesWhollyDeletedAreNeitherFetchedNorDecoded) {
  std::vector<std::pair<std::string, int64_t>> positions;
  for (int64_t p = 0; p < 2'500; ++p) positions.emplace_back(tasks_[0].file.file_path, p);
  DataFile d = WritePositionDeleteFile(*io_, "mem://w/data/d0.parquet", positions, {}).value();
  auto scan = [&](bool with_deletes, ScanMetrics* m) {
    return FirstColumnWithDeletes(with_deletes ? std::vector<DataFile>{d} : std::vector<DataFile>{},
                                  m);
  };
  ScanMetrics plain, deleted;
  EXPECT_EQ(scan(false, &plain).size(), 4'000u);
  std::vector<int64_t> want(1'500);
  for (size_t i = 0; i < want.size(); ++i) want[i] = 2'500 + static_cast<int64_t>(i);
  EXPECT_EQ(scan(true, &deleted), want);
  EXPECT_EQ(deleted.rows_deleted, 2'500);
  EXPECT_EQ(deleted.rows_read, 1'500);  // no deleted row decoded
  EXPECT_EQ(deleted.row_groups_read, 1);
  EXPECT_EQ(plain.row_groups_read, 2);
  EXPECT_EQ(deleted.delete_files_opened, 1);
  // Row group 0 is dropped from the plan (its 4 columns x 4 pages), and the first page of each
  // of row group 1's four columns: 20 pages skipped. The footer is read first (the mask must
  // reach the plan before data is fetched), and its tail read already holds the offset index and
  // every page left: one request, fewer bytes than the whole file.
  EXPECT_EQ(deleted.row_groups_skipped, 1);
  EXPECT_EQ(deleted.pages_skipped, 20);
  EXPECT_EQ(deleted.requests - deleted.delete_requests, 1);
  EXPECT_LT(deleted.bytes_fetched - deleted.delete_bytes_fetched, plain.bytes_fetched);
}

// Scattered deletes -- a few percent of the rows, as merge-on-read leaves them -- empty no page:
// the file's projection is read in one request as without deletes (the manifests' counts say so
// before anything is read), and the deleted rows, decoded with their neighbours, are dropped from
// the batches by position.
TEST_F(ScanReaderTest, ScatteredDeletesReadTheFileAsWithoutThem) {
  std::vector<std::pair<std::string, int64_t>> positions;
  std::set<int64_t> gone;
  for (int64_t p = 3; p < 4'000; p += 97) {
    positions.emplace_back(tasks_[0].file.file_path, p);
    gone.insert(p);
  }
  DataFile d = WritePositionDeleteFile(*io_, "mem://w/data/d1.parquet", positions, {}).value();
  auto scan = [&](bool with_deletes, ScanMetrics* m) {
    return FirstColumnWithDeletes(with_deletes ? std::vector<DataFile>{d} : std::vector<DataFile>{},
                                  m);
  };
  ScanMetrics plain, deleted;
  const std::vector<int64_t> all = scan(false, &plain);
  ASSERT_EQ(all.size(), 4'000u);
  std::vector<int64_t> want;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!gone.contains(static_cast<int64_t>(i))) want.push_back(all[i]);
  }
  // Column 0 holds the row's position in this file (the fixture's ids run 0..3999 in order).
  ASSERT_EQ(all.front(), 0);
  ASSERT_EQ(all.back(), 3'999);
  EXPECT_EQ(scan(true, &deleted), want);
  EXPECT_EQ(deleted.rows_deleted, static_cast<int64_t>(gone.size()));
  EXPECT_EQ(deleted.rows_read, 4'000);  // decoded, then dropped
  EXPECT_EQ(deleted.pages_skipped, 0);
  EXPECT_EQ(deleted.requests - deleted.delete_requests, plain.requests);
  EXPECT_EQ(deleted.bytes_fetched - deleted.delete_bytes_fetched, plain.bytes_fetched);
}

// A late-materialized read delivers its matching rows in batches of at most kNarrowedBatchRows;
// the same file read whole comes in one batch per row group.
TEST_F(ScanReaderTest, NarrowedReadsComeInCacheSizedBatches) {
  constexpr int64_t kRows = 40'000;
  parquet::WriterOptions wo;
  wo.row_group_row_limit = kRows;
  FixtureFile f = WriteInt64File(4, kRows, 0, wo).value();
  ASSERT_TRUE(store_->Put("data/big.parquet", f.bytes.view()).has_value());
  FileScanTask t;
  t.file.file_path = "mem://w/data/big.parquet";
  t.file.record_count = kRows;
  t.file.file_size_in_bytes = f.size();
  auto batches = [&](ExprPtr residual) {
    t.residual = std::move(residual);
    ScanReadOptions o;
    o.use_footer_cache = false;
    std::vector<int64_t> sizes;
    auto st = ReadScan(
        {t}, Projection({2}), *io_, o, ScanHooks{exec::ResidualMatcher(), {}},
        [&](columnar::RecordBatch b) -> Status {
          sizes.push_back(b.num_rows);
          return {};
        },
        nullptr);
    EXPECT_TRUE(st.has_value()) << st.error().ToString();
    std::sort(sizes.begin(), sizes.end());
    return sizes;
  };
  // c0 in [1,000, 39,000): one run of 38,000 rows; c1 is decoded only there.
  ExprPtr filter = Bind(And(Predicate(Op::kGtEq, "c0", {Literal::Long(1'000)}),
                            Predicate(Op::kLt, "c0", {Literal::Long(39'000)})),
                        TableSchema())
                       .value();
  EXPECT_EQ(batches(filter), (std::vector<int64_t>{38'000 - 2 * kNarrowedBatchRows,
                                                   kNarrowedBatchRows, kNarrowedBatchRows}));
  EXPECT_EQ(batches(True()), (std::vector<int64_t>{kRows}));
}

TEST_F(ScanReaderTest, PreserveOrderDeliversInTaskOrderAndLimitStopsEarly) {
  // Reverse the tasks so the natural order is descending; reading them concurrently must not
  // change that.
  std::reverse(tasks_.begin(), tasks_.end());
  for (ReadStrategy s : {ReadStrategy::kFloe, ReadStrategy::kParquetMr}) {
    ScanReadOptions o;
    o.preserve_order = true;
    Outcome out = Scan(s, TableSchema(), o);
    ASSERT_EQ(out.c0_as_delivered.size(), static_cast<size_t>(kFiles * kRowsPerFile));
    for (int f = 0; f < kFiles; ++f) {
      for (int64_t r = 0; r < kRowsPerFile; ++r) {
        ASSERT_EQ(out.c0_as_delivered[f * kRowsPerFile + r], (kFiles - 1 - f) * kRowsPerFile + r);
      }
    }
  }
  ScanReadOptions o;
  o.preserve_order = true;
  o.limit = 2'500;
  Outcome out = Scan(ReadStrategy::kFloe, TableSchema(), o);
  // Batches are whole row groups of 2,000 rows: the second one crosses the limit.
  EXPECT_EQ(out.rows, 4'000);
  EXPECT_EQ(out.c0_as_delivered.front(), (kFiles - 1) * kRowsPerFile);
  EXPECT_EQ(out.c0_as_delivered.back(), kFiles * kRowsPerFile - 1);
}

TEST_F(ScanReaderTest, AMissingFileIsAnErrorNamingItAndStopsTheScan) {
  tasks_[3].file.file_path = "mem://w/data/gone.parquet";
  for (ReadStrategy s : {ReadStrategy::kFloe, ReadStrategy::kParquetMr}) {
    ScanReadOptions o;
    o.strategy = s;
    o.use_footer_cache = false;
    auto st = ReadScan(
        tasks_, TableSchema(), *io_, o, {}, [](columnar::RecordBatch) -> Status { return {}; },
        nullptr);
    ASSERT_FALSE(st.has_value());
    EXPECT_NE(st.error().message.find("gone.parquet"), std::string::npos) << st.error().ToString();
  }
}

TEST_F(ScanReaderTest, ASinkErrorStopsTheScanAndIsReturned) {
  ScanReadOptions o;
  o.use_footer_cache = false;
  int calls = 0;
  auto st = ReadScan(
      tasks_, TableSchema(), *io_, o, {},
      [&](columnar::RecordBatch) -> Status {
        ++calls;
        return InvalidInput("enough");
      },
      nullptr);
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message.find("enough"), std::string::npos);
  EXPECT_EQ(calls, 1);
}

// Deletes are applied since merge-on-read reading landed (tests/iceberg/deletes_test.cc); one
// that cannot be read fails the scan, naming it.
TEST_F(ScanReaderTest, AMissingDeleteFileFailsTheScanNamingIt) {
  DataFile d;
  d.content = FileContent::kPositionDeletes;
  d.file_path = "mem://w/data/missing-deletes.parquet";
  d.file_size_in_bytes = 1000;
  d.record_count = 1;
  tasks_[0].deletes.push_back(d);
  auto st = ReadScan(
      tasks_, TableSchema(), *io_, {}, {}, [](columnar::RecordBatch) -> Status { return {}; },
      nullptr);
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().kind, ErrorKind::kNotFound) << st.error().ToString();
  EXPECT_NE(st.error().message.find("missing-deletes.parquet"), std::string::npos)
      << st.error().message;
}

// A delete file of an unknown kind is a bug of the planner, not rows to ignore.
TEST_F(ScanReaderTest, ADataFileGivenAsADeleteIsRefused) {
  tasks_[0].deletes.push_back(DataFile{});
  auto st = ReadScan(
      tasks_, TableSchema(), *io_, {}, {}, [](columnar::RecordBatch) -> Status { return {}; },
      nullptr);
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().kind, ErrorKind::kInternal);
  EXPECT_EQ(store_->Snapshot().get, 0u);
}

}  // namespace
}  // namespace floe::iceberg
