// Snapshot-producing commits: append (fast append, manifests merged past
// commit.manifest.min-count-to-merge), replace (a set of live files by new ones, the basis of
// rewrites) and row deltas (delete files added, with or without data files). Each commit writes
// manifests, a manifest list and a new metadata file, then swaps the catalog pointer through
// CommitWithRetry (commit_retry.h): on a concurrent commit it re-reads the table and rebuilds the
// snapshot on it, per commit.retry.*. A commit that fails at any step leaves the table exactly as
// it was and removes what it wrote. The files it adds must exist: one this process wrote recently
// is vouched for by its writer (and orphan removal's age floor), any other under the table's
// location is checked with a HEAD.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/commit_retry.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

// What a row-level change (DELETE, UPDATE, MERGE: row_level_change.h) checks when it commits:
// that nothing committed since the snapshot it read changes its answer -- Iceberg's validations of
// OverwriteFiles and RowDelta, checked against every snapshot after `from_snapshot_id`, again on
// each retry. A failed check is a conflict error naming the file and the snapshot that added or
// removed it; the commit is not retried.
struct CommitValidation {
  // The snapshot the statement read; nullopt: the table had none (every snapshot is new).
  std::optional<int64_t> from_snapshot_id;
  // The statement's condition as an unbound Iceberg filter (by column names): files it cannot
  // match do not conflict. Null: every file may.
  ExprPtr conflict_filter;
  // Serializable isolation: no data file the filter may match was added (by an append or
  // overwrite) since.
  bool no_conflicting_data = false;
  // Which delete files added since (by an overwrite or delete) conflict: those that apply to one of
  // `files` (copy-on-write would resurrect their rows; two deletion vectors for one file), or any
  // the filter may match (merge-on-read UPDATE and MERGE).
  enum class NewDeletes { kAllowed, kForFiles, kMatchingFilter };
  NewDeletes new_deletes = NewDeletes::kAllowed;
  // The data files the statement changes, with their data sequence numbers: none may have been
  // removed since by an overwrite or replace -- nor by a delete, when `removed_by_delete` -- or
  // the deletes written for them would point nowhere.
  std::vector<ManifestEntry> files;
  bool removed_by_delete = true;
};

struct SnapshotUpdate {
  std::string operation = "append";        // append | replace | overwrite | delete
  std::vector<DataFile> added;             // partition values per the table's default spec
  std::vector<std::string> deleted_paths;  // must all be live in the table when the commit lands
  // Delete files (position deletes, deletion vectors, equality deletes) this commit adds, in one
  // delete manifest of the default spec: a row delta. They take this commit's sequence number.
  std::vector<DataFile> added_deletes;
  // Whether each added delete file goes under the partition spec its spec_id names (the spec of
  // the data files it deletes from, which may be older than the default spec); otherwise all go
  // under the default spec.
  bool deletes_keep_spec = false;
  // Live delete files this commit removes (by path, and by blob offset for deletion vectors:
  // one Puffin file holds several); each must be live when the commit lands.
  std::vector<DataFile> removed_deletes;
  std::map<std::string, std::string> summary;  // extra snapshot summary properties
  // The data sequence number of the added files when it is not this commit's: a rewrite gives
  // its outputs the sequence number of the snapshot it read, so delete files committed since
  // still apply to the rewritten rows (Iceberg's RewriteFiles with the starting sequence number).
  std::optional<int64_t> data_sequence_number;
  std::optional<CommitValidation> validation;
  // Table properties this commit sets where the table it lands on has no value for them (add_files'
  // name mapping).
  std::map<std::string, std::string> properties_if_absent;
  // The schema and partition spec the added files were checked against: a commit that would land
  // on a table whose current schema or default spec is another fails with a conflict, unretried.
  std::optional<int32_t> expected_schema_id;
  std::optional<int32_t> expected_spec_id;
};

Result<Table> CommitSnapshot(catalog::Catalog& catalog, const FileIO& io,
                             const catalog::TableIdentifier& id, const SnapshotUpdate& update,
                             CommitStats* stats = nullptr);

inline Result<Table> AppendFiles(catalog::Catalog& catalog, const FileIO& io,
                                 const catalog::TableIdentifier& id, std::vector<DataFile> files) {
  SnapshotUpdate u;
  u.added = std::move(files);
  return CommitSnapshot(catalog, io, id, u);
}

}  // namespace floe::iceberg
