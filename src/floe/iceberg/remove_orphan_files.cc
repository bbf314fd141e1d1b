#include "floe/iceberg/remove_orphan_files.h"

#include <set>

#include "floe/base/clock.h"
#include "floe/iceberg/maintenance_internal.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {
namespace {

// Store keys of every file the table's metadata references.
Result<std::set<std::string>> ReferencedKeys(const Table& t, const FileIO& io) {
  internal::ManifestCache cache(t, io);
  internal::ReachableFiles r;
  std::vector<const Snapshot*> snaps;
  for (const auto& s : t.metadata.snapshots) snaps.push_back(&s);
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(cache, snaps, &r));
  std::set<std::string> locations;
  locations.insert(t.metadata_location);
  for (const auto& l : t.metadata.metadata_log) locations.insert(l.metadata_file);
  locations.insert(r.manifest_lists.begin(), r.manifest_lists.end());
  locations.insert(r.manifests.begin(), r.manifests.end());
  locations.insert(r.all_files.begin(), r.all_files.end());
  for (const char* key : {"statistics", "partition-statistics"}) {
    if (!t.metadata.extra.contains(key) || !t.metadata.extra[key].is_array()) continue;
    for (const auto& s : t.metadata.extra[key]) {
      if (s.is_object() && s.contains("statistics-path") && s["statistics-path"].is_string())
        locations.insert(s["statistics-path"].get<std::string>());
    }
  }
  std::set<std::string> keys;
  for (const auto& l : locations) {
    auto k = io.KeyOf(l);
    if (k) keys.insert(*k);
  }
  return keys;
}

}  // namespace

Result<RemoveOrphanFilesResult> RemoveOrphanFiles(catalog::Catalog& catalog, const FileIO& io,
                                                  const catalog::TableIdentifier& id,
                                                  const RemoveOrphanFilesOptions& options) {
  Stopwatch watch;
  RemoveOrphanFilesResult result;
  const int64_t cutoff = options.older_than_ms.value_or(UnixMillisNow() - kDefaultOrphanAgeMs);
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, io, id));
  FLOE_ASSIGN_OR_RETURN(std::string root, io.KeyOf(table.metadata.location));
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> listed, io.store()->ListAll(root + "/"));
  result.listed_files = static_cast<int64_t>(listed.size());
  if (options.after_listing) options.after_listing();

  // The references are read after the listing, from metadata that stays current while they are
  // read: a commit that lands meanwhile makes us read again, so nothing it lists looks orphaned.
  std::set<std::string> referenced;
  for (int attempt = 0;; ++attempt) {
    FLOE_ASSIGN_OR_RETURN(table, LoadTable(catalog, io, id));
    FLOE_ASSIGN_OR_RETURN(referenced, ReferencedKeys(table, io));
    FLOE_ASSIGN_OR_RETURN(std::string now, catalog.LoadTable(id));
    if (now == table.metadata_location) break;
    if (attempt >= 10)
      return Conflict("remove_orphan_files of '{}': the table kept changing while it was read",
                      id.ToString());
  }
  for (const auto& o : listed) {
    if (referenced.contains(o.key)) continue;
    std::string_view name = o.key;
    if (name.ends_with("/version-hint.text")) continue;
    if (o.mtime_ms >= cutoff) {
      ++result.too_new_files;
      continue;
    }
    result.orphan_file_locations.push_back(io.LocationOf(o.key));
    result.orphan_bytes += static_cast<int64_t>(o.size);
  }
  if (!options.dry_run) {
    for (const auto& l : result.orphan_file_locations) {
      auto s = io.Delete(l);
      if (!s && s.error().kind != ErrorKind::kNotFound) return std::unexpected(s.error());
      if (options.on_deleted) options.on_deleted(1);
    }
  }
  result.elapsed_ms = watch.ElapsedMs();
  return result;
}

}  // namespace floe::iceberg
