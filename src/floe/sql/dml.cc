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
#include "floe/sql/dml_target.h"
#include "floe/sql/plan_runner.h"
#include "floe/sql/transform.h"

namespace floe::sql {

namespace {

namespace c = columnar;
using iceberg::RowLevelOperation;
using internal::AddReplaced;
using internal::BindRowScan;
using internal::CastForColumn;
using internal::Item;
using internal::NameRef;
using internal::NullConst;
using internal::ResolveAssignments;
using internal::RowLevelSummary;
using internal::SetsColumnsInPlace;
using internal::TargetColumns;
using internal::ToTableRows;

// Runs the scan and gathers its rows: `_file`, `_pos` and the rest.
struct ScannedRows {
  std::map<std::string, std::vector<int64_t>> positions;  // data file -> positions
  std::vector<c::RecordBatch> rest;                       // the other outputs, per batch
  std::vector<c::RecordBatch> keys;                       // `_file` and `_pos`, per batch
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
      out.keys.push_back({nullptr, {b.columns[0], b.columns[1]}, b.num_rows});
    }
    return {};
  };
  FLOE_ASSIGN_OR_RETURN(QueryResult r, RunPlan(plan, wh, o));
  out.stats = r.stats;
  return out;
}

}  // namespace

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
  // Copy-on-write rows that may be set in place carry the set columns only (the rewrite copies
  // the others: in_place_rewrite.h); else whole rows.
  std::vector<bool> sets(target.names.size());
  for (size_t i = 0; i < sets.size(); ++i) sets[i] = assigned.contains(target.names[i]);
  const bool partial =
      SetsColumnsInPlace(probe.table.metadata, RowLevelOperation::kUpdate, target, sets);
  std::vector<size_t> columns;  // of the target, those the new rows carry
  for (size_t i = 0; i < target.names.size(); ++i) {
    if (!partial || sets[i]) columns.push_back(i);
  }
  const TargetColumns written = partial ? target.Only(columns) : target;
  auto location_of = [&](size_t j) {
    auto a = assigned.find(target.names[columns[j]]);
    return a != assigned.end() ? a->second->location : u.target.location;
  };
  std::vector<ast::SelectItem> items;
  for (size_t i : columns) {
    const std::string& name = target.names[i];
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
  if (written.lineage) items.push_back(Item(NameRef("_row_id", u.target.location), "_row_id"));
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindRowScan(st, u.target, std::move(items),
                                                      std::move(u.where), resolver, "UPDATE"));
  // Each new value cast to its column's type: a value that does not fit is an error at its SET.
  for (size_t j = 0; j < columns.size(); ++j) {
    FLOE_ASSIGN_OR_RETURN(plan.outputs[j + 2], CastForColumn(st, plan.outputs[j + 2], target,
                                                             columns[j], location_of(j)));
  }
  FLOE_ASSIGN_OR_RETURN(ScannedRows rows, ScanRows(plan, wh, options));
  // The new rows in the table's own types.
  iceberg::RowLevelChange change;
  int64_t updated = 0;
  for (size_t k = 0; k < rows.rest.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch typed,
                          ToTableRows(st, std::move(rows.rest[k]), written, location_of));
    updated += typed.num_rows;
    if (!partial) {
      change.new_rows.push_back(std::move(typed));
      continue;
    }
    std::vector<int64_t> at(static_cast<size_t>(typed.num_rows));
    for (size_t r = 0; r < at.size(); ++r) at[r] = static_cast<int64_t>(r);
    FLOE_RETURN_IF_ERROR(AddReplaced(*rows.keys[k].columns[0], *rows.keys[k].columns[1], at,
                                     std::move(typed), &change.replaced));
  }
  if (partial) {
    for (size_t i : columns) change.partial_columns.push_back(target.schema->fields()[i].id);
  }
  change.operation = RowLevelOperation::kUpdate;
  change.snapshot_id = plan.table.metadata.current_snapshot_id;
  change.filter = plan.pushed_filter;
  change.deleted = std::move(rows.positions);
  FLOE_ASSIGN_OR_RETURN(
      iceberg::RowLevelResult r,
      iceberg::CommitRowLevelChange(*wh.catalog, *wh.io, plan.table, change, &rows.stats));
  return RowLevelSummary(RowLevelOperation::kUpdate, r, 0, updated, 0, rows.stats);
}

}  // namespace floe::sql
