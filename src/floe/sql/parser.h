// Parser: one SQL statement to libpg_query's parse tree (Postgres 15 grammar, as JSON), after the
// time-travel and MERGE rewrites (time_travel.h, merge_syntax.h). Syntax errors carry the line and
// column libpg_query reports. Also splits scripts into statements. Thread-safe (libpg_query keeps
// per-thread state).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/sql/merge_syntax.h"
#include "floe/sql/time_travel.h"

namespace floe::sql {

// A QUALIFY clause, which Postgres's grammar lacks: cut from the parsed text (blanked, so every
// location stays) and its condition parsed on its own; it filters the rows of the SELECT whose
// keyword is at `select_at` after their window functions, as DuckDB's does.
struct QualifyClause {
  int select_at = -1;
  nlohmann::json condition;  // the expression node, its locations the statement's
};

struct ParsedStatement {
  std::string text;     // the statement as parsed (time-travel clauses blanked)
  std::string kind;     // the parse node's name: "SelectStmt", "CallStmt", ...
  nlohmann::json node;  // the node's body
  std::vector<TimeTravel> time_travel;
  // MERGE: what each WHEN clause is, in order (merge_syntax.h); empty for other statements.
  std::vector<MergeClauseSyntax> merge_clauses;
  // The offsets of the CASTs written TRY_CAST (which Postgres lacks): ParseStatement turns each
  // `try_cast(` into `    cast(` -- the same length, so every location stays -- and keeps where
  // its CAST now starts.
  std::vector<int> try_casts;
  std::vector<QualifyClause> qualify;
  // The offsets of DuckDB's GROUP BY ALL (group by every SELECT item without an aggregate):
  // ParseStatement turns its `all` into `() ` -- Postgres's empty grouping set, the same length --
  // and keeps where that `(` is.
  std::vector<int> group_by_all;
};

// Exactly one statement (a trailing ';' is fine); an empty text or several statements are
// invalid-input errors.
Result<ParsedStatement> ParseStatement(std::string_view sql);

// Splits on top-level ';' (quotes, "identifiers" and comments respected); blank statements are
// dropped. With `first_line` > 0 (the script's first line number) each statement is padded with
// the newlines and spaces before it, so errors name the script's line and column.
std::vector<std::string> SplitSql(std::string_view script, int first_line = 0);

// An error of `kind` at a byte offset of `text`: "at line 1, column 8: <message>".
Error ErrorAt(ErrorKind kind, std::string_view text, int offset, std::string message);

}  // namespace floe::sql
