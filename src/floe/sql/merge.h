// MERGE INTO target USING source ON ... WHEN [NOT] MATCHED [BY SOURCE] ...: the source (a table, a
// subquery, read_parquet / read_csv) is read whole and indexed by the keys ON equates with target
// columns (exec's JoinHashTable); the target is scanned once with `_file` and `_pos` -- its
// target-only ON conditions and the source keys' range pushed into the scan when no clause needs
// the unmatched target rows, so files, row groups and pages no source row can match are skipped --
// and each batch probed. Matched pairs, unmatched source rows and unmatched target rows go through
// their WHEN clauses in order (the first whose condition holds decides); a target row matched by
// two source rows is an error, as in Spark. The deleted positions and the new rows (updated and
// inserted) are committed by iceberg's CommitRowLevelChange in the table's write.merge.mode.
#pragma once

#include "floe/base/result.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/binder.h"
#include "floe/sql/parser.h"
#include "floe/sql/query.h"

namespace floe::sql {

// Runs a MergeStmt. A statement that fails changes nothing.
Result<QueryResult> RunMerge(const ParsedStatement& statement, const TableResolver& resolver,
                             iceberg::Warehouse& wh, const QueryOptions& options);

}  // namespace floe::sql
