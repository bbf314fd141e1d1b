// ScanReader: reads every task of a planned scan with the chosen read strategy -- all files in
// flight at once up to a request budget (floe), or one file per task on a fixed number of tasks
// (the baselines, as their engines deploy them) -- projecting columns by field id, pruning row
// groups and pages by each task's residual, applying each task's delete files (a row mask of
// deleted positions in the Parquet reader's row selection; equality deletes probed with the
// residual, in its row filter; delete_loader.h), and applying the residual to the rows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/schema.h"
#include "floe/parquet/read_planner.h"
#include "floe/parquet/read_strategy.h"

namespace floe::iceberg {

// Most rows in a batch of a late-materialized read (a plan narrowed to the rows its filter
// matched). Every row of such a batch goes on into the query's aggregates, so it is kept small
// enough to stay in a core's L2 cache (128 KiB for an 8-byte column), where the decode batches of
// a plain scan may be 4 MiB (parquet::kDefaultBatchBytes): the working set of a query is then a
// few batches, not the whole answer.
inline constexpr int64_t kNarrowedBatchRows = int64_t{16} * 1024;

// One byte per row of a batch conformed to the schema the matcher was made for: 1 where its
// residual holds.
using BatchMatcher = std::function<Result<std::vector<uint8_t>>(const columnar::RecordBatch&)>;
// Makes the matcher of `residual` (bound to `schema`): once per file and filter, not per batch.
// The engine above gives its evaluator (exec::ResidualMatcher), the one judge of a row.
using ResidualEvaluator =
    std::function<Result<BatchMatcher>(const ExprPtr& residual, const Schema& schema)>;

struct ScanReadOptions {
  parquet::ReadStrategy strategy = parquet::ReadStrategy::kFloe;
  int request_budget = 64;  // floe: requests in flight across the scan
  int baseline_tasks = 4;   // baselines: files read at once (Spark local[4])
  bool apply_residual = true;
  bool use_page_index = true;

  // Added by the read path (issue 5).
  // floe: the planner's thresholds (gap, whole-file size, request cap, first tail).
  parquet::ReadPlannerOptions planner;
  // floe: footers and page indexes by (path, length), from the FileIO's runtime.
  bool use_footer_cache = true;
  // Fetched-but-not-yet-decoded bytes are held to this bound (a single file larger than it is
  // still read, alone). With at most `request_budget` (floe) or `baseline_tasks` files open at
  // once and batches handed to the sink one at a time, memory is about this plus one decoded
  // batch per open file.
  int64_t max_buffered_bytes = int64_t{256} << 20;
  // Deliver batches in task order (a file's batches wait for the files before it); otherwise in
  // the order files finish.
  bool preserve_order = false;
  // Stop once the sink has received at least this many rows (-1: all). With preserve_order the
  // rows are the first in task order; without, any.
  int64_t limit = -1;
};

// What the engine above a scan gives it besides settings.
// A test of one column a scan applies to its rows beside the residual, dropping the rows it
// fails before their other columns are materialised (a join's build keys: exec::JoinKeyFilter).
// It never prunes files, row groups or pages, and needs not be exact: it may pass rows that fail
// what it stands for, never drop one that passes. Called from the decoding threads with a column
// of the field's table type (the file's values conformed), it returns 1 per row to keep.
struct ColumnTest {
  int32_t field_id = -1;
  std::function<std::vector<uint8_t>(const columnar::Column& c)> test;
};

struct ScanHooks {
  // Applies a task's residual to its rows; needed when apply_residual and a residual is not true.
  ResidualEvaluator evaluate_residual;
  // Called after each file is read (files done, files in the scan), from the reading threads.
  std::function<void(size_t done, size_t total)> on_file_done;
  // The table's schema, which types the columns equality deletes compare (they need not be in
  // `projected`); needed only when a task has equality delete files.
  const Schema* table_schema = nullptr;
  // Asked before each file is read, from the reading threads: true stops the scan with a
  // kCancelled error (Ctrl-C in the shell). Unset: never.
  std::function<bool()> cancelled;
  // Tests every task's rows must pass, on fields of the table schema (ignored when the scan reads
  // a file without one of them).
  std::vector<ColumnTest> column_tests;
};

// Receives batches conformed to the projected schema. Called by one thread at a time, batches of
// different files in any order; an error stops the scan and is returned by ReadScan.
using BatchSink = std::function<Status(columnar::RecordBatch)>;

// What the read costs is added to `metrics` (may be null), from the reading threads.
// `projected` is the table schema restricted to the fields the caller needs (field ids kept);
// columns the residual needs but `projected` lacks are read and dropped before `sink`. Files are
// read on the scan pool of `io`'s runtime, and decoded on its decode pool.
Status ReadScan(const std::vector<FileScanTask>& tasks, const Schema& projected, const FileIO& io,
                const ScanReadOptions& options, const ScanHooks& hooks, const BatchSink& sink,
                ScanMetrics* metrics);

}  // namespace floe::iceberg
