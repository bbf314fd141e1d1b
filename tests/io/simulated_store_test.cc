// SimulatedStore: the virtual-time model driven with injected times (exact, no clocks involved),
// the settings parser, and the store's batch mechanics. No assertion here depends on wall time.
#include "floe/io/simulated_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "floe/io/mem_store.h"

namespace floe::io {
namespace {

SimulationOptions NoJitter() {
  SimulationOptions o;
  o.jitter_sigma = 0;
  return o;
}

TEST(SimulationModel, DefaultsComeFromTheReference) {
  SimulationOptions o;
  EXPECT_EQ(o.first_byte_ms, 25);
  EXPECT_EQ(o.mbps, 90);
  EXPECT_EQ(o.total_mbps, 1250);
  EXPECT_EQ(o.concurrency, 64);
  // p99 of the lognormal first byte = median * exp(2.326 sigma): 2-3x the median.
  double p99_ratio = std::exp(2.326 * o.jitter_sigma);
  EXPECT_GT(p99_ratio, 2.0);
  EXPECT_LT(p99_ratio, 3.0);
}

TEST(SimulationModel, RequestsBeyondConcurrencyWaitForAFreeSlot) {
  SimulationOptions o = NoJitter();
  o.mbps = 0;
  o.total_mbps = 0;
  SimulationModel model(o);
  for (int i = 0; i < 128; ++i) {
    auto slot = model.Schedule(0, 0, model.DrawFirstByteMs());
    if (i < 64) {
      EXPECT_EQ(slot.start_ms, 0) << i;
      EXPECT_EQ(slot.finish_ms, 25) << i;
    } else {
      EXPECT_EQ(slot.start_ms, 25) << i;
      EXPECT_EQ(slot.finish_ms, 50) << i;
    }
  }
  // The 129th waits for the third round.
  EXPECT_EQ(model.Schedule(0, 0, 25).start_ms, 50);
}

TEST(SimulationModel, An128RequestBatchAtConcurrency64TakesTwoLatencyRounds) {
  SimulationOptions o = NoJitter();
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 128, 0, 64), 50);
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 64, 0, 64), 25);
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 65, 0, 64), 50);
  // The batch's own limit below the store's: 128 / 8 = 16 rounds.
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 128, 0, 8), 400);
  // A limit above the store's concurrency does not help: still 2 rounds.
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 128, 0, 1000), 50);
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 0, 0, 64), 0);
}

TEST(SimulationModel, PerRequestBandwidth) {
  SimulationOptions o = NoJitter();
  SimulationModel model(o);
  // 9 MB at 90 MB/s = 100 ms after the first byte.
  auto slot = model.Schedule(10, 9000000, 25);
  EXPECT_DOUBLE_EQ(slot.start_ms, 10);
  EXPECT_DOUBLE_EQ(slot.finish_ms, 135);
  // A 64 KiB GET alone: 25 ms + 65536 B / 90 kB/ms.
  EXPECT_DOUBLE_EQ(ModelBatchMs(o, 1, 65536, 1), 25 + 65536 / 90000.0);
}

TEST(SimulationModel, AggregateCapBindsOnlyWhenTheLinkIsTheBottleneck) {
  SimulationOptions o = NoJitter();
  // 4 x 10 MB at once: 4 x 90 = 360 MB/s < 1250 MB/s, so each runs at its own 90 MB/s.
  {
    SimulationModel model(o);
    for (int i = 0; i < 4; ++i) {
      EXPECT_DOUBLE_EQ(model.Schedule(0, 10000000, 25).finish_ms, 25 + 10000000 / 90000.0);
    }
  }
  // 64 x 10 MB at once: 640 MB over a 1250 MB/s link takes 512 ms, more than 111 ms each.
  {
    SimulationModel model(o);
    double last = 0;
    for (int i = 0; i < 64; ++i) last = model.Schedule(0, 10000000, 25).finish_ms;
    EXPECT_NEAR(last, 25 + 512, 1e-9);
  }
  EXPECT_NEAR(ModelBatchMs(o, 64, 10000000, 64), 537, 1e-9);
  // With the cap off, the same batch finishes with its per-request bandwidth.
  SimulationOptions uncapped = o;
  uncapped.total_mbps = 0;
  EXPECT_NEAR(ModelBatchMs(uncapped, 64, 10000000, 64), 25 + 10000000 / 90000.0, 1e-9);
}

// The link carries one transfer at a time, in whatever free time it has from the transfer's first
// byte on: a request with a late first byte holds up none that came after it.
TEST(SimulationModel, ALateFirstByteHoldsUpNoOtherRequest) {
  SimulationOptions o = NoJitter();
  o.mbps = 0;  // only the 1250 MB/s link limits: 9 MB take 7.2 ms of it, 50 MB 40 ms
  SimulationModel model(o);
  EXPECT_NEAR(model.Schedule(0, 9'000'000, 60).finish_ms, 60 + 7.2, 1e-9);
  // First byte at 20: the link is free until 60.
  EXPECT_NEAR(model.Schedule(0, 9'000'000, 20).finish_ms, 20 + 7.2, 1e-9);
  // First byte at 25: 32.8 ms of link from 27.2 to 60, then the rest (7.2 ms) after 67.2.
  EXPECT_NEAR(model.Schedule(0, 50'000'000, 25).finish_ms, 67.2 + 7.2, 1e-9);
  // First byte at 10: the link is free from 10 to 20.
  EXPECT_NEAR(model.Schedule(0, 1'250'000, 10).finish_ms, 10 + 1, 1e-9);
  // Busy from 20 to 74.4 without a gap now.
  EXPECT_NEAR(model.Schedule(0, 1'250'000, 21).finish_ms, 74.4 + 1, 1e-9);
  // Before 20 only 11..20 is left.
  EXPECT_NEAR(model.Schedule(0, 1'250'000, 12).finish_ms, 12 + 1, 1e-9);
}

TEST(SimulationModel, AnIdleStoreStartsARequestWhenItIsSubmitted) {
  SimulationOptions o = NoJitter();
  o.concurrency = 1;
  SimulationModel model(o);
  EXPECT_EQ(model.Schedule(100, 0, 25).start_ms, 100);
  EXPECT_EQ(model.Schedule(110, 0, 25).start_ms, 125);  // queued behind the first
  EXPECT_EQ(model.Schedule(500, 0, 25).start_ms, 500);  // idle again
}

TEST(SimulationModel, JitterIsLognormalAroundTheMedianAndSeeded) {
  SimulationOptions o;
  SimulationModel a(o);
  SimulationModel b(o);
  std::vector<double> draws;
  for (int i = 0; i < 20001; ++i) {
    double x = a.DrawFirstByteMs();
    EXPECT_EQ(x, b.DrawFirstByteMs());
    draws.push_back(x);
  }
  std::sort(draws.begin(), draws.end());
  double median = draws[draws.size() / 2];
  double p99 = draws[draws.size() * 99 / 100];
  EXPECT_NEAR(median, 25, 25 * 0.03);
  EXPECT_GT(p99 / median, 2.0);
  EXPECT_LT(p99 / median, 3.0);
  SimulationOptions other = o;
  other.seed = 2;
  SimulationModel c(other);
  SimulationModel d(o);
  EXPECT_NE(c.DrawFirstByteMs(), d.DrawFirstByteMs());
  // Seeded batches repeat exactly.
  EXPECT_EQ(ModelBatchMs(o, 300, 65536, 32), ModelBatchMs(o, 300, 65536, 32));
  EXPECT_GT(ModelBatchMs(o, 300, 65536, 32), ModelBatchMs(NoJitter(), 300, 65536, 32) * 0.5);
}

TEST(SimulationOptionsParse, EmptyMeansDefaults) {
  auto o = ParseSimulationOptions("");
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(*o, SimulationOptions{});
}

TEST(SimulationOptionsParse, EverySetting) {
  auto o = ParseSimulationOptions(
      "first_byte_ms=12.5, mbps=100,concurrency=8,jitter=0.5,total_mbps=0,seed=42");
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(o->first_byte_ms, 12.5);
  EXPECT_EQ(o->mbps, 100);
  EXPECT_EQ(o->concurrency, 8);
  EXPECT_EQ(o->jitter_sigma, 0.5);
  EXPECT_EQ(o->total_mbps, 0);
  EXPECT_EQ(o->seed, 42u);
  // A subset keeps the other defaults; the canonical form parses back.
  auto partial = ParseSimulationOptions("first_byte_ms=1");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->mbps, 90);
  auto back = ParseSimulationOptions(FormatSimulationOptions(*o));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, *o);
  EXPECT_EQ(FormatSimulationOptions(SimulationOptions{}),
            "first_byte_ms=25,jitter=0.37,mbps=90,total_mbps=1250,concurrency=64,seed=1");
}

TEST(SimulationOptionsParse, BadInputNamesTheSetting) {
  struct Case {
    const char* spec;
    const char* needle;
  };
  for (const Case& c : {
           Case{"foo=1", "unknown --simulate-s3 setting 'foo' (known: first_byte_ms, jitter"},
           Case{"mbps=abc", "bad --simulate-s3 value 'abc' for 'mbps'"},
           Case{"mbps=-1", "'-1' for 'mbps'"},
           Case{"first_byte_ms=", "value '' for 'first_byte_ms'"},
           Case{"concurrency=0", "'0' for 'concurrency'"},
           Case{"concurrency=2.5", "'2.5' for 'concurrency'"},
           Case{"jitter=nan", "'nan' for 'jitter'"},
           Case{"seed=-3", "'-3' for 'seed'"},
           Case{"mbps", "setting 'mbps' has no value"},
           Case{"mbps=90,bogus", "unknown --simulate-s3 setting 'bogus'"},
       }) {
    auto o = ParseSimulationOptions(c.spec);
    ASSERT_FALSE(o) << c.spec;
    EXPECT_EQ(o.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(o.error().message.find(c.needle), std::string::npos)
        << c.spec << " -> " << o.error().message;
  }
}

TEST(SimulationOptionsParse, HelpDocumentsEverySettingAndItsSource) {
  std::string help = SimulationHelp();
  for (const char* s :
       {"first_byte_ms [25]", "jitter [0.37]", "mbps [90]", "total_mbps [1250]", "concurrency [64]",
        "seed [1]", "25.3 ms", "85-90 MB/s", "59-178 ms", "10 Gbit/s"}) {
    EXPECT_NE(help.find(s), std::string::npos) << s;
  }
}

// Counts reads the inner store has started, to check the batch's in-flight limit.
class StartProbe final : public ObjectStore {
 public:
  explicit StartProbe(StorePtr inner) : inner_(std::move(inner)) {}
  Result<ObjectInfo> Head(std::string_view key) override { return inner_->Head(key); }
  Result<Buffer> Get(std::string_view key, Range range) override {
    ++started;
    return inner_->Get(key, range);
  }
  Result<PutInfo> Put(std::string_view key, ByteView data) override {
    return inner_->Put(key, data);
  }
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override {
    return inner_->PutIfAbsent(key, data);
  }
  Result<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override {
    return inner_->List(prefix, token, max_keys);
  }
  Status Delete(std::string_view key) override { return inner_->Delete(key); }
  std::string Uri() const override { return inner_->Uri(); }

  std::atomic<int> started{0};

 private:
  StorePtr inner_;
};

SimulationOptions Fast() {
  SimulationOptions o;
  o.first_byte_ms = 0.3;
  return o;
}

StorePtr Mem(const std::string& name) {
  MemStore::Forget(name);
  return *MemStore::Open(name);
}

TEST(SimulatedStore, BatchKeepsAtMostMaxInFlightReadsOutstanding) {
  auto probe = std::make_shared<StartProbe>(Mem("sim-inflight"));
  SimulatedStore store(probe, Fast());
  ASSERT_TRUE(store.Put("o", AsBytes(std::string(1000, 'x'))));
  constexpr int kLimit = 5;
  std::vector<ReadRequest> requests;
  for (int i = 0; i < 60; ++i) requests.push_back({"o", Range::Bounded(i, 10)});
  std::mutex mu;
  int delivered = 0;
  int worst = 0;
  auto pending = store.SubmitReads(
      std::move(requests),
      [&](size_t, Result<Buffer> r) {
        std::lock_guard lock(mu);
        EXPECT_TRUE(r);
        ++delivered;
        // Outstanding = started - delivered before this one; the delivery started the next.
        worst = std::max(worst, probe->started.load() - (delivered - 1));
      },
      BatchOptions{kLimit});
  pending->Wait();
  EXPECT_EQ(delivered, 60);
  EXPECT_EQ(probe->started.load(), 60);
  EXPECT_LE(worst, kLimit + 1);  // the next request may start just before this callback runs
}

TEST(SimulatedStore, CallbacksMaySubmitMoreReads) {
  SimulatedStore store(Mem("sim-nested"), Fast());
  ASSERT_TRUE(store.Put("a", AsBytes("hello")));
  std::mutex mu;
  std::vector<std::unique_ptr<PendingReads>> nested;
  std::atomic<int> inner_done{0};
  auto outer = store.SubmitReads(
      {{"a", Range::Whole()}, {"a", Range::Bounded(1, 2)}},
      [&](size_t, Result<Buffer> r) {
        ASSERT_TRUE(r);
        auto p = store.SubmitReads({{"a", Range::Suffix(3)}}, [&](size_t, Result<Buffer> r2) {
          EXPECT_TRUE(r2);
          if (r2) {
            EXPECT_EQ(r2->ToString(), "llo");
          }
          ++inner_done;
        });
        std::lock_guard lock(mu);
        nested.push_back(std::move(p));
      },
      BatchOptions{2});
  outer->Wait();
  std::lock_guard lock(mu);
  for (auto& p : nested) p->Wait();
  EXPECT_EQ(inner_done.load(), 2);
}

TEST(SimulatedStore, ErrorsAndRejectedReadsArriveAtTheirIndex) {
  SimulatedStore store(Mem("sim-errors"), Fast());
  ASSERT_TRUE(store.Put("a", AsBytes("hello")));
  auto results = store.ReadAll({{"missing", Range::Whole()},
                                {"a", Range::Bounded(0, 0)},
                                {"../x", Range::Whole()},
                                {"a", Range::Bounded(10, 1)},
                                {"a", Range::Whole()}});
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(results[1].error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(results[2].error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(results[3].error().kind, ErrorKind::kInvalidInput);
  ASSERT_TRUE(results[4]);
  EXPECT_EQ(results[4]->ToString(), "hello");
}

TEST(SimulatedStore, TheLastReferenceMayGoWithTheBatch) {
  // The callback owns the store; once the caller lets go, the store is destroyed by whichever
  // thread drops the batch last, possibly the store's own timer thread.
  for (int i = 0; i < 20; ++i) {
    auto store = std::make_shared<SimulatedStore>(Mem("sim-last-ref"), Fast());
    ASSERT_TRUE(store->Put("a", AsBytes("x")));
    std::atomic<int> done{0};
    auto pending = store->SubmitReads({{"a", Range::Whole()}, {"a", Range::Whole()}},
                                      [store, &done](size_t, Result<Buffer> r) {
                                        EXPECT_TRUE(r);
                                        ++done;
                                      });
    store.reset();
    pending->Wait();
    pending.reset();
    EXPECT_EQ(done.load(), 2);
  }
}

TEST(SimulatedStore, ManyBatchesFromManyThreads) {
  SimulatedStore store(Mem("sim-threads"), Fast());
  ASSERT_TRUE(store.Put("a", AsBytes("0123456789")));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        std::vector<ReadRequest> requests;
        for (int i = 0; i < 20; ++i) requests.push_back({"a", Range::Bounded((t + i) % 10, 1)});
        auto results = store.ReadAll(std::move(requests), BatchOptions{4});
        for (int i = 0; i < 20; ++i) {
          if (!results[i] || results[i]->ToString() != std::to_string((t + i) % 10)) ++wrong;
        }
        if (!store.Get("a", Range::Suffix(1))) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace floe::io
