#include "floe/iceberg/metadata_tables.h"

#include <gtest/gtest.h>

#include "maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using namespace testing_support;

catalog::TableIdentifier Id() { return catalog::TableIdentifier::Parse("db.dim").value(); }

TEST(MetadataTables, NamesAndUnknownNameError) {
  for (const char* n : {"files", "data_files", "delete_files", "entries", "snapshots", "manifests",
                        "partitions", "history", "refs"}) {
    EXPECT_TRUE(IsMetadataTableName(n)) << n;
  }
  EXPECT_FALSE(IsMetadataTableName("dim"));
  Warehouse w;
  Table t = CreateDimension(w, Id(), "");
  auto r = ReadMetadataTable(t, *w.io, "nope");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(),
            "not found: table 'db.dim' has no metadata table 'nope' (known: files, data_files, "
            "delete_files, entries, snapshots, manifests, partitions, history, refs, "
            "all_data_files, all_files, all_manifests, position_deletes)");
}

TEST(MetadataTables, EmptyTableHasEmptyTables) {
  Warehouse w;
  Table t = CreateDimension(w, Id(), "");
  for (auto name : MetadataTableNames()) {
    auto b = ReadMetadataTable(t, *w.io, name);
    ASSERT_TRUE(b.has_value()) << name << ": " << b.error().ToString();
    EXPECT_EQ(b->num_rows, 0) << name;
    EXPECT_TRUE(b->Validate().has_value()) << name;
  }
}

TEST(MetadataTables, RowsMatchTheTable) {
  Warehouse w;
  CreateDimension(w, Id(), "", "category");
  // Two appends: ids 0..99 (4 categories) then 100..139.
  std::vector<int64_t> a(100), b(40);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 100);
  AppendBatch(w, Id(), DimensionBatch(a));
  Table t = AppendBatch(w, Id(), DimensionBatch(b));

  auto files = ReadMetadataTable(t, *w.io, "files").value();
  ASSERT_EQ(files.num_rows, 8);  // 4 categories x 2 appends
  EXPECT_TRUE(files.Validate().has_value());
  auto records = LongColumn(files, "record_count");
  EXPECT_EQ(std::accumulate(records.begin(), records.end(), int64_t{0}), 140);
  auto lower = LongColumn(files, "readable_metrics.id.lower_bound");
  auto upper = LongColumn(files, "readable_metrics.id.upper_bound");
  auto parts = StringColumn(files, "partition");
  auto lowers_text = StringColumn(files, "lower_bounds");
  for (int64_t r = 0; r < files.num_rows; ++r) {
    EXPECT_LE(lower[r], upper[r]);
    // Category c<k> holds ids with id % 4 == k.
    EXPECT_EQ(parts[r], fmt::format("{{category=c{}}}", lower[r] % 4));
    EXPECT_TRUE(lowers_text[r].starts_with(fmt::format("{{1: {}, 2: 'c", lower[r])))
        << lowers_text[r];
  }
  EXPECT_EQ(StringColumn(files, "file_format")[0], "PARQUET");
  EXPECT_EQ(ReadMetadataTable(t, *w.io, "data_files")->num_rows, 8);
  EXPECT_EQ(ReadMetadataTable(t, *w.io, "delete_files")->num_rows, 0);

  auto snaps = ReadMetadataTable(t, *w.io, "snapshots").value();
  ASSERT_EQ(snaps.num_rows, 2);
  EXPECT_EQ(StringColumn(snaps, "operation"), (std::vector<std::string>{"append", "append"}));
  EXPECT_EQ(LongColumn(snaps, "parent_id")[0], -1);
  EXPECT_EQ(LongColumn(snaps, "parent_id")[1], LongColumn(snaps, "snapshot_id")[0]);
  EXPECT_NE(StringColumn(snaps, "summary")[1].find("total-records=140"), std::string::npos);

  auto history = ReadMetadataTable(t, *w.io, "history").value();
  ASSERT_EQ(history.num_rows, 2);
  EXPECT_EQ(LongColumn(history, "snapshot_id"), LongColumn(snaps, "snapshot_id"));

  auto refs = ReadMetadataTable(t, *w.io, "refs").value();
  ASSERT_EQ(refs.num_rows, 1);
  EXPECT_EQ(StringColumn(refs, "name")[0], "main");
  EXPECT_EQ(StringColumn(refs, "type")[0], "BRANCH");
  EXPECT_EQ(LongColumn(refs, "snapshot_id")[0], *t.metadata.current_snapshot_id);

  auto manifests = ReadMetadataTable(t, *w.io, "manifests").value();
  ASSERT_EQ(manifests.num_rows, 2);
  auto m_added = LongColumn(manifests, "added_snapshot_id");
  EXPECT_EQ(m_added[0], *t.metadata.current_snapshot_id);  // newest first

  auto partitions = ReadMetadataTable(t, *w.io, "partitions").value();
  ASSERT_EQ(partitions.num_rows, 4);
  EXPECT_EQ(StringColumn(partitions, "partition")[0], "{category=c0}");
  EXPECT_EQ(LongColumn(partitions, "record_count")[0], 25 + 10);

  auto entries = ReadMetadataTable(t, *w.io, "entries").value();
  ASSERT_EQ(entries.num_rows, 8);
  auto seqs = LongColumn(entries, "sequence_number");
  EXPECT_EQ(std::count(seqs.begin(), seqs.end(), 1), 4);
  EXPECT_EQ(std::count(seqs.begin(), seqs.end(), 2), 4);

  auto all_files = ReadMetadataTable(t, *w.io, "all_data_files").value();
  EXPECT_EQ(all_files.num_rows, 8);
  auto all_manifests = ReadMetadataTable(t, *w.io, "all_manifests").value();
  EXPECT_EQ(all_manifests.num_rows, 3);  // 1 in the first snapshot, 2 in the second
}

}  // namespace
}  // namespace floe::iceberg
