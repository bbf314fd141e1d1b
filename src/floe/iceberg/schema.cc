#include "floe/iceberg/schema.h"

#include <charconv>

#include <fmt/format.h>

#include "floe/iceberg/json_field_internal.h"

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

Result<NestedField> FieldFromJson(const json& j, std::string_view path) {
  NestedField f;
  FLOE_ASSIGN_OR_RETURN(f.id, internal::JsonRequired<int32_t>(j, "id", path));
  FLOE_ASSIGN_OR_RETURN(f.name, internal::JsonRequired<std::string>(j, "name", path));
  FLOE_ASSIGN_OR_RETURN(f.required, internal::JsonOr<bool>(j, "required", path, false));
  auto type = j.find("type");
  if (type == j.end())
    return InvalidInput("field '{}' is missing", internal::JsonPath(path, "type"));
  FLOE_ASSIGN_OR_RETURN(f.type, TypeFromJson(*type, internal::JsonPath(path, "type")));
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> doc,
                        internal::JsonOptional<std::string>(j, "doc", path));
  if (doc) f.doc = std::move(*doc);
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

Result<TypePtr> TypeFromJson(const json& j, std::string_view path) {
  // A type's own errors ("unknown Iceberg type") name the field when there is one.
  auto at = [&](Result<TypePtr> r) -> Result<TypePtr> {
    if (r || path.empty()) return r;
    return InvalidInput("field '{}': {}", path, r.error().message);
  };
  if (j.is_string()) return at(ParsePrimitive(j.get<std::string>()));
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    if (path.empty()) return InvalidInput("bad Iceberg type JSON: {}", j.dump().substr(0, 200));
    return InvalidInput("field '{}' is not an Iceberg type: {}", path, j.dump().substr(0, 200));
  }
  std::string kind = j["type"].get<std::string>();
  if (kind == "struct") {
    FLOE_ASSIGN_OR_RETURN(const json* fs, internal::JsonArrayField(j, "fields", path));
    if (fs == nullptr) {
      if (path.empty()) return InvalidInput("struct type without 'fields'");
      return InvalidInput("field '{}' is missing", internal::JsonPath(path, "fields"));
    }
    const std::string fields_path = internal::JsonPath(path, "fields");
    std::vector<NestedField> fields;
    for (size_t i = 0; i < fs->size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(NestedField nf,
                            FieldFromJson((*fs)[i], internal::JsonPath(fields_path, i)));
      fields.push_back(std::move(nf));
    }
    return StructOf(std::move(fields));
  }
  if (kind == "list") {
    if (!j.contains("element-id") || !j.contains("element")) {
      if (path.empty()) return InvalidInput("list type needs 'element-id' and 'element'");
      return InvalidInput("field '{}': a list type needs 'element-id' and 'element'", path);
    }
    FLOE_ASSIGN_OR_RETURN(int32_t id, internal::JsonRequired<int32_t>(j, "element-id", path));
    FLOE_ASSIGN_OR_RETURN(TypePtr e,
                          TypeFromJson(j["element"], internal::JsonPath(path, "element")));
    FLOE_ASSIGN_OR_RETURN(bool required,
                          internal::JsonOr<bool>(j, "element-required", path, false));
    return ListOf(id, std::move(e), required);
  }
  if (kind == "map") {
    if (!j.contains("key-id") || !j.contains("key") || !j.contains("value-id") ||
        !j.contains("value")) {
      if (path.empty())
        return InvalidInput("map type needs 'key-id', 'key', 'value-id' and 'value'");
      return InvalidInput("field '{}': a map type needs 'key-id', 'key', 'value-id' and 'value'",
                          path);
    }
    FLOE_ASSIGN_OR_RETURN(int32_t key_id, internal::JsonRequired<int32_t>(j, "key-id", path));
    FLOE_ASSIGN_OR_RETURN(int32_t value_id, internal::JsonRequired<int32_t>(j, "value-id", path));
    FLOE_ASSIGN_OR_RETURN(TypePtr k, TypeFromJson(j["key"], internal::JsonPath(path, "key")));
    FLOE_ASSIGN_OR_RETURN(TypePtr v, TypeFromJson(j["value"], internal::JsonPath(path, "value")));
    FLOE_ASSIGN_OR_RETURN(bool required, internal::JsonOr<bool>(j, "value-required", path, false));
    return MapOf(key_id, std::move(k), value_id, std::move(v), required);
  }
  return at(InvalidInput("unknown Iceberg type '{}'", kind));
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

Result<Schema> Schema::FromJson(const json& j, std::string_view path) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string() || j["type"] != "struct") {
    if (path.empty())
      return InvalidInput("schema JSON must be a struct: {}", j.dump().substr(0, 200));
    return InvalidInput("field '{}' must be a struct schema: {}", path, j.dump().substr(0, 200));
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr root, TypeFromJson(j, path));
  std::vector<int32_t> ids;
  FLOE_ASSIGN_OR_RETURN(const json* id_list,
                        internal::JsonArrayField(j, "identifier-field-ids", path));
  if (id_list != nullptr) {
    const std::string ids_path = internal::JsonPath(path, "identifier-field-ids");
    for (size_t i = 0; i < id_list->size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(
          int32_t id, internal::JsonAs<int32_t>((*id_list)[i], internal::JsonPath(ids_path, i)));
      ids.push_back(id);
    }
  }
  FLOE_ASSIGN_OR_RETURN(int32_t schema_id, internal::JsonOr<int32_t>(j, "schema-id", path, 0));
  Schema s(schema_id, root->fields, std::move(ids));
  // Field ids must be unique across the whole schema.
  size_t count = 0;
  auto visit = [&](auto&& self, const Type& t) -> void {
    for (const auto& f : t.fields) {
      ++count;
      self(self, *f.type);
    }
  };
  visit(visit, *s.root_);
  if (count != s.by_id_.size()) {
    if (path.empty()) return InvalidInput("schema has duplicate field ids");
    return InvalidInput("field '{}': the schema has duplicate field ids", path);
  }
  return s;
}

}  // namespace floe::iceberg
