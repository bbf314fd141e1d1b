#include "floe/iceberg/maintenance_internal.h"

#include <algorithm>
#include <thread>

#include "floe/base/clock.h"
#include "floe/base/log.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/table_properties.h"

namespace floe::iceberg::internal {

Result<Table> CommitMetadataChange(catalog::Catalog& catalog, const FileIO& io,
                                   const catalog::TableIdentifier& id,
                                   const MetadataChange& change) {
  FLOE_ASSIGN_OR_RETURN(Table base, LoadTable(catalog, io, id));
  FLOE_RETURN_IF_ERROR(ValidateTableProperties(base.metadata.properties));
  const CommitRetryPolicy retry = CommitRetryPolicy::Of(base.metadata);
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      FLOE_ASSIGN_OR_RETURN(base, LoadTable(catalog, io, id));
    }
    std::vector<std::string> written;
    auto cleanup = [&] {
      for (const auto& w : written) (void)io.Delete(w);
    };
    auto next = change(base, &written);
    if (!next) {
      cleanup();
      return std::unexpected(next.error());
    }
    TableMetadata m = std::move(*next);
    if (written.empty() && m.ToJson() == base.metadata.ToJson()) return base;  // nothing to do
    RecordPreviousMetadata(base, &m);
    m.last_updated_ms = std::max(UnixMillisNow(), base.metadata.last_updated_ms);
    int version = std::max(MetadataVersion(base.metadata_location), 0) + 1;
    Table t{id, NewMetadataLocation(m.location, version), std::move(m)};
    std::string json = t.metadata.ToJson().dump();
    auto put = io.WriteIfAbsent(t.metadata_location, AsBytes(json));
    if (!put) {
      cleanup();
      return std::unexpected(put.error());
    }
    written.push_back(t.metadata_location);
    auto swapped = catalog.CommitTable(id, base.metadata_location, t.metadata_location);
    if (swapped) return t;
    if (swapped.error().kind != ErrorKind::kConflict) {
      auto now = catalog.LoadTable(id);
      if (now && *now == t.metadata_location) return t;
      cleanup();
      return std::unexpected(swapped.error());
    }
    cleanup();
    if (attempt >= retry.num_retries) {
      return Conflict(
          "commit to '{}' lost to concurrent commits {} times; giving up "
          "(commit.retry.num-retries={})",
          id.ToString(), attempt + 1, retry.num_retries);
    }
    const int64_t wait = retry.WaitMs(attempt);
    Log(LogLevel::kInfo, "commit to {} conflicted; retrying in {} ms", id.ToString(), wait);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
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
