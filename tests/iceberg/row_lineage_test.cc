// Format version 3 tables written by floe: row lineage as the spec's "Row Lineage" section gives
// it (next-row-id, a snapshot's first-row-id and added-rows, a manifest's first_row_id assigned as
// its list is written, a data file's inherited as its manifest is read and written out once it is
// carried into a new manifest), the version chosen at create, the position delete files a v3 table
// refuses, rewrites that carry every row's _row_id and _last_updated_sequence_number into the new
// files, and rewrite_position_delete_files turning an upgraded table's position deletes into
// deletion vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "floe/avro/container.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/maintenance_internal.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/rewrite_position_deletes.h"
#include "floe/iceberg/row_lineage.h"
#include "floe/iceberg/table_reader.h"
#include "floe/parquet/read_file.h"
#include "iceberg/maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using catalog::TableIdentifier;
using testing_support::AllIds;
using testing_support::AppendBatch;
using testing_support::CreateDimension;
using testing_support::DimensionBatch;
using testing_support::Warehouse;

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

// The live data files by first_row_id (a file without one is keyed -1).
std::map<int64_t, DataFile> FilesByFirstRowId(const Warehouse& w, const TableIdentifier& id) {
  std::map<int64_t, DataFile> out;
  Table t = w.Load(id);
  const std::vector<ManifestEntry> entries = t.LiveEntries(*w.io).value();
  for (const ManifestEntry& e : entries) {
    if (e.file.content != FileContent::kData) continue;
    out.emplace(e.file.first_row_id.value_or(-1), e.file);
  }
  return out;
}

// Every live data file has an id range, and the ranges are disjoint and below next-row-id.
void ExpectDisjointIdRanges(const Warehouse& w, const TableIdentifier& id) {
  const auto files = FilesByFirstRowId(w, id);
  int64_t end = 0;
  for (const auto& [first, f] : files) {
    ASSERT_GE(first, end) << f.file_path << " has no row ids, or overlaps the file before it";
    end = first + f.record_count;
  }
  EXPECT_LE(end, w.Load(id).metadata.next_row_id);
}

TEST(RowLineage, AManifestListAssignsIdsAsTheSpecsExample) {
  // The spec's example: next-row-id 1000, an existing manifest that has ids, three new ones (one
  // with only existing files), and a delete manifest, which never takes any.
  std::vector<ManifestFile> list(5);
  list[0].first_row_id = 925;
  list[0].added_rows_count = 75;
  list[1].added_rows_count = 100;
  list[1].existing_rows_count = 25;
  list[2].existing_rows_count = 100;
  list[3].content = ManifestContent::kDeletes;
  list[3].added_rows_count = 9;
  list[4].added_rows_count = 125;
  list[4].existing_rows_count = 25;
  EXPECT_EQ(AssignFirstRowIds(list, 1000), 1375);
  EXPECT_EQ(list[0].first_row_id, 925);
  EXPECT_EQ(list[1].first_row_id, 1000);
  EXPECT_EQ(list[2].first_row_id, 1125);
  EXPECT_EQ(list[3].first_row_id, std::nullopt);
  EXPECT_EQ(list[4].first_row_id, 1225);
}

class V3Manifest : public ::testing::Test {
 protected:
  V3Manifest() : schema_(testing_support::DimensionSchema()) {}

  // The spec's example manifest: EXISTING data1 (25 rows, id 800), ADDED data2 and data3 (50 rows
  // each, no id), then an equality delete file listed among them.
  std::string Bytes() const {
    std::vector<ManifestEntry> entries;
    auto add = [&](EntryStatus status, const std::string& path, int64_t rows,
                   std::optional<int64_t> first) {
      ManifestEntry e;
      e.status = status;
      e.snapshot_id = 1;
      e.sequence_number = status == EntryStatus::kAdded ? std::nullopt : std::optional<int64_t>(1);
      e.file.file_path = path;
      e.file.record_count = rows;
      e.file.file_size_in_bytes = 100;
      e.file.first_row_id = first;
      entries.push_back(e);
    };
    add(EntryStatus::kExisting, "data1", 25, 800);
    add(EntryStatus::kAdded, "data2", 50, std::nullopt);
    add(EntryStatus::kAdded, "data3", 50, std::nullopt);
    return WriteManifest({&schema_, &spec_, 3, ManifestContent::kData}, entries).value();
  }

  std::vector<std::optional<int64_t>> ReadIds(std::optional<int64_t> manifest_first) const {
    ManifestFile listed;
    listed.added_snapshot_id = 2;
    listed.sequence_number = 2;
    listed.first_row_id = manifest_first;
    const Buffer bytes = Buffer::FromString(Bytes());
    const Type ptype = *spec_.PartitionType(schema_).value();
    std::vector<std::optional<int64_t>> read, indexed;
    const std::vector<ManifestEntry> entries = ReadManifest(bytes, "m.avro", listed, ptype).value();
    for (const auto& e : entries) read.push_back(e.file.first_row_id);
    ManifestIndex index = IndexManifest(bytes, "m.avro", listed, ptype).value();
    for (size_t i = 0; i < index.size(); ++i) indexed.push_back(index.Entry(i)->file.first_row_id);
    EXPECT_EQ(read, indexed) << "planning reads the ids ReadManifest reads";
    return read;
  }

  Schema schema_;
  PartitionSpec spec_;
};

TEST_F(V3Manifest, DataFilesInheritIdsFromTheirManifest) {
  using Ids = std::vector<std::optional<int64_t>>;
  EXPECT_EQ(ReadIds(1000), (Ids{800, 1000, 1050}));
  // A manifest of a snapshot made before the table's upgrade has no id: nor have its new files.
  EXPECT_EQ(ReadIds(std::nullopt), (Ids{800, std::nullopt, std::nullopt}));
  auto reader = avro::ContainerReader::Open(Buffer::FromString(Bytes()), "m.avro").value();
  EXPECT_EQ(reader.Meta("format-version"), "3");
  const avro::Schema& entry = *reader.schema();
  const avro::Schema* data_file = entry.fields[entry.FieldIndexById(2).value()].schema.get();
  for (int32_t id : {142, 143, 144, 145}) {
    EXPECT_TRUE(data_file->FieldIndexById(id).has_value()) << "v3 data_file field " << id;
  }
}

TEST(RowLineage, AV3ManifestListCarriesFirstRowIds) {
  std::vector<ManifestFile> list(2);
  list[0].manifest_path = "data.avro";
  list[0].first_row_id = 40;
  list[1].manifest_path = "deletes.avro";
  list[1].content = ManifestContent::kDeletes;
  ManifestListContext ctx{7, 6, 3, 3, 40};
  const std::string bytes = WriteManifestList(ctx, list).value();
  auto reader = avro::ContainerReader::Open(Buffer::FromString(bytes), "l.avro").value();
  EXPECT_EQ(reader.Meta("format-version"), "3");
  EXPECT_EQ(reader.Meta("first-row-id"), "40");
  auto back = ReadManifestList(Buffer::FromString(bytes), "l.avro").value();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].first_row_id, 40);
  EXPECT_EQ(back[1].first_row_id, std::nullopt);
  // A data manifest without an id cannot go into a v3 list.
  list[0].first_row_id.reset();
  EXPECT_FALSE(WriteManifestList(ctx, list).has_value());
}

TEST(RowLineage, CreateTakesTheVersionFromTheReservedProperty) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.v3").value();
  Table t = CreateDimension(w, id, "", "", {{"format-version", "3"}});
  EXPECT_EQ(t.metadata.format_version, 3);
  EXPECT_FALSE(t.metadata.properties.contains("format-version"));
  EXPECT_EQ(t.metadata.ToJson()["next-row-id"], 0);
  EXPECT_EQ(w.Load(id).metadata.format_version, 3);

  const auto bad = TableIdentifier::Parse("db.v4").value();
  CreateTableOptions o{testing_support::DimensionSchema(), {}, {}, {{"format-version", "4"}}, ""};
  auto v4 = CreateTable(*w.cat, *w.io, bad, o);
  ASSERT_FALSE(v4.has_value());
  EXPECT_EQ(v4.error().ToString(),
            "invalid input: table property format-version = '4': expected an integer from 2 to 3");
  o.properties = {{"format-version", "2"}};
  o.format_version = 3;
  auto disagree = CreateTable(*w.cat, *w.io, bad, o);
  ASSERT_FALSE(disagree.has_value());
  EXPECT_EQ(disagree.error().ToString(),
            "invalid input: table 'db.v4': format version 3 and property format-version=2 "
            "disagree");
  EXPECT_FALSE(w.cat->LoadTable(bad).has_value()) << "nothing registered";
  // A v2 table's metadata has no next-row-id.
  const auto v2 = TableIdentifier::Parse("db.v2").value();
  EXPECT_FALSE(CreateDimension(w, v2, "").metadata.ToJson().contains("next-row-id"));
}

// A v1 table (older writers' tables, which floe reads and appends to but does not upgrade) takes
// v2 manifests, as floe always wrote them, and no row lineage.
TEST(RowLineage, AV1TableIsAppendedToWithoutLineage) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.v1").value();
  CreateDimension(w, id, "");
  ASSERT_TRUE(internal::CommitMetadataChange(
                  *w.cat, *w.io, id,
                  [](const Table& base, std::vector<std::string>*) -> Result<TableMetadata> {
                    TableMetadata m = base.metadata;
                    m.format_version = 1;
                    return m;
                  })
                  .has_value());
  AppendBatch(w, id, DimensionBatch(Range(0, 10)));
  Table t = w.Load(id);
  EXPECT_EQ(t.metadata.format_version, 1);
  EXPECT_EQ(t.metadata.CurrentSnapshot()->first_row_id, std::nullopt);
  EXPECT_FALSE(t.metadata.ToJson().contains("next-row-id"));
  EXPECT_EQ(FilesByFirstRowId(w, id).begin()->first, -1);
  EXPECT_EQ(AllIds(w, id), Range(0, 10));
}

TEST(RowLineage, AppendsHandOutConsecutiveIdRanges) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.v3").value();
  CreateDimension(w, id, "", "", {{"format-version", "3"}});
  AppendBatch(w, id, DimensionBatch(Range(0, 30)));
  Table t = w.Load(id);
  const Snapshot* s1 = t.metadata.CurrentSnapshot();
  EXPECT_EQ(s1->first_row_id, 0);
  EXPECT_EQ(s1->added_rows, 30);
  EXPECT_EQ(t.metadata.next_row_id, 30);
  const int64_t first_snapshot = s1->snapshot_id;
  AppendBatch(w, id, DimensionBatch(Range(30, 50)));
  t = w.Load(id);
  const Snapshot* s2 = t.metadata.CurrentSnapshot();
  EXPECT_EQ(s2->first_row_id, 30);
  EXPECT_EQ(s2->added_rows, 20) << "the first append's manifest keeps its ids";
  EXPECT_EQ(t.metadata.next_row_id, 50);
  const auto files = FilesByFirstRowId(w, id);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files.begin()->first, 0);
  EXPECT_EQ(files.begin()->second.record_count, 30);
  EXPECT_EQ(std::next(files.begin())->first, 30);
  // The first snapshot still reads as it was written.
  EXPECT_EQ(t.metadata.SnapshotById(first_snapshot)->first_row_id, 0);
  EXPECT_EQ(AllIds(w, id), Range(0, 50));
}

TEST(RowLineage, MergedManifestsKeepTheIdsTheirFilesHad) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.v3").value();
  CreateDimension(w, id, "", "",
                  {{"format-version", "3"}, {"commit.manifest.min-count-to-merge", "2"}});
  AppendBatch(w, id, DimensionBatch(Range(0, 30)));
  AppendBatch(w, id, DimensionBatch(Range(30, 50)));  // merges the two manifests into one
  Table t = w.Load(id);
  auto manifests = t.Manifests(*w.io, *t.metadata.CurrentSnapshot()).value();
  ASSERT_EQ(manifests.size(), 1u) << "the second append merged the manifests";
  // The merged manifest starts at next-row-id and reserves its existing rows too (the spec's
  // simple approach); the first file keeps id 0, written into the merged manifest.
  EXPECT_EQ(manifests[0].first_row_id, 30);
  EXPECT_EQ(t.metadata.next_row_id, 30 + 50);
  EXPECT_EQ(t.metadata.CurrentSnapshot()->added_rows, 50);
  const auto files = FilesByFirstRowId(w, id);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files.begin()->first, 0);
  EXPECT_EQ(files.begin()->second.record_count, 30);
  EXPECT_EQ(std::next(files.begin())->first, 30);
  ExpectDisjointIdRanges(w, id);
}

TEST(RowLineage, AV3TableRefusesPositionDeleteFilesAndTakesDeletionVectors) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.v3").value();
  CreateDimension(w, id, "", "", {{"format-version", "3"}});
  AppendBatch(w, id, DimensionBatch(Range(0, 40)));
  Table t = w.Load(id);
  const DataFile data = FilesByFirstRowId(w, id).begin()->second;
  const std::string dir = t.metadata.location + "/data/";
  DataFile pos =
      WritePositionDeleteFile(*w.io, dir + "pos.parquet", {{data.file_path, 3}}, {}).value();
  SnapshotUpdate u;
  u.operation = "delete";
  u.added_deletes = {pos};
  auto refused = CommitSnapshot(*w.cat, *w.io, id, u);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().ToString(),
            fmt::format("invalid input: position delete file '{}': table 'db.v3' is format "
                        "version 3, which takes deletion vectors instead; nothing was committed",
                        pos.file_path));
  EXPECT_EQ(w.Load(id).metadata_location, t.metadata_location);

  u.added_deletes = WriteDeletionVectors(*w.io, dir + "dv.puffin", {{data.file_path, {3, 5}}},
                                         {{data.file_path, {}}})
                        .value();
  Table after = CommitSnapshot(*w.cat, *w.io, id, u).value();
  EXPECT_EQ(after.metadata.CurrentSnapshot()->summary.at("added-dvs"), "1");
  EXPECT_EQ(after.metadata.CurrentSnapshot()->added_rows, 0) << "a row delta adds no rows";
  EXPECT_EQ(after.metadata.next_row_id, 40);
  std::vector<int64_t> want = Range(0, 40);
  std::erase_if(want, [&](int64_t v) { return v == 3 || v == 5; });
  EXPECT_EQ(AllIds(w, id), want);
}

struct LineageRow {
  int64_t id = 0;
  std::optional<int64_t> row_id, sequence;
  friend bool operator==(const LineageRow&, const LineageRow&) = default;
};

// Every row of the table with its lineage, by id; `physical` says whether each file holds both
// lineage columns for every row (rather than a reader deriving them).
std::vector<LineageRow> Lineage(const Warehouse& w, const TableIdentifier& id, bool* physical) {
  Table t = w.Load(id);
  const Schema& schema = t.metadata.CurrentSchema();
  auto plan = PlanFiles(t, *w.io, {}).value();
  std::vector<LineageRow> out;
  *physical = true;
  for (const FileScanTask& task : plan.tasks) {
    const auto batches = ReadTask(task, WithRowLineage(schema), *w.io).value();
    for (const auto& b : batches) {
      const size_t n = b.columns.size();
      for (int64_t r = 0; r < b.num_rows; ++r) {
        LineageRow row{b.columns[0]->Value<int64_t>(r), {}, {}};
        if (!b.columns[n - 2]->IsNull(r)) row.row_id = b.columns[n - 2]->Value<int64_t>(r);
        if (!b.columns[n - 1]->IsNull(r)) row.sequence = b.columns[n - 1]->Value<int64_t>(r);
        out.push_back(row);
      }
    }
    // What the file itself holds: the two columns, read from it by field id (a file without them
    // has no such fields).
    const StoreObject object = w.io->Resolve(task.file.file_path).value();
    parquet::ReadFileOptions ro;
    ro.fetch.read.field_ids = {kRowIdFieldId, kLastUpdatedSequenceNumberFieldId};
    const auto read = parquet::ReadFileAll(*object.store, object.key, {}, ro);
    if (!read) {
      EXPECT_EQ(read.error().kind, ErrorKind::kNotFound) << read.error().ToString();
      *physical = false;
      continue;
    }
    for (const auto& b : read->batches) {
      *physical &=
          b.columns.size() == 2 && b.columns[0]->null_count == 0 && b.columns[1]->null_count == 0;
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

// Three appends (row ids = ids, sequence numbers 1-3), a deletion vector, then a sort rewrite that
// reorders every row: each row keeps its _row_id and _last_updated_sequence_number, written into
// the new files, and the deleted rows stay deleted.
TEST(RowLineage, RewriteDataFilesKeepsEveryRowsLineage) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.v3").value();
  CreateDimension(w, id, "", "", {{"format-version", "3"}});
  for (int i = 0; i < 3; ++i) AppendBatch(w, id, DimensionBatch(Range(i * 10, i * 10 + 10)));
  const auto files = FilesByFirstRowId(w, id);
  ASSERT_EQ(files.size(), 3u);
  const DataFile& second = std::next(files.begin())->second;
  SnapshotUpdate u;
  u.operation = "delete";
  u.added_deletes = WriteDeletionVectors(*w.io, w.Load(id).metadata.location + "/data/dv.puffin",
                                         {{second.file_path, {2, 7}}}, {{second.file_path, {}}})
                        .value();
  ASSERT_TRUE(CommitSnapshot(*w.cat, *w.io, id, u).has_value());
  std::vector<LineageRow> want;
  for (int64_t v : Range(0, 30)) {
    if (v != 12 && v != 17) want.push_back({v, v, 1 + v / 10});
  }
  bool physical = true;
  EXPECT_EQ(Lineage(w, id, &physical), want);
  EXPECT_FALSE(physical) << "appended files inherit their lineage";

  RewriteOptions o;
  o.rewrite_all = true;
  o.strategy = RewriteStrategy::kSort;
  o.sort_order_text = "id DESC";
  auto r = RewriteDataFiles(*w.cat, *w.io, id, o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->rewritten_data_files_count, 3);
  EXPECT_EQ(r->added_data_files_count, 1);
  EXPECT_EQ(Lineage(w, id, &physical), want);
  EXPECT_TRUE(physical) << "the rewrite wrote both lineage columns";
  EXPECT_EQ(AllIds(w, id).size(), 28u);
}

// A v2 table with position deletes (one file-scoped, one for two data files of a partition, one
// for a data file no longer live), upgraded to v3 as Spark's ALTER TABLE does it (next-row-id 0,
// old snapshots untouched): rewrite_position_delete_files turns every position delete into a
// deletion vector of its data file, and the first snapshot after the upgrade gives every data
// file an id range.
TEST(RowLineage, RewritePositionDeletesOfAnUpgradedTableWritesDeletionVectors) {
  Warehouse w;
  const auto id = TableIdentifier::Parse("db.up").value();
  CreateDimension(w, id, "", "category");
  AppendBatch(w, id, DimensionBatch(Range(0, 200)));
  AppendBatch(w, id, DimensionBatch(Range(200, 400)));
  Table t = w.Load(id);
  auto plan = PlanFiles(t, *w.io, {}).value();
  ASSERT_EQ(plan.tasks.size(), 8u);
  const FileScanTask* a = &plan.tasks[0];
  const FileScanTask* b = nullptr;
  const FileScanTask* c = nullptr;
  for (const auto& task : plan.tasks) {
    if (&task == a || task.file.partition == a->file.partition) continue;
    if (b == nullptr) {
      b = &task;
    } else if (task.file.partition == b->file.partition) {
      c = &task;
    }
  }
  ASSERT_TRUE(b != nullptr && c != nullptr);
  const std::string dir = t.metadata.location + "/data/";
  DataFile file_scoped =
      WritePositionDeleteFile(*w.io, dir + "a.parquet",
                              {{a->file.file_path, 0}, {a->file.file_path, 9}}, a->file.partition)
          .value();
  DataFile partition_scoped = WritePositionDeleteFile(*w.io, dir + "bc.parquet",
                                                      {{b->file.file_path, 1},
                                                       {c->file.file_path, 2},
                                                       {c->file.file_path, 4},
                                                       {dir + "gone.parquet", 0}},
                                                      b->file.partition)
                                  .value();
  SnapshotUpdate u;
  u.operation = "delete";
  u.added_deletes = {file_scoped, partition_scoped};
  ASSERT_TRUE(CommitSnapshot(*w.cat, *w.io, id, u).has_value());
  const std::vector<int64_t> want = AllIds(w, id);
  ASSERT_EQ(want.size(), 400u - 5);

  auto upgraded = internal::CommitMetadataChange(
      *w.cat, *w.io, id, [](const Table& base, std::vector<std::string>*) -> Result<TableMetadata> {
        TableMetadata m = base.metadata;
        m.format_version = 3;
        m.next_row_id = 0;
        return m;
      });
  ASSERT_TRUE(upgraded.has_value()) << upgraded.error().ToString();
  EXPECT_EQ(FilesByFirstRowId(w, id).begin()->first, -1) << "no ids before the first v3 snapshot";

  auto r = RewritePositionDeleteFiles(*w.cat, *w.io, id, {}).value();
  EXPECT_EQ(r.commits, 1);
  EXPECT_EQ(r.rewritten_delete_files_count, 2);
  EXPECT_EQ(r.added_delete_files_count, 3);
  EXPECT_EQ(r.dangling_positions, 1);
  Table after = w.Load(id);
  const auto& summary = after.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("added-dvs"), "3");
  EXPECT_EQ(summary.at("removed-delete-files"), "2");
  EXPECT_EQ(summary.at("total-position-deletes"), "5");
  std::map<std::string, int64_t> dvs;  // data file -> cardinality
  const std::vector<ManifestEntry> live = after.LiveEntries(*w.io).value();
  for (const ManifestEntry& e : live) {
    if (e.file.content == FileContent::kData) continue;
    ASSERT_TRUE(IsDeletionVector(e.file)) << e.file.file_path << " is still live";
    dvs[*e.file.referenced_data_file] = e.file.record_count;
  }
  EXPECT_EQ(dvs, (std::map<std::string, int64_t>{
                     {a->file.file_path, 2}, {b->file.file_path, 1}, {c->file.file_path, 2}}));
  EXPECT_EQ(AllIds(w, id), want);
  // The first v3 snapshot assigned every data file an id range.
  EXPECT_EQ(after.metadata.CurrentSnapshot()->first_row_id, 0);
  EXPECT_EQ(after.metadata.next_row_id, 400);
  ExpectDisjointIdRanges(w, id);
  // Nothing left to convert: a second run commits nothing.
  EXPECT_EQ(RewritePositionDeleteFiles(*w.cat, *w.io, id, {}).value().commits, 0);
}

}  // namespace
}  // namespace floe::iceberg
