// Advise: reads a query log (statements separated by ';'), counts which columns are filtered and
// how (equality, range, IN) and how often, and writes a starting worksheet: candidate designs
// derived from those counts, each choice explained in a YAML comment. A light tokenizer, not a
// SQL parser: it understands `col op literal`, `col IN (...)`, `col BETWEEN a AND b` and
// `f(col) op literal` in WHERE clauses; anything else is skipped, never an error.
#pragma once

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
  std::string sql;        // as logged (trimmed)
  int count = 0;          // identical statements folded together
  bool point = false;     // an equality filter on some column and nothing scanned wider
  bool filtered = false;  // has a WHERE clause the tokenizer understood
};

struct QueryLogAnalysis {
  int statements = 0;
  std::vector<ColumnUse> columns;  // most used first
  std::vector<LoggedQuery> queries;
};

// Splits on top-level ';' (quotes and -- / /* */ comments respected) and counts filter use.
// Only statements that mention `table` are counted when `table` is not empty. Errors only when the
// log holds no statement at all.
Result<QueryLogAnalysis> AnalyzeQueryLog(std::string_view log, std::string_view table = {});

// The worksheet YAML (with comments) for `table` ("NS.T") derived from the analysis.
std::string AdviseWorksheet(const QueryLogAnalysis& analysis, std::string_view table);

}  // namespace floe::bench
