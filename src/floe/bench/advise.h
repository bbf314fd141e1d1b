// Advise: from a query log's analysis -- which columns are filtered and how (equality, range, IN)
// and how often, counted by sql::AnalyzeQueryLog (sql/query_log.h) with the SQL parser -- a
// starting worksheet: candidate designs derived from those counts, each choice explained in a
// YAML comment. The analysis is plain data here, so bench knows no SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::bench {

struct ColumnUse {
  std::string column;
  int equality = 0;       // col = literal
  int range = 0;          // <, <=, >, >=, BETWEEN
  int in_list = 0;        // col IN (...)
  bool temporal = false;  // compared with date/timestamp-looking literals, or under a date function
  int total() const { return equality + range + in_list; }
};

struct LoggedQuery {
  std::string sql;        // as logged (trimmed): the first of its shape
  int count = 0;          // statements of the same shape (differing only in literals) folded
  bool point = false;     // an equality filter on some column and nothing scanned wider
  bool filtered = false;  // has a WHERE condition that was counted
  // Why the worksheet cannot ask it (not a SELECT, reads other tables, floe cannot plan it):
  // such a statement is listed in a comment, not kept as a question. Empty: it is a question.
  std::string cannot_run;
};

struct QueryLogAnalysis {
  int statements = 0;
  std::vector<ColumnUse> columns;  // most used first
  std::vector<LoggedQuery> queries;
};

// Where the worksheet's rows come from: the table the log queries, in the warehouse `floe bench
// --warehouse` names, pinned to `snapshot` when known (the table's current one when advised).
struct AdviseSource {
  std::optional<int64_t> snapshot;
};

// The worksheet YAML (with comments) for `table` ("NS.T") derived from the analysis.
std::string AdviseWorksheet(const QueryLogAnalysis& analysis, std::string_view table,
                            const AdviseSource& source = {});

}  // namespace floe::bench
