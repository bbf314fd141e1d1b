#include "floe/base/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace floe {

ThreadPool::ThreadPool(size_t threads) {
  threads = std::max<size_t>(1, threads);
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Run(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

size_t Cores() {
  static const size_t cores = [] {
    if (const char* env = std::getenv("FLOE_THREADS"); env != nullptr) {
      char* end = nullptr;
      const long n = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && n > 0) return static_cast<size_t>(std::min(n, 1024L));
    }
    // The CPUs this process may run on (taskset, a container's cpuset), as the JVM's
    // availableProcessors() counts them; the machine's when the affinity cannot be read.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
      return static_cast<size_t>(CPU_COUNT(&set));
    return static_cast<size_t>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return cores;
}

}  // namespace floe
