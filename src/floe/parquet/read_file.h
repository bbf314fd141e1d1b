// ReadFile: the one Parquet read front end over an ObjectStore -- plan, fetch, select, decode.
// The fetch follows a ReadStrategy (strategy_reader.h: floe's planner or a peer's request
// pattern); the row selection is the reader's: statistics and page-index pruning by the
// predicates, a row mask from outside (deletes), the caller's RowFilter with late
// materialisation, and the plan split over decode threads. OpenFooter (strategy_reader.h) is its
// first step alone, for tools that only inspect.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/base/thread_pool.h"
#include "floe/columnar/column.h"
#include "floe/io/object_store.h"
#include "floe/parquet/byte_budget.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/read_plan.h"
#include "floe/parquet/row_filter.h"
#include "floe/parquet/strategy_reader.h"

namespace floe::parquet {

struct ReadFileOptions {
  // Strategy, projection, predicates, the planner, footer cache, request gate, per-file resolve.
  StrategyReadOptions fetch;
  // Exact filtering of rows (see RowFilter); null = every row the predicates keep.
  const RowFilter* filter = nullptr;
  // Rows left out whatever the filter says: sorted, disjoint file row positions (a delete mask).
  std::vector<RowRange> excluded_rows;
  // Or a mask still to come, asked for once. When it may empty pages (below), after the footer is
  // read and before any data is fetched, so that those pages are not; else only once the data has
  // come, so that the mask's own reads (delete files) overlap the data's. Its error stops the
  // read. Taken with excluded_rows when both are given.
  std::function<Result<std::vector<RowRange>>()> excluded_rows_later;
  // Whether the mask may empty whole pages: the plan then reads the page index for it (a request
  // the projection alone may not need) so that those pages are not fetched. A caller that knows
  // the mask is scattered (a few deletes per page) says false.
  bool mask_may_empty_pages = true;
  // When set, every batch gets one more column, last, with this field: each row's position in the
  // file (int64; row 0 is the first row of the first row group) -- what a row-level delete names.
  std::optional<columnar::Field> position_field;
  // Most rows per batch of a plan narrowed to the filter's matches: every row of such a batch goes
  // on into the caller's work, so it is kept small enough to stay in a core's L2 cache.
  int64_t narrowed_batch_rows = int64_t{16} * 1024;
  // Threads the filter's columns and the output are decoded on (the plan cut by rows); with more
  // than one, `sink` is called from several threads at once, batches in no particular order.
  size_t filter_threads = 1;
  size_t decode_threads = 1;
  // Where the threads beyond the caller's come from (a runtime's decode pool, whose tasks must not
  // wait on tasks of their own pool; `sink` and the filter do not); null = threads of their own.
  ThreadPool* pool = nullptr;
  // Fetched-but-undecoded bytes of all files read with the same budget; null = no bound.
  ByteBudget* budget = nullptr;
  // Checked between batches: once true, no more batches are decoded.
  const std::atomic<bool>* stop = nullptr;
  // What this read costs is added here (files opened, requests, bytes, row groups, pages, rows
  // decoded, footer cache hits, metadata rejected); null = not counted.
  ScanMetrics* metrics = nullptr;
};

struct FileReadResult {
  columnar::SchemaPtr schema;   // of the batches: the projected fields, as the filter outputs them
  StoreReadStats fetch;         // requests, HEADs and bytes of this file
  bool footer_cached = false;   // floe: the footer came from the cache
  int64_t row_groups_read = 0;  // row groups the final plan reads
  int64_t rows_decoded = 0;     // rows of the batches decoded, before the filter's test
  std::string first_rejection;  // the first page index or statistics the reader did not trust
};

using FileBatchSink = std::function<Status(columnar::RecordBatch)>;

// Reads `key` of `store` (messages name it with the store's URI) and hands its batches to
// `sink`: the projected fields (the filter's output), only rows that pass the filter and the mask.
Result<FileReadResult> ReadFile(io::ObjectStore& store, std::string_view key,
                                const FileHints& hints, const ReadFileOptions& options,
                                const FileBatchSink& sink);

struct FileContents {
  std::vector<columnar::RecordBatch> batches;
  FileReadResult read;
};

// Every batch of ReadFile at once, in file order. With `options.decode_threads` > 1 the batches
// are decoded at once and put back in file order (by their rows' positions).
Result<FileContents> ReadFileAll(io::ObjectStore& store, std::string_view key,
                                 const FileHints& hints, const ReadFileOptions& options = {});

}  // namespace floe::parquet
