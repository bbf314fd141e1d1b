#include "floe/sql/binder.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <set>

#include "floe/base/calendar.h"
#include "floe/exec/functions.h"
#include "floe/exec/value.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/sql/ast.h"
#include "floe/sql/bind_internal.h"
#include "floe/sql/binder_internal.h"
#include "floe/sql/interval.h"
#include "floe/sql/pushdown.h"
#include "floe/sql/transform.h"

namespace floe::sql {
namespace {

using exec::ExprPtr;
using exec::Fn;
using internal::IsAggregateName;
using Kind = ast::Expr::Kind;

std::string LastPart(const std::vector<std::string>& names) {
  return names.empty() ? "" : names.back();
}

bool IsAggregateCall(const ast::Expr& e) {
  return e.kind == Kind::kFuncCall && IsAggregateName(e.name) && !e.window;
}

}  // namespace

using internal::Binder;

Status Binder::BindFrom(const std::optional<ast::TableRef>& from) {
  if (!from) {
    plan_.source = LogicalPlan::Source::kNone;
    if (!st_.time_travel.empty()) {
      return Fail(st_.time_travel[0].offset, ErrorKind::kInvalidInput,
                  st_.time_travel[0].sample_fraction ? "TABLESAMPLE needs a table to sample"
                                                     : "time travel needs a table to apply to");
    }
    return {};
  }
  int loc = from->location;
  if (from->kind == ast::TableRef::Kind::kFunction) {
    if (resolver_.table_function) return BindTableFunction(*from);
    return Unsupported(loc, "table functions");
  }
  std::vector<std::string> parts = from->names;
  if (parts.size() == 2 && Lower(parts[0]) == "information_schema" &&
      resolver_.read_information_schema) {
    if (!st_.time_travel.empty()) {
      return Unsupported(st_.time_travel[0].offset,
                         "time travel or TABLESAMPLE of information_schema");
    }
    source_name_ = "information_schema." + Lower(parts[1]);
    table_name_ = from->alias.empty() ? parts[1] : from->alias;
    auto rows = resolver_.read_information_schema(Lower(parts[1]));
    if (!rows) return std::unexpected(Locate(rows.error(), loc));
    return BindRows(std::move(*rows));
  }
  std::string metadata;
  if (parts.size() == 3 && resolver_.is_metadata_table && resolver_.is_metadata_table(parts[2])) {
    metadata = parts[2];
    parts.pop_back();
  }
  if (parts.size() < 2) {
    return Fail(loc, ErrorKind::kInvalidInput,
                fmt::format("table '{}' needs its namespace: write NAMESPACE.TABLE", parts.back()));
  }
  catalog::TableIdentifier id;
  id.name = parts.back();
  parts.pop_back();
  id.ns = parts;
  source_name_ = id.ToString() + (metadata.empty() ? "" : "." + metadata);
  table_name_ = from->alias.empty() ? (metadata.empty() ? id.name : metadata) : from->alias;
  auto table = resolver_.load(id);
  if (!table) {
    Error e = table.error();
    if (e.kind == ErrorKind::kNotFound)
      e.message = fmt::format("table {} not found", id.ToString());
    return std::unexpected(Locate(e, loc));
  }
  plan_.table = std::move(*table);
  for (const auto& tt : st_.time_travel) {
    if (tt.sample_fraction) {
      if (tt.offset < loc) {
        return Fail(tt.offset, ErrorKind::kInvalidInput, "TABLESAMPLE must follow the table name");
      }
      if (!metadata.empty()) return Unsupported(tt.offset, "TABLESAMPLE of a metadata table");
      plan_.sample_fraction = tt.sample_fraction;
      continue;
    }
    if (tt.offset < loc) {
      return Fail(tt.offset, ErrorKind::kInvalidInput, "time travel must follow the table name");
    }
    if (!metadata.empty()) return Unsupported(tt.offset, "time travel on a metadata table");
    plan_.snapshot_id = tt.snapshot_id;
    plan_.as_of_timestamp_ms = tt.timestamp_ms;
    if (tt.snapshot_id && plan_.table.metadata.SnapshotById(*tt.snapshot_id) == nullptr) {
      return Fail(tt.offset, ErrorKind::kNotFound,
                  fmt::format("table {} has no snapshot {}", id.ToString(), *tt.snapshot_id));
    }
    // As Spark does, an older snapshot is read with the schema it was written under: the columns
    // of that time, by their names then (the files are still read by field id).
    const iceberg::TableMetadata& m = plan_.table.metadata;
    const iceberg::Snapshot* snap = nullptr;
    if (tt.snapshot_id) {
      snap = m.SnapshotById(*tt.snapshot_id);
    } else if (tt.timestamp_ms) {
      auto as_of = m.SnapshotAsOf(*tt.timestamp_ms);
      if (!as_of) return std::unexpected(Locate(as_of.error(), tt.offset));
      snap = *as_of;
    }
    if (snap != nullptr && snap->schema_id && m.SchemaById(*snap->schema_id) != nullptr) {
      plan_.table.metadata.current_schema_id = *snap->schema_id;
    }
  }
  if (!metadata.empty()) {
    auto rows = resolver_.read_metadata_table(plan_.table, metadata);
    if (!rows) return std::unexpected(Locate(rows.error(), loc));
    return BindRows(std::move(*rows));
  }
  plan_.source = LogicalPlan::Source::kTable;
  const iceberg::Schema& schema = plan_.table.metadata.CurrentSchema();
  // The metadata columns (_file, _pos, ...) follow the schema's, hidden from `*`.
  const iceberg::Schema readable = iceberg::WithMetadataColumns(schema);
  visible_columns_ = schema.fields().size();
  for (const auto& f : readable.fields()) {
    FLOE_ASSIGN_OR_RETURN(columnar::DataType t, iceberg::ToColumnarType(*f.type));
    column_names_.push_back(f.name);
    column_types_.push_back(exec::NormalizedType(t));
    column_ids_.push_back(f.id);
    scan_index_.push_back(-1);
  }
  return {};
}

// Rows computed while binding (a metadata table, a table function) as the source.
Status Binder::BindRows(columnar::RecordBatch b) {
  plan_.source = LogicalPlan::Source::kMetadataTable;
  auto schema = std::make_shared<columnar::Schema>();
  for (int c = 0; c < b.num_columns(); ++c) {
    FLOE_ASSIGN_OR_RETURN(b.columns[c], exec::NormalizeColumn(b.columns[c]));
    schema->fields.push_back({b.schema->fields[c].name, b.columns[c]->type});
    column_names_.push_back(b.schema->fields[c].name);
    column_types_.push_back(b.columns[c]->type);
    scan_index_.push_back(c);
  }
  b.schema = schema;
  plan_.metadata_rows = std::move(b);
  return {};
}

Status Binder::BindSetOperation(const ast::Select& s) {
  using SetOp = ast::Select::SetOp;
  const char* what = s.set_op == SetOp::kUnion       ? "UNION"
                     : s.set_op == SetOp::kIntersect ? "INTERSECT"
                                                     : "EXCEPT";
  const int right_loc = s.set_right_location;
  // Each side owns the time-travel clauses in its text.
  ParsedStatement left_st = st_, right_st = st_;
  left_st.time_travel.clear();
  right_st.time_travel.clear();
  for (const auto& tt : st_.time_travel) {
    (tt.offset < right_loc ? left_st : right_st).time_travel.push_back(tt);
  }
  Binder lb(left_st, resolver_, ctes_), rb(right_st, resolver_, ctes_);
  FLOE_ASSIGN_OR_RETURN(LogicalPlan left, lb.Bind(*s.set_left));
  FLOE_ASSIGN_OR_RETURN(LogicalPlan right, rb.Bind(*s.set_right));
  if (left.outputs.size() != right.outputs.size()) {
    return Fail(right_loc, ErrorKind::kInvalidInput,
                fmt::format("each side of {} must give the same number of columns ({} and {})",
                            what, left.outputs.size(), right.outputs.size()));
  }
  for (size_t i = 0; i < left.outputs.size(); ++i) {
    const columnar::DataType& lt = left.outputs[i]->type;
    const columnar::DataType& rt = right.outputs[i]->type;
    auto common = exec::CommonType(lt, rt);
    if (!common) {
      return Fail(right_loc, ErrorKind::kInvalidInput,
                  fmt::format("{}'s column {} ('{}') cannot combine {} with {}", what, i + 1,
                              left.names[i], lt.ToString(), rt.ToString()));
    }
    for (LogicalPlan* side : {&left, &right}) {
      if (side->outputs[i]->type == *common) continue;
      auto cast = exec::MakeCast(side->outputs[i], *common);
      if (!cast) return std::unexpected(Locate(cast.error(), right_loc));
      side->outputs[i] = *cast;
    }
    column_names_.push_back(left.names[i]);
    column_types_.push_back(*common);
    scan_index_.push_back(static_cast<int>(i));
  }
  plan_.source = LogicalPlan::Source::kSetOperation;
  using PlanOp = LogicalPlan::SetOp;
  plan_.set_op = s.set_op == SetOp::kUnion ? PlanOp::kUnionAll
                 : s.set_op == SetOp::kIntersect
                     ? (s.set_all ? PlanOp::kIntersectAll : PlanOp::kIntersect)
                     : (s.set_all ? PlanOp::kExceptAll : PlanOp::kExcept);
  plan_.set_left = std::make_shared<const LogicalPlan>(std::move(left));
  plan_.set_right = std::make_shared<const LogicalPlan>(std::move(right));
  source_name_ = what;
  return {};
}

// VALUES (...), (...): constant rows, each column of the type its values meet in (col0, col1,
// ... as DuckDB names them).
Status Binder::BindValues(const ast::Select& s) {
  const size_t width = s.values[0].size();
  std::vector<std::vector<exec::ExprPtr>> rows;
  std::vector<columnar::DataType> types(width);
  for (const auto& row : s.values) {
    const int loc = row.empty() ? s.values_location : row[0]->location;
    if (row.size() != width) {
      return Fail(loc, ErrorKind::kInvalidInput,
                  fmt::format("VALUES rows must all have {} values, not {}", width, row.size()));
    }
    std::vector<exec::ExprPtr> bound;
    for (size_t c = 0; c < width; ++c) {
      FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*row[c], Scope::kInput));
      if (e->kind != exec::Expr::Kind::kLiteral) {
        return Fail(row[c]->location, ErrorKind::kInvalidInput,
                    "VALUES takes constants (and expressions of them)");
      }
      if (rows.empty()) {
        types[c] = e->type;
      } else {
        auto common = exec::CommonType(types[c], e->type);
        if (!common) {
          return Fail(row[c]->location, ErrorKind::kInvalidInput,
                      fmt::format("VALUES column {} cannot combine {} with {}", c + 1,
                                  types[c].ToString(), e->type.ToString()));
        }
        types[c] = *common;
      }
      bound.push_back(std::move(e));
    }
    rows.push_back(std::move(bound));
  }
  columnar::RecordBatch b;
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t c = 0; c < width; ++c) {
    if (types[c].id == columnar::TypeId::kNull) types[c] = columnar::Int64();  // all NULL
    exec::ValueColumnBuilder col(types[c]);
    for (const auto& row : rows) {
      if (row[c]->value.is_null()) {
        col.AppendNull();
        continue;
      }
      auto v = exec::CastValue(row[c]->value, row[c]->type, types[c]);
      if (!v) return std::unexpected(Locate(v.error(), s.values_location));
      FLOE_RETURN_IF_ERROR(col.Append(*v));
    }
    b.columns.push_back(col.Finish());
    schema->fields.push_back({fmt::format("col{}", c), types[c]});
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  b.schema = schema;
  source_name_ = "VALUES";
  return BindRows(std::move(b));
}

// FROM name(args...): a table function of constant arguments.
Status Binder::BindTableFunction(const ast::TableRef& from) {
  int loc = from.location;
  const std::string& name = from.function;
  if (from.function_args_location >= 0) {
    return Fail(from.function_args_location, ErrorKind::kInvalidInput,
                fmt::format("the arguments of {}() must be constants", name));
  }
  if (!st_.time_travel.empty()) {
    return Unsupported(st_.time_travel[0].offset, st_.time_travel[0].sample_fraction
                                                      ? "TABLESAMPLE of a table function"
                                                      : "time travel on a table function");
  }
  source_name_ = name + "()";
  table_name_ = from.alias.empty() ? name : from.alias;
  auto rows = resolver_.table_function(name, from.function_args, from.function_named_args);
  if (!rows) return std::unexpected(Locate(rows.error(), loc));
  return BindRows(std::move(*rows));
}

bool Binder::IsRelation(const std::string& name) const {
  return std::any_of(column_relations_.begin(), column_relations_.end(),
                     [&](const std::string& r) { return !r.empty() && Lower(r) == Lower(name); });
}

Result<ExprPtr> Binder::ResolveColumn(const std::string& name, int loc,
                                      const std::string& relation) {
  if (!column_relations_.empty()) {
    // Columns of named relations: an exact name before a case-insensitive one, within the
    // relation named, or in the one relation that has it.
    std::vector<size_t> exact, loose;
    for (size_t i = 0; i < column_names_.size(); ++i) {
      if (!relation.empty() && Lower(column_relations_[i]) != Lower(relation)) continue;
      if (relation.empty() && i < column_merged_away_.size() && column_merged_away_[i]) continue;
      if (column_names_[i] == name) exact.push_back(i);
      if (Lower(column_names_[i]) == Lower(name)) loose.push_back(i);
    }
    const std::vector<size_t>& hits = exact.empty() ? loose : exact;
    if (hits.size() > 1) {
      std::string which;
      for (size_t i : hits)
        which += fmt::format("{}{}.{}", which.empty() ? "" : " or ", column_relations_[i],
                             column_names_[i]);
      return Fail(loc, ErrorKind::kInvalidInput,
                  fmt::format("column reference '{}' is ambiguous: qualify it ({})", name, which));
    }
    if (hits.empty()) {
      std::string known;
      for (size_t i = 0; i < column_names_.size() && i < 40; ++i) {
        if (!relation.empty() && Lower(column_relations_[i]) != Lower(relation)) continue;
        known += fmt::format("{}{}.{}", known.empty() ? "" : ", ", column_relations_[i],
                             column_names_[i]);
      }
      return Fail(loc, ErrorKind::kNotFound,
                  fmt::format("column '{}{}' not found in {} (columns: {})",
                              relation.empty() ? "" : relation + ".", name, source_name_, known));
    }
    const size_t c = hits[0];
    if (plan_.source != LogicalPlan::Source::kJoin) {
      return exec::ColumnRef(static_cast<int>(c), column_types_[c], column_names_[c]);
    }
    // A relation's column gets its slot when first read.
    if (scan_index_[c] < 0) {
      scan_index_[c] = static_cast<int>(slot_column_.size());
      slot_column_.push_back(static_cast<int>(c));
    }
    return exec::ColumnRef(scan_index_[c], column_types_[c], column_names_[c]);
  }
  int found = -1;
  for (size_t i = 0; i < column_names_.size(); ++i) {
    if (column_names_[i] == name) found = static_cast<int>(i);
  }
  if (found < 0) {
    for (size_t i = 0; i < column_names_.size(); ++i) {
      if (Lower(column_names_[i]) == Lower(name)) found = static_cast<int>(i);
    }
  }
  if (found < 0) {
    std::string known;
    for (size_t i = 0; i < std::min(column_names_.size(), visible_columns_) && i < 30; ++i) {
      known += (i ? ", " : "") + column_names_[i];
    }
    if (plan_.source == LogicalPlan::Source::kNone) {
      return Fail(loc, ErrorKind::kNotFound, fmt::format("column '{}' not found (no FROM)", name));
    }
    return Fail(
        loc, ErrorKind::kNotFound,
        fmt::format("column '{}' not found in {} (columns: {})", name, source_name_, known));
  }
  if (scan_index_[found] < 0) {
    scan_index_[found] = static_cast<int>(plan_.scan_field_ids.size());
    plan_.scan_field_ids.push_back(column_ids_[found]);
  }
  return exec::ColumnRef(scan_index_[found], column_types_[found], column_names_[found]);
}

Result<ExprPtr> Binder::Call(Fn fn, std::vector<ExprPtr> args, int loc, std::string text) {
  return Fold(exec::MakeCall(fn, std::move(args), std::move(text)), loc);
}

Result<ExprPtr> Binder::Call(const exec::ScalarFunction& fn, std::vector<ExprPtr> args, int loc,
                             std::string text) {
  return Fold(exec::MakeCall(fn, std::move(args), std::move(text)), loc);
}

// A call made by MakeCall, located at `loc` if it failed, folded to a constant if its arguments
// all are.
Result<ExprPtr> Binder::Fold(Result<ExprPtr> e, int loc) {
  if (!e) return std::unexpected(Locate(e.error(), loc));
  bool constant = std::all_of((*e)->args.begin(), (*e)->args.end(), [](const ExprPtr& a) {
    return a->kind == exec::Expr::Kind::kLiteral;
  });
  if (constant && !(*e)->args.empty()) {
    auto v = exec::EvaluateConstant(**e);
    if (!v) return std::unexpected(Locate(v.error(), loc));
    return exec::Constant(std::move(*v), (*e)->type);
  }
  return e;
}

Result<ExprPtr> Binder::BindConst(const ast::Const& c, int loc) {
  switch (c.kind) {
    case ast::Const::Kind::kNull:
      return exec::Constant({}, columnar::DataType{});
    case ast::Const::Kind::kInteger:
      return exec::Constant(exec::Value::Int(c.integer), columnar::Int64());
    case ast::Const::Kind::kNumber: {
      const std::string& s = c.text;
      if (s.find_first_of(".eE") == std::string::npos) {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc() && p == s.data() + s.size()) {
          return exec::Constant(exec::Value::Int(v), columnar::Int64());
        }
      }
      // A number with a decimal point and no exponent is a DECIMAL of its digits, as DuckDB,
      // Spark and Postgres type it (`.06 + 0.01` is exactly 0.07); past 38 digits a double.
      const size_t point = s.find('.');
      if (point != std::string::npos && s.find_first_of("eE") == std::string::npos) {
        const auto scale = static_cast<int32_t>(s.size() - point - 1);
        const auto whole = static_cast<int32_t>(std::max<size_t>(point, 1));
        if (whole + scale <= 38) {
          if (auto unscaled = ParseDecimalText(s, scale)) {
            exec::Value v;
            v.v = *unscaled;
            return exec::Constant(std::move(v), columnar::Decimal128(whole + scale, scale));
          }
        }
      }
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size()) {
        return Fail(loc, ErrorKind::kInvalidInput, fmt::format("malformed number '{}'", s));
      }
      return exec::Constant(exec::Value::Double(d), columnar::Float64());
    }
    case ast::Const::Kind::kString:
      return exec::Constant(exec::Value::Str(c.text), columnar::String());
    case ast::Const::Kind::kBool:
      return exec::Constant(exec::Value::Bool(c.boolean), columnar::Bool());
    case ast::Const::Kind::kOther:
      break;
  }
  return Unsupported(loc, "this kind of constant");
}

Result<columnar::DataType> Binder::BindTypeName(const ast::TypeName& tn, int loc) {
  const std::string& name = tn.name;
  if (tn.array) return Unsupported(loc, "array types");
  // Integers compute as int64; the narrower types are ranges a CAST checks.
  if (name == "int8" || name == "bigint" || name == "long") return columnar::Int64();
  if (name == "int4" || name == "integer" || name == "int") return columnar::Int32();
  if (name == "int2" || name == "smallint") return columnar::Int16();
  if (name == "tinyint") return columnar::Int8();
  if (name == "float4" || name == "float8" || name == "real" || name == "double" ||
      name == "float") {
    return columnar::Float64();
  }
  if (name == "numeric" || name == "decimal") {
    const std::vector<int>& mods = tn.modifiers;
    if (mods.empty()) return columnar::Float64();
    int p = mods[0], s = mods.size() > 1 ? mods[1] : 0;
    if (p < 1 || p > 38 || s < 0 || s > p) {
      return Fail(loc, ErrorKind::kInvalidInput,
                  fmt::format("decimal({}, {}) is out of range", p, s));
    }
    return columnar::Decimal128(p, s);
  }
  if (name == "text" || name == "varchar" || name == "bpchar" || name == "string" ||
      name == "char") {
    return columnar::String();
  }
  if (name == "date") return columnar::Date32();
  if (name == "timestamp") return columnar::Timestamp(columnar::TimeUnit::kMicro);
  if (name == "timestamptz") return columnar::Timestamp(columnar::TimeUnit::kMicro, "UTC");
  if (name == "bool" || name == "boolean") return columnar::Bool();
  return Unsupported(loc, fmt::format("type '{}'", name));
}

Result<ExprPtr> Binder::BindExpr(const ast::Expr& node, Scope scope) {
  if (scope == Scope::kAggregate) {
    if (IsAggregateCall(node)) return BindAggregate(node);
    if (!node.has_aggregate) {
      size_t saved = plan_.scan_field_ids.size();
      size_t saved_slots = slot_column_.size();
      size_t saved_windows = plan_.windows.size();
      std::vector<int> saved_index = scan_index_;
      auto in = BindExpr(node, Scope::kInput);
      if (in) {
        std::string fp = (*in)->ToString();
        for (size_t k = 0; k < aggregate_keys_.size(); ++k) {
          if (aggregate_keys_[k] == fp) {
            return exec::ColumnRef(static_cast<int>(k), plan_.group_keys[k]->type, (*in)->name);
          }
        }
        if ((*in)->kind == exec::Expr::Kind::kLiteral) return in;
      } else {
        return in;
      }
      plan_.scan_field_ids.resize(saved);
      slot_column_.resize(saved_slots);
      plan_.windows.resize(saved_windows);
      scan_index_ = saved_index;
      if (node.kind == Kind::kColumnRef) {
        return Fail(node.location, ErrorKind::kInvalidInput,
                    fmt::format("column '{}' must appear in GROUP BY or be used in an aggregate",
                                LastPart(node.names)));
      }
    }
  }
  return BindNode(node, scope);
}

Result<std::vector<ExprPtr>> Binder::BindList(const std::vector<ast::ExprPtr>& list, Scope scope) {
  std::vector<ExprPtr> out;
  for (const auto& a : list) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*a, scope));
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

// Two aggregates of the same fingerprint compute the same column.
std::string AggregateFingerprint(const exec::Aggregate& a) {
  auto text = [](const ExprPtr& e) { return e ? e->ToString() : std::string("*"); };
  std::string out = fmt::format("{}|{}|{}|{}|{}|{}|{}", static_cast<int>(a.fn), a.distinct,
                                text(a.arg), text(a.arg2), text(a.filter), a.fraction, a.separator);
  for (size_t i = 0; i < a.order.size(); ++i) {
    out += fmt::format("|{}{}", text(a.order[i]), a.order_descending[i] ? " desc" : "");
  }
  for (int k : a.grouping_keys) out += fmt::format("|g{}", k);
  return out;
}

}  // namespace

namespace {

// An aggregate's name, DuckDB's and Spark's spellings, as a function and how it is called.
struct AggregateName {
  std::string_view name;
  exec::AggFn fn;
  size_t min_args, max_args;  // beyond the WITHIN GROUP's
};

constexpr AggregateName kAggregateNames[] = {
    {"count", exec::AggFn::kCount, 1, 1},
    {"sum", exec::AggFn::kSum, 1, 1},
    {"avg", exec::AggFn::kAvg, 1, 1},
    {"mean", exec::AggFn::kAvg, 1, 1},
    {"min", exec::AggFn::kMin, 1, 1},
    {"max", exec::AggFn::kMax, 1, 1},
    {"count_if", exec::AggFn::kCountIf, 1, 1},
    {"countif", exec::AggFn::kCountIf, 1, 1},
    {"bool_and", exec::AggFn::kBoolAnd, 1, 1},
    {"every", exec::AggFn::kBoolAnd, 1, 1},
    {"bool_or", exec::AggFn::kBoolOr, 1, 1},
    {"any_value", exec::AggFn::kAnyValue, 1, 1},
    {"arbitrary", exec::AggFn::kAnyValue, 1, 1},
    {"first", exec::AggFn::kFirst, 1, 1},
    {"arg_min", exec::AggFn::kArgMin, 2, 2},
    {"argmin", exec::AggFn::kArgMin, 2, 2},
    {"min_by", exec::AggFn::kArgMin, 2, 2},
    {"arg_max", exec::AggFn::kArgMax, 2, 2},
    {"argmax", exec::AggFn::kArgMax, 2, 2},
    {"max_by", exec::AggFn::kArgMax, 2, 2},
    {"var_samp", exec::AggFn::kVarSamp, 1, 1},
    {"variance", exec::AggFn::kVarSamp, 1, 1},
    {"var_pop", exec::AggFn::kVarPop, 1, 1},
    {"stddev", exec::AggFn::kStddevSamp, 1, 1},
    {"stddev_samp", exec::AggFn::kStddevSamp, 1, 1},
    {"std", exec::AggFn::kStddevSamp, 1, 1},
    {"stddev_pop", exec::AggFn::kStddevPop, 1, 1},
    {"median", exec::AggFn::kQuantileCont, 1, 1},
    {"quantile_cont", exec::AggFn::kQuantileCont, 2, 2},
    {"percentile", exec::AggFn::kQuantileCont, 2, 2},  // Spark's
    {"quantile_disc", exec::AggFn::kQuantileDisc, 2, 2},
    {"quantile", exec::AggFn::kQuantileDisc, 2, 2},
    {"percentile_cont", exec::AggFn::kQuantileCont, 1, 1},  // (q) WITHIN GROUP (ORDER BY x)
    {"percentile_disc", exec::AggFn::kQuantileDisc, 1, 1},
    {"string_agg", exec::AggFn::kStringAgg, 1, 2},
    {"listagg", exec::AggFn::kStringAgg, 1, 2},
    {"group_concat", exec::AggFn::kStringAgg, 1, 2},
    {"approx_count_distinct", exec::AggFn::kApproxCountDistinct, 1, 1},
    // GROUPING(keys) (Postgres, DuckDB) and grouping_id(keys) (Spark; without keys: all of them).
    {"grouping", exec::AggFn::kGrouping, 1, SIZE_MAX},
    {"grouping_id", exec::AggFn::kGrouping, 0, SIZE_MAX},
};

}  // namespace

Result<ExprPtr> Binder::BindWindow(const ast::Expr& b, Scope scope) {
  using WFn = exec::WindowCall::Fn;
  const int loc = b.location;
  if (!windows_allowed_) {
    return Fail(loc, ErrorKind::kInvalidInput,
                "window functions are only allowed in the select list and ORDER BY");
  }
  const ast::WindowDef& over = *b.over;
  if (b.distinct || b.filter || !b.order.empty()) {
    return Unsupported(loc, "DISTINCT, FILTER or ORDER BY inside a window function's call");
  }
  struct Known {
    std::string_view name;
    WFn fn;
    exec::AggFn aggregate;
    size_t min_args, max_args;
  };
  static constexpr Known kKnown[] = {
      {"row_number", WFn::kRowNumber, exec::AggFn::kCountStar, 0, 0},
      {"rank", WFn::kRank, exec::AggFn::kCountStar, 0, 0},
      {"dense_rank", WFn::kDenseRank, exec::AggFn::kCountStar, 0, 0},
      {"percent_rank", WFn::kPercentRank, exec::AggFn::kCountStar, 0, 0},
      {"cume_dist", WFn::kCumeDist, exec::AggFn::kCountStar, 0, 0},
      {"ntile", WFn::kNtile, exec::AggFn::kCountStar, 1, 1},
      {"lag", WFn::kLag, exec::AggFn::kCountStar, 1, 3},
      {"lead", WFn::kLead, exec::AggFn::kCountStar, 1, 3},
      {"first_value", WFn::kFirstValue, exec::AggFn::kCountStar, 1, 1},
      {"last_value", WFn::kLastValue, exec::AggFn::kCountStar, 1, 1},
      {"nth_value", WFn::kNthValue, exec::AggFn::kCountStar, 2, 2},
      {"count", WFn::kAggregate, exec::AggFn::kCount, 1, 1},
      {"sum", WFn::kAggregate, exec::AggFn::kSum, 1, 1},
      {"avg", WFn::kAggregate, exec::AggFn::kAvg, 1, 1},
      {"mean", WFn::kAggregate, exec::AggFn::kAvg, 1, 1},
      {"min", WFn::kAggregate, exec::AggFn::kMin, 1, 1},
      {"max", WFn::kAggregate, exec::AggFn::kMax, 1, 1},
  };
  const Known* known = nullptr;
  for (const Known& k : kKnown) {
    if (k.name == b.name) known = &k;
  }
  if (known == nullptr) return Unsupported(loc, fmt::format("{} as a window function", b.name));
  exec::WindowCall w;
  w.fn = known->fn;
  w.aggregate = known->aggregate;
  if (b.star) {
    if (b.name != "count") return Fail(loc, ErrorKind::kInvalidInput, b.name + "(*) is not valid");
    w.aggregate = exec::AggFn::kCountStar;
  } else if (b.args.size() < known->min_args || b.args.size() > known->max_args) {
    return Fail(loc, ErrorKind::kInvalidInput,
                fmt::format("{} takes {} argument{}", b.name,
                            known->min_args == known->max_args
                                ? std::to_string(known->min_args)
                                : fmt::format("{} to {}", known->min_args, known->max_args),
                            known->max_args == 1 ? "" : "s"));
  }
  windows_allowed_ = false;  // no window within a window
  std::vector<columnar::DataType> types;
  for (const auto& a : b.args) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*a, scope));
    types.push_back(e->type);
    w.args.push_back(std::move(e));
  }
  const bool offsets =
      w.fn == WFn::kLag || w.fn == WFn::kLead || w.fn == WFn::kNtile || w.fn == WFn::kNthValue;
  if (offsets) {
    const size_t at = w.fn == WFn::kNtile ? 0 : 1;
    if (w.args.size() > at && w.args[at]->type.id != columnar::TypeId::kInt64 &&
        w.args[at]->type.id != columnar::TypeId::kNull) {
      return Fail(b.args[at]->location, ErrorKind::kInvalidInput,
                  fmt::format("{}'s {} must be an integer", b.name,
                              w.fn == WFn::kNtile ? "bucket count" : "offset"));
    }
  }
  if ((w.fn == WFn::kLag || w.fn == WFn::kLead) && w.args.size() == 3 &&
      w.args[2]->type != w.args[0]->type) {
    auto cast = exec::MakeCast(w.args[2], w.args[0]->type);
    if (!cast) return std::unexpected(Locate(cast.error(), b.args[2]->location));
    w.args[2] = *cast;
  }
  for (const auto& p : over.partition) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*p, scope));
    w.partition.push_back(std::move(e));
  }
  for (size_t i = 0; i < over.order.size(); ++i) {
    exec::SortKey key;
    FLOE_ASSIGN_OR_RETURN(key.expr, BindExpr(*over.order[i], scope));
    key.descending = over.order_descending[i];
    key.nulls_first = over.order_nulls_first[i];
    w.order.push_back(std::move(key));
  }
  windows_allowed_ = true;
  // The frame (Postgres's FRAMEOPTION_* bits); by default RANGE from the partition's start to the
  // current row's last peer.
  const int opts = over.frame_options;
  using Bound = exec::FrameBound::Kind;
  w.end.kind = Bound::kCurrentRow;
  if ((opts & 0x1) != 0) {
    if ((opts & 0x8) != 0) return Unsupported(over.location, "GROUPS frames");
    if ((opts & (0x8000 | 0x10000 | 0x20000)) != 0) return Unsupported(over.location, "EXCLUDE");
    w.rows = (opts & 0x4) != 0;
    auto offset = [&](const ast::ExprPtr& e) -> Result<int64_t> {
      if (!e) return Internal("a frame offset is missing");
      FLOE_ASSIGN_OR_RETURN(int64_t n, BindCount(*e, "a frame offset"));
      return n;
    };
    if ((opts & 0x20) != 0) w.start.kind = Bound::kUnboundedPreceding;
    if ((opts & 0x80) != 0) w.start.kind = Bound::kUnboundedFollowing;
    if ((opts & 0x200) != 0) w.start.kind = Bound::kCurrentRow;
    if ((opts & 0x800) != 0) w.start.kind = Bound::kPreceding;
    if ((opts & 0x2000) != 0) w.start.kind = Bound::kFollowing;
    if ((opts & 0x40) != 0) w.end.kind = Bound::kUnboundedPreceding;
    if ((opts & 0x100) != 0) w.end.kind = Bound::kUnboundedFollowing;
    if ((opts & 0x400) != 0) w.end.kind = Bound::kCurrentRow;
    if ((opts & 0x1000) != 0) w.end.kind = Bound::kPreceding;
    if ((opts & 0x4000) != 0) w.end.kind = Bound::kFollowing;
    // RANGE n PRECEDING / FOLLOWING: n in the one ORDER BY key's type (days for a date).
    auto range_offset = [&](const ast::ExprPtr& e) -> Result<exec::Value> {
      if (!e) return Internal("a frame offset is missing");
      if (w.order.size() != 1) {
        return Fail(e->location, ErrorKind::kInvalidInput,
                    "a RANGE frame with an offset needs exactly one ORDER BY key");
      }
      const columnar::DataType key = w.order[0].expr->type;
      const bool date = key.id == columnar::TypeId::kDate32;
      if (!date && !exec::IsNumericType(key)) {
        return Fail(e->location, ErrorKind::kInvalidInput,
                    fmt::format("a RANGE frame's offset needs a number or date ORDER BY key, not "
                                "{}",
                                key.ToString()));
      }
      FLOE_ASSIGN_OR_RETURN(ExprPtr bound, BindExpr(*e, Scope::kInput));
      if (bound->kind != exec::Expr::Kind::kLiteral || bound->value.is_null() ||
          !exec::IsNumericType(bound->type) ||
          (date && bound->type.id != columnar::TypeId::kInt64)) {
        return Fail(e->location, ErrorKind::kInvalidInput,
                    date ? "a RANGE frame's offset over a date must be a constant number of days"
                         : "a RANGE frame's offset must be a constant number");
      }
      const columnar::DataType as = date ? columnar::Int64() : key;
      auto cast = exec::MakeCast(bound, as);
      if (!cast) return std::unexpected(Locate(cast.error(), e->location));
      auto v = exec::EvaluateConstant(**cast);
      if (!v) return std::unexpected(Locate(v.error(), e->location));
      if (exec::CompareValues(*v, exec::Value::Int(0)) < 0) {
        return Fail(e->location, ErrorKind::kInvalidInput, "a frame offset must not be negative");
      }
      return *v;
    };
    if ((opts & (0x800 | 0x2000)) != 0) {
      if (w.rows) {
        FLOE_ASSIGN_OR_RETURN(w.start.offset, offset(over.start_offset));
      } else {
        FLOE_ASSIGN_OR_RETURN(w.start.range_offset, range_offset(over.start_offset));
      }
    }
    if ((opts & (0x1000 | 0x4000)) != 0) {
      if (w.rows) {
        FLOE_ASSIGN_OR_RETURN(w.end.offset, offset(over.end_offset));
      } else {
        FLOE_ASSIGN_OR_RETURN(w.end.range_offset, range_offset(over.end_offset));
      }
    }
  }
  auto type = exec::WindowType(w.fn, w.aggregate, types);
  if (!type) return std::unexpected(Locate(type.error(), loc));
  w.type = *type;
  const int index = static_cast<int>(plan_.windows.size());
  plan_.windows.push_back(std::move(w));
  return exec::ColumnRef(kWindowBase + index, *type, b.name);
}

// GROUPING(keys): each argument must be one of the GROUP BY keys (all of them for a bare
// grouping_id()); registered as an aggregate whose value the grouping set decides.
Result<ExprPtr> Binder::BindGrouping(const ast::Expr& b, exec::Aggregate agg) {
  if (b.distinct || b.filter || !b.order.empty()) {
    return Fail(b.location, ErrorKind::kInvalidInput,
                fmt::format("{} takes GROUP BY keys only", b.name));
  }
  if (b.args.empty()) {
    for (size_t k = 0; k < plan_.group_keys.size(); ++k) {
      agg.grouping_keys.push_back(static_cast<int>(k));
    }
  }
  for (const auto& a : b.args) {
    const size_t saved = plan_.scan_field_ids.size();
    const std::vector<int> saved_index = scan_index_;
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*a, Scope::kInput));
    plan_.scan_field_ids.resize(saved);
    scan_index_ = saved_index;
    const std::string fp = e->ToString();
    auto it = std::find(aggregate_keys_.begin(), aggregate_keys_.end(), fp);
    if (it == aggregate_keys_.end()) {
      return Fail(a->location, ErrorKind::kInvalidInput,
                  fmt::format("{}'s arguments must be GROUP BY keys", b.name));
    }
    agg.grouping_keys.push_back(static_cast<int>(it - aggregate_keys_.begin()));
  }
  agg.type = columnar::Int64();
  return RegisterAggregate(std::move(agg), b.name);
}

// A constant argument of an aggregate (a quantile's fraction, string_agg's separator).
Result<exec::Value> Binder::AggregateConstant(const ast::Expr& e, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(ExprPtr bound, BindExpr(e, Scope::kInput));
  if (bound->kind != exec::Expr::Kind::kLiteral) {
    return Fail(e.location, ErrorKind::kInvalidInput, fmt::format("{} must be a constant", what));
  }
  return bound->value;
}

Result<ExprPtr> Binder::BindAggregate(const ast::Expr& b) {
  const std::string& name = b.name;
  int loc = b.location;
  const AggregateName* spec = nullptr;
  for (const AggregateName& a : kAggregateNames) {
    if (a.name == name) spec = &a;
  }
  exec::Aggregate agg;
  agg.distinct = b.distinct;
  const std::vector<ast::ExprPtr>& args = b.args;
  for (const auto& a : args) {
    if (a->has_aggregate) {
      return Fail(a->location, ErrorKind::kInvalidInput, "aggregate calls cannot be nested");
    }
  }
  const bool within = b.within_group;
  if (within &&
      (spec == nullptr ||
       (spec->fn != exec::AggFn::kQuantileCont && spec->fn != exec::AggFn::kQuantileDisc) ||
       spec->min_args != 1)) {
    return Unsupported(loc, fmt::format("WITHIN GROUP with {}", name));
  }
  if (b.star) {
    if (name != "count") return Fail(loc, ErrorKind::kInvalidInput, name + "(*) is not defined");
    agg.fn = exec::AggFn::kCountStar;
  } else {
    if (spec == nullptr) return Unsupported(loc, fmt::format("aggregate {}", name));
    if (args.size() < spec->min_args || args.size() > spec->max_args) {
      if (spec->max_args == SIZE_MAX) {
        return Fail(loc, ErrorKind::kInvalidInput, fmt::format("{} needs arguments", name));
      }
      return Fail(loc, ErrorKind::kInvalidInput,
                  spec->min_args == spec->max_args
                      ? fmt::format("{} takes {} argument{}, got {}", name, spec->min_args,
                                    spec->min_args == 1 ? "" : "s", args.size())
                      : fmt::format("{} takes {} to {} arguments, got {}", name, spec->min_args,
                                    spec->max_args, args.size()));
    }
    agg.fn = spec->fn;
    if (agg.fn == exec::AggFn::kGrouping) return BindGrouping(b, std::move(agg));
    const bool percentile = name == "percentile_cont" || name == "percentile_disc";
    if (percentile && (!within || b.order.size() != 1)) {
      return Fail(loc, ErrorKind::kInvalidInput,
                  fmt::format("{}(fraction) takes WITHIN GROUP (ORDER BY one value)", name));
    }
    const ast::Expr& value = percentile ? *b.order[0] : *args[0];
    FLOE_ASSIGN_OR_RETURN(agg.arg, BindExpr(value, Scope::kInput));
    if (agg.fn == exec::AggFn::kArgMin || agg.fn == exec::AggFn::kArgMax) {
      FLOE_ASSIGN_OR_RETURN(agg.arg2, BindExpr(*args[1], Scope::kInput));
      if (agg.arg2->type.IsNested()) {
        return Fail(args[1]->location, ErrorKind::kInvalidInput,
                    fmt::format("{} cannot order by {}", name, agg.arg2->type.ToString()));
      }
    }
    if (agg.fn == exec::AggFn::kQuantileCont || agg.fn == exec::AggFn::kQuantileDisc) {
      if (name == "median") {
        // DuckDB's median: interpolated for the types that interpolate, the lower middle value
        // of the others (strings).
        const columnar::TypeId t = agg.arg->type.id;
        if (!exec::IsNumericType(agg.arg->type) && t != columnar::TypeId::kDate32 &&
            t != columnar::TypeId::kTimestamp && t != columnar::TypeId::kNull) {
          agg.fn = exec::AggFn::kQuantileDisc;
        }
      } else {
        const ast::Expr& q = percentile ? *args[0] : *args[1];
        FLOE_ASSIGN_OR_RETURN(exec::Value v, AggregateConstant(q, "the quantile's fraction"));
        double f = -1;
        if (v.v.index() == 2) f = static_cast<double>(v.i());
        if (v.v.index() == 3) f = v.d();
        if (v.v.index() == 5) {
          // A decimal literal (0.25): its value as a double.
          FLOE_ASSIGN_OR_RETURN(ExprPtr bound, BindExpr(q, Scope::kInput));
          auto as_double = exec::MakeCast(bound, columnar::Float64());
          if (as_double) {
            auto d = exec::EvaluateConstant(**as_double);
            if (d && !d->is_null()) f = d->d();
          }
        }
        if (!(f >= 0 && f <= 1)) {
          return Fail(q.location, ErrorKind::kInvalidInput,
                      fmt::format("{}'s fraction must be a number between 0 and 1", name));
        }
        agg.fraction = f;
      }
    }
    if (agg.fn == exec::AggFn::kStringAgg) {
      if (args.size() == 2) {
        FLOE_ASSIGN_OR_RETURN(exec::Value v, AggregateConstant(*args[1], "string_agg's separator"));
        if (v.is_null() || v.v.index() != 4) {
          return Fail(args[1]->location, ErrorKind::kInvalidInput,
                      "string_agg's separator must be a string");
        }
        agg.separator = v.s();
      }
      if (!exec::IsStringType(agg.arg->type) && agg.arg->type.id != columnar::TypeId::kNull) {
        FLOE_ASSIGN_OR_RETURN(agg.arg, exec::MakeCast(agg.arg, columnar::String()));
      }
      for (size_t i = 0; i < b.order.size(); ++i) {
        FLOE_ASSIGN_OR_RETURN(ExprPtr o, BindExpr(*b.order[i], Scope::kInput));
        if (o->type.IsNested()) {
          return Fail(b.order[i]->location, ErrorKind::kInvalidInput,
                      fmt::format("cannot order by {}", o->type.ToString()));
        }
        agg.order.push_back(std::move(o));
        agg.order_descending.push_back(b.order_descending[i]);
      }
    } else if (!b.order.empty() && !percentile) {
      // The order of the rows changes nothing but string_agg (and first, which is arbitrary).
      if (agg.fn != exec::AggFn::kFirst) {
        for (const auto& o : b.order) FLOE_RETURN_IF_ERROR(BindExpr(*o, Scope::kInput));
      } else {
        return Unsupported(loc, "ORDER BY inside first()");
      }
    }
  }
  if (agg.distinct) {
    switch (agg.fn) {
      case exec::AggFn::kCount:
      case exec::AggFn::kSum:
      case exec::AggFn::kAvg:
      case exec::AggFn::kMin:
      case exec::AggFn::kMax:
        break;
      case exec::AggFn::kBoolAnd:
      case exec::AggFn::kBoolOr:
      case exec::AggFn::kAnyValue:
      case exec::AggFn::kArgMin:
      case exec::AggFn::kArgMax:
      case exec::AggFn::kApproxCountDistinct:
        agg.distinct = false;  // the same answer
        break;
      default:
        return Unsupported(loc, fmt::format("DISTINCT in {}", name));
    }
  }
  if (b.filter) {
    if (b.filter->has_aggregate) {
      return Fail(b.filter->location, ErrorKind::kInvalidInput, "aggregate calls cannot be nested");
    }
    FLOE_ASSIGN_OR_RETURN(agg.filter, BindExpr(*b.filter, Scope::kInput));
    if (agg.filter->type.id != columnar::TypeId::kBool &&
        agg.filter->type.id != columnar::TypeId::kNull) {
      return Fail(
          b.filter->location, ErrorKind::kInvalidInput,
          fmt::format("FILTER takes a boolean condition, not {}", agg.filter->type.ToString()));
    }
  }
  auto t = exec::AggregateType(agg.fn, agg.arg ? agg.arg->type : columnar::Int64());
  if (!t) {
    return Fail(
        loc, ErrorKind::kInvalidInput,
        fmt::format("type mismatch: {} of {} is not defined", name, agg.arg->type.ToString()));
  }
  agg.type = *t;
  return RegisterAggregate(std::move(agg), name);
}

// The aggregate output column of `agg`: an equal aggregate's when one is registered already.
ExprPtr Binder::RegisterAggregate(exec::Aggregate agg, const std::string& name) {
  const std::string fp = AggregateFingerprint(agg);
  int nkeys = static_cast<int>(plan_.group_keys.size());
  for (size_t i = 0; i < plan_.aggregates.size(); ++i) {
    const auto& a = plan_.aggregates[i];
    if (AggregateFingerprint(a) == fp) {
      return exec::ColumnRef(nkeys + static_cast<int>(i), a.type, name);
    }
  }
  plan_.aggregates.push_back(std::move(agg));
  const exec::Aggregate& added = plan_.aggregates.back();
  return exec::ColumnRef(nkeys + static_cast<int>(plan_.aggregates.size()) - 1, added.type, name);
}

Result<ExprPtr> Binder::BindFunc(const ast::Expr& b, Scope scope) {
  const std::string& name = b.name;
  int loc = b.location;
  if (b.window) return BindWindow(b, scope);
  if (IsAggregateName(name)) {
    return Fail(loc, ErrorKind::kInvalidInput,
                fmt::format("aggregate function {} is not allowed here", name));
  }
  if (b.distinct || b.star) {
    return Fail(loc, ErrorKind::kInvalidInput, fmt::format("{} is not an aggregate", name));
  }
  const std::vector<ast::ExprPtr>& jargs = b.args;
  if (name == "current_setting" && resolver_.current_setting) {
    // DuckDB's and Postgres's: a setting's value, a constant of the statement.
    if (jargs.size() != 1 || jargs[0]->kind != Kind::kConst ||
        jargs[0]->constant.kind != ast::Const::Kind::kString) {
      return Fail(loc, ErrorKind::kInvalidInput,
                  "current_setting takes one constant setting name, e.g. 'memory_limit'");
    }
    auto value = resolver_.current_setting(jargs[0]->constant.text);
    if (!value) return Fail(jargs[0]->location, value.error().kind, value.error().message);
    return exec::Constant(exec::Value::Str(std::move(*value)), columnar::String());
  }
  const exec::FunctionLookup found = exec::FindFunction(name);
  const exec::ScalarFunction* fn = found.function;  // may turn into its without_unit entry
  // date_trunc / extract / date_part take their unit as a string constant.
  if (fn != nullptr && fn->unit_argument && found.unit.empty() && !fn->without_unit.empty() &&
      jargs.size() == fn->max_args) {
    fn = exec::FindFunction(fn->without_unit).function;
  }
  if (fn != nullptr && fn->unit_argument && found.unit.empty()) {
    if (jargs.size() != 1 + fn->max_args) {
      return Fail(loc, ErrorKind::kInvalidInput,
                  fmt::format("{} takes {} arguments", name, 1 + fn->max_args));
    }
    const ast::Expr& unit_arg = *jargs[0];
    if (unit_arg.kind != Kind::kConst || unit_arg.constant.kind != ast::Const::Kind::kString) {
      return Fail(unit_arg.location, ErrorKind::kInvalidInput,
                  fmt::format("{} expects a constant unit such as 'day'", name));
    }
    std::string unit = Lower(unit_arg.constant.text);
    std::vector<ExprPtr> args;
    for (size_t i = 1; i < jargs.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(*jargs[i], scope));
      args.push_back(std::move(arg));
    }
    return Call(*fn, std::move(args), loc, unit);
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<ExprPtr> args, BindList(jargs, scope));
  if (fn == nullptr) return Unsupported(loc, fmt::format("function {}()", name));
  if (!found.unit.empty()) {
    // year(ts): date_part with the name as its unit.
    if (args.size() != fn->max_args) {
      return Fail(
          loc, ErrorKind::kInvalidInput,
          fmt::format("{} takes {} argument{}", name, fn->max_args, fn->max_args == 1 ? "" : "s"));
    }
    return Call(*fn, std::move(args), loc, std::string(found.unit));
  }
  return Call(*fn, std::move(args), loc);
}

Result<ExprPtr> Binder::BindColumnRef(const ast::Expr& b) {
  int loc = b.location;
  if (b.star) return Fail(loc, ErrorKind::kInvalidInput, "* is only allowed in the select list");
  // a.b(.c...): when `a` (or, after a table qualifier, `b`) is a struct column, the rest are
  // its fields; otherwise the leading names qualify the column.
  const std::vector<std::string>& names = b.names;
  for (const auto& [name, merged] : merged_columns_) {
    if (names.size() == 1 && Lower(names[0]) == Lower(name))
      return BindExpr(*merged, Scope::kInput);
  }
  if (names.size() >= 2 && IsRelation(names[0])) {
    // relation.column(.field...)
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, ResolveColumn(names[1], loc, names[0]));
    for (size_t i = 2; i < names.size(); ++i) {
      auto field = exec::MakeCall(exec::Fn::kStructField, {e}, names[i]);
      if (!field) return std::unexpected(Locate(field.error(), loc));
      e = std::move(*field);
    }
    return e;
  }
  if (names.size() >= 2 && !column_relations_.empty() &&
      (names.size() > 2 ||
       std::none_of(column_names_.begin(), column_names_.end(),
                    [&](const std::string& c) { return Lower(c) == Lower(names[0]); }))) {
    return Fail(loc, ErrorKind::kNotFound,
                fmt::format("'{}' names no relation here ({})", names[0], source_name_));
  }
  auto struct_column = [&](const std::string& n) {
    for (size_t i = 0; i < column_names_.size(); ++i) {
      if (Lower(column_names_[i]) == Lower(n) && column_types_[i].id == columnar::TypeId::kStruct) {
        return true;
      }
    }
    return false;
  };
  size_t head = names.size();
  if (names.size() >= 2 && struct_column(names[0])) {
    head = 0;
  } else if (names.size() >= 3 && struct_column(names[1])) {
    head = 1;
  }
  if (head < names.size()) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, ResolveColumn(names[head], loc));
    for (size_t i = head + 1; i < names.size(); ++i) {
      auto field = exec::MakeCall(exec::Fn::kStructField, {e}, names[i]);
      if (!field) return std::unexpected(Locate(field.error(), loc));
      e = std::move(*field);
    }
    return e;
  }
  return ResolveColumn(LastPart(names), loc);
}

Result<ExprPtr> Binder::BindCase(const ast::Expr& b, Scope scope) {
  ExprPtr subject;
  if (b.subject) {
    FLOE_ASSIGN_OR_RETURN(subject, BindExpr(*b.subject, scope));
  }
  std::vector<ExprPtr> args;
  for (const auto& arm : b.arms) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(*arm.when, scope));
    if (subject) {
      FLOE_ASSIGN_OR_RETURN(cond, Call(Fn::kEq, {subject, cond}, arm.when->location));
    }
    FLOE_ASSIGN_OR_RETURN(ExprPtr then, BindExpr(*arm.then, scope));
    args.push_back(cond);
    args.push_back(then);
  }
  ExprPtr otherwise = exec::Constant({}, columnar::DataType{});
  if (b.otherwise) {
    FLOE_ASSIGN_OR_RETURN(otherwise, BindExpr(*b.otherwise, scope));
  }
  args.push_back(otherwise);
  auto e = exec::MakeCall(Fn::kCase, std::move(args));
  if (!e) return std::unexpected(Locate(e.error(), b.location));
  return e;
}

// An operator of libpg_query's A_Expr (AEXPR_OP, LIKE, ILIKE): prefix, infix or postfix.
// `x + INTERVAL ...`, `x - INTERVAL ...` or `INTERVAL ... + x`: x (a date or timestamp) moved by
// the interval's months, days and microseconds (interval.h).
Result<ExprPtr> Binder::BindIntervalShift(const ast::Expr& x, const ast::Expr& interval,
                                          bool subtract, Scope scope, int loc) {
  FLOE_ASSIGN_OR_RETURN(ExprPtr value, BindExpr(x, scope));
  const ast::Expr& arg = *interval.args[0];
  std::string text;
  if (arg.kind == Kind::kConst && arg.constant.kind == ast::Const::Kind::kString) {
    text = arg.constant.text;
  } else if (arg.kind == Kind::kConst && arg.constant.kind == ast::Const::Kind::kInteger) {
    text = std::to_string(arg.constant.integer);
  } else {
    return Unsupported(interval.location, "an INTERVAL of anything but a constant");
  }
  // INTERVAL '3' DAY: Postgres's field mask (1 << field) names the unit.
  std::optional<std::string_view> unit;
  static const std::pair<int, std::string_view> kFields[] = {
      {1 << 2, "year"},  {1 << 1, "month"},   {1 << 3, "day"},
      {1 << 10, "hour"}, {1 << 11, "minute"}, {1 << 12, "second"}};
  if (!interval.type.modifiers.empty()) {
    for (const auto& [mask, name] : kFields) {
      if (interval.type.modifiers[0] == mask) unit = name;
    }
    if (!unit) return Unsupported(interval.location, "an INTERVAL of two fields (YEAR TO MONTH)");
  }
  auto parsed = ParseInterval(text, unit);
  if (!parsed) {
    return std::unexpected(
        Locate(parsed.error(), interval.location >= 0 ? interval.location : arg.location));
  }
  const int sign = subtract ? -1 : 1;
  std::vector<ExprPtr> args = {value};
  for (int64_t part : {parsed->months, parsed->days, parsed->micros}) {
    args.push_back(exec::Constant(exec::Value::Int(sign * part), columnar::Int64()));
  }
  return Call(*exec::FindFunction("+ interval").function, std::move(args), loc);
}

// A date compared with a timestamp constant (`d <= DATE '1998-12-01' - INTERVAL '90' DAY`, a
// timestamp in DuckDB's typing) compared as dates -- the same rows, and a filter a scan prunes
// by: at midnight the constant's day; otherwise d < or <= it is d <= its day, d > or >= it is d >
// its day. Nothing for anything else (= and <> at another time stay timestamps).
std::optional<Result<ExprPtr>> Binder::DateAgainstTimestamp(Fn fn, const ExprPtr& l,
                                                            const ExprPtr& r, int loc) {
  auto constant_micros = [](const ExprPtr& e) {
    return e->kind == exec::Expr::Kind::kLiteral && e->type.id == columnar::TypeId::kTimestamp &&
           e->type.unit == columnar::TimeUnit::kMicro && e->type.timezone.empty() &&
           !e->value.is_null();
  };
  const bool flipped = l->type.id != columnar::TypeId::kDate32;
  const ExprPtr& date = flipped ? r : l;
  const ExprPtr& stamp = flipped ? l : r;
  if (date->type.id != columnar::TypeId::kDate32 || !constant_micros(stamp)) return std::nullopt;
  static const std::map<Fn, Fn> kMirror = {{Fn::kLt, Fn::kGt}, {Fn::kLtEq, Fn::kGtEq},
                                           {Fn::kGt, Fn::kLt}, {Fn::kGtEq, Fn::kLtEq},
                                           {Fn::kEq, Fn::kEq}, {Fn::kNotEq, Fn::kNotEq}};
  auto mirrored = kMirror.find(fn);
  if (mirrored == kMirror.end()) return std::nullopt;
  if (flipped) fn = mirrored->second;
  constexpr int64_t kMicrosPerDay = int64_t{86'400'000'000};
  const int64_t micros = stamp->value.i();
  const int64_t day = FloorDiv(micros, kMicrosPerDay);
  if (day < INT32_MIN || day > INT32_MAX) return std::nullopt;
  if (micros != day * kMicrosPerDay) {
    if (fn == Fn::kLt || fn == Fn::kLtEq) {
      fn = Fn::kLtEq;
    } else if (fn == Fn::kGt || fn == Fn::kGtEq) {
      fn = Fn::kGt;
    } else {
      return std::nullopt;
    }
  }
  return Call(fn, {date, exec::Constant(exec::Value::Int(day), columnar::Date32())}, loc);
}

Result<ExprPtr> Binder::BindOperator(const ast::Expr& b, Scope scope) {
  int loc = b.location;
  const std::string& op = b.name;
  auto is_interval = [](const ast::ExprPtr& e) {
    return e && e->kind == Kind::kTypeCast && e->type.name == "interval" && !e->args.empty();
  };
  if ((op == "+" || op == "-") && b.left && is_interval(b.right)) {
    return BindIntervalShift(*b.left, *b.right, op == "-", scope, loc);
  }
  if (op == "+" && is_interval(b.left) && b.right && !is_interval(b.right)) {
    return BindIntervalShift(*b.right, *b.left, false, scope, loc);
  }
  ExprPtr l, r;
  if (b.left) {
    FLOE_ASSIGN_OR_RETURN(l, BindExpr(*b.left, scope));
  }
  if (b.right) {
    FLOE_ASSIGN_OR_RETURN(r, BindExpr(*b.right, scope));
  }
  if (!l) {
    if (op == "-") return Call(Fn::kNeg, {r}, loc);
    if (op == "+") return r;
    return Unsupported(loc, fmt::format("prefix operator {}", op));
  }
  if (!r) return Unsupported(loc, fmt::format("postfix operator {}", op));
  // Operators the function registry implements (||).
  if (const exec::ScalarFunction* fn = exec::FindOperator(op)) return Call(*fn, {l, r}, loc);
  // Regular expressions: `~` matches anywhere (`~*` ignoring case, `!~` negated), SIMILAR TO the
  // whole string -- DuckDB's readings, with RE2's syntax.
  if (op == "~" || op == "~*" || op == "!~" || op == "!~*" || op == "similar" || op == "!similar") {
    const bool full = op.ends_with("similar");
    std::vector<ExprPtr> args = {l, r};
    if (op.ends_with("*")) {
      args.push_back(exec::Constant(exec::Value::Str("i"), columnar::String()));
    }
    FLOE_ASSIGN_OR_RETURN(
        ExprPtr e, Call(*exec::FindFunction(full ? "regexp_full_match" : "regexp_matches").function,
                        std::move(args), loc));
    if (op.starts_with("!")) return Call(Fn::kNot, {e}, loc);
    return e;
  }
  static const std::map<std::string, Fn> kOps = {
      {"+", Fn::kAdd},   {"-", Fn::kSub},     {"*", Fn::kMul},    {"/", Fn::kDiv},
      {"%", Fn::kMod},   {"=", Fn::kEq},      {"<>", Fn::kNotEq}, {"!=", Fn::kNotEq},
      {"<", Fn::kLt},    {"<=", Fn::kLtEq},   {">", Fn::kGt},     {">=", Fn::kGtEq},
      {"~~", Fn::kLike}, {"~~*", Fn::kILike}, {"!~~", Fn::kLike}, {"!~~*", Fn::kILike}};
  auto it = kOps.find(op);
  if (it == kOps.end()) return Unsupported(loc, fmt::format("operator {}", op));
  if (auto as_dates = DateAgainstTimestamp(it->second, l, r, loc)) return *as_dates;
  FLOE_ASSIGN_OR_RETURN(ExprPtr e, Call(it->second, {l, r}, loc));
  if (op.starts_with("!~~")) return Call(Fn::kNot, {e}, loc);
  return e;
}

Result<ExprPtr> Binder::BindNode(const ast::Expr& b, Scope scope) {
  int loc = b.location;
  switch (b.kind) {
    case Kind::kColumnRef:
      return BindColumnRef(b);
    case Kind::kConst:
      return BindConst(b.constant, loc);
    case Kind::kTypeCast: {
      if (b.type.name == "interval") {
        return Unsupported(loc >= 0 ? loc : b.type.location,
                           "an INTERVAL other than added to or subtracted from a date or "
                           "timestamp");
      }
      FLOE_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(*b.args[0], scope));
      FLOE_ASSIGN_OR_RETURN(columnar::DataType to, BindTypeName(b.type, loc));
      auto e = exec::MakeCast(arg, to, b.try_cast);
      if (loc < 0) loc = b.type.location;
      if (!e) return std::unexpected(Locate(e.error(), loc >= 0 ? loc : b.args[0]->location));
      return e;
    }
    case Kind::kAnd:
    case Kind::kOr:
    case Kind::kNot: {
      FLOE_ASSIGN_OR_RETURN(std::vector<ExprPtr> args, BindList(b.args, scope));
      if (b.kind == Kind::kNot) return Call(Fn::kNot, std::move(args), loc);
      Fn fn = b.kind == Kind::kAnd ? Fn::kAnd : Fn::kOr;
      ExprPtr acc = args[0];
      for (size_t i = 1; i < args.size(); ++i) {
        FLOE_ASSIGN_OR_RETURN(acc, Call(fn, {acc, args[i]}, loc));
      }
      if (args.size() == 1) {
        FLOE_ASSIGN_OR_RETURN(acc, Call(fn, {acc, acc}, loc));
      }
      return acc;
    }
    case Kind::kIsNull:
    case Kind::kIsNotNull: {
      FLOE_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(*b.args[0], scope));
      return Call(b.kind == Kind::kIsNull ? Fn::kIsNull : Fn::kIsNotNull, {arg}, loc);
    }
    case Kind::kCoalesce: {
      FLOE_ASSIGN_OR_RETURN(std::vector<ExprPtr> args, BindList(b.args, scope));
      return Call(*exec::FindFunction("coalesce").function, std::move(args), loc);
    }
    case Kind::kCase:
      return BindCase(b, scope);
    case Kind::kFuncCall:
      return BindFunc(b, scope);
    case Kind::kIn: {
      FLOE_ASSIGN_OR_RETURN(ExprPtr probe, BindExpr(*b.args[0], scope));
      std::vector<ExprPtr> args{probe};
      if (b.subquery) return Unsupported(loc, "IN with a subquery");
      for (size_t i = 1; i < b.args.size(); ++i) {
        FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(*b.args[i], scope));
        args.push_back(std::move(e));
      }
      FLOE_ASSIGN_OR_RETURN(ExprPtr in, Call(Fn::kIn, std::move(args), loc));
      if (b.negated) return Call(Fn::kNot, {in}, loc);
      return in;
    }
    case Kind::kBetween: {
      FLOE_ASSIGN_OR_RETURN(ExprPtr x, BindExpr(*b.args[0], scope));
      FLOE_ASSIGN_OR_RETURN(ExprPtr lo, BindExpr(*b.args[1], scope));
      FLOE_ASSIGN_OR_RETURN(ExprPtr hi, BindExpr(*b.args[2], scope));
      FLOE_ASSIGN_OR_RETURN(ExprPtr ge, Call(Fn::kGtEq, {x, lo}, loc));
      FLOE_ASSIGN_OR_RETURN(ExprPtr le, Call(Fn::kLtEq, {x, hi}, loc));
      FLOE_ASSIGN_OR_RETURN(ExprPtr both, Call(Fn::kAnd, {ge, le}, loc));
      if (b.negated) return Call(Fn::kNot, {both}, loc);
      return both;
    }
    case Kind::kOperator:
      return BindOperator(b, scope);
    case Kind::kSubquery: {
      auto it = subquery_values_.find(&b);
      if (it == subquery_values_.end()) return Unsupported(loc, "a subquery here");
      if (scope == Scope::kAggregate) {
        // One value for every row: any row's, as an aggregate.
        ast::Expr any;
        any.kind = Kind::kFuncCall;
        any.name = "any_value";
        any.location = loc;
        any.has_aggregate = true;
        any.args.push_back(CloneExpr(*it->second));
        return BindExpr(any, scope);
      }
      return BindExpr(*it->second, scope);
    }
    case Kind::kUnsupported:
      break;
  }
  return Unsupported(loc, b.name);
}

Result<int64_t> Binder::BindCount(const ast::Expr& node, const char* what) {
  int loc = node.location;
  if (node.kind == Kind::kConst && node.constant.kind == ast::Const::Kind::kNull) return -1;
  FLOE_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(node, Scope::kInput));
  if (e->kind != exec::Expr::Kind::kLiteral || e->type.id != columnar::TypeId::kInt64) {
    return Fail(loc, ErrorKind::kInvalidInput, fmt::format("{} must be an integer constant", what));
  }
  if (e->value.i() < 0) {
    return Fail(loc, ErrorKind::kInvalidInput, fmt::format("{} must not be negative", what));
  }
  return e->value.i();
}

Result<LogicalPlan> Binder::Bind(const ast::Select& s) {
  const int stmt_loc = 0;
  // A plain UNION is UNION ALL's rows, distinct.
  const bool distinct = s.distinct || (s.set_op == ast::Select::SetOp::kUnion && !s.set_all);
  FLOE_RETURN_IF_ERROR(BindWith(s));
  const bool whole_rows = s.set_op != ast::Select::SetOp::kNone || !s.values.empty();
  const bool relations = !whole_rows && ((s.from && NeedsRelations(*s.from)) || HasSubquery(s));
  if (s.set_op != ast::Select::SetOp::kNone) {
    FLOE_RETURN_IF_ERROR(BindSetOperation(s));
  } else if (!s.values.empty()) {
    FLOE_RETURN_IF_ERROR(BindValues(s));
  } else if (relations) {
    FLOE_RETURN_IF_ERROR(BindRelations(s.from ? &*s.from : nullptr, s.where.get(), &s));
  } else {
    FLOE_RETURN_IF_ERROR(BindFrom(s.from));
  }

  // The select list, with * expanded.
  struct Item {
    const ast::Expr* node = nullptr;  // null: source column `column`
    int column = -1;
    std::string name;
    int loc = -1;
  };
  std::vector<Item> items;
  for (const auto& t : s.items) {
    if (t.star) {
      if (plan_.source == LogicalPlan::Source::kNone) {
        return Fail(t.location, ErrorKind::kInvalidInput, "SELECT * needs a table");
      }
      if (relations) {
        int node = root_;
        if (!t.name.empty()) {
          // r.*: the columns of relation r.
          node = -1;
          for (const Relation& r : relations_) {
            if (Lower(r.name) == Lower(t.name)) node = r.node;
          }
          if (node < 0) {
            return Fail(t.location, ErrorKind::kNotFound,
                        fmt::format("'{}' names no relation here (FROM)", t.name));
          }
        }
        for (const StarItem& c : StarColumns(node)) {
          items.push_back({c.merged, c.column, column_names_[c.column], t.location});
        }
        continue;
      }
      for (size_t c = 0; c < std::min(column_names_.size(), visible_columns_); ++c) {
        items.push_back({nullptr, static_cast<int>(c), column_names_[c], t.location});
      }
      continue;
    }
    items.push_back({t.expr.get(), -1, t.name, t.location});
  }
  if (whole_rows) {
    // A set operation's or VALUES's rows are the query's.
    for (size_t c = 0; c < column_names_.size(); ++c) {
      items.push_back({nullptr, static_cast<int>(c), column_names_[c], stmt_loc});
    }
  }
  if (items.empty()) return Fail(stmt_loc, ErrorKind::kInvalidInput, "SELECT needs a column");

  auto bind_item = [&](const Item& it, Scope scope) -> Result<ExprPtr> {
    if (it.node) return BindExpr(*it.node, scope);
    if (scope == Scope::kAggregate) {
      // A * column in an aggregate query must be a group key.
      ast::Expr ref;
      ref.kind = Kind::kColumnRef;
      ref.names = {column_names_[it.column]};
      if (relations && !column_relations_[it.column].empty()) {
        ref.names.insert(ref.names.begin(), column_relations_[it.column]);
      }
      ref.location = it.loc;
      return BindExpr(ref, scope);
    }
    if (relations) {
      return ResolveColumn(column_names_[it.column], it.loc, column_relations_[it.column]);
    }
    return ResolveColumn(column_names_[it.column], it.loc);
  };

  // Relations mode: only the conjuncts no relation or join took, each bound as it stands (a
  // clone would lose the values its subqueries were joined for).
  std::vector<const ast::Expr*> where_conjuncts;
  if (relations) {
    where_conjuncts = outer_where_;
  } else if (s.where) {
    where_conjuncts.push_back(s.where.get());
  }
  for (const ast::Expr* w : where_conjuncts) {
    if (w->has_aggregate) {
      return Fail(w->location, ErrorKind::kInvalidInput,
                  "aggregate functions are not allowed in WHERE");
    }
    FLOE_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(*w, Scope::kInput));
    if (cond->type.id != columnar::TypeId::kBool && cond->type.id != columnar::TypeId::kNull) {
      return Fail(
          w->location, ErrorKind::kInvalidInput,
          fmt::format("type mismatch: WHERE must be boolean, got {}", cond->type.ToString()));
    }
    if (plan_.where) {
      FLOE_ASSIGN_OR_RETURN(cond, Call(Fn::kAnd, {plan_.where, cond}, w->location));
    }
    plan_.where = std::move(cond);
  }

  bool has_group = !s.group_by.empty();
  bool has_agg = s.having != nullptr;
  for (const auto& it : items) has_agg = has_agg || (it.node && it.node->has_aggregate);
  for (const auto& sb : s.order_by) has_agg = has_agg || sb.expr->has_aggregate;
  if (distinct && (has_group || has_agg)) {
    return Unsupported(stmt_loc, "DISTINCT together with GROUP BY or aggregates");
  }
  plan_.aggregate = has_group || has_agg || distinct;
  Scope out_scope = plan_.aggregate ? Scope::kAggregate : Scope::kInput;

  std::vector<int> key_of_item;  // each GROUP BY item's index among plan_.group_keys
  for (const auto& gp : s.group_by) {
    const ast::Expr& g = *gp;
    int loc = g.location;
    ExprPtr key;
    if (g.kind == Kind::kConst && g.constant.kind == ast::Const::Kind::kInteger) {
      int64_t n = g.constant.integer;
      if (n < 1 || n > static_cast<int64_t>(items.size())) {
        return Fail(loc, ErrorKind::kInvalidInput,
                    fmt::format("GROUP BY position {} is not in the select list", n));
      }
      const Item& it = items[n - 1];
      if (it.node && it.node->has_aggregate) {
        return Fail(loc, ErrorKind::kInvalidInput, "GROUP BY cannot refer to an aggregate");
      }
      FLOE_ASSIGN_OR_RETURN(key, bind_item(it, Scope::kInput));
    } else if (g.kind == Kind::kColumnRef) {
      std::string name = LastPart(g.names);
      auto direct = BindExpr(g, Scope::kInput);
      if (direct) {
        key = *direct;
      } else {
        const Item* alias = nullptr;
        for (const auto& it : items) {
          if (it.name == name && it.node) alias = &it;
        }
        if (!alias) return std::unexpected(direct.error());
        FLOE_ASSIGN_OR_RETURN(key, bind_item(*alias, Scope::kInput));
      }
    } else {
      if (g.has_aggregate) {
        return Fail(loc, ErrorKind::kInvalidInput, "GROUP BY cannot contain aggregates");
      }
      FLOE_ASSIGN_OR_RETURN(key, BindExpr(g, Scope::kInput));
    }
    std::string fp = key->ToString();
    auto known = std::find(aggregate_keys_.begin(), aggregate_keys_.end(), fp);
    key_of_item.push_back(static_cast<int>(known - aggregate_keys_.begin()));
    if (known == aggregate_keys_.end()) {
      aggregate_keys_.push_back(fp);
      plan_.group_keys.push_back(key);
    }
  }
  for (const auto& set : s.grouping_sets) {
    std::vector<int> keys;
    for (size_t item : set) {
      const int k = key_of_item[item];
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
    plan_.grouping_sets.push_back(std::move(keys));
  }

  if (distinct) {
    for (const auto& it : items) {
      FLOE_ASSIGN_OR_RETURN(ExprPtr key, bind_item(it, Scope::kInput));
      std::string fp = key->ToString();
      if (std::find(aggregate_keys_.begin(), aggregate_keys_.end(), fp) == aggregate_keys_.end()) {
        aggregate_keys_.push_back(fp);
        plan_.group_keys.push_back(key);
      }
    }
  }

  windows_allowed_ = true;
  for (const auto& it : items) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, bind_item(it, out_scope));
    plan_.outputs.push_back(std::move(e));
    plan_.names.push_back(it.name);
  }
  windows_allowed_ = false;
  // Aggregates register while binding; keys come first in the aggregate output, so every
  // aggregate reference was numbered after the final key count (keys are all bound above).
  if (s.having) {
    if (!plan_.aggregate) plan_.aggregate = true;
    FLOE_ASSIGN_OR_RETURN(plan_.having, BindExpr(*s.having, Scope::kAggregate));
    if (plan_.having->type.id != columnar::TypeId::kBool) {
      return Fail(s.having->location, ErrorKind::kInvalidInput,
                  "type mismatch: HAVING must be boolean");
    }
  }

  if (s.qualify) {
    // QUALIFY filters after the window functions; a bare name no column has is a select-list
    // alias, standing for its item (as DuckDB reads it).
    ast::ExprPtr q = CloneExpr(*s.qualify);
    // Returns whether `e` now holds an aggregate (an item's may), marking the nodes above it.
    std::function<bool(ast::ExprPtr&)> aliases = [&](ast::ExprPtr& e) -> bool {
      if (!e) return false;
      if (e->kind == Kind::kColumnRef && !e->star && e->names.size() == 1 && !Knows(e->names)) {
        for (const Item& it : items) {
          if (it.node != nullptr && it.name == e->names[0]) {
            e = CloneExpr(*it.node);
            return e->has_aggregate;
          }
        }
      }
      if (e->kind == Kind::kSubquery) return e->has_aggregate;
      bool any = false;
      for (auto& a : e->args) any = aliases(a) || any;
      for (auto& arm : e->arms) {
        any = aliases(arm.when) || any;
        any = aliases(arm.then) || any;
      }
      for (ast::ExprPtr* x : {&e->left, &e->right, &e->subject, &e->otherwise}) {
        any = aliases(*x) || any;
      }
      if (e->over) {
        // A window's PARTITION BY and ORDER BY (`rank() OVER (ORDER BY total)`), in a copy.
        auto over = std::make_shared<ast::WindowDef>();
        for (const auto& p : e->over->partition) over->partition.push_back(CloneExpr(*p));
        for (const auto& o : e->over->order) over->order.push_back(CloneExpr(*o));
        over->order_descending = e->over->order_descending;
        over->order_nulls_first = e->over->order_nulls_first;
        over->frame_options = e->over->frame_options;
        if (e->over->start_offset) over->start_offset = CloneExpr(*e->over->start_offset);
        if (e->over->end_offset) over->end_offset = CloneExpr(*e->over->end_offset);
        over->location = e->over->location;
        for (auto& p : over->partition) any = aliases(p) || any;
        for (auto& o : over->order) any = aliases(o) || any;
        e->over = std::move(over);
      }
      e->has_aggregate = e->has_aggregate || any;
      return e->has_aggregate;
    };
    aliases(q);
    windows_allowed_ = true;
    auto bound = BindExpr(*q, out_scope);
    windows_allowed_ = false;
    FLOE_ASSIGN_OR_RETURN(plan_.qualify, std::move(bound));
    owned_.push_back(std::move(q));
    if (plan_.qualify->type.id != columnar::TypeId::kBool &&
        plan_.qualify->type.id != columnar::TypeId::kNull) {
      return Fail(s.qualify->location, ErrorKind::kInvalidInput,
                  "type mismatch: QUALIFY must be boolean");
    }
    if (plan_.windows.empty()) {
      return Fail(s.qualify->location, ErrorKind::kInvalidInput,
                  "QUALIFY needs a window function in the select list or in QUALIFY");
    }
  }

  for (const auto& sb : s.order_by) {
    const ast::Expr& node = *sb.expr;
    int loc = node.location;
    exec::SortKey key;
    key.descending = sb.descending;
    key.nulls_first = sb.nulls_first;
    if (sb.using_op) return Unsupported(loc, "ORDER BY ... USING");
    int ref = -1;
    if (node.kind == Kind::kConst && node.constant.kind == ast::Const::Kind::kInteger) {
      int64_t n = node.constant.integer;
      if (n < 1 || n > static_cast<int64_t>(items.size())) {
        return Fail(loc, ErrorKind::kInvalidInput,
                    fmt::format("ORDER BY position {} is not in the select list", n));
      }
      ref = static_cast<int>(n - 1);
    } else if (node.kind == Kind::kColumnRef && node.names.size() == 1) {
      std::string name = LastPart(node.names);
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].name == name) {
          ref = static_cast<int>(i);
          break;
        }
      }
    }
    if (ref < 0) {
      windows_allowed_ = true;
      auto bound = BindExpr(node, out_scope);
      windows_allowed_ = false;
      FLOE_ASSIGN_OR_RETURN(ExprPtr e, std::move(bound));
      std::string fp = e->ToString();
      for (size_t i = 0; i < plan_.outputs.size() && ref < 0; ++i) {
        if (plan_.outputs[i]->ToString() == fp) ref = static_cast<int>(i);
      }
      if (ref < 0) {
        if (distinct) {
          return Fail(loc, ErrorKind::kInvalidInput,
                      "with SELECT DISTINCT, ORDER BY expressions must appear in the select list");
        }
        plan_.hidden.push_back(e);
        ref = static_cast<int>(plan_.outputs.size() + plan_.hidden.size() - 1);
      }
    }
    const ExprPtr& target = ref < static_cast<int>(plan_.outputs.size())
                                ? plan_.outputs[ref]
                                : plan_.hidden[ref - plan_.outputs.size()];
    key.expr = exec::ColumnRef(ref, target->type, "");
    plan_.order.push_back(key);
  }

  if (s.with_ties) {
    return Unsupported(stmt_loc, "FETCH ... WITH TIES");
  }
  if (s.limit) {
    FLOE_ASSIGN_OR_RETURN(plan_.limit, BindCount(*s.limit, "LIMIT"));
  }
  if (s.offset) {
    FLOE_ASSIGN_OR_RETURN(plan_.offset, BindCount(*s.offset, "OFFSET"));
    if (plan_.offset < 0) plan_.offset = 0;
  }

  if (!plan_.windows.empty()) {
    // The windows' columns follow the projection's input: renumber the references to them.
    plan_.window_input_width =
        plan_.aggregate ? static_cast<int>(plan_.group_keys.size() + plan_.aggregates.size())
        : plan_.source == LogicalPlan::Source::kTable
            ? static_cast<int>(plan_.scan_field_ids.size())
        : relations ? static_cast<int>(slot_column_.size())
                    : static_cast<int>(column_names_.size());
    const int width = plan_.window_input_width;
    std::function<ExprPtr(const ExprPtr&)> renumber = [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind == exec::Expr::Kind::kColumn && e->column >= kWindowBase) {
        return exec::ColumnRef(width + e->column - kWindowBase, e->type, e->name);
      }
      if (e->kind != exec::Expr::Kind::kCall) return e;
      auto copy = std::make_shared<exec::Expr>(*e);
      for (auto& a : copy->args) a = renumber(a);
      return copy;
    };
    for (auto& o : plan_.outputs) o = renumber(o);
    for (auto& h : plan_.hidden) h = renumber(h);
    if (plan_.qualify) plan_.qualify = renumber(plan_.qualify);
  }
  if (relations) {
    FLOE_ASSIGN_OR_RETURN(plan_.join, FinishRelations());
    for (int c : slot_column_) plan_.slot_types.push_back(column_types_[c]);
  }
  if (plan_.source == LogicalPlan::Source::kTable && plan_.where) {
    PushedFilter pushed =
        PushableFilter(plan_.where, plan_.table.metadata.CurrentSchema(), plan_.scan_field_ids);
    plan_.pushed_filter = pushed.filter;
    plan_.residual_where = pushed.residual;
    // Columns only the pushed filter reads: the scan filters on them but need not hand them out.
    std::set<int> used;
    std::function<void(const exec::ExprPtr&)> walk = [&](const exec::ExprPtr& e) {
      if (!e) return;
      if (e->kind == exec::Expr::Kind::kColumn) used.insert(e->column);
      for (const auto& a : e->args) walk(a);
    };
    walk(plan_.residual_where);
    for (const auto& k : plan_.group_keys) walk(k);
    for (const auto& a : plan_.aggregates) {
      walk(a.arg);
      walk(a.arg2);
      walk(a.filter);
      for (const auto& o : a.order) walk(o);
    }
    if (!plan_.aggregate) {
      for (const auto& o : plan_.outputs) walk(o);
      for (const auto& h : plan_.hidden) walk(h);
      for (const auto& w : plan_.windows) {
        for (const auto& a : w.args) walk(a);
        for (const auto& p : w.partition) walk(p);
        for (const auto& k : w.order) walk(k.expr);
      }
    }
    for (size_t i = 0; i < plan_.scan_field_ids.size(); ++i) {
      if (!used.count(static_cast<int>(i)))
        plan_.scan_unused_ids.push_back(plan_.scan_field_ids[i]);
    }
  } else {
    plan_.residual_where = plan_.where;
  }
  return std::move(plan_);
}

bool TableResolver::IsVirtual(const std::vector<std::string>& names) const {
  if (names.size() == 3 && is_metadata_table && is_metadata_table(names[2])) return true;
  return names.size() == 2 && internal::Lower(names[0]) == "information_schema" &&
         static_cast<bool>(read_information_schema);
}

Result<LogicalPlan> BindSelect(const ParsedStatement& statement, const TableResolver& resolver) {
  FLOE_ASSIGN_OR_RETURN(ast::Select select, TransformSelect(statement));
  return BindSelect(statement, select, resolver);
}

Result<LogicalPlan> BindSelect(const ParsedStatement& statement, const ast::Select& select,
                               const TableResolver& resolver) {
  Binder b(statement, resolver);
  return b.Bind(select);
}

Result<exec::ExprPtr> BindScalar(const ParsedStatement& statement, const ast::Expr& expr,
                                 const std::vector<RelationColumn>& columns,
                                 const std::string& what) {
  static const TableResolver kNoTables;
  Binder b(statement, kNoTables, columns, what);
  return b.BindScalar(expr);
}

namespace internal {

bool IsAggregateName(std::string_view name) {
  for (const AggregateName& a : kAggregateNames) {
    if (a.name == name) return true;
  }
  return false;
}

}  // namespace internal

}  // namespace floe::sql
