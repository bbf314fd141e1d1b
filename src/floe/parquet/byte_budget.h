// ByteBudget: the fetched-but-not-yet-decoded bytes a scan holds. A reader waits before fetching
// while others hold more than the bound; one reader alone always proceeds, so a file larger than
// the bound is still read. Thread-safe.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace floe::parquet {

class ByteBudget {
 public:
  explicit ByteBudget(int64_t limit) : limit_(std::max<int64_t>(limit, 1)) {}

  void Reserve(int64_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return used_ == 0 || used_ + n <= limit_; });
    used_ += n;
    peak_ = std::max(peak_, used_);
  }
  // Replaces a reservation of `from` bytes by `to` (the bytes actually fetched).
  void Adjust(int64_t from, int64_t to) {
    std::lock_guard lock(mu_);
    used_ += to - from;
    peak_ = std::max(peak_, used_);
  }
  void Release(int64_t n) {
    {
      std::lock_guard lock(mu_);
      used_ -= n;
    }
    cv_.notify_all();
  }
  int64_t peak() const {
    std::lock_guard lock(mu_);
    return peak_;
  }

 private:
  const int64_t limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t used_ = 0;
  int64_t peak_ = 0;
};

}  // namespace floe::parquet
