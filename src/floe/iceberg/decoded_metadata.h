// Decoded metadata: table metadata JSON, manifest lists and manifests decoded through a process-
// wide cache kept beside MetadataCache's bytes, so a warm query skips the JSON and Avro decoding
// as well as the requests. An entry holds for the very buffer it was decoded from: when
// MetadataCache drops or refetches a file the next read gets another buffer and is decoded
// afresh, and nothing is kept while MetadataCache is off. Request counts are never affected.
// Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

// ReadManifest of `bytes` (the manifest `list_entry` names, typed by `partition_type`).
Result<std::shared_ptr<const std::vector<ManifestEntry>>> DecodeManifest(
    const Buffer& bytes, const ManifestFile& list_entry, const Type& partition_type);

// IndexManifest of `bytes`, as DecodeManifest (planning's in-place read of the manifest).
Result<std::shared_ptr<const ManifestIndex>> DecodeManifestIndex(const Buffer& bytes,
                                                                 const ManifestFile& list_entry,
                                                                 const Type& partition_type);

// ReadManifestList of `bytes`, the manifest list at `location`.
Result<std::shared_ptr<const std::vector<ManifestFile>>> DecodeManifestList(
    const Buffer& bytes, const std::string& location);

// TableMetadata::Parse of `bytes`, the metadata file at `location`.
Result<std::shared_ptr<const TableMetadata>> DecodeTableMetadata(const Buffer& bytes,
                                                                 const std::string& location);

// Empties the decoded caches (MetadataCache's Clear does not need it: see above).
void ClearDecodedMetadata();

}  // namespace floe::iceberg
