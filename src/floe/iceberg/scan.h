// Scan planning: from a table snapshot and a row filter to the data files a read must open, each
// carrying what the reader needs so it never probes storage for it (file length, split offsets,
// column sizes, partition), the residual filter left after partition pruning, and the delete
// files that apply to it (delete_index.h). Manifests are
// pruned by partition summaries, read concurrently, and files pruned by partition values, then by
// column bounds and null counts. The stats say what each stage skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

struct ScanOptions {
  ExprPtr filter;                             // unbound or bound; null: every row
  std::optional<int64_t> snapshot_id;         // time travel by id
  std::optional<int64_t> as_of_timestamp_ms;  // time travel by time
  int max_concurrent_manifest_reads = 64;
};

struct FileScanTask {
  DataFile file;
  ExprPtr residual;  // what rows must still satisfy (TRUE: all of them)
  int64_t data_sequence_number = 0;
  // The delete files that apply to this data file (DeleteIndex): deletion vectors, position
  // deletes, equality deletes.
  std::vector<DataFile> deletes;
};

struct ScanStats {
  int64_t manifests_total = 0;
  int64_t manifests_skipped = 0;  // by partition summaries
  int64_t data_files_total = 0;   // live data files in the read manifests
  int64_t files_skipped_partition = 0;
  int64_t files_skipped_bounds = 0;
  int64_t delete_files = 0;          // live delete files in the read manifests
  int64_t delete_files_skipped = 0;  // of them, in partitions the filter rules out
};

struct ScanPlan {
  std::optional<Snapshot> snapshot;  // none: the table is empty
  ExprPtr filter;                    // bound to the table schema
  std::vector<FileScanTask> tasks;
  // Live delete files (of the partitions the filter keeps) that apply to none of the tasks: with
  // no filter, the dangling deletes a compaction may remove.
  std::vector<DataFile> unapplied_deletes;
  ScanStats stats;
};

Result<ScanPlan> PlanFiles(const Table& table, const FileIO& io, const ScanOptions& options);

}  // namespace floe::iceberg
