// FooterCache: parsed footers and the raw page-index bytes of Parquet files, keyed by (path,
// length) so a rewritten object of another length is never served stale. Bounded in bytes (LRU);
// thread-safe. A scan uses its runtime's (iceberg/runtime.h); tests and benchmarks disable or
// Clear() it so every measured read starts cold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/lru_cache.h"
#include "floe/parquet/file_reader.h"

namespace floe::parquet {

struct FooterCacheEntry {
  FileReader reader;  // the parsed footer
  // What earlier reads fetched of the file's page index and footer, by file offset: the footer
  // always, and the column and offset indexes those reads used.
  std::vector<std::pair<int64_t, Buffer>> tail;
};

// Keyed by (path, length). Clear, set_enabled (a disabled cache finds and keeps nothing),
// set_capacity_bytes and the counters (bytes, entries, hits, misses) come from LruCache.
class FooterCache : public LruCache<std::pair<std::string, uint64_t>, FooterCacheEntry> {
 public:
  // 64 MiB holds the footers and page indexes of thousands of typical data files.
  static constexpr int64_t kDefaultCapacityBytes = int64_t{64} << 20;
  using Entry = FooterCacheEntry;

  explicit FooterCache(int64_t capacity_bytes = kDefaultCapacityBytes) : LruCache(capacity_bytes) {}

  std::optional<Entry> Find(std::string_view path, uint64_t file_length) {
    return LruCache::Find({std::string(path), file_length});
  }
  // Keeps `reader` and `tail` (private copies, see FetchedBytes::CopiesWithin); entries larger
  // than the capacity are not kept.
  void Insert(std::string_view path, uint64_t file_length, const FileReader& reader,
              std::vector<std::pair<int64_t, Buffer>> tail);
};

}  // namespace floe::parquet
