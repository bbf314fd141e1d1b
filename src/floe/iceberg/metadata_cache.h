// MetadataCache: the bytes of Iceberg metadata files (table metadata JSON, manifest lists,
// manifests), keyed by location. Iceberg never rewrites these files in place: every commit writes
// new ones under fresh names (a version number and a UUID), so a cached copy cannot go stale; the
// only change is deletion (expire_snapshots, remove_orphan_files), and FileIO drops a deleted
// location from the cache. Bounded in bytes (LRU), thread-safe, one per runtime (runtime.h), on by
// default: a second query of an unchanged table plans without a metadata request, as Spark's
// caching catalog and Trino's metadata cache do. The pointer to the current metadata lives in the
// catalog, which is always asked, so a commit from anywhere is seen at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/lru_cache.h"

namespace floe::iceberg {

// Keyed by location. Clear, set_enabled, set_capacity_bytes and the counters (bytes, entries,
// hits, misses) come from LruCache.
class MetadataCache : public LruCache<std::string, Buffer> {
 public:
  // 32 MiB: the metadata of hundreds of tables of thousands of files each.
  static constexpr int64_t kDefaultCapacityBytes = int64_t{32} << 20;

  explicit MetadataCache(int64_t capacity_bytes = kDefaultCapacityBytes)
      : LruCache(capacity_bytes) {}

  std::optional<Buffer> Find(std::string_view location) {
    return LruCache::Find(std::string(location));
  }
  void Insert(std::string_view location, const Buffer& bytes) {
    LruCache::Insert(std::string(location), bytes, static_cast<int64_t>(bytes.size()) + 128);
  }
  void Erase(std::string_view location) { LruCache::Erase(std::string(location)); }
};

}  // namespace floe::iceberg
