#include "floe/iceberg/remove_orphan_files.h"

#include <set>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/iceberg/maintenance_internal.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_location.h"

namespace floe::iceberg {
namespace {

// Every file the table's metadata references, each location in its one spelling (Spark's
// "file:/x" and floe's "file:///x" name one file).
Result<std::set<std::string>> ReferencedLocations(const Table& t, const FileIO& io) {
  internal::ManifestCache cache(t, io);
  internal::ReachableFiles r;
  std::vector<const Snapshot*> snaps;
  snaps.reserve(t.metadata.snapshots.size());
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
  std::set<std::string> canonical;
  for (const auto& l : locations) canonical.insert(CanonicalLocation(l));
  return canonical;
}

}  // namespace

Result<RemoveOrphanFilesResult> RemoveOrphanFiles(catalog::Catalog& catalog, const FileIO& io,
                                                  const catalog::TableIdentifier& id,
                                                  const RemoveOrphanFilesOptions& options) {
  Stopwatch watch;
  RemoveOrphanFilesResult result;
  const int64_t now = UnixMillisNow();
  const int64_t cutoff = options.older_than_ms.value_or(now - kDefaultOrphanAgeMs);
  if (cutoff > now - kMinOrphanAgeMs && !options.allow_recent_files && !options.dry_run) {
    return InvalidInput(
        "remove_orphan_files of '{}': older_than is less than 24 hours ago, so the files of a "
        "write still in flight would be deleted and its commit would reference missing files; "
        "use an older time (the floor is lifted only explicitly, when no write can be running)",
        id.ToString());
  }
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, io, id));
  // Files under the location that other tables may own are never this table's orphans.
  FLOE_ASSIGN_OR_RETURN(OtherTables others,
                        OtherTables::Load(catalog, io, id, table.metadata.location));
  FLOE_RETURN_IF_ERROR(others.CheckRemovable("remove orphan files of"));
  FLOE_ASSIGN_OR_RETURN(StoreObject root, io.Resolve(table.metadata.location));
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> listed, root.store->ListAll(root.key + "/"));
  // Temp files of writes killed before they finished: never referenced, removed once old enough.
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> abandoned,
                        root.store->ListAbandonedWrites(root.key + "/"));
  result.listed_files = static_cast<int64_t>(listed.size() + abandoned.size());
  if (options.after_listing) options.after_listing();

  // The references are read after the listing, from metadata that stays current while they are
  // read: a commit that lands meanwhile makes us read again, so nothing it lists looks orphaned.
  std::set<std::string> referenced;
  for (int attempt = 0;; ++attempt) {
    FLOE_ASSIGN_OR_RETURN(table, LoadTable(catalog, io, id));
    FLOE_ASSIGN_OR_RETURN(referenced, ReferencedLocations(table, io));
    FLOE_ASSIGN_OR_RETURN(std::string now, catalog.LoadTable(id));
    if (now == table.metadata_location) break;
    if (attempt >= 10)
      return Conflict("remove_orphan_files of '{}': the table kept changing while it was read",
                      id.ToString());
  }
  struct Orphan {
    std::string location;
    std::string key;
    bool temp = false;  // a temp file of a killed write
    uint64_t size = 0;
  };
  std::vector<Orphan> orphans;
  auto consider = [&](const io::ObjectInfo& o, bool temp) {
    std::string location = root.LocationOf(o.key);
    if (!temp && referenced.contains(location)) return;
    if (!temp && o.key.ends_with("/version-hint.text")) return;
    if (others.Owner(location) != nullptr) {
      ++result.other_tables_files;
      return;
    }
    if (o.mtime_ms >= cutoff) {
      ++result.too_new_files;
      return;
    }
    orphans.push_back({std::move(location), o.key, temp, o.size});
  };
  for (const auto& o : listed) consider(o, false);
  for (const auto& o : abandoned) consider(o, true);
  for (const Orphan& o : orphans) {
    if (!options.dry_run) {
      Status s = o.temp ? root.store->DeleteAbandonedWrite(o.key) : io.Delete(o.location);
      if (!s) {
        // Say what was done before the failure: those files are gone for good.
        return MakeError(s.error().kind,
                         fmt::format("remove_orphan_files of '{}' deleted {} of {} orphan files, "
                                     "then: {}",
                                     id.ToString(), result.orphan_file_locations.size(),
                                     orphans.size(), s.error().message),
                         s.error().transient);
      }
      if (options.on_deleted) options.on_deleted(1);
    }
    result.orphan_file_locations.push_back(o.location);
    result.orphan_bytes += static_cast<int64_t>(o.size);
  }
  result.elapsed_ms = watch.ElapsedMs();
  return result;
}

}  // namespace floe::iceberg
