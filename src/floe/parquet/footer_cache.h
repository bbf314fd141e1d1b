// FooterCache: parsed footers and the raw page-index bytes of Parquet files, keyed by (path,
// length) so a rewritten object of another length is never served stale. Bounded in bytes (LRU);
// thread-safe. The read path consults the process-wide Default() unless told otherwise; tests and
// benchmarks disable or Clear() it so every measured read starts cold.
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

class FooterCache {
 public:
  // 64 MiB holds the footers and page indexes of thousands of typical data files.
  static constexpr int64_t kDefaultCapacityBytes = int64_t{64} << 20;

  struct Entry {
    FileReader reader;  // the parsed footer
    // What earlier reads fetched of the file's page index and footer, by file offset: the footer
    // always, and the column and offset indexes those reads used.
    std::vector<std::pair<int64_t, Buffer>> tail;
  };

  explicit FooterCache(int64_t capacity_bytes = kDefaultCapacityBytes) : lru_(capacity_bytes) {}

  // The cache every scan in this process shares by default.
  static FooterCache& Default();

  std::optional<Entry> Find(std::string_view path, uint64_t file_length) {
    return lru_.Find(Key(std::string(path), file_length));
  }
  // Keeps `reader` and `tail` (private copies, see FetchedBytes::CopiesWithin); entries larger
  // than the capacity are not kept.
  void Insert(std::string_view path, uint64_t file_length, const FileReader& reader,
              std::vector<std::pair<int64_t, Buffer>> tail);
  void Clear() { lru_.Clear(); }

  // A disabled cache finds nothing and keeps nothing.
  void set_enabled(bool enabled) { lru_.set_enabled(enabled); }
  bool enabled() const { return lru_.enabled(); }
  void set_capacity_bytes(int64_t capacity_bytes) { lru_.set_capacity_bytes(capacity_bytes); }

  int64_t bytes() const { return lru_.bytes(); }
  int64_t entries() const { return lru_.entries(); }
  int64_t hits() const { return lru_.hits(); }
  int64_t misses() const { return lru_.misses(); }

 private:
  using Key = std::pair<std::string, uint64_t>;
  LruCache<Key, Entry> lru_;
};

}  // namespace floe::parquet
