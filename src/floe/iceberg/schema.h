// Iceberg types and schemas with field ids, as the table spec defines them, and their JSON form in
// table metadata (both ways). Plain immutable data shared through TypePtr; a Schema indexes every
// field id (nested ones included) for lookup by id, which is how files are matched to the table
// schema after evolution.
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

namespace floe::iceberg {

enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,
  kTimestampTzNs,
  kString,
  kUuid,
  kFixed,
  kBinary,
  kStruct,
  kList,
  kMap,
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  TypePtr type;
  std::string doc;
  std::optional<nlohmann::json> initial_default;
  std::optional<nlohmann::json> write_default;
};

struct Type {
  TypeId id = TypeId::kBoolean;
  int32_t precision = 0;            // decimal
  int32_t scale = 0;                // decimal
  int32_t length = 0;               // fixed
  std::vector<NestedField> fields;  // struct; list: [element]; map: [key, value]

  bool IsPrimitive() const { return id < TypeId::kStruct; }
  bool IsNested() const { return !IsPrimitive(); }
  // The spec's string form: "long", "decimal(10, 2)", "fixed[16]", "timestamptz", ...
  std::string ToString() const;
  const NestedField& element() const { return fields.at(0); }  // list
  const NestedField& key() const { return fields.at(0); }      // map
  const NestedField& value() const { return fields.at(1); }    // map
};

bool TypesEqual(const Type& a, const Type& b);

TypePtr Primitive(TypeId id);
TypePtr Decimal(int32_t precision, int32_t scale);
TypePtr Fixed(int32_t length);
TypePtr StructOf(std::vector<NestedField> fields);
TypePtr ListOf(int32_t element_id, TypePtr element, bool element_required);
TypePtr MapOf(int32_t key_id, TypePtr key, int32_t value_id, TypePtr value, bool value_required);

// Parses a primitive type name ("long", "decimal(9,2)", "fixed[16]").
Result<TypePtr> ParsePrimitive(std::string_view name);

class Schema {
 public:
  Schema() = default;
  Schema(int32_t schema_id, std::vector<NestedField> fields,
         std::vector<int32_t> identifier_field_ids = {});

  int32_t schema_id() const { return schema_id_; }
  const std::vector<NestedField>& fields() const { return root_->fields; }
  const TypePtr& as_struct() const { return root_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }

  // Any field, nested included, by id.
  const NestedField* FindById(int32_t id) const;
  // A field by dotted name ("a.b"), case-sensitive; list elements are "l.element", map parts
  // "m.key"/"m.value".
  const NestedField* FindByName(std::string_view name) const;
  // The dotted name of a field id, or empty.
  std::string NameOf(int32_t id) const;
  // The highest field id anywhere in the schema.
  int32_t HighestFieldId() const;

  // What a new table's schema must hold: at least one column; every name non-empty and, within
  // its struct, distinct even ignoring case (SQL resolves names case-insensitively, as Spark and
  // DuckDB do).
  Status Validate() const;

  nlohmann::json ToJson() const;
  // Any JSON: a value of the wrong shape is an invalid-input error naming the field by its path
  // below `path` (where the schema sits in its document, e.g. "schemas[0]").
  static Result<Schema> FromJson(const nlohmann::json& j, std::string_view path = "");

 private:
  void Index();

  int32_t schema_id_ = 0;
  TypePtr root_ = StructOf({});
  std::vector<int32_t> identifier_field_ids_;
  std::map<int32_t, const NestedField*> by_id_;
  std::map<std::string, int32_t, std::less<>> by_name_;
};

nlohmann::json TypeToJson(const Type& t);
Result<TypePtr> TypeFromJson(const nlohmann::json& j, std::string_view path = "");

}  // namespace floe::iceberg
