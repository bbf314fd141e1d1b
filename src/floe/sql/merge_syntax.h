// MERGE INTO as Spark and DuckDB spell it, parsed with the Postgres 15 grammar, which lacks some of
// it: `WHEN NOT MATCHED BY SOURCE` (and `BY TARGET`), `UPDATE SET *` and `INSERT *`. Before
// parsing, each WHEN clause of a MERGE is found in the text (outside parentheses and CASE) and what
// Postgres cannot read is rewritten to what it can -- the same length, blanks in place of words,
// so every later error position still points into the text the user wrote -- and returned beside
// it: per clause, whether it applies to matched rows, source rows without a match, or target rows
// without one, and whether it is a `*` form. The parsed clauses are read with these facts, in
// order. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace floe::sql {

struct MergeClauseSyntax {
  enum class Match { kMatched, kNotMatched, kNotMatchedBySource };
  Match match = Match::kMatched;
  bool update_star = false;  // UPDATE SET *
  bool insert_star = false;  // INSERT *
  int offset = 0;            // of the clause's WHEN
};

struct MergeRewrite {
  std::string text;
  std::vector<MergeClauseSyntax> clauses;  // empty when the text is not a MERGE
};

MergeRewrite RewriteMergeSyntax(std::string_view sql);

}  // namespace floe::sql
