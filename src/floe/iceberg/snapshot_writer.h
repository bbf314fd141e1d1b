// Writing a snapshot: its manifests, its manifest list and, in v3 tables, its row lineage (the
// snapshot's first-row-id and added-rows, each data manifest's first_row_id, the table's
// next-row-id). The one place commits (commit.cc) and manifest rewrites (rewrite_manifests.cc)
// build a snapshot, so both write every format version the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg::internal {

// The format version of the manifests and manifest lists written for `m`: its own, but v2 for a
// v1 table (as floe always wrote them; v1 tables are read and appended to, not upgraded).
int ManifestFormatVersion(const TableMetadata& m);

// A snapshot id not yet used in `m`.
int64_t NewSnapshotId(const TableMetadata& m);

// Writes one manifest of `entries` (in the table's format version) under the table's metadata
// folder, records its location in `written`, and returns its manifest-list row: counts from the
// entries' statuses, partition summaries, `snapshot_id` and `sequence_number` as the adding
// snapshot's.
Result<ManifestFile> WriteManifestFile(const FileIO& io, const TableMetadata& m,
                                       const PartitionSpec& spec,
                                       const std::vector<ManifestEntry>& entries,
                                       int64_t snapshot_id, int64_t sequence_number,
                                       std::vector<std::string>* written,
                                       ManifestContent content = ManifestContent::kData);

// Writes the manifest list of `snap` (its id, parent, sequence number, timestamp and summary set)
// over `manifests`, and makes it the current snapshot of main in `m`: snapshot log, last sequence
// number, last-updated. In v3 it assigns row ids first: the snapshot's first-row-id is the
// table's next-row-id, data manifests without a first_row_id take ids from there, and
// next-row-id moves past them. `attempt` names the list file of a commit's retry.
Status AddSnapshot(const FileIO& io, TableMetadata& m, Snapshot snap,
                   std::vector<ManifestFile> manifests, int attempt,
                   std::vector<std::string>* written);

}  // namespace floe::iceberg::internal
