#include "floe/iceberg/snapshot_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/base/random.h"

namespace floe::iceberg::internal {

int ManifestFormatVersion(const TableMetadata& m) {
  return std::max(m.format_version, kMinWriteFormatVersion);
}

int64_t NewSnapshotId(const TableMetadata& m) {
  for (;;) {
    int64_t id = static_cast<int64_t>(RandomU64() >> 1);
    if (id != 0 && m.SnapshotById(id) == nullptr) return id;
  }
}

Result<ManifestFile> WriteManifestFile(const FileIO& io, const TableMetadata& m,
                                       const PartitionSpec& spec,
                                       const std::vector<ManifestEntry>& entries,
                                       int64_t snapshot_id, int64_t sequence_number,
                                       std::vector<std::string>* written, ManifestContent content) {
  const Schema& schema = m.CurrentSchema();
  FLOE_ASSIGN_OR_RETURN(
      std::string bytes,
      WriteManifest({&schema, &spec, ManifestFormatVersion(m), content}, entries));
  std::string location =
      fmt::format("{}/metadata/{}-m{}.avro", m.location, NewUuid(), written->size());
  FLOE_RETURN_IF_ERROR(io.Write(location, AsBytes(bytes)));
  written->push_back(location);
  ManifestFile mf;
  mf.manifest_path = location;
  mf.manifest_length = static_cast<int64_t>(bytes.size());
  mf.partition_spec_id = spec.spec_id();
  mf.content = content;
  mf.sequence_number = sequence_number;
  mf.min_sequence_number = sequence_number;
  mf.added_snapshot_id = snapshot_id;
  for (const auto& e : entries) {
    int64_t rows = e.file.record_count;
    switch (e.status) {
      case EntryStatus::kAdded:
        ++mf.added_files_count;
        mf.added_rows_count += rows;
        break;
      case EntryStatus::kExisting:
        ++mf.existing_files_count;
        mf.existing_rows_count += rows;
        break;
      case EntryStatus::kDeleted:
        ++mf.deleted_files_count;
        mf.deleted_rows_count += rows;
        break;
    }
    if (e.sequence_number) {
      mf.min_sequence_number = std::min(mf.min_sequence_number, *e.sequence_number);
    }
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec.PartitionType(schema));
  mf.partitions = SummarizePartitions(*ptype, entries);
  return mf;
}

Status AddSnapshot(const FileIO& io, TableMetadata& m, Snapshot snap,
                   std::vector<ManifestFile> manifests, int attempt,
                   std::vector<std::string>* written) {
  ManifestListContext list{snap.snapshot_id, snap.parent_snapshot_id, snap.sequence_number,
                           ManifestFormatVersion(m), std::nullopt};
  if (m.format_version >= 3) {
    // Spec, "Row Lineage": ids from next-row-id on, for every data file that will inherit one.
    snap.first_row_id = m.next_row_id;
    const int64_t next = AssignFirstRowIds(manifests, m.next_row_id);
    snap.added_rows = next - m.next_row_id;
    list.first_row_id = snap.first_row_id;
    m.next_row_id = next;
  }
  snap.manifest_list = fmt::format("{}/metadata/snap-{}-{}-{}.avro", m.location, snap.snapshot_id,
                                   attempt + 1, NewUuid());
  FLOE_ASSIGN_OR_RETURN(std::string bytes, WriteManifestList(list, manifests));
  FLOE_RETURN_IF_ERROR(io.Write(snap.manifest_list, AsBytes(bytes)));
  written->push_back(snap.manifest_list);
  const int64_t id = snap.snapshot_id;
  m.current_snapshot_id = id;
  m.refs["main"] = SnapshotRef{id, "branch", nlohmann::json::object()};
  m.snapshot_log.push_back({snap.timestamp_ms, id});
  m.last_sequence_number = snap.sequence_number;
  m.last_updated_ms = snap.timestamp_ms;
  m.snapshots.push_back(std::move(snap));
  return {};
}

}  // namespace floe::iceberg::internal
