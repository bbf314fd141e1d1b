// RunJoin: a plan's FROM of joins (LogicalPlan::Source::kJoin) run -- the inner joins ordered by
// the relations' estimated sizes (record counts of the files their filters keep), each join's
// smaller side built into a hash table of its equi-keys, the build's key range (or its keys, when
// few) pushed into the scan of the streamed side so its files, row groups and pages are skipped,
// and the joined rows streamed to the plan's workers, one column per slot.
#pragma once

#include "floe/base/result.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/plan_runner.h"

namespace floe::sql {

Status RunJoin(const LogicalPlan& plan, RunContext& ctx, ScanMetrics* stats,
               const BatchConsumer& consume);

// The order RunJoin joins `plan`'s relations in, for EXPLAIN: each join as "(streamed join
// built)", relations by name, each with its estimated rows ("~?": unknown). Estimating computes
// a relation that does not stream (a subquery's aggregate, a WITH query), as running does.
Result<std::string> DescribeJoinOrder(const LogicalPlan& plan, RunContext& ctx, ScanMetrics* stats);

}  // namespace floe::sql
