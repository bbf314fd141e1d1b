// Scan planning: from a table snapshot and a row filter to the data files a read must open, each
// carrying what the reader needs so it never probes storage for it (file length, split offsets,
// column sizes, partition), the residual filter left after partition pruning, and the delete
// files that apply to it (delete_index.h). Manifests are
// pruned by partition summaries, read concurrently, and files pruned by partition values, then by
// column bounds and null counts, then -- on an OTree table -- by the cubes of its index; a sample
// skips files too. The stats say what each stage skipped.
#pragma once

#include <cstdint>
#include <map>
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
  ExprPtr filter;  // unbound or bound; null: every row
  // Prunes data files (by partition and column bounds) like `filter`, but the rows of the files
  // kept are not filtered by it: it is left out of their residuals. Null: none.
  ExprPtr files_filter;
  // Prunes data files like `filter`, and row groups and pages too (FileScanTask::pruning), but
  // rows are not filtered by it: what it rules out is only what the caller would drop anyway (a
  // join's build key range, whose rows a per-row test of the keys drops). Null: none.
  ExprPtr prune_filter;
  std::optional<int64_t> snapshot_id;         // time travel by id
  std::optional<int64_t> as_of_timestamp_ms;  // time travel by time
  int max_concurrent_manifest_reads = 64;
  // TABLESAMPLE: about this fraction of the rows, in (0, 1]. An OTree table (otree_index.h) gives
  // a uniform row sample that opens only the files holding rows light enough (ScanPlan::
  // weight_sample says which rows); any other table a block sample of whole data files, each kept
  // by a hash of its location. nullopt: every row.
  std::optional<double> sample_fraction;
  // One part of a scan split across processes (floe.ray.read): only these data files, by
  // location, of those the plan keeps. Empty: every file.
  std::vector<std::string> only_files;
};

struct FileScanTask {
  DataFile file;
  ExprPtr residual;  // what rows must still satisfy (TRUE: all of them)
  // ScanOptions::prune_filter, bound: its predicates skip row groups and pages beside the
  // residual's, but it is not applied to rows. Null: none.
  ExprPtr pruning;
  int64_t data_sequence_number = 0;
  // The delete files that apply to this data file (DeleteIndex): deletion vectors, position
  // deletes, equality deletes.
  std::vector<DataFile> deletes;
  // The file's values of its spec's identity-partitioned columns (source field id -> value). By
  // the spec's column projection, a column the file lacks reads as its identity partition value:
  // how files registered from a Hive layout (`add_files`) keep the columns their directories name.
  std::map<int32_t, Literal> identity_values;
};

struct ScanStats {
  int64_t manifests_total = 0;
  int64_t manifests_skipped = 0;  // by partition summaries
  int64_t data_files_total = 0;   // live data files in the read manifests
  int64_t files_skipped_partition = 0;
  int64_t files_skipped_bounds = 0;
  int64_t files_skipped_index = 0;   // by an OTree's cubes (otree_index.h)
  int64_t files_skipped_sample = 0;  // by TABLESAMPLE
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
  // TABLESAMPLE on an OTree table: the sample is the rows whose weight (layout::RowWeights over
  // these columns) is below `threshold`; the reader keeps only those.
  struct WeightSample {
    std::vector<std::string> columns;
    uint64_t threshold = 0;
  };
  std::optional<WeightSample> weight_sample;
  ScanStats stats;
};

Result<ScanPlan> PlanFiles(const Table& table, const FileIO& io, const ScanOptions& options);

}  // namespace floe::iceberg
