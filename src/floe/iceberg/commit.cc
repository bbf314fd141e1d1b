#include "floe/iceberg/commit.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/iceberg/delete_index.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/remove_orphan_files.h"
#include "floe/iceberg/snapshot_writer.h"
#include "floe/iceberg/table_properties.h"

namespace floe::iceberg {
namespace {

int64_t SummaryInt(const std::map<std::string, std::string>& s, const std::string& key, bool* ok) {
  auto it = s.find(key);
  if (it == s.end()) {
    *ok = false;
    return 0;
  }
  try {
    return std::stoll(it->second);
  } catch (...) {
    *ok = false;
    return 0;
  }
}

Result<std::vector<ManifestEntry>> ReadEntries(const FileIO& io, const TableMetadata& m,
                                               const ManifestFile& mf) {
  const PartitionSpec* spec = m.SpecById(mf.partition_spec_id);
  if (spec == nullptr)
    return Corrupt("manifest '{}' uses unknown partition spec {}", mf.manifest_path,
                   mf.partition_spec_id);
  FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec->PartitionType(m.CurrentSchema()));
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadMetadata(mf.manifest_path));
  return ReadManifest(bytes, mf.manifest_path, mf, *ptype);
}

// The snapshots of `m` committed after `from` (newest first): the current one and its ancestors
// down to, not including, `from`. A `from` that is not an ancestor (rolled back, expired) cannot be
// validated against and is a conflict.
Result<std::vector<const Snapshot*>> SnapshotsSince(const TableMetadata& m,
                                                    const std::string& table,
                                                    std::optional<int64_t> from) {
  std::vector<const Snapshot*> out;
  for (const Snapshot* s = m.CurrentSnapshot(); s != nullptr;
       s = s->parent_snapshot_id ? m.SnapshotById(*s->parent_snapshot_id) : nullptr) {
    if (from && s->snapshot_id == *from) return out;
    out.push_back(s);
  }
  if (!from) return out;
  return Conflict(
      "snapshot {} that the statement read is no longer an ancestor of table '{}''s current "
      "snapshot (rolled back or expired), so its changes cannot be checked; nothing was committed",
      *from, table);
}

// Iceberg's validations of a row-level change (commit.h: CommitValidation) against `m`.
Status Validate(const FileIO& io, const TableMetadata& m, const std::string& table,
                const CommitValidation& v) {
  using NewDeletes = CommitValidation::NewDeletes;
  FLOE_ASSIGN_OR_RETURN(std::vector<const Snapshot*> since,
                        SnapshotsSince(m, table, v.from_snapshot_id));
  if (since.empty()) return {};
  const Schema& schema = m.CurrentSchema();
  ExprPtr bound;
  if (v.conflict_filter) {
    FLOE_ASSIGN_OR_RETURN(bound, Bind(v.conflict_filter, schema));
  }
  std::set<std::string> changed;
  for (const ManifestEntry& e : v.files) changed.insert(e.file.file_path);
  const std::string after = v.from_snapshot_id
                                ? fmt::format("since snapshot {}", *v.from_snapshot_id)
                                : std::string("since the statement read the table");
  // Whether a file may hold rows the filter matches: by its partition (the filter's inclusive
  // projection), then, for data files, by its column metrics.
  auto might_match = [&](const DataFile& f, const PartitionSpec& spec) -> Result<bool> {
    if (!bound) return true;
    FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec.PartitionType(schema));
    if (!MatchesPartition(ProjectInclusive(bound, spec, schema), *ptype, f.partition)) {
      return false;
    }
    return f.content != FileContent::kData || MetricsMightMatch(bound, schema, f);
  };
  DeleteIndex new_deletes;
  bool any_new_deletes = false;
  for (const Snapshot* s : since) {
    const std::string op = s->operation();
    const bool adds_data = op == "append" || op == "overwrite";
    const bool adds_deletes = op == "overwrite" || op == "delete";
    const bool removes =
        op == "overwrite" || op == "replace" || (op == "delete" && v.removed_by_delete);
    const bool check_data = (removes && !changed.empty()) || (adds_data && v.no_conflicting_data);
    const bool check_deletes = adds_deletes && v.new_deletes != NewDeletes::kAllowed;
    if (!check_data && !check_deletes) continue;
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, Table{}.Manifests(io, *s));
    for (const ManifestFile& mf : manifests) {
      // Only what this snapshot wrote: the manifests it added.
      if (mf.added_snapshot_id != s->snapshot_id) continue;
      const bool data = mf.content == ManifestContent::kData;
      if (data ? !check_data : !check_deletes) continue;
      const PartitionSpec* spec = m.SpecById(mf.partition_spec_id);
      if (spec == nullptr) {
        return Corrupt("manifest '{}' uses unknown partition spec {}", mf.manifest_path,
                       mf.partition_spec_id);
      }
      FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadEntries(io, m, mf));
      for (ManifestEntry& e : entries) {
        if (e.snapshot_id != s->snapshot_id) continue;
        const DataFile& f = e.file;
        if (data && e.status == EntryStatus::kDeleted && removes && changed.contains(f.file_path)) {
          return Conflict(
              "data file '{}' that this statement changes was removed by snapshot {} ({}) {}; "
              "nothing was committed",
              f.file_path, s->snapshot_id, op, after);
        }
        if (data && e.status == EntryStatus::kAdded && adds_data && v.no_conflicting_data) {
          FLOE_ASSIGN_OR_RETURN(bool hit, might_match(f, *spec));
          if (hit) {
            return Conflict(
                "found a conflicting data file '{}' added by snapshot {} ({}) {} that may hold "
                "rows "
                "this statement matches (serializable isolation); nothing was committed",
                f.file_path, s->snapshot_id, op, after);
          }
        }
        if (!data && e.status == EntryStatus::kAdded) {
          if (v.new_deletes == NewDeletes::kMatchingFilter) {
            FLOE_ASSIGN_OR_RETURN(bool hit, might_match(f, *spec));
            if (hit) {
              return Conflict(
                  "found a conflicting delete file '{}' added by snapshot {} ({}) {} that may "
                  "apply to rows this statement changes; nothing was committed",
                  f.file_path, s->snapshot_id, op, after);
            }
          } else {
            new_deletes.Add(e);
            any_new_deletes = true;
          }
        }
      }
    }
  }
  if (any_new_deletes) {
    new_deletes.Finish();
    for (const ManifestEntry& e : v.files) {
      std::vector<DataFile> hit = new_deletes.For(e);
      if (!hit.empty()) {
        return Conflict(
            "found a conflicting delete file '{}' committed {} that applies to data file '{}', "
            "which this statement changes; nothing was committed",
            hit.front().file_path, after, e.file.file_path);
      }
    }
  }
  return {};
}

// The metadata of `u` committed on `base`, with the manifests and manifest list it needs written.
Result<TableMetadata> Apply(const FileIO& io, const Table& base, const SnapshotUpdate& u,
                            int attempt, std::vector<std::string>* written) {
  TableMetadata m = base.metadata;
  if (m.format_version > kMaxWriteFormatVersion) {
    return Unsupported(
        "table '{}' is format version {}: floe writes v2 and v3; nothing was committed",
        base.id.ToString(), m.format_version);
  }
  const PartitionSpec& spec = m.DefaultSpec();
  const int64_t snapshot_id = internal::NewSnapshotId(m);
  const int64_t seq = m.last_sequence_number + 1;
  const Snapshot* parent = m.CurrentSnapshot();

  std::vector<ManifestFile> kept;
  if (parent != nullptr) {
    FLOE_ASSIGN_OR_RETURN(kept, base.Manifests(io, *parent));
    // A manifest that only records an earlier snapshot's deletions lists nothing live: the
    // snapshot that deleted the files keeps it (expiry needs it there), later ones drop it.
    std::erase_if(kept, [](const ManifestFile& mf) {
      return mf.added_files_count == 0 && mf.existing_files_count == 0 &&
             mf.deleted_files_count > 0;
    });
  }

  // Replace: mark the deleted files in the manifests that list them (data files by path, delete
  // files by path and blob offset).
  std::set<std::string> to_delete(u.deleted_paths.begin(), u.deleted_paths.end());
  std::set<std::string> deletes_to_remove;
  for (const DataFile& f : u.removed_deletes) deletes_to_remove.insert(DeleteFileKey(f));
  // A deletion vector belongs to its one data file: it goes when that file goes (as Iceberg's
  // v3 commits drop the DVs of removed data files), or it would point nowhere.
  auto orphaned_dv = [&](const DataFile& f) {
    return IsDeletionVector(f) && f.referenced_data_file &&
           to_delete.contains(*f.referenced_data_file);
  };
  const bool dvs_may_go = !to_delete.empty();
  auto removes = [&](const ManifestFile& mf, const DataFile& f) {
    return mf.content == ManifestContent::kData
               ? to_delete.contains(f.file_path)
               : deletes_to_remove.contains(DeleteFileKey(f)) || orphaned_dv(f);
  };
  std::set<std::string> found, found_deletes;
  int64_t deleted_records = 0, deleted_size = 0;
  int64_t removed_delete_files = 0, removed_position_deletes = 0, removed_equality_deletes = 0,
          removed_dvs = 0;
  std::set<std::string> changed_partitions;
  if (!to_delete.empty() || !deletes_to_remove.empty()) {
    std::vector<ManifestFile> next;
    for (const auto& mf : kept) {
      if (mf.content == ManifestContent::kData ? to_delete.empty()
                                               : deletes_to_remove.empty() && !dvs_may_go) {
        next.push_back(mf);
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadEntries(io, m, mf));
      bool touched = std::any_of(entries.begin(), entries.end(), [&](const ManifestEntry& e) {
        return e.status != EntryStatus::kDeleted && removes(mf, e.file);
      });
      if (!touched) {
        next.push_back(mf);
        continue;
      }
      std::vector<ManifestEntry> rewritten;
      for (auto& e : entries) {
        if (e.status == EntryStatus::kDeleted) continue;
        if (removes(mf, e.file)) {
          if (mf.content == ManifestContent::kData) {
            found.insert(e.file.file_path);
            deleted_records += e.file.record_count;
            deleted_size += e.file.file_size_in_bytes;
          } else {
            found_deletes.insert(DeleteFileKey(e.file));
            ++removed_delete_files;
            if (e.file.content == FileContent::kEqualityDeletes) {
              removed_equality_deletes += e.file.record_count;
            } else {
              removed_position_deletes += e.file.record_count;
              if (IsDeletionVector(e.file)) ++removed_dvs;
            }
          }
          e.status = EntryStatus::kDeleted;
          e.snapshot_id = snapshot_id;
          const PartitionSpec* s = m.SpecById(mf.partition_spec_id);
          if (s) {
            std::vector<Literal> p = e.file.partition;
            changed_partitions.insert(fmt::format("{}:{}", s->spec_id(), s->PartitionPath(p)));
          }
        } else {
          e.status = EntryStatus::kExisting;
        }
        rewritten.push_back(std::move(e));
      }
      const PartitionSpec* s = m.SpecById(mf.partition_spec_id);
      FLOE_ASSIGN_OR_RETURN(
          ManifestFile nm,
          internal::WriteManifestFile(io, m, *s, rewritten, snapshot_id, seq, written, mf.content));
      next.push_back(std::move(nm));
    }
    if (found.size() != to_delete.size()) {
      for (const auto& p : to_delete) {
        if (!found.contains(p)) {
          return Conflict("cannot replace '{}': it is no longer a live file of table '{}'", p,
                          base.id.ToString());
        }
      }
    }
    for (const DataFile& f : u.removed_deletes) {
      if (!found_deletes.contains(DeleteFileKey(f))) {
        return Conflict("cannot remove delete file '{}': it is no longer live in table '{}'",
                        f.file_path, base.id.ToString());
      }
    }
    kept = std::move(next);
  }

  // The new files, in one manifest of the default spec.
  std::vector<ManifestFile> added_manifests;
  int64_t added_records = 0, added_size = 0;
  if (!u.added.empty()) {
    std::vector<ManifestEntry> entries;
    for (const auto& f : u.added) {
      if (f.partition.size() != spec.fields().size()) {
        return InvalidInput("data file '{}' has {} partition values; the table's spec has {}",
                            f.file_path, f.partition.size(), spec.fields().size());
      }
      ManifestEntry e;
      e.status = EntryStatus::kAdded;
      e.snapshot_id = snapshot_id;
      e.file = f;
      e.file.spec_id = spec.spec_id();
      if (u.data_sequence_number) e.sequence_number = *u.data_sequence_number;
      added_records += f.record_count;
      added_size += f.file_size_in_bytes;
      changed_partitions.insert(
          fmt::format("{}:{}", spec.spec_id(), spec.PartitionPath(f.partition)));
      entries.push_back(std::move(e));
    }
    FLOE_ASSIGN_OR_RETURN(ManifestFile mf, internal::WriteManifestFile(io, m, spec, entries,
                                                                       snapshot_id, seq, written));
    added_manifests.push_back(std::move(mf));
  }

  // The new delete files, in one delete manifest of the default spec.
  int64_t added_position_deletes = 0, added_equality_deletes = 0, added_dvs = 0;
  int64_t added_position_files = 0, added_equality_files = 0;
  if (!u.added_deletes.empty()) {
    if (m.format_version < 2) {
      return InvalidInput("table '{}' is format version {}; delete files need version 2 or later",
                          base.id.ToString(), m.format_version);
    }
    std::map<int32_t, std::vector<ManifestEntry>> by_spec;
    for (const auto& f : u.added_deletes) {
      if (f.content == FileContent::kData) {
        return Internal("data file '{}' given as a delete file", f.file_path);
      }
      const PartitionSpec* own = u.deletes_keep_spec ? m.SpecById(f.spec_id) : &spec;
      if (own == nullptr) {
        return InvalidInput("delete file '{}' names partition spec {}, which table '{}' lacks",
                            f.file_path, f.spec_id, base.id.ToString());
      }
      if (f.partition.size() != own->fields().size()) {
        return InvalidInput("delete file '{}' has {} partition values; its spec has {}",
                            f.file_path, f.partition.size(), own->fields().size());
      }
      ManifestEntry e;
      e.status = EntryStatus::kAdded;
      e.snapshot_id = snapshot_id;
      e.file = f;
      e.file.spec_id = own->spec_id();
      if (f.content == FileContent::kPositionDeletes && m.format_version >= 3 &&
          !IsDeletionVector(f)) {
        return InvalidInput(
            "position delete file '{}': table '{}' is format version {}, which takes deletion "
            "vectors instead; nothing was committed",
            f.file_path, base.id.ToString(), m.format_version);
      }
      if (f.content == FileContent::kPositionDeletes) {
        added_position_deletes += f.record_count;
        ++added_position_files;
        if (IsDeletionVector(f)) ++added_dvs;
      } else {
        added_equality_deletes += f.record_count;
        ++added_equality_files;
      }
      changed_partitions.insert(
          fmt::format("{}:{}", own->spec_id(), own->PartitionPath(f.partition)));
      by_spec[own->spec_id()].push_back(std::move(e));
    }
    for (const auto& [spec_id, entries] : by_spec) {
      FLOE_ASSIGN_OR_RETURN(ManifestFile mf, internal::WriteManifestFile(
                                                 io, m, *m.SpecById(spec_id), entries, snapshot_id,
                                                 seq, written, ManifestContent::kDeletes));
      added_manifests.push_back(std::move(mf));
    }
  }

  // Merge small data manifests of the default spec once there are enough of them.
  bool merge = m.Property("commit.manifest-merge.enabled", "true") == "true";
  int64_t min_count = m.PropertyInt("commit.manifest.min-count-to-merge", 100);
  int64_t target = m.PropertyInt("commit.manifest.target-size-bytes", 8 << 20);
  std::vector<ManifestFile> all = added_manifests;
  all.insert(all.end(), kept.begin(), kept.end());
  if (merge) {
    std::vector<ManifestFile> small, rest;
    for (auto& mf : all) {
      bool mergeable = mf.content == ManifestContent::kData &&
                       mf.partition_spec_id == spec.spec_id() && mf.manifest_length < target;
      (mergeable ? small : rest).push_back(mf);
    }
    if (static_cast<int64_t>(small.size()) >= min_count) {
      std::vector<ManifestEntry> merged;
      for (const auto& mf : small) {
        FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadEntries(io, m, mf));
        for (auto& e : entries) {
          // Entries deleted by an earlier snapshot are dropped; this snapshot's stay as they are.
          if (e.status == EntryStatus::kDeleted && e.snapshot_id != snapshot_id) continue;
          if (e.status == EntryStatus::kAdded && e.snapshot_id != snapshot_id)
            e.status = EntryStatus::kExisting;
          if (e.status == EntryStatus::kAdded) {
            // Inherit this commit's again, except a data sequence number set explicitly.
            if (e.sequence_number == seq) e.sequence_number.reset();
            e.file_sequence_number.reset();
          }
          merged.push_back(std::move(e));
        }
      }
      FLOE_ASSIGN_OR_RETURN(ManifestFile mf, internal::WriteManifestFile(
                                                 io, m, spec, merged, snapshot_id, seq, written));
      rest.insert(rest.begin(), std::move(mf));
      all = std::move(rest);
    }
  }

  Snapshot snap;
  snap.snapshot_id = snapshot_id;
  if (parent) snap.parent_snapshot_id = parent->snapshot_id;
  snap.sequence_number = seq;
  snap.timestamp_ms = std::max(UnixMillisNow(), m.last_updated_ms);
  snap.schema_id = m.current_schema_id;
  auto& s = snap.summary;
  s = u.summary;
  s["operation"] = u.operation;
  if (!u.added.empty()) {
    s["added-data-files"] = std::to_string(u.added.size());
    s["added-records"] = std::to_string(added_records);
    s["added-files-size"] = std::to_string(added_size);
  }
  if (!found.empty()) {
    s["deleted-data-files"] = std::to_string(found.size());
    s["deleted-records"] = std::to_string(deleted_records);
    s["removed-files-size"] = std::to_string(deleted_size);
  }
  if (!u.added_deletes.empty()) {
    s["added-delete-files"] = std::to_string(u.added_deletes.size());
    if (added_position_files > added_dvs) {
      s["added-position-delete-files"] = std::to_string(added_position_files - added_dvs);
    }
    if (added_dvs > 0) s["added-dvs"] = std::to_string(added_dvs);
    if (added_position_deletes > 0) {
      s["added-position-deletes"] = std::to_string(added_position_deletes);
    }
    if (added_equality_files > 0) {
      s["added-equality-delete-files"] = std::to_string(added_equality_files);
      s["added-equality-deletes"] = std::to_string(added_equality_deletes);
    }
  }
  if (removed_delete_files > 0) {
    s["removed-delete-files"] = std::to_string(removed_delete_files);
    if (removed_dvs > 0) s["removed-dvs"] = std::to_string(removed_dvs);
    if (removed_position_deletes > 0) {
      s["removed-position-deletes"] = std::to_string(removed_position_deletes);
    }
    if (removed_equality_deletes > 0) {
      s["removed-equality-deletes"] = std::to_string(removed_equality_deletes);
    }
  }
  s["changed-partition-count"] = std::to_string(changed_partitions.size());
  bool ok = true;
  std::map<std::string, std::string> prev =
      parent ? parent->summary : std::map<std::string, std::string>{};
  int64_t total_records = parent ? SummaryInt(prev, "total-records", &ok) : 0;
  int64_t total_size = parent ? SummaryInt(prev, "total-files-size", &ok) : 0;
  int64_t total_files = parent ? SummaryInt(prev, "total-data-files", &ok) : 0;
  int64_t total_deletes = parent ? SummaryInt(prev, "total-delete-files", &ok) : 0;
  int64_t total_pos = parent ? SummaryInt(prev, "total-position-deletes", &ok) : 0;
  int64_t total_eq = parent ? SummaryInt(prev, "total-equality-deletes", &ok) : 0;
  if (ok) {
    s["total-records"] = std::to_string(total_records + added_records - deleted_records);
    s["total-files-size"] = std::to_string(total_size + added_size - deleted_size);
    s["total-data-files"] = std::to_string(total_files + static_cast<int64_t>(u.added.size()) -
                                           static_cast<int64_t>(found.size()));
    s["total-delete-files"] = std::to_string(
        total_deletes + static_cast<int64_t>(u.added_deletes.size()) - removed_delete_files);
    s["total-position-deletes"] =
        std::to_string(total_pos + added_position_deletes - removed_position_deletes);
    s["total-equality-deletes"] =
        std::to_string(total_eq + added_equality_deletes - removed_equality_deletes);
  }

  // An OTree table's index follows its files (otree_index.h).
  FLOE_RETURN_IF_ERROR(RecordOTreeIndex(io, m, parent, snapshot_id, seq, u.added,
                                        std::vector<std::string>(found.begin(), found.end()),
                                        written));
  FLOE_RETURN_IF_ERROR(
      internal::AddSnapshot(io, m, std::move(snap), std::move(all), attempt, written));
  return m;
}

// Checks that the files a commit adds exist, as far as orphan removal could have deleted them
// since they were written. A file outside the table's location is never an orphan of it; one this
// process PUT less than half of kMinOrphanAgeMs ago is still protected by orphan removal's age
// floor (the half covers clock skew between hosts), which is how an append costs no extra request.
// Any other file -- written by another process, or by a write that has run for hours -- takes a
// HEAD, which must find it with the size the commit records.
Status CheckAddedFilesExist(const FileIO& io, const TableMetadata& m,
                            const std::vector<DataFile>& added) {
  const int64_t now = UnixMillisNow();
  const std::string prefix = CanonicalLocation(m.location) + "/";
  for (const auto& f : added) {
    if (f.written_at_ms && now - *f.written_at_ms < kMinOrphanAgeMs / 2) continue;
    if (!CanonicalLocation(f.file_path).starts_with(prefix)) continue;
    FLOE_ASSIGN_OR_RETURN(StoreObject object, io.Resolve(f.file_path));
    auto head = object.store->Head(object.key);
    if (!head) {
      if (head.error().kind != ErrorKind::kNotFound) return std::unexpected(head.error());
      return NotFound(
          "data file '{}' of this commit does not exist (removed as an orphan while the write "
          "ran?); nothing was committed",
          f.file_path);
    }
    if (static_cast<int64_t>(head->size) != f.file_size_in_bytes) {
      return Conflict(
          "data file '{}' of this commit is {} bytes in the store, not the {} it was written with; "
          "nothing was committed",
          f.file_path, head->size, f.file_size_in_bytes);
    }
  }
  return {};
}

}  // namespace

Result<Table> CommitSnapshot(catalog::Catalog& catalog, const FileIO& io,
                             const catalog::TableIdentifier& id, const SnapshotUpdate& update,
                             CommitStats* stats) {
  return CommitWithRetry(
      catalog, io, id,
      [&](const Table& base, int attempt,
          std::vector<std::string>* written) -> Result<std::optional<TableMetadata>> {
        // Checked per attempt: a retry may come long after the files were written.
        FLOE_RETURN_IF_ERROR(CheckAddedFilesExist(io, base.metadata, update.added));
        FLOE_RETURN_IF_ERROR(CheckAddedFilesExist(io, base.metadata, update.added_deletes));
        if (update.validation) {
          FLOE_RETURN_IF_ERROR(Validate(io, base.metadata, base.id.ToString(), *update.validation));
        }
        if (update.expected_schema_id &&
            base.metadata.current_schema_id != *update.expected_schema_id) {
          return Conflict(
              "table {} changed schema (from {} to {}) while its files were checked; nothing was "
              "committed",
              base.id.ToString(), *update.expected_schema_id, base.metadata.current_schema_id);
        }
        if (update.expected_spec_id && base.metadata.default_spec_id != *update.expected_spec_id) {
          return Conflict(
              "table {} changed partition spec (from {} to {}) while its files were checked; "
              "nothing was committed",
              base.id.ToString(), *update.expected_spec_id, base.metadata.default_spec_id);
        }
        FLOE_ASSIGN_OR_RETURN(TableMetadata next, Apply(io, base, update, attempt, written));
        for (const auto& [key, value] : update.properties_if_absent)
          next.properties.try_emplace(key, value);
        return next;
      },
      stats);
}

}  // namespace floe::iceberg
