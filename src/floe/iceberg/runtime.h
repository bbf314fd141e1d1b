// Runtime: the state the reads of one warehouse share, made explicit instead of living in hidden
// process globals -- the threads scans read files on, the threads a file's decoding (and a
// write's partitions' encoding) fans out to, the Parquet footer cache, and the Iceberg metadata
// caches (bytes, and what was decoded from them). OpenWarehouse makes one per warehouse and FileIO
// carries it, so every read of the warehouse finds it where it already goes; a test or benchmark
// that wants cold caches makes its own. The pools start their threads on first use. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "floe/base/thread_pool.h"
#include "floe/iceberg/decoded_metadata.h"
#include "floe/iceberg/metadata_cache.h"
#include "floe/parquet/footer_cache.h"

namespace floe::iceberg {

struct RuntimeOptions {
  // Files a scan reads at once: as many as the default request budget keeps in flight (the
  // threads mostly wait on the store).
  size_t scan_threads = 64;
  // Threads one file's decoding may fan out to; 0: the machine's cores.
  size_t decode_threads = 0;
  int64_t footer_cache_bytes = parquet::FooterCache::kDefaultCapacityBytes;
  int64_t metadata_cache_bytes = MetadataCache::kDefaultCapacityBytes;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  ~Runtime();

  static std::shared_ptr<Runtime> Make(RuntimeOptions options = {}) {
    return std::make_shared<Runtime>(options);
  }

  // What the runtime was made with; the caches' capacities may have been changed since.
  const RuntimeOptions& options() const { return options_; }

  // Tasks on these pools must not wait on tasks of the same pool (ThreadPool does not grow):
  // scan workers wait on decode tasks, never the other way round.
  ThreadPool& scan_pool();
  ThreadPool& decode_pool();
  // The number of threads decode_pool() has (known before it starts).
  size_t decode_threads() const;

  parquet::FooterCache& footer_cache() { return footer_cache_; }
  MetadataCache& metadata_cache() { return metadata_cache_; }
  DecodedMetadataCache& decoded_metadata() { return decoded_metadata_; }

  // Gives both caches back the capacities of options() (RESET of their settings).
  void RestoreCacheCapacities();
  // Empties every cache: the next read of anything is cold.
  void ClearCaches();

 private:
  RuntimeOptions options_;
  parquet::FooterCache footer_cache_;
  MetadataCache metadata_cache_;
  DecodedMetadataCache decoded_metadata_;
  std::once_flag scan_once_, decode_once_;
  std::unique_ptr<ThreadPool> scan_pool_, decode_pool_;
};

using RuntimePtr = std::shared_ptr<Runtime>;

// Turns a runtime's metadata caches off (and empties them) for its lifetime: for measuring or
// testing every metadata request of a cold read.
class ScopedMetadataCacheOff {
 public:
  explicit ScopedMetadataCacheOff(Runtime& runtime)
      : cache_(runtime.metadata_cache()), was_(cache_.enabled()) {
    cache_.set_enabled(false);
    cache_.Clear();
    runtime.decoded_metadata().Clear();
  }
  ~ScopedMetadataCacheOff() { cache_.set_enabled(was_); }
  ScopedMetadataCacheOff(const ScopedMetadataCacheOff&) = delete;
  ScopedMetadataCacheOff& operator=(const ScopedMetadataCacheOff&) = delete;

 private:
  MetadataCache& cache_;
  bool was_;
};

}  // namespace floe::iceberg
