// LocalStore beyond the conformance suite: the root cannot be escaped, temp files never show,
// Put is atomic for readers, PutIfAbsent is atomic across processes, directories are tidied.
#include "floe/io/local_store.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.h"
#include "support/temp_dir.h"

namespace floe::io {
namespace {

namespace fs = std::filesystem;
using floe::testing::TempDir;
using namespace std::string_literals;

std::shared_ptr<LocalStore> OpenOrDie(const std::string& root, LocalStoreOptions options = {}) {
  auto store = LocalStore::Open(root, options);
  EXPECT_TRUE(store) << store.error().ToString();
  return store ? *store : nullptr;
}

std::vector<std::string> FilesUnder(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(LocalStore, UriIsFileSchemeAndAbsoluteRoot) {
  TempDir dir;
  auto store = OpenOrDie(dir.str() + "/w/");
  ASSERT_TRUE(store);
  EXPECT_EQ(store->root(), dir.str() + "/w");
  EXPECT_EQ(store->Uri(), "file://" + dir.str() + "/w");
  EXPECT_TRUE(fs::is_directory(dir.path() / "w"));
}

TEST(LocalStore, RelativeRootIsMadeAbsolute) {
  TempDir dir;
  fs::path old = fs::current_path();
  fs::current_path(dir.path());
  auto store = LocalStore::Open("rel/w");
  fs::current_path(old);
  ASSERT_TRUE(store) << store.error().ToString();
  EXPECT_EQ((*store)->root(), fs::canonical(dir.path()).string() + "/rel/w");
  EXPECT_TRUE((*store)->Put("k", AsBytes("v")));
  EXPECT_TRUE(fs::exists(dir.path() / "rel/w/k"));
}

TEST(LocalStore, RootThatIsAFileIsRejected) {
  TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  auto store = LocalStore::Open((dir.path() / "file").string());
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(store.error().message.find("not a directory"), std::string::npos)
      << store.error().message;
  EXPECT_FALSE(LocalStore::Open(""));
}

TEST(LocalStore, MissingObjectErrorNamesKeyAndStore) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  auto r = store->Get("t/data/x.parquet");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(r.error().message, "object 't/data/x.parquet' not found in file://" + dir.str());
  auto h = store->Head("t");
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().message, "object 't' not found in file://" + dir.str());
}

TEST(LocalStore, KeysCannotEscapeTheRoot) {
  TempDir dir;
  fs::create_directories(dir.path() / "root");
  std::ofstream(dir.path() / "outside") << "secret";
  auto store = OpenOrDie((dir.path() / "root").string());
  const std::vector<std::string> bad = {"../outside",      "/etc/passwd", "x\0y"s, "a//b",
                                        "a/../../outside", "./x",         "a/",    ""};
  for (const std::string& key : bad) {
    SCOPED_TRACE("key '" + key + "'");
    auto get = store->Get(key);
    ASSERT_FALSE(get);
    EXPECT_EQ(get.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(get.error().message.find(store->Uri()), std::string::npos) << get.error().message;
    if (!key.empty()) {
      std::string shown = key.find('\0') == std::string::npos ? key : "x\\0y";
      EXPECT_NE(get.error().message.find("'" + shown + "'"), std::string::npos)
          << get.error().message;
    }
    EXPECT_FALSE(store->Put(key, AsBytes("overwritten")));
    EXPECT_FALSE(store->PutIfAbsent(key, AsBytes("overwritten")));
    EXPECT_FALSE(store->Delete(key));
    EXPECT_FALSE(store->Head(key));
  }
  std::ifstream in(dir.path() / "outside");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "secret");
  EXPECT_TRUE(FilesUnder(dir.path() / "root").empty());
  // A list prefix is matched against keys, never used as a path.
  auto page = store->List("../");
  ASSERT_TRUE(page);
  EXPECT_TRUE(page->objects.empty());
}

TEST(LocalStore, KeysWithTheTempPrefixAreReserved) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  for (std::string key : {".floe-tmp-1", "a/.floe-tmp-x/b"}) {
    auto r = store->Put(key, AsBytes("x"));
    ASSERT_FALSE(r) << key;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(r.error().message.find("reserved"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(store->Put(".floe-tm", AsBytes("x")));  // only the exact prefix is reserved
}

TEST(LocalStore, TempFilesAreInvisibleToList) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  ASSERT_TRUE(store->Put("a/b", AsBytes("1")));
  // Leftovers of a crashed writer.
  std::ofstream(dir.path() / ".floe-tmp-999-dead-0") << "partial";
  std::ofstream(dir.path() / "a" / ".floe-tmp-999-dead-1") << "partial";
  auto page = store->List("");
  ASSERT_TRUE(page);
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "a/b");
  auto prefixed = store->List(".floe");
  ASSERT_TRUE(prefixed);
  EXPECT_TRUE(prefixed->objects.empty());

  // While writers are busy, a lister never sees an in-progress write.
  std::atomic<bool> stop{false};
  std::vector<uint8_t> big(256 << 10, 'z');
  std::vector<std::thread> writers;
  for (int w = 0; w < 3; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < 40 && !stop; ++i) {
        ASSERT_TRUE(store->Put(fmt::format("w{}/obj{}", w, i % 5), big));
      }
    });
  }
  int lists = 0;
  for (; lists < 200; ++lists) {
    auto all = store->ListAll("");
    ASSERT_TRUE(all) << all.error().ToString();
    for (const auto& o : *all) {
      ASSERT_EQ(o.key.find(".floe-tmp-"), std::string::npos) << o.key;
      if (o.key != "a/b") {
        ASSERT_EQ(o.size, big.size()) << o.key;
      }
    }
  }
  stop = true;
  for (auto& t : writers) t.join();
  // Every temp file a Put made is gone (only the two planted leftovers remain).
  int temps = 0;
  for (const auto& f : FilesUnder(dir.path())) {
    if (f.find(".floe-tmp-") != std::string::npos) ++temps;
  }
  EXPECT_EQ(temps, 2);
}

TEST(LocalStore, AbandonedWritesAreListedAndDeletedOnlyAsSuch) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  ASSERT_TRUE(store->Put("t/data/a", AsBytes("1")));
  ASSERT_TRUE(store->Put("u/b", AsBytes("2")));
  // Leftovers of killed writers, as a Put leaves them between writing and renaming.
  std::ofstream(dir.path() / "t" / ".floe-tmp-999-dead-0") << "partial";
  std::ofstream(dir.path() / "t" / "data" / ".floe-tmp-999-dead-1") << "par";
  std::ofstream(dir.path() / "u" / ".floe-tmp-999-dead-2") << "p";
  auto temps = store->ListAbandonedWrites("t/");
  ASSERT_TRUE(temps) << temps.error().ToString();
  ASSERT_EQ(temps->size(), 2u);
  EXPECT_EQ((*temps)[0].key, "t/.floe-tmp-999-dead-0");
  EXPECT_EQ((*temps)[0].size, 7u);
  EXPECT_EQ((*temps)[1].key, "t/data/.floe-tmp-999-dead-1");
  EXPECT_EQ(store->ListAbandonedWrites("").value().size(), 3u);
  // Only temp files: an object's key is refused, and Delete refuses a temp file's key.
  EXPECT_EQ(store->DeleteAbandonedWrite("t/data/a").error().ToString(),
            "invalid input: 't/data/a' in file://" + dir.str() +
                " is not a temp file of an unfinished write");
  EXPECT_FALSE(store->Delete("t/.floe-tmp-999-dead-0").has_value());
  EXPECT_EQ(store->DeleteAbandonedWrite("t/../u/.floe-tmp-999-dead-2").error().kind,
            ErrorKind::kInvalidInput);
  ASSERT_TRUE(store->DeleteAbandonedWrite("t/data/.floe-tmp-999-dead-1"));
  ASSERT_TRUE(store->DeleteAbandonedWrite("t/data/.floe-tmp-999-dead-1"));  // gone: fine
  EXPECT_TRUE(fs::exists(dir.path() / "t" / "data" / "a"));
  ASSERT_TRUE(store->Delete("u/b"));
  ASSERT_TRUE(store->DeleteAbandonedWrite("u/.floe-tmp-999-dead-2"));
  EXPECT_FALSE(fs::exists(dir.path() / "u"));  // the emptied directory is tidied
  EXPECT_EQ(store->ListAbandonedWrites("").value().size(), 1u);
}

TEST(LocalStore, SeesFilesWrittenByOtherPrograms) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  fs::create_directories(dir.path() / "ext/sub");
  std::ofstream(dir.path() / "ext/sub/file.csv") << "a,b\n1,2\n";
  auto head = store->Head("ext/sub/file.csv");
  ASSERT_TRUE(head) << head.error().ToString();
  EXPECT_EQ(head->size, 8u);
  EXPECT_FALSE(head->etag.empty());
  auto all = store->ListAll("ext/");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].key, "ext/sub/file.csv");
  EXPECT_EQ((*all)[0].etag, head->etag);
  // A directory is not an object.
  auto dir_get = store->Get("ext/sub");
  ASSERT_FALSE(dir_get);
  EXPECT_EQ(dir_get.error().kind, ErrorKind::kNotFound);
  EXPECT_FALSE(store->Head("ext"));
}

TEST(LocalStore, DeleteRemovesEmptyParentDirectoriesButNotTheRoot) {
  TempDir dir;
  auto store = OpenOrDie(dir.str() + "/w");
  ASSERT_TRUE(store->Put("a/b/c/d", AsBytes("1")));
  ASSERT_TRUE(store->Put("a/keep", AsBytes("2")));
  ASSERT_TRUE(store->Delete("a/b/c/d"));
  EXPECT_FALSE(fs::exists(dir.path() / "w/a/b"));
  EXPECT_TRUE(fs::exists(dir.path() / "w/a/keep"));
  ASSERT_TRUE(store->Delete("a/keep"));
  EXPECT_FALSE(fs::exists(dir.path() / "w/a"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "w"));
}

TEST(LocalStore, KeyThatIsAlsoAPrefixIsUnsupported) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  ASSERT_TRUE(store->Put("a", AsBytes("file")));
  auto below = store->Put("a/b", AsBytes("x"));
  ASSERT_FALSE(below);
  EXPECT_EQ(below.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(below.error().message.find("'a/b'"), std::string::npos) << below.error().message;

  ASSERT_TRUE(store->Put("x/y", AsBytes("1")));
  for (bool if_absent : {false, true}) {
    auto above = if_absent ? store->PutIfAbsent("x", AsBytes("2")) : store->Put("x", AsBytes("2"));
    ASSERT_FALSE(above);
    EXPECT_EQ(above.error().kind, ErrorKind::kUnsupported) << above.error().ToString();
  }
  EXPECT_FALSE(store->Get("x"));
  EXPECT_TRUE(store->Delete("x"));  // not an object: nothing to delete
  auto y = store->Get("x/y");
  ASSERT_TRUE(y);
  EXPECT_EQ(y->ToString(), "1");
}

TEST(LocalStore, ConcurrentPutsAndDeletesInOneDirectory) {
  // Delete removes a directory that became empty while a Put may be about to write into it; the
  // Put must retry, never fail.
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        std::string key = fmt::format("d/e/t{}-{}", t, i % 3);
        if (auto r = store->Put(key, AsBytes("v")); !r) {
          ++failures;
          ADD_FAILURE() << r.error().ToString();
        }
        if (!store->Delete(key)) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto all = store->ListAll("");
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->empty());
}

TEST(LocalStore, PutIsAtomicForConcurrentReaders) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  const std::string a(1 << 20, 'a');
  const std::string b((3 << 20) / 2, 'b');
  ASSERT_TRUE(store->Put("big", AsBytes(a)));
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(store->Put("big", AsBytes(i % 2 ? a : b)));
    done = true;
  });
  std::atomic<int> reads{0};
  std::atomic<int> torn{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      while (!done || reads < 30) {
        if (r == 0) {
          auto got = store->Get("big");
          if (!got || (got->string_view() != a && got->string_view() != b)) ++torn;
        } else {
          auto got = store->Get("big", Range::Bounded(500000, 400000));
          if (!got || got->size() != 400000) {
            ++torn;
          } else {
            auto s = got->string_view();
            if (s.find_first_not_of(s[0]) != std::string_view::npos) ++torn;
          }
        }
        ++reads;
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(torn.load(), 0) << "of " << reads.load() << " reads";
}

// Whether this process has `path` memory-mapped (its line in /proc/self/maps).
bool Mapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.ends_with(" " + path)) return true;
  }
  return false;
}

// Reads of kMapBytes or more are mapped, not copied: the bytes are right at any offset, the
// mapping lives as long as a buffer (or a slice of one) does, and a Put or Delete of the name
// afterwards does not change what the buffer holds. Smaller reads are copied.
TEST(LocalStore, LargeReadsAreMappedAndKeepTheirVersion) {
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
  ASSERT_TRUE(store->Put("d/big", AsBytes(data)));
  const std::string path = fs::canonical(dir.path() / "d" / "big").string();

  auto small = store->Get("d/big", Range::Bounded(5, LocalStore::kMapBytes - 1));
  ASSERT_TRUE(small);
  EXPECT_EQ(small->string_view(), std::string_view(data).substr(5, LocalStore::kMapBytes - 1));
  EXPECT_FALSE(Mapped(path));

  Buffer slice;
  {
    auto got = store->Get("d/big", Range::Bounded(4097, 2 << 20));
    ASSERT_TRUE(got);
    EXPECT_EQ(got->string_view(), std::string_view(data).substr(4097, 2 << 20));
    EXPECT_TRUE(Mapped(path));
    slice = got->Slice(100, 10);
  }
  EXPECT_TRUE(Mapped(path));  // the slice holds the mapping
  ASSERT_TRUE(store->Put("d/big", AsBytes(std::string(3 << 20, 'x'))));
  EXPECT_EQ(slice.string_view(), std::string_view(data).substr(4197, 10));
  slice = Buffer();
  {
    auto whole = store->Get("d/big");
    ASSERT_TRUE(whole);
    EXPECT_TRUE(Mapped(path));
  }
  EXPECT_FALSE(Mapped(path));  // unmapped with its last buffer

  auto suffix = store->Get("d/big", Range::Suffix((3 << 20) / 2));
  ASSERT_TRUE(suffix);
  ASSERT_TRUE(store->Delete("d/big"));
  EXPECT_EQ(suffix->string_view(), std::string((3 << 20) / 2, 'x'));
}

// Issue 16, point 13: a user's input truncated while floe read it killed `table append` with
// SIGBUS (a mapped read). Without map_reads a large read is a copy: truncating the file after
// the read leaves the bytes intact, and a read after it comes back short (S3's semantics for a
// range past the end), which readers report (parquet's FetchRanges: read_parquet_file_test).
TEST(LocalStore, UnmappedReadsSurviveTheFileBeingTruncated) {
  TempDir dir;
  auto store = OpenOrDie(dir.str(), LocalStoreOptions{.map_reads = false});
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
  ASSERT_TRUE(store->Put("in.parquet", AsBytes(data)));
  const std::string path = (dir.path() / "in.parquet").string();
  auto got = store->Get("in.parquet", Range::Bounded(4096, 2 << 20));
  ASSERT_TRUE(got);
  EXPECT_FALSE(Mapped(fs::canonical(path).string()));
  ASSERT_EQ(::truncate(path.c_str(), 1 << 20), 0);  // as another program would, in place
  EXPECT_EQ(got->string_view(), std::string_view(data).substr(4096, 2 << 20));
  auto after = store->Get("in.parquet", Range::Bounded(4096, 2 << 20));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->string_view(), std::string_view(data).substr(4096, (1 << 20) - 4096));
}

// Why: the same truncation under a mapped read faults the reader's next touch of the lost pages,
// which no error can report. (Warehouse files are never truncated: Put renames a new file in.)
TEST(LocalStoreDeathTest, MappedReadsOfATruncatedFileFault) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  auto store = OpenOrDie(dir.str());
  ASSERT_TRUE(store->Put("in.parquet", AsBytes(std::string(3 << 20, 'x'))));
  const std::string path = (dir.path() / "in.parquet").string();
  // SIGBUS -- or, under AddressSanitizer, its report and abort.
  auto faulted = [](int status) {
    if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGABRT;
    return WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3;
  };
  EXPECT_EXIT(
      {
        auto got = store->Get("in.parquet");
        if (!got || ::truncate(path.c_str(), 0) != 0) std::_Exit(3);
        volatile char c = got->string_view()[2 << 20];
        (void)c;
        std::_Exit(0);
      },
      faulted, "");
}

TEST(LocalStore, FsyncOptionStillRoundTrips) {
  TempDir dir;
  auto store = OpenOrDie(dir.str(), LocalStoreOptions{.fsync = true});
  ASSERT_TRUE(store->Put("a/b", AsBytes("durable")));
  ASSERT_TRUE(store->PutIfAbsent("a/c", AsBytes("also")));
  EXPECT_EQ(store->Get("a/b")->ToString(), "durable");
  EXPECT_EQ(store->Get("a/c")->ToString(), "also");
}

// --- PutIfAbsent across processes -----------------------------------------------------------
// The parent re-runs this test binary with a filter selecting the worker below and an environment
// variable telling it what to do. Each worker signals it is ready, waits for a "go" file, then
// races; its exit code says whether it won (0), lost with a conflict (3) or failed (4, 5).

constexpr char kWorkerEnv[] = "FLOE_TEST_PUT_IF_ABSENT_WORKER";

TEST(LocalStoreChildProcess, DISABLED_PutIfAbsentWorker) {
  const char* spec = std::getenv(kWorkerEnv);
  if (spec == nullptr) GTEST_SKIP() << "runs only as a child of PutIfAbsentAcrossProcesses";
  // spec: "<control dir>|<store root>|<key>|<writer id>"
  std::vector<std::string> parts;
  std::string s = spec;
  for (size_t start = 0;;) {
    size_t bar = s.find('|', start);
    parts.push_back(s.substr(start, bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  if (parts.size() != 4) _exit(5);
  auto store = LocalStore::Open(parts[1]);
  if (!store) _exit(5);
  std::ofstream(parts[0] + "/ready-" + parts[3]) << "";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(parts[0] + "/go")) {
    if (std::chrono::steady_clock::now() > deadline) _exit(5);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  auto r = (*store)->PutIfAbsent(parts[2], AsBytes("writer " + parts[3]));
  _exit(r ? 0 : r.error().kind == ErrorKind::kConflict ? 3 : 4);
}

pid_t SpawnWorker(const std::string& spec) {
  return floe::testing::SpawnSelf("LocalStoreChildProcess.DISABLED_PutIfAbsentWorker", kWorkerEnv,
                                  spec);
}

TEST(LocalStore, PutIfAbsentAcrossProcessesHasExactlyOneWinner) {
  TempDir dir;
  std::string root = dir.str() + "/store";
  auto store = OpenOrDie(root);
  constexpr int kWorkers = 3;
  for (int round = 0; round < 4; ++round) {
    std::string control = fmt::format("{}/control{}", dir.str(), round);
    fs::create_directories(control);
    std::string key = fmt::format("metadata/v{}.metadata.json", round);
    std::vector<pid_t> pids;
    for (int w = 0; w < kWorkers; ++w) {
      pid_t pid = SpawnWorker(fmt::format("{}|{}|{}|{}", control, root, key, w));
      ASSERT_GT(pid, 0) << "cannot spawn worker";
      pids.push_back(pid);
    }
    // Start them together once all are waiting.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int w = 0; w < kWorkers; ++w) {
      while (!fs::exists(fmt::format("{}/ready-{}", control, w)) &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    std::ofstream(control + "/go") << "";
    int winners = 0;
    int winner = -1;
    for (int w = 0; w < kWorkers; ++w) {
      int status = 0;
      ASSERT_EQ(waitpid(pids[w], &status, 0), pids[w]);
      ASSERT_TRUE(WIFEXITED(status)) << "worker " << w << " did not exit normally";
      int code = WEXITSTATUS(status);
      ASSERT_TRUE(code == 0 || code == 3) << "worker " << w << " exit code " << code;
      if (code == 0) {
        ++winners;
        winner = w;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    auto got = store->Get(key);
    ASSERT_TRUE(got) << got.error().ToString();
    EXPECT_EQ(got->ToString(), fmt::format("writer {}", winner));
  }
  // No temp file is left behind by any process.
  for (const auto& f : FilesUnder(root)) EXPECT_EQ(f.find(".floe-tmp-"), std::string::npos) << f;
}

}  // namespace
}  // namespace floe::io
