// expire_snapshots: removes old snapshots from a table's metadata (older than a time, keeping the
// last N ancestors of each branch, every ref's snapshot, and unreferenced snapshots newer than the
// cutoff), then deletes the files only expired snapshots reached -- data and delete files,
// manifests, manifest lists. What it deletes is computed before it commits, so unreadable
// metadata fails it with the table unchanged; a file is deleted only when no retained snapshot
// (nor one a writer committed meanwhile) lists it live. The result counts the files deleted, by
// kind. Defaults are Iceberg's table properties history.expire.max-snapshot-age-ms (5 days) and
// history.expire.min-snapshots-to-keep (1).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"

namespace floe::iceberg {

struct ExpireSnapshotsOptions {
  std::optional<int64_t> older_than_ms;  // Unix ms; default now - max-snapshot-age-ms
  std::optional<int> retain_last;        // default min-snapshots-to-keep
  std::vector<int64_t> snapshot_ids;     // expire these too (never a ref's snapshot)
  bool clean_expired_files = true;
  // Called once the expiry has committed, before any file is deleted (tests make a concurrent
  // commit here).
  std::function<void()> before_delete;
  std::function<void(int64_t files)> on_deleted;  // progress
};

struct ExpireSnapshotsResult {
  std::vector<int64_t> expired_snapshot_ids;
  int64_t deleted_data_files_count = 0;
  int64_t deleted_position_delete_files_count = 0;
  int64_t deleted_equality_delete_files_count = 0;
  int64_t deleted_manifest_files_count = 0;
  int64_t deleted_manifest_lists_count = 0;
  int64_t deleted_bytes = 0;  // of the data and delete files, from their manifests
  double elapsed_ms = 0;
};

Result<ExpireSnapshotsResult> ExpireSnapshots(catalog::Catalog& catalog, const FileIO& io,
                                              const catalog::TableIdentifier& id,
                                              const ExpireSnapshotsOptions& options);

}  // namespace floe::iceberg
