// EXPLAIN [ANALYZE] SELECT ...: the plan floe runs for a query, one line per operator from the
// last one applied to the source (DuckDB's order: the root first), and under each table scan what
// planning it from the manifests gives -- the snapshot, the data files kept of the table's (and
// why the rest were skipped: partition, bounds, OTree index, sample), their rows and bytes, the
// delete files that apply, and the requests a cold read is expected to send (the table's
// metadata, its manifest list and the manifests read; per data file one GET when floe reads it
// whole, else at least a footer and a data range). Row groups and pages are decided by the
// footers at run time: EXPLAIN ANALYZE runs the query and adds what it did -- files opened, row
// groups and pages read and skipped, requests, bytes, rows and time. The answer is one column,
// `plan`, a row per line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "floe/base/result.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/logical_plan.h"
#include "floe/sql/query.h"

namespace floe::sql {

struct ExplainStatement {
  bool analyze = false;
  // The statement explained: the text with EXPLAIN [ANALYZE] blanked out, so positions in errors
  // are the user's.
  std::string query;
};

// nullopt when `sql` does not start with EXPLAIN.
std::optional<ExplainStatement> ParseExplain(std::string_view sql);

// The plan's lines, with each table scan planned against `warehouse` (manifests are read).
Result<std::vector<std::string>> ExplainPlan(const LogicalPlan& plan, iceberg::Warehouse& warehouse,
                                             const QueryOptions& options);

// The lines EXPLAIN ANALYZE adds for a run that gave `result` in `wall_ms`.
std::vector<std::string> ExplainRun(const QueryResult& result, double wall_ms);

// The lines as the one-column answer.
QueryResult PlanResult(const std::vector<std::string>& lines);

}  // namespace floe::sql
