// RequestGate: the request budget of one scan -- a counting semaphore over requests in flight,
// shared by every file the scan reads, so "64 in flight" holds across files and not per file.
// Acquire takes all its permits at once (no partial holds, so no deadlock). Thread-safe.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace floe::parquet {

class RequestGate {
 public:
  explicit RequestGate(int capacity) : capacity_(std::max(1, capacity)), free_(capacity_) {}

  int capacity() const { return capacity_; }

  // Takes min(n, capacity) permits, waiting until they are free; returns how many it took.
  int Acquire(int n) {
    n = std::clamp(n, 1, capacity_);
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return free_ >= n; });
    free_ -= n;
    return n;
  }
  void Release(int n) {
    {
      std::lock_guard lock(mu_);
      free_ += n;
    }
    cv_.notify_all();
  }

 private:
  const int capacity_;
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
};

}  // namespace floe::parquet
