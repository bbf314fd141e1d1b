// Binder: a parsed SELECT (libpg_query's tree) to a LogicalPlan -- names resolved against the
// table's schema, types checked, aggregates and GROUP BY keys matched, ORDER BY ordinals and
// aliases resolved, and the WHERE conjuncts that scan planning can prune with converted to an
// Iceberg filter. Anything outside the supported subset is an unsupported error naming the
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

// A bound predicate (over scan columns `field_ids` of `schema`) split for the scan.
struct PushedFilter {
  // What Iceberg pruning and the scan's row filter evaluate: every matching row satisfies it (it
  // may let more rows through). Null: nothing pushable.
  iceberg::ExprPtr filter;
  // The conjuncts the scan's row filter does not decide exactly as SQL would, still to be applied
  // to the scanned rows. Null: the scan's rows are exactly the predicate's.
  exec::ExprPtr residual;
};
PushedFilter PushableFilter(const exec::ExprPtr& predicate, const iceberg::Schema& schema,
                            const std::vector<int32_t>& field_ids);

}  // namespace floe::sql
