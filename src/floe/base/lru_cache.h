// LruCache: a thread-safe map bounded by the bytes its entries are charged, evicting the least
// recently used first. The read path's process-wide caches (Parquet footers, Iceberg metadata
// files) are built on it; each can be disabled, cleared and inspected (hits, misses, bytes).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace floe {

template <typename Key, typename Value>
class LruCache {
 public:
  explicit LruCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // A copy of the entry (values are cheap to copy: buffers share their bytes), or nothing.
  std::optional<Value> Find(const Key& key) {
    std::lock_guard lock(mu_);
    if (!enabled_) return std::nullopt;
    auto it = slots_.find(key);
    if (it == slots_.end()) {
      ++misses_;
      return std::nullopt;
    }
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second.value;
  }

  // Keeps `value`, charged `charge` bytes, replacing an entry of the same key; an entry larger
  // than the whole capacity is not kept.
  void Insert(Key key, Value value, int64_t charge) {
    std::lock_guard lock(mu_);
    if (!enabled_ || charge > capacity_) return;
    EraseLocked(key);
    lru_.push_front(key);
    slots_.emplace(std::move(key), Slot{std::move(value), charge, lru_.begin()});
    bytes_ += charge;
    EvictLocked();
  }

  void Erase(const Key& key) {
    std::lock_guard lock(mu_);
    EraseLocked(key);
  }

  // Drops every entry and zeroes the counters.
  void Clear() {
    std::lock_guard lock(mu_);
    slots_.clear();
    lru_.clear();
    bytes_ = 0;
    hits_ = 0;
    misses_ = 0;
  }

  // A disabled cache finds nothing and keeps nothing.
  void set_enabled(bool enabled) {
    std::lock_guard lock(mu_);
    enabled_ = enabled;
  }
  bool enabled() const {
    std::lock_guard lock(mu_);
    return enabled_;
  }
  void set_capacity_bytes(int64_t capacity_bytes) {
    std::lock_guard lock(mu_);
    capacity_ = capacity_bytes;
    EvictLocked();
  }
  int64_t capacity_bytes() const {
    std::lock_guard lock(mu_);
    return capacity_;
  }

  int64_t bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
  }
  int64_t entries() const {
    std::lock_guard lock(mu_);
    return static_cast<int64_t>(slots_.size());
  }
  int64_t hits() const {
    std::lock_guard lock(mu_);
    return hits_;
  }
  int64_t misses() const {
    std::lock_guard lock(mu_);
    return misses_;
  }

 private:
  struct Slot {
    Value value;
    int64_t charge;
    typename std::list<Key>::iterator lru;
  };

  void EraseLocked(const Key& key) {
    auto it = slots_.find(key);
    if (it == slots_.end()) return;
    bytes_ -= it->second.charge;
    lru_.erase(it->second.lru);
    slots_.erase(it);
  }

  void EvictLocked() {
    while (bytes_ > capacity_ && !lru_.empty()) {
      auto it = slots_.find(lru_.back());
      bytes_ -= it->second.charge;
      slots_.erase(it);
      lru_.pop_back();
    }
  }

  mutable std::mutex mu_;
  bool enabled_ = true;
  int64_t capacity_;
  int64_t bytes_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  std::list<Key> lru_;  // most recent first
  std::map<Key, Slot> slots_;
};

}  // namespace floe
