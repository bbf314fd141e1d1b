// rewrite_data_files: compaction of a table's data files, as Iceberg's action of that name does it
// -- bin-pack (combine small files, split large ones, rows kept in order) or sort (rows sorted
// globally across each file group, so output files have disjoint key ranges) -- with Iceberg's
// options and defaults. Deletes are applied to the rows rewritten; the delete files stay listed
// (readers ignore them: the new files' sequence number and paths) until remove-dangling-deletes
// or snapshot expiry removes them. Each commit is a "replace" whose new files keep the data
// sequence number of the snapshot that was read; a concurrent commit that removed an input file
// makes it fail with a conflict, the table unchanged and the files it wrote removed. Called by the
// CLI, SQL CALL and the bench; not thread-safe per call, but calls on different tables may run at
// once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/sort_order.h"
#include "floe/layout/zorder.h"

namespace floe::iceberg {

enum class RewriteStrategy { kBinPack, kSort };

struct RewriteOptions {
  RewriteStrategy strategy = RewriteStrategy::kBinPack;
  // Sort strategy: the order to sort by, as "col [ASC|DESC] [NULLS FIRST|LAST], ..." (or set
  // `sort_order`), or a clustering as Spark spells it: "zorder(a, b)", and floe's "hilbert(a, b)"
  // (layout/clustering.h); empty for both: the table's layout (floe.layout) if it has one, else
  // its default sort order (an error when it has neither).
  std::string sort_order_text;
  std::optional<SortOrder> sort_order;
  // Z-order's options, as Spark's action takes them: var-length-contribution (bytes of a string
  // or binary value, 8), max-output-size (bytes of the key).
  layout::ZOrderOptions zorder;
  // target-file-size-bytes: default the table's write.target-file-size-bytes (512 MiB).
  std::optional<int64_t> target_file_size_bytes;
  // min-file-size-bytes / max-file-size-bytes: default 75% / 180% of the target. Files outside
  // [min, max] are the candidates for rewriting.
  std::optional<int64_t> min_file_size_bytes;
  std::optional<int64_t> max_file_size_bytes;
  int min_input_files = 5;   // min-input-files
  bool rewrite_all = false;  // rewrite-all: every file selected by `filter`, whatever its size
  int64_t max_file_group_size_bytes = int64_t{100} << 30;  // max-file-group-size-bytes (100 GiB)
  bool partial_progress_enabled = false;                   // partial-progress.enabled
  int partial_progress_max_commits = 10;                   // partial-progress.max-commits
  // Merge-on-read: a file is also a candidate, and its group rewritten, when at least this many
  // delete files apply to it (delete-file-threshold), or when the deletes scoped to it alone
  // (deletion vectors, file-scoped position deletes) remove at least this share of its rows
  // (delete-ratio-threshold), as Iceberg's rewriter counts them.
  int64_t delete_file_threshold = 2147483647;
  double delete_ratio_threshold = 0.3;
  // remove-dangling-deletes: after the rewrite, one more commit removes the live delete files
  // that apply to no live data file any more.
  bool remove_dangling_deletes = false;
  // Restricts the rewrite to the files that may hold matching rows (those files are rewritten
  // whole). Null: every file.
  ExprPtr filter;

  // Progress: called after each input file is read (1, and 0 bytes: the files of a group are read
  // at once), from the reading threads.
  std::function<void(int64_t files, int64_t bytes)> on_file_read;
  // Called just before each commit (tests use it to make a concurrent change).
  std::function<void()> before_commit;
};

struct RewriteResult {
  int64_t rewritten_data_files_count = 0;  // input files replaced
  int64_t added_data_files_count = 0;      // output files committed
  int64_t rewritten_bytes_count = 0;
  int64_t added_bytes_count = 0;
  int64_t rewritten_records = 0;
  int64_t file_groups = 0;         // groups rewritten and committed
  int64_t failed_file_groups = 0;  // partial progress: groups whose commit failed
  int64_t commits = 0;
  int64_t removed_delete_files_count = 0;  // remove-dangling-deletes
  std::vector<int64_t> snapshot_ids;       // the snapshots committed
  double elapsed_ms = 0;
};

// What the rewrite would do, without reading or writing data: the groups it plans.
struct RewritePlanGroup {
  std::string partition;  // partition path ("" unpartitioned)
  std::vector<std::string> files;
  int64_t bytes = 0;
  int64_t records = 0;
};
Result<std::vector<RewritePlanGroup>> PlanRewriteDataFiles(catalog::Catalog& catalog,
                                                           const FileIO& io,
                                                           const catalog::TableIdentifier& id,
                                                           const RewriteOptions& options);

// RewriteOptions from Iceberg's option names, as `CALL system.rewrite_data_files(strategy =>
// 'sort', sort_order => 'id DESC', options => map('target-file-size-bytes', '2097152'))` gives
// them: "strategy" (binpack|sort), "sort_order", "target-file-size-bytes", "min-file-size-bytes",
// "max-file-size-bytes", "min-input-files", "rewrite-all", "max-file-group-size-bytes",
// "partial-progress.enabled", "partial-progress.max-commits", "delete-file-threshold",
// "delete-ratio-threshold", "remove-dangling-deletes"; Iceberg options floe accepts but does not
// act on ("max-concurrent-file-group-rewrites", "use-starting-sequence-number" true, ...) are
// ignored; unknown names and bad values are
// invalid-input errors naming them. The filter ("where") is the caller's to parse.
Result<RewriteOptions> RewriteOptionsFromMap(const std::map<std::string, std::string>& options);

Result<RewriteResult> RewriteDataFiles(catalog::Catalog& catalog, const FileIO& io,
                                       const catalog::TableIdentifier& id,
                                       const RewriteOptions& options);

}  // namespace floe::iceberg
