// Opening a store from a URI: the single place where "file:///abs", a plain relative or absolute
// path, "s3://bucket/prefix" and "mem://name" become ObjectStores. A bad URI is an invalid-input
// error naming it. Decorators (simulation, counting) are added by the caller.
#pragma once

#include <string>
#include <string_view>

#include "floe/io/local_store.h"
#include "floe/io/object_store.h"
#include "floe/io/s3_store.h"

namespace floe::io {

struct StoreUri {
  enum class Scheme { kFile, kS3, kMem };
  Scheme scheme = Scheme::kFile;
  std::string bucket;  // kS3: bucket; kMem: namespace name
  std::string path;    // kFile: absolute directory; kS3: key prefix (no leading '/'); kMem: prefix
};

Result<StoreUri> ParseStoreUri(std::string_view uri);

// Opens the store a URI names. A file store's directory is created if missing and opened with
// `local`. `mem://name` stores with the same name share contents within the process.
Result<StorePtr> OpenStore(std::string_view uri, const S3Options& s3 = {},
                           const LocalStoreOptions& local = {});

}  // namespace floe::io
