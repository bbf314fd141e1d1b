#include "floe/iceberg/table_update.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

using json = nlohmann::json;

// A v2 table with two snapshots, a tag on the first and 'main' on the second.
constexpr const char* kBase = R"json({
  "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://bucket/t", "last-sequence-number": 2, "last-updated-ms": 1602638573590,
  "last-column-id": 2, "current-schema-id": 0,
  "schemas": [{"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "x", "required": true, "type": "long"},
    {"id": 2, "name": "y", "required": false, "type": "string"}]}],
  "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
  "last-partition-id": 999, "default-sort-order-id": 0,
  "sort-orders": [{"order-id": 0, "fields": []}],
  "properties": {"keep": "1", "drop": "2"},
  "current-snapshot-id": 20,
  "snapshots": [
    {"snapshot-id": 10, "timestamp-ms": 1515100955770, "sequence-number": 1,
     "summary": {"operation": "append"}, "manifest-list": "s3://bucket/t/metadata/1.avro"},
    {"snapshot-id": 20, "parent-snapshot-id": 10, "timestamp-ms": 1555100955770,
     "sequence-number": 2, "summary": {"operation": "append"},
     "manifest-list": "s3://bucket/t/metadata/2.avro", "schema-id": 0}],
  "snapshot-log": [], "metadata-log": [],
  "refs": {"old": {"snapshot-id": 10, "type": "tag"},
           "main": {"snapshot-id": 20, "type": "branch"}}
})json";

TableMetadata Base() { return TableMetadata::Parse(kBase, "base").value(); }

TEST(TableUpdate, AnAppendAddsItsSnapshotAndMovesMainUnderMainsOldValue) {
  const TableMetadata base = Base();
  TableMetadata next = base;
  Snapshot s;
  s.snapshot_id = 30;
  s.parent_snapshot_id = 20;
  s.sequence_number = 3;
  s.timestamp_ms = 1600000000000;
  s.manifest_list = "s3://bucket/t/metadata/3.avro";
  s.summary = {{"operation", "append"}};
  next.snapshots.push_back(s);
  next.current_snapshot_id = 30;
  next.refs["main"].snapshot_id = 30;
  next.last_sequence_number = 3;
  next.last_updated_ms = 1600000000001;  // the service's to keep: no update
  next.metadata_log.push_back({1, "s3://bucket/t/metadata/v2.json"});

  const catalog::TableChanges c = ChangesBetween(base, next);
  EXPECT_EQ(c.updates, json::parse(R"json([
    {"action": "add-snapshot", "snapshot": {"snapshot-id": 30, "parent-snapshot-id": 20,
      "sequence-number": 3, "timestamp-ms": 1600000000000,
      "manifest-list": "s3://bucket/t/metadata/3.avro", "summary": {"operation": "append"}}},
    {"action": "set-snapshot-ref", "ref-name": "main", "snapshot-id": 30, "type": "branch"}])json"))
      << c.updates.dump();
  EXPECT_EQ(c.requirements, json::parse(R"json([
    {"type": "assert-table-uuid", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 20}])json"))
      << c.requirements.dump();
}

TEST(TableUpdate, AnExpiryRemovesRefsThenSnapshotsAndPinsMain) {
  const TableMetadata base = Base();
  TableMetadata next = base;
  next.snapshots.erase(next.snapshots.begin());
  next.refs.erase("old");
  const catalog::TableChanges c = ChangesBetween(base, next);
  EXPECT_EQ(c.updates, json::parse(R"json([
    {"action": "remove-snapshot-ref", "ref-name": "old"},
    {"action": "remove-snapshots", "snapshot-ids": [10]}])json"))
      << c.updates.dump();
  EXPECT_EQ(c.requirements, json::parse(R"json([
    {"type": "assert-table-uuid", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
    {"type": "assert-ref-snapshot-id", "ref": "old", "snapshot-id": 10},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 20}])json"))
      << c.requirements.dump();
}

TEST(TableUpdate, ANewSchemaIsTheOneAddedAndPropertiesAreSetAndRemoved) {
  const TableMetadata base = Base();
  TableMetadata next = base;
  std::vector<NestedField> fields = base.CurrentSchema().fields();
  fields.push_back(NestedField{.id = 3, .name = "z", .type = ParsePrimitive("int").value()});
  next.schemas.emplace_back(1, fields);
  next.current_schema_id = 1;
  next.last_column_id = 3;
  next.properties.erase("drop");
  next.properties["new"] = "3";
  next.properties["keep"] = "1";
  const catalog::TableChanges c = ChangesBetween(base, next);
  ASSERT_EQ(c.updates.size(), 4u) << c.updates.dump();
  EXPECT_EQ(c.updates[0]["action"], "add-schema");
  EXPECT_EQ(c.updates[0]["schema"]["schema-id"], 1);
  EXPECT_EQ(c.updates[0]["schema"]["fields"][2]["name"], "z");
  EXPECT_EQ(c.updates[0]["last-column-id"], 3);
  EXPECT_EQ(c.updates[1], json::parse(R"({"action": "set-current-schema", "schema-id": -1})"));
  EXPECT_EQ(c.updates[2], json::parse(R"({"action": "set-properties", "updates": {"new": "3"}})"));
  EXPECT_EQ(c.updates[3], json::parse(R"({"action": "remove-properties", "removals": ["drop"]})"));
  EXPECT_EQ(c.requirements, json::parse(R"json([
    {"type": "assert-table-uuid", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
    {"type": "assert-current-schema-id", "current-schema-id": 0},
    {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 2}])json"))
      << c.requirements.dump();
}

TEST(TableUpdate, NothingChangedIsNoUpdateAndNoRequirement) {
  const TableMetadata base = Base();
  TableMetadata next = base;
  next.last_updated_ms += 5;
  const catalog::TableChanges c = ChangesBetween(base, next);
  EXPECT_TRUE(c.updates.empty());
  EXPECT_TRUE(c.requirements.empty());
}

TEST(TableUpdate, ACreateRequestCarriesTheFormatVersionAndTheLocationWhenAsked) {
  const TableMetadata base = Base();
  const json with = CreateTableRequest(base, true);
  EXPECT_EQ(with["schema"]["fields"][1]["name"], "y");
  EXPECT_EQ(with["partition-spec"]["fields"], json::array());
  EXPECT_EQ(with["write-order"]["order-id"], 0);
  EXPECT_EQ(with["properties"],
            json::parse(R"({"keep": "1", "drop": "2", "format-version": "2"})"));
  EXPECT_EQ(with["location"], "s3://bucket/t");
  EXPECT_FALSE(CreateTableRequest(base, false).contains("location"));
}

}  // namespace
}  // namespace floe::iceberg
