// CountingStore: exact counts for a scripted sequence of requests, failures included.
#include "floe/io/counting_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "floe/io/fault_store.h"
#include "floe/io/local_store.h"
#include "floe/io/mem_store.h"
#include "floe/io/simulated_store.h"
#include "support/temp_dir.h"

namespace floe::io {

// Readable failures: gtest finds these by argument-dependent lookup.
void PrintTo(const RequestCounts& c, std::ostream* os) {
  *os << c.ToJson() << " failed=" << c.failed << " parts=" << c.multipart_parts
      << " bytes_read=" << c.bytes_read << " bytes_written=" << c.bytes_written
      << " objects_read=" << c.objects_read;
}
void PrintTo(const ObjectCounts& c, std::ostream* os) {
  *os << "{gets=" << c.gets << " heads=" << c.heads << " bytes_read=" << c.bytes_read << "}";
}

namespace {

StorePtr FreshMem(const std::string& name) {
  MemStore::Forget(name);
  auto s = MemStore::Open(name);
  EXPECT_TRUE(s);
  return *s;
}

// Reports every Put as a multipart upload of `parts` parts, as S3Store does above its threshold.
class MultipartStore final : public ObjectStore {
 public:
  MultipartStore(StorePtr inner, uint32_t parts) : inner_(std::move(inner)), parts_(parts) {}
  Result<ObjectInfo> Head(std::string_view key) override { return inner_->Head(key); }
  Result<Buffer> Get(std::string_view key, Range range) override { return inner_->Get(key, range); }
  Result<PutInfo> Put(std::string_view key, ByteView data) override {
    FLOE_RETURN_IF_ERROR(inner_->Put(key, data));
    return PutInfo{parts_};
  }
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override {
    return inner_->PutIfAbsent(key, data);
  }
  Result<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override {
    return inner_->List(prefix, token, max_keys);
  }
  Status Delete(std::string_view key) override { return inner_->Delete(key); }
  std::string Uri() const override { return inner_->Uri(); }

 private:
  StorePtr inner_;
  uint32_t parts_;
};

TEST(CountingStore, CountsAScriptedSequenceExactly) {
  auto store = std::make_shared<CountingStore>(FreshMem("counting-script"), true);
  ASSERT_TRUE(store->Put("t/a.parquet", AsBytes("0123456789")));   // PUT 10 B
  ASSERT_TRUE(store->Put("t/b.parquet", AsBytes("abcde")));        // PUT 5 B
  ASSERT_FALSE(store->PutIfAbsent("t/a.parquet", AsBytes("zz")));  // PUT, conflict: failed
  ASSERT_TRUE(store->PutIfAbsent("t/c.json", AsBytes("{}")));      // PUT 2 B
  ASSERT_TRUE(store->Get("t/a.parquet"));                          // GET 10 B
  ASSERT_TRUE(store->Get("t/a.parquet", Range::Bounded(2, 3)));    // GET 3 B
  ASSERT_TRUE(store->Get("t/b.parquet", Range::Suffix(2)));        // GET 2 B
  ASSERT_FALSE(store->Get("t/missing.parquet"));                   // GET 404: failed
  ASSERT_FALSE(store->Get("t/a.parquet", Range::Bounded(50, 1)));  // GET 416: failed
  ASSERT_TRUE(store->Head("t/a.parquet"));                         // HEAD
  ASSERT_FALSE(store->Head("t/missing.parquet"));                  // HEAD 404: failed
  ASSERT_TRUE(store->List("t/"));                                  // LIST
  ASSERT_TRUE(store->Delete("t/b.parquet"));                       // DELETE
  ASSERT_TRUE(store->Delete("t/never"));                           // DELETE (succeeds)
  // Rejected before any request: not counted.
  ASSERT_FALSE(store->Get("t/a.parquet", Range::Bounded(0, 0)));
  ASSERT_FALSE(store->Get("../escape"));
  ASSERT_FALSE(store->Put("/abs", AsBytes("x")));
  ASSERT_FALSE(store->Head(""));
  ASSERT_FALSE(store->Delete("a//b"));
  ASSERT_FALSE(store->List("", "", 5000));

  RequestCounts c = store->Snapshot();
  RequestCounts want;
  want.put = 4;
  want.get = 5;
  want.head = 2;
  want.list = 1;
  want.del = 2;
  want.failed = 4;  // the conflict, the 404 and 416 GETs, the 404 HEAD
  want.bytes_written = 17;
  want.bytes_read = 15;
  want.objects_read = 2;  // a and b; the 404 read nothing
  EXPECT_EQ(c, want) << c.ToJson();
  EXPECT_EQ(c.total(), 14u);
  EXPECT_EQ(c.ToJson(), R"({"GET": 5, "HEAD": 2, "PUT": 4, "POST": 0, "LIST": 1, "DELETE": 2})");

  auto per = store->PerObject();
  ASSERT_EQ(per.size(), 3u);
  EXPECT_EQ(per["t/a.parquet"], (ObjectCounts{3, 1, 13}));
  EXPECT_EQ(per["t/b.parquet"], (ObjectCounts{1, 0, 2}));
  EXPECT_EQ(per["t/missing.parquet"], (ObjectCounts{1, 1, 0}));
}

TEST(CountingStore, SubmitReadsAreCountedBeforeTheCallerSeesThem) {
  auto store = std::make_shared<CountingStore>(FreshMem("counting-batch"));
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store->Put(fmt::format("o{}", i), AsBytes(std::string(100, 'x'))));
  }
  store->Reset();
  std::vector<ReadRequest> requests;
  for (int i = 0; i < 40; ++i)
    requests.push_back({fmt::format("o{}", i % 5), Range::Bounded(i, 10)});
  requests.push_back({"missing", Range::Whole()});
  requests.push_back({"o1", Range::Suffix(0)});  // rejected up front: not a request
  std::atomic<int> callbacks{0};
  auto pending = store->SubmitReads(
      std::move(requests), [&](size_t, Result<Buffer>) { ++callbacks; }, BatchOptions{8});
  pending->Wait();
  EXPECT_EQ(callbacks.load(), 42);
  RequestCounts c = store->Snapshot();
  EXPECT_EQ(c.get, 41u);
  EXPECT_EQ(c.failed, 1u);
  EXPECT_EQ(c.bytes_read, 400u);
  EXPECT_EQ(c.objects_read, 5u);
  EXPECT_EQ(c.total(), 41u);
}

TEST(CountingStore, MultipartPutCountsItsRealRequests) {
  auto inner = std::make_shared<MultipartStore>(FreshMem("counting-multipart"), 3);
  CountingStore store(inner);
  ASSERT_TRUE(store.Put("big", AsBytes(std::string(1000, 'b'))));
  RequestCounts c = store.Snapshot();
  EXPECT_EQ(c.post, 2u);  // initiate + complete
  EXPECT_EQ(c.put, 3u);
  EXPECT_EQ(c.multipart_parts, 3u);
  EXPECT_EQ(c.bytes_written, 1000u);
  EXPECT_EQ(c.total(), 5u);
  EXPECT_EQ(c.ToJson(), R"({"GET": 0, "HEAD": 0, "PUT": 3, "POST": 2, "LIST": 0, "DELETE": 0})");
}

TEST(CountingStore, FailuresFromBelowAreCountedInTheirKind) {
  auto faults = std::make_shared<FaultStore>(FreshMem("counting-faults"));
  CountingStore store(faults);
  ASSERT_TRUE(store.Put("k", AsBytes("v")));
  faults->AddRule(FaultRule::Transient(2));
  EXPECT_FALSE(store.Get("k"));
  EXPECT_FALSE(store.List(""));
  EXPECT_TRUE(store.Get("k"));
  RequestCounts c = store.Snapshot();
  EXPECT_EQ(c.get, 2u);
  EXPECT_EQ(c.list, 1u);
  EXPECT_EQ(c.put, 1u);
  EXPECT_EQ(c.failed, 2u);
  EXPECT_EQ(c.bytes_read, 1u);
}

TEST(CountingStore, AbandonedWritesPassThroughDecoratorsUncounted) {
  floe::testing::TempDir dir;
  auto local = LocalStore::Open(dir.str()).value();
  ASSERT_TRUE(local->Put("t/a", AsBytes("1")));
  std::FILE* f = std::fopen((dir.str() + "/t/.floe-tmp-1-a-0").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  auto counting = std::make_shared<CountingStore>(std::make_shared<FaultStore>(
      std::make_shared<SimulatedStore>(local, SimulationOptions{0, 0, 0, 0, 64, 1})));
  auto temps = counting->ListAbandonedWrites("t/");
  ASSERT_TRUE(temps) << temps.error().ToString();
  ASSERT_EQ(temps->size(), 1u);
  EXPECT_EQ((*temps)[0].key, "t/.floe-tmp-1-a-0");
  ASSERT_TRUE(counting->DeleteAbandonedWrite("t/.floe-tmp-1-a-0"));
  EXPECT_TRUE(local->ListAbandonedWrites("").value().empty());
  EXPECT_EQ(counting->Snapshot(), RequestCounts{});
  // A store whose writes leave nothing behind has none.
  auto mem = MemStore::Open("abandoned-writes", "").value();
  EXPECT_TRUE(mem->ListAbandonedWrites("").value().empty());
}

TEST(CountingStore, ResetStartsFromZero) {
  auto store = std::make_shared<CountingStore>(FreshMem("counting-reset"), true);
  ASSERT_TRUE(store->Put("a", AsBytes("1")));
  ASSERT_TRUE(store->Get("a"));
  store->Reset();
  EXPECT_EQ(store->Snapshot(), RequestCounts{});
  EXPECT_TRUE(store->PerObject().empty());
  // Distinct objects start over too.
  ASSERT_TRUE(store->Get("a"));
  EXPECT_EQ(store->Snapshot().objects_read, 1u);
}

TEST(CountingStore, PerObjectDetailOnlyWhenAsked) {
  CountingStore store(FreshMem("counting-noper"));
  ASSERT_TRUE(store.Put("a", AsBytes("1")));
  ASSERT_TRUE(store.Get("a"));
  EXPECT_TRUE(store.PerObject().empty());
  EXPECT_EQ(store.Snapshot().objects_read, 1u);
}

TEST(CountingStore, CountsAreExactUnderConcurrency) {
  auto store = std::make_shared<CountingStore>(FreshMem("counting-threads"), true);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Put(fmt::format("k{}", i), AsBytes("abcd")));
  store->Reset();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        (void)store->Get(fmt::format("k{}", (t + i) % 10), Range::Bounded(1, 2));
        if (i % 50 == 0) (void)store->Head(fmt::format("k{}", i % 10));
      }
    });
  }
  for (auto& t : threads) t.join();
  RequestCounts c = store->Snapshot();
  EXPECT_EQ(c.get, 4000u);
  EXPECT_EQ(c.head, 80u);
  EXPECT_EQ(c.bytes_read, 8000u);
  EXPECT_EQ(c.objects_read, 10u);
  uint64_t per_gets = 0;
  for (const auto& [key, counts] : store->PerObject()) per_gets += counts.gets;
  EXPECT_EQ(per_gets, 4000u);
}

}  // namespace
}  // namespace floe::io
