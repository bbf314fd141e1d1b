// RunSetOperation: the rows of UNION ALL, INTERSECT [ALL] and EXCEPT [ALL] of two plans
// (LogicalPlan::Source::kSetOperation) -- each side computed whole, rows compared as SQL's set
// operations compare them (NULLs equal, as GROUP BY groups them). A plain UNION is UNION ALL's
// rows made distinct by the plan above them.
#pragma once

#include "floe/base/result.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/plan_runner.h"

namespace floe::sql {

Result<columnar::RecordBatch> RunSetOperation(const LogicalPlan& plan, RunContext& ctx,
                                              ScanMetrics* stats);

}  // namespace floe::sql
