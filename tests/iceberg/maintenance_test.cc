#include <gtest/gtest.h>

#include "floe/base/clock.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/remove_orphan_files.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/rewrite_manifests.h"
#include "floe/iceberg/runtime.h"
#include "floe/io/counting_store.h"
#include "floe/io/fault_store.h"
#include "maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using namespace testing_support;

constexpr int64_t kRows = 100000;
constexpr int kBatches = 8;
constexpr int64_t kTwoMB = 2 << 20;

catalog::TableIdentifier Id(const std::string& name = "dim") {
  return catalog::TableIdentifier::Parse("db." + name).value();
}

// The dimension: 8 appends of shuffled ids under a declared sort order on id.
void WriteDimension(Warehouse& w, const catalog::TableIdentifier& id) {
  CreateDimension(w, id, "id ASC NULLS LAST");
  for (const auto& ids : ShuffledIdBatches(kRows, kBatches))
    AppendBatch(w, id, DimensionBatch(ids));
}

struct Range {
  int64_t lo, hi;
};
std::vector<Range> IdRanges(const Warehouse& w, const catalog::TableIdentifier& id) {
  auto files = ReadMetadataTable(w.Load(id), *w.io, "files").value();
  auto lo = LongColumn(files, "readable_metrics.id.lower_bound");
  auto hi = LongColumn(files, "readable_metrics.id.upper_bound");
  std::vector<Range> out;
  for (size_t i = 0; i < lo.size(); ++i) out.push_back({lo[i], hi[i]});
  std::sort(out.begin(), out.end(), [](Range a, Range b) { return a.lo < b.lo; });
  return out;
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

size_t FilesOpenedFor(const Warehouse& w, const catalog::TableIdentifier& id, int64_t key) {
  ScanOptions o;
  o.filter = Predicate(Op::kEq, "id", {Literal::Long(key)});
  return PlanFiles(w.Load(id), *w.io, o).value().tasks.size();
}

TEST(RewriteDataFiles, SortOrderPerWriteDoesNotClusterButASortRewriteDoes) {
  Warehouse w;
  WriteDimension(w, Id());
  // Every write sorted its own rows, yet each file's id range spans nearly the whole table.
  std::vector<Range> before = IdRanges(w, Id());
  ASSERT_EQ(before.size(), 8u);
  for (const auto& a : before) {
    EXPECT_LT(a.lo, kRows / 100);
    EXPECT_GT(a.hi, kRows - kRows / 100);
  }
  EXPECT_EQ(FilesOpenedFor(w, Id(), 4242), 8u);
  const int64_t start_seq = w.Load(Id()).metadata.last_sequence_number;

  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  o.target_file_size_bytes = kTwoMB;
  int64_t read_files = 0;
  o.on_file_read = [&](int64_t n, int64_t) { read_files += n; };
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->rewritten_data_files_count, 8);
  EXPECT_EQ(read_files, 8);
  EXPECT_EQ(r->rewritten_records, kRows);
  EXPECT_EQ(r->commits, 1);
  EXPECT_GE(r->added_data_files_count, 3) << "the data should make several 2 MB files";

  std::vector<Range> after = IdRanges(w, Id());
  ASSERT_EQ(static_cast<int64_t>(after.size()), r->added_data_files_count);
  EXPECT_EQ(after.front().lo, 0);
  EXPECT_EQ(after.back().hi, kRows - 1);
  for (size_t i = 1; i < after.size(); ++i) {
    EXPECT_EQ(after[i].lo, after[i - 1].hi + 1) << "file ranges must be disjoint and adjacent";
  }
  // A point lookup now opens exactly one file, wherever the key is.
  for (int64_t key : {int64_t{0}, int64_t{4242}, kRows / 2, kRows - 1}) {
    EXPECT_EQ(FilesOpenedFor(w, Id(), key), 1u) << key;
  }
  // Files near the target: none past the max, all but the last at least half of it.
  auto files = ReadMetadataTable(w.Load(Id()), *w.io, "files").value();
  auto sizes = LongColumn(files, "file_size_in_bytes");
  for (int64_t s : sizes) EXPECT_LE(s, kTwoMB * 18 / 10);
  EXPECT_EQ(AllIds(w, Id()), Iota(kRows));

  // A replace whose new files keep the data sequence number of the snapshot it read.
  Table t = w.Load(Id());
  EXPECT_EQ(t.metadata.CurrentSnapshot()->operation(), "replace");
  EXPECT_EQ(t.metadata.CurrentSnapshot()->summary.at("deleted-data-files"), "8");
  auto entries = ReadMetadataTable(t, *w.io, "entries").value();
  auto status = LongColumn(entries, "status");
  auto seq = LongColumn(entries, "sequence_number");
  auto fseq = LongColumn(entries, "file_sequence_number");
  int added = 0;
  for (int64_t i = 0; i < entries.num_rows; ++i) {
    if (status[i] != 1) continue;
    ++added;
    EXPECT_EQ(seq[i], start_seq);
    EXPECT_EQ(fseq[i], start_seq + 1);
  }
  EXPECT_EQ(added, r->added_data_files_count);
  // The declared order is the one used: the files say so.
  auto order_ids = LongColumn(files, "sort_order_id");
  for (int64_t id : order_ids) EXPECT_EQ(id, t.metadata.default_sort_order_id);
}

TEST(RewriteDataFiles, SortWithTheDefaultTargetMakesOneFile) {
  Warehouse w;
  WriteDimension(w, Id());
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->added_data_files_count, 1);
  std::vector<Range> after = IdRanges(w, Id());
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].lo, 0);
  EXPECT_EQ(after[0].hi, kRows - 1);
  // Sorted inside: the reader sees ids in order.
  Table t = w.Load(Id());
  auto plan = PlanFiles(t, *w.io, {}).value();
  auto batches = ReadTask(plan.tasks[0], t.metadata.CurrentSchema(), *w.io).value();
  int64_t expect = 0;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ASSERT_EQ(b.columns[0]->Value<int64_t>(i), expect++);
  }
  EXPECT_EQ(expect, kRows);
}

TEST(RewriteDataFiles, SortByAnotherMultiColumnOrder) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  for (const auto& ids : ShuffledIdBatches(2000, 5)) AppendBatch(w, Id(), DimensionBatch(ids));
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  o.sort_order_text = "category DESC, id ASC";
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->added_data_files_count, 1);
  Table t = w.Load(Id());
  auto plan = PlanFiles(t, *w.io, {}).value();
  auto batches = ReadTask(plan.tasks[0], t.metadata.CurrentSchema(), *w.io).value();
  std::vector<std::pair<std::string, int64_t>> rows;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i)
      rows.emplace_back(std::string(b.columns[1]->BytesAt(i)), b.columns[0]->Value<int64_t>(i));
  }
  ASSERT_EQ(rows.size(), 2000u);
  for (size_t i = 1; i < rows.size(); ++i) {
    bool ordered = rows[i - 1].first > rows[i].first ||
                   (rows[i - 1].first == rows[i].first && rows[i - 1].second < rows[i].second);
    ASSERT_TRUE(ordered) << i;
  }
  // Not the table's order (it has none): the files carry no sort order id.
  auto files = ReadMetadataTable(t, *w.io, "files").value();
  EXPECT_EQ(LongColumn(files, "sort_order_id")[0], -1);
  EXPECT_EQ(t.metadata.CurrentSnapshot()->summary.at("rewrite-sort-order"),
            "category DESC NULLS LAST, id ASC NULLS FIRST");
}

TEST(RewriteDataFiles, SortNeedsAnOrder) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  AppendBatch(w, Id(), DimensionBatch(Iota(10)));
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(),
            "invalid input: the sort strategy needs a sort order or a clustering: the table has "
            "neither (no sort order, no floe.layout), and none was given");
  o.sort_order_text = "nosuch";
  r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().message.starts_with("sort order: ")) << r.error().ToString();
}

TEST(RewriteDataFiles, BinPackHonoursMinInputFilesAndRewriteAll) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  for (int i = 0; i < 4; ++i) {
    std::vector<int64_t> ids(100);
    std::iota(ids.begin(), ids.end(), i * 100);
    AppendBatch(w, Id(), DimensionBatch(ids));
  }
  const std::string before = w.Load(Id()).metadata_location;
  RewriteOptions o;  // binpack, min-input-files 5: four small files are left alone
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->commits, 0);
  EXPECT_EQ(r->rewritten_data_files_count, 0);
  EXPECT_EQ(w.Load(Id()).metadata_location, before);

  o.min_input_files = 4;
  r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->rewritten_data_files_count, 4);
  EXPECT_EQ(r->added_data_files_count, 1);
  EXPECT_EQ(AllIds(w, Id()), Iota(400));
  // Bin-pack keeps rows in the order it read them (file by file) and claims no sort order.
  auto files = ReadMetadataTable(w.Load(Id()), *w.io, "files").value();
  EXPECT_EQ(LongColumn(files, "sort_order_id")[0], -1);

  // One file is never rewritten alone, unless rewrite-all says so.
  o = RewriteOptions{};
  r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->commits, 0);
  o.rewrite_all = true;
  r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rewritten_data_files_count, 1);
  EXPECT_EQ(AllIds(w, Id()), Iota(400));
}

TEST(RewriteDataFiles, FilterRestrictsToMatchingPartitionsAndPartialProgressCommitsPerGroup) {
  Warehouse w;
  CreateDimension(w, Id(), "", "category");
  for (int i = 0; i < 5; ++i) {
    std::vector<int64_t> ids(40);
    std::iota(ids.begin(), ids.end(), i * 40);
    AppendBatch(w, Id(), DimensionBatch(ids, 3));  // 3 categories: 15 files
  }
  RewriteOptions o;
  o.filter = Predicate(Op::kEq, "category", {Literal::String("c1")});
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->rewritten_data_files_count, 5);
  EXPECT_EQ(r->added_data_files_count, 1);
  auto parts = ReadMetadataTable(w.Load(Id()), *w.io, "partitions").value();
  EXPECT_EQ(LongColumn(parts, "file_count"), (std::vector<int64_t>{5, 1, 5}));

  // The other two partitions, one commit each.
  o = RewriteOptions{};
  o.partial_progress_enabled = true;
  o.partial_progress_max_commits = 10;
  r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->file_groups, 2);
  EXPECT_EQ(r->commits, 2);
  EXPECT_EQ(r->snapshot_ids.size(), 2u);
  parts = ReadMetadataTable(w.Load(Id()), *w.io, "partitions").value();
  EXPECT_EQ(LongColumn(parts, "file_count"), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(AllIds(w, Id()), Iota(200));
}

// With partial progress, a group that cannot be read stops the rewrite after the commits that
// landed, and the error says what they did.
TEST(RewriteDataFiles, AFailureAfterPartialProgressSaysWhatWasCommitted) {
  Warehouse w;
  ScopedMetadataCacheOff every_read_reaches_the_store(w.io->runtime());
  CreateDimension(w, Id(), "", "category");
  for (int i = 0; i < 5; ++i) {
    std::vector<int64_t> ids(40);
    std::iota(ids.begin(), ids.end(), i * 40);
    AppendBatch(w, Id(), DimensionBatch(ids, 3));  // 3 categories: 15 files
  }
  // One input of the second group (category=c1) is lost.
  std::string lost;
  const std::vector<ManifestEntry> entries = w.Load(Id()).LiveEntries(*w.io).value();
  for (const auto& e : entries) {
    if (e.file.file_path.find("category=c1") != std::string::npos) lost = e.file.file_path;
  }
  ASSERT_FALSE(lost.empty());
  auto deleted = w.io->Delete(lost);
  ASSERT_TRUE(deleted.has_value()) << deleted.error().ToString();
  RewriteOptions o;
  o.partial_progress_enabled = true;
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().message.starts_with(
      "rewrite_data_files of 'db.dim' committed 1 file groups (5 files -> 1) in 1 commits, then: "))
      << r.error().ToString();
  EXPECT_NE(r.error().message.find(w.KeyOf(lost)), std::string::npos) << r.error().ToString();
  auto parts = ReadMetadataTable(w.Load(Id()), *w.io, "partitions").value();
  EXPECT_EQ(LongColumn(parts, "file_count"), (std::vector<int64_t>{1, 5, 5}));
}

TEST(RewriteDataFiles, AConcurrentRemovalOfAnInputFailsItAndLeavesTheTableUnchanged) {
  Warehouse w;
  CreateDimension(w, Id(), "id");
  for (int i = 0; i < 5; ++i) {
    std::vector<int64_t> ids(50);
    std::iota(ids.begin(), ids.end(), i * 50);
    AppendBatch(w, Id(), DimensionBatch(ids));
  }
  std::string victim;
  std::string after_concurrent;
  std::set<std::string> data_before;
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  o.before_commit = [&] {
    // Another writer deletes one of the rewrite's input files first.
    Table t = w.Load(Id());
    victim = t.LiveEntries(*w.io).value()[0].file.file_path;
    SnapshotUpdate u;
    u.operation = "delete";
    u.deleted_paths = {victim};
    after_concurrent = CommitSnapshot(*w.cat, *w.io, Id(), u).value().metadata_location;
    data_before = w.Keys(Id(), "data/");
  };
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kConflict);
  EXPECT_TRUE(r.error().message.starts_with(
      fmt::format("rewrite_data_files of 'db.dim' did not commit: data file '{}' that this "
                  "statement changes was removed by snapshot ",
                  victim)))
      << r.error().message;
  EXPECT_TRUE(r.error().message.ends_with("; nothing was committed")) << r.error().message;
  // The table is as the concurrent writer left it, and the rewrite's own files are gone.
  EXPECT_EQ(w.Load(Id()).metadata_location, after_concurrent);
  std::set<std::string> data_after = w.Keys(Id(), "data/");
  EXPECT_EQ(data_after.size(), 5u);
  EXPECT_EQ(w.Load(Id()).LiveEntries(*w.io).value().size(), 4u);
  EXPECT_LT(data_after.size(), data_before.size());
}

TEST(RewriteDataFiles, AConcurrentAppendIsKept) {
  Warehouse w;
  CreateDimension(w, Id(), "id");
  for (int i = 0; i < 5; ++i) AppendBatch(w, Id(), DimensionBatch({i}));
  RewriteOptions o;
  o.before_commit = [&] { AppendBatch(w, Id(), DimensionBatch({99})); };
  auto r = RewriteDataFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{0, 1, 2, 3, 4, 99}));
  EXPECT_EQ(w.Load(Id()).LiveEntries(*w.io).value().size(), 2u);
}

// Every object under data/ is a live file of the current snapshot, and every manifest and list
// under metadata/ belongs to a retained snapshot.
void ExpectNoUnreferencedFile(const Warehouse& w, const catalog::TableIdentifier& id) {
  Table t = w.Load(id);
  std::set<std::string> live;
  for (const auto& s : t.metadata.snapshots) {
    std::vector<ManifestEntry> entries = t.LiveEntries(*w.io, s.snapshot_id).value();
    for (const auto& e : entries) live.insert(w.KeyOf(e.file.file_path));
  }
  EXPECT_EQ(w.Keys(id, "data/"), live);
  std::set<std::string> meta;
  for (const auto& s : t.metadata.snapshots) {
    meta.insert(w.KeyOf(s.manifest_list));
    std::vector<ManifestFile> manifests = t.Manifests(*w.io, s).value();
    for (const auto& m : manifests) meta.insert(w.KeyOf(m.manifest_path));
  }
  std::set<std::string> avro;
  for (const auto& k : w.Keys(id, "metadata/")) {
    if (k.ends_with(".avro")) avro.insert(k);
  }
  EXPECT_EQ(avro, meta);
}

TEST(ExpireSnapshots, RetainLastDeletesOnlyWhatNoRetainedSnapshotNeeds) {
  Warehouse w;
  WriteDimension(w, Id());
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  ASSERT_TRUE(RewriteDataFiles(*w.cat, *w.io, Id(), o).has_value());
  ASSERT_EQ(w.Load(Id()).metadata.snapshots.size(), 9u);

  // Defaults: nothing is older than five days.
  auto r = ExpireSnapshots(*w.cat, *w.io, Id(), {});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->expired_snapshot_ids.empty());

  ExpireSnapshotsOptions e;
  e.older_than_ms = UnixMillisNow() + 1000;
  e.retain_last = 2;
  r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 7u);
  // The 8 appended files stay: snapshot 8 (retained) still reads them.
  EXPECT_EQ(r->deleted_data_files_count, 0);
  EXPECT_EQ(r->deleted_manifest_lists_count, 7);
  Table t = w.Load(Id());
  EXPECT_EQ(t.metadata.snapshots.size(), 2u);
  ExpectNoUnreferencedFile(w, Id());
  EXPECT_EQ(AllIds(w, Id()), Iota(kRows));

  e.retain_last = 1;
  r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 1u);
  EXPECT_EQ(r->deleted_data_files_count, 8);
  ExpectNoUnreferencedFile(w, Id());
  EXPECT_EQ(AllIds(w, Id()), Iota(kRows));
  t = w.Load(Id());
  ASSERT_EQ(t.metadata.snapshots.size(), 1u);
  EXPECT_EQ(t.metadata.snapshot_log.size(), 1u);
}

TEST(ExpireSnapshots, AWriterCommittingMeanwhileLosesNothing) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  for (int i = 0; i < 4; ++i) AppendBatch(w, Id(), DimensionBatch({i}));
  ExpireSnapshotsOptions e;
  e.older_than_ms = UnixMillisNow() + 1000;
  e.retain_last = 1;
  e.before_delete = [&] { AppendBatch(w, Id(), DimensionBatch({10})); };
  auto r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 3u);
  EXPECT_EQ(r->deleted_data_files_count, 0);  // appends never drop a file
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{0, 1, 2, 3, 10}));
  ExpectNoUnreferencedFile(w, Id());
}

// Four appends, a rewrite of their four files into one, then a fifth append: each expiry counts
// only what it deleted. The rewrite's manifests still name the four first files (as DELETED
// entries) when its snapshot expires, but the first expiry deleted those files already.
TEST(ExpireSnapshots, CountsExactlyWhatItDeletes) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  for (int i = 0; i < 4; ++i) AppendBatch(w, Id(), DimensionBatch({i}));
  RewriteOptions ro;
  ro.rewrite_all = true;
  ASSERT_TRUE(RewriteDataFiles(*w.cat, *w.io, Id(), ro).has_value());
  AppendBatch(w, Id(), DimensionBatch({4}));
  ASSERT_EQ(w.Keys(Id(), "data/").size(), 6u);

  ExpireSnapshotsOptions e;
  e.older_than_ms = UnixMillisNow() + 1000;
  e.retain_last = 2;
  auto r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 4u);
  EXPECT_EQ(r->deleted_data_files_count, 4);
  EXPECT_EQ(r->deleted_position_delete_files_count, 0);
  EXPECT_EQ(r->deleted_equality_delete_files_count, 0);
  EXPECT_EQ(r->deleted_manifest_files_count, 4);
  EXPECT_EQ(r->deleted_manifest_lists_count, 4);
  EXPECT_EQ(w.Keys(Id(), "data/").size(), 2u);
  ExpectNoUnreferencedFile(w, Id());

  e.retain_last = 1;
  r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->expired_snapshot_ids.size(), 1u);
  EXPECT_EQ(r->deleted_data_files_count, 0);      // the rewrite's output is live
  EXPECT_EQ(r->deleted_manifest_files_count, 4);  // its manifests of deletions
  EXPECT_EQ(r->deleted_manifest_lists_count, 1);
  EXPECT_EQ(r->deleted_bytes, 0);
  ExpectNoUnreferencedFile(w, Id());
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

// An unreadable manifest list -- of a snapshot to expire or of one to keep -- fails the expiry
// before it commits: the table and every file stay as they were.
TEST(ExpireSnapshots, UnreadableMetadataFailsItBeforeItCommits) {
  Warehouse w;
  ScopedMetadataCacheOff every_read_reaches_the_store(w.io->runtime());
  CreateDimension(w, Id(), "");
  for (int i = 0; i < 3; ++i) AppendBatch(w, Id(), DimensionBatch({i}));
  Table t = w.Load(Id());
  ASSERT_EQ(t.metadata.snapshots.size(), 3u);
  const std::set<std::string> data = w.Keys(Id(), "data/");
  const std::set<std::string> metadata = w.Keys(Id(), "metadata/");
  for (size_t victim : {size_t{0}, size_t{2}}) {
    const std::string list = t.metadata.snapshots[victim].manifest_list;
    Buffer good = w.io->Read(list).value();
    ASSERT_TRUE(w.io->Write(list, AsBytes(std::string("not avro"))).has_value());
    ExpireSnapshotsOptions e;
    e.older_than_ms = UnixMillisNow() + 1000;
    e.retain_last = 1;
    auto r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
    ASSERT_FALSE(r.has_value()) << victim;
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt) << r.error().ToString();
    EXPECT_NE(r.error().message.find(list), std::string::npos) << r.error().ToString();
    EXPECT_EQ(w.cat->LoadTable(Id()).value(), t.metadata_location);
    EXPECT_EQ(w.Keys(Id(), "data/"), data);
    EXPECT_EQ(w.Keys(Id(), "metadata/"), metadata);
    ASSERT_TRUE(w.io->Write(list, good.view()).has_value());
  }
}

// A failed delete after the expiry committed stops it with a message saying what was done.
TEST(ExpireSnapshots, AFailedDeleteSaysWhatWasDone) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  RewriteOptions ro;
  for (int i = 0; i < 3; ++i) AppendBatch(w, Id(), DimensionBatch({i}));
  ro.rewrite_all = true;
  ASSERT_TRUE(RewriteDataFiles(*w.cat, *w.io, Id(), ro).has_value());
  auto faults = std::make_shared<io::FaultStore>(w.store);
  faults->AddRule(io::FaultRule::FailNth(3, io::RequestKind::kDelete, ErrorKind::kIO, false));
  FileIO fio(faults, "file://" + w.dir.str());
  ExpireSnapshotsOptions e;
  e.older_than_ms = UnixMillisNow() + 1000;
  e.retain_last = 1;
  auto r = ExpireSnapshots(*w.cat, fio, Id(), e);
  ASSERT_FALSE(r.has_value());
  // 3 data files, 3 manifests and 3 manifest lists were to go.
  EXPECT_TRUE(r.error().ToString().starts_with(
      "io error: expire_snapshots of 'db.dim' expired 3 snapshots, then deleted 2 of their 9 "
      "files: "))
      << r.error().ToString();
  EXPECT_EQ(w.Load(Id()).metadata.snapshots.size(), 1u);
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{0, 1, 2}));
}

TEST(ExpireSnapshots, RefusesASnapshotARefNeeds) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  Table t = AppendBatch(w, Id(), DimensionBatch({1}));
  ExpireSnapshotsOptions e;
  e.snapshot_ids = {*t.metadata.current_snapshot_id};
  auto r = ExpireSnapshots(*w.cat, *w.io, Id(), e);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(),
            fmt::format("invalid input: cannot expire snapshot {}: ref 'main' still points at it",
                        *t.metadata.current_snapshot_id));
  EXPECT_EQ(w.Load(Id()).metadata_location, t.metadata_location);
}

TEST(RemoveOrphanFiles, DeletesOnlyOldUnreferencedFilesEvenWithAConcurrentCommit) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  for (int i = 0; i < 3; ++i) AppendBatch(w, Id(), DimensionBatch({i}));
  Table t = w.Load(Id());
  const std::string stray = t.metadata.location + "/data/stray.parquet";
  ASSERT_TRUE(w.io->Write(stray, AsBytes(std::string("junk"))).has_value());

  // The default guard (3 days) keeps a fresh stray file.
  auto r = RemoveOrphanFiles(*w.cat, *w.io, Id(), {});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->orphan_file_locations.empty());
  EXPECT_EQ(r->too_new_files, 1);

  // A writer's file exists before the listing and is committed right after it.
  TableDataWriter writer(t, *w.io);
  ASSERT_TRUE(writer.Write(DimensionBatch({77})).has_value());
  std::vector<DataFile> pending = writer.Finish().value();
  RemoveOrphanFilesOptions o;
  o.older_than_ms = UnixMillisNow() + 60000;  // everything is old enough
  o.allow_recent_files = true;                // this test knows what it writes
  o.after_listing = [&] { ASSERT_TRUE(AppendFiles(*w.cat, *w.io, Id(), pending).has_value()); };
  r = RemoveOrphanFiles(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->orphan_file_locations, (std::vector<std::string>{stray}));
  EXPECT_FALSE(w.store->Head(w.KeyOf(stray)).has_value());
  EXPECT_TRUE(w.store->Head(w.KeyOf(pending[0].file_path)).has_value());
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{0, 1, 2, 77}));
  ExpectNoUnreferencedFile(w, Id());
  // Old metadata files are referenced by the metadata log and stay.
  EXPECT_EQ(w.Keys(Id(), "metadata/").size(),
            w.Load(Id()).metadata.metadata_log.size() + 1 + 2 * 4);
}

// Iceberg warns that a short older_than deletes the files of writes in flight: floe refuses one
// under 24 hours unless told that no write is running; a dry run deletes nothing and may look.
TEST(RemoveOrphanFiles, RefusesAnAgeUnderTheFloorUnlessToldNoWriteIsRunning) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  Table t = AppendBatch(w, Id(), DimensionBatch({1, 2}));
  // A write in flight: its file is written, its commit not yet made.
  TableDataWriter writer(t, *w.io);
  ASSERT_TRUE(writer.Write(DimensionBatch({3})).has_value());
  std::vector<DataFile> pending = writer.Finish().value();
  const std::string before = w.cat->LoadTable(Id()).value();
  const std::string refused =
      "invalid input: remove_orphan_files of 'db.dim': older_than is less than 24 hours ago, so "
      "the files of a write still in flight would be deleted and its commit would reference "
      "missing files; use an older time (the floor is lifted only explicitly, when no write can "
      "be running)";
  for (int64_t age_ms : {int64_t{-60000}, int64_t{0}, kMinOrphanAgeMs - 60000}) {
    RemoveOrphanFilesOptions o;
    o.older_than_ms = UnixMillisNow() - age_ms;
    auto r = RemoveOrphanFiles(*w.cat, *w.io, Id(), o);
    ASSERT_FALSE(r.has_value()) << age_ms;
    EXPECT_EQ(r.error().ToString(), refused);
  }
  EXPECT_TRUE(w.store->Head(w.KeyOf(pending[0].file_path)).has_value());
  EXPECT_EQ(w.cat->LoadTable(Id()).value(), before);

  RemoveOrphanFilesOptions look;
  look.older_than_ms = UnixMillisNow() + 60000;
  look.dry_run = true;
  auto r = RemoveOrphanFiles(*w.cat, *w.io, Id(), look);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->orphan_file_locations, (std::vector<std::string>{pending[0].file_path}));
  EXPECT_TRUE(w.store->Head(w.KeyOf(pending[0].file_path)).has_value());

  // The floor itself is allowed (the file is younger: kept), and the write then lands whole.
  RemoveOrphanFilesOptions floor;
  floor.older_than_ms = UnixMillisNow() - kMinOrphanAgeMs - 1000;
  r = RemoveOrphanFiles(*w.cat, *w.io, Id(), floor);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->orphan_file_locations.empty());
  EXPECT_EQ(r->too_new_files, 1);
  ASSERT_TRUE(AppendFiles(*w.cat, *w.io, Id(), pending).has_value());
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{1, 2, 3}));
}

// A failed delete stops orphan removal with a message saying how much it had deleted.
TEST(RemoveOrphanFiles, AFailedDeleteSaysWhatWasDeleted) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  Table t = AppendBatch(w, Id(), DimensionBatch({1}));
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(w.io->Write(t.metadata.location + "/data/stray-" + name + ".parquet",
                            AsBytes(std::string("junk")))
                    .has_value());
  }
  auto faults = std::make_shared<io::FaultStore>(w.store);
  faults->AddRule(io::FaultRule::FailNth(2, io::RequestKind::kDelete, ErrorKind::kIO, false));
  FileIO fio(faults, "file://" + w.dir.str());
  RemoveOrphanFilesOptions o;
  o.older_than_ms = UnixMillisNow() + 60000;
  o.allow_recent_files = true;
  auto r = RemoveOrphanFiles(*w.cat, fio, Id(), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().ToString().starts_with(
      "io error: remove_orphan_files of 'db.dim' deleted 1 of 3 orphan files, then: "))
      << r.error().ToString();
  EXPECT_EQ(w.Keys(Id(), "data/").size(), 3u);  // the live file and two strays
}

// An append of its writer's files spends no request checking them: the writer PUT them moments
// ago and the orphan floor protects them. A file nobody vouches for (written by another process)
// takes one HEAD, and a missing one fails the commit with the table unchanged.
TEST(Commit, AddedFilesMustExistAndAWritersOwnCostNoRequest) {
  Warehouse w;
  CreateDimension(w, Id(), "");
  auto counting = std::make_shared<io::CountingStore>(w.store);
  FileIO fio(counting, "file://" + w.dir.str());
  TableDataWriter writer(w.Load(Id()), fio);
  ASSERT_TRUE(writer.Write(DimensionBatch({1, 2})).has_value());
  std::vector<DataFile> mine = writer.Finish().value();
  counting->Reset();
  ASSERT_TRUE(AppendFiles(*w.cat, fio, Id(), mine).has_value());
  EXPECT_EQ(counting->Snapshot().head, 0u);
  EXPECT_EQ(counting->Snapshot().list, 0u);

  TableDataWriter other(w.Load(Id()), fio);
  ASSERT_TRUE(other.Write(DimensionBatch({3})).has_value());
  std::vector<DataFile> theirs = other.Finish().value();
  theirs[0].written_at_ms.reset();  // as a file from another process arrives
  counting->Reset();
  ASSERT_TRUE(AppendFiles(*w.cat, fio, Id(), theirs).has_value());
  EXPECT_EQ(counting->Snapshot().head, 1u);

  // A write that has run longer than half the floor is checked too; a deleted file fails it.
  TableDataWriter slow(w.Load(Id()), fio);
  ASSERT_TRUE(slow.Write(DimensionBatch({4})).has_value());
  std::vector<DataFile> old = slow.Finish().value();
  *old[0].written_at_ms -= kMinOrphanAgeMs / 2 + 1000;
  ASSERT_TRUE(fio.Delete(old[0].file_path).has_value());
  const std::string before = w.cat->LoadTable(Id()).value();
  auto r = AppendFiles(*w.cat, fio, Id(), old);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(),
            fmt::format("not found: data file '{}' of this commit does not exist (removed as an "
                        "orphan while the write ran?); nothing was committed",
                        old[0].file_path));
  EXPECT_EQ(w.cat->LoadTable(Id()).value(), before);

  // A file of another size than the commit records is not the file that was written.
  TableDataWriter again(w.Load(Id()), fio);
  ASSERT_TRUE(again.Write(DimensionBatch({5})).has_value());
  std::vector<DataFile> changed = again.Finish().value();
  changed[0].written_at_ms.reset();
  ASSERT_TRUE(fio.Write(changed[0].file_path, AsBytes(std::string("junk"))).has_value());
  r = AppendFiles(*w.cat, fio, Id(), changed);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(),
            fmt::format("conflict: data file '{}' of this commit is 4 bytes in the store, not the "
                        "{} it was written with; nothing was committed",
                        changed[0].file_path, changed[0].file_size_in_bytes));
  EXPECT_EQ(w.cat->LoadTable(Id()).value(), before);
  EXPECT_EQ(AllIds(w, Id()), (std::vector<int64_t>{1, 2, 3}));
}

TEST(RewriteManifests, GroupsEntriesByPartitionAndKeepsFilesAndSequenceNumbers) {
  Warehouse w;
  CreateDimension(w, Id(), "", "category");
  for (int i = 0; i < 6; ++i) {
    std::vector<int64_t> ids(20);
    std::iota(ids.begin(), ids.end(), i * 20);
    AppendBatch(w, Id(), DimensionBatch(ids, 3));
  }
  Table before = w.Load(Id());
  auto entries_before = ReadMetadataTable(before, *w.io, "entries").value();
  ASSERT_EQ(ReadMetadataTable(before, *w.io, "manifests")->num_rows, 6);

  RewriteManifestsOptions o;
  o.target_manifest_size_bytes = 1;  // as small as possible: one partition's worth at a time
  auto r = RewriteManifests(*w.cat, *w.io, Id(), o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->rewritten_manifests_count, 6);
  EXPECT_EQ(r->entries, 18);
  Table after = w.Load(Id());
  EXPECT_EQ(after.metadata.CurrentSnapshot()->operation(), "replace");
  EXPECT_EQ(after.metadata.CurrentSnapshot()->summary.at("total-records"), "120");
  // Same files with the same sequence numbers, now EXISTING.
  auto entries_after = ReadMetadataTable(after, *w.io, "entries").value();
  auto key = [](const c::RecordBatch& b) {
    std::map<std::string, int64_t> m;
    auto paths = StringColumn(b, "data_file.file_path");
    auto seq = LongColumn(b, "sequence_number");
    for (size_t i = 0; i < paths.size(); ++i) m[paths[i]] = seq[i];
    return m;
  };
  EXPECT_EQ(key(entries_after), key(entries_before));
  for (int64_t s : LongColumn(entries_after, "status")) EXPECT_EQ(s, 0);
  // Each manifest covers one partition, so a partition filter prunes all but its manifests.
  ScanOptions so;
  so.filter = Predicate(Op::kEq, "category", {Literal::String("c2")});
  auto plan = PlanFiles(after, *w.io, so).value();
  EXPECT_EQ(plan.tasks.size(), 6u);
  EXPECT_EQ(plan.stats.manifests_total - plan.stats.manifests_skipped,
            plan.stats.manifests_total / 3);
  EXPECT_EQ(AllIds(w, Id()), Iota(120));

  // Default target: one manifest.
  r = RewriteManifests(*w.cat, *w.io, Id());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->added_manifests_count, 1);
  EXPECT_EQ(ReadMetadataTable(w.Load(Id()), *w.io, "manifests")->num_rows, 1);
}

TEST(RewriteDataFiles, OptionsFromIcebergNames) {
  auto o = RewriteOptionsFromMap({{"strategy", "SORT"},
                                  {"sort_order", "id DESC"},
                                  {"target-file-size-bytes", "2097152"},
                                  {"min-input-files", "2"},
                                  {"rewrite-all", "true"},
                                  {"partial-progress.enabled", "true"},
                                  {"partial-progress.max-commits", "3"},
                                  {"max-concurrent-file-group-rewrites", "5"}});
  ASSERT_TRUE(o.has_value()) << o.error().ToString();
  EXPECT_EQ(o->strategy, RewriteStrategy::kSort);
  EXPECT_EQ(o->sort_order_text, "id DESC");
  EXPECT_EQ(o->target_file_size_bytes, 2097152);
  EXPECT_EQ(o->min_input_files, 2);
  EXPECT_TRUE(o->rewrite_all);
  EXPECT_TRUE(o->partial_progress_enabled);
  EXPECT_EQ(o->partial_progress_max_commits, 3);
  EXPECT_EQ(RewriteOptionsFromMap({{"min-input-files", "five"}}).error().ToString(),
            "invalid input: rewrite option 'min-input-files': 'five' is not an integer");
  EXPECT_EQ(RewriteOptionsFromMap({{"target-size", "1"}}).error().ToString(),
            "invalid input: unknown rewrite_data_files option 'target-size'");
  EXPECT_EQ(RewriteOptionsFromMap({{"strategy", "zorder"}}).error().ToString(),
            "invalid input: rewrite strategy 'zorder': expected binpack or sort");
}

}  // namespace
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace {

using namespace testing_support;

// A catalog that lets another writer commit just before each of the first `times` swaps it
// forwards, so the swap the caller asked for loses to that writer's.
class InterleavingCatalog : public catalog::Catalog {
 public:
  InterleavingCatalog(catalog::Catalog& inner, std::function<void()> writer, int times)
      : inner_(inner), writer_(std::move(writer)), times_(times) {}

  std::string name() const override { return inner_.name(); }
  Result<std::vector<std::string>> ListNamespaces() override { return inner_.ListNamespaces(); }
  Result<bool> NamespaceExists(std::string_view ns) override { return inner_.NamespaceExists(ns); }
  Status CreateNamespace(std::string_view ns,
                         const std::map<std::string, std::string>& properties) override {
    return inner_.CreateNamespace(ns, properties);
  }
  Status DropNamespace(std::string_view ns) override { return inner_.DropNamespace(ns); }
  Result<std::map<std::string, std::string>> NamespaceProperties(std::string_view ns) override {
    return inner_.NamespaceProperties(ns);
  }
  Result<std::vector<catalog::TableIdentifier>> ListTables(std::string_view ns) override {
    return inner_.ListTables(ns);
  }
  Result<std::string> LoadTable(const catalog::TableIdentifier& id) override {
    return inner_.LoadTable(id);
  }
  Status CreateTable(const catalog::TableIdentifier& id, std::string_view location) override {
    return inner_.CreateTable(id, location);
  }
  Status CommitTable(const catalog::TableIdentifier& id, std::string_view expected,
                     std::string_view next) override {
    ++swaps_;
    if (times_ > 0) {
      --times_;
      writer_();
    }
    return inner_.CommitTable(id, expected, next);
  }
  Status DropTable(const catalog::TableIdentifier& id) override { return inner_.DropTable(id); }
  Status RenameTable(const catalog::TableIdentifier& from,
                     const catalog::TableIdentifier& to) override {
    return inner_.RenameTable(from, to);
  }
  int swaps() const { return swaps_; }

 private:
  catalog::Catalog& inner_;
  std::function<void()> writer_;
  int times_;
  int swaps_ = 0;
};

catalog::TableIdentifier DimId() { return catalog::TableIdentifier::Parse("db.dim").value(); }

// A maintenance commit goes through the same retry as an append: rewrite_manifests loses its
// first swap to an append, rebuilds on the appended table, and its snapshot follows the append's
// and lists the appended file too.
TEST(RewriteManifests, RetriedAfterAConcurrentAppendKeepsTheAppend) {
  Warehouse w;
  CreateDimension(w, DimId(), "", "", {{"commit.retry.min-wait-ms", "1"}});
  for (int i = 0; i < 3; ++i) AppendBatch(w, DimId(), DimensionBatch({i}));
  int64_t appended_snapshot = 0;
  std::string appended_metadata;
  InterleavingCatalog cat(
      *w.cat,
      [&] {
        Table appended = AppendBatch(w, DimId(), DimensionBatch({100}));
        appended_snapshot = appended.metadata.CurrentSnapshot()->snapshot_id;
        appended_metadata = appended.metadata_location;
      },
      1);
  auto r = RewriteManifests(cat, *w.io, DimId());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(cat.swaps(), 2);
  EXPECT_EQ(r->rewritten_manifests_count, 4);  // counted on the table it committed to
  EXPECT_EQ(r->added_manifests_count, 1);
  Table t = w.Load(DimId());
  ASSERT_EQ(t.metadata.snapshots.size(), 5u);
  const Snapshot* current = t.metadata.CurrentSnapshot();
  EXPECT_EQ(current->snapshot_id, *r->snapshot_id);
  EXPECT_EQ(current->operation(), "replace");
  EXPECT_EQ(current->parent_snapshot_id, appended_snapshot);
  EXPECT_EQ(current->summary.at("total-records"), "4");
  EXPECT_EQ(ReadMetadataTable(t, *w.io, "manifests")->num_rows, 1);
  EXPECT_EQ(AllIds(w, DimId()), (std::vector<int64_t>{0, 1, 2, 100}));
  // The metadata log names the append's metadata as the one the rewrite replaced, and the lost
  // attempt's manifests are gone.
  ASSERT_FALSE(t.metadata.metadata_log.empty());
  EXPECT_EQ(t.metadata.metadata_log.back().metadata_file, appended_metadata);
  ExpectNoUnreferencedFile(w, DimId());
}

// commit.retry.total-timeout-ms bounds the retries of every commit: with 0, the first lost swap
// is the last, whatever num-retries allows, and the lost attempt leaves no file behind.
TEST(RewriteManifests, TotalTimeoutEndsTheRetries) {
  Warehouse w;
  CreateDimension(w, DimId(), "", "",
                  {{"commit.retry.num-retries", "100"}, {"commit.retry.total-timeout-ms", "0"}});
  for (int i = 0; i < 2; ++i) AppendBatch(w, DimId(), DimensionBatch({i}));
  InterleavingCatalog cat(
      *w.cat, [&] { AppendBatch(w, DimId(), DimensionBatch({7})); }, 100);
  auto r = RewriteManifests(cat, *w.io, DimId());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kConflict);
  EXPECT_NE(r.error().message.find("commit to 'db.dim' lost to concurrent commits 1 times in "),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("(commit.retry.total-timeout-ms=0)"), std::string::npos);
  EXPECT_EQ(cat.swaps(), 1);
  Table t = w.Load(DimId());
  EXPECT_EQ(t.metadata.CurrentSnapshot()->operation(), "append");
  EXPECT_EQ(AllIds(w, DimId()), (std::vector<int64_t>{0, 1, 7}));
  ExpectNoUnreferencedFile(w, DimId());
}

}  // namespace
}  // namespace floe::iceberg
