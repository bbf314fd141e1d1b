#include "floe/iceberg/alter_table.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <span>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/iceberg/commit_retry.h"
#include "floe/iceberg/table_properties.h"

namespace floe::iceberg {
namespace {

using Fields = std::vector<NestedField>;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> SplitDotted(std::string_view name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.emplace_back(
        name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The index of the field named `name` among `fields`: the exact name, else the one name equal to it
// ignoring case (SQL resolves names as Spark and DuckDB do); -1 when none.
int FindField(const Fields& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  int found = -1;
  const std::string lower = Lower(name);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (Lower(fields[i].name) == lower) {
      if (found >= 0) return -1;
      found = static_cast<int>(i);
    }
  }
  return found;
}

using StructEdit = std::function<Status(Fields&)>;

Status EditStructAt(Fields& fields, std::span<const std::string> path, std::string_view shown,
                    const StructEdit& edit);

// Edits the struct that `type` is, or that `path` reaches inside it through list elements, map
// keys and values, and struct fields; the types on the way are copied, not changed in place.
Status EditType(TypePtr& type, std::span<const std::string> path, std::string_view shown,
                const StructEdit& edit) {
  auto t = std::make_shared<Type>(*type);
  if (t->id == TypeId::kStruct) {
    FLOE_RETURN_IF_ERROR(EditStructAt(t->fields, path, shown, edit));
  } else if (path.empty()) {
    return InvalidInput("'{}' is a {}, not a struct", shown, t->ToString());
  } else if (t->id == TypeId::kList && Lower(path[0]) == "element") {
    FLOE_RETURN_IF_ERROR(EditType(t->fields[0].type, path.subspan(1), shown, edit));
  } else if (t->id == TypeId::kMap && (Lower(path[0]) == "key" || Lower(path[0]) == "value")) {
    FLOE_RETURN_IF_ERROR(
        EditType(t->fields[Lower(path[0]) == "key" ? 0 : 1].type, path.subspan(1), shown, edit));
  } else {
    return InvalidInput("'{}': no field '{}' in a {}", shown, path[0], t->ToString());
  }
  type = std::move(t);
  return {};
}

Status EditStructAt(Fields& fields, std::span<const std::string> path, std::string_view shown,
                    const StructEdit& edit) {
  if (path.empty()) return edit(fields);
  const int i = FindField(fields, path[0]);
  if (i < 0) return InvalidInput("no column '{}'", shown);
  return EditType(fields[static_cast<size_t>(i)].type, path.subspan(1), shown, edit);
}

// Edits the field named by dotted `name` in its parent struct: `edit(fields, index)`.
Status EditField(Fields& root, const std::string& name,
                 const std::function<Status(Fields&, size_t)>& edit) {
  std::vector<std::string> path = SplitDotted(name);
  const std::string leaf = path.back();
  path.pop_back();
  return EditStructAt(root, path, name, [&](Fields& fields) -> Status {
    const int i = FindField(fields, leaf);
    if (i < 0) return InvalidInput("no column '{}'", name);
    return edit(fields, static_cast<size_t>(i));
  });
}

// `type` with fresh ids for its nested fields, from ++*last.
TypePtr AssignIds(const TypePtr& type, int32_t* last) {
  if (type->IsPrimitive()) return type;
  auto t = std::make_shared<Type>(*type);
  for (auto& f : t->fields) f.id = ++*last;
  for (auto& f : t->fields) f.type = AssignIds(f.type, last);
  return t;
}

void CollectIds(const NestedField& f, std::set<int32_t>* out) {
  out->insert(f.id);
  for (const auto& child : f.type->fields) CollectIds(child, out);
}

// Iceberg's type promotions.
bool CanPromote(const Type& from, const Type& to) {
  if (from.id == TypeId::kInt && to.id == TypeId::kLong) return true;
  if (from.id == TypeId::kFloat && to.id == TypeId::kDouble) return true;
  return from.id == TypeId::kDecimal && to.id == TypeId::kDecimal && from.scale == to.scale &&
         to.precision >= from.precision;
}

// Every field id the current spec, sort order and identifier fields use: what no drop may take.
std::map<int32_t, std::string> UsedIds(const TableMetadata& m) {
  std::map<int32_t, std::string> used;
  // Files written under every spec the table has had still carry partition values of it.
  for (const auto& spec : m.specs) {
    for (const auto& f : spec.fields()) {
      used.emplace(f.source_id, fmt::format("partition spec {} uses it (field '{}'), and files "
                                            "written under it may remain",
                                            spec.spec_id(), f.name));
    }
  }
  for (const auto& f : m.DefaultSortOrder().fields()) {
    used.emplace(f.source_id, "the sort order uses it");
  }
  for (int32_t id : m.CurrentSchema().identifier_field_ids()) {
    used.emplace(id, "it is an identifier field");
  }
  return used;
}

// The state being evolved: the metadata and the schema's fields, applied once at the end.
struct Evolution {
  TableMetadata m;
  Fields fields;
  std::vector<PartitionField> spec_fields;
  bool schema_changed = false;
  bool spec_changed = false;
};

Status ApplyColumn(const Table& base, const AddColumn& a, Evolution* e) {
  if (a.required && base.metadata.CurrentSnapshot() != nullptr) {
    return InvalidInput(
        "cannot add required column '{}': the table has rows, which have no value for it (add it "
        "as optional)",
        a.name);
  }
  std::vector<std::string> path = SplitDotted(a.name);
  const std::string leaf = path.back();
  path.pop_back();
  if (leaf.empty()) return InvalidInput("bad column name '{}'", a.name);
  return EditStructAt(e->fields, path, a.name, [&](Fields& fields) -> Status {
    if (FindField(fields, leaf) >= 0) return InvalidInput("column '{}' already exists", a.name);
    NestedField f;
    f.id = ++e->m.last_column_id;
    f.name = leaf;
    f.required = a.required;
    f.doc = a.doc;
    f.type = AssignIds(a.type, &e->m.last_column_id);
    auto at = fields.end();
    if (a.first) {
      at = fields.begin();
    } else if (!a.after.empty()) {
      const int i = FindField(fields, a.after);
      if (i < 0) return InvalidInput("column '{}' (AFTER) does not exist", a.after);
      at = fields.begin() + i + 1;
    }
    fields.insert(at, std::move(f));
    e->schema_changed = true;
    return {};
  });
}

// The schema as evolved so far (partition and sort changes resolve columns in it).
Schema EvolvedSchema(const Evolution& e) {
  return Schema(e.m.current_schema_id, e.fields, e.m.CurrentSchema().identifier_field_ids());
}

bool IsTimeTransform(const Transform& t) {
  return t.kind == TransformKind::kYear || t.kind == TransformKind::kMonth ||
         t.kind == TransformKind::kDay || t.kind == TransformKind::kHour;
}

// One partition field in the CLI's form ("bucket(16, id)"), resolved against `schema`.
Result<PartitionField> ParsePartitionField(const std::string& text, const Schema& schema) {
  FLOE_ASSIGN_OR_RETURN(PartitionSpec one, PartitionSpec::Parse(text, schema));
  if (one.fields().size() != 1) return InvalidInput("'{}' is not one partition field", text);
  return one.fields()[0];
}

// The spec field named `field`, or partitioning by the transform `field` is.
Result<size_t> FindPartitionField(const Evolution& e, const std::string& field) {
  for (size_t i = 0; i < e.spec_fields.size(); ++i) {
    if (Lower(e.spec_fields[i].name) == Lower(field)) return i;
  }
  if (auto parsed = ParsePartitionField(field, EvolvedSchema(e))) {
    for (size_t i = 0; i < e.spec_fields.size(); ++i) {
      if (e.spec_fields[i].source_id == parsed->source_id &&
          e.spec_fields[i].transform == parsed->transform) {
        return i;
      }
    }
  }
  std::string names;
  for (const auto& f : e.spec_fields) names += (names.empty() ? "" : ", ") + f.name;
  return InvalidInput("no partition field '{}' (the spec has {})", field,
                      names.empty() ? "none: the table is unpartitioned" : names);
}

Status AddField(const std::string& transform, const std::string& name, Evolution* e) {
  FLOE_ASSIGN_OR_RETURN(PartitionField f, ParsePartitionField(transform, EvolvedSchema(*e)));
  if (!name.empty()) f.name = name;
  for (const auto& other : e->spec_fields) {
    if (other.source_id == f.source_id && other.transform == f.transform) {
      return InvalidInput("partition field '{}' already partitions by {}", other.name, transform);
    }
    if (other.source_id == f.source_id && IsTimeTransform(other.transform) &&
        IsTimeTransform(f.transform)) {
      return InvalidInput(
          "cannot add {}: partition field '{}' already partitions that column by "
          "time (drop or replace it)",
          transform, other.name);
    }
    if (Lower(other.name) == Lower(f.name)) {
      return InvalidInput("partition field '{}' already exists (give another with AS name)",
                          f.name);
    }
  }
  // A field an earlier spec had gets its id back (Iceberg's rule), else a fresh one.
  f.field_id = 0;
  for (const auto& spec : e->m.specs) {
    for (const auto& old : spec.fields()) {
      if (old.source_id == f.source_id && old.transform == f.transform) f.field_id = old.field_id;
    }
  }
  if (f.field_id == 0) f.field_id = ++e->m.last_partition_id;
  e->spec_fields.push_back(std::move(f));
  e->spec_changed = true;
  return {};
}

Status DropField(const std::string& field, Evolution* e) {
  if (e->m.format_version < 2) {
    return InvalidInput("cannot drop partition field '{}' of a format-version 1 table", field);
  }
  FLOE_ASSIGN_OR_RETURN(size_t i, FindPartitionField(*e, field));
  e->spec_fields.erase(e->spec_fields.begin() + static_cast<std::ptrdiff_t>(i));
  e->spec_changed = true;
  return {};
}

template <typename A>
Status ApplyPartition(const A& a, Evolution* e) {
  if constexpr (std::is_same_v<A, AddPartitionField>) {
    return AddField(a.transform, a.name, e);
  } else if constexpr (std::is_same_v<A, DropPartitionField>) {
    return DropField(a.field, e);
  } else {
    FLOE_RETURN_IF_ERROR(DropField(a.field, e));
    return AddField(a.transform, a.name, e);
  }
}

Status ApplyWriteOrder(const SetWriteOrder& a, Evolution* e) {
  if (a.sort_order) {
    SortOrder order;
    if (!a.sort_order->empty()) {
      int32_t next_id = 1;
      for (const auto& o : e->m.sort_orders) next_id = std::max(next_id, o.order_id() + 1);
      FLOE_ASSIGN_OR_RETURN(order, SortOrder::Parse(*a.sort_order, EvolvedSchema(*e), next_id));
    }
    auto same = std::ranges::find_if(
        e->m.sort_orders, [&](const SortOrder& o) { return o.fields() == order.fields(); });
    if (same != e->m.sort_orders.end()) {
      e->m.default_sort_order_id = same->order_id();
    } else {
      e->m.sort_orders.push_back(order);
      e->m.default_sort_order_id = order.order_id();
    }
  }
  if (a.distribution_mode) e->m.properties["write.distribution-mode"] = *a.distribution_mode;
  return {};
}

Status Apply(const Table& base, const TableAlteration& alteration, Evolution* e) {
  return std::visit(
      [&](const auto& a) -> Status {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, AddColumn>) {
          return ApplyColumn(base, a, e);
        } else if constexpr (std::is_same_v<A, RenameColumn>) {
          return EditField(e->fields, a.name, [&](Fields& fields, size_t i) -> Status {
            if (a.new_name.empty() || a.new_name.find('.') != std::string::npos) {
              return InvalidInput("cannot rename '{}' to '{}': give the column's new name alone",
                                  a.name, a.new_name);
            }
            const int other = FindField(fields, a.new_name);
            if (other >= 0 && static_cast<size_t>(other) != i) {
              return InvalidInput("cannot rename '{}' to '{}': that column exists", a.name,
                                  a.new_name);
            }
            fields[i].name = a.new_name;
            e->schema_changed = true;
            return {};
          });
        } else if constexpr (std::is_same_v<A, DropColumn>) {
          return EditField(e->fields, a.name, [&](Fields& fields, size_t i) -> Status {
            std::set<int32_t> ids;
            CollectIds(fields[i], &ids);
            for (const auto& pf : e->spec_fields) {
              if (ids.contains(pf.source_id)) {
                return InvalidInput(
                    "cannot drop column '{}': the partition spec uses it (field "
                    "'{}'; drop the partition field first)",
                    a.name, pf.name);
              }
            }
            const auto used = UsedIds(e->m);
            for (int32_t id : ids) {
              if (auto it = used.find(id); it != used.end()) {
                return InvalidInput("cannot drop column '{}': {}", a.name, it->second);
              }
            }
            fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(i));
            e->schema_changed = true;
            return {};
          });
        } else if constexpr (std::is_same_v<A, UpdateColumnType>) {
          return EditField(e->fields, a.name, [&](Fields& fields, size_t i) -> Status {
            const Type& from = *fields[i].type;
            if (TypesEqual(from, *a.type)) return {};
            if (!from.IsPrimitive() || !a.type->IsPrimitive() || !CanPromote(from, *a.type)) {
              return InvalidInput(
                  "cannot change column '{}' from {} to {}: Iceberg allows int -> long, float -> "
                  "double and decimal(P, S) -> decimal(P', S) with P' >= P",
                  a.name, from.ToString(), a.type->ToString());
            }
            fields[i].type = a.type;
            e->schema_changed = true;
            return {};
          });
        } else if constexpr (std::is_same_v<A, DropNotNull>) {
          return EditField(e->fields, a.name, [&](Fields& fields, size_t i) -> Status {
            if (fields[i].required) e->schema_changed = true;
            fields[i].required = false;
            return {};
          });
        } else if constexpr (std::is_same_v<A, SetColumnComment>) {
          return EditField(e->fields, a.name, [&](Fields& fields, size_t i) -> Status {
            if (fields[i].doc != a.doc) e->schema_changed = true;
            fields[i].doc = a.doc;
            return {};
          });
        } else if constexpr (std::is_same_v<A, SetProperties>) {
          for (const auto& [k, v] : a.properties) {
            if (k == "format-version") {
              if (v != std::to_string(e->m.format_version)) {
                return InvalidInput(
                    "format-version {} -> {}: floe does not change a table's format version",
                    e->m.format_version, v);
              }
              continue;
            }
            e->m.properties[k] = v;
          }
          return {};
        } else if constexpr (std::is_same_v<A, UnsetProperties>) {
          for (const auto& k : a.keys) {
            if (e->m.properties.erase(k) == 0 && !a.if_exists) {
              return InvalidInput(
                  "property '{}' is not set (UNSET TBLPROPERTIES IF EXISTS skips it)", k);
            }
          }
          return {};
        } else if constexpr (std::is_same_v<A, AddPartitionField> ||
                             std::is_same_v<A, DropPartitionField> ||
                             std::is_same_v<A, ReplacePartitionField>) {
          return ApplyPartition(a, e);
        } else {
          static_assert(std::is_same_v<A, SetWriteOrder>);
          return ApplyWriteOrder(a, e);
        }
      },
      alteration);
}

}  // namespace

Result<TableMetadata> ApplyAlterations(const Table& base,
                                       const std::vector<TableAlteration>& alterations) {
  const TableMetadata& old = base.metadata;
  Evolution e{old, old.CurrentSchema().fields(), old.DefaultSpec().fields()};
  auto fail = [&](const Error& error) -> Result<TableMetadata> {
    return InvalidInput("table '{}': {}", base.id.ToString(), error.message);
  };
  for (const auto& a : alterations) {
    if (auto st = Apply(base, a, &e); !st) return fail(st.error());
  }
  TableMetadata& m = e.m;
  if (e.schema_changed) {
    Schema next(0, e.fields, old.CurrentSchema().identifier_field_ids());
    if (auto st = next.Validate(); !st) return fail(st.error());
    const nlohmann::json wanted = TypeToJson(*next.as_struct());
    auto same = std::ranges::find_if(m.schemas, [&](const Schema& s) {
      return TypeToJson(*s.as_struct()) == wanted &&
             s.identifier_field_ids() == next.identifier_field_ids();
    });
    if (same != m.schemas.end()) {
      m.current_schema_id = same->schema_id();
    } else {
      int32_t id = 0;
      for (const auto& s : m.schemas) id = std::max(id, s.schema_id() + 1);
      m.schemas.emplace_back(id, e.fields, old.CurrentSchema().identifier_field_ids());
      m.current_schema_id = id;
    }
  }
  if (e.spec_changed) {
    auto same = std::ranges::find_if(
        m.specs, [&](const PartitionSpec& s) { return s.fields() == e.spec_fields; });
    if (same != m.specs.end()) {
      m.default_spec_id = same->spec_id();
    } else {
      int32_t id = 0;
      for (const auto& s : m.specs) id = std::max(id, s.spec_id() + 1);
      m.specs.emplace_back(id, e.spec_fields);
      m.default_spec_id = id;
    }
  }
  if (auto st = m.DefaultSpec().Validate(m.CurrentSchema()); !st) return fail(st.error());
  if (auto st = ValidateTableProperties(m.properties); !st) return fail(st.error());
  if (auto st = ValidateLayoutProperty(m.properties, m.CurrentSchema(), m.DefaultSpec()); !st) {
    return fail(st.error());
  }
  return std::move(m);
}

Result<Table> AlterTable(catalog::Catalog& catalog, const FileIO& io,
                         const catalog::TableIdentifier& id,
                         const std::vector<TableAlteration>& alterations) {
  return CommitWithRetry(
      catalog, io, id,
      [&](const Table& base, int,
          std::vector<std::string>*) -> Result<std::optional<TableMetadata>> {
        FLOE_ASSIGN_OR_RETURN(TableMetadata next, ApplyAlterations(base, alterations));
        if (next.ToJson() == base.metadata.ToJson()) return std::nullopt;
        next.last_updated_ms = std::max(UnixMillisNow(), base.metadata.last_updated_ms);
        return next;
      });
}

std::string IcebergPrimitiveName(std::string_view name) {
  std::string l;
  for (char ch : name) {
    if (ch != ' ') l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  static const std::map<std::string, std::string, std::less<>> kSpark = {
      {"bigint", "long"},
      {"integer", "int"},
      {"smallint", "int"},
      {"tinyint", "int"},
      {"short", "int"},
      {"byte", "int"},
      {"real", "float"},
      {"varchar", "string"},
      {"char", "string"},
      {"text", "string"},
      {"bool", "boolean"},
      {"timestamp_ntz", "timestamp"},
      {"timestamp_ltz", "timestamptz"},
      {"decimal", "decimal(10, 0)"},
      {"numeric", "decimal(10, 0)"}};
  if (auto it = kSpark.find(l); it != kSpark.end()) return it->second;
  for (const char* prefix : {"varchar(", "char("}) {
    if (l.starts_with(prefix) && l.ends_with(")")) return "string";
  }
  if (l.starts_with("numeric(")) return "decimal" + l.substr(7);
  if (l.starts_with("decimal(")) return l;
  return std::string(name);
}

namespace {

// A recursive-descent reader of a SQL type: `text` from `*at`.
class TypeReader {
 public:
  explicit TypeReader(std::string_view text) : text_(text) {}

  Result<TypePtr> Whole() {
    FLOE_ASSIGN_OR_RETURN(TypePtr t, Read());
    Skip();
    if (at_ != text_.size()) return std::unexpected(Bad("unexpected '{}'", text_.substr(at_)));
    return t;
  }

 private:
  template <typename... Args>
  Error Bad(fmt::format_string<Args...> f, Args&&... args) {
    return Error{ErrorKind::kInvalidInput,
                 fmt::format("type '{}': {}", text_, fmt::format(f, std::forward<Args>(args)...))};
  }
  void Skip() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool Eat(char c) {
    Skip();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  std::string Word() {
    Skip();
    size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
      ++at_;
    }
    return std::string(text_.substr(start, at_ - start));
  }
  // A field's name: a word or a `backquoted` or "quoted" name.
  Result<std::string> Name() {
    Skip();
    if (at_ < text_.size() && (text_[at_] == '`' || text_[at_] == '"')) {
      const char q = text_[at_];
      size_t end = text_.find(q, at_ + 1);
      if (end == std::string_view::npos) return std::unexpected(Bad("unterminated name"));
      std::string name(text_.substr(at_ + 1, end - at_ - 1));
      at_ = end + 1;
      return name;
    }
    std::string w = Word();
    if (w.empty()) return std::unexpected(Bad("a field name expected at '{}'", text_.substr(at_)));
    return w;
  }
  // NOT NULL after a nested type's part: whether it is required.
  bool NotNull() {
    size_t save = at_;
    if (Lower(Word()) == "not" && Lower(Word()) == "null") return true;
    at_ = save;
    return false;
  }

  Result<TypePtr> Read() {
    const std::string word = Word();
    const std::string l = Lower(word);
    if (l.empty()) return std::unexpected(Bad("a type expected at '{}'", text_.substr(at_)));
    if (l == "array" || l == "list") {
      if (!Eat('<')) return std::unexpected(Bad("{} needs <element type>", l));
      FLOE_ASSIGN_OR_RETURN(TypePtr element, Read());
      const bool required = NotNull();
      if (!Eat('>')) return std::unexpected(Bad("'>' expected after {}'s element", l));
      return ListOf(0, element, required);
    }
    if (l == "map") {
      if (!Eat('<')) return std::unexpected(Bad("map needs <key type, value type>"));
      FLOE_ASSIGN_OR_RETURN(TypePtr key, Read());
      if (!Eat(',')) return std::unexpected(Bad("',' expected after the map's key type"));
      FLOE_ASSIGN_OR_RETURN(TypePtr value, Read());
      const bool required = NotNull();
      if (!Eat('>')) return std::unexpected(Bad("'>' expected after the map's value type"));
      return MapOf(0, key, 0, value, required);
    }
    if (l == "struct") {
      if (!Eat('<')) return std::unexpected(Bad("struct needs <name: type, ...>"));
      std::vector<NestedField> fields;
      if (Eat('>')) {
        return std::unexpected(Bad("struct<> has no fields (Parquet cannot hold an empty struct)"));
      }
      {
        do {
          NestedField f;
          FLOE_ASSIGN_OR_RETURN(f.name, Name());
          (void)Eat(':');
          FLOE_ASSIGN_OR_RETURN(f.type, Read());
          f.required = NotNull();
          fields.push_back(std::move(f));
        } while (Eat(','));
        if (!Eat('>')) return std::unexpected(Bad("'>' expected to end the struct"));
      }
      return StructOf(std::move(fields));
    }
    std::string name = word;
    Skip();
    const char open = at_ < text_.size() ? text_[at_] : '\0';
    if (open == '(' || open == '[') {
      const char close = open == '(' ? ')' : ']';
      size_t end = text_.find(close, at_);
      if (end == std::string_view::npos) return std::unexpected(Bad("'{}' not closed", open));
      name += text_.substr(at_, end + 1 - at_);
      at_ = end + 1;
    }
    auto t = ParsePrimitive(IcebergPrimitiveName(name));
    if (!t) return std::unexpected(Bad("{}", t.error().message));
    return t;
  }

  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

Result<TypePtr> ParseSqlType(std::string_view text) { return TypeReader(text).Whole(); }

}  // namespace floe::iceberg
