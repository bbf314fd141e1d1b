#include "floe/parquet/footer_cache.h"

namespace floe::parquet {

FooterCache::FooterCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

FooterCache& FooterCache::Default() {
  static FooterCache* cache = new FooterCache();  // never destroyed: used until exit
  return *cache;
}

std::optional<FooterCache::Entry> FooterCache::Find(std::string_view path, uint64_t file_length) {
  std::lock_guard lock(mu_);
  if (!enabled_) return std::nullopt;
  auto it = slots_.find(Key(std::string(path), file_length));
  if (it == slots_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.entry;
}

void FooterCache::Insert(std::string_view path, uint64_t file_length, const FileReader& reader,
                         int64_t tail_offset, ByteView tail) {
  // The parsed footer costs roughly what its serialised form does; charge both.
  const int64_t footer_bytes = static_cast<int64_t>(file_length) - tail_offset;
  const int64_t charge = static_cast<int64_t>(tail.size()) + footer_bytes + 256;
  std::lock_guard lock(mu_);
  if (!enabled_ || charge > capacity_) return;
  Key key(std::string(path), file_length);
  auto it = slots_.find(key);
  if (it != slots_.end()) {
    bytes_ -= it->second.charge;
    lru_.erase(it->second.lru);
    slots_.erase(it);
  }
  lru_.push_front(key);
  slots_.emplace(std::move(key),
                 Slot{Entry{reader, tail_offset, Buffer::Copy(tail)}, charge, lru_.begin()});
  bytes_ += charge;
  EvictLocked();
}

void FooterCache::EvictLocked() {
  while (bytes_ > capacity_ && !lru_.empty()) {
    auto it = slots_.find(lru_.back());
    bytes_ -= it->second.charge;
    slots_.erase(it);
    lru_.pop_back();
  }
}

void FooterCache::Clear() {
  std::lock_guard lock(mu_);
  slots_.clear();
  lru_.clear();
  bytes_ = 0;
  hits_ = 0;
  misses_ = 0;
}

void FooterCache::set_enabled(bool enabled) {
  std::lock_guard lock(mu_);
  enabled_ = enabled;
}

bool FooterCache::enabled() const {
  std::lock_guard lock(mu_);
  return enabled_;
}

void FooterCache::set_capacity_bytes(int64_t capacity_bytes) {
  std::lock_guard lock(mu_);
  capacity_ = capacity_bytes;
  EvictLocked();
}

int64_t FooterCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}
int64_t FooterCache::entries() const {
  std::lock_guard lock(mu_);
  return static_cast<int64_t>(slots_.size());
}
int64_t FooterCache::hits() const {
  std::lock_guard lock(mu_);
  return hits_;
}
int64_t FooterCache::misses() const {
  std::lock_guard lock(mu_);
  return misses_;
}

}  // namespace floe::parquet
