// RunPlan: a bound LogicalPlan run over a warehouse -- the table scan on its workers (each with
// its own WHERE, partial aggregate or top-N), the workers merged, HAVING, ORDER BY, OFFSET and
// LIMIT -- its rows streamed to the options' sink or returned. What Engine::Execute does after
// binding a SELECT; DML statements run the scans that find their rows through it too.
#pragma once

#include "floe/base/result.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/query.h"

namespace floe::sql {

Result<QueryResult> RunPlan(const LogicalPlan& plan, iceberg::Warehouse& wh,
                            const QueryOptions& options);

}  // namespace floe::sql
