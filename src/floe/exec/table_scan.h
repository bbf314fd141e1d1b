// TableScan: the leaf of every query plan over an Iceberg table. Plans the scan with the pushed
// filter (partition and column-bound pruning), reads the surviving data files (iceberg::ReadScan)
// with the projected columns (row groups and pages pruned by the filter in the reader), and hands
// each batch -- columns in projection order, types normalised (see value.h) -- to a consumer, from
// `threads` workers at once. Worker w's batches all go to consume(w, ...), so per-worker state
// needs no lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/table.h"

namespace floe::exec {

struct TableScanOptions {
  std::vector<int32_t> field_ids;  // table-schema field ids to produce, in this order
  // Of field_ids, columns the consumer never reads: produced as NULLs, read only when the filter
  // needs them (and then only as far as it does).
  std::vector<int32_t> unused_ids;
  iceberg::ExprPtr filter;  // unbound (by column name) or bound; null: no pruning
  // Prunes data files only; their rows are not filtered by it (iceberg::ScanOptions).
  iceberg::ExprPtr files_filter;
  // Prunes data files, row groups and pages; rows are not filtered by it (iceberg::ScanOptions).
  iceberg::ExprPtr prune_filter;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> as_of_timestamp_ms;
  // TABLESAMPLE: about this share of the rows (iceberg::ScanOptions::sample_fraction).
  std::optional<double> sample_fraction;
  // Only these data files of the plan (iceberg::ScanOptions::only_files); empty: all.
  std::vector<std::string> only_files;
  // How the files are read (strategy, request budget, the floe planner, buffering): the
  // statement's settings, passed down as they are; null = the defaults.
  const iceberg::ScanReadOptions* read = nullptr;
  int threads = 2;
  // Progress: files read and files the scan plans, from the reading threads.
  std::function<void(size_t done, size_t total)> on_file_done;
  // Asked before each file is read: true stops the scan (iceberg::ScanHooks::cancelled).
  std::function<bool()> cancelled;
  // Tests of single columns rows must pass beside the filter (a join's build keys), applied
  // before the rows' other columns are materialised (iceberg::ScanHooks::column_tests).
  std::vector<iceberg::ColumnTest> column_tests;
};

using ScanConsumer = std::function<Status(int worker, columnar::RecordBatch batch)>;

// The number of workers ScanTable will use for `options` (consumers size their state by it).
int ScanWorkers(const TableScanOptions& options);

Status ScanTable(const iceberg::Table& table, const iceberg::FileIO& io,
                 const TableScanOptions& options, const ScanConsumer& consume,
                 ScanMetrics* metrics);

}  // namespace floe::exec
