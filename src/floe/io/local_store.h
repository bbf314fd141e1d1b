// LocalStore: an ObjectStore on a local directory, with S3's semantics (ranges, ordering, paging).
// Keys map to files under the root and can never escape it. Put is atomic (write a temp file, then
// rename), PutIfAbsent is atomic across threads and processes (temp file + link()). Temp files live
// beside their target, named with kTempPrefix; List never shows them, ListAbandonedWrites does (a
// killed writer leaves its temp file). Thread-safe.
// A directory cannot hold both "a" and "a/b"; such a Put is an unsupported error naming both.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "floe/io/object_store.h"

namespace floe::io {

struct LocalStoreOptions {
  // fsync each object and its directory before the call returns: crash durability on top of the
  // atomic visibility every Put has. Off by default (tests and benchmarks write a lot).
  bool fsync = false;
  // Map reads of kMapBytes or more (see Get) instead of copying them. Sound only for files that
  // nothing rewrites in place -- a warehouse's, which Put replaces by rename -- because a mapped
  // file truncated under a reader kills the process with SIGBUS, which no error can report. Off
  // for stores of a user's own files (inputs to append, files to inspect).
  bool map_reads = true;
};

class LocalStore final : public ObjectStore {
 public:
  // Reads of at least this many bytes are memory-mapped rather than copied (see Get); 1 MiB
  // measured faster than 128 KiB on 200 KB whole-file reads of the query bench.
  static constexpr uint64_t kMapBytes = 1 << 20;

  // Opens (creating if missing) the directory `root`; a relative root is made absolute.
  static Result<std::shared_ptr<LocalStore>> Open(std::string_view root,
                                                  LocalStoreOptions options = {});

  Result<ObjectInfo> Head(std::string_view key) override;
  Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) override;
  Result<PutInfo> Put(std::string_view key, ByteView data) override;
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override;
  Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                        int max_keys = 1000) override;
  Status Delete(std::string_view key) override;
  std::string Uri() const override;
  // Temp files (kTempPrefix) under `prefix`, keyed by their own names ("a/.floe-tmp-...").
  Result<std::vector<ObjectInfo>> ListAbandonedWrites(std::string_view prefix) override;
  Status DeleteAbandonedWrite(std::string_view key) override;

  // The absolute root directory, without a trailing '/' (except for "/" itself).
  const std::string& root() const { return root_; }

  // Names of in-progress writes start with this; keys with a segment starting with it are invalid.
  static constexpr std::string_view kTempPrefix = ".floe-tmp-";

 private:
  LocalStore(std::string root, LocalStoreOptions options);

  Status CheckKey(std::string_view key) const;
  std::string PathOf(std::string_view key) const;
  // Writes `data` to a fresh temp file in the directory that will hold `key`, creating that
  // directory if needed; returns the temp file's path.
  Result<std::string> WriteTemp(std::string_view key, ByteView data);
  Status MakeParents(std::string_view key);
  void RemoveEmptyParents(std::string_view key);
  Error InStore(Error error) const;

  std::string root_;
  LocalStoreOptions options_;
};

}  // namespace floe::io
