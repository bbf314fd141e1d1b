// Merge-on-read on a real local warehouse: position delete files, deletion vectors and equality
// deletes written by floe's delete writer, committed as row deltas, planned by the delete index
// and applied by the scan reader -- the rows that remain, what the deletes cost (delete files
// opened once per scan, their requests and bytes), the snapshot summary, and the errors a bad
// deletion vector gives. Also the deletion vector and Puffin codecs byte for byte.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <set>

#include "floe/base/clock.h"
#include "floe/exec/residual.h"
#include "floe/iceberg/delete_loader.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/metadata_tables.h"
#include "floe/iceberg/puffin.h"
#include "floe/iceberg/remove_orphan_files.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/rewrite_position_deletes.h"
#include "floe/iceberg/scan_reader.h"
#include "iceberg/maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using catalog::TableIdentifier;
using testing_support::AppendBatch;
using testing_support::CreateDimension;
using testing_support::DimensionBatch;
using testing_support::ShuffledIdBatches;
using testing_support::Warehouse;

struct ScanOutcome {
  std::vector<int64_t> ids;  // sorted
  ScanMetrics metrics;
  Status status;
};

ScanOutcome ScanIds(const Warehouse& w, const TableIdentifier& id, ExprPtr filter = nullptr) {
  ScanOutcome out;
  Table t = w.Load(id);
  auto plan = PlanFiles(t, *w.io, {.filter = filter});
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  const Schema& schema = t.metadata.CurrentSchema();
  const Schema projected(schema.schema_id(), {*schema.FindById(1)});
  ScanHooks hooks{exec::ResidualMatcher(), {}, &schema};
  ScanReadOptions options;
  options.use_footer_cache = false;
  out.status = ReadScan(
      plan->tasks, projected, *w.io, options, hooks,
      [&](columnar::RecordBatch b) -> Status {
        for (int64_t r = 0; r < b.num_rows; ++r) out.ids.push_back(b.columns[0]->Value<int64_t>(r));
        return {};
      },
      &out.metrics);
  std::sort(out.ids.begin(), out.ids.end());
  return out;
}

// The ids of a data file in file order (row position order).
std::vector<int64_t> IdsInFileOrder(const Warehouse& w, const TableIdentifier& id,
                                    const FileScanTask& task) {
  Table t = w.Load(id);
  FileScanTask plain = task;
  plain.deletes.clear();
  auto batches = ReadTask(plain, t.metadata.CurrentSchema(), *w.io);
  EXPECT_TRUE(batches.has_value());
  std::vector<int64_t> ids;
  for (const auto& b : *batches) {
    for (int64_t r = 0; r < b.num_rows; ++r) ids.push_back(b.columns[0]->Value<int64_t>(r));
  }
  return ids;
}

std::vector<int64_t> Without(std::vector<int64_t> all, const std::set<int64_t>& gone) {
  std::erase_if(all, [&](int64_t v) { return gone.contains(v); });
  return all;
}

class DeletesTest : public ::testing::Test {
 protected:
  // 400 rows in two appends, partitioned by category (4 values): 8 data files of 50 rows.
  void SetUp() override {
    CreateDimension(w_, id_, "", "category");
    for (const auto& ids : ShuffledIdBatches(kRows, 2)) {
      all_.insert(all_.end(), ids.begin(), ids.end());
      AppendBatch(w_, id_, DimensionBatch(ids));
    }
    std::sort(all_.begin(), all_.end());
    plan_ = PlanFiles(w_.Load(id_), *w_.io, {}).value();
    ASSERT_EQ(plan_.tasks.size(), 8u);
  }

  std::string Location(const std::string& name) const {
    return w_.Load(id_).metadata.location + "/data/" + name;
  }

  Table Commit(std::vector<DataFile> deletes) {
    SnapshotUpdate u;
    u.operation = "delete";
    u.added_deletes = std::move(deletes);
    auto t = CommitSnapshot(*w_.cat, *w_.io, id_, u);
    EXPECT_TRUE(t.has_value()) << t.error().ToString();
    return *t;
  }

  // Two data files of one partition.
  std::pair<const FileScanTask*, const FileScanTask*> SamePartitionPair() const {
    for (size_t i = 0; i < plan_.tasks.size(); ++i) {
      for (size_t j = i + 1; j < plan_.tasks.size(); ++j) {
        if (plan_.tasks[i].file.partition == plan_.tasks[j].file.partition) {
          return {&plan_.tasks[i], &plan_.tasks[j]};
        }
      }
    }
    return {nullptr, nullptr};
  }

  static constexpr int64_t kRows = 400;
  Warehouse w_;
  TableIdentifier id_ = TableIdentifier::Parse("db.dim").value();
  std::vector<int64_t> all_;
  ScanPlan plan_;
};

TEST_F(DeletesTest, PositionDeletesTakeOutExactlyTheirRows) {
  const FileScanTask& task = plan_.tasks[0];
  const std::vector<int64_t> order = IdsInFileOrder(w_, id_, task);
  ASSERT_EQ(static_cast<int64_t>(order.size()), task.file.record_count);
  ASSERT_GT(order.size(), 40u);  // about 400 / 8 rows a file
  const std::string& path = task.file.file_path;
  const int64_t last = task.file.record_count - 1;
  DataFile d =
      WritePositionDeleteFile(*w_.io, Location("pos-1.parquet"),
                              {{path, last}, {path, 0}, {path, 7}, {path, 7}}, task.file.partition)
          .value();
  EXPECT_EQ(d.record_count, 3);
  EXPECT_EQ(d.referenced_data_file, path);
  Table t = Commit({d});
  const auto& summary = t.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("operation"), "delete");
  EXPECT_EQ(summary.at("added-delete-files"), "1");
  EXPECT_EQ(summary.at("added-position-delete-files"), "1");
  EXPECT_EQ(summary.at("added-position-deletes"), "3");
  EXPECT_EQ(summary.at("total-delete-files"), "1");
  EXPECT_EQ(summary.at("total-position-deletes"), "3");
  EXPECT_EQ(summary.at("total-records"), "400");  // records of data files, as Iceberg counts

  ScanOutcome o = ScanIds(w_, id_);
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  EXPECT_EQ(o.ids, Without(all_, {order[0], order[7], order.back()}));
  EXPECT_EQ(o.metrics.delete_files_opened, 1);
  EXPECT_EQ(o.metrics.delete_requests, 1);  // a small delete file: whole, in one GET
  EXPECT_EQ(o.metrics.rows_deleted, 3);
  // Every file is small: one GET per data file and one for the delete file, nothing else.
  EXPECT_EQ(o.metrics.requests, 8 + 1);
  EXPECT_EQ(o.metrics.heads, 0);
  EXPECT_EQ(o.metrics.data_files_opened, 8);
}

TEST_F(DeletesTest, APartitionScopedDeleteFileIsFetchedOnceForAllItsDataFiles) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  const std::vector<int64_t> oa = IdsInFileOrder(w_, id_, *a), ob = IdsInFileOrder(w_, id_, *b);
  DataFile d = WritePositionDeleteFile(*w_.io, Location("pos-partition.parquet"),
                                       {{a->file.file_path, 1},
                                        {a->file.file_path, 2},
                                        {b->file.file_path, 10},
                                        {b->file.file_path, 11}},
                                       a->file.partition)
                   .value();
  EXPECT_FALSE(d.referenced_data_file.has_value());
  Commit({d});
  ScanOutcome o = ScanIds(w_, id_);
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  EXPECT_EQ(o.ids, Without(all_, {oa[1], oa[2], ob[10], ob[11]}));
  EXPECT_EQ(o.metrics.delete_files_opened, 1);
  EXPECT_EQ(o.metrics.delete_requests, 1);
  EXPECT_EQ(o.metrics.rows_deleted, 4);
  EXPECT_EQ(o.metrics.requests, 8 + 1);
}

TEST_F(DeletesTest, DeletesOfAPrunedPartitionAreNeitherPlannedNorRead) {
  // One commit of deletes in the first and last categories (c0, c3): its manifest's summary spans
  // c0..c3, so a filter on c1 reads the manifest and skips both delete files by partition.
  auto file_of = [&](const std::string& category) -> const FileScanTask& {
    for (const FileScanTask& t : plan_.tasks) {
      if (t.file.partition[0] == Literal::String(category)) return t;
    }
    ADD_FAILURE() << "no file of " << category;
    return plan_.tasks[0];
  };
  const FileScanTask& lo = file_of("c0");
  const FileScanTask& hi = file_of("c3");
  Commit({WritePositionDeleteFile(*w_.io, Location("pos-lo.parquet"), {{lo.file.file_path, 0}},
                                  lo.file.partition)
              .value(),
          WritePositionDeleteFile(*w_.io, Location("pos-hi.parquet"), {{hi.file.file_path, 0}},
                                  hi.file.partition)
              .value()});
  auto plan_for = [&](const std::string& category) {
    return PlanFiles(w_.Load(id_), *w_.io,
                     {.filter = Predicate(Op::kEq, "category", {Literal::String(category)})})
        .value();
  };
  ScanPlan c1 = plan_for("c1");
  EXPECT_EQ(c1.stats.delete_files, 2);
  EXPECT_EQ(c1.stats.delete_files_skipped, 2);
  for (const FileScanTask& t : c1.tasks) EXPECT_TRUE(t.deletes.empty());
  ScanPlan c0 = plan_for("c0");
  EXPECT_EQ(c0.stats.delete_files_skipped, 1);
  size_t with_deletes = 0;
  for (const FileScanTask& t : c0.tasks) with_deletes += t.deletes.size();
  EXPECT_EQ(with_deletes, 1u);
  // Past the summary's range the delete manifest is not even read.
  ScanPlan c9 = plan_for("c9");
  EXPECT_EQ(c9.stats.delete_files, 0);
  EXPECT_EQ(c9.stats.manifests_skipped, c9.stats.manifests_total);

  ScanOutcome o = ScanIds(w_, id_, Predicate(Op::kEq, "category", {Literal::String("c1")}));
  ASSERT_TRUE(o.status.has_value());
  EXPECT_EQ(o.metrics.delete_files_opened, 0);
  EXPECT_EQ(o.metrics.rows_deleted, 0);
}

TEST_F(DeletesTest, PositionDeletesUnderAFilterAndLateMaterialisation) {
  const FileScanTask& task = plan_.tasks[0];
  const std::vector<int64_t> order = IdsInFileOrder(w_, id_, task);
  std::vector<std::pair<std::string, int64_t>> positions;
  std::set<int64_t> gone;
  for (int64_t p = 0; p < task.file.record_count; p += 3) {
    positions.emplace_back(task.file.file_path, p);
    gone.insert(order[static_cast<size_t>(p)]);
  }
  Commit(
      {WritePositionDeleteFile(*w_.io, Location("pos-many.parquet"), positions, task.file.partition)
           .value()});
  ScanOutcome o = ScanIds(w_, id_, Predicate(Op::kLt, "id", {Literal::Long(150)}));
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  std::vector<int64_t> want;
  for (int64_t v : all_) {
    if (v < 150 && !gone.contains(v)) want.push_back(v);
  }
  EXPECT_EQ(o.ids, want);
}

TEST_F(DeletesTest, DeletionVectorsOfOnePuffinFileComeInOneRequest) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  const std::vector<int64_t> oa = IdsInFileOrder(w_, id_, *a), ob = IdsInFileOrder(w_, id_, *b);
  std::vector<DataFile> dvs =
      WriteDeletionVectors(
          *w_.io, Location("dvs.puffin"),
          {{a->file.file_path, {3, 4, 5}}, {b->file.file_path, {0, b->file.record_count - 1}}},
          {{a->file.file_path, a->file.partition}, {b->file.file_path, b->file.partition}})
          .value();
  ASSERT_EQ(dvs.size(), 2u);
  Table t = Commit(dvs);
  EXPECT_EQ(t.metadata.CurrentSnapshot()->summary.at("added-dvs"), "2");
  EXPECT_EQ(t.metadata.CurrentSnapshot()->summary.count("added-position-delete-files"), 0u);
  // The manifest keeps what finds each blob.
  auto plan = PlanFiles(t, *w_.io, {}).value();
  for (const FileScanTask& task : plan.tasks) {
    for (const DataFile& d : task.deletes) {
      EXPECT_TRUE(IsDeletionVector(d));
      EXPECT_EQ(d.referenced_data_file, task.file.file_path);
      EXPECT_GE(d.content_offset.value_or(-1), 4);
      EXPECT_GT(d.content_size_in_bytes.value_or(-1), 12);
    }
  }
  ScanOutcome o = ScanIds(w_, id_);
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  EXPECT_EQ(o.ids, Without(all_, {oa[3], oa[4], oa[5], ob[0], ob.back()}));
  EXPECT_EQ(o.metrics.delete_files_opened, 1);
  EXPECT_EQ(o.metrics.delete_requests, 1);
  EXPECT_EQ(o.metrics.rows_deleted, 5);
  EXPECT_EQ(o.metrics.requests, 8 + 1);
}

TEST_F(DeletesTest, MetadataTablesListDeleteFilesAndEveryDeletedPosition) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  Commit(
      {WritePositionDeleteFile(*w_.io, Location("pos.parquet"),
                               {{a->file.file_path, 4}, {b->file.file_path, 2}}, a->file.partition)
           .value()});
  std::vector<DataFile> dvs =
      WriteDeletionVectors(*w_.io, Location("dv.puffin"), {{a->file.file_path, {9, 8}}},
                           {{a->file.file_path, a->file.partition}})
          .value();
  Commit(dvs);
  Table t = w_.Load(id_);
  auto deletes = ReadMetadataTable(t, *w_.io, "delete_files").value();
  ASSERT_EQ(deletes.num_rows, 2);
  const auto formats = testing_support::StringColumn(deletes, "file_format");
  const auto referenced = testing_support::StringColumn(deletes, "referenced_data_file");
  const auto offsets = testing_support::LongColumn(deletes, "content_offset");
  for (int64_t r = 0; r < 2; ++r) {
    if (formats[static_cast<size_t>(r)] == "PUFFIN") {
      EXPECT_EQ(referenced[static_cast<size_t>(r)], a->file.file_path);
      EXPECT_EQ(offsets[static_cast<size_t>(r)], *dvs[0].content_offset);
    } else {
      EXPECT_EQ(referenced[static_cast<size_t>(r)], "");  // partition-scoped: null
      EXPECT_EQ(offsets[static_cast<size_t>(r)], -1);
    }
  }
  auto positions = ReadMetadataTable(t, *w_.io, "position_deletes").value();
  const auto paths = testing_support::StringColumn(positions, "file_path");
  const auto pos = testing_support::LongColumn(positions, "pos");
  const auto holders = testing_support::StringColumn(positions, "delete_file_path");
  std::multiset<std::string> got;
  for (size_t i = 0; i < paths.size(); ++i) {
    got.insert(
        fmt::format("{}@{} in {}", paths[i], pos[i], holders[i].substr(holders[i].rfind('/') + 1)));
  }
  const std::multiset<std::string> want = {fmt::format("{}@4 in pos.parquet", a->file.file_path),
                                           fmt::format("{}@2 in pos.parquet", b->file.file_path),
                                           fmt::format("{}@8 in dv.puffin", a->file.file_path),
                                           fmt::format("{}@9 in dv.puffin", a->file.file_path)};
  EXPECT_EQ(got, want);
}

TEST_F(DeletesTest, ADeletionVectorReplacesTheOlderPositionDeletesOfItsFile) {
  const FileScanTask& task = plan_.tasks[0];
  const std::vector<int64_t> order = IdsInFileOrder(w_, id_, task);
  const std::string& path = task.file.file_path;
  Commit({WritePositionDeleteFile(*w_.io, Location("pos.parquet"), {{path, 0}, {path, 1}},
                                  task.file.partition)
              .value()});
  Commit(WriteDeletionVectors(*w_.io, Location("dv.puffin"), {{path, {1, 2}}},
                              {{path, task.file.partition}})
             .value());
  ScanOutcome o = ScanIds(w_, id_);
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  // The DV is the file's whole delete set: row 0 is back.
  EXPECT_EQ(o.ids, Without(all_, {order[1], order[2]}));
  EXPECT_EQ(o.metrics.delete_files_opened, 1);
}

TEST_F(DeletesTest, ACorruptDeletionVectorIsAnErrorNamingItsFile) {
  const FileScanTask& task = plan_.tasks[0];
  const std::string& path = task.file.file_path;
  std::vector<DataFile> dvs =
      WriteDeletionVectors(*w_.io, Location("bad.puffin"), {{path, {1, 2, 3}}},
                           {{path, task.file.partition}})
          .value();
  Commit(dvs);
  const std::string key = w_.KeyOf(Location("bad.puffin"));
  Buffer bytes = w_.store->Get(key).value();
  std::vector<uint8_t> flipped(bytes.data(), bytes.data() + bytes.size());
  flipped[static_cast<size_t>(*dvs[0].content_offset + 12)] ^= 0x10;  // inside the bitmap
  ASSERT_TRUE(w_.store->Put(key, ByteView(flipped.data(), flipped.size())).has_value());
  ScanOutcome o = ScanIds(w_, id_);
  ASSERT_FALSE(o.status.has_value());
  EXPECT_EQ(o.status.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(o.status.error().message.find("bad.puffin"), std::string::npos)
      << o.status.error().message;
  EXPECT_NE(o.status.error().message.find("CRC-32"), std::string::npos) << o.status.error().message;
}

TEST_F(DeletesTest, ARewriteAppliesTheDeletesWhichStayListedUntilDanglingOnesAreRemoved) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  const std::vector<int64_t> oa = IdsInFileOrder(w_, id_, *a), ob = IdsInFileOrder(w_, id_, *b);
  Commit(
      {WritePositionDeleteFile(*w_.io, Location("pos.parquet"),
                               {{a->file.file_path, 0}, {a->file.file_path, 1}}, a->file.partition)
           .value()});
  Commit(WriteDeletionVectors(*w_.io, Location("dv.puffin"), {{b->file.file_path, {5}}},
                              {{b->file.file_path, b->file.partition}})
             .value());
  const std::vector<int64_t> want = Without(all_, {oa[0], oa[1], ob[5]});
  ASSERT_EQ(ScanIds(w_, id_).ids, want);

  RewriteOptions o;
  o.rewrite_all = true;
  RewriteResult r = RewriteDataFiles(*w_.cat, *w_.io, id_, o).value();
  EXPECT_EQ(r.rewritten_data_files_count, 8);
  EXPECT_EQ(r.removed_delete_files_count, 0);
  // The rows are the same, the deletes baked in. The deletion vector went with its data file in
  // the rewrite's commit (as Iceberg's v3 commits drop the DVs of removed files); the position
  // delete file stays listed and applies to none of the new files (their sequence number is the
  // rewrite's starting one, their paths new).
  ScanOutcome after = ScanIds(w_, id_);
  ASSERT_TRUE(after.status.has_value()) << after.status.error().ToString();
  EXPECT_EQ(after.ids, want);
  EXPECT_EQ(after.metrics.delete_files_opened, 0);
  Table t = w_.Load(id_);
  EXPECT_EQ(t.metadata.CurrentSnapshot()->summary.at("removed-dvs"), "1");
  EXPECT_EQ(t.metadata.CurrentSnapshot()->summary.at("total-delete-files"), "1");
  ScanPlan plan = PlanFiles(t, *w_.io, {}).value();
  EXPECT_EQ(plan.unapplied_deletes.size(), 1u);

  // remove-dangling-deletes takes the position delete file out in a commit of its own.
  o.remove_dangling_deletes = true;
  r = RewriteDataFiles(*w_.cat, *w_.io, id_, o).value();
  EXPECT_EQ(r.removed_delete_files_count, 1);
  t = w_.Load(id_);
  const auto& summary = t.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("operation"), "delete");
  EXPECT_EQ(summary.at("removed-delete-files"), "1");
  EXPECT_EQ(summary.count("removed-dvs"), 0u);
  EXPECT_EQ(summary.at("removed-position-deletes"), "2");
  EXPECT_EQ(summary.at("total-delete-files"), "0");
  EXPECT_EQ(summary.at("total-position-deletes"), "0");
  EXPECT_TRUE(PlanFiles(t, *w_.io, {}).value().unapplied_deletes.empty());
  EXPECT_EQ(ScanIds(w_, id_).ids, want);
}

// A merge-on-read delete committed while a rewrite runs, on a file the rewrite reads: the rewritten
// file would bring the deleted rows back, so the rewrite fails (Iceberg's RewriteFiles validation)
// and the table keeps the delete.
TEST_F(DeletesTest, ADeleteCommittedDuringARewriteOfItsFileFailsTheRewrite) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  const std::vector<int64_t> oa = IdsInFileOrder(w_, id_, *a);
  std::string after_delete;
  RewriteOptions o;
  o.rewrite_all = true;
  o.before_commit = [&] {
    Commit(WriteDeletionVectors(*w_.io, Location("late.puffin"), {{a->file.file_path, {3}}},
                                {{a->file.file_path, a->file.partition}})
               .value());
    after_delete = w_.Load(id_).metadata_location;
  };
  auto r = RewriteDataFiles(*w_.cat, *w_.io, id_, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kConflict);
  EXPECT_NE(r.error().message.find("found a conflicting delete file"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(a->file.file_path), std::string::npos) << r.error().message;
  EXPECT_EQ(w_.Load(id_).metadata_location, after_delete);
  EXPECT_EQ(ScanIds(w_, id_).ids, Without(all_, {oa[3]}));
}

// One Puffin file holds the vectors of two data files. A later commit replaces one of them (a new
// vector in a new Puffin file, as a second DELETE writes it): expiring the older snapshots keeps
// the first Puffin file, which the other vector still needs, and orphan removal keeps both. Once
// the other vector is replaced too, expiry deletes the first Puffin file, counted as a position
// delete file, and the rows read the same throughout.
TEST_F(DeletesTest, ExpiryDeletesAPuffinFileOnlyOnceNoRetainedSnapshotListsAnyOfItsVectors) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  const std::vector<int64_t> oa = IdsInFileOrder(w_, id_, *a), ob = IdsInFileOrder(w_, id_, *b);
  const std::map<std::string, std::vector<Literal>> parts = {
      {a->file.file_path, a->file.partition}, {b->file.file_path, b->file.partition}};
  const std::vector<DataFile> first =
      WriteDeletionVectors(*w_.io, Location("first.puffin"),
                           {{a->file.file_path, {0}}, {b->file.file_path, {1}}}, parts)
          .value();
  Commit(first);
  const std::string first_key = w_.KeyOf(first[0].file_path);
  // A vector of a's rows 0 and 2 replaces a's first one (the writer merged the two).
  const DataFile& first_a =
      first[0].referenced_data_file == a->file.file_path ? first[0] : first[1];
  const DataFile& first_b = &first_a == &first[0] ? first[1] : first[0];
  SnapshotUpdate u;
  u.operation = "delete";
  u.added_deletes =
      WriteDeletionVectors(*w_.io, Location("second.puffin"), {{a->file.file_path, {0, 2}}}, parts)
          .value();
  u.removed_deletes = {first_a};
  ASSERT_TRUE(CommitSnapshot(*w_.cat, *w_.io, id_, u).has_value());
  const std::vector<int64_t> want = Without(all_, {oa[0], oa[2], ob[1]});
  ASSERT_EQ(ScanIds(w_, id_).ids, want);

  ExpireSnapshotsOptions expire;
  expire.older_than_ms = UnixMillisNow() + 1000;
  expire.retain_last = 1;
  ExpireSnapshotsResult r = ExpireSnapshots(*w_.cat, *w_.io, id_, expire).value();
  EXPECT_EQ(r.expired_snapshot_ids.size(), 3u);  // two appends and the first delete
  EXPECT_EQ(r.deleted_position_delete_files_count, 0) << "b's vector still lives in it";
  EXPECT_TRUE(w_.store->Head(first_key).has_value());
  RemoveOrphanFilesOptions orphans;
  orphans.older_than_ms = UnixMillisNow() + 1000;
  orphans.allow_recent_files = true;
  EXPECT_TRUE(
      RemoveOrphanFiles(*w_.cat, *w_.io, id_, orphans).value().orphan_file_locations.empty());
  EXPECT_EQ(ScanIds(w_, id_).ids, want);

  // b's vector replaced too: the first Puffin file now belongs to expired snapshots only.
  u.added_deletes =
      WriteDeletionVectors(*w_.io, Location("third.puffin"), {{b->file.file_path, {1, 3}}}, parts)
          .value();
  u.removed_deletes = {first_b};
  ASSERT_TRUE(CommitSnapshot(*w_.cat, *w_.io, id_, u).has_value());
  r = ExpireSnapshots(*w_.cat, *w_.io, id_, expire).value();
  EXPECT_EQ(r.expired_snapshot_ids.size(), 1u);
  EXPECT_EQ(r.deleted_position_delete_files_count, 1);
  EXPECT_EQ(r.deleted_bytes, first[0].file_size_in_bytes) << "one file, counted once";
  EXPECT_FALSE(w_.store->Head(first_key).has_value());
  EXPECT_EQ(ScanIds(w_, id_).ids, Without(all_, {oa[0], oa[2], ob[1], ob[3]}));
}

TEST_F(DeletesTest, RewritingPositionDeletesMergesAPartitionsFilesAndDropsDanglingPositions) {
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  const std::vector<int64_t> oa = IdsInFileOrder(w_, id_, *a), ob = IdsInFileOrder(w_, id_, *b);
  const std::string& pa = a->file.file_path;
  const std::string& pb = b->file.file_path;
  const std::string gone = pa.substr(0, pa.rfind('/')) + "/gone.parquet";
  const std::vector<std::vector<std::pair<std::string, int64_t>>> files = {
      {{pa, 0}}, {{pa, 1}}, {{pb, 2}}, {{pb, 3}}, {{pa, 4}, {gone, 7}}};
  for (size_t i = 0; i < files.size(); ++i) {
    Commit({WritePositionDeleteFile(*w_.io, Location(fmt::format("pos-{}.parquet", i)), files[i],
                                    a->file.partition)
                .value()});
  }
  const std::vector<int64_t> want = Without(all_, {oa[0], oa[1], ob[2], ob[3], oa[4]});
  ASSERT_EQ(ScanIds(w_, id_).ids, want);

  RewritePositionDeletesResult r = RewritePositionDeleteFiles(*w_.cat, *w_.io, id_, {}).value();
  EXPECT_EQ(r.rewritten_delete_files_count, 5);
  EXPECT_EQ(r.added_delete_files_count, 1);
  EXPECT_EQ(r.dangling_positions, 1);
  EXPECT_EQ(r.commits, 1);
  Table t = w_.Load(id_);
  const auto& summary = t.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("operation"), "replace");
  EXPECT_EQ(summary.at("removed-delete-files"), "5");
  EXPECT_EQ(summary.at("added-delete-files"), "1");
  EXPECT_EQ(summary.at("total-delete-files"), "1");
  EXPECT_EQ(summary.at("total-position-deletes"), "5");
  ScanOutcome o = ScanIds(w_, id_);
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  EXPECT_EQ(o.ids, want);
  EXPECT_EQ(o.metrics.delete_files_opened, 1);
  EXPECT_EQ(o.metrics.rows_deleted, 5);
  // One delete file left in the partition: below min-input-files, nothing to do.
  EXPECT_EQ(RewritePositionDeleteFiles(*w_.cat, *w_.io, id_, {}).value().commits, 0);
  // Iceberg's option names; a bad one is named.
  auto bad = RewritePositionDeletesOptionsFromMap({{"rewrite-all", "maybe"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("rewrite-all"), std::string::npos);
  EXPECT_TRUE(RewritePositionDeletesOptionsFromMap({{"rewrite-all", "true"}})->rewrite_all);
}

TEST_F(DeletesTest, DeleteThresholdsPickTheFilesToCompact) {
  // Two files a partition: below min-input-files (5), so nothing is rewritten for its size.
  RewriteOptions o;
  EXPECT_TRUE(PlanRewriteDataFiles(*w_.cat, *w_.io, id_, o).value().empty());
  auto [a, b] = SamePartitionPair();
  ASSERT_NE(a, nullptr);
  // A deletion vector removing a third of a's rows: past the 0.3 delete-ratio-threshold.
  std::vector<int64_t> third;
  for (int64_t p = 0; p < (a->file.record_count + 2) / 3; ++p) third.push_back(p);
  Commit(WriteDeletionVectors(*w_.io, Location("dv.puffin"), {{a->file.file_path, third}},
                              {{a->file.file_path, a->file.partition}})
             .value());
  auto groups = PlanRewriteDataFiles(*w_.cat, *w_.io, id_, o).value();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].files.size(), 2u);  // a's partition: a and b
  o.delete_ratio_threshold = 0.5;
  EXPECT_TRUE(PlanRewriteDataFiles(*w_.cat, *w_.io, id_, o).value().empty());
  // Or by the number of delete files: one is enough with delete-file-threshold 1.
  o.delete_file_threshold = 1;
  EXPECT_EQ(PlanRewriteDataFiles(*w_.cat, *w_.io, id_, o).value().size(), 1u);
  // The options as CALL and Spark spell them.
  RewriteOptions m = RewriteOptionsFromMap({{"delete-file-threshold", "3"},
                                            {"delete-ratio-threshold", "0.25"},
                                            {"remove-dangling-deletes", "true"}})
                         .value();
  EXPECT_EQ(m.delete_file_threshold, 3);
  EXPECT_DOUBLE_EQ(m.delete_ratio_threshold, 0.25);
  EXPECT_TRUE(m.remove_dangling_deletes);
  auto bad = RewriteOptionsFromMap({{"delete-ratio-threshold", "0"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("delete-ratio-threshold"), std::string::npos);
}

TEST(EqualityDeletes, OnlyOlderRowsWithEqualValuesAreDeleted) {
  Warehouse w;
  const TableIdentifier id = TableIdentifier::Parse("db.flat").value();
  CreateDimension(w, id, "");  // unpartitioned: equality deletes are global
  std::vector<int64_t> first(100), second = {77, 500};
  for (int64_t i = 0; i < 100; ++i) first[static_cast<size_t>(i)] = i;
  AppendBatch(w, id, DimensionBatch(first));
  Table t = w.Load(id);
  const Schema& schema = t.metadata.CurrentSchema();
  // Delete ids 5, 77 and 99 by id, and every row of category c1 by category.
  columnar::FixedWidthBuilder<int64_t> ids(columnar::Int64());
  for (int64_t v : {5, 77, 99}) ids.Append(v);
  columnar::RecordBatch by_id;
  auto id_schema = std::make_shared<columnar::Schema>();
  id_schema->fields.push_back({"id", columnar::Int64(), true, -1});
  by_id.schema = id_schema;
  by_id.columns = {ids.Finish()};
  by_id.num_rows = 3;
  columnar::BinaryBuilder cats;
  ASSERT_TRUE(cats.Append("c1").has_value());
  columnar::RecordBatch by_category;
  auto category_schema = std::make_shared<columnar::Schema>();
  category_schema->fields.push_back({"category", columnar::String(), true, -1});
  by_category.schema = category_schema;
  by_category.columns = {cats.Finish()};
  by_category.num_rows = 1;
  SnapshotUpdate u;
  u.operation = "delete";
  u.added_deletes = {WriteEqualityDeleteFile(*w.io, t.metadata.location + "/data/eq-id.parquet",
                                             schema, {1}, by_id, {})
                         .value(),
                     WriteEqualityDeleteFile(*w.io, t.metadata.location + "/data/eq-cat.parquet",
                                             schema, {2}, by_category, {})
                         .value()};
  Table after = CommitSnapshot(*w.cat, *w.io, id, u).value();
  EXPECT_EQ(after.metadata.CurrentSnapshot()->summary.at("added-equality-deletes"), "4");
  // Rows appended after the deletes are not deleted by them, even with a deleted id.
  AppendBatch(w, id, DimensionBatch(second));

  ScanOutcome o = ScanIds(w, id);
  ASSERT_TRUE(o.status.has_value()) << o.status.error().ToString();
  std::vector<int64_t> want;
  for (int64_t v : first) {
    if (v != 5 && v != 77 && v != 99 && v % 4 != 1) want.push_back(v);
  }
  want.push_back(77);  // DimensionBatch: category c(v % 4); 77 is c1 yet newer than the delete
  want.push_back(500);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(o.ids, want);
  EXPECT_EQ(o.metrics.delete_files_opened, 2);
  EXPECT_EQ(o.metrics.delete_requests, 2);
  EXPECT_EQ(o.metrics.rows_deleted, 100 - static_cast<int64_t>(want.size()) + 2);
}

// A data file of 100,000 rows with equality deletes among its first rows and in its middle: the
// read matches the deletes with its filter, and the rows they take out are counted once each --
// the filter is not tried on the file's first rows before the whole file (as a plain filter of
// that size is), which would count the first rows' deletes twice.
TEST(EqualityDeletes, EachDeletedRowOfALargeFileIsCountedOnce) {
  Warehouse w;
  const TableIdentifier id = TableIdentifier::Parse("db.big").value();
  CreateDimension(w, id, "");
  std::vector<int64_t> ids(100'000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
  AppendBatch(w, id, DimensionBatch(ids));
  Table t = w.Load(id);
  const Schema schema = t.metadata.CurrentSchema();
  columnar::FixedWidthBuilder<int64_t> gone(columnar::Int64());
  std::set<int64_t> deleted;
  for (int64_t v = 0; v < 100'000; v += v < 2'000 ? 2 : 1'000) {
    gone.Append(v);
    deleted.insert(v);
  }
  columnar::RecordBatch by_id;
  auto id_schema = std::make_shared<columnar::Schema>();
  id_schema->fields.push_back({"id", columnar::Int64(), true, -1});
  by_id.schema = id_schema;
  by_id.num_rows = static_cast<int64_t>(deleted.size());
  by_id.columns = {gone.Finish()};
  SnapshotUpdate u;
  u.operation = "delete";
  u.added_deletes = {WriteEqualityDeleteFile(*w.io, t.metadata.location + "/data/eq.parquet",
                                             schema, {1}, by_id, {})
                         .value()};
  t = CommitSnapshot(*w.cat, *w.io, id, u).value();
  auto plan = PlanFiles(t, *w.io, {});
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_EQ(plan->tasks.size(), 1u);
  // id and category: the filter's column and another, so the read matches before it decodes.
  const Schema projected(schema.schema_id(), {*schema.FindById(1), *schema.FindById(2)});
  ScanHooks hooks{exec::ResidualMatcher(), {}, &schema};
  ScanReadOptions options;
  ScanMetrics metrics;
  int64_t rows = 0;
  ASSERT_TRUE(ReadScan(
      plan->tasks, projected, *w.io, options, hooks,
      [&](columnar::RecordBatch b) -> Status {
        for (int64_t r = 0; r < b.num_rows; ++r) {
          EXPECT_FALSE(deleted.contains(b.columns[0]->Value<int64_t>(r)));
        }
        rows += b.num_rows;
        return {};
      },
      &metrics));
  EXPECT_EQ(rows, 100'000 - static_cast<int64_t>(deleted.size()));
  EXPECT_EQ(metrics.rows_deleted, static_cast<int64_t>(deleted.size()));
}

TEST(EqualityDeletes, NullEqualsNullNanEqualsNanAndNegativeZeroIsNotZero) {
  const Schema columns(0, {NestedField{1, "k", false, Primitive(TypeId::kLong)},
                           NestedField{2, "x", false, Primitive(TypeId::kDouble)}});
  auto batch = [](std::vector<std::optional<int64_t>> k, std::vector<double> x) {
    columnar::FixedWidthBuilder<int64_t> kb(columnar::Int64());
    for (auto v : k) v ? kb.Append(*v) : kb.AppendNull();
    columnar::FixedWidthBuilder<double> xb(columnar::Float64());
    for (double v : x) xb.Append(v);
    columnar::RecordBatch b;
    auto schema = std::make_shared<columnar::Schema>();
    schema->fields.push_back({"k", columnar::Int64(), true, 1});
    schema->fields.push_back({"x", columnar::Float64(), true, 2});
    b.schema = schema;
    b.columns = {kb.Finish(), xb.Finish()};
    b.num_rows = static_cast<int64_t>(x.size());
    return b;
  };
  EqualityDeleteSet set({1, 2}, columns);
  const double nan = std::nan("");
  const double other_nan = -std::nan("7");
  ASSERT_TRUE(set.AddRows(batch({std::nullopt, 1}, {nan, -0.0})).has_value());
  auto deleted =
      set.Deleted(batch({std::nullopt, std::nullopt, 1, 1, 2}, {other_nan, 1.0, 0.0, -0.0, -0.0}))
          .value();
  EXPECT_EQ(deleted, (std::vector<uint8_t>{1, 0, 0, 1, 0}));
}

// A deletion vector's bytes as the spec gives them, derived by hand for {1, 3, 5}: the 32-bit
// portable Roaring of one array container is the cookie 12346 (no run containers), the container
// count, key 0 and cardinality - 1, one 4-byte offset (16), then the values as uint16.
TEST(DeletionVector, BytesAreTheSpecsForASmallSet) {
  const std::vector<uint8_t> vector = {1,    0,    0, 0, 0, 0, 0, 0,  // one 32-bit bitmap
                                       0,    0,    0, 0,              // its key: high 32 bits 0
                                       0x3A, 0x30, 0, 0, 1, 0, 0, 0,  // cookie, one container
                                       0,    0,    2, 0,              // key 0, cardinality 3
                                       16,   0,    0, 0,              // its offset
                                       1,    0,    3, 0, 5, 0};       // 1, 3, 5
  std::vector<uint8_t> body = {0xD1, 0xD3, 0x39, 0x64};
  body.insert(body.end(), vector.begin(), vector.end());
  const uint32_t crc = static_cast<uint32_t>(crc32(0, body.data(), static_cast<uInt>(body.size())));
  std::vector<uint8_t> want = {0, 0, 0, static_cast<uint8_t>(body.size())};
  want.insert(want.end(), body.begin(), body.end());
  for (int shift = 24; shift >= 0; shift -= 8) want.push_back(static_cast<uint8_t>(crc >> shift));

  const std::string got = EncodeDeletionVector({5, 1, 3, 3}).value();
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), want);
  EXPECT_EQ(DecodeDeletionVector(want, "t").value(), (std::vector<int64_t>{1, 3, 5}));
}

TEST(DeletionVector, RoundTripsRunsAndPositionsPastFourBillion) {
  std::vector<int64_t> positions;
  for (int64_t p = 1000; p < 5000; ++p) positions.push_back(p);  // a run container
  positions.push_back(int64_t{5} << 32);
  positions.push_back((int64_t{5} << 32) + 9);
  const std::string blob = EncodeDeletionVector(positions).value();
  EXPECT_LT(blob.size(), 100u);  // 4,000 consecutive positions take one run
  EXPECT_EQ(DecodeDeletionVector(AsBytes(blob), "t").value(), positions);
}

TEST(DeletionVector, BadLengthMagicOrCrcIsCorrupt) {
  const std::string good = EncodeDeletionVector({1, 2, 3}).value();
  auto decode = [](std::string bytes) { return DecodeDeletionVector(AsBytes(bytes), "dv.puffin"); };
  std::string bad_magic = good;
  bad_magic[4] = 0;
  std::string bad_crc = good;
  bad_crc.back() ^= 1;
  std::string bad_length = good;
  bad_length[3] = static_cast<char>(bad_length[3] + 1);
  for (const auto& [bytes, what] :
       std::vector<std::pair<std::string, std::string>>{{bad_magic, "magic"},
                                                        {bad_crc, "CRC-32"},
                                                        {bad_length, "says"},
                                                        {good.substr(0, 10), "too short"}}) {
    auto r = decode(bytes);
    ASSERT_FALSE(r.has_value()) << what;
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
    EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("dv.puffin"), std::string::npos);
  }
}

TEST(Puffin, FooterRoundTripsAndBadMagicIsCorrupt) {
  PuffinWriter w;
  const std::string a = "abc", b = "defgh";
  PuffinBlob ba = w.Add("t1", {1}, AsBytes(a), {{"k", "v"}});
  PuffinBlob bb = w.Add("t2", {2, 3}, AsBytes(b));
  EXPECT_EQ(ba.offset, 4);
  EXPECT_EQ(bb.offset, 7);
  const std::string file = w.Finish();
  EXPECT_EQ(file.substr(0, 4), "PFA1");
  EXPECT_EQ(file.substr(file.size() - 4), "PFA1");
  auto footer = ParsePuffinFooter(AsBytes(file), static_cast<int64_t>(file.size()), "f").value();
  ASSERT_EQ(footer.blobs.size(), 2u);
  EXPECT_EQ(footer.blobs[0].type, "t1");
  EXPECT_EQ(footer.blobs[0].properties.at("k"), "v");
  EXPECT_EQ(footer.blobs[1].fields, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(footer.blobs[1].length, 5);
  EXPECT_EQ(footer.blobs[1].snapshot_id, -1);
  EXPECT_TRUE(footer.properties.contains("created-by"));
  std::string broken = file;
  broken[broken.size() - 1] = 'X';
  auto r = ParsePuffinFooter(AsBytes(broken), static_cast<int64_t>(broken.size()), "f.puffin");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find("f.puffin"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
