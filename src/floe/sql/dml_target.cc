#include "floe/sql/dml_target.h"

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/exec/value.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/row_order.h"
#include "floe/sql/bind_internal.h"

namespace floe::sql::internal {

namespace c = columnar;
using iceberg::RowLevelOperation;

ast::ExprPtr NameRef(const std::string& name, int location) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::Expr::Kind::kColumnRef;
  e->names = {name};
  e->location = location;
  return e;
}

ast::SelectItem Item(ast::ExprPtr expr, std::string name) {
  ast::SelectItem item;
  item.location = expr->location;
  item.expr = std::move(expr);
  item.name = std::move(name);
  return item;
}

ast::ExprPtr NullConst(int location) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::Expr::Kind::kConst;
  e->constant.kind = ast::Const::Kind::kNull;
  e->location = location;
  return e;
}

Result<LogicalPlan> BindRowScan(const ParsedStatement& st, const ast::TableRef& target,
                                std::vector<ast::SelectItem> extra, ast::ExprPtr where,
                                const TableResolver& resolver, const char* what) {
  if (target.kind != ast::TableRef::Kind::kTable || resolver.IsVirtual(target.names)) {
    return FailAt(st.text, target.location, ErrorKind::kInvalidInput,
                  fmt::format("{} needs an Iceberg table; a metadata table or table function "
                              "cannot be changed",
                              what));
  }
  ast::Select select;
  select.from = target;
  select.items.push_back(Item(NameRef("_file", target.location), "_file"));
  select.items.push_back(Item(NameRef("_pos", target.location), "_pos"));
  for (auto& item : extra) select.items.push_back(std::move(item));
  select.where = std::move(where);
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindSelect(st, select, resolver));
  if (plan.source != LogicalPlan::Source::kTable) {
    return Internal("{} of '{}' bound no table scan", what, st.text);
  }
  if (!st.time_travel.empty()) {
    return FailAt(st.text, st.time_travel[0].offset, ErrorKind::kInvalidInput,
                  fmt::format("{} changes the current snapshot; it cannot time travel", what));
  }
  auto reads = [&](size_t output, int32_t field_id) {
    const exec::ExprPtr& e = plan.outputs[output];
    return e->kind == exec::Expr::Kind::kColumn && e->column >= 0 &&
           static_cast<size_t>(e->column) < plan.scan_field_ids.size() &&
           plan.scan_field_ids[static_cast<size_t>(e->column)] == field_id;
  };
  if (!reads(0, iceberg::kFilePathFieldId) || !reads(1, iceberg::kRowPositionFieldId)) {
    return FailAt(st.text, target.location, ErrorKind::kUnsupported,
                  fmt::format("{} of a table with a column named _file or _pos", what));
  }
  return plan;
}

QueryResult RowLevelSummary(RowLevelOperation op, const iceberg::RowLevelResult& r, int64_t deleted,
                            int64_t updated, int64_t inserted, const ScanMetrics& stats) {
  QueryResult out;
  auto schema = std::make_shared<c::Schema>();
  c::RecordBatch row;
  row.num_rows = 1;
  for (auto [name, value] : std::initializer_list<std::pair<const char*, int64_t>>{
           {"num_affected_rows", deleted + updated + inserted},
           {"num_deleted_rows", deleted},
           {"num_updated_rows", updated},
           {"num_inserted_rows", inserted}}) {
    c::FixedWidthBuilder<int64_t> b(c::Int64());
    b.Append(value);
    row.columns.push_back(b.Finish());
    schema->fields.push_back({name, c::Int64(), false});
  }
  row.schema = schema;
  out.schema = schema;
  out.batches.push_back(std::move(row));
  out.stats = stats;
  const char* mode =
      r.mode == iceberg::RowLevelMode::kCopyOnWrite ? "copy-on-write" : "merge-on-read";
  if (!r.snapshot_id) {
    out.message =
        fmt::format("{}: no rows matched; nothing was committed", iceberg::OperationName(op));
  } else {
    const std::string in_place =
        r.files_rewritten_in_place > 0
            ? fmt::format(" ({} rewritten in place, their unchanged columns copied)",
                          r.files_rewritten_in_place)
            : std::string();
    out.message = fmt::format(
        "{} ({}): {} data files added{}, {} removed; {} delete files added, {} removed; "
        "snapshot {}",
        iceberg::OperationName(op), mode, r.data_files_added, in_place, r.data_files_removed,
        r.delete_files_added, r.delete_files_removed, *r.snapshot_id);
  }
  return out;
}

c::DataType AssignmentType(const c::DataType& column) {
  return exec::IsNarrowInteger(column) ? column : exec::NormalizedType(column);
}

Result<TargetColumns> TargetColumns::Of(const ParsedStatement& st, const iceberg::TableMetadata& m,
                                        bool updates, int location, const char* what) {
  TargetColumns t;
  t.schema = &m.CurrentSchema();
  t.lineage = m.format_version >= 3;
  for (const auto& field : t.schema->fields()) {
    FLOE_ASSIGN_OR_RETURN(c::DataType type, iceberg::ToColumnarType(*field.type));
    if (updates && type.id == c::TypeId::kTimestamp && type.unit == c::TimeUnit::kNano) {
      return FailAt(st.text, location, ErrorKind::kUnsupported,
                    fmt::format("{} of a table with a nanosecond timestamp column ('{}'): its "
                                "values would lose their nanoseconds",
                                what, field.name));
    }
    t.names.push_back(field.name);
    t.types.push_back(std::move(type));
  }
  return t;
}

Result<std::map<std::string, ast::Assignment*>> ResolveAssignments(
    const ParsedStatement& st, const TargetColumns& target, std::vector<ast::Assignment>& set,
    const std::string& table) {
  std::map<std::string, ast::Assignment*> assigned;
  for (ast::Assignment& a : set) {
    const std::string* name = nullptr;
    for (const std::string& n : target.names) {
      if (Lower(n) == Lower(a.column)) name = &n;
    }
    if (name == nullptr) {
      return FailAt(st.text, a.location, ErrorKind::kNotFound,
                    fmt::format("column '{}' not found in {}", a.column, table));
    }
    if (!assigned.emplace(*name, &a).second) {
      return FailAt(st.text, a.location, ErrorKind::kInvalidInput,
                    fmt::format("column '{}' is assigned more than once", *name));
    }
  }
  return assigned;
}

Result<exec::ExprPtr> CastForColumn(const ParsedStatement& st, exec::ExprPtr value,
                                    const TargetColumns& target, size_t i, int location) {
  const c::DataType& t = target.types[i];
  if (value->type == exec::NormalizedType(t)) return value;
  auto cast = exec::MakeCast(value, AssignmentType(t));
  if (!cast) {
    return FailAt(st.text, location, ErrorKind::kInvalidInput,
                  fmt::format("column '{}' is {}: {}", target.names[i],
                              target.schema->fields()[i].type->ToString(), cast.error().message));
  }
  return std::move(*cast);
}

TargetColumns TargetColumns::Only(const std::vector<size_t>& columns) const {
  TargetColumns out;
  std::vector<iceberg::NestedField> fields;
  for (size_t i : columns) {
    fields.push_back(schema->fields()[i]);
    out.names.push_back(names[i]);
    out.types.push_back(types[i]);
  }
  out.owned_ = std::make_shared<const iceberg::Schema>(schema->schema_id(), std::move(fields));
  out.schema = out.owned_.get();
  return out;
}

Status AddReplaced(const c::Column& files, const c::Column& positions,
                   const std::vector<int64_t>& at, c::RecordBatch rows,
                   std::map<std::string, iceberg::RowLevelChange::Replaced>* out) {
  std::map<std::string_view, std::vector<int64_t>> by_file;
  for (size_t k = 0; k < at.size(); ++k) {
    by_file[files.BytesAt(at[k])].push_back(static_cast<int64_t>(k));
  }
  const bool one_file = by_file.size() == 1;
  for (const auto& [path, ks] : by_file) {
    iceberg::RowLevelChange::Replaced& r = (*out)[std::string(path)];
    for (int64_t k : ks)
      r.positions.push_back(positions.Value<int64_t>(at[static_cast<size_t>(k)]));
    if (one_file) {
      r.rows.push_back(std::move(rows));
      return {};
    }
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch part, c::Take(rows, ks));
    r.rows.push_back(std::move(part));
  }
  return {};
}

bool SetsColumnsInPlace(const iceberg::TableMetadata& m, iceberg::RowLevelOperation operation,
                        const TargetColumns& target, const std::vector<bool>& sets) {
  auto policy = iceberg::PolicyFor(m, "", operation);
  if (!policy || policy->mode != iceberg::RowLevelMode::kCopyOnWrite || m.format_version >= 3 ||
      target.lineage || m.properties.contains(std::string(iceberg::kLayoutProperty))) {
    return false;
  }
  for (size_t i = 0; i < sets.size() && i < target.schema->fields().size(); ++i) {
    if (!sets[i]) continue;
    const int32_t id = target.schema->fields()[i].id;
    for (const auto& f : m.DefaultSpec().fields()) {
      if (f.source_id == id) return false;
    }
    for (const iceberg::SortField& f : m.DefaultSortOrder().fields()) {
      if (f.source_id == id) return false;
    }
  }
  return true;
}

Result<c::RecordBatch> ToTableRows(const ParsedStatement& st, c::RecordBatch b,
                                   const TargetColumns& target,
                                   const std::function<int(size_t)>& location_of) {
  auto s = std::make_shared<c::Schema>();
  for (size_t i = 0; i < target.names.size(); ++i) {
    auto column = exec::DenormalizeColumn(b.columns[i], target.types[i]);
    if (!column) {
      return FailAt(
          st.text, location_of(i), column.error().kind,
          fmt::format("column '{}' is {}: {}", target.names[i],
                      target.schema->fields()[i].type->ToString(), column.error().message));
    }
    b.columns[i] = std::move(*column);
    s->fields.push_back({target.names[i], target.types[i], true});
  }
  if (target.lineage) s->fields.push_back({"_row_id", c::Int64(), true});
  b.columns.resize(s->fields.size());
  b.schema = std::move(s);
  return b;
}

}  // namespace floe::sql::internal
