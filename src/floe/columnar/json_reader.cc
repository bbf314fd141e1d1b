#include "floe/columnar/json_reader.h"

#include <functional>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/columnar/csv_dialect.h"
#include "floe/columnar/text_types.h"
#include "floe/columnar/text_value_builder.h"

namespace floe::columnar {
namespace {

// Inference keeps keys in the order first seen (ordered_json); reading finds a column's key by
// name in a sorted map, O(log keys) per column.
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// Deeper documents are refused before parsing: the type walk below and nlohmann's dump recurse.
constexpr int kMaxDepth = 100;

bool TooDeep(std::string_view s, int base) {
  int depth = base;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
// without its prefix.
std::string ParseMessage(const std::exception& e) {
  std::string m = e.what();
  if (auto p = m.find("] "); p != std::string::npos && m.starts_with("[json.")) m = m.substr(p + 2);
  return m;
}

template <typename J>
using RecordFn = std::function<Status(const J&, const std::string& where)>;

// Every record of the file in order, with where it is ("line 3", or "record 3" of an array);
// stops after `limit` records when limit >= 0.
template <typename J>
Status ForEachRecord(std::string_view text, const std::string& name, int64_t limit,
                     const RecordFn<J>& f) {
  text = StripBom(text);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  if (text[first] == '[') {
    if (TooDeep(text, -1))
      return InvalidInput("{}: JSON nested deeper than {} levels", name, kMaxDepth);
    J doc;
    try {
      doc = J::parse(text);
    } catch (const std::exception& e) {
      return InvalidInput("{}: malformed JSON: {}", name, ParseMessage(e));
    }
    int64_t n = 0;
    for (const auto& rec : doc) {
      if (limit >= 0 && n >= limit) break;
      FLOE_RETURN_IF_ERROR(f(rec, fmt::format("record {}", ++n)));
    }
    return {};
  }
  int64_t line = 0, n = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view s = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line;
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (limit >= 0 && n >= limit) break;
    ++n;
    const std::string where = fmt::format("line {}", line);
    if (TooDeep(s, 0))
      return InvalidInput("{}: {}: JSON nested deeper than {} levels", name, where, kMaxDepth);
    J rec;
    try {
      rec = J::parse(s);
    } catch (const std::exception& e) {
      return InvalidInput("{}: {}: malformed JSON: {}", name, where, ParseMessage(e));
    }
    FLOE_RETURN_IF_ERROR(f(rec, where));
  }
  return {};
}

// What the sample says of one value's type, merged over every value seen.
struct JType {
  enum class Kind { kUnknown, kBool, kInt, kDouble, kString, kObject, kArray, kConflict };
  Kind kind = Kind::kUnknown;
  uint32_t string_mask = kTextDate | kTextTimestamp | kTextTimestampTz;
  // kObject: keys in first-seen order and their types (two vectors: JType is incomplete here).
  std::vector<std::string> names;
  std::vector<JType> fields;
  std::unordered_map<std::string, size_t> index;
  std::vector<JType> element;  // kArray: one, once an element is seen

  void Merge(const ordered_json& v) {
    if (v.is_null() || kind == Kind::kConflict) return;
    Kind k = v.is_boolean() ? Kind::kBool
             // An unsigned integer past int64 fits only a double.
             : v.is_number_integer() && !(v.is_number_unsigned() &&
                                          v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
                 ? Kind::kInt
             : v.is_number() ? Kind::kDouble
             : v.is_string() ? Kind::kString
             : v.is_object() ? Kind::kObject
                             : Kind::kArray;
    if (kind == Kind::kUnknown) {
      kind = k;
    } else if ((kind == Kind::kInt && k == Kind::kDouble) ||
               (kind == Kind::kDouble && k == Kind::kInt)) {
      kind = Kind::kDouble;
    } else if (kind != k) {
      kind = Kind::kConflict;
      names.clear();
      fields.clear();
      index.clear();
      element.clear();
      return;
    }
    if (k == Kind::kString) {
      string_mask &= TextTypesOf(v.get_ref<const std::string&>());
    } else if (k == Kind::kObject) {
      for (const auto& [key, value] : v.items()) {
        auto [it, added] = index.try_emplace(key, fields.size());
        if (added) {
          names.push_back(key);
          fields.emplace_back();
        }
        fields[it->second].Merge(value);
      }
    } else if (k == Kind::kArray) {
      for (const auto& e : v) {
        if (element.empty()) element.emplace_back();
        element[0].Merge(e);
      }
    }
  }

  DataType ToDataType() const {
    switch (kind) {
      case Kind::kBool:
        return Bool();
      case Kind::kInt:
        return Int64();
      case Kind::kDouble:
        return Float64();
      case Kind::kString:
        return string_mask == 0 ? String() : NarrowestTextType(string_mask);
      case Kind::kObject: {
        if (fields.empty()) return String();  // {} only: no struct has no fields
        std::vector<Field> children;
        for (size_t i = 0; i < fields.size(); ++i)
          children.push_back({names[i], fields[i].ToDataType(), true});
        return Struct(std::move(children));
      }
      case Kind::kArray:
        return List(Field{"element", element.empty() ? String() : element[0].ToDataType(), true});
      default:
        return String();
    }
  }
};

// Appends one value (nullptr: null or missing) to a column being built.
class Appender {
 public:
  virtual ~Appender() = default;
  // `under_null`: the enclosing struct is null, so a required field may be missing here.
  virtual Status Append(const json* v, bool under_null) = 0;
  virtual Result<ColumnPtr> Finish() = 0;
};

Result<std::unique_ptr<Appender>> MakeAppender(const Field& f, const std::string& path,
                                               const JsonReadOptions& o);

Status Missing(const Field& f, const std::string& path, bool under_null) {
  if (!f.nullable && !under_null)
    return InvalidInput("column '{}' is required but missing or null", path);
  return {};
}

std::string Short(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

class ScalarAppender : public Appender {
 public:
  ScalarAppender(Field f, std::string path)
      : f_(std::move(f)), path_(std::move(path)), b_(f_.type) {}
  Status Append(const json* v, bool under_null) override {
    if (v == nullptr || v->is_null()) {
      FLOE_RETURN_IF_ERROR(Missing(f_, path_, under_null));
      b_.Null();
      return {};
    }
    Status s;
    if (v->is_string()) {
      s = b_.Add(v->get_ref<const std::string&>());
    } else if (v->is_boolean()) {
      s = f_.type.id == TypeId::kBool || f_.type.id == TypeId::kString
              ? b_.Add(v->get<bool>() ? "true" : "false")
              : InvalidInput("{} is not a {} value", Short(*v), f_.type.ToString());
    } else if (v->is_number()) {
      s = f_.type.id == TypeId::kBool
              ? InvalidInput("{} is not a {} value", Short(*v), f_.type.ToString())
              : b_.Add(v->dump());
    } else if (f_.type.id == TypeId::kString) {
      s = b_.Add(v->dump());  // an object or array kept as its JSON text
    } else {
      s = InvalidInput("{} is not a {} value", Short(*v), f_.type.ToString());
    }
    if (!s) return InvalidInput("{} for column '{}'", s.error().message, path_);
    return {};
  }
  Result<ColumnPtr> Finish() override { return b_.Finish(); }

 private:
  Field f_;
  std::string path_;
  TextValueBuilder b_;
};

class StructAppender : public Appender {
 public:
  StructAppender(Field f, std::string path, std::vector<std::unique_ptr<Appender>> children,
                 bool strict)
      : f_(std::move(f)), path_(std::move(path)), children_(std::move(children)), strict_(strict) {}
  Status Append(const json* v, bool under_null) override {
    if (v == nullptr || v->is_null()) {
      FLOE_RETURN_IF_ERROR(Missing(f_, path_, under_null));
      validity_.AppendNull();
      for (auto& c : children_) FLOE_RETURN_IF_ERROR(c->Append(nullptr, true));
      return {};
    }
    if (!v->is_object())
      return InvalidInput("{} is not a {} value for column '{}'", Short(*v), f_.type.ToString(),
                          path_);
    validity_.AppendValid();
    return AppendFields(*v, f_.type.children, children_, path_ + ".", strict_);
  }
  Result<ColumnPtr> Finish() override {
    auto c = std::make_shared<Column>();
    c->type = f_.type;
    c->length = validity_.length();
    c->null_count = validity_.null_count();
    c->validity = validity_.Finish();
    for (auto& a : children_) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr child, a->Finish());
      c->children.push_back(std::move(child));
    }
    return ColumnPtr(c);
  }

  // The fields of object `v` into `children` (one per field of `fields`).
  static Status AppendFields(const json& v, const std::vector<Field>& fields,
                             std::vector<std::unique_ptr<Appender>>& children,
                             const std::string& prefix, bool strict) {
    size_t matched = 0;
    for (size_t i = 0; i < fields.size(); ++i) {
      auto it = v.find(fields[i].name);
      if (it != v.end()) ++matched;
      FLOE_RETURN_IF_ERROR(children[i]->Append(it == v.end() ? nullptr : &*it, false));
    }
    if (strict && matched < v.size()) {
      for (const auto& [key, value] : v.items()) {
        bool known = std::any_of(fields.begin(), fields.end(),
                                 [&](const Field& f) { return f.name == key; });
        if (!known) return InvalidInput("key '{}{}' is not a column of the table", prefix, key);
      }
    }
    return {};
  }

 private:
  Field f_;
  std::string path_;
  std::vector<std::unique_ptr<Appender>> children_;
  bool strict_;
  ValidityBuilder validity_;
};

class ListAppender : public Appender {
 public:
  ListAppender(Field f, std::string path, std::unique_ptr<Appender> element)
      : f_(std::move(f)), path_(std::move(path)), element_(std::move(element)) {}
  Status Append(const json* v, bool under_null) override {
    if (v == nullptr || v->is_null()) {
      FLOE_RETURN_IF_ERROR(Missing(f_, path_, under_null));
      validity_.AppendNull();
      offsets_.push_back(offsets_.back());
      return {};
    }
    if (!v->is_array())
      return InvalidInput("{} is not a {} value for column '{}'", Short(*v), f_.type.ToString(),
                          path_);
    if (static_cast<int64_t>(offsets_.back()) + static_cast<int64_t>(v->size()) > INT32_MAX)
      return InvalidInput("column '{}' holds more than 2^31 list elements in one batch", path_);
    for (const auto& e : *v) FLOE_RETURN_IF_ERROR(element_->Append(&e, false));
    validity_.AppendValid();
    offsets_.push_back(offsets_.back() + static_cast<int32_t>(v->size()));
    return {};
  }
  Result<ColumnPtr> Finish() override {
    auto c = std::make_shared<Column>();
    c->type = f_.type;
    c->length = validity_.length();
    c->null_count = validity_.null_count();
    c->validity = validity_.Finish();
    c->offsets = Buffer::Adopt(std::move(offsets_));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr child, element_->Finish());
    c->children.push_back(std::move(child));
    return ColumnPtr(c);
  }

 private:
  Field f_;
  std::string path_;
  std::unique_ptr<Appender> element_;
  ValidityBuilder validity_;
  std::vector<int32_t> offsets_{0};
};

Result<std::unique_ptr<Appender>> MakeAppender(const Field& f, const std::string& path,
                                               const JsonReadOptions& o) {
  switch (f.type.id) {
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<Appender>> children;
      for (const auto& c : f.type.children) {
        FLOE_ASSIGN_OR_RETURN(auto a, MakeAppender(c, path + "." + c.name, o));
        children.push_back(std::move(a));
      }
      return std::unique_ptr<Appender>(
          new StructAppender(f, path, std::move(children), o.unknown_keys_are_errors));
    }
    case TypeId::kList: {
      FLOE_ASSIGN_OR_RETURN(auto e, MakeAppender(f.type.children[0], path + "[]", o));
      return std::unique_ptr<Appender>(new ListAppender(f, path, std::move(e)));
    }
    case TypeId::kMap:
      return Unsupported("JSON input cannot fill map column '{}'", path);
    default:
      return std::unique_ptr<Appender>(new ScalarAppender(f, path));
  }
}

}  // namespace

Result<Schema> InferJsonSchema(std::string_view text, const std::string& name,
                               int64_t sample_rows) {
  JType top;
  top.kind = JType::Kind::kObject;
  int64_t records = 0;
  FLOE_RETURN_IF_ERROR(ForEachRecord<ordered_json>(
      text, name, sample_rows, [&](const ordered_json& rec, const std::string& where) -> Status {
        if (!rec.is_object())
          return InvalidInput("{}: {}: a record is not a JSON object", name, where);
        top.Merge(rec);
        ++records;
        return {};
      }));
  if (records == 0) return InvalidInput("{}: holds no JSON records to infer columns from", name);
  if (top.fields.empty()) return InvalidInput("{}: its records hold no keys", name);
  Schema s;
  for (size_t i = 0; i < top.fields.size(); ++i)
    s.fields.push_back({top.names[i], top.fields[i].ToDataType(), true});
  return s;
}

Result<std::vector<RecordBatch>> ReadJson(std::string_view text, const Schema& schema,
                                          const std::string& name, const JsonReadOptions& o) {
  std::vector<RecordBatch> out;
  std::vector<std::unique_ptr<Appender>> columns;
  int64_t rows = 0;
  auto start = [&]() -> Status {
    columns.clear();
    for (const auto& f : schema.fields) {
      auto a = MakeAppender(f, f.name, o);
      if (!a) return InvalidInput("{}: {}", name, a.error().message);
      columns.push_back(std::move(*a));
    }
    rows = 0;
    return {};
  };
  auto finish = [&]() -> Status {
    RecordBatch b;
    b.schema = std::make_shared<Schema>(schema);
    b.num_rows = rows;
    for (auto& a : columns) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr c, a->Finish());
      b.columns.push_back(std::move(c));
    }
    out.push_back(std::move(b));
    return start();
  };
  FLOE_RETURN_IF_ERROR(start());
  FLOE_RETURN_IF_ERROR(
      ForEachRecord<json>(text, name, -1, [&](const json& rec, const std::string& where) -> Status {
        if (!rec.is_object())
          return InvalidInput("{}: {}: a record is not a JSON object", name, where);
        auto s = StructAppender::AppendFields(rec, schema.fields, columns, "",
                                              o.unknown_keys_are_errors);
        if (!s) return InvalidInput("{}: {}: {}", name, where, s.error().message);
        if (++rows >= o.batch_rows) return finish();
        return {};
      }));
  if (rows > 0 || out.empty()) FLOE_RETURN_IF_ERROR(finish());
  return out;
}

}  // namespace floe::columnar
