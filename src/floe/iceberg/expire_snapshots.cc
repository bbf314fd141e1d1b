#include "floe/iceberg/expire_snapshots.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

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
  const int64_t table_keep = m.PropertyInt("history.expire.min-snapshots-to-keep", 1);
  const int64_t default_keep = o.retain_last.value_or(table_keep);
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

// What an expiry deletes once it has committed: the files only expired snapshots reach.
struct Deletions {
  struct File {
    FileContent content = FileContent::kData;
    int64_t size = 0;
  };
  std::map<std::string, File> files;  // data and delete files
  std::set<std::string> manifests;
  std::set<std::string> manifest_lists;
};

// The files the `expired` snapshots of `base` reach and none of the `retained` ones does. Every
// manifest list and manifest of both is read here, so unreadable metadata fails the expiry before
// it commits. A file counts when an expired snapshot lists it live: a DELETED entry names a file
// that the snapshot it was live in accounts for (and an earlier expiry may have deleted already).
Result<Deletions> PlanDeletions(const Table& base, const FileIO& io,
                                const std::vector<const Snapshot*>& expired,
                                const std::vector<const Snapshot*>& retained) {
  internal::ManifestCache cache(base, io);
  internal::ReachableFiles needed, gone;
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(cache, retained, &needed));
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(cache, expired, &gone));
  Deletions d;
  for (const Snapshot* s : expired) {
    FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestFile>* list, cache.List(*s));
    for (const auto& mf : *list) {
      FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestEntry>* entries, cache.Entries(mf));
      for (const auto& e : *entries) {
        if (e.status == EntryStatus::kDeleted || needed.live_files.contains(e.file.file_path))
          continue;
        d.files[e.file.file_path] = {e.file.content, e.file.file_size_in_bytes};
      }
    }
  }
  for (const auto& m : gone.manifests) {
    if (!needed.manifests.contains(m)) d.manifests.insert(m);
  }
  for (const auto& l : gone.manifest_lists) {
    if (!needed.manifest_lists.contains(l)) d.manifest_lists.insert(l);
  }
  return d;
}

// Drops from `d` whatever the snapshots of `latest` that `before` lacks (commits that landed
// after the expiry) reach.
Status KeepWhatLaterCommitsNeed(const Table& before, const Table& latest, const FileIO& io,
                                Deletions* d) {
  std::vector<const Snapshot*> later;
  for (const auto& s : latest.metadata.snapshots) {
    if (before.metadata.SnapshotById(s.snapshot_id) == nullptr) later.push_back(&s);
  }
  if (later.empty()) return {};
  // Later snapshots may use partition specs `before` lacks: read them with `latest`.
  internal::ManifestCache cache(latest, io);
  internal::ReachableFiles needed;
  FLOE_RETURN_IF_ERROR(internal::CollectReachable(cache, later, &needed));
  for (const auto& f : needed.live_files) d->files.erase(f);
  for (const auto& m : needed.manifests) d->manifests.erase(m);
  for (const auto& l : needed.manifest_lists) d->manifest_lists.erase(l);
  return {};
}

}  // namespace

Result<ExpireSnapshotsResult> ExpireSnapshots(catalog::Catalog& catalog, const FileIO& io,
                                              const catalog::TableIdentifier& id,
                                              const ExpireSnapshotsOptions& options) {
  Stopwatch watch;
  ExpireSnapshotsResult result;
  std::vector<int64_t> expired_ids;
  Deletions plan;
  FLOE_ASSIGN_OR_RETURN(
      Table committed,
      internal::CommitMetadataChange(
          catalog, io, id,
          [&](const Table& base, std::vector<std::string>*) -> Result<TableMetadata> {
            expired_ids.clear();
            plan = Deletions{};
            TableMetadata m = base.metadata;
            FLOE_ASSIGN_OR_RETURN(std::set<int64_t> keep, Retained(m, options, UnixMillisNow()));
            std::set<int64_t> removed;
            std::vector<const Snapshot*> expired, retained;
            for (const auto& s : base.metadata.snapshots) {
              if (keep.contains(s.snapshot_id)) {
                retained.push_back(&s);
              } else {
                expired.push_back(&s);
                expired_ids.push_back(s.snapshot_id);
                removed.insert(s.snapshot_id);
              }
            }
            if (removed.empty()) return m;
            // Everything the expiry will delete is known before it commits.
            if (options.clean_expired_files) {
              FLOE_ASSIGN_OR_RETURN(plan, PlanDeletions(base, io, expired, retained));
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
  result.expired_snapshot_ids = expired_ids;
  if (expired_ids.empty() || !options.clean_expired_files) {
    result.elapsed_ms = watch.ElapsedMs();
    return result;
  }
  if (options.before_delete) options.before_delete();

  const size_t planned = plan.files.size() + plan.manifests.size() + plan.manifest_lists.size();
  size_t done = 0;
  // After the commit, an error deletes nothing more and says what was done: the snapshots are
  // expired for good, and what is left is for remove-orphans.
  auto stopped = [&](const Error& e) {
    return MakeError(
        e.kind,
        fmt::format("expire_snapshots of '{}' expired {} snapshots, then deleted {} of "
                    "their {} files: {}",
                    id.ToString(), expired_ids.size(), done, planned, e.message),
        e.transient);
  };
  // What commits that landed since the expiry need stays.
  auto latest = LoadTable(catalog, io, id);
  if (!latest) return stopped(latest.error());
  if (auto kept = KeepWhatLaterCommitsNeed(committed, *latest, io, &plan); !kept)
    return stopped(kept.error());
  auto remove = [&](const std::string& location) -> Status {
    FLOE_RETURN_IF_ERROR(io.Delete(location));
    ++done;
    if (options.on_deleted) options.on_deleted(1);
    return {};
  };
  for (const auto& [path, f] : plan.files) {
    if (auto s = remove(path); !s) return stopped(s.error());
    switch (f.content) {
      case FileContent::kData:
        ++result.deleted_data_files_count;
        break;
      case FileContent::kPositionDeletes:
        ++result.deleted_position_delete_files_count;
        break;
      case FileContent::kEqualityDeletes:
        ++result.deleted_equality_delete_files_count;
        break;
    }
    result.deleted_bytes += f.size;
  }
  for (const auto& mf : plan.manifests) {
    if (auto s = remove(mf); !s) return stopped(s.error());
    ++result.deleted_manifest_files_count;
  }
  for (const auto& l : plan.manifest_lists) {
    if (auto s = remove(l); !s) return stopped(s.error());
    ++result.deleted_manifest_lists_count;
  }
  result.elapsed_ms = watch.ElapsedMs();
  return result;
}

}  // namespace floe::iceberg
