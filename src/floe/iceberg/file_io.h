// FileIO: the bridge between the absolute locations Iceberg metadata records
// ("file:///w/db/t/data/a.parquet", "s3://bucket/w/db/t/...") and keys of the warehouse's
// ObjectStore, so every byte a table moves goes through that one (counting, simulating) store.
// Locations outside the warehouse root are refused with an error naming them. Metadata files are
// read through the process's MetadataCache (metadata_cache.h). Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/io/object_store.h"

namespace floe::iceberg {

class FileIO {
 public:
  // `root_uri` is the location the store's root stands for, e.g. "file:///w" or "s3://b/w".
  FileIO(io::StorePtr store, std::string root_uri);

  const io::StorePtr& store() const { return store_; }
  const std::string& root_uri() const { return root_uri_; }

  // The store key of an absolute location ("file:///w/a" and "/w/a" are the same file).
  Result<std::string> KeyOf(std::string_view location) const;
  // The absolute location of a store key.
  std::string LocationOf(std::string_view key) const;

  Result<Buffer> Read(std::string_view location) const;
  // A metadata file (table metadata, manifest list, manifest): immutable once written, so served
  // from the MetadataCache when it holds the location, and kept there after a fetch.
  Result<Buffer> ReadMetadata(std::string_view location) const;
  // Several metadata files, the missing ones fetched at once with at most `concurrency` requests
  // in flight; one result per location, in order.
  std::vector<Result<Buffer>> ReadMetadataAll(const std::vector<std::string>& locations,
                                              int concurrency) const;
  Status Write(std::string_view location, ByteView data) const;
  // Fails with a conflict when the location exists (atomic: the commit point of metadata files).
  Status WriteIfAbsent(std::string_view location, ByteView data) const;
  // Also drops the location from the MetadataCache.
  Status Delete(std::string_view location) const;

 private:
  io::StorePtr store_;
  std::string root_uri_;  // no trailing '/'
};

}  // namespace floe::iceberg
