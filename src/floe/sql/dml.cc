#include "floe/sql/dml.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/exec/value.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/row_level_change.h"
#include "floe/sql/bind_internal.h"
#include "floe/sql/dml_internal.h"
#include "floe/sql/merge.h"
#include "floe/sql/plan_runner.h"
#include "floe/sql/transform.h"

namespace floe::sql {

namespace internal {

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
  if (target.kind != ast::TableRef::Kind::kTable ||
      (target.names.size() == 3 && resolver.is_metadata_table &&
       resolver.is_metadata_table(target.names[2]))) {
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
    out.message = fmt::format(
        "{} ({}): {} data files added, {} removed; {} delete files added, {} removed; "
        "snapshot {}",
        iceberg::OperationName(op), mode, r.data_files_added, r.data_files_removed,
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

}  // namespace internal

namespace {

namespace c = columnar;
using iceberg::RowLevelOperation;
using internal::BindRowScan;
using internal::CastForColumn;
using internal::Item;
using internal::NameRef;
using internal::NullConst;
using internal::ResolveAssignments;
using internal::RowLevelSummary;
using internal::TargetColumns;
using internal::ToTableRows;

// Runs the scan and gathers its rows: `_file`, `_pos` and the rest.
struct ScannedRows {
  std::map<std::string, std::vector<int64_t>> positions;  // data file -> positions
  std::vector<c::RecordBatch> rest;                       // the other outputs, per batch
  ScanMetrics stats;
};

Result<ScannedRows> ScanRows(const LogicalPlan& plan, iceberg::Warehouse& wh,
                             const QueryOptions& options) {
  ScannedRows out;
  QueryOptions o = options;
  o.sink = [&](const c::RecordBatch& b) -> Status {
    const c::Column& files = *b.columns[0];
    const c::Column& positions = *b.columns[1];
    std::vector<int64_t>* at = nullptr;
    std::string_view current;
    for (int64_t r = 0; r < b.num_rows; ++r) {
      const std::string_view f = files.BytesAt(r);
      if (at == nullptr || f != current) {
        at = &out.positions[std::string(f)];
        current = f;
      }
      at->push_back(positions.Value<int64_t>(r));
    }
    if (b.columns.size() > 2) {
      c::RecordBatch rest;
      rest.num_rows = b.num_rows;
      auto schema = std::make_shared<c::Schema>();
      for (size_t i = 2; i < b.columns.size(); ++i) {
        rest.columns.push_back(b.columns[i]);
        schema->fields.push_back(b.schema->fields[i]);
      }
      rest.schema = std::move(schema);
      out.rest.push_back(std::move(rest));
    }
    return {};
  };
  FLOE_ASSIGN_OR_RETURN(QueryResult r, RunPlan(plan, wh, o));
  out.stats = r.stats;
  return out;
}

Result<QueryResult> RunDelete(const ParsedStatement& st, const TableResolver& resolver,
                              iceberg::Warehouse& wh, const QueryOptions& options) {
  FLOE_ASSIGN_OR_RETURN(ast::Delete d, TransformDelete(st));
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan,
                        BindRowScan(st, d.target, {}, std::move(d.where), resolver, "DELETE"));
  FLOE_ASSIGN_OR_RETURN(ScannedRows rows, ScanRows(plan, wh, options));
  iceberg::RowLevelChange change;
  change.operation = RowLevelOperation::kDelete;
  change.snapshot_id = plan.table.metadata.current_snapshot_id;
  change.filter = plan.pushed_filter;
  change.deleted = std::move(rows.positions);
  FLOE_ASSIGN_OR_RETURN(
      iceberg::RowLevelResult r,
      iceberg::CommitRowLevelChange(*wh.catalog, *wh.io, plan.table, change, &rows.stats));
  return RowLevelSummary(RowLevelOperation::kDelete, r, r.rows_removed, 0, 0, rows.stats);
}

Result<QueryResult> RunUpdate(const ParsedStatement& st, const TableResolver& resolver,
                              iceberg::Warehouse& wh, const QueryOptions& options) {
  FLOE_ASSIGN_OR_RETURN(ast::Update u, TransformUpdate(st));
  // The table's columns first (the statement names them), then the scan that computes each
  // matching row's new values.
  FLOE_ASSIGN_OR_RETURN(LogicalPlan probe,
                        BindRowScan(st, u.target, {}, nullptr, resolver, "UPDATE"));
  FLOE_ASSIGN_OR_RETURN(TargetColumns target, TargetColumns::Of(st, probe.table.metadata, true,
                                                                u.target.location, "UPDATE"));
  FLOE_ASSIGN_OR_RETURN(auto assigned,
                        ResolveAssignments(st, target, u.set, probe.table.id.ToString()));
  auto location_of = [&](size_t i) {
    auto a = assigned.find(target.names[i]);
    return a != assigned.end() ? a->second->location : u.target.location;
  };
  std::vector<ast::SelectItem> items;
  for (const std::string& name : target.names) {
    auto it = assigned.find(name);
    ast::ExprPtr value;
    if (it == assigned.end()) {
      value = NameRef(name, u.target.location);
    } else if (it->second->value) {
      value = std::move(it->second->value);
    } else {
      value = NullConst(it->second->location);  // DEFAULT: NULL (floe has no column defaults)
    }
    items.push_back(Item(std::move(value), name));
  }
  if (target.lineage) items.push_back(Item(NameRef("_row_id", u.target.location), "_row_id"));
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindRowScan(st, u.target, std::move(items),
                                                      std::move(u.where), resolver, "UPDATE"));
  // Each new value cast to its column's type: a value that does not fit is an error at its SET.
  for (size_t i = 0; i < target.names.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(plan.outputs[i + 2],
                          CastForColumn(st, plan.outputs[i + 2], target, i, location_of(i)));
  }
  FLOE_ASSIGN_OR_RETURN(ScannedRows rows, ScanRows(plan, wh, options));
  // The new rows in the table's own types.
  std::vector<c::RecordBatch> new_rows;
  int64_t updated = 0;
  for (c::RecordBatch& b : rows.rest) {
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch typed, ToTableRows(st, std::move(b), target, location_of));
    updated += typed.num_rows;
    new_rows.push_back(std::move(typed));
  }
  iceberg::RowLevelChange change;
  change.operation = RowLevelOperation::kUpdate;
  change.snapshot_id = plan.table.metadata.current_snapshot_id;
  change.filter = plan.pushed_filter;
  change.deleted = std::move(rows.positions);
  change.new_rows = std::move(new_rows);
  FLOE_ASSIGN_OR_RETURN(
      iceberg::RowLevelResult r,
      iceberg::CommitRowLevelChange(*wh.catalog, *wh.io, plan.table, change, &rows.stats));
  return RowLevelSummary(RowLevelOperation::kUpdate, r, 0, updated, 0, rows.stats);
}

}  // namespace

bool IsRowLevelStatement(const std::string& kind) {
  return kind == "DeleteStmt" || kind == "UpdateStmt" || kind == "MergeStmt";
}

Result<QueryResult> RunRowLevelStatement(const ParsedStatement& statement,
                                         const TableResolver& resolver, iceberg::Warehouse& wh,
                                         const QueryOptions& options) {
  if (statement.kind == "DeleteStmt") return RunDelete(statement, resolver, wh, options);
  if (statement.kind == "UpdateStmt") return RunUpdate(statement, resolver, wh, options);
  if (statement.kind == "MergeStmt") return RunMerge(statement, resolver, wh, options);
  return Internal("{} is not a row-level statement", statement.kind);
}

}  // namespace floe::sql
