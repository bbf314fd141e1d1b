// ParallelFor: runs fn(0) .. fn(n - 1) on a pool's workers and the calling thread at once, and
// returns when every call has returned. The caller takes items too, so it never waits on a pool
// whose workers are all busy (nor deadlocks when called from one of its tasks): a worker that
// starts after the items are gone returns at once. Calls may run in any order and concurrently;
// `fn` must be safe for that.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

#include "floe/base/thread_pool.h"

namespace floe {

template <typename Fn>
void ParallelFor(ThreadPool& pool, size_t n, Fn&& fn) {
  if (n == 0) return;
  // Shared with the workers, which may start after this call returned: they touch only this.
  struct State {
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
  };
  auto state = std::make_shared<State>();
  auto run = [state, n, &fn] {
    for (size_t i; (i = state->next.fetch_add(1)) < n;) {
      fn(i);
      std::lock_guard lock(state->mu);
      if (++state->done == n) state->cv.notify_all();
    }
  };
  const size_t helpers = std::min(pool.size(), n - 1);
  for (size_t h = 0; h < helpers; ++h) pool.Post(run);
  run();
  std::unique_lock lock(state->mu);
  state->cv.wait(lock, [&] { return state->done == n; });
}

}  // namespace floe
