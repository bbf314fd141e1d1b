#include "floe/iceberg/commit.h"

#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/runtime.h"
#include "floe/io/fault_store.h"
#include "floe/io/local_store.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

using catalog::TableIdentifier;

struct Warehouse {
  testing::TempDir dir;
  std::shared_ptr<io::FaultStore> faults;
  std::shared_ptr<catalog::SqlCatalog> cat;
  std::unique_ptr<FileIO> io;
  TableIdentifier id = TableIdentifier::Parse("db.events").value();

  Warehouse() {
    faults = std::make_shared<io::FaultStore>(io::LocalStore::Open(dir.str()).value());
    cat = catalog::SqlCatalog::Open(dir.str() + "/catalog.db").value();
    io = std::make_unique<FileIO>(faults, "file://" + dir.str());
  }

  Table Create(std::map<std::string, std::string> props = {}) {
    Schema s(0, {NestedField{1, "id", true, Primitive(TypeId::kLong)},
                 NestedField{2, "day", false, Primitive(TypeId::kDate)}});
    CreateTableOptions o{s, PartitionSpec::Parse("day", s).value(), SortOrder(), std::move(props),
                         ""};
    return CreateTable(*cat, *io, id, std::move(o)).value();
  }

  std::set<std::string> Objects() {
    std::set<std::string> out;
    auto all = faults->inner()->ListAll("");
    for (const auto& o : *all) out.insert(o.key);
    return out;
  }
};

DataFile File(const std::string& name, int day, int64_t rows) {
  DataFile f;
  f.file_path = "file:///nowhere/" + name + ".parquet";  // commits never read data files
  f.partition = {Literal::Date(day)};
  f.record_count = rows;
  f.file_size_in_bytes = rows * 10;
  return f;
}

std::set<std::string> LivePaths(const Warehouse& w) {
  Table t = LoadTable(*w.cat, *w.io, w.id).value();
  std::set<std::string> out;
  auto entries = t.LiveEntries(*w.io);
  EXPECT_TRUE(entries.has_value()) << entries.error().ToString();
  for (const auto& e : *entries) out.insert(e.file.file_path);
  return out;
}

TEST(Commit, CreateLaysOutTheTableAsTheCatalogExpects) {
  Warehouse w;
  Table t = w.Create();
  EXPECT_EQ(t.metadata.location, "file://" + w.dir.str() + "/db.db/events");
  EXPECT_EQ(MetadataVersion(t.metadata_location), 0);
  EXPECT_TRUE(t.metadata_location.starts_with(t.metadata.location + "/metadata/00000-"));
  EXPECT_EQ(w.cat->LoadTable(w.id).value(), t.metadata_location);
  EXPECT_EQ(CreateTable(*w.cat, *w.io, w.id, {t.metadata.CurrentSchema(), {}, {}, {}, ""})
                .error()
                .ToString(),
            "conflict: table 'db.events' already exists");
}

TEST(Commit, AppendsAccumulateWithSequenceNumbersAndSummaries) {
  Warehouse w;
  w.Create();
  Table t1 = AppendFiles(*w.cat, *w.io, w.id, {File("a", 100, 10), File("b", 101, 20)}).value();
  Table t2 = AppendFiles(*w.cat, *w.io, w.id, {File("c", 100, 5)}).value();
  EXPECT_EQ(MetadataVersion(t2.metadata_location), 2);
  EXPECT_EQ(t2.metadata.snapshots.size(), 2u);
  EXPECT_EQ(t2.metadata.last_sequence_number, 2);
  const Snapshot* cur = t2.metadata.CurrentSnapshot();
  EXPECT_EQ(cur->parent_snapshot_id, t1.metadata.CurrentSnapshot()->snapshot_id);
  EXPECT_EQ(cur->summary.at("operation"), "append");
  EXPECT_EQ(cur->summary.at("added-data-files"), "1");
  EXPECT_EQ(cur->summary.at("total-records"), "35");
  EXPECT_EQ(cur->summary.at("total-data-files"), "3");
  EXPECT_EQ(cur->summary.at("changed-partition-count"), "1");
  EXPECT_EQ(t2.metadata.metadata_log.size(), 2u);
  EXPECT_EQ(t2.metadata.metadata_log.back().metadata_file, t1.metadata_location);

  auto entries = t2.LiveEntries(*w.io).value();
  ASSERT_EQ(entries.size(), 3u);
  std::map<std::string, int64_t> seq;
  for (const auto& e : entries) seq[e.file.file_path] = *e.sequence_number;
  EXPECT_EQ(seq["file:///nowhere/a.parquet"], 1);
  EXPECT_EQ(seq["file:///nowhere/c.parquet"], 2);
  // Time travel: the first snapshot still lists two files.
  EXPECT_EQ(t2.LiveEntries(*w.io, t1.metadata.CurrentSnapshot()->snapshot_id)->size(), 2u);
}

TEST(Commit, ReplaceSwapsLiveFilesAndRefusesFilesThatAreGone) {
  Warehouse w;
  w.Create();
  AppendFiles(*w.cat, *w.io, w.id, {File("a", 100, 10), File("b", 100, 20), File("c", 101, 1)})
      .value();
  SnapshotUpdate u;
  u.operation = "replace";
  u.deleted_paths = {"file:///nowhere/a.parquet", "file:///nowhere/b.parquet"};
  u.added = {File("ab", 100, 30)};
  Table t = CommitSnapshot(*w.cat, *w.io, w.id, u).value();
  EXPECT_EQ(LivePaths(w),
            (std::set<std::string>{"file:///nowhere/ab.parquet", "file:///nowhere/c.parquet"}));
  const auto& s = t.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(s.at("operation"), "replace");
  EXPECT_EQ(s.at("deleted-data-files"), "2");
  EXPECT_EQ(s.at("deleted-records"), "30");
  EXPECT_EQ(s.at("total-records"), "31");
  EXPECT_EQ(s.at("total-data-files"), "2");

  std::string before = w.cat->LoadTable(w.id).value();
  auto again = CommitSnapshot(*w.cat, *w.io, w.id, u);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().ToString(),
            "conflict: cannot replace 'file:///nowhere/a.parquet': it is no longer a live file of "
            "table 'db.events'");
  EXPECT_EQ(w.cat->LoadTable(w.id).value(), before);
}

// Fail each store request of a commit in turn: the table must stay exactly as it was, readable,
// and the commit's own files must be gone.
TEST(Commit, AFailureAtAnyStepLeavesTheTableAsItWas) {
  Warehouse w;
  ScopedMetadataCacheOff every_read_reaches_the_store(w.io->runtime());
  w.Create();
  AppendFiles(*w.cat, *w.io, w.id, {File("a", 100, 10)}).value();
  const std::string before = w.cat->LoadTable(w.id).value();
  const std::set<std::string> objects_before = w.Objects();
  int failures = 0;
  for (uint64_t n = 1;; ++n) {
    w.faults->ClearRules();
    w.faults->AddRule(io::FaultRule::FailNth(n, std::nullopt, ErrorKind::kIO, /*transient=*/false));
    uint64_t injected_before = w.faults->injected();
    auto r = AppendFiles(*w.cat, *w.io, w.id, {File("b", 102, 5), File("c", 103, 6)});
    if (w.faults->injected() == injected_before) {
      ASSERT_TRUE(r.has_value()) << r.error().ToString();  // no request left to fail: it landed
      w.faults->ClearRules();
      break;
    }
    ++failures;
    ASSERT_FALSE(r.has_value()) << "request " << n;
    EXPECT_EQ(r.error().kind, ErrorKind::kIO);
    w.faults->ClearRules();
    EXPECT_EQ(w.cat->LoadTable(w.id).value(), before) << "request " << n;
    EXPECT_EQ(LivePaths(w), std::set<std::string>{"file:///nowhere/a.parquet"}) << "request " << n;
    EXPECT_EQ(w.Objects(), objects_before) << "request " << n;
  }
  EXPECT_GE(failures, 5);  // read metadata, read list, manifest, list, metadata at least
  EXPECT_EQ(LivePaths(w).size(), 3u);
}

TEST(Commit, ManifestsMergePastTheMinimumCount) {
  Warehouse w;
  w.Create({{"commit.manifest.min-count-to-merge", "3"}});
  for (int i = 0; i < 5; ++i) {
    AppendFiles(*w.cat, *w.io, w.id, {File("f" + std::to_string(i), 100 + i, 10)}).value();
  }
  Table t = LoadTable(*w.cat, *w.io, w.id).value();
  auto manifests = t.Manifests(*w.io, *t.metadata.CurrentSnapshot()).value();
  // Appends 1-2 make 2 manifests; the 3rd merges into 1; then 2; the 5th merges again.
  EXPECT_EQ(manifests.size(), 1u);
  EXPECT_EQ(manifests[0].added_files_count, 1);
  EXPECT_EQ(manifests[0].existing_files_count, 4);
  auto entries = t.LiveEntries(*w.io).value();
  ASSERT_EQ(entries.size(), 5u);
  std::map<std::string, int64_t> seq;
  for (const auto& e : entries) seq[e.file.file_path] = *e.sequence_number;
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(seq["file:///nowhere/f" + std::to_string(i) + ".parquet"], i + 1);
}

// Two processes append at the same time, many times: every append lands exactly once.
TEST(Commit, ConcurrentWritersInTwoProcessesBothLand) {
  Warehouse w;
  w.Create({{"commit.retry.num-retries", "50"},
            {"commit.retry.min-wait-ms", "1"},
            {"commit.retry.max-wait-ms", "20"}});
  constexpr int kPerProc = 6;
  std::vector<pid_t> kids;
  for (int p = 0; p < 2; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = io::LocalStore::Open(w.dir.str()).value();
      auto cat = catalog::SqlCatalog::Open(w.dir.str() + "/catalog.db").value();
      FileIO fio(store, "file://" + w.dir.str());
      for (int i = 0; i < kPerProc; ++i) {
        auto r = AppendFiles(*cat, fio, w.id,
                             {File("p" + std::to_string(p) + "-" + std::to_string(i), 100, 1)});
        if (!r) {
          fprintf(stderr, "child %d: %s\n", p, r.error().ToString().c_str());
          _exit(1);
        }
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  EXPECT_EQ(LivePaths(w).size(), 2u * kPerProc);
  Table t = LoadTable(*w.cat, *w.io, w.id).value();
  EXPECT_EQ(t.metadata.snapshots.size(), 2u * kPerProc);
  EXPECT_EQ(t.metadata.last_sequence_number, 2 * kPerProc);
}

}  // namespace
}  // namespace floe::iceberg
