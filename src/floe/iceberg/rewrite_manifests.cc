#include "floe/iceberg/rewrite_manifests.h"

#include <algorithm>
#include <map>

#include "floe/base/clock.h"
#include "floe/iceberg/maintenance_internal.h"
#include "floe/iceberg/snapshot_writer.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

Result<RewriteManifestsResult> RewriteManifests(catalog::Catalog& catalog, const FileIO& io,
                                                const catalog::TableIdentifier& id,
                                                const RewriteManifestsOptions& options) {
  Stopwatch watch;
  RewriteManifestsResult result;
  bool nothing = false;
  FLOE_ASSIGN_OR_RETURN(
      Table committed,
      internal::CommitMetadataChange(
          catalog, io, id,
          [&](const Table& base, std::vector<std::string>* written) -> Result<TableMetadata> {
            result = RewriteManifestsResult{};
            TableMetadata m = base.metadata;
            const Snapshot* parent = m.CurrentSnapshot();
            if (parent == nullptr) {
              nothing = true;
              return m;
            }
            const int64_t target = options.target_manifest_size_bytes.value_or(
                m.PropertyInt("commit.manifest.target-size-bytes", int64_t{8} << 20));
            if (target <= 0)
              return InvalidInput("target manifest size {} must be positive", target);
            internal::ManifestCache cache(base, io);
            FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestFile>* list, cache.List(*parent));
            std::vector<ManifestFile> kept;
            // Live entries per spec, keyed for ordering by partition then path.
            std::map<int32_t, std::vector<std::pair<std::string, ManifestEntry>>> by_spec;
            for (const auto& mf : *list) {
              if (mf.content != ManifestContent::kData) {
                kept.push_back(mf);
                continue;
              }
              ++result.rewritten_manifests_count;
              const PartitionSpec* spec = m.SpecById(mf.partition_spec_id);
              FLOE_ASSIGN_OR_RETURN(const std::vector<ManifestEntry>* entries, cache.Entries(mf));
              for (ManifestEntry e : *entries) {
                if (e.status == EntryStatus::kDeleted) continue;
                e.status = EntryStatus::kExisting;
                std::string key = spec->PartitionPath(e.file.partition) + "\x01" + e.file.file_path;
                by_spec[mf.partition_spec_id].emplace_back(std::move(key), std::move(e));
              }
            }
            if (result.rewritten_manifests_count == 0) {
              nothing = true;
              return m;
            }
            const int64_t snapshot_id = internal::NewSnapshotId(m);
            const int64_t seq = m.last_sequence_number + 1;
            std::vector<ManifestFile> added;
            for (auto& [spec_id, keyed] : by_spec) {
              std::sort(keyed.begin(), keyed.end(),
                        [](const auto& a, const auto& b) { return a.first < b.first; });
              std::vector<ManifestEntry> entries;
              for (auto& [k, e] : keyed) entries.push_back(std::move(e));
              result.entries += static_cast<int64_t>(entries.size());
              const PartitionSpec& spec = *m.SpecById(spec_id);
              // Size one manifest of them all, then cut into as many as the target asks.
              const Schema& schema = m.CurrentSchema();
              FLOE_ASSIGN_OR_RETURN(
                  std::string probe,
                  WriteManifest(
                      {&schema, &spec, internal::ManifestFormatVersion(m), ManifestContent::kData},
                      entries));
              size_t parts = std::max<size_t>(1, (probe.size() + static_cast<size_t>(target) - 1) /
                                                     static_cast<size_t>(target));
              size_t per = (entries.size() + parts - 1) / parts;
              for (size_t first = 0; first < entries.size(); first += per) {
                std::vector<ManifestEntry> chunk(
                    entries.begin() + first,
                    entries.begin() + std::min(entries.size(), first + per));
                FLOE_ASSIGN_OR_RETURN(
                    ManifestFile mf,
                    internal::WriteManifestFile(io, m, spec, chunk, snapshot_id, seq, written));
                added.push_back(std::move(mf));
              }
            }
            result.added_manifests_count = static_cast<int64_t>(added.size());
            added.insert(added.end(), kept.begin(), kept.end());
            Snapshot snap;
            snap.snapshot_id = snapshot_id;
            snap.parent_snapshot_id = parent->snapshot_id;
            snap.sequence_number = seq;
            snap.timestamp_ms = std::max(UnixMillisNow(), m.last_updated_ms);
            snap.schema_id = m.current_schema_id;
            for (const auto& [k, v] : parent->summary) {
              if (k.starts_with("total-")) snap.summary[k] = v;
            }
            snap.summary["operation"] = "replace";
            snap.summary["manifests-created"] = std::to_string(result.added_manifests_count);
            snap.summary["manifests-replaced"] = std::to_string(result.rewritten_manifests_count);
            snap.summary["manifests-kept"] = std::to_string(kept.size());
            snap.summary["entries-processed"] = std::to_string(result.entries);
            FLOE_RETURN_IF_ERROR(internal::AddSnapshot(io, m, std::move(snap), std::move(added),
                                                       /*attempt=*/0, written));
            result.snapshot_id = snapshot_id;
            return m;
          }));
  (void)committed;
  (void)nothing;
  result.elapsed_ms = watch.ElapsedMs();
  return result;
}

}  // namespace floe::iceberg
