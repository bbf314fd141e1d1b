// Shared by the maintenance operations (expire_snapshots, remove_orphan_files, rewrite_manifests):
// a metadata-only commit through CommitWithRetry (commit_retry.h), and the
// sets of files a table's snapshots reach. Internal to the iceberg module.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg::internal {

// Builds the next metadata from the freshly loaded `base`; files it writes go to `written` and are
// removed if the attempt does not land.
using MetadataChange =
    std::function<Result<TableMetadata>(const Table& base, std::vector<std::string>* written)>;

// Commits the change with CommitWithRetry, which re-runs `change` on the new base when a
// concurrent commit wins. A change that returns the base metadata unchanged (and wrote nothing)
// commits nothing and returns base.
Result<Table> CommitMetadataChange(catalog::Catalog& catalog, const FileIO& io,
                                   const catalog::TableIdentifier& id,
                                   const MetadataChange& change);

// The files the given snapshots reach. Manifests are read once each (they never change).
struct ReachableFiles {
  std::set<std::string> manifest_lists;
  std::set<std::string> manifests;
  std::set<std::string> live_files;  // data and delete files with an ADDED or EXISTING entry
  std::set<std::string> all_files;   // every file any entry names, DELETED ones included
};

class ManifestCache {
 public:
  ManifestCache(const Table& table, const FileIO& io) : table_(table), io_(io) {}
  Result<const std::vector<ManifestFile>*> List(const Snapshot& snapshot);
  Result<const std::vector<ManifestEntry>*> Entries(const ManifestFile& manifest);

 private:
  const Table& table_;
  const FileIO& io_;
  std::map<std::string, std::vector<ManifestFile>> lists_;
  std::map<std::string, std::vector<ManifestEntry>> entries_;
};

Status CollectReachable(ManifestCache& cache, const std::vector<const Snapshot*>& snapshots,
                        ReachableFiles* out);

}  // namespace floe::iceberg::internal
