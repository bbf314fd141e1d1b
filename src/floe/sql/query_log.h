// AnalyzeQueryLog: what `floe advise` learns from a query log -- each statement parsed by the SQL
// parser (libpg_query), its WHERE conditions walked to count which columns are filtered and how
// (equality, range, IN) and how often. Statements the parser rejects, or on other tables, are
// skipped, never an error. The worksheet it leads to is bench::AdviseWorksheet's. Thread-safe.
#pragma once

#include <string_view>

#include "floe/base/result.h"
#include "floe/bench/advise.h"

namespace floe::sql {

// Splits on top-level ';' and counts filter use: `col op literal`, `literal op col`,
// `col [NOT] IN (...)`, `col [NOT] BETWEEN a AND b`, `f(col) op literal`, anywhere in a WHERE.
// Only statements that read `table` ("NS.T") are counted when `table` is not empty. Errors only
// when the log holds no statement at all.
Result<bench::QueryLogAnalysis> AnalyzeQueryLog(std::string_view log, std::string_view table = {});

}  // namespace floe::sql
