// rewrite_position_delete_files: compaction of a table's position deletes, as Iceberg's action of
// that name does it -- per partition, the position delete files outside [75%, 180%] of the target
// size (64 MB; every one with rewrite-all) are merged into one sorted file once a partition has
// min-input-files of them (5) or more than a target's bytes; positions of data files no longer
// live (dangling deletes) are always dropped. On a v3 table, which takes no new position delete
// files, every position delete becomes part of its data file's deletion vector instead (the
// size options do not apply). One commit ("replace") removes the inputs and adds the outputs;
// readers see the same rows before and after.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"

namespace floe::iceberg {

struct RewritePositionDeletesOptions {
  int64_t target_file_size_bytes = int64_t{64} << 20;  // target-file-size-bytes
  std::optional<int64_t> min_file_size_bytes;          // default 75% of the target
  std::optional<int64_t> max_file_size_bytes;          // default 180% of the target
  int min_input_files = 5;                             // min-input-files
  bool rewrite_all = false;                            // rewrite-all
};

struct RewritePositionDeletesResult {
  int64_t rewritten_delete_files_count = 0;  // delete files (and DVs) removed
  int64_t added_delete_files_count = 0;      // delete files (or DVs) added
  int64_t rewritten_bytes_count = 0;
  int64_t added_bytes_count = 0;
  int64_t dangling_positions = 0;  // positions of data files no longer live, dropped
  int64_t commits = 0;
};

// Options by Iceberg's names ("target-file-size-bytes", "min-file-size-bytes",
// "max-file-size-bytes", "min-input-files", "rewrite-all"; Iceberg's others accepted and
// ignored); unknown names and bad values are invalid-input errors naming them.
Result<RewritePositionDeletesOptions> RewritePositionDeletesOptionsFromMap(
    const std::map<std::string, std::string>& options);

Result<RewritePositionDeletesResult> RewritePositionDeleteFiles(
    catalog::Catalog& catalog, const FileIO& io, const catalog::TableIdentifier& id,
    const RewritePositionDeletesOptions& options);

}  // namespace floe::iceberg
