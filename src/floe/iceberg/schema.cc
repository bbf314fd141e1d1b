#include "floe/iceberg/schema.h"

#include <charconv>

#include <fmt/format.h>

namespace floe::iceberg {
namespace {

using nlohmann::json;

constexpr std::pair<std::string_view, TypeId> kPrimitiveNames[] = {
    {"boolean", TypeId::kBoolean},
    {"int", TypeId::kInt},
    {"long", TypeId::kLong},
    {"float", TypeId::kFloat},
    {"double", TypeId::kDouble},
    {"date", TypeId::kDate},
    {"time", TypeId::kTime},
    {"timestamp", TypeId::kTimestamp},
    {"timestamptz", TypeId::kTimestampTz},
    {"timestamp_ns", TypeId::kTimestampNs},
    {"timestamptz_ns", TypeId::kTimestampTzNs},
    {"string", TypeId::kString},
    {"uuid", TypeId::kUuid},
    {"binary", TypeId::kBinary},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool ParseInt(std::string_view s, int32_t* out) {
  s = Trim(s);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

Result<NestedField> FieldFromJson(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j.contains("name") || !j.contains("type") ||
      !j["id"].is_number_integer() || !j["name"].is_string()) {
    return InvalidInput("schema field needs integer 'id', string 'name' and 'type': {}", j.dump());
  }
  NestedField f;
  f.id = j["id"].get<int32_t>();
  f.name = j["name"].get<std::string>();
  f.required = j.value("required", false);
  FLOE_ASSIGN_OR_RETURN(f.type, TypeFromJson(j["type"]));
  if (j.contains("doc") && j["doc"].is_string()) f.doc = j["doc"].get<std::string>();
  if (j.contains("initial-default")) f.initial_default = j["initial-default"];
  if (j.contains("write-default")) f.write_default = j["write-default"];
  return f;
}

json FieldToJson(const NestedField& f) {
  json j = json::object();
  j["id"] = f.id;
  j["name"] = f.name;
  j["required"] = f.required;
  j["type"] = TypeToJson(*f.type);
  if (!f.doc.empty()) j["doc"] = f.doc;
  if (f.initial_default) j["initial-default"] = *f.initial_default;
  if (f.write_default) j["write-default"] = *f.write_default;
  return j;
}

}  // namespace

std::string Type::ToString() const {
  switch (id) {
    case TypeId::kDecimal:
      return fmt::format("decimal({}, {})", precision, scale);
    case TypeId::kFixed:
      return fmt::format("fixed[{}]", length);
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < fields.size(); ++i) {
        s += fmt::format("{}{}: {}", i ? ", " : "", fields[i].name, fields[i].type->ToString());
      }
      return s + ">";
    }
    case TypeId::kList:
      return fmt::format("list<{}>", element().type->ToString());
    case TypeId::kMap:
      return fmt::format("map<{}, {}>", key().type->ToString(), value().type->ToString());
    default:
      for (auto [name, tid] : kPrimitiveNames) {
        if (tid == id) return std::string(name);
      }
  }
  return "?";
}

bool TypesEqual(const Type& a, const Type& b) {
  if (a.id != b.id) return false;
  if (a.id == TypeId::kDecimal) return a.precision == b.precision && a.scale == b.scale;
  if (a.id == TypeId::kFixed) return a.length == b.length;
  if (a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const auto &x = a.fields[i], &y = b.fields[i];
    if (x.id != y.id || x.name != y.name || x.required != y.required ||
        !TypesEqual(*x.type, *y.type)) {
      return false;
    }
  }
  return true;
}

TypePtr Primitive(TypeId id) {
  auto t = std::make_shared<Type>();
  t->id = id;
  return t;
}

TypePtr Decimal(int32_t precision, int32_t scale) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kDecimal;
  t->precision = precision;
  t->scale = scale;
  return t;
}

TypePtr Fixed(int32_t length) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kFixed;
  t->length = length;
  return t;
}

TypePtr StructOf(std::vector<NestedField> fields) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kStruct;
  t->fields = std::move(fields);
  return t;
}

TypePtr ListOf(int32_t element_id, TypePtr element, bool element_required) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kList;
  t->fields.push_back(NestedField{element_id, "element", element_required, std::move(element)});
  return t;
}

TypePtr MapOf(int32_t key_id, TypePtr key, int32_t value_id, TypePtr value, bool value_required) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kMap;
  t->fields.push_back(NestedField{key_id, "key", true, std::move(key)});
  t->fields.push_back(NestedField{value_id, "value", value_required, std::move(value)});
  return t;
}

Result<TypePtr> ParsePrimitive(std::string_view name) {
  std::string_view n = Trim(name);
  for (auto [pname, id] : kPrimitiveNames) {
    if (n == pname) return Primitive(id);
  }
  if (n.starts_with("decimal(") && n.ends_with(")")) {
    std::string_view inner = n.substr(8, n.size() - 9);
    auto comma = inner.find(',');
    int32_t p, s;
    if (comma != std::string_view::npos && ParseInt(inner.substr(0, comma), &p) &&
        ParseInt(inner.substr(comma + 1), &s) && p >= 1 && p <= 38 && s >= 0 && s <= p) {
      return Decimal(p, s);
    }
    return InvalidInput("bad decimal type '{}' (precision 1-38, 0 <= scale <= precision)", n);
  }
  if (n.starts_with("fixed[") && n.ends_with("]")) {
    int32_t len;
    if (ParseInt(n.substr(6, n.size() - 7), &len) && len > 0) return Fixed(len);
    return InvalidInput("bad fixed type '{}'", n);
  }
  return InvalidInput("unknown Iceberg type '{}'", n);
}

json TypeToJson(const Type& t) {
  switch (t.id) {
    case TypeId::kStruct: {
      json j = json::object();
      j["type"] = "struct";
      json fs = json::array();
      for (const auto& f : t.fields) fs.push_back(FieldToJson(f));
      j["fields"] = std::move(fs);
      return j;
    }
    case TypeId::kList: {
      json j = json::object();
      j["type"] = "list";
      j["element-id"] = t.element().id;
      j["element"] = TypeToJson(*t.element().type);
      j["element-required"] = t.element().required;
      return j;
    }
    case TypeId::kMap: {
      json j = json::object();
      j["type"] = "map";
      j["key-id"] = t.key().id;
      j["key"] = TypeToJson(*t.key().type);
      j["value-id"] = t.value().id;
      j["value"] = TypeToJson(*t.value().type);
      j["value-required"] = t.value().required;
      return j;
    }
    default:
      return t.ToString();
  }
}

Result<TypePtr> TypeFromJson(const json& j) {
  if (j.is_string()) return ParsePrimitive(j.get<std::string>());
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return InvalidInput("bad Iceberg type JSON: {}", j.dump());
  }
  std::string kind = j["type"].get<std::string>();
  if (kind == "struct") {
    if (!j.contains("fields") || !j["fields"].is_array()) {
      return InvalidInput("struct type without 'fields'");
    }
    std::vector<NestedField> fields;
    for (const auto& f : j["fields"]) {
      FLOE_ASSIGN_OR_RETURN(NestedField nf, FieldFromJson(f));
      fields.push_back(std::move(nf));
    }
    return StructOf(std::move(fields));
  }
  if (kind == "list") {
    if (!j.contains("element-id") || !j.contains("element")) {
      return InvalidInput("list type needs 'element-id' and 'element'");
    }
    FLOE_ASSIGN_OR_RETURN(TypePtr e, TypeFromJson(j["element"]));
    return ListOf(j["element-id"].get<int32_t>(), std::move(e), j.value("element-required", false));
  }
  if (kind == "map") {
    if (!j.contains("key-id") || !j.contains("key") || !j.contains("value-id") ||
        !j.contains("value")) {
      return InvalidInput("map type needs 'key-id', 'key', 'value-id' and 'value'");
    }
    FLOE_ASSIGN_OR_RETURN(TypePtr k, TypeFromJson(j["key"]));
    FLOE_ASSIGN_OR_RETURN(TypePtr v, TypeFromJson(j["value"]));
    return MapOf(j["key-id"].get<int32_t>(), std::move(k), j["value-id"].get<int32_t>(),
                 std::move(v), j.value("value-required", false));
  }
  return InvalidInput("unknown Iceberg type '{}'", kind);
}

Schema::Schema(int32_t schema_id, std::vector<NestedField> fields,
               std::vector<int32_t> identifier_field_ids)
    : schema_id_(schema_id),
      root_(StructOf(std::move(fields))),
      identifier_field_ids_(std::move(identifier_field_ids)) {
  Index();
}

void Schema::Index() {
  by_id_.clear();
  by_name_.clear();
  auto visit = [&](auto&& self, const Type& t, const std::string& prefix) -> void {
    for (const auto& f : t.fields) {
      std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
      by_id_[f.id] = &f;
      by_name_.emplace(name, f.id);
      self(self, *f.type, name);
    }
  };
  visit(visit, *root_, "");
}

const NestedField* Schema::FindById(int32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

const NestedField* Schema::FindByName(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : FindById(it->second);
}

std::string Schema::NameOf(int32_t id) const {
  for (const auto& [name, fid] : by_name_) {
    if (fid == id) return name;
  }
  return "";
}

int32_t Schema::HighestFieldId() const { return by_id_.empty() ? 0 : by_id_.rbegin()->first; }

json Schema::ToJson() const {
  json j = json::object();
  j["type"] = "struct";
  j["schema-id"] = schema_id_;
  if (!identifier_field_ids_.empty()) j["identifier-field-ids"] = identifier_field_ids_;
  json fs = json::array();
  for (const auto& f : root_->fields) fs.push_back(FieldToJson(f));
  j["fields"] = std::move(fs);
  return j;
}

Status Schema::Validate() const {
  if (fields().empty()) return InvalidInput("a table needs at least one column");
  auto check = [](auto&& self, const Type& t, const std::string& where) -> Status {
    std::map<std::string, std::string> seen;  // lower-case name -> name
    for (const auto& f : t.fields) {
      if (t.id == TypeId::kStruct) {
        if (f.name.empty()) return InvalidInput("{} has a column with an empty name", where);
        std::string lower = f.name;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto [it, fresh] = seen.emplace(lower, f.name);
        if (!fresh) {
          return InvalidInput("{} has two columns named '{}'{}", where, f.name,
                              it->second == f.name ? "" : fmt::format(" and '{}'", it->second));
        }
      }
      if (f.type) {
        FLOE_RETURN_IF_ERROR(self(self, *f.type, fmt::format("column '{}'", f.name)));
      }
    }
    return {};
  };
  return check(check, *root_, "the schema");
}

Result<Schema> Schema::FromJson(const json& j) {
  if (!j.is_object() || j.value("type", "") != "struct") {
    return InvalidInput("schema JSON must be a struct: {}", j.dump().substr(0, 200));
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr root, TypeFromJson(j));
  std::vector<int32_t> ids;
  if (j.contains("identifier-field-ids") && j["identifier-field-ids"].is_array()) {
    ids = j["identifier-field-ids"].get<std::vector<int32_t>>();
  }
  Schema s(j.value("schema-id", 0), root->fields, std::move(ids));
  // Field ids must be unique across the whole schema.
  size_t count = 0;
  auto visit = [&](auto&& self, const Type& t) -> void {
    for (const auto& f : t.fields) {
      ++count;
      self(self, *f.type);
    }
  };
  visit(visit, *s.root_);
  if (count != s.by_id_.size()) return InvalidInput("schema has duplicate field ids");
  return s;
}

}  // namespace floe::iceberg
