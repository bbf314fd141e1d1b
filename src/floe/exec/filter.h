// Filter: keeps the rows of a batch for which a boolean expression is true (NULL counts as false,
// as in SQL WHERE and HAVING). Pure; safe to call from many threads on different batches.
#pragma once

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"

namespace floe::exec {

Result<columnar::RecordBatch> Filter(const columnar::RecordBatch& batch, const Expr& predicate);

// The batch of `exprs` evaluated over `batch`, named `names` (a projection).
Result<columnar::RecordBatch> Project(const columnar::RecordBatch& batch,
                                      const std::vector<ExprPtr>& exprs,
                                      const std::vector<std::string>& names);

}  // namespace floe::exec
