#include "floe/sql/parser.h"

#include "floe/sql/procedures.h"

#include <pg_query.h>

namespace floe::sql {

Error ErrorAt(ErrorKind kind, std::string_view text, int offset, std::string message) {
  if (offset < 0) return Error{kind, std::move(message)};
  return Error{kind, fmt::format("at {}: {}", PositionOf(text, offset), message)};
}

std::vector<std::string> SplitSql(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  auto flush = [&] {
    bool blank = cur.find_first_not_of(" \t\r\n") == std::string::npos;
    if (!blank) out.push_back(cur);
    cur.clear();
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') cur.push_back(s[i++]);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      size_t end = e == std::string_view::npos ? s.size() : e + 2;
      cur.append(s.substr(i, end - i));
      i = end;
    } else if (c == '\'' || c == '"') {
      cur.push_back(s[i++]);
      while (i < s.size()) {
        cur.push_back(s[i]);
        if (s[i] == c) {
          if (i + 1 < s.size() && s[i + 1] == c) {
            cur.push_back(s[++i]);
            ++i;
            continue;
          }
          ++i;
          break;
        }
        ++i;
      }
    } else if (c == ';') {
      flush();
      ++i;
    } else {
      cur.push_back(s[i++]);
    }
  }
  flush();
  // A statement that is only comments is blank too.
  std::vector<std::string> kept;
  for (auto& st : out) {
    std::string bare;
    for (size_t k = 0; k < st.size(); ++k) {
      if (st[k] == '-' && k + 1 < st.size() && st[k + 1] == '-') {
        while (k < st.size() && st[k] != '\n') ++k;
      } else {
        bare.push_back(st[k]);
      }
    }
    if (bare.find_first_not_of(" \t\r\n") != std::string::npos) kept.push_back(std::move(st));
  }
  return kept;
}

Result<ParsedStatement> ParseStatement(std::string_view sql) {
  const std::string quoted = QuoteReservedCallArguments(sql);
  FLOE_ASSIGN_OR_RETURN(TimeTravelRewrite rw, ExtractTimeTravel(quoted));
  ParsedStatement out;
  out.text = rw.text;
  out.time_travel = std::move(rw.clauses);
  PgQueryParseResult r = pg_query_parse(out.text.c_str());
  if (r.error) {
    std::string msg = r.error->message ? r.error->message : "syntax error";
    int pos = r.error->cursorpos > 0 ? r.error->cursorpos - 1 : -1;
    pg_query_free_parse_result(r);
    if (pos >= static_cast<int>(out.text.size())) pos = static_cast<int>(out.text.size());
    return std::unexpected(ErrorAt(ErrorKind::kInvalidInput, out.text, pos, msg));
  }
  nlohmann::json tree = nlohmann::json::parse(r.parse_tree, nullptr, false);
  pg_query_free_parse_result(r);
  if (tree.is_discarded()) return Internal("libpg_query returned unreadable JSON");
  const auto& stmts = tree.value("stmts", nlohmann::json::array());
  if (stmts.empty()) return InvalidInput("empty statement");
  if (stmts.size() > 1) {
    int loc = stmts[1].value("stmt_location", -1);
    return std::unexpected(ErrorAt(ErrorKind::kInvalidInput, out.text, loc,
                                   "one statement at a time (use a script for several)"));
  }
  const auto& stmt = stmts[0]["stmt"];
  if (!stmt.is_object() || stmt.empty()) return Internal("libpg_query returned no statement");
  out.kind = stmt.begin().key();
  out.node = stmt.begin().value();
  return out;
}

}  // namespace floe::sql
