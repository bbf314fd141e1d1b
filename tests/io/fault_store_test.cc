// FaultStore: each rule fires exactly where it says, on the requests it matches.
#include "floe/io/fault_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "floe/io/mem_store.h"

namespace floe::io {
namespace {

std::shared_ptr<FaultStore> Fresh(const std::string& name) {
  MemStore::Forget(name);
  auto store = std::make_shared<FaultStore>(*MemStore::Open(name));
  EXPECT_TRUE(store->Put("a", AsBytes("0123456789")));
  EXPECT_TRUE(store->Put("dir/b", AsBytes("bbbb")));
  return store;
}

TEST(FaultStore, NoRulesPassesEverythingThrough) {
  auto store = Fresh("fault-none");
  EXPECT_EQ(store->Get("a")->ToString(), "0123456789");
  EXPECT_EQ(store->Head("dir/b")->size, 4u);
  EXPECT_EQ(store->List("")->objects.size(), 2u);
  EXPECT_EQ(store->injected(), 0u);
  EXPECT_EQ(store->Uri(), "mem://fault-none");
}

TEST(FaultStore, FailsTheNthRequestOfAnyKind) {
  auto store = Fresh("fault-nth");
  store->AddRule(FaultRule::FailNth(3));
  EXPECT_TRUE(store->Head("a"));
  EXPECT_TRUE(store->Get("a"));
  auto third = store->List("");
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().kind, ErrorKind::kIO);
  EXPECT_TRUE(third.error().transient);
  EXPECT_EQ(third.error().message, "injected fault: LIST '' in mem://fault-nth");
  EXPECT_TRUE(store->Get("a"));  // only once
  EXPECT_EQ(store->injected(), 1u);
}

TEST(FaultStore, FailsTheNthRequestOfOneKindWithAChosenError) {
  auto store = Fresh("fault-kind");
  store->AddRule(FaultRule::FailNth(2, RequestKind::kGet, ErrorKind::kNotFound));
  EXPECT_TRUE(store->Head("a"));
  EXPECT_TRUE(store->Get("a"));
  EXPECT_TRUE(store->Head("a"));
  auto second_get = store->Get("dir/b");
  ASSERT_FALSE(second_get);
  EXPECT_EQ(second_get.error().kind, ErrorKind::kNotFound);
  EXPECT_FALSE(second_get.error().transient);
  EXPECT_NE(second_get.error().message.find("GET 'dir/b'"), std::string::npos);
  EXPECT_TRUE(store->Get("dir/b"));
}

TEST(FaultStore, TransientErrorsForTheNextKRequests) {
  auto store = Fresh("fault-transient");
  store->AddRule(FaultRule::Transient(3));
  for (int i = 0; i < 3; ++i) {
    auto r = store->Get("a");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::kIO);
    EXPECT_TRUE(r.error().transient);
    EXPECT_NE(r.error().message.find("503 Slow Down"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(store->Get("a"));
  EXPECT_EQ(store->injected(), 3u);
}

TEST(FaultStore, KeyPrefixLimitsARule) {
  auto store = Fresh("fault-prefix");
  FaultRule rule = FaultRule::Transient(FaultRule::kAlways);
  rule.key_prefix = "dir/";
  store->AddRule(rule);
  EXPECT_TRUE(store->Get("a"));
  EXPECT_FALSE(store->Get("dir/b"));
  EXPECT_FALSE(store->Put("dir/c", AsBytes("x")));
  EXPECT_TRUE(store->Put("c", AsBytes("x")));
  store->ClearRules();
  EXPECT_TRUE(store->Get("dir/b"));
}

TEST(FaultStore, ShortReadsReturnFewerBytes) {
  auto store = Fresh("fault-short");
  store->AddRule(FaultRule::ShortRead(4, 2));
  EXPECT_EQ(store->Get("a")->ToString(), "0123");
  EXPECT_EQ(store->Get("a", Range::Bounded(5, 5))->ToString(), "5678");
  EXPECT_EQ(store->Get("a")->ToString(), "0123456789");
  EXPECT_EQ(store->injected(), 2u);
  // Batched reads go through the same rules.
  store->AddRule(FaultRule::ShortRead(1));
  auto results = store->ReadAll({{"a", Range::Whole()}, {"dir/b", Range::Suffix(3)}});
  EXPECT_EQ(results[0]->ToString(), "0");
  EXPECT_EQ(results[1]->ToString(), "b");
}

TEST(FaultStore, LostReplyTakesEffectThenFails) {
  auto store = Fresh("fault-lost");
  FaultRule rule = FaultRule::FailNth(1, RequestKind::kPutIfAbsent);
  rule.after_inner = true;
  store->AddRule(rule);
  auto r = store->PutIfAbsent("commit", AsBytes("v1"));
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().transient);
  // The object was written: a retry now conflicts, as it would on S3 after a lost reply.
  EXPECT_EQ(store->Get("commit")->ToString(), "v1");
  auto retry = store->PutIfAbsent("commit", AsBytes("v1"));
  ASSERT_FALSE(retry);
  EXPECT_EQ(retry.error().kind, ErrorKind::kConflict);
}

TEST(FaultStore, DelaysDoNotChangeResults) {
  auto store = Fresh("fault-delay");
  store->AddRule(FaultRule::Delay(1, RequestKind::kGet, 2));
  EXPECT_EQ(store->Get("a")->ToString(), "0123456789");
  EXPECT_EQ(store->Get("a")->ToString(), "0123456789");
  EXPECT_EQ(store->injected(), 0u);
}

TEST(FaultStore, InvalidRequestsAreNotCountedByRules) {
  auto store = Fresh("fault-invalid");
  store->AddRule(FaultRule::FailNth(1, RequestKind::kGet));
  auto bad = store->Get("../x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidInput);
  EXPECT_FALSE(store->Get("a", Range::Suffix(0)));
  EXPECT_FALSE(store->Get("a"));  // the first real GET
}

TEST(FaultStore, RulesCountExactlyAcrossThreads) {
  auto store = Fresh("fault-threads");
  FaultRule rule = FaultRule::Transient(10, RequestKind::kGet);
  rule.skip = 100;
  store->AddRule(rule);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        if (!store->Get("a")) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 10);
  EXPECT_EQ(store->injected(), 10u);
}

}  // namespace
}  // namespace floe::io
