#include "floe/iceberg/scan.h"

#include <gtest/gtest.h>

#include <functional>

#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/decoded_metadata.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/runtime.h"
#include "floe/io/counting_store.h"
#include "floe/io/local_store.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

using catalog::TableIdentifier;

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

Schema EventsSchema() {
  return Schema(0, {NestedField{1, "id", true, Primitive(TypeId::kLong)},
                    NestedField{2, "ts", true, Primitive(TypeId::kTimestampTz)},
                    NestedField{3, "name", false, Primitive(TypeId::kString)}});
}

// One file per (day, id block): ids [block*100, block*100+99], names "n<block>".
DataFile EventFile(int day, int block) {
  DataFile f;
  f.file_path = "file:///x/d" + std::to_string(day) + "-b" + std::to_string(block) + ".parquet";
  f.partition = {Literal::Date(19000 + day)};
  f.record_count = 100;
  f.file_size_in_bytes = 4096 + block;
  f.value_counts = {{1, 100}, {2, 100}, {3, 100}};
  f.null_value_counts = {{1, 0}, {2, 0}, {3, block == 3 ? 100 : 0}};
  f.column_sizes = {{1, 800}, {2, 800}, {3, 300}};
  f.lower_bounds = {{1, SerializeBound(Literal::Long(block * 100))},
                    {2, SerializeBound(Literal::TimestampTz((19000 + day) * kMicrosPerDay))}};
  f.upper_bounds = {{1, SerializeBound(Literal::Long(block * 100 + 99))},
                    {2, SerializeBound(Literal::TimestampTz((19001 + day) * kMicrosPerDay - 1))}};
  if (block != 3) {
    f.lower_bounds[3] = "n" + std::to_string(block);
    f.upper_bounds[3] = "n" + std::to_string(block);
  }
  f.split_offsets = {4};
  return f;
}

struct Fixture {
  // Request counts below are those of a cold plan; MetadataCacheServes... tests the cache.
  testing::TempDir dir;
  std::shared_ptr<io::CountingStore> store;
  std::shared_ptr<catalog::SqlCatalog> cat;
  std::unique_ptr<FileIO> io;
  std::optional<ScopedMetadataCacheOff> cold;
  TableIdentifier id = TableIdentifier::Parse("db.events").value();

  // 3 days x 4 id blocks, one append (and so one manifest) per day.
  Fixture() {
    store = std::make_shared<io::CountingStore>(io::LocalStore::Open(dir.str()).value());
    cat = catalog::SqlCatalog::Open(dir.str() + "/catalog.db").value();
    io = std::make_unique<FileIO>(store, "file://" + dir.str());
    cold.emplace(io->runtime());
    Schema s = EventsSchema();
    CreateTable(*cat, *io, id, {s, PartitionSpec::Parse("day(ts)", s).value(), SortOrder(), {}, ""})
        .value();
    for (int day = 0; day < 3; ++day) {
      std::vector<DataFile> files;
      for (int block = 0; block < 4; ++block) files.push_back(EventFile(day, block));
      AppendFiles(*cat, *io, id, files).value();
    }
  }

  ScanPlan Plan(ExprPtr filter) {
    Table t = LoadTable(*cat, *io, id).value();
    store->Reset();
    auto plan = PlanFiles(t, *io, {.filter = filter});
    EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
    return plan.value_or(ScanPlan{});
  }
};

Literal Ts(const char* iso) { return Literal::String(iso); }

TEST(Scan, NoFilterReadsEveryManifestAndKeepsEveryFile) {
  Fixture f;
  ScanPlan p = f.Plan(nullptr);
  EXPECT_EQ(p.tasks.size(), 12u);
  EXPECT_EQ(p.stats.manifests_total, 3);
  EXPECT_EQ(p.stats.manifests_skipped, 0);
  // The manifest list, then the three manifests in one batch.
  EXPECT_EQ(f.store->Snapshot().get, 4u);
  const FileScanTask& t = p.tasks[0];
  EXPECT_EQ(t.file.file_size_in_bytes, 4096);  // the reader gets the length from here
  EXPECT_EQ(t.file.split_offsets, std::vector<int64_t>{4});
  EXPECT_EQ(t.file.column_sizes.at(3), 300);
  EXPECT_EQ(t.residual->op, Op::kTrue);
}

TEST(Scan, OneDayPrunesManifestsBySummaries) {
  Fixture f;
  // 2022-01-10 is day 19002 (Python: (date(2022,1,10) - date(1970,1,1)).days).
  ScanPlan p = f.Plan(And(Predicate(Op::kGtEq, "ts", {Ts("2022-01-10T00:00:00Z")}),
                          Predicate(Op::kLt, "ts", {Ts("2022-01-10T12:00:00Z")})));
  EXPECT_EQ(p.stats.manifests_skipped, 2);
  EXPECT_EQ(p.tasks.size(), 4u);
  EXPECT_EQ(f.store->Snapshot().get, 2u);  // list + one manifest
  for (const auto& t : p.tasks) EXPECT_EQ(t.file.partition[0], Literal::Date(19002));
}

// A range on the partition source is decided by the day partition when the partition lies wholly
// inside it: ts >= 2022-01-10 00:00 holds for every row of day 19002 and later (the residual of
// those files drops it), ts < 2022-01-10 12:00 for no whole day (kept); ts <= 2022-01-10
// 23:59:59.999999 and ts > 2022-01-09 23:59:59.999999 cover day 19002 whole as well.
TEST(Scan, RangesCoveringAWholeDayPartitionLeaveNoResidual) {
  Fixture f;
  auto ops = [](const ExprPtr& e) {
    std::vector<Op> out;
    std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& x) {
      if (x->is_predicate()) out.push_back(x->op);
      for (const auto& c : x->children) walk(c);
    };
    walk(e);
    return out;
  };
  ScanPlan half = f.Plan(And(Predicate(Op::kGtEq, "ts", {Ts("2022-01-10T00:00:00Z")}),
                             Predicate(Op::kLt, "ts", {Ts("2022-01-10T12:00:00Z")})));
  ASSERT_EQ(half.tasks.size(), 4u);
  for (const auto& t : half.tasks) EXPECT_EQ(ops(t.residual), std::vector<Op>{Op::kLt});

  ScanPlan day = f.Plan(And(Predicate(Op::kGt, "ts", {Ts("2022-01-09T23:59:59.999999Z")}),
                            Predicate(Op::kLtEq, "ts", {Ts("2022-01-10T23:59:59.999999Z")})));
  ASSERT_EQ(day.tasks.size(), 4u);
  for (const auto& t : day.tasks) EXPECT_EQ(t.residual->op, Op::kTrue);

  // From mid-day 19001: day 19001 keeps the bound, day 19002 does not.
  ScanPlan from = f.Plan(Predicate(Op::kGtEq, "ts", {Ts("2022-01-09T06:00:00Z")}));
  ASSERT_EQ(from.tasks.size(), 8u);
  for (const auto& t : from.tasks) {
    const bool partial = t.file.partition[0] == Literal::Date(19001);
    EXPECT_EQ(t.residual->op, partial ? Op::kGtEq : Op::kTrue) << t.file.file_path;
  }
}

TEST(Scan, ManifestsOfOnlyDeletedFilesAreNotRead) {
  Fixture f;
  // Replacing all of day 0's files rewrites its manifest with four DELETED entries.
  SnapshotUpdate u;
  u.operation = "replace";
  for (int block = 0; block < 4; ++block) u.deleted_paths.push_back(EventFile(0, block).file_path);
  u.added = {EventFile(0, 7)};
  CommitSnapshot(*f.cat, *f.io, f.id, u).value();
  ScanPlan p = f.Plan(nullptr);
  EXPECT_EQ(p.stats.manifests_total, 4);
  EXPECT_EQ(p.stats.manifests_skipped, 1);
  EXPECT_EQ(p.tasks.size(), 9u);
  EXPECT_EQ(f.store->Snapshot().get, 4u);  // the list and three manifests
  // The next commit no longer carries the manifest of deletions.
  AppendFiles(*f.cat, *f.io, f.id, {EventFile(1, 8)}).value();
  p = f.Plan(nullptr);
  EXPECT_EQ(p.stats.manifests_total, 4);  // the append's, the replace's, days 1 and 2
  EXPECT_EQ(p.stats.manifests_skipped, 0);
  EXPECT_EQ(p.tasks.size(), 10u);
}

// With the runtime's metadata cache on (the default), a second plan of an unchanged table fetches
// nothing, a plan after a commit fetches only what the commit wrote, and a deleted location is
// fetched (and found missing) again.
TEST(Scan, MetadataCacheServesUnchangedMetadataFiles) {
  Fixture f;  // its commits ran with the cache off: nothing is cached yet
  f.io->runtime().metadata_cache().set_enabled(true);
  f.store->Reset();
  Table t = LoadTable(*f.cat, *f.io, f.id).value();
  EXPECT_EQ(f.store->Snapshot().get, 1u);  // the metadata JSON
  f.Plan(nullptr);
  EXPECT_EQ(f.store->Snapshot().get, 4u);  // the list and three manifests
  ScanPlan again = f.Plan(nullptr);
  EXPECT_EQ(again.tasks.size(), 12u);
  EXPECT_EQ(f.store->Snapshot().get, 0u);  // the JSON, the list and the manifests: all cached
  EXPECT_EQ(f.io->runtime().metadata_cache().entries(), 5);

  AppendFiles(*f.cat, *f.io, f.id, {EventFile(1, 8)}).value();  // reads the cached JSON and list
  ScanPlan after = f.Plan(nullptr);
  EXPECT_EQ(after.tasks.size(), 13u);
  // Planning (after LoadTable, which fetched the new JSON) fetched the new list and manifest.
  EXPECT_EQ(f.store->Snapshot().get, 2u);

  // A deleted metadata file leaves the cache with it.
  const std::string list = t.metadata.CurrentSnapshot()->manifest_list;
  ASSERT_TRUE(f.io->ReadMetadata(list).has_value());
  ASSERT_TRUE(f.io->Delete(list).has_value());
  auto gone = f.io->ReadMetadata(list);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().kind, ErrorKind::kNotFound);
}

// The decoded metadata beside the cached bytes: the same buffer gives back the very object decoded
// from it; another buffer of the same file (a refetch) is decoded afresh; nothing is kept while
// MetadataCache is off.
TEST(Scan, DecodedMetadataIsReusedOnlyForTheBufferItCameFrom) {
  Fixture f;
  Table t = LoadTable(*f.cat, *f.io, f.id).value();
  const std::string list = t.metadata.CurrentSnapshot()->manifest_list;
  auto bytes = f.io->Read(list);
  ASSERT_TRUE(bytes.has_value());
  f.io->runtime().decoded_metadata().Clear();
  {
    // The fixture keeps the cache off: decoded twice, two objects.
    auto a = f.io->runtime().decoded_metadata().DecodeManifestList(*bytes, list).value();
    auto b = f.io->runtime().decoded_metadata().DecodeManifestList(*bytes, list).value();
    EXPECT_NE(a.get(), b.get());
  }
  f.io->runtime().metadata_cache().set_enabled(true);
  auto a = f.io->runtime().decoded_metadata().DecodeManifestList(*bytes, list).value();
  auto b = f.io->runtime().decoded_metadata().DecodeManifestList(*bytes, list).value();
  EXPECT_EQ(a.get(), b.get());
  ASSERT_EQ(a->size(), 3u);
  auto again = f.io->Read(list);  // the same bytes in another buffer
  ASSERT_TRUE(again.has_value());
  auto c = f.io->runtime().decoded_metadata().DecodeManifestList(*again, list).value();
  EXPECT_NE(c.get(), a.get());
  EXPECT_EQ(c->size(), 3u);
  auto meta = f.io->Read(t.metadata_location).value();
  auto m1 =
      f.io->runtime().decoded_metadata().DecodeTableMetadata(meta, t.metadata_location).value();
  EXPECT_EQ(f.io->runtime()
                .decoded_metadata()
                .DecodeTableMetadata(meta, t.metadata_location)
                .value()
                .get(),
            m1.get());
  EXPECT_EQ(m1->CurrentSnapshot()->manifest_list, list);
  f.io->runtime().metadata_cache().set_enabled(false);
  f.io->runtime().decoded_metadata().Clear();
}

TEST(Scan, BoundsPruneFilesWithinAManifest) {
  Fixture f;
  ScanPlan p = f.Plan(Predicate(Op::kEq, "id", {Literal::Long(250)}));
  EXPECT_EQ(p.tasks.size(), 3u);  // block 2 of each day
  EXPECT_EQ(p.stats.files_skipped_bounds, 9);
  EXPECT_EQ(p.stats.files_skipped_partition, 0);
  p = f.Plan(Predicate(Op::kIn, "id", {Literal::Long(5), Literal::Long(399), Literal::Long(1000)}));
  EXPECT_EQ(p.tasks.size(), 6u);  // blocks 0 and 3
  p = f.Plan(Predicate(Op::kIsNull, "name"));
  EXPECT_EQ(p.tasks.size(), 3u);  // only block 3 has nulls
  p = f.Plan(Predicate(Op::kStartsWith, "name", {Literal::String("n1")}));
  EXPECT_EQ(p.tasks.size(), 3u);
  p = f.Plan(Not(Predicate(Op::kNotNull, "name")));
  EXPECT_EQ(p.tasks.size(), 3u);
  p = f.Plan(Or(Predicate(Op::kLt, "id", {Literal::Long(100)}),
                Predicate(Op::kGt, "id", {Literal::Long(350)})));
  EXPECT_EQ(p.tasks.size(), 6u);
}

TEST(Scan, ResidualDropsWhatThePartitionDecides) {
  Schema s(0, {NestedField{1, "region", false, Primitive(TypeId::kString)},
               NestedField{2, "v", false, Primitive(TypeId::kLong)}});
  PartitionSpec spec = PartitionSpec::Parse("region", s).value();
  ExprPtr bound = Bind(And(Predicate(Op::kEq, "region", {Literal::String("eu")}),
                           Predicate(Op::kGt, "v", {Literal::Int(3)})),
                       s)
                      .value();
  EXPECT_EQ(bound->children[1]->literals[0], Literal::Long(3));  // cast to the column's type
  ExprPtr proj = ProjectInclusive(bound, spec, s);
  auto ptype = spec.PartitionType(s).value();
  EXPECT_TRUE(MatchesPartition(proj, *ptype, {Literal::String("eu")}));
  EXPECT_FALSE(MatchesPartition(proj, *ptype, {Literal::String("us")}));
  EXPECT_FALSE(MatchesPartition(proj, *ptype, {Literal::Null(TypeId::kString)}));
}

TEST(Scan, ProjectionThroughTransforms) {
  Schema s = EventsSchema();
  PartitionSpec spec =
      PartitionSpec::Parse("bucket(4, id), truncate(2, name), hour(ts)", s).value();
  auto ptype = spec.PartitionType(s).value();
  auto project = [&](ExprPtr e) { return ProjectInclusive(Bind(e, s).value(), spec, s); };
  // id = 34 -> bucket 34 % 4 of hash 2017239379 = 3
  ExprPtr p = project(Predicate(Op::kEq, "id", {Literal::Long(34)}));
  EXPECT_TRUE(MatchesPartition(p, *ptype,
                               {Literal::Int(3), Literal::Null(TypeId::kString), Literal::Int(0)}));
  EXPECT_FALSE(MatchesPartition(
      p, *ptype, {Literal::Int(1), Literal::Null(TypeId::kString), Literal::Int(0)}));
  // Ranges do not project through bucket.
  EXPECT_EQ(project(Predicate(Op::kLt, "id", {Literal::Long(34)}))->op, Op::kTrue);
  // starts_with longer than the width fixes the truncated value; shorter stays a prefix test.
  p = project(Predicate(Op::kStartsWith, "name", {Literal::String("abc")}));
  EXPECT_TRUE(
      MatchesPartition(p, *ptype, {Literal::Int(0), Literal::String("ab"), Literal::Int(0)}));
  EXPECT_FALSE(
      MatchesPartition(p, *ptype, {Literal::Int(0), Literal::String("ac"), Literal::Int(0)}));
  p = project(Predicate(Op::kStartsWith, "name", {Literal::String("a")}));
  EXPECT_TRUE(
      MatchesPartition(p, *ptype, {Literal::Int(0), Literal::String("az"), Literal::Int(0)}));
  // ts < 01:30 on day 0 -> hour <= 1
  p = project(Predicate(Op::kLt, "ts", {Ts("1970-01-01T01:30:00Z")}));
  EXPECT_TRUE(
      MatchesPartition(p, *ptype, {Literal::Int(0), Literal::String("a"), Literal::Int(1)}));
  EXPECT_FALSE(
      MatchesPartition(p, *ptype, {Literal::Int(0), Literal::String("a"), Literal::Int(2)}));
  // NOT (ts >= 02:00) is ts < 02:00 -> hour <= 2
  p = project(Not(Predicate(Op::kGtEq, "ts", {Ts("1970-01-01T02:00:00Z")})));
  EXPECT_FALSE(
      MatchesPartition(p, *ptype, {Literal::Int(0), Literal::String("a"), Literal::Int(3)}));
}

TEST(Scan, TimeTravelAndBadFilters) {
  Fixture f;
  Table t = LoadTable(*f.cat, *f.io, f.id).value();
  int64_t first = t.metadata.snapshots[0].snapshot_id;
  auto p = PlanFiles(t, *f.io, {.snapshot_id = first});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->tasks.size(), 4u);
  auto by_time = PlanFiles(t, *f.io, {.as_of_timestamp_ms = t.metadata.snapshots[1].timestamp_ms});
  ASSERT_TRUE(by_time.has_value());
  EXPECT_EQ(by_time->tasks.size(), 8u);
  EXPECT_EQ(PlanFiles(t, *f.io, {.snapshot_id = 42}).error().ToString(),
            "not found: table has no snapshot 42");
  EXPECT_EQ(PlanFiles(t, *f.io, {.filter = Predicate(Op::kEq, "nope", {Literal::Long(1)})})
                .error()
                .ToString(),
            "not found: column 'nope' is not in the table schema");
  EXPECT_EQ(
      PlanFiles(t, *f.io, {.filter = Predicate(Op::kEq, "ts", {Literal::String("yesterday")})})
          .error()
          .ToString(),
      "invalid input: cannot compare column 'ts' of type timestamptz with yesterday");
}

}  // namespace
}  // namespace floe::iceberg
