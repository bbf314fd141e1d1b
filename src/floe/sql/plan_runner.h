// RunPlan: a bound LogicalPlan run over a warehouse -- its source (a table scan on its workers,
// or FROM's joins, join_runner.h) feeding each worker's WHERE, partial aggregate or top-N, the
// workers merged, HAVING, ORDER BY, OFFSET and LIMIT -- its rows streamed to the options' sink or
// returned. What Engine::Execute does after
// binding a SELECT; DML statements run the scans that find their rows through it too.
#pragma once

#include <functional>
#include <map>
#include <mutex>

#include "floe/base/result.h"
#include "floe/exec/memory_budget.h"
#include "floe/exec/spill_file.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/query.h"

namespace floe::sql {

Result<QueryResult> RunPlan(const LogicalPlan& plan, iceberg::Warehouse& wh,
                            const QueryOptions& options);

// What running one statement's plans shares: the warehouse, the options (their sink is only for
// the statement's own rows), and the results of its WITH queries, each computed once.
struct RunContext {
  iceberg::Warehouse* wh = nullptr;
  const QueryOptions* options = nullptr;
  std::mutex mu;
  std::map<const LogicalPlan*, columnar::RecordBatch> shared;  // a CTE's rows, by its plan
  // SET memory_limit and temp_directory: what joins, aggregates and sorts may hold, and where
  // they spill past it (null: no limit, no spilling).
  exec::MemoryBudget* budget = nullptr;
  exec::SpillDirectory* spill = nullptr;
};

// Receives a plan's batches from worker `worker` (0 <= worker < SourceWorkers); workers call it
// concurrently, each one call at a time.
using BatchConsumer = std::function<Status(int worker, columnar::RecordBatch batch)>;
int SourceWorkers(const RunContext& ctx);

// A plan whose rows can stream: no aggregate, window, ORDER BY, LIMIT or OFFSET.
bool Streamable(const LogicalPlan& plan);
// What the joins above a table scan add to it (dynamic pruning): a filter ANDed to the scan's
// (pruning files, row groups and pages, and testing rows; null: none), and tests of single
// columns -- the build keys -- its rows must pass before their other columns are materialised.
struct ScanPruning {
  iceberg::ExprPtr filter;
  // Prunes files, row groups and pages but is not applied to rows: key ranges whose rows `tests`
  // drop anyway (iceberg::ScanOptions::prune_filter).
  iceberg::ExprPtr prune_filter;
  std::vector<iceberg::ColumnTest> tests;
};

// The rows of a streamable plan (its outputs), as its source produces them; `pruning` (null:
// none) is added to a table scan. Scan counters go to `stats`.
Status StreamPlan(const LogicalPlan& plan, RunContext& ctx, const ScanPruning* pruning,
                  ScanMetrics* stats, const BatchConsumer& consume);
// Every row of a plan (its outputs) in one batch: a subquery's or a CTE's.
Result<columnar::RecordBatch> MaterializePlan(const LogicalPlan& plan, RunContext& ctx,
                                              ScanMetrics* stats);

}  // namespace floe::sql
