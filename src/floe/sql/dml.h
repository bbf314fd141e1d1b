// DELETE and UPDATE over one Iceberg table (MERGE INTO: merge.h; what they share: dml_target.h).
// The rows a statement changes are found by a scan of the target that also produces each row's
// `_file` and `_pos` (iceberg/metadata_columns.h), its condition pushed into the scan so that
// files, row groups and pages that cannot match are skipped; UPDATE's new values are computed by
// exec in the same pass. iceberg's CommitRowLevelChange then writes and commits the change in the
// table's mode (copy-on-write or merge-on-read, row_level_change.h) as one snapshot. The result is
// one row -- rows affected, deleted, updated, inserted, files added and removed -- with the
// statement's four numbers (its reads, the rewrite's included) in QueryResult::stats.
#pragma once

#include "floe/base/result.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/binder.h"
#include "floe/sql/parser.h"
#include "floe/sql/query.h"

namespace floe::sql {

// A DeleteStmt / an UpdateStmt. A statement that fails -- bad SQL, a value out of its column's
// range, a conflicting concurrent commit -- changes nothing.
Result<QueryResult> RunDelete(const ParsedStatement& statement, const TableResolver& resolver,
                              iceberg::Warehouse& wh, const QueryOptions& options);
Result<QueryResult> RunUpdate(const ParsedStatement& statement, const TableResolver& resolver,
                              iceberg::Warehouse& wh, const QueryOptions& options);

}  // namespace floe::sql
