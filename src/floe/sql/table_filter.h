// BindTableFilter: a SQL WHERE condition over one table as the Iceberg filter that scan planning
// and rewrites select files with -- bound exactly as the condition of `SELECT * FROM table WHERE
// ...` is, so the CLI's --where flags share SQL's grammar. A condition the filter cannot carry
// exactly is an error rather than a silently wider selection. Thread-safe.
#pragma once

#include <string_view>

#include "floe/base/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/table.h"

namespace floe::sql {

// The filter of `where` over `table`'s current schema (True() for a condition that is always
// true). Errors read "'<where>': at column N: <what is wrong>" (N counted in `where`).
Result<iceberg::ExprPtr> BindTableFilter(std::string_view where, const iceberg::Table& table);

}  // namespace floe::sql
