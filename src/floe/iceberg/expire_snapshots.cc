#include "floe/iceberg/expire_snapshots.h"

#include <algorithm>
#include <set>

#include "floe/base/clock.h"
#include "floe/iceberg/maintenance_internal.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kDefaultMaxSnapshotAgeMs = int64_t{5} * 24 * 3600 * 1000;

int64_t RefInt(const SnapshotRef& ref, const char* key, int64_t fallback) {
  if (ref.extra.contains(key) && ref.extra[key].is_number_integer())
    return ref.extra[key].get<int64_t>();
  return fallback;
}

// The snapshot ids to keep, per Iceberg's rules: every ref's snapshot; on branches the first
// min-snapshots-to-keep ancestors and those newer than the cutoff; other snapshots when newer than
// the cutoff.
Result<std::set<int64_t>> Retained(const TableMetadata& m, const ExpireSnapshotsOptions& o,
                                   int64_t now_ms) {
  const int64_t default_age =
      m.PropertyInt("history.expire.max-snapshot-age-ms", kDefaultMaxSnapshotAgeMs);
  const int64_t default_keep = o.retain_last.value_or(
      static_cast<int>(m.PropertyInt("history.expire.min-snapshots-to-keep", 1)));
  if (default_keep < 1) return InvalidInput("retain-last {} must be at least 1", default_keep);
  const int64_t cutoff = o.older_than_ms.value_or(now_ms - default_age);
  std::set<int64_t> keep;
  std::set<int64_t> on_branches;
  for (const auto& [name, ref] : m.refs) {
    if (m.SnapshotById(ref.snapshot_id) == nullptr) continue;
    keep.insert(ref.snapshot_id);
    if (ref.type != "branch") continue;
    // An explicit retain-last applies to every branch; otherwise each branch's own setting.
    int64_t min_keep =
        o.retain_last ? default_keep : RefInt(ref, "min-snapshots-to-keep", default_keep);
    int64_t branch_cutoff =
        o.older_than_ms ? cutoff : now_ms - RefInt(ref, "max-snapshot-age-ms", now_ms - cutoff);
    int64_t kept = 0;
    std::set<int64_t> seen;
    for (const Snapshot* s = m.SnapshotById(ref.snapshot_id); s != nullptr;
         s = s->parent_snapshot_id ? m.SnapshotById(*s->parent_snapshot_id) : nullptr) {
      if (!seen.insert(s->snapshot_id).second) break;
      on_branches.insert(s->snapshot_id);
      if (kept < min_keep || s->timestamp_ms >= branch_cutoff) {
        keep.insert(s->snapshot_id);
        ++kept;
      }
    }
  }
  for (const auto& s : m.snapshots) {
    if (!on_branches.contains(s.snapshot_id) && s.timestamp_ms >= cutoff)
      keep.insert(s.snapshot_id);
  }
  for (int64_t sid : o.snapshot_ids) {
    if (m.SnapshotById(sid) == nullptr) return NotFound("snapshot {} does not exist", sid);
    for (const auto& [name, ref] : m.refs) {
      if (ref.snapshot_id == sid)
        return InvalidInput("cannot expire snapshot {}: ref '{}' still points at it", sid, name);
    }
    keep.erase(sid);
  }
  return keep;
}

}  // namespace

Result<ExpireSnapshotsResult> ExpireSnapshots(catalog::Catalog& catalog, const FileIO& io,
                                              const catalog::TableIdentifier& id,
                                              const ExpireSnapshotsOptions& options) {
  Stopwatch watch;
  ExpireSnapshotsResult result;
  std::vector<Snapshot> expired;
  Table before;
  FLOE_ASSIGN_OR_RETURN(
      Table committed,
      internal::CommitMetadataChange(
          catalog, io, id,
          [&](const Table& base, std::vector<std::string>*) -> Result<TableMetadata> {
            expired.clear();
            before = base;
            TableMetadata m = base.metadata;
            FLOE_ASSIGN_OR_RETURN(std::set<int64_t> keep, Retained(m, options, UnixMillisNow()));
            std::set<int64_t> removed;
            for (const auto& s : m.snapshots) {
              if (!keep.contains(s.snapshot_id)) {
                expired.push_back(s);
                removed.insert(s.snapshot_id);
              }
            }
            std::erase_if(m.snapshots,
                          [&](const Snapshot& s) { return removed.contains(s.snapshot_id); });
            // As Iceberg: the snapshot log keeps only what follows the last expired entry.
            auto last_removed = std::find_if(
                m.snapshot_log.rbegin(), m.snapshot_log.rend(),
                [&](const SnapshotLogEntry& e) { return removed.contains(e.snapshot_id); });
            if (last_removed != m.snapshot_log.rend()) {
              m.snapshot_log.erase(m.snapshot_log.begin(), last_removed.base());
            }
            return m;
          }));
  for (const auto& s : expired) result.expired_snapshot_ids.push_back(s.snapshot_id);
  if (expired.empty() || !options.clean_expired_files) {
    result.elapsed_ms = watch.ElapsedMs();
    return result;
  }
  if (options.before_delete) options.before_delete();

  // What the retained snapshots need, including any a writer committed since the expiry landed.
  FLOE_ASSIGN_OR_RETURN(Table latest, LoadTable(catalog, io, id));
  internal::ManifestCache cache(before, io);
  internal::ReachableFiles needed, gone;
  std::vector<const Snapshot*> keep;
  for (const auto& s : committed.metadata.snapshots) keep.push_back(&s);
  for (const auto& s : latest.metadata.snapshots) keep.push_back(&s);
  // Snapshots of later commits may use partition specs `before` lacks: read them with `latest`.
  internal::ManifestCache latest_cache(latest, io);
  std::vector<const Snapshot*> old_keep, new_keep;
  for (const Snapshot* s : keep) {
    (before.metadata.SnapshotById(s->snapshot_id) ? old_keep : new_keep).push_back(s);
  }
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(cache, old_keep, &needed));
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(latest_cache, new_keep, &needed));
  std::vector<const Snapshot*> gone_snaps;
  for (const auto& s : expired) gone_snaps.push_back(&s);
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(cache, gone_snaps, &gone));

  // Sizes of the data files to delete, from the expired snapshots' manifests.
  std::map<std::string, int64_t> sizes;
  for (const Snapshot* s : gone_snaps) {
    FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestFile>* list, cache.List(*s));
    for (const auto& mf : *list) {
      FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestEntry>* entries, cache.Entries(mf));
      for (const auto& e : *entries) sizes[e.file.file_path] = e.file.file_size_in_bytes;
    }
  }
  auto remove = [&](const std::string& location) -> Status {
    auto s = io.Delete(location);
    if (!s && s.error().kind != ErrorKind::kNotFound) return s;
    if (options.on_deleted) options.on_deleted(1);
    return {};
  };
  for (const auto& f : gone.all_files) {
    if (needed.live_files.contains(f)) continue;
    FLOE_RETURN_IF_ERROR(remove(f));
    ++result.deleted_data_files_count;
    result.deleted_bytes += sizes[f];
  }
  for (const auto& mf : gone.manifests) {
    if (needed.manifests.contains(mf)) continue;
    FLOE_RETURN_IF_ERROR(remove(mf));
    ++result.deleted_manifest_files_count;
  }
  for (const auto& l : gone.manifest_lists) {
    if (needed.manifest_lists.contains(l)) continue;
    FLOE_RETURN_IF_ERROR(remove(l));
    ++result.deleted_manifest_lists_count;
  }
  result.elapsed_ms = watch.ElapsedMs();
  return result;
}

}  // namespace floe::iceberg
