// The target of a row-level statement, as DELETE, UPDATE (dml.cc) and MERGE INTO (merge.cc) share
// it: the scan that finds the rows a statement changes (with their `_file` and `_pos`), the
// target's columns as a write types them, SET assignments, and the statement's one-row answer.
// Internal to the sql module.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/iceberg/row_level_change.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/sql/ast.h"
#include "floe/sql/binder.h"
#include "floe/sql/parser.h"
#include "floe/sql/query.h"

namespace floe::sql::internal {

// A column reference / select item / NULL constant made by the statement, not written by the user.
ast::ExprPtr NameRef(const std::string& name, int location);
ast::SelectItem Item(ast::ExprPtr expr, std::string name);
ast::ExprPtr NullConst(int location);

// `SELECT _file, _pos, <extra...> FROM target WHERE <where>`, bound: the scan that finds a
// statement's rows (`what`: "DELETE", ... for errors). A metadata table, a table function or time
// travel is an error at its position; so is a table whose own columns hide `_file` or `_pos`.
Result<LogicalPlan> BindRowScan(const ParsedStatement& st, const ast::TableRef& target,
                                std::vector<ast::SelectItem> extra, ast::ExprPtr where,
                                const TableResolver& resolver, const char* what);

// The target table's columns in schema order, typed as a write takes them (ToColumnarType), and
// whether rows carry `_row_id` after them (format v3).
struct TargetColumns {
  const iceberg::Schema* schema = nullptr;  // the metadata's current schema
  std::vector<std::string> names;
  std::vector<columnar::DataType> types;
  bool lineage = false;
  // `updates`: the statement rewrites whole rows (UPDATE, MERGE), which a nanosecond timestamp
  // column cannot survive yet (an unsupported error at `location`).
  static Result<TargetColumns> Of(const ParsedStatement& st, const iceberg::TableMetadata& m,
                                  bool updates, int location, const char* what);
  // These columns only (indexes, ascending), as rows that hold some columns have them; no
  // lineage.
  TargetColumns Only(const std::vector<size_t>& columns) const;

 private:
  std::shared_ptr<const iceberg::Schema> owned_;  // Only's schema
};

// Adds changed rows that take the places of rows a scan read to `out`, by data file: row k of
// `rows` replaces the row at `files`[at[k]], `positions`[at[k]] (a scan's `_file` and `_pos`).
Status AddReplaced(const columnar::Column& files, const columnar::Column& positions,
                   const std::vector<int64_t>& at, columnar::RecordBatch rows,
                   std::map<std::string, iceberg::RowLevelChange::Replaced>* out);

// Whether an `operation` that sets the target columns flagged in `sets` may give its changed rows
// with some columns only (iceberg::RowLevelChange::partial_columns): the table rewrites rows
// copy-on-write, has no row lineage and no floe.layout, and no set column is a partition source
// or a sort key (a set row would move, or its file be unsorted).
bool SetsColumnsInPlace(const iceberg::TableMetadata& m, iceberg::RowLevelOperation operation,
                        const TargetColumns& target, const std::vector<bool>& sets);

// SET assignments, each to a column of the target (case-insensitive): column name -> assignment.
// An unknown or twice-assigned column is an error at its SET.
Result<std::map<std::string, ast::Assignment*>> ResolveAssignments(
    const ParsedStatement& st, const TargetColumns& target, std::vector<ast::Assignment>& set,
    const std::string& table);

// The type an assigned value is cast to: the column's, normalised (narrow integers keep their
// type so that the cast checks the range).
columnar::DataType AssignmentType(const columnar::DataType& column);
// `value` cast for column `i` of the target; a type that cannot be cast is an error at `location`.
Result<exec::ExprPtr> CastForColumn(const ParsedStatement& st, exec::ExprPtr value,
                                    const TargetColumns& target, size_t i, int location);
// A batch of the target's columns in order (normalised, as exec computed them; then `_row_id` in
// v3) in the table's own types, named; a value that does not fit (an int out of range) is an error
// at `location_of(column)`.
Result<columnar::RecordBatch> ToTableRows(const ParsedStatement& st, columnar::RecordBatch b,
                                          const TargetColumns& target,
                                          const std::function<int(size_t)>& location_of);

// The statement's one result row (num_affected_rows, num_deleted_rows, num_updated_rows,
// num_inserted_rows) and a line saying what was committed.
QueryResult RowLevelSummary(iceberg::RowLevelOperation op, const iceberg::RowLevelResult& r,
                            int64_t deleted, int64_t updated, int64_t inserted,
                            const ScanMetrics& stats);

}  // namespace floe::sql::internal
