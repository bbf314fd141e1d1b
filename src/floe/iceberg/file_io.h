// FileIO: the bridge between the absolute locations Iceberg metadata records
// ("file:/w/db/t/data/a.parquet", "s3://bucket/w/db/t/...") and objects of ObjectStores. A
// location under the warehouse root goes to the warehouse's store; any other one -- a table or
// file in another directory or bucket -- to the store of its own root (the file system, its
// bucket), opened once through the same opener and decorators, so the counts floe reports include
// it. Locations are compared in Location's one spelling. Metadata files are read through the
// MetadataCache of the runtime it carries (runtime.h), which the warehouse's reads share.
// Storage credentials a catalog vends with a table (UseCredentials) take precedence: a location
// under a credential's prefix (the longest that matches) goes to a store opened with them, and
// credentials about to expire are renewed through the catalog first. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/location.h"
#include "floe/io/object_store.h"

namespace floe::iceberg {

class Runtime;

// Opens the (decorated) store whose root is `root_uri` ("file:///", "s3://bucket"), with the
// FileIO properties of vended credentials when there are some ("s3.access-key-id", ...; empty
// otherwise).
using StoreOpener = std::function<Result<io::StorePtr>(
    const std::string& root_uri, const std::map<std::string, std::string>& properties)>;

// An object a location names: its store, its key there, and the canonical location of the
// store's root (so `root + "/" + key` is the canonical location of the object).
struct StoreObject {
  io::StorePtr store;
  std::string key;
  std::string root;

  // The canonical location of a key of this store.
  std::string LocationOf(std::string_view other_key) const;
};

class FileIO {
 public:
  // `root_uri` is the location the store's root stands for, e.g. "file:///w" or "s3://b/w".
  // `open_store` opens the stores of other roots; when empty, io::OpenStore without decorators.
  // `runtime` holds the pools and caches the reads through this FileIO share; null: a runtime of
  // its own.
  FileIO(io::StorePtr store, std::string root_uri, StoreOpener open_store = {},
         std::shared_ptr<Runtime> runtime = nullptr);
  FileIO(const FileIO&) = delete;
  FileIO& operator=(const FileIO&) = delete;

  const io::StorePtr& store() const { return store_; }
  const std::string& root_uri() const { return root_uri_; }
  Runtime& runtime() const { return *runtime_; }
  const std::shared_ptr<Runtime>& runtime_ptr() const { return runtime_; }

  // The store and key of an absolute location, opening the store of its root on first use.
  Result<StoreObject> Resolve(std::string_view location) const;
  // The key of a location in the warehouse's own store; an error for a location outside it.
  Result<std::string> KeyOf(std::string_view location) const;
  // The absolute location of a key of the warehouse's store.
  std::string LocationOf(std::string_view key) const;

  // Reach the locations under each credential's prefix with its properties from now on (a
  // credential for a prefix already held replaces it); `refresh` renews them when they expire.
  // Const: like the stores opened on first use, credentials are how locations are reached, not
  // what they hold.
  void UseCredentials(const std::vector<catalog::StorageCredential>& credentials,
                      const catalog::CredentialRefresher& refresh) const;

  Result<Buffer> Read(std::string_view location) const;
  // A metadata file (table metadata, manifest list, manifest): immutable once written, so served
  // from the MetadataCache when it holds the location, and kept there after a fetch.
  Result<Buffer> ReadMetadata(std::string_view location) const;
  // Several metadata files, the missing ones fetched at once with at most `concurrency` requests
  // in flight (per store); one result per location, in order.
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
  Location root_;         // root_uri_ parsed; root_.root empty when it does not parse
  StoreOpener open_store_;
  std::shared_ptr<Runtime> runtime_;
  mutable std::mutex mu_;
  mutable std::map<std::string, io::StorePtr> others_;  // by root URI

  // A vended credential: the locations it reaches and how to renew it.
  struct Vended {
    Location prefix;     // prefix.root empty: every location of `scheme`
    std::string scheme;  // "s3" for a bare-scheme prefix
    std::string text;    // the prefix as the catalog sent it (for messages and replacement)
    std::map<std::string, std::string> config;
    int64_t expires_at_ms = 0;
    catalog::CredentialRefresher refresh;
    size_t Reach(const Location& loc) const;  // the match's length; 0: no match
  };
  // The vended credential for `loc`, renewed first when it is about to expire; nullopt: none.
  Result<std::optional<std::map<std::string, std::string>>> CredentialFor(
      const Location& loc) const;
  mutable std::vector<Vended> vended_;  // guarded by mu_
  mutable std::mutex refresh_mu_;       // one renewal at a time
  // Stores opened with vended credentials, by root and properties (tables vended the same keys
  // share one).
  mutable std::map<std::pair<std::string, std::map<std::string, std::string>>, io::StorePtr>
      credentialed_;
};

}  // namespace floe::iceberg
