#include "floe/avro/schema.h"

#include <map>

namespace floe::avro {
namespace {

using json = nlohmann::ordered_json;

const std::map<std::string, Type, std::less<>>& PrimitiveNames() {
  static const std::map<std::string, Type, std::less<>> m = {
      {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},
      {"long", Type::kLong},   {"float", Type::kFloat},     {"double", Type::kDouble},
      {"bytes", Type::kBytes}, {"string", Type::kString},
  };
  return m;
}

// The "name" of a named type; "" when absent.
Result<std::string> NameOf(const json& j, const std::string& path) {
  auto it = j.find("name");
  if (it == j.end()) return std::string();
  if (!it->is_string()) return Corrupt("avro schema at {}: 'name' is not a string", path);
  return it->get<std::string>();
}

class Parser {
 public:
  Result<SchemaPtr> Parse(const json& j, const std::string& path) {
    if (j.is_string()) {
      const std::string& name = j.get_ref<const std::string&>();
      auto p = PrimitiveNames().find(name);
      if (p != PrimitiveNames().end()) return Primitive(p->second);
      auto named = named_.find(name);
      if (named != named_.end()) return named->second;
      return Corrupt("avro schema at {}: unknown type name '{}'", path, name);
    }
    if (j.is_array()) {
      auto s = std::make_shared<Schema>();
      s->type = Type::kUnion;
      for (size_t i = 0; i < j.size(); ++i) {
        FLOE_ASSIGN_OR_RETURN(SchemaPtr b, Parse(j[i], path + "[" + std::to_string(i) + "]"));
        s->branches.push_back(std::move(b));
      }
      return SchemaPtr(s);
    }
    if (!j.is_object() || !j.contains("type")) {
      return Corrupt("avro schema at {}: expected a type name, union or object", path);
    }
    const json& t = j["type"];
    if (!t.is_string()) {
      // {"type": {...}} or {"type": [...]}: a wrapped schema.
      return Parse(t, path);
    }
    const std::string& tn = t.get_ref<const std::string&>();
    auto s = std::make_shared<Schema>();
    for (auto it = j.begin(); it != j.end(); ++it) {
      static const char* kKnown[] = {"type",        "name",    "namespace", "fields",
                                     "symbols",     "items",   "values",    "size",
                                     "logicalType", "aliases", "doc",       "default"};
      bool known = false;
      for (const char* k : kKnown) known = known || it.key() == k;
      if (!known) s->extra[it.key()] = it.value();
    }
    if (j.contains("logicalType") && j["logicalType"].is_string()) {
      s->logical_type = j["logicalType"].get<std::string>();
    }
    if (auto p = PrimitiveNames().find(tn); p != PrimitiveNames().end()) {
      s->type = p->second;
      return SchemaPtr(s);
    }
    if (tn == "record" || tn == "error") {
      s->type = Type::kRecord;
      FLOE_ASSIGN_OR_RETURN(s->name, NameOf(j, path));
      named_[s->name] = s;  // visible to its own fields (recursive types)
      if (!j.contains("fields") || !j["fields"].is_array()) {
        return Corrupt("avro schema at {}: record '{}' without fields", path, s->name);
      }
      for (const json& f : j["fields"]) {
        if (!f.is_object() || !f.contains("name") || !f.contains("type") ||
            !f["name"].is_string()) {
          return Corrupt("avro schema at {}: record '{}' has a malformed field", path, s->name);
        }
        FieldSchema field;
        field.name = f["name"].get<std::string>();
        FLOE_ASSIGN_OR_RETURN(field.schema, Parse(f["type"], path + "." + field.name));
        for (auto it = f.begin(); it != f.end(); ++it) {
          const std::string& k = it.key();
          if (k == "name" || k == "type") continue;
          if (k == "field-id" && it.value().is_number_integer()) {
            field.field_id = it.value().get<int32_t>();
          } else if (k == "default") {
            field.default_value = it.value();
          } else if (k == "doc" && it.value().is_string()) {
            field.doc = it.value().get<std::string>();
          } else {
            field.extra[k] = it.value();
          }
        }
        s->fields.push_back(std::move(field));
      }
      return SchemaPtr(s);
    }
    if (tn == "enum") {
      s->type = Type::kEnum;
      FLOE_ASSIGN_OR_RETURN(s->name, NameOf(j, path));
      if (!j.contains("symbols") || !j["symbols"].is_array()) {
        return Corrupt("avro schema at {}: enum '{}' without symbols", path, s->name);
      }
      for (const json& sym : j["symbols"]) {
        if (!sym.is_string()) return Corrupt("avro schema at {}: enum symbol not a string", path);
        s->symbols.push_back(sym.get<std::string>());
      }
      named_[s->name] = s;
      return SchemaPtr(s);
    }
    if (tn == "array") {
      s->type = Type::kArray;
      if (!j.contains("items")) return Corrupt("avro schema at {}: array without items", path);
      FLOE_ASSIGN_OR_RETURN(s->items, Parse(j["items"], path + ".items"));
      return SchemaPtr(s);
    }
    if (tn == "map") {
      s->type = Type::kMap;
      if (!j.contains("values")) return Corrupt("avro schema at {}: map without values", path);
      FLOE_ASSIGN_OR_RETURN(s->values, Parse(j["values"], path + ".values"));
      return SchemaPtr(s);
    }
    if (tn == "fixed") {
      s->type = Type::kFixed;
      FLOE_ASSIGN_OR_RETURN(s->name, NameOf(j, path));
      if (!j.contains("size") || !j["size"].is_number_integer() || j["size"].get<int64_t>() < 0 ||
          j["size"].get<int64_t>() > (1 << 20)) {
        return Corrupt("avro schema at {}: fixed '{}' without a valid size", path, s->name);
      }
      s->size = j["size"].get<int32_t>();
      named_[s->name] = s;
      return SchemaPtr(s);
    }
    auto named = named_.find(tn);
    if (named != named_.end()) return named->second;
    return Corrupt("avro schema at {}: unknown type '{}'", path, tn);
  }

 private:
  std::map<std::string, SchemaPtr, std::less<>> named_;
};

}  // namespace

std::string_view TypeName(Type t) {
  switch (t) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return "boolean";
    case Type::kInt:
      return "int";
    case Type::kLong:
      return "long";
    case Type::kFloat:
      return "float";
    case Type::kDouble:
      return "double";
    case Type::kBytes:
      return "bytes";
    case Type::kString:
      return "string";
    case Type::kRecord:
      return "record";
    case Type::kEnum:
      return "enum";
    case Type::kArray:
      return "array";
    case Type::kMap:
      return "map";
    case Type::kUnion:
      return "union";
    case Type::kFixed:
      return "fixed";
  }
  return "?";
}

std::optional<size_t> Schema::FieldIndex(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field_name) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Schema::FieldIndexById(int32_t id) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id == id) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Schema::NonNullBranch() const {
  if (type != Type::kUnion || branches.size() != 2) return std::nullopt;
  if (branches[0]->type == Type::kNull) return 1;
  if (branches[1]->type == Type::kNull) return 0;
  return std::nullopt;
}

nlohmann::ordered_json Schema::ToJson() const {
  using json = nlohmann::ordered_json;
  if (type == Type::kUnion) {
    json arr = json::array();
    for (const auto& b : branches) arr.push_back(b->ToJson());
    return arr;
  }
  bool primitive = type <= Type::kString;
  if (primitive && logical_type.empty() && extra.empty()) return std::string(TypeName(type));
  json j = json::object();
  j["type"] = std::string(TypeName(type));
  if (!name.empty()) j["name"] = name;
  switch (type) {
    case Type::kRecord: {
      json fs = json::array();
      for (const auto& f : fields) {
        json fj = json::object();
        fj["name"] = f.name;
        fj["type"] = f.schema->ToJson();
        if (!f.doc.empty()) fj["doc"] = f.doc;
        if (f.default_value) fj["default"] = *f.default_value;
        for (auto it = f.extra.begin(); it != f.extra.end(); ++it) fj[it.key()] = it.value();
        if (f.field_id) fj["field-id"] = *f.field_id;
        fs.push_back(std::move(fj));
      }
      j["fields"] = std::move(fs);
      break;
    }
    case Type::kEnum:
      j["symbols"] = symbols;
      break;
    case Type::kArray:
      j["items"] = items->ToJson();
      break;
    case Type::kMap:
      j["values"] = values->ToJson();
      break;
    case Type::kFixed:
      j["size"] = size;
      break;
    default:
      break;
  }
  if (!logical_type.empty()) j["logicalType"] = logical_type;
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

Result<SchemaPtr> SchemaFromJson(const nlohmann::ordered_json& json) {
  return Parser().Parse(json, "$");
}

Result<SchemaPtr> ParseSchema(std::string_view json_text) {
  nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Corrupt("avro schema is not valid JSON");
  return SchemaFromJson(j);
}

SchemaPtr Primitive(Type t, std::string logical_type) {
  auto s = std::make_shared<Schema>();
  s->type = t;
  s->logical_type = std::move(logical_type);
  return s;
}

SchemaPtr Optional(SchemaPtr inner) {
  auto s = std::make_shared<Schema>();
  s->type = Type::kUnion;
  s->branches = {Primitive(Type::kNull), std::move(inner)};
  return s;
}

SchemaPtr ArrayOf(SchemaPtr items, nlohmann::ordered_json extra) {
  auto s = std::make_shared<Schema>();
  s->type = Type::kArray;
  s->items = std::move(items);
  s->extra = std::move(extra);
  return s;
}

SchemaPtr MapOf(SchemaPtr values, nlohmann::ordered_json extra) {
  auto s = std::make_shared<Schema>();
  s->type = Type::kMap;
  s->values = std::move(values);
  s->extra = std::move(extra);
  return s;
}

SchemaPtr Fixed(std::string name, int32_t size, std::string logical_type,
                nlohmann::ordered_json extra) {
  auto s = std::make_shared<Schema>();
  s->type = Type::kFixed;
  s->name = std::move(name);
  s->size = size;
  s->logical_type = std::move(logical_type);
  s->extra = std::move(extra);
  return s;
}

SchemaPtr Record(std::string name, std::vector<FieldSchema> fields) {
  auto s = std::make_shared<Schema>();
  s->type = Type::kRecord;
  s->name = std::move(name);
  s->fields = std::move(fields);
  return s;
}

}  // namespace floe::avro
