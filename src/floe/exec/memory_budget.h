// MemoryBudget: the bytes one statement's big consumers (a join's build side, a hash aggregate's
// groups, a sort's buffered rows) may hold at once -- SET memory_limit. Consumers account what
// they hold through a MemoryReservation and, once the budget is exceeded, spill to disk
// (spill_file.h) instead of growing. Estimates, not allocator counts: ColumnBytes counts a
// column's buffers, strings' bytes included. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "floe/columnar/column.h"

namespace floe::exec {

class MemoryBudget {
 public:
  // `limit` <= 0: no limit.
  explicit MemoryBudget(int64_t limit) : limit_(limit) {}

  int64_t limit() const { return limit_; }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  // Whether holding `more` bytes beside what is held would pass the limit.
  bool WouldExceed(int64_t more) const { return limit_ > 0 && used() + more > limit_; }
  void Add(int64_t delta) { used_.fetch_add(delta, std::memory_order_relaxed); }

 private:
  int64_t limit_;
  std::atomic<int64_t> used_{0};
};

// What one consumer holds of a budget; returned to it when the reservation ends. Not
// thread-safe (one per consumer); a null budget accounts nothing.
class MemoryReservation {
 public:
  explicit MemoryReservation(MemoryBudget* budget = nullptr) : budget_(budget) {}
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;
  ~MemoryReservation() { Set(0); }

  // The consumer now holds `bytes`.
  void Set(int64_t bytes) {
    if (budget_ != nullptr) budget_->Add(bytes - held_);
    held_ = bytes;
  }
  void Grow(int64_t bytes) { Set(held_ + bytes); }
  int64_t held() const { return held_; }
  // Whether the budget (everyone's reservations) is past its limit.
  bool Exceeded() const { return budget_ != nullptr && budget_->WouldExceed(0); }
  // Whether holding `more` bytes beside the budget's current use would pass the limit.
  bool WouldExceed(int64_t more) const { return budget_ != nullptr && budget_->WouldExceed(more); }
  MemoryBudget* budget() const { return budget_; }

 private:
  MemoryBudget* budget_;
  int64_t held_ = 0;
};

// Bytes of a column's buffers (children and dictionary included).
int64_t ColumnBytes(const columnar::Column& c);
// Bytes of a batch's present columns.
int64_t BatchBytes(const columnar::RecordBatch& b);
// The default memory limit: `percent` of the machine's physical memory (0 when unknown).
int64_t PhysicalMemoryShare(double percent);

}  // namespace floe::exec
