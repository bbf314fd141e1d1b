// rewrite_manifests: rewrites the current snapshot's data manifests so that entries are grouped
// by partition (sorted by spec, then partition) and cut at commit.manifest.target-size-bytes,
// which lets scan planning prune whole manifests by their partition summaries. Commits a
// "replace" snapshot with the same live files, entries EXISTING with their original snapshot ids
// and sequence numbers; delete manifests are kept as they are.
#pragma once

#include <cstdint>
#include <optional>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"

namespace floe::iceberg {

struct RewriteManifestsOptions {
  std::optional<int64_t> target_manifest_size_bytes;  // default commit.manifest.target-size-bytes
};

struct RewriteManifestsResult {
  int64_t rewritten_manifests_count = 0;
  int64_t added_manifests_count = 0;
  int64_t entries = 0;
  std::optional<int64_t> snapshot_id;  // none: nothing to rewrite
  double elapsed_ms = 0;
};

Result<RewriteManifestsResult> RewriteManifests(catalog::Catalog& catalog, const FileIO& io,
                                                const catalog::TableIdentifier& id,
                                                const RewriteManifestsOptions& options = {});

}  // namespace floe::iceberg
