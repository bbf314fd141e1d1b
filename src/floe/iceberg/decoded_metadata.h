// Decoded metadata: table metadata JSON, manifest lists and manifests decoded through a cache of
// the runtime (runtime.h) kept beside its MetadataCache's bytes, so a warm query skips the JSON and
// Avro decoding as well as the requests. An entry holds for the very buffer it was decoded from:
// when MetadataCache drops or refetches a file the next read gets another buffer and is decoded
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

class MetadataCache;

// One runtime's decoded metadata, each entry valid for the buffer it came from. Keeps nothing
// while `bytes_cache` (the runtime's MetadataCache, which must outlive it) is off.
class DecodedMetadataCache {
 public:
  explicit DecodedMetadataCache(const MetadataCache* bytes_cache);
  ~DecodedMetadataCache();
  DecodedMetadataCache(const DecodedMetadataCache&) = delete;
  DecodedMetadataCache& operator=(const DecodedMetadataCache&) = delete;

  // IndexManifest of `bytes` (the manifest `list_entry` names, typed by `partition_type`):
  // planning's in-place read of the manifest.
  Result<std::shared_ptr<const ManifestIndex>> DecodeManifestIndex(const Buffer& bytes,
                                                                   const ManifestFile& list_entry,
                                                                   const Type& partition_type);

  // ReadManifestList of `bytes`, the manifest list at `location`.
  Result<std::shared_ptr<const std::vector<ManifestFile>>> DecodeManifestList(
      const Buffer& bytes, const std::string& location);

  // TableMetadata::Parse of `bytes`, the metadata file at `location`.
  Result<std::shared_ptr<const TableMetadata>> DecodeTableMetadata(const Buffer& bytes,
                                                                   const std::string& location);

  // Empties the caches (MetadataCache's Clear does not need it: see above).
  void Clear();

 private:
  struct Caches;
  std::unique_ptr<Caches> caches_;
};

}  // namespace floe::iceberg
