// IntSet: a set of int64 values in one open-addressed array (linear probing, at most half full),
// for the many small sets a grouped COUNT(DISTINCT) keeps -- one per group -- where a node-based
// std::unordered_set allocates (and later frees) every value on its own. Starts empty, without
// an allocation. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace floe {

class IntSet {
 public:
  // Adds `v`; true when it was not in the set.
  bool Insert(int64_t v) {
    if (v == kEmpty) {
      if (has_empty_value_) return false;
      has_empty_value_ = true;
      ++size_;
      return true;
    }
    if (2 * (stored_ + 1) > slots_.size()) Grow();
    if (!Place(v)) return false;
    ++stored_;
    ++size_;
    return true;
  }

  size_t size() const { return size_; }
  // The slots held (for memory estimates): twice the values at most, eight at least once used.
  size_t capacity() const { return slots_.size(); }

  // Calls fn(v) for each value, in no particular order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    if (has_empty_value_) fn(kEmpty);
    for (int64_t s : slots_) {
      if (s != kEmpty) fn(s);
    }
  }

 private:
  // Marks a free slot; the value itself is kept aside (has_empty_value_).
  static constexpr int64_t kEmpty = INT64_MIN;

  // Puts v in its slot (the table has room); false when it was there.
  bool Place(int64_t v) {
    const size_t mask = slots_.size() - 1;
    // Fibonacci hashing: the product's high bits spread keys that differ in their low bits only.
    size_t i = static_cast<size_t>((static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL) >> shift_);
    while (slots_[i] != kEmpty) {
      if (slots_[i] == v) return false;
      i = (i + 1) & mask;
    }
    slots_[i] = v;
    return true;
  }

  void Grow() {
    std::vector<int64_t> old;
    old.swap(slots_);
    const size_t capacity = old.empty() ? 8 : old.size() * 2;
    slots_.assign(capacity, kEmpty);
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (int64_t v : old) {
      if (v != kEmpty) Place(v);
    }
  }

  std::vector<int64_t> slots_;
  int shift_ = 64;     // 64 - log2(capacity): the hash's top bits index the slots
  size_t stored_ = 0;  // values in slots_
  size_t size_ = 0;    // stored_, and kEmpty's value when held
  bool has_empty_value_ = false;
};

}  // namespace floe
