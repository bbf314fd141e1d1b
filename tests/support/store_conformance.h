// The ObjectStore conformance suite: the semantics every store must share (object_store.h), as
// value-parameterized tests over a StoreFactory. A test binary includes this header in exactly one
// .cc and instantiates it:
//   INSTANTIATE_TEST_SUITE_P(Mem, StoreConformance,
//                            ::testing::Values(StoreFactory{"mem", [] { return ...; }}),
//                            StoreFactoryName);
// Each make() call must return a fresh, empty store. The suite is store-agnostic and sized to run
// over HTTP against a local S3 server in seconds (its largest test puts 1,100 small objects).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "floe/io/object_store.h"
#include "support/temp_dir.h"

namespace floe::testing {

struct StoreFactory {
  std::string name;  // a test-name suffix: letters, digits, '_'
  std::function<floe::io::StorePtr()> make;
};

// gtest prints parameters in test names; a factory is shown by its name, not its bytes.
inline void PrintTo(const StoreFactory& f, std::ostream* os) { *os << f.name; }

inline std::string StoreFactoryName(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

class StoreConformance : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    store_ = GetParam().make();
    ASSERT_NE(store_, nullptr) << "factory '" << GetParam().name << "' returned no store";
  }

  void PutOk(std::string_view key, std::string_view data) {
    auto r = store_->Put(key, AsBytes(data));
    ASSERT_TRUE(r.has_value()) << "put '" << key << "': " << r.error().ToString();
  }

  std::string GetOk(std::string_view key, io::Range range = io::Range::Whole()) {
    auto r = store_->Get(key, range);
    EXPECT_TRUE(r.has_value()) << "get '" << key << "' " << range.Describe() << ": "
                               << (r ? "" : r.error().ToString());
    return r ? r->ToString() : std::string("<error>");
  }

  // Puts `n` objects "<prefix>NNNNN" (zero-padded, so key order is numeric order) from 8 threads.
  void PutMany(const std::string& prefix, int n) {
    std::atomic<int> next{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        for (int i = next++; i < n; i = next++) {
          std::string key = fmt::format("{}{:05}", prefix, i);
          if (!store_->Put(key, AsBytes(key))) ++failures;
        }
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(failures.load(), 0);
  }

  static std::vector<std::string> Keys(const std::vector<io::ObjectInfo>& objects) {
    std::vector<std::string> keys;
    for (const auto& o : objects) keys.push_back(o.key);
    return keys;
  }

  io::StorePtr store_;
};

TEST_P(StoreConformance, PutGetRoundTrip) {
  std::vector<uint8_t> bytes = RandomBytes(100000, 7);
  ASSERT_TRUE(store_->Put("dir/sub/object.bin", bytes));
  auto got = store_->Get("dir/sub/object.bin");
  ASSERT_TRUE(got) << got.error().ToString();
  EXPECT_EQ(got->size(), bytes.size());
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), got->data()));
  // Bytes of every value, NUL included, and an empty object.
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  PutOk("binary", all);
  EXPECT_EQ(GetOk("binary"), all);
  PutOk("empty", "");
  EXPECT_EQ(GetOk("empty"), "");
}

TEST_P(StoreConformance, PutOverwrites) {
  PutOk("k", "first version");
  PutOk("k", "v2");
  EXPECT_EQ(GetOk("k"), "v2");
  auto head = store_->Head("k");
  ASSERT_TRUE(head) << head.error().ToString();
  EXPECT_EQ(head->size, 2u);
}

TEST_P(StoreConformance, BoundedRange) {
  PutOk("r", "0123456789");
  EXPECT_EQ(GetOk("r", io::Range::Bounded(0, 1)), "0");
  EXPECT_EQ(GetOk("r", io::Range::Bounded(2, 3)), "234");
  EXPECT_EQ(GetOk("r", io::Range::Bounded(9, 1)), "9");
  EXPECT_EQ(GetOk("r", io::Range::Bounded(0, 10)), "0123456789");
}

TEST_P(StoreConformance, RangePastEndIsTruncated) {
  PutOk("r", "0123456789");
  EXPECT_EQ(GetOk("r", io::Range::Bounded(7, 100)), "789");
  EXPECT_EQ(GetOk("r", io::Range::Bounded(0, 1000000)), "0123456789");
}

TEST_P(StoreConformance, RangeOffsetAtOrPastSizeIsAnError) {
  PutOk("r", "0123456789");
  for (uint64_t offset : {10ull, 11ull, 1000ull}) {
    auto r = store_->Get("r", io::Range::Bounded(offset, 5));
    ASSERT_FALSE(r) << "offset " << offset;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput) << r.error().ToString();
    EXPECT_NE(r.error().message.find("'r'"), std::string::npos) << r.error().message;
  }
}

TEST_P(StoreConformance, SuffixRange) {
  PutOk("r", "0123456789");
  EXPECT_EQ(GetOk("r", io::Range::Suffix(1)), "9");
  EXPECT_EQ(GetOk("r", io::Range::Suffix(4)), "6789");
  EXPECT_EQ(GetOk("r", io::Range::Suffix(10)), "0123456789");
}

TEST_P(StoreConformance, SuffixLargerThanObjectIsWholeObject) {
  PutOk("r", "0123456789");
  EXPECT_EQ(GetOk("r", io::Range::Suffix(11)), "0123456789");
  EXPECT_EQ(GetOk("r", io::Range::Suffix(1 << 20)), "0123456789");
}

TEST_P(StoreConformance, EmptyObjectWithRangeIsAnError) {
  PutOk("empty", "");
  for (io::Range range : {io::Range::Bounded(0, 1), io::Range::Suffix(8)}) {
    auto r = store_->Get("empty", range);
    ASSERT_FALSE(r) << range.Describe();
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput) << r.error().ToString();
  }
  EXPECT_EQ(GetOk("empty", io::Range::Whole()), "");
}

TEST_P(StoreConformance, ZeroLengthRangesAreRejected) {
  PutOk("r", "0123456789");
  for (io::Range range :
       {io::Range::Bounded(0, 0), io::Range::Bounded(3, 0), io::Range::Suffix(0)}) {
    auto r = store_->Get("r", range);
    ASSERT_FALSE(r) << range.Describe();
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput) << r.error().ToString();
    EXPECT_NE(r.error().message.find("'r'"), std::string::npos) << r.error().message;
  }
}

TEST_P(StoreConformance, HeadReportsSizeAndTime) {
  PutOk("a/b.txt", "hello");
  auto head = store_->Head("a/b.txt");
  ASSERT_TRUE(head) << head.error().ToString();
  EXPECT_EQ(head->key, "a/b.txt");
  EXPECT_EQ(head->size, 5u);
  EXPECT_GT(head->mtime_ms, 1500000000000);  // after 2017: a real Unix-millisecond time
  std::string etag1 = head->etag;
  PutOk("a/b.txt", "hello, world");
  auto head2 = store_->Head("a/b.txt");
  ASSERT_TRUE(head2);
  EXPECT_EQ(head2->size, 12u);
  if (!etag1.empty() && !head2->etag.empty()) {
    EXPECT_NE(etag1, head2->etag);
  }
}

TEST_P(StoreConformance, MissingObjectIsNotFoundNamingTheKey) {
  auto get = store_->Get("no/such/key.parquet");
  ASSERT_FALSE(get);
  EXPECT_EQ(get.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(get.error().message.find("'no/such/key.parquet'"), std::string::npos)
      << get.error().message;
  auto ranged = store_->Get("no/such/key.parquet", io::Range::Suffix(8));
  ASSERT_FALSE(ranged);
  EXPECT_EQ(ranged.error().kind, ErrorKind::kNotFound);
  auto head = store_->Head("no/such/key.parquet");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(head.error().message.find("'no/such/key.parquet'"), std::string::npos)
      << head.error().message;
}

TEST_P(StoreConformance, PutIfAbsentSecondCallConflicts) {
  auto first = store_->PutIfAbsent("meta/v1.json", AsBytes("first"));
  ASSERT_TRUE(first) << first.error().ToString();
  auto second = store_->PutIfAbsent("meta/v1.json", AsBytes("second"));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::kConflict) << second.error().ToString();
  EXPECT_NE(second.error().message.find("'meta/v1.json'"), std::string::npos)
      << second.error().message;
  EXPECT_EQ(GetOk("meta/v1.json"), "first");
  // A plain Put still overwrites.
  PutOk("meta/v1.json", "third");
  EXPECT_EQ(GetOk("meta/v1.json"), "third");
}

TEST_P(StoreConformance, PutIfAbsentRaceHasExactlyOneWinner) {
  for (int round = 0; round < 5; ++round) {
    std::string key = fmt::format("race/commit-{}.json", round);
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<int> outcome(8, -1);  // 1 won, 0 conflict, 2 other error
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        ++ready;
        while (!go.load()) std::this_thread::yield();
        auto r = store_->PutIfAbsent(key, AsBytes(fmt::format("writer {}", t)));
        outcome[t] = r ? 1 : r.error().kind == ErrorKind::kConflict ? 0 : 2;
      });
    }
    while (ready.load() < 8) std::this_thread::yield();
    go = true;
    for (auto& th : threads) th.join();
    int winners = 0;
    int winner = -1;
    for (int t = 0; t < 8; ++t) {
      EXPECT_NE(outcome[t], 2) << "writer " << t << " failed with a non-conflict error";
      if (outcome[t] == 1) {
        ++winners;
        winner = t;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(GetOk(key), fmt::format("writer {}", winner));
  }
}

TEST_P(StoreConformance, ListWithPrefixInKeyOrder) {
  // Byte order, as S3 sorts: '-' (0x2d) < '/' (0x2f) < '0' (0x30) < 'b' < 0xc3 (UTF-8 lead byte).
  std::vector<std::string> keys = {
      "data/a/x",   "data/a-c", "data/a0", "data/b", "data/\xc3\xa9t\xc3\xa9",
      "data/a/y/z", "date",     "dat",     "other/k"};
  for (const auto& k : keys) PutOk(k, k);
  auto page = store_->List("data/");
  ASSERT_TRUE(page) << page.error().ToString();
  EXPECT_EQ(Keys(page->objects),
            (std::vector<std::string>{"data/a-c", "data/a/x", "data/a/y/z", "data/a0", "data/b",
                                      "data/\xc3\xa9t\xc3\xa9"}));
  EXPECT_TRUE(page->next_token.empty());
  for (const auto& o : page->objects) EXPECT_EQ(o.size, o.key.size()) << o.key;

  // A prefix is a string prefix, not a directory: "dat" matches "dat", "data/..." and "date".
  auto dat = store_->List("dat");
  ASSERT_TRUE(dat);
  EXPECT_EQ(dat->objects.size(), 8u);
  EXPECT_EQ(dat->objects.front().key, "dat");
  EXPECT_EQ(dat->objects.back().key, "date");

  auto sub = store_->List("data/a/");
  ASSERT_TRUE(sub);
  EXPECT_EQ(Keys(sub->objects), (std::vector<std::string>{"data/a/x", "data/a/y/z"}));

  auto all = store_->List("");
  ASSERT_TRUE(all);
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(Keys(all->objects), sorted);

  auto none = store_->List("nothing/here/");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->objects.empty());
  EXPECT_TRUE(none->next_token.empty());
}

TEST_P(StoreConformance, ListPaginatesPast1000Keys) {
  ASSERT_NO_FATAL_FAILURE(PutMany("many/k", 1100));
  PutOk("many0", "outside the prefix");
  auto first = store_->List("many/", "", 1000);
  ASSERT_TRUE(first) << first.error().ToString();
  ASSERT_EQ(first->objects.size(), 1000u);
  EXPECT_EQ(first->objects.front().key, "many/k00000");
  EXPECT_EQ(first->objects.back().key, "many/k00999");
  ASSERT_FALSE(first->next_token.empty());
  auto second = store_->List("many/", first->next_token, 1000);
  ASSERT_TRUE(second) << second.error().ToString();
  ASSERT_EQ(second->objects.size(), 100u);
  EXPECT_EQ(second->objects.front().key, "many/k01000");
  EXPECT_EQ(second->objects.back().key, "many/k01099");
  EXPECT_TRUE(second->next_token.empty());

  // Small pages visit every key once, in order.
  std::vector<std::string> walked;
  std::string token;
  int pages = 0;
  do {
    auto page = store_->List("many/k010", token, 7);
    ASSERT_TRUE(page) << page.error().ToString();
    ASSERT_LE(page->objects.size(), 7u);
    for (const auto& o : page->objects) walked.push_back(o.key);
    token = page->next_token;
    ++pages;
  } while (!token.empty() && pages < 100);
  ASSERT_EQ(walked.size(), 100u);
  EXPECT_TRUE(std::is_sorted(walked.begin(), walked.end()));
  EXPECT_EQ(walked.front(), "many/k01000");
  EXPECT_EQ(walked.back(), "many/k01099");

  auto all = store_->ListAll("many/");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 1100u);
}

TEST_P(StoreConformance, ListRejectsMoreThan1000Keys) {
  auto r = store_->List("", "", 1001);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("1001"), std::string::npos) << r.error().message;
}

TEST_P(StoreConformance, DeleteRemovesTheObject) {
  PutOk("d/x/one", "1");
  PutOk("d/x/two", "2");
  ASSERT_TRUE(store_->Delete("d/x/one"));
  auto gone = store_->Get("d/x/one");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(GetOk("d/x/two"), "2");
  auto page = store_->List("d/");
  ASSERT_TRUE(page);
  EXPECT_EQ(Keys(page->objects), (std::vector<std::string>{"d/x/two"}));
  ASSERT_TRUE(store_->Delete("d/x/two"));
  auto empty = store_->List("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->objects.empty());
  // The key can be written again after its "directory" emptied.
  PutOk("d/x/one", "again");
  EXPECT_EQ(GetOk("d/x/one"), "again");
}

TEST_P(StoreConformance, DeleteOfMissingKeySucceeds) {
  EXPECT_TRUE(store_->Delete("never/written"));
  PutOk("once", "x");
  EXPECT_TRUE(store_->Delete("once"));
  EXPECT_TRUE(store_->Delete("once"));
}

TEST_P(StoreConformance, InvalidKeysAreRejected) {
  using namespace std::string_literals;
  const std::vector<std::string> bad = {"",      "/abs", "../x", "a/../b", "a//b",
                                        "a/./b", "a/",   ".",    "x\0y"s};
  for (const std::string& key : bad) {
    SCOPED_TRACE("key '" + key + "'");
    auto get = store_->Get(key);
    ASSERT_FALSE(get);
    EXPECT_EQ(get.error().kind, ErrorKind::kInvalidInput) << get.error().ToString();
    auto put = store_->Put(key, AsBytes("x"));
    ASSERT_FALSE(put);
    EXPECT_EQ(put.error().kind, ErrorKind::kInvalidInput);
    auto pia = store_->PutIfAbsent(key, AsBytes("x"));
    ASSERT_FALSE(pia);
    EXPECT_EQ(pia.error().kind, ErrorKind::kInvalidInput);
    auto head = store_->Head(key);
    ASSERT_FALSE(head);
    EXPECT_EQ(head.error().kind, ErrorKind::kInvalidInput);
    auto del = store_->Delete(key);
    ASSERT_FALSE(del);
    EXPECT_EQ(del.error().kind, ErrorKind::kInvalidInput);
    if (!key.empty() && key.find('\0') == std::string::npos) {
      EXPECT_NE(get.error().message.find(key), std::string::npos) << get.error().message;
    }
  }
  auto listing = store_->List("");
  ASSERT_TRUE(listing);
  EXPECT_TRUE(listing->objects.empty());
}

TEST_P(StoreConformance, SubmitReadsManyRangesOfManyObjects) {
  constexpr int kObjects = 12;
  constexpr size_t kSize = 50000;
  std::vector<std::vector<uint8_t>> contents;
  for (int o = 0; o < kObjects; ++o) {
    contents.push_back(RandomBytes(kSize, 100 + o));
    ASSERT_TRUE(store_->Put(fmt::format("batch/obj{}", o), contents.back()));
  }
  std::vector<io::ReadRequest> requests;
  std::vector<std::string> expected;
  for (int i = 0; i < 240; ++i) {
    int o = i % kObjects;
    uint64_t offset = (static_cast<uint64_t>(i) * 7919) % kSize;
    uint64_t length = 1 + (static_cast<uint64_t>(i) * 104729) % 9000;
    io::Range range = io::Range::Bounded(offset, length);
    if (i % 10 == 3) range = io::Range::Suffix(length);
    if (i % 17 == 5) range = io::Range::Whole();
    auto span = range.Resolve("", kSize);
    ASSERT_TRUE(span);
    requests.push_back({fmt::format("batch/obj{}", o), range});
    expected.emplace_back(reinterpret_cast<const char*>(contents[o].data()) + span->first,
                          span->second - span->first);
  }
  // One missing object: its error arrives at its own index, the rest are unaffected.
  requests.push_back({"batch/missing", io::Range::Bounded(0, 10)});

  std::mutex mu;
  std::vector<int> calls(requests.size(), 0);
  std::vector<std::string> got(requests.size());
  std::vector<std::optional<Error>> errors(requests.size());
  size_t n = requests.size();
  auto pending = store_->SubmitReads(
      std::move(requests),
      [&](size_t i, Result<Buffer> r) {
        std::lock_guard lock(mu);
        ASSERT_LT(i, n);
        ++calls[i];
        if (r) {
          got[i] = r->ToString();
        } else {
          errors[i] = r.error();
        }
      },
      io::BatchOptions{8});
  pending->Wait();
  for (size_t i = 0; i + 1 < n; ++i) {
    ASSERT_EQ(calls[i], 1) << "request " << i;
    ASSERT_FALSE(errors[i]) << "request " << i << ": " << errors[i]->ToString();
    ASSERT_EQ(got[i], expected[i]) << "request " << i;
  }
  EXPECT_EQ(calls[n - 1], 1);
  ASSERT_TRUE(errors[n - 1]);
  EXPECT_EQ(errors[n - 1]->kind, ErrorKind::kNotFound);
}

TEST_P(StoreConformance, ReadAllReturnsResultsInRequestOrder) {
  for (int i = 0; i < 20; ++i) PutOk(fmt::format("ra/{:02}", i), fmt::format("value {}", i));
  std::vector<io::ReadRequest> requests;
  for (int i = 19; i >= 0; --i)
    requests.push_back({fmt::format("ra/{:02}", i), io::Range::Whole()});
  requests.push_back({"ra/05", io::Range::Bounded(6, 1)});
  requests.push_back({"ra/none", io::Range::Whole()});
  auto results = store_->ReadAll(std::move(requests), io::BatchOptions{4});
  ASSERT_EQ(results.size(), 22u);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(results[i]) << results[i].error().ToString();
    EXPECT_EQ(results[i]->ToString(), fmt::format("value {}", 19 - i));
  }
  ASSERT_TRUE(results[20]);
  EXPECT_EQ(results[20]->ToString(), "5");
  ASSERT_FALSE(results[21]);
  EXPECT_EQ(results[21].error().kind, ErrorKind::kNotFound);
  // An empty batch completes at once.
  EXPECT_TRUE(store_->ReadAll({}).empty());
}

}  // namespace floe::testing
