#include "floe/iceberg/schema.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

constexpr const char* kSchemaJson = R"json({
  "type": "struct", "schema-id": 3, "identifier-field-ids": [1],
  "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long"},
    {"id": 2, "name": "price", "required": false, "type": "decimal(10, 2)", "doc": "in EUR"},
    {"id": 3, "name": "tags", "required": false,
     "type": {"type": "list", "element-id": 6, "element": "string", "element-required": false}},
    {"id": 4, "name": "attrs", "required": false,
     "type": {"type": "map", "key-id": 7, "key": "string", "value-id": 8,
              "value": {"type": "struct", "fields": [
                {"id": 9, "name": "x", "required": true, "type": "fixed[16]"}]},
              "value-required": true}},
    {"id": 5, "name": "ts", "required": false, "type": "timestamptz"}
  ]})json";

TEST(Schema, ParsesEveryKindAndIndexesNestedIds) {
  auto s = Schema::FromJson(nlohmann::json::parse(kSchemaJson));
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->schema_id(), 3);
  EXPECT_EQ(s->identifier_field_ids(), std::vector<int32_t>{1});
  ASSERT_EQ(s->fields().size(), 5u);
  EXPECT_EQ(s->FindById(2)->type->ToString(), "decimal(10, 2)");
  EXPECT_EQ(s->FindById(2)->doc, "in EUR");
  EXPECT_EQ(s->FindById(6)->type->id, TypeId::kString);
  EXPECT_EQ(s->FindById(9)->type->ToString(), "fixed[16]");
  EXPECT_EQ(s->FindByName("attrs.value.x")->id, 9);
  EXPECT_EQ(s->NameOf(6), "tags.element");
  EXPECT_EQ(s->HighestFieldId(), 9);
  EXPECT_EQ(s->FindById(4)->type->ToString(), "map<string, struct<x: fixed[16]>>");
}

TEST(Schema, JsonRoundTrips) {
  auto s = Schema::FromJson(nlohmann::json::parse(kSchemaJson)).value();
  auto again = Schema::FromJson(s.ToJson()).value();
  EXPECT_EQ(again.ToJson(), s.ToJson());
  EXPECT_TRUE(TypesEqual(*again.as_struct(), *s.as_struct()));
}

TEST(Schema, RejectsBadJson) {
  EXPECT_EQ(
      ParsePrimitive("decimal(40, 2)").error().ToString(),
      "invalid input: bad decimal type 'decimal(40, 2)' (precision 1-38, 0 <= scale <= precision)");
  EXPECT_EQ(ParsePrimitive("varchar").error().ToString(),
            "invalid input: unknown Iceberg type 'varchar'");
  auto dup = Schema::FromJson(nlohmann::json::parse(R"({"type": "struct", "fields": [
      {"id": 1, "name": "a", "required": true, "type": "int"},
      {"id": 1, "name": "b", "required": true, "type": "int"}]})"));
  EXPECT_EQ(dup.error().ToString(), "invalid input: schema has duplicate field ids");
}

TEST(SchemaTest, ValidateRefusesWhatATableCannotHold) {
  auto err = [](std::vector<NestedField> fields) {
    auto s = Schema(0, std::move(fields)).Validate();
    return s ? "" : s.error().message;
  };
  EXPECT_EQ(err({}), "a table needs at least one column");
  EXPECT_EQ(err({NestedField{1, "", false, Primitive(TypeId::kLong)}}),
            "the schema has a column with an empty name");
  EXPECT_EQ(err({NestedField{1, "v", false, Primitive(TypeId::kLong)},
                 NestedField{2, "v", false, Primitive(TypeId::kLong)}}),
            "the schema has two columns named 'v'");
  EXPECT_EQ(err({NestedField{1, "id", false, Primitive(TypeId::kLong)},
                 NestedField{2, "ID", false, Primitive(TypeId::kLong)}}),
            "the schema has two columns named 'ID' and 'id'");
  EXPECT_EQ(err({NestedField{1, "s", false,
                             StructOf({NestedField{2, "x", false, Primitive(TypeId::kInt)},
                                       NestedField{3, "x", false, Primitive(TypeId::kInt)}})}}),
            "column 's' has two columns named 'x'");
  EXPECT_EQ(err({NestedField{1, "id", false, Primitive(TypeId::kLong)},
                 NestedField{2, "s", false,
                             StructOf({NestedField{3, "id", false, Primitive(TypeId::kInt)}})}}),
            "");
}

}  // namespace
}  // namespace floe::iceberg
