#include "floe/base/thread_pool.h"

#include "floe/base/parallel_for.h"

#include <atomic>
#include <set>

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(ThreadPool, RunsEveryTaskAndReturnsResults) {
  ThreadPool pool(4);
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 100; ++i) futures.push_back(pool.Submit([i] { return i * i; }));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(futures[i].get(), i * i);
}

TEST(ThreadPool, DestructorDrainsQueuedTasks) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 50; ++i) pool.Post([&] { done.fetch_add(1); });
  }
  EXPECT_EQ(done.load(), 50);
}

TEST(ThreadPool, UsesSeveralThreads) {
  ThreadPool pool(3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  std::vector<std::future<void>> fs;
  for (int i = 0; i < 3; ++i) {
    fs.push_back(pool.Submit([&] {
      {
        std::lock_guard lock(mu);
        ids.insert(std::this_thread::get_id());
      }
      arrived.fetch_add(1);
      // Hold each worker until all three tasks run at once, proving three distinct threads.
      while (arrived.load() < 3) std::this_thread::yield();
    }));
  }
  for (auto& f : fs) f.get();
  EXPECT_EQ(ids.size(), 3u);
}

TEST(ParallelFor, RunsEachIndexOnceAndReturnsWhenAllHaveRun) {
  ThreadPool pool(3);
  for (size_t n : {0, 1, 2, 100}) {
    std::vector<std::atomic<int>> runs(n);
    ParallelFor(pool, n, [&](size_t i) { runs[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
  }
}

// Called from the pool's only worker, the caller does the work itself rather than wait on it.
TEST(ParallelFor, DoesNotWaitOnABusyPool) {
  ThreadPool pool(1);
  auto done = pool.Submit([&] {
    std::atomic<int> sum{0};
    ParallelFor(pool, 10, [&](size_t i) { sum.fetch_add(static_cast<int>(i)); });
    return sum.load();
  });
  EXPECT_EQ(done.get(), 45);
}

TEST(ThreadPool, SubmitPropagatesExceptionsThroughTheFuture) {
  ThreadPool pool(1);
  auto f = pool.Submit([]() -> int { throw std::runtime_error("boom"); });
  EXPECT_THROW(f.get(), std::runtime_error);
}

}  // namespace
}  // namespace floe
