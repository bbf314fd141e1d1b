// Row-level changes against concurrent commits: a statement reads snapshot S, another writer
// commits, then the statement commits. Iceberg's validations decide (commit.h: CommitValidation):
// an append elsewhere never conflicts; an append the condition may match conflicts under
// serializable isolation only; a compaction of a file the statement changes always conflicts; a
// new delete for such a file conflicts for copy-on-write, for merge-on-read UPDATE, and for v3
// deletion vectors. A failed commit leaves the table exactly as the other writer left it and
// removes every file it wrote.
#include "floe/iceberg/row_level_change.h"

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "iceberg/maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using catalog::TableIdentifier;
using testing_support::Warehouse;
namespace c = columnar;

const TableIdentifier kId = TableIdentifier::Parse("db.orders").value();

// id (long), day (date, the partition): 20 rows per day.
c::RecordBatch Rows(int day, int64_t first, int64_t n) {
  c::FixedWidthBuilder<int64_t> ids(c::Int64());
  c::FixedWidthBuilder<int32_t> days(c::Date32());
  for (int64_t i = 0; i < n; ++i) {
    ids.Append(first + i);
    days.Append(19725 + day);
  }
  c::RecordBatch b;
  b.schema = std::make_shared<c::Schema>(
      c::Schema{{{"id", c::Int64(), false, 1}, {"day", c::Date32(), true, 2}}});
  b.columns = {ids.Finish(), days.Finish()};
  b.num_rows = n;
  return b;
}

struct TableSetup {
  int format_version = 2;
  std::map<std::string, std::string> properties;
};

class RowLevelChangeTest : public ::testing::Test {
 protected:
  void Create(const TableSetup& s) {
    Schema schema(0, {{1, "id", true, Primitive(TypeId::kLong)},
                      {2, "day", false, Primitive(TypeId::kDate)}});
    CreateTableOptions o{schema, PartitionSpec::Parse("day", schema).value(), {}, s.properties, ""};
    o.format_version = s.format_version;
    ASSERT_TRUE(CreateTable(*w_->cat, *w_->io, kId, o));
    Append(0, 0);
    Append(1, 20);
  }
  void Append(int day, int64_t first) {
    TableDataWriter writer(w_->Load(kId), *w_->io);
    ASSERT_TRUE(writer.Write(Rows(day, first, 20)));
    auto files = writer.Finish();
    ASSERT_TRUE(files) << files.error().ToString();
    ASSERT_TRUE(AppendFiles(*w_->cat, *w_->io, kId, *files));
  }
  // The statement: rows 0 and 1 (by position) of day 0's file, condition `day = <day 0>`.
  RowLevelChange Change(const Table& t, RowLevelOperation op) {
    RowLevelChange ch;
    ch.operation = op;
    ch.snapshot_id = t.metadata.current_snapshot_id;
    ch.filter = Predicate(Op::kEq, "day", {Literal::Date(19725)});
    ch.deleted[DayFile(t, 0)] = {0, 1};
    if (op == RowLevelOperation::kUpdate) ch.new_rows.push_back(Rows(0, 1000, 2));
    return ch;
  }
  std::string DayFile(const Table& t, int day) {
    const std::vector<ManifestEntry> entries = t.LiveEntries(*w_->io).value();
    for (const ManifestEntry& e : entries) {
      if (e.file.content == FileContent::kData && e.file.partition[0] == Literal::Date(19725 + day))
        return e.file.file_path;
    }
    return "";
  }
  // A merge-on-read delete of day 0's row 5, committed by the other writer.
  void OtherDeletes() {
    Table t = w_->Load(kId);
    Table mor = t;
    mor.metadata.properties["write.delete.mode"] = "merge-on-read";
    RowLevelChange ch;
    ch.operation = RowLevelOperation::kDelete;
    ch.snapshot_id = t.metadata.current_snapshot_id;
    ch.deleted[DayFile(t, 0)] = {5};
    auto r = CommitRowLevelChange(*w_->cat, *w_->io, mor, ch, nullptr);
    ASSERT_TRUE(r) << r.error().ToString();
  }
  // Commits `change` read at `read`, expecting `error` ("" = success), then checks that a failure
  // left nothing behind.
  void Expect(const Table& read, const RowLevelChange& change, const std::string& error) {
    const auto before = w_->Keys(kId, "data/");
    const auto snapshot = w_->Load(kId).metadata.current_snapshot_id;
    auto r = CommitRowLevelChange(*w_->cat, *w_->io, read, change, nullptr);
    if (error.empty()) {
      ASSERT_TRUE(r) << r.error().ToString();
      EXPECT_NE(w_->Load(kId).metadata.current_snapshot_id, snapshot);
      return;
    }
    ASSERT_FALSE(r) << "committed; expected: " << error;
    EXPECT_NE(r.error().message.find(error), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().kind, ErrorKind::kConflict) << r.error().ToString();
    EXPECT_EQ(w_->Load(kId).metadata.current_snapshot_id, snapshot);
    EXPECT_EQ(w_->Keys(kId, "data/"), before);  // what it wrote is gone
  }

  std::unique_ptr<Warehouse> w_ = std::make_unique<Warehouse>();
};

const TableSetup kCopyOnWrite{2, {}};
const TableSetup kMergeOnRead{
    2, {{"write.delete.mode", "merge-on-read"}, {"write.update.mode", "merge-on-read"}}};
const TableSetup kMergeOnReadV3{
    3, {{"write.delete.mode", "merge-on-read"}, {"write.update.mode", "merge-on-read"}}};

TEST_F(RowLevelChangeTest, AnAppendToAnotherPartitionNeverConflicts) {
  for (const TableSetup& s : {kCopyOnWrite, kMergeOnRead, kMergeOnReadV3}) {
    SCOPED_TRACE(s.properties.size());
    w_ = std::make_unique<Warehouse>();
    Create(s);
    const Table read = w_->Load(kId);
    Append(3, 100);
    Expect(read, Change(read, RowLevelOperation::kUpdate), "");
  }
}

TEST_F(RowLevelChangeTest, AnAppendTheConditionMayMatchConflictsUnderSerializableOnly) {
  Create(kMergeOnRead);
  Table read = w_->Load(kId);
  Append(0, 200);
  Expect(read, Change(read, RowLevelOperation::kDelete), "found a conflicting data file");
  // Snapshot isolation lets it through.
  w_ = std::make_unique<Warehouse>();
  TableSetup snapshot = kMergeOnRead;
  snapshot.properties["write.delete.isolation-level"] = "snapshot";
  Create(snapshot);
  read = w_->Load(kId);
  Append(0, 300);
  Expect(read, Change(read, RowLevelOperation::kDelete), "");
}

TEST_F(RowLevelChangeTest, ACompactionOfAChangedFileAlwaysConflicts) {
  for (const TableSetup& s : {kCopyOnWrite, kMergeOnRead, kMergeOnReadV3}) {
    SCOPED_TRACE(s.format_version);
    w_ = std::make_unique<Warehouse>();
    Create(s);
    Table read = w_->Load(kId);
    RewriteOptions ro;
    ro.rewrite_all = true;
    ro.min_input_files = 1;
    ASSERT_TRUE(RewriteDataFiles(*w_->cat, *w_->io, kId, ro));
    Expect(read, Change(read, RowLevelOperation::kDelete), "was removed by snapshot");
  }
}

TEST_F(RowLevelChangeTest, ANewDeleteForAChangedFileConflictsWhereItWouldBeLost) {
  // Copy-on-write would resurrect the other writer's deleted row.
  Create(kCopyOnWrite);
  Table read = w_->Load(kId);
  OtherDeletes();
  Expect(read, Change(read, RowLevelOperation::kDelete), "found a conflicting delete file");

  // Merge-on-read v2: two DELETEs' position deletes both apply; no conflict.
  w_ = std::make_unique<Warehouse>();
  Create(kMergeOnRead);
  read = w_->Load(kId);
  OtherDeletes();
  Expect(read, Change(read, RowLevelOperation::kDelete), "");
  // ...but an UPDATE's would: the row it rewrites may be one the other writer deleted.
  read = w_->Load(kId);
  OtherDeletes();
  Expect(read, Change(read, RowLevelOperation::kUpdate), "found a conflicting delete file");

  // v3: one deletion vector per data file, so a second one for the same file conflicts.
  w_ = std::make_unique<Warehouse>();
  Create(kMergeOnReadV3);
  read = w_->Load(kId);
  OtherDeletes();
  Expect(read, Change(read, RowLevelOperation::kDelete), "found a conflicting delete file");
}

TEST_F(RowLevelChangeTest, MergeOnReadOnAVersion1TableIsAnErrorNamingTheProperty) {
  TableMetadata m;
  m.format_version = 1;
  m.properties["write.delete.mode"] = "merge-on-read";
  auto p = PolicyFor(m, "db.orders", RowLevelOperation::kDelete);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            "table 'db.orders' is format version 1, which has no delete files: "
            "write.delete.mode = merge-on-read needs format version 2 or later (set the table "
            "property format-version to 2, or write.delete.mode to copy-on-write); nothing was "
            "changed");
  m.properties["write.delete.mode"] = "copy-on-write";
  EXPECT_TRUE(PolicyFor(m, "db.orders", RowLevelOperation::kDelete));
}

TEST_F(RowLevelChangeTest, ABadModePropertyIsAnErrorNamingIt) {
  TableMetadata m;
  m.format_version = 2;
  m.properties["write.update.mode"] = "merge_on_read";
  auto p = PolicyFor(m, "db.orders", RowLevelOperation::kUpdate);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().ToString(),
            "invalid input: table property write.update.mode = 'merge_on_read': expected "
            "copy-on-write or merge-on-read");
  // Iceberg's values are read in any case, as Spark does.
  m.properties["write.update.mode"] = "Merge-On-Read";
  EXPECT_EQ(PolicyFor(m, "db.orders", RowLevelOperation::kUpdate)->mode,
            RowLevelMode::kMergeOnRead);
}

}  // namespace
}  // namespace floe::iceberg
