// Avro schemas as Iceberg writes and reads them: every primitive, records, enums, arrays, maps,
// unions and fixed, with the extra attributes Iceberg relies on (field-id, element-id, key-id,
// value-id, logicalType, defaults) kept exactly so a schema written back is byte-for-byte what was
// parsed or built. Immutable once built; share through SchemaPtr.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"

namespace floe::avro {

enum class Type {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

std::string_view TypeName(Type t);

struct Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

struct FieldSchema {
  std::string name;
  SchemaPtr schema;
  std::optional<nlohmann::ordered_json> default_value;
  std::optional<int32_t> field_id;  // Iceberg's "field-id"
  std::string doc;
  nlohmann::ordered_json extra =
      nlohmann::ordered_json::object();  // other attributes, written back as given
};

struct Schema {
  Type type = Type::kNull;
  std::string name;  // record, enum, fixed (full name as written)
  std::string logical_type;
  std::vector<FieldSchema> fields;   // record
  std::vector<std::string> symbols;  // enum
  SchemaPtr items;                   // array
  SchemaPtr values;                  // map
  std::vector<SchemaPtr> branches;   // union
  int32_t size = 0;                  // fixed
  nlohmann::ordered_json extra =
      nlohmann::ordered_json::object();  // element-id, key-id, value-id, precision, ...

  // Index of a record field by name / by Iceberg field id.
  std::optional<size_t> FieldIndex(std::string_view field_name) const;
  std::optional<size_t> FieldIndexById(int32_t id) const;
  // For a union of null and one other type: that type's branch index, else nullopt.
  std::optional<size_t> NonNullBranch() const;
  // The schema as Avro JSON (primitives without attributes as plain strings).
  nlohmann::ordered_json ToJson() const;
};

// Parses Avro schema JSON. Named types may be referenced by name after their definition.
Result<SchemaPtr> ParseSchema(std::string_view json_text);
Result<SchemaPtr> SchemaFromJson(const nlohmann::ordered_json& json);

// Builders for writing code that makes schemas (Iceberg manifests).
SchemaPtr Primitive(Type t, std::string logical_type = {});
SchemaPtr Optional(SchemaPtr s);  // ["null", s]
SchemaPtr ArrayOf(SchemaPtr items, nlohmann::ordered_json extra = nlohmann::ordered_json::object());
SchemaPtr MapOf(SchemaPtr values, nlohmann::ordered_json extra = nlohmann::ordered_json::object());
SchemaPtr Fixed(std::string name, int32_t size, std::string logical_type = {},
                nlohmann::ordered_json extra = nlohmann::ordered_json::object());
SchemaPtr Record(std::string name, std::vector<FieldSchema> fields);

}  // namespace floe::avro
