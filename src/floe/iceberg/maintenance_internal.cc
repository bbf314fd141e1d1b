#include "floe/iceberg/maintenance_internal.h"

#include <algorithm>

#include "floe/base/clock.h"
#include "floe/iceberg/commit_retry.h"

namespace floe::iceberg::internal {

Result<Table> CommitMetadataChange(catalog::Catalog& catalog, const FileIO& io,
                                   const catalog::TableIdentifier& id,
                                   const MetadataChange& change) {
  return CommitWithRetry(
      catalog, io, id,
      [&](const Table& base, int,
          std::vector<std::string>* written) -> Result<std::optional<TableMetadata>> {
        FLOE_ASSIGN_OR_RETURN(TableMetadata m, change(base, written));
        if (written->empty() && m.ToJson() == base.metadata.ToJson()) return std::nullopt;
        m.last_updated_ms = std::max(UnixMillisNow(), base.metadata.last_updated_ms);
        return m;
      });
}

Result<const std::vector<ManifestFile>*> ManifestCache::List(const Snapshot& snapshot) {
  auto it = lists_.find(snapshot.manifest_list);
  if (it != lists_.end()) return &it->second;
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> list, table_.Manifests(io_, snapshot));
  return &lists_.emplace(snapshot.manifest_list, std::move(list)).first->second;
}

Result<const std::vector<ManifestEntry>*> ManifestCache::Entries(const ManifestFile& mf) {
  auto it = entries_.find(mf.manifest_path);
  if (it != entries_.end()) return &it->second;
  const PartitionSpec* spec = table_.metadata.SpecById(mf.partition_spec_id);
  if (spec == nullptr)
    return Corrupt("manifest '{}' uses partition spec {} that the table lacks", mf.manifest_path,
                   mf.partition_spec_id);
  FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec->PartitionType(table_.metadata.CurrentSchema()));
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, io_.ReadMetadata(mf.manifest_path));
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                        ReadManifest(bytes, mf.manifest_path, mf, *ptype));
  return &entries_.emplace(mf.manifest_path, std::move(entries)).first->second;
}

Status CollectReachable(ManifestCache& cache, const std::vector<const Snapshot*>& snapshots,
                        ReachableFiles* out) {
  for (const Snapshot* s : snapshots) {
    out->manifest_lists.insert(s->manifest_list);
    FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestFile>* list, cache.List(*s));
    for (const auto& mf : *list) {
      if (!out->manifests.insert(mf.manifest_path).second) continue;
      FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestEntry>* entries, cache.Entries(mf));
      for (const auto& e : *entries) {
        out->all_files.insert(e.file.file_path);
        if (e.status != EntryStatus::kDeleted) out->live_files.insert(e.file.file_path);
      }
    }
  }
  return {};
}

}  // namespace floe::iceberg::internal
