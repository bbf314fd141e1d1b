// Time travel in SQL text. libpg_query has no `FOR VERSION AS OF`, so before parsing, a clause
// `FOR VERSION AS OF <snapshot-id>` or `FOR TIMESTAMP AS OF '<timestamp>'` (also spelled
// FOR SYSTEM_VERSION / FOR SYSTEM_TIME, as in Spark and Trino) following a table name is cut out
// of the text -- replaced by spaces, so every later error position still points into the text the
// user wrote -- and returned beside it. A sample clause after a table is cut out the same way:
// `TABLESAMPLE (10 PERCENT)` (Spark), `TABLESAMPLE 10%` and `USING SAMPLE 10%` (DuckDB),
// `TABLESAMPLE SYSTEM (10)` / `BERNOULLI (10)` (Postgres, Trino), each with an optional
// `REPEATABLE (seed)` (floe's samples are deterministic already). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::sql {

// One clause: time travel, or a sample.
struct TimeTravel {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> timestamp_ms;    // the latest snapshot at or before this time
  std::optional<double> sample_fraction;  // TABLESAMPLE: the share of rows, in (0, 1]
  int offset = 0;                         // where the clause starts in the text
};

struct TimeTravelRewrite {
  std::string text;                 // the SQL with the clauses blanked out
  std::vector<TimeTravel> clauses;  // in text order
};

// Malformed clauses (`FOR VERSION AS OF 'x'`, a timestamp that does not parse) are invalid-input
// errors naming the position.
Result<TimeTravelRewrite> ExtractTimeTravel(std::string_view sql);

// "line 2, column 7" for a 0-based byte offset into `text`.
std::string PositionOf(std::string_view text, int offset);

}  // namespace floe::sql
