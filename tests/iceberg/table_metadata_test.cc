#include "floe/iceberg/table_metadata.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

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

// A v1 file: one schema and the fields of spec 0, no snapshots.
constexpr const char* kV1 = R"json({
    "format-version": 1, "table-uuid": "d20125c8-7284-442c-9aea-15fee620737c",
    "location": "/tmp/t", "last-updated-ms": 1602638573874, "last-column-id": 2,
    "schema": {"type": "struct", "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 2, "name": "d", "required": false, "type": "date"}]},
    "partition-spec": [{"name": "d_day", "transform": "day", "source-id": 2}],
    "properties": {}, "current-snapshot-id": -1, "snapshots": []})json";

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

// A copy of kV2 with the JSON at `pointer` replaced by `value` (or removed when null_opt).
std::string Mutated(const std::string& pointer, std::optional<nlohmann::json> value) {
  nlohmann::json j = nlohmann::json::parse(kV2);
  nlohmann::json::json_pointer p(pointer);
  if (value) {
    j[p] = *value;
  } else {
    j[p.parent_pointer()].erase(p.back());
  }
  return j.dump();
}

std::string ParseError(const std::string& text) {
  auto m = TableMetadata::Parse(text, "m.json");
  return m ? "ok" : m.error().ToString();
}

// Fields of the wrong JSON type are corrupt errors naming the file and the field's path.
TEST(TableMetadata, WrongTypesNameTheFileAndTheField) {
  EXPECT_EQ(ParseError(Mutated("/last-updated-ms", "soon")),
            "corrupt: table metadata 'm.json': field 'last-updated-ms' must be an integer, not a "
            "string");
  EXPECT_EQ(ParseError(Mutated("/format-version", 2.5)),
            "corrupt: table metadata 'm.json': field 'format-version' must be a 32-bit integer, "
            "not a fractional number");
  EXPECT_EQ(ParseError(Mutated("/last-column-id", 4294967297)),
            "corrupt: table metadata 'm.json': field 'last-column-id' = 4294967297 is out of range "
            "for a 32-bit integer");
  EXPECT_EQ(
      ParseError(Mutated("/table-uuid", 7)),
      "corrupt: table metadata 'm.json': field 'table-uuid' must be a string, not an integer");
  EXPECT_EQ(ParseError(Mutated("/schemas/1/fields/2/id", "3")),
            "corrupt: table metadata 'm.json': field 'schemas[1].fields[2].id' must be a 32-bit "
            "integer, not a string");
  EXPECT_EQ(ParseError(Mutated("/schemas/1/fields/0/required", "yes")),
            "corrupt: table metadata 'm.json': field 'schemas[1].fields[0].required' must be a "
            "boolean, not a string");
  EXPECT_EQ(ParseError(Mutated("/schemas/1/fields/0/type", "varchar")),
            "corrupt: table metadata 'm.json': field 'schemas[1].fields[0].type': unknown Iceberg "
            "type 'varchar'");
  EXPECT_EQ(ParseError(Mutated("/schemas/1/identifier-field-ids/1", nullptr)),
            "corrupt: table metadata 'm.json': field 'schemas[1].identifier-field-ids[1]' must be "
            "a 32-bit integer, not null");
  EXPECT_EQ(ParseError(Mutated("/schemas", nlohmann::json::object())),
            "corrupt: table metadata 'm.json': field 'schemas' must be an array, not an object");
  EXPECT_EQ(ParseError(Mutated("/partition-specs/0/fields/0/source-id", true)),
            "corrupt: table metadata 'm.json': field 'partition-specs[0].fields[0].source-id' must "
            "be a 32-bit integer, not a boolean");
  EXPECT_EQ(ParseError(Mutated("/partition-specs/0/fields/0/transform", "bucket[x]")),
            "corrupt: table metadata 'm.json': field 'partition-specs[0].fields[0].transform': "
            "bad transform 'bucket[x]': the parameter must be a positive integer");
  EXPECT_EQ(ParseError(Mutated("/sort-orders/0/fields/1/direction", 1)),
            "corrupt: table metadata 'm.json': field 'sort-orders[0].fields[1].direction' must be "
            "a string, not an integer");
  EXPECT_EQ(ParseError(Mutated("/sort-orders/0/fields/1/null-order", "nulls-middle")),
            "corrupt: table metadata 'm.json': field 'sort-orders[0].fields[1].null-order' is "
            "'nulls-middle', not nulls-first or nulls-last");
  EXPECT_EQ(ParseError(Mutated("/properties", nlohmann::json::array())),
            "corrupt: table metadata 'm.json': field 'properties' must be an object, not an array");
  EXPECT_EQ(ParseError(Mutated("/properties/read.split.target.size", nlohmann::json::object())),
            "corrupt: table metadata 'm.json': field 'properties.read.split.target.size' must be a "
            "string, not an object");
  EXPECT_EQ(ParseError(Mutated("/current-snapshot-id", "3055729675574597004")),
            "corrupt: table metadata 'm.json': field 'current-snapshot-id' must be an integer, not "
            "a string");
  EXPECT_EQ(ParseError(Mutated("/snapshots/1/timestamp-ms", nlohmann::json::array())),
            "corrupt: table metadata 'm.json': field 'snapshots[1].timestamp-ms' must be an "
            "integer, not an array");
  EXPECT_EQ(ParseError(Mutated("/snapshots/0/summary", "append")),
            "corrupt: table metadata 'm.json': field 'snapshots[0].summary' must be an object, not "
            "a string");
  EXPECT_EQ(ParseError(Mutated("/snapshots/1/manifest-list", 2)),
            "corrupt: table metadata 'm.json': field 'snapshots[1].manifest-list' must be a "
            "string, not an integer");
  EXPECT_EQ(ParseError(Mutated("/snapshots/1", 1)),
            "corrupt: table metadata 'm.json': field 'snapshots[1]' must be an object, not an "
            "integer");
  EXPECT_EQ(ParseError(Mutated("/refs/test/type", "label")),
            "corrupt: table metadata 'm.json': field 'refs.test.type' is 'label', not branch or "
            "tag");
  EXPECT_EQ(ParseError(Mutated("/refs/test/max-ref-age-ms", "long")),
            "corrupt: table metadata 'm.json': field 'refs.test.max-ref-age-ms' must be an "
            "integer, not a string");
  EXPECT_EQ(ParseError(Mutated("/refs/test/max-ref-age-ms", -5)),
            "corrupt: table metadata 'm.json': field 'refs.test.max-ref-age-ms' = -5 must be "
            "positive");
  EXPECT_EQ(ParseError(Mutated("/snapshot-log/0/snapshot-id", nullptr)),
            "corrupt: table metadata 'm.json': field 'snapshot-log[0].snapshot-id' is missing");
  EXPECT_EQ(ParseError(Mutated("/metadata-log/0/metadata-file", 3)),
            "corrupt: table metadata 'm.json': field 'metadata-log[0].metadata-file' must be a "
            "string, not an integer");
  EXPECT_EQ(ParseError(Mutated("/statistics/0/statistics-path", 3)),
            "corrupt: table metadata 'm.json': field 'statistics[0].statistics-path' must be a "
            "string, not an integer");
  EXPECT_EQ(ParseError(Mutated("/statistics", "none")),
            "corrupt: table metadata 'm.json': field 'statistics' must be an array, not a string");
  EXPECT_EQ(ParseError(Mutated("/location", std::nullopt)),
            "corrupt: table metadata 'm.json' lacks required field 'location'");
  EXPECT_EQ(ParseError(Mutated("/snapshots/0/snapshot-id", std::nullopt)),
            "corrupt: table metadata 'm.json': field 'snapshots[0].snapshot-id' is missing");
}

// A ref that names a snapshot the table lacks, or a main branch that disagrees with the current
// snapshot, is corrupt metadata, never an empty table (which the next append would start afresh).
TEST(TableMetadata, InconsistentRefsAreCorrupt) {
  EXPECT_EQ(ParseError(Mutated("/refs/main/snapshot-id", 42)),
            "corrupt: table metadata 'm.json': ref 'main' points at snapshot 42, which is not "
            "among its snapshots");
  EXPECT_EQ(ParseError(Mutated("/refs/test/snapshot-id", 43)),
            "corrupt: table metadata 'm.json': ref 'test' points at snapshot 43, which is not "
            "among its snapshots");
  EXPECT_EQ(ParseError(Mutated("/refs/main/snapshot-id", 3051729675574597004)),
            "corrupt: table metadata 'm.json': ref 'main' points at snapshot 3051729675574597004 "
            "but current-snapshot-id is 3055729675574597004");
  EXPECT_EQ(ParseError(Mutated("/current-snapshot-id", -1)),
            "corrupt: table metadata 'm.json': ref 'main' points at snapshot 3055729675574597004 "
            "but current-snapshot-id is -1");
  EXPECT_EQ(ParseError(Mutated("/refs/main/type", "tag")),
            "corrupt: table metadata 'm.json': ref 'main' is a tag, not a branch");
  EXPECT_EQ(ParseError(Mutated("/current-snapshot-id", 7)),
            "corrupt: table metadata 'm.json': current snapshot 7 is not among its snapshots");
  // Without refs, main is the current snapshot (format v1 and early v2 writers).
  EXPECT_EQ(ParseError(Mutated("/refs", std::nullopt)), "ok");
}

// Every field of a real metadata file replaced by a value of each JSON type, every field removed,
// and the text truncated at every length: each gives a table or a one-line error naming the file,
// never an exception. What parses survives a write and a re-read unchanged.
void FuzzMetadata(const char* document, int want_parsed, int want_failed) {
  const nlohmann::json base = nlohmann::json::parse(document);
  const std::vector<nlohmann::json> values = {nullptr,
                                              true,
                                              0,
                                              -1,
                                              2147483648,
                                              uint64_t{18446744073709551615ull},
                                              1.5,
                                              "",
                                              "x",
                                              nlohmann::json::array(),
                                              nlohmann::json::array({1, "a"}),
                                              nlohmann::json::object(),
                                              nlohmann::json::object({{"type", "struct"}})};
  std::vector<nlohmann::json::json_pointer> pointers;
  auto walk = [&](auto&& self, const nlohmann::json& j,
                  const nlohmann::json::json_pointer& p) -> void {
    if (!p.empty()) pointers.push_back(p);
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) self(self, it.value(), p / it.key());
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) self(self, j[i], p / i);
    }
  };
  walk(walk, base, nlohmann::json::json_pointer());
  ASSERT_GT(pointers.size(), 10u);
  int parsed = 0, failed = 0;
  auto check = [&](const std::string& text, const std::string& what) {
    Result<TableMetadata> m = Result<TableMetadata>(std::unexpected(Error{}));
    ASSERT_NO_THROW(m = TableMetadata::Parse(text, "m.json")) << what;
    if (!m) {
      ++failed;
      const std::string e = m.error().ToString();
      EXPECT_TRUE(m.error().kind == ErrorKind::kCorrupt ||
                  m.error().kind == ErrorKind::kUnsupported)
          << what << ": " << e;
      EXPECT_NE(e.find("table metadata 'm.json'"), std::string::npos) << what << ": " << e;
      EXPECT_EQ(e.find('\n'), std::string::npos) << what << ": " << e;
      // Named by a typed accessor, not caught as an exception of the JSON library.
      EXPECT_EQ(e.find("cannot be decoded"), std::string::npos) << what << ": " << e;
      return;
    }
    ++parsed;
    // What floe accepted it can use and write back.
    (void)m->CurrentSchema();
    (void)m->DefaultSpec();
    (void)m->DefaultSortOrder();
    (void)m->CurrentSnapshot();
    nlohmann::json out;
    ASSERT_NO_THROW(out = m->ToJson()) << what;
    auto again = TableMetadata::FromJson(out, "again");
    ASSERT_TRUE(again.has_value()) << what << ": " << again.error().ToString();
    EXPECT_EQ(again->ToJson(), out) << what;
  };
  for (const auto& p : pointers) {
    for (const auto& v : values) {
      nlohmann::json j = base;
      j[p] = v;
      check(j.dump(), p.to_string() + " = " + v.dump());
    }
    nlohmann::json j = base;
    nlohmann::json& parent = j[p.parent_pointer()];
    if (parent.is_array()) {
      parent.erase(static_cast<size_t>(std::stoul(p.back())));
    } else {
      parent.erase(p.back());
    }
    check(j.dump(), "without " + p.to_string());
  }
  const std::string text = base.dump();
  for (size_t n = 0; n < text.size(); ++n)
    check(text.substr(0, n), "truncated at " + std::to_string(n));
  EXPECT_GT(parsed, want_parsed);
  EXPECT_GT(failed, want_failed);
}

TEST(TableMetadata, MetadataOfAnyShapeGivesAValueOrAnError) {
  FuzzMetadata(kV2, 100, 1000);
  FuzzMetadata(kV1, 10, 200);
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
