#include "floe/iceberg/runtime.h"

namespace floe::iceberg {

Runtime::Runtime(RuntimeOptions options)
    : options_(options),
      footer_cache_(options.footer_cache_bytes),
      metadata_cache_(options.metadata_cache_bytes),
      decoded_metadata_(&metadata_cache_) {}

// The pools join their threads first, while the caches their tasks may touch still exist.
Runtime::~Runtime() {
  scan_pool_.reset();
  decode_pool_.reset();
}

ThreadPool& Runtime::scan_pool() {
  std::call_once(scan_once_, [this] {
    scan_pool_ = std::make_unique<ThreadPool>(std::max<size_t>(1, options_.scan_threads));
  });
  return *scan_pool_;
}

size_t Runtime::decode_threads() const {
  return options_.decode_threads > 0 ? options_.decode_threads : Cores();
}

ThreadPool& Runtime::decode_pool() {
  std::call_once(decode_once_,
                 [this] { decode_pool_ = std::make_unique<ThreadPool>(decode_threads()); });
  return *decode_pool_;
}

void Runtime::RestoreCacheCapacities() {
  footer_cache_.set_capacity_bytes(options_.footer_cache_bytes);
  metadata_cache_.set_capacity_bytes(options_.metadata_cache_bytes);
}

void Runtime::ClearCaches() {
  footer_cache_.Clear();
  metadata_cache_.Clear();
  decoded_metadata_.Clear();
}

}  // namespace floe::iceberg
