// ThreadPool: a fixed set of worker threads running submitted tasks in FIFO order.
// Thread-safe; the destructor finishes queued tasks and joins the workers. Tasks must not wait on
// other tasks of the same pool (the pool does not grow), so blocking IO fan-out uses its own pool.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace floe {

// The hardware threads this process may run on (its CPU affinity: `taskset -c 0 floe ...` runs
// floe on one core), at least 1, read once: glibc reads /sys on every
// std::thread::hardware_concurrency() call, tens of microseconds each. The environment variable
// FLOE_THREADS, a positive number, says it instead: a task of a distributed engine (a Ray task,
// a Spark executor's task) runs floe on the cores the engine gave it, not the machine's.
size_t Cores();

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return workers_.size(); }

  // Runs `task` on a worker; never blocks.
  void Post(std::function<void()> task);

  // Runs `fn` on a worker and returns a future of its result.
  template <typename Fn>
  auto Submit(Fn fn) -> std::future<std::invoke_result_t<Fn>> {
    using R = std::invoke_result_t<Fn>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(fn));
    auto future = task->get_future();
    Post([task] { (*task)(); });
    return future;
  }

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace floe
