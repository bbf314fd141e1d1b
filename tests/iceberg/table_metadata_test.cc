#include "floe/iceberg/table_metadata.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

// A v2 metadata file in the shape Iceberg's Java library and pyiceberg write.
constexpr const char* kV2 = R"json({
  "format-version": 2,
  "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://bucket/test/location",
  "last-sequence-number": 34,
  "last-updated-ms": 1602638573590,
  "last-column-id": 3,
  "current-schema-id": 1,
  "schemas": [
    {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "x", "required": true, "type": "long"}]},
    {"type": "struct", "schema-id": 1, "identifier-field-ids": [1, 2], "fields": [
      {"id": 1, "name": "x", "required": true, "type": "long"},
      {"id": 2, "name": "y", "required": true, "type": "long", "doc": "comment"},
      {"id": 3, "name": "z", "required": true, "type": "long"}]}],
  "default-spec-id": 0,
  "partition-specs": [{"spec-id": 0, "fields": [{"name": "x", "transform": "identity", "source-id": 1, "field-id": 1000}]}],
  "last-partition-id": 1000,
  "default-sort-order-id": 3,
  "sort-orders": [{"order-id": 3, "fields": [
    {"transform": "identity", "source-id": 2, "direction": "asc", "null-order": "nulls-first"},
    {"transform": "bucket[4]", "source-id": 3, "direction": "desc", "null-order": "nulls-last"}]}],
  "properties": {"read.split.target.size": "134217728"},
  "current-snapshot-id": 3055729675574597004,
  "snapshots": [
    {"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770, "sequence-number": 0,
     "summary": {"operation": "append"}, "manifest-list": "s3://a/b/1.avro"},
    {"snapshot-id": 3055729675574597004, "parent-snapshot-id": 3051729675574597004,
     "timestamp-ms": 1555100955770, "sequence-number": 1, "summary": {"operation": "append"},
     "manifest-list": "s3://a/b/2.avro", "schema-id": 1}],
  "snapshot-log": [
    {"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770},
    {"snapshot-id": 3055729675574597004, "timestamp-ms": 1555100955770}],
  "metadata-log": [{"metadata-file": "s3://bucket/.../v1.json", "timestamp-ms": 1515100}],
  "statistics": [{"snapshot-id": 3055729675574597004, "statistics-path": "s3://a/stats.puffin"}],
  "refs": {"test": {"snapshot-id": 3051729675574597004, "type": "tag", "max-ref-age-ms": 10000000},
           "main": {"snapshot-id": 3055729675574597004, "type": "branch"}}
})json";

TEST(TableMetadata, ReadsV2AndKeepsUnknownKeys) {
  auto m = TableMetadata::Parse(kV2, "v2.metadata.json");
  ASSERT_TRUE(m.has_value()) << m.error().ToString();
  EXPECT_EQ(m->CurrentSchema().fields().size(), 3u);
  EXPECT_EQ(m->DefaultSpec().fields()[0].name, "x");
  EXPECT_EQ(m->DefaultSortOrder().fields()[1].transform, Transform::Bucket(4));
  EXPECT_EQ(m->CurrentSnapshot()->manifest_list, "s3://a/b/2.avro");
  EXPECT_EQ(m->refs.at("test").type, "tag");
  EXPECT_EQ(m->refs.at("test").extra["max-ref-age-ms"], 10000000);
  EXPECT_EQ(m->SnapshotAsOf(1515100955770 + 5).value()->snapshot_id, 3051729675574597004);
  EXPECT_EQ(m->SnapshotAsOf(1).error().ToString(),
            "not found: table has no snapshot at or before timestamp 1 ms");
  EXPECT_EQ(m->PropertyInt("read.split.target.size", 0), 134217728);

  // Written back and read again: the same document, statistics included.
  nlohmann::json out = m->ToJson();
  EXPECT_EQ(out["statistics"][0]["statistics-path"], "s3://a/stats.puffin");
  auto again = TableMetadata::FromJson(out, "again");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->ToJson(), out);
}

TEST(TableMetadata, ReadsV1) {
  constexpr const char* kV1 = R"json({
    "format-version": 1, "table-uuid": "d20125c8-7284-442c-9aea-15fee620737c",
    "location": "/tmp/t", "last-updated-ms": 1602638573874, "last-column-id": 2,
    "schema": {"type": "struct", "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 2, "name": "d", "required": false, "type": "date"}]},
    "partition-spec": [{"name": "d_day", "transform": "day", "source-id": 2}],
    "properties": {}, "current-snapshot-id": -1, "snapshots": []})json";
  auto m = TableMetadata::Parse(kV1, "v1.json");
  ASSERT_TRUE(m.has_value()) << m.error().ToString();
  EXPECT_EQ(m->format_version, 1);
  EXPECT_EQ(m->DefaultSpec().fields()[0].field_id, 1000);
  EXPECT_EQ(m->last_partition_id, 1000);
  EXPECT_EQ(m->CurrentSnapshot(), nullptr);
}

TEST(TableMetadata, BadMetadataNamesTheFile) {
  EXPECT_EQ(TableMetadata::Parse("{", "m.json").error().ToString(),
            "corrupt: table metadata 'm.json' is not a JSON object");
  EXPECT_EQ(TableMetadata::Parse(R"({"format-version": 9})", "m.json").error().ToString(),
            "unsupported: table metadata 'm.json' has format version 9 (floe reads 1-3)");
  EXPECT_EQ(TableMetadata::Parse(R"({"format-version": 2, "location": "x"})", "m.json")
                .error()
                .ToString(),
            "corrupt: table metadata 'm.json' lacks required field 'last-updated-ms'");
  std::string broken = kV2;
  broken.replace(broken.find(R"("current-schema-id": 1)"), 22, R"("current-schema-id": 7)");
  EXPECT_EQ(TableMetadata::Parse(broken, "m.json").error().ToString(),
            "corrupt: table metadata 'm.json': current-schema-id 7 is not among its schemas");
}

TEST(TableMetadata, NewTablesAreV2WithAnUnsortedOrder) {
  Schema s(0, {NestedField{1, "id", true, Primitive(TypeId::kLong)}});
  auto m = NewTableMetadata(s, PartitionSpec(), SortOrder(), "file:///w/ns/t", {{"a", "b"}});
  EXPECT_EQ(m.format_version, 2);
  EXPECT_EQ(m.table_uuid.size(), 36u);
  EXPECT_EQ(m.table_uuid[14], '4');
  EXPECT_EQ(m.last_column_id, 1);
  EXPECT_EQ(m.last_partition_id, 999);
  EXPECT_EQ(m.sort_orders.size(), 1u);
  auto j = m.ToJson();
  EXPECT_EQ(j["current-snapshot-id"], -1);
  EXPECT_TRUE(TableMetadata::FromJson(j, "new").has_value());
  EXPECT_NE(NewUuid(), NewUuid());
}

}  // namespace
}  // namespace floe::iceberg
