// remove_orphan_files: deletes the objects under a table's location that no snapshot, metadata
// file or statistics file of the table references and that are older than a guard (default 3
// days, as Iceberg) -- the debris of failed writes, temp files of killed writes included -- and
// that no other table of the catalog may own (table_location.h). The listing is taken before the
// metadata is read, so a file a writer commits while this runs is seen as referenced; a writer's
// uncommitted files are protected by the age guard, which therefore may not be younger than
// kMinOrphanAgeMs unless the caller says explicitly that no write can be in flight. The result
// lists exactly the files deleted.
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

constexpr int64_t kDefaultOrphanAgeMs = int64_t{3} * 24 * 3600 * 1000;
// The youngest guard allowed: a write's files are unreferenced until it commits, and Iceberg warns
// that an interval shorter than the longest write deletes them (the write then commits a table
// that references missing files). Writers rely on it too (commit.cc checks files older than half
// of it).
constexpr int64_t kMinOrphanAgeMs = int64_t{24} * 3600 * 1000;

struct RemoveOrphanFilesOptions {
  std::optional<int64_t> older_than_ms;  // Unix ms; default now - 3 days
  bool dry_run = false;                  // report, delete nothing
  // Allows an older_than_ms within kMinOrphanAgeMs of now: only when no write can be running.
  bool allow_recent_files = false;
  // Called after the listing, before the metadata is read (tests commit concurrently here).
  std::function<void()> after_listing;
  std::function<void(int64_t files)> on_deleted;  // progress
};

struct RemoveOrphanFilesResult {
  std::vector<std::string> orphan_file_locations;  // deleted (or, dry run, to delete)
  int64_t orphan_bytes = 0;                        // of those files
  int64_t listed_files = 0;
  int64_t too_new_files = 0;       // unreferenced but younger than the guard: kept
  int64_t other_tables_files = 0;  // under a location another table owns (table_location.h): kept
  double elapsed_ms = 0;
};

Result<RemoveOrphanFilesResult> RemoveOrphanFiles(catalog::Catalog& catalog, const FileIO& io,
                                                  const catalog::TableIdentifier& id,
                                                  const RemoveOrphanFilesOptions& options);

}  // namespace floe::iceberg
