#include "floe/sql/parser.h"

#include "floe/sql/procedures.h"
#include "floe/sql/sql_tokens.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <pg_query.h>

namespace floe::sql {

Error ErrorAt(ErrorKind kind, std::string_view text, int offset, std::string message) {
  if (offset < 0) return Error{kind, std::move(message)};
  return Error{kind, fmt::format("at {}: {}", PositionOf(text, offset), message)};
}

std::vector<std::string> SplitSql(std::string_view s, int first_line) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  size_t start = 0;    // offset in `s` of the statement being gathered
  size_t counted = 0;  // `s` up to here is counted in lines / col
  int64_t lines = first_line - 1, col = 0;
  auto flush = [&] {
    bool blank = cur.find_first_not_of(" \t\r\n") == std::string::npos;
    if (!blank) {
      if (first_line > 0) {
        // Pad to where the statement starts in the script, so "at line L, column C" is the
        // script's own position.
        for (; counted < start; ++counted) {
          if (s[counted] == '\n') {
            ++lines;
            col = 0;
          } else {
            ++col;
          }
        }
        cur = std::string(static_cast<size_t>(lines), '\n') +
              std::string(static_cast<size_t>(col), ' ') + cur;
      }
      out.push_back(cur);
    }
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
      start = i;
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

namespace {

// Postgres truncates identifiers to 63 bytes (NAMEDATALEN - 1), so a table or column with a
// longer name could be created but not named in SQL. Before parsing, each longer identifier is
// replaced by a short placeholder padded with spaces to the same length (error positions stay
// true); RestoreTree puts the names back.
constexpr size_t kMaxIdentifier = 63;
constexpr std::string_view kPlaceholder = "floe__long_identifier__";

bool IdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool IdentChar(unsigned char c) { return IdentStart(c) || std::isdigit(c) || c == '$'; }

std::vector<std::string> ShortenLongIdentifiers(std::string* text) {
  std::vector<std::string> originals;
  std::string& s = *text;
  auto replace = [&](size_t at, size_t len, std::string name, bool quoted) {
    std::string ph = fmt::format("{}{}", kPlaceholder, originals.size());
    originals.push_back(std::move(name));
    std::string with = quoted ? "\"" + ph + "\"" : ph;
    with.resize(len, ' ');
    s.replace(at, len, with);
  };
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      i = e == std::string::npos ? s.size() : e + 2;
    } else if (c == '\'') {
      for (++i; i < s.size(); ++i) {
        if (s[i] == '\'' && !(i + 1 < s.size() && s[i + 1] == '\'')) break;
        if (s[i] == '\'') ++i;
      }
      ++i;
    } else if (c == '"') {
      std::string name;
      size_t j = i + 1;
      for (; j < s.size(); ++j) {
        if (s[j] == '"') {
          if (j + 1 < s.size() && s[j + 1] == '"') {
            name.push_back('"');
            ++j;
            continue;
          }
          break;
        }
        name.push_back(s[j]);
      }
      if (j < s.size() && name.size() > kMaxIdentifier) replace(i, j + 1 - i, name, true);
      i = j + 1;
    } else if (IdentStart(c)) {
      size_t j = i;
      while (j < s.size() && IdentChar(static_cast<unsigned char>(s[j]))) ++j;
      if (j - i > kMaxIdentifier) {
        std::string name = s.substr(i, j - i);
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        replace(i, j - i, std::move(name), false);
      }
      i = j;
    } else if (std::isdigit(c)) {
      while (i < s.size() && IdentChar(static_cast<unsigned char>(s[i]))) ++i;
    } else {
      ++i;
    }
  }
  return originals;
}

// Repairs what libpg_query's JSON loses: integer constants of 0 and below come out as
// "ival": {} (they are read back from the text at their location), and the long identifiers
// ShortenLongIdentifiers replaced.
void RestoreTree(nlohmann::json& node, std::string_view text,
                 const std::vector<std::string>& originals) {
  if (node.is_object()) {
    if (auto c = node.find("A_Const"); c != node.end() && c->is_object()) {
      auto iv = c->find("ival");
      if (iv != c->end() && iv->is_object() && !iv->contains("ival")) {
        int64_t v = 0;
        const int loc = c->value("location", -1);
        if (loc >= 0 && static_cast<size_t>(loc) < text.size()) {
          std::string_view t = text.substr(static_cast<size_t>(loc));
          size_t n = 0;
          while (n < t.size() &&
                 (std::isdigit(static_cast<unsigned char>(t[n])) || (n == 0 && t[n] == '-')))
            ++n;
          std::from_chars(t.data(), t.data() + n, v);
        }
        (*iv)["ival"] = v;
      }
    }
    for (auto& [k, v] : node.items()) RestoreTree(v, text, originals);
  } else if (node.is_array()) {
    for (auto& v : node) RestoreTree(v, text, originals);
  } else if (node.is_string() && !originals.empty()) {
    const std::string& str = node.get_ref<const std::string&>();
    if (str.starts_with(kPlaceholder)) {
      size_t k = 0;
      auto [p, ec] = std::from_chars(str.data() + kPlaceholder.size(), str.data() + str.size(), k);
      if (ec == std::errc() && p == str.data() + str.size() && k < originals.size())
        node = originals[k];
    }
  }
}

// TRY_CAST(x AS t) as CAST(x AS t), noting where (see ParsedStatement::try_casts).
std::vector<int> RewriteTryCast(std::string* text) {
  std::vector<int> at;
  const std::vector<Token> tokens = Tokenize(*text);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].quoted || tokens[i].word != "try_cast" || tokens[i + 1].word != "(") continue;
    text->replace(tokens[i].begin, tokens[i].end - tokens[i].begin, "    cast");
    at.push_back(static_cast<int>(tokens[i].begin) + 4);
  }
  return at;
}

// DuckDB's and Spark's `INTERVAL 3 DAY` (a bare number, which Postgres's grammar refuses) as
// `INTERVAL'3DAY'`, the same length, so every location stays: a string the binder reads.
// The SQL standard's leading field precision, `INTERVAL '90' DAY (3)` (TPC-H's spelling),
// which Postgres lacks, is blanked.
void QuoteIntervalNumbers(std::string* text) {
  const std::vector<Token> t = Tokenize(*text);
  for (size_t i = 0; i + 5 < t.size(); ++i) {
    if (!t[i].quoted && t[i].word == "interval" && t[i + 1].quoted && !t[i + 2].quoted &&
        t[i + 3].word == "(" && !t[i + 4].quoted && !t[i + 4].word.empty() &&
        std::isdigit(static_cast<unsigned char>(t[i + 4].word[0])) && t[i + 5].word == ")" &&
        (t[i + 2].word == "year" || t[i + 2].word == "month" || t[i + 2].word == "day" ||
         t[i + 2].word == "hour" || t[i + 2].word == "minute")) {
      text->replace(t[i + 3].begin, t[i + 5].end - t[i + 3].begin, t[i + 5].end - t[i + 3].begin,
                    ' ');
    }
  }
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].quoted || t[i].word != "interval" || t[i + 1].quoted || t[i + 2].quoted) continue;
    const std::string& number = t[i + 1].word;
    if (number.empty() || !std::all_of(number.begin(), number.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
      continue;
    }
    const std::string& unit = t[i + 2].word;
    if (unit.empty() || !std::all_of(unit.begin(), unit.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c)) != 0;
        })) {
      continue;
    }
    std::string quoted = "'";
    quoted += number;
    quoted += unit;
    quoted += '\'';
    const size_t begin = t[i].end, end = t[i + 2].end;
    quoted.resize(end - begin, ' ');  // the two blanks it drops pay for the quotes
    text->replace(begin, end - begin, quoted);
  }
}

// DuckDB's GROUP BY ALL: `all` right after GROUP BY and before the clause ends (HAVING, ORDER
// BY, LIMIT, ..., a closing parenthesis or the end) becomes `() `; the offsets of those `(`. With
// keys after it, ALL is Postgres's set quantifier and is left alone.
std::vector<int> RewriteGroupByAll(std::string* text) {
  std::vector<int> out;
  const std::vector<Token> t = Tokenize(*text);
  auto word = [&](size_t k) -> std::string_view {
    return k < t.size() && !t[k].quoted ? std::string_view(t[k].word) : std::string_view();
  };
  static const std::set<std::string_view> kEnds = {";",     ")",         "having",  "order",
                                                   "limit", "offset",    "qualify", "window",
                                                   "union", "intersect", "except",  "fetch"};
  for (size_t i = 2; i < t.size(); ++i) {
    if (word(i) != "all" || word(i - 1) != "by" || word(i - 2) != "group") continue;
    const bool last = i + 1 == t.size();
    if (t[i].end - t[i].begin != 3 ||
        (!last && (t[i + 1].quoted || !kEnds.contains(word(i + 1))))) {
      continue;
    }
    text->replace(t[i].begin, 3, "() ");
    out.push_back(static_cast<int>(t[i].begin));
  }
  return out;
}

// Cuts each QUALIFY clause from `text` (blanked to spaces, newlines kept) and parses its
// condition: the text up to the next ORDER BY, LIMIT, OFFSET, WINDOW, set operation, closing
// parenthesis of its level, or the end. A `qualify` that is a column's name (after SELECT, a
// comma, a dot or AS, or before a comma, dot or FROM) is left alone.
Result<std::vector<QualifyClause>> CutQualify(std::string* text) {
  std::vector<QualifyClause> out;
  const std::vector<Token> t = Tokenize(*text);
  auto word = [&](size_t k) -> std::string_view {
    return k < t.size() && !t[k].quoted ? std::string_view(t[k].word) : std::string_view();
  };
  std::vector<int> depth(t.size() + 1, 0);
  for (size_t i = 0, d = 0; i < t.size(); ++i) {
    if (word(i) == ")" && d > 0) --d;
    depth[i] = static_cast<int>(d);
    if (word(i) == "(") ++d;
  }
  for (size_t i = 0; i < t.size(); ++i) {
    if (word(i) != "qualify") continue;
    const std::string_view before = i > 0 ? word(i - 1) : std::string_view("select");
    const std::string_view after = word(i + 1);
    if (before == "select" || before == "," || before == "." || before == "as" || after == "," ||
        after == "." || after == "from" || i + 1 >= t.size()) {
      continue;
    }
    size_t select = i;
    while (select > 0 && !(word(select - 1) == "select" && depth[select - 1] == depth[i])) --select;
    if (select == 0) continue;
    size_t end = i + 1;
    for (; end < t.size(); ++end) {
      const std::string_view w = word(end);
      if (depth[end] < depth[i] || w == ";") break;
      if (depth[end] == depth[i] &&
          (w == "order" || w == "limit" || w == "offset" || w == "window" || w == "union" ||
           w == "intersect" || w == "except" || w == "fetch")) {
        break;
      }
    }
    const size_t begin = t[i + 1].begin;
    const size_t stop = end < t.size() ? t[end].begin : text->size();
    // The condition alone, at its own offsets: `select <condition>`.
    std::string padded(begin - 7, ' ');
    padded += "select ";
    padded += text->substr(begin, stop - begin);
    PgQueryParseResult r = pg_query_parse(padded.c_str());
    if (r.error) {
      std::string msg = r.error->message ? r.error->message : "syntax error";
      const int pos = r.error->cursorpos > 0 ? r.error->cursorpos - 1 : static_cast<int>(begin);
      pg_query_free_parse_result(r);
      return std::unexpected(ErrorAt(ErrorKind::kInvalidInput, *text, pos, "QUALIFY: " + msg));
    }
    nlohmann::json tree = nlohmann::json::parse(r.parse_tree, nullptr, false);
    pg_query_free_parse_result(r);
    const nlohmann::json* targets = nullptr;
    if (!tree.is_discarded() && tree.contains("stmts") && tree["stmts"].size() == 1) {
      const auto& stmt = tree["stmts"][0]["stmt"];
      if (stmt.contains("SelectStmt") && stmt["SelectStmt"].contains("targetList") &&
          !stmt["SelectStmt"].contains("fromClause")) {
        targets = &stmt["SelectStmt"]["targetList"];
      }
    }
    if (targets == nullptr || targets->size() != 1) {
      return std::unexpected(ErrorAt(ErrorKind::kInvalidInput, *text, static_cast<int>(t[i].begin),
                                     "QUALIFY takes one condition"));
    }
    out.push_back({static_cast<int>(t[select - 1].begin), (*targets)[0]["ResTarget"]["val"]});
    for (size_t c = t[i].begin; c < stop; ++c) {
      if ((*text)[c] != '\n') (*text)[c] = ' ';
    }
  }
  return out;
}

}  // namespace

Result<ParsedStatement> ParseStatement(std::string_view sql) {
  const std::string quoted = QuoteReservedCallArguments(sql);
  FLOE_ASSIGN_OR_RETURN(TimeTravelRewrite rw, ExtractTimeTravel(quoted));
  ParsedStatement out;
  MergeRewrite merge = RewriteMergeSyntax(rw.text);
  out.text = std::move(merge.text);
  out.merge_clauses = std::move(merge.clauses);
  out.time_travel = std::move(rw.clauses);
  out.try_casts = RewriteTryCast(&out.text);
  out.group_by_all = RewriteGroupByAll(&out.text);
  QuoteIntervalNumbers(&out.text);
  FLOE_ASSIGN_OR_RETURN(out.qualify, CutQualify(&out.text));
  std::string parsed_text = out.text;
  const std::vector<std::string> long_names = ShortenLongIdentifiers(&parsed_text);
  PgQueryParseResult r = pg_query_parse(parsed_text.c_str());
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
  RestoreTree(tree, out.text, long_names);
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
