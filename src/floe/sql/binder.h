// Binder: a parsed SELECT to a LogicalPlan. TransformSelect (transform.h) first turns
// libpg_query's tree into floe's typed AST (ast.h); binding then resolves names against the
// table's schema, checks types (exec's MakeCall), matches aggregates and GROUP BY keys, resolves
// ORDER BY ordinals and aliases, and hands the WHERE conjuncts that scan planning can prune with to
// pushdown (pushdown.h). Anything outside the supported subset is an unsupported error naming the
// construct and its line and column.
#pragma once

#include <functional>
#include <string_view>

#include "floe/base/result.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/parser.h"

namespace floe::sql {

struct TableResolver {
  std::function<Result<iceberg::Table>(const catalog::TableIdentifier&)> load;
  std::function<bool(std::string_view)> is_metadata_table;
  std::function<Result<columnar::RecordBatch>(const iceberg::Table&, std::string_view)>
      read_metadata_table;
  // Rows of a table function in FROM (floe_settings()); unset: table functions are unsupported.
  std::function<Result<columnar::RecordBatch>(std::string_view)> table_function;
};

Result<LogicalPlan> BindSelect(const ParsedStatement& statement, const TableResolver& resolver);

}  // namespace floe::sql
