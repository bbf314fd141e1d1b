// Procedures: the maintenance operations as SQL, in the form of Iceberg's Spark procedures --
// CALL system.rewrite_data_files | rewrite_manifests | expire_snapshots | remove_orphan_files |
// add_files,
// with named (`table => 'ns.t'`) or positional arguments -- each answering one row with
// Iceberg's output column names. The Engine routes CallStmt here unless a hook replaces it.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/query.h"

namespace floe::sql {

// `sql` is the statement text as parsed (for error positions); `call` libpg_query's CallStmt.
Result<QueryResult> RunProcedure(iceberg::Warehouse& warehouse, const std::string& sql,
                                 const nlohmann::json& call);

// libpg_query reserves `table`; a CALL's `table =>` becomes the same-length `"tbl" =>` before
// parsing so error positions stay right. Anything but a CALL is returned unchanged.
std::string QuoteReservedCallArguments(std::string_view sql);

}  // namespace floe::sql
