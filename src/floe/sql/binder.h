// Binder: a parsed SELECT to a LogicalPlan. TransformSelect (transform.h) first turns
// libpg_query's tree into floe's typed AST (ast.h); binding then resolves names against the
// table's schema, checks types (exec's MakeCall), matches aggregates and GROUP BY keys, resolves
// ORDER BY ordinals and aliases, and hands the WHERE conjuncts that scan planning can prune with to
// pushdown (pushdown.h). Anything outside the supported subset is an unsupported error naming the
// construct and its line and column.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/sql/ast.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/parser.h"

namespace floe::sql {

struct TableResolver {
  std::function<Result<iceberg::Table>(const catalog::TableIdentifier&)> load;
  std::function<bool(std::string_view)> is_metadata_table;
  std::function<Result<columnar::RecordBatch>(const iceberg::Table&, std::string_view)>
      read_metadata_table;
  // Rows of a table function in FROM (floe_settings(), read_parquet('f.parquet')), given its
  // constant arguments, positional and named (read_csv('f', delim = '|')); unset: table functions
  // are unsupported.
  std::function<Result<columnar::RecordBatch>(std::string_view, const std::vector<ast::Const>&,
                                              const std::vector<ast::NamedConst>&)>
      table_function;
  // Rows of information_schema.NAME (tables, columns, schemata); unset: there is none.
  std::function<Result<columnar::RecordBatch>(std::string_view)> read_information_schema;
  // current_setting('NAME'): the value a setting has for the statement (as floe_settings()
  // shows it); unset: the function is unknown.
  std::function<Result<std::string>(std::string_view)> current_setting;

  // Whether `names` (a FROM's dotted name) is a metadata table (ns.t.files) or an
  // information_schema view: rows the resolver makes, not a table scan.
  bool IsVirtual(const std::vector<std::string>& names) const;
};

// A column of a relation named in expressions bound outside a SELECT (MERGE's ON, conditions and
// values): `relation` is the name a qualified reference uses (an alias, or the table's name).
struct RelationColumn {
  std::string relation;
  std::string name;
  columnar::DataType type;
};

Result<LogicalPlan> BindSelect(const ParsedStatement& statement, const TableResolver& resolver);
// A SELECT already in AST form, its locations in `statement`'s text: DML statements bind the scans
// that find their rows this way.
Result<LogicalPlan> BindSelect(const ParsedStatement& statement, const ast::Select& select,
                               const TableResolver& resolver);

// One scalar expression (no aggregates) over `columns`: its column references resolve to indexes
// into them -- `r.c` within relation `r`, a bare `c` in the one relation that has it (in two, it is
// an ambiguous-reference error). `what` describes the columns for a not-found error ("the MERGE's
// target and source").
Result<exec::ExprPtr> BindScalar(const ParsedStatement& statement, const ast::Expr& expr,
                                 const std::vector<RelationColumn>& columns,
                                 const std::string& what);

}  // namespace floe::sql
