// The query-log tokenizer and the worksheet it suggests.
#include "floe/bench/advise.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

namespace floe::bench {
namespace {

enum class Tok { kIdent, kNumber, kString, kOp, kPunct };
struct Token {
  Tok kind;
  std::string text;  // identifiers lower-cased; strings without quotes
};

std::string Lower(std::string_view s) {
  std::string o(s);
  for (auto& ch : o) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return o;
}

std::vector<std::string> SplitStatements(std::string_view log) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < log.size(); ++i) {
    char ch = log[i];
    if (ch == '\'' || ch == '"') {
      size_t j = i + 1;
      while (j < log.size() && log[j] != ch) ++j;
      cur.append(log.substr(i, j + 1 - i));
      i = j;
    } else if (ch == '-' && i + 1 < log.size() && log[i + 1] == '-') {
      while (i < log.size() && log[i] != '\n') ++i;
      cur.push_back(' ');
    } else if (ch == '/' && i + 1 < log.size() && log[i + 1] == '*') {
      size_t end = log.find("*/", i + 2);
      i = end == std::string_view::npos ? log.size() : end + 1;
      cur.push_back(' ');
    } else if (ch == ';') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ch);
    }
  }
  out.push_back(cur);
  std::vector<std::string> trimmed;
  for (auto& s : out) {
    size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    if (b == std::string::npos) continue;
    std::string t = s.substr(b, e - b + 1);
    // Collapse whitespace so identical statements fold together.
    std::string c;
    for (char ch : t) {
      bool space = std::isspace(static_cast<unsigned char>(ch));
      if (space && (c.empty() || c.back() == ' ')) continue;
      c.push_back(space ? ' ' : ch);
    }
    trimmed.push_back(c);
  }
  return trimmed;
}

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> t;
  for (size_t i = 0; i < s.size();) {
    unsigned char ch = static_cast<unsigned char>(s[i]);
    if (std::isspace(ch)) {
      ++i;
    } else if (std::isalpha(ch) || ch == '_') {
      size_t j = i;
      while (j < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.'))
        ++j;
      std::string id = Lower(s.substr(i, j - i));
      auto dot = id.rfind('.');
      t.push_back({Tok::kIdent, id});
      (void)dot;
      i = j;
    } else if (std::isdigit(ch)) {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      t.push_back({Tok::kNumber, std::string(s.substr(i, j - i))});
      i = j;
    } else if (ch == '\'') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '\'') ++j;
      t.push_back({Tok::kString, std::string(s.substr(i + 1, j - i - 1))});
      i = j + 1;
    } else if (ch == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') ++j;
      t.push_back({Tok::kIdent, Lower(s.substr(i + 1, j - i - 1))});
      i = j + 1;
    } else if (std::string_view("<>=!").find(static_cast<char>(ch)) != std::string_view::npos) {
      size_t j = i;
      while (j < s.size() && std::string_view("<>=!").find(s[j]) != std::string_view::npos) ++j;
      t.push_back({Tok::kOp, std::string(s.substr(i, j - i))});
      i = j;
    } else {
      t.push_back({Tok::kPunct, std::string(1, static_cast<char>(ch))});
      ++i;
    }
  }
  return t;
}

bool LooksTemporal(const Token& lit) {
  if (lit.kind != Tok::kString) return false;
  const std::string& v = lit.text;
  return v.size() >= 10 && std::isdigit(static_cast<unsigned char>(v[0])) && v[4] == '-' &&
         v[7] == '-';
}

bool TemporalName(std::string_view c) {
  return c == "ts" || c.ends_with("_ts") || c.ends_with("_at") || c.ends_with("date") ||
         c.ends_with("time") || c.ends_with("timestamp") || c == "day";
}

bool Keyword(std::string_view w) {
  static const char* kw[] = {"and",  "or",    "not",      "in",        "between", "is",
                             "null", "like",  "date",     "timestamp", "cast",    "as",
                             "true", "false", "interval", "where",     "select",  "from"};
  for (const char* k : kw)
    if (w == k) return true;
  return false;
}

bool Literal(const Token& t) {
  return t.kind == Tok::kNumber || t.kind == Tok::kString ||
         (t.kind == Tok::kIdent && (t.text == "date" || t.text == "timestamp"));
}

std::string Column(const std::string& ident) {
  auto dot = ident.rfind('.');
  return dot == std::string::npos ? ident : ident.substr(dot + 1);
}

}  // namespace

namespace {

// Counts the filters of one statement into `uses`; says whether it is a point question.
void CountFilters(const std::vector<Token>& toks, std::map<std::string, ColumnUse>& uses,
                  LoggedQuery& q) {
  size_t w = 0;
  while (w < toks.size() && !(toks[w].kind == Tok::kIdent && toks[w].text == "where")) ++w;
  if (w == toks.size()) return;
  size_t end = w + 1;
  while (end < toks.size() && !(toks[end].kind == Tok::kIdent &&
                                (toks[end].text == "group" || toks[end].text == "order" ||
                                 toks[end].text == "limit" || toks[end].text == "having")))
    ++end;
  bool eq_seen = false, wide_seen = false;
  for (size_t i = w + 1; i < end; ++i) {
    if (toks[i].kind != Tok::kIdent) continue;
    const bool call = i + 1 < end && toks[i + 1].kind == Tok::kPunct && toks[i + 1].text == "(";
    if (Keyword(toks[i].text) && !call) continue;
    std::string col = Column(toks[i].text);
    size_t k = i + 1;
    bool under_function = false;
    // f(col) op ...: the column is the argument.
    if (k < end && toks[k].kind == Tok::kPunct && toks[k].text == "(") {
      if (k + 2 < end && toks[k + 1].kind == Tok::kIdent && toks[k + 2].text == ")") {
        under_function = true;
        col = Column(toks[k + 1].text);
        k += 3;
      } else {
        continue;
      }
    }
    if (k >= end) continue;
    const Token& op = toks[k];
    bool counted = false;
    ColumnUse u;
    if (op.kind == Tok::kOp && k + 1 < end && Literal(toks[k + 1])) {
      // DATE '2024-01-03' / TIMESTAMP '...': the literal is the string after the keyword.
      const Token& lit = toks[k + 1].kind == Tok::kIdent && k + 2 < end ? toks[k + 2] : toks[k + 1];
      if (op.text == "=") {
        u.equality = 1;
        eq_seen = counted = true;
      } else if (op.text == "<" || op.text == "<=" || op.text == ">" || op.text == ">=") {
        u.range = 1;
        wide_seen = counted = true;
      } else {
        wide_seen = true;  // != / <>: scans nearly everything
      }
      u.temporal = LooksTemporal(lit) || under_function;
      i = k + 1;
    } else if (op.kind == Tok::kIdent && op.text == "in") {
      u.in_list = 1;
      eq_seen = counted = true;
      i = k;
    } else if (op.kind == Tok::kIdent && op.text == "between") {
      u.range = 1;
      wide_seen = counted = true;
      u.temporal = under_function || (k + 1 < end && LooksTemporal(toks[k + 1])) ||
                   (k + 2 < end && LooksTemporal(toks[k + 2]));
      i = k;
    }
    if (!counted) continue;
    q.filtered = true;
    ColumnUse& total = uses[col];
    total.column = col;
    total.equality += u.equality;
    total.range += u.range;
    total.in_list += u.in_list;
    total.temporal |= u.temporal || (TemporalName(col) && u.range > 0);
  }
  q.point = eq_seen && !wide_seen;
}

}  // namespace

Result<QueryLogAnalysis> AnalyzeQueryLog(std::string_view log, std::string_view table) {
  QueryLogAnalysis a;
  std::map<std::string, ColumnUse> uses;
  std::map<std::string, size_t> seen;
  const std::string want = Lower(table);
  for (const auto& stmt : SplitStatements(log)) {
    auto toks = Tokenize(stmt);
    if (!want.empty()) {
      bool mentions = false;
      for (const auto& t : toks) mentions |= t.kind == Tok::kIdent && t.text == want;
      if (!mentions) continue;
    }
    ++a.statements;
    auto it = seen.find(stmt);
    size_t index;
    if (it != seen.end()) {
      index = it->second;
      a.queries[index].count++;
    } else {
      index = a.queries.size();
      seen[stmt] = index;
      a.queries.push_back({stmt, 1, false, false});
    }
    CountFilters(toks, uses, a.queries[index]);
  }
  if (a.statements == 0)
    return InvalidInput("the query log holds no statement{}",
                        table.empty() ? std::string() : fmt::format(" on '{}'", table));
  for (auto& [name, u] : uses) a.columns.push_back(u);
  std::stable_sort(a.columns.begin(), a.columns.end(),
                   [](const ColumnUse& x, const ColumnUse& y) { return x.total() > y.total(); });
  std::stable_sort(a.queries.begin(), a.queries.end(),
                   [](const LoggedQuery& x, const LoggedQuery& y) { return x.count > y.count; });
  return a;
}

std::string AdviseWorksheet(const QueryLogAnalysis& a, std::string_view table) {
  // Partition: the most used temporal filter, by day (coarse: a day holds many rows, and a
  // question on a day or a range of days then opens only its partitions).
  const ColumnUse* part = nullptr;
  for (const auto& c : a.columns)
    if (c.temporal && (!part || c.total() > part->total())) part = &c;
  // Sort: the most used other column, preferring equality/IN (sorting turns them into one
  // file's or one page's worth of reading).
  const ColumnUse* sort = nullptr;
  for (const auto& c : a.columns) {
    if (&c == part) continue;
    auto score = [](const ColumnUse& u) { return 2 * (u.equality + u.in_list) + u.range; };
    if (!sort || score(c) > score(*sort)) sort = &c;
  }
  int point = 0, scans = 0;
  for (const auto& q : a.queries) (q.point ? point : scans) += q.count;
  std::string out;
  out += fmt::format("# Starting worksheet for {}, derived by `floe advise` from {} statements.\n",
                     table, a.statements);
  out += "# Filtered columns (equality / range / IN):\n";
  for (const auto& c : a.columns) {
    out += fmt::format("#   {:<24} {:>4} / {:>4} / {:>4}{}\n", c.column, c.equality, c.range,
                       c.in_list, c.temporal ? "   (temporal)" : "");
  }
  if (a.columns.empty()) out += "#   (none: every statement reads the whole table)\n";
  out += fmt::format("# Point questions (equality/IN only): {}; wider ones: {}.\n", point, scans);
  out += fmt::format("name: {}\n", table);
  out += fmt::format("table: {}\n", table.find('.') == std::string_view::npos
                                        ? "advise." + std::string(table)
                                        : std::string(table));
  out += "source:\n";
  out += "  # Point this at a sample of the table's data (Parquet files or a folder of them).\n";
  out += "  parquet: [./sample]\n";
  out += "designs:\n";
  out += "  - name: baseline\n";
  out += "    description: unpartitioned, unsorted (what a plain append gives)\n";
  std::string part_spec = part ? fmt::format("day({})", part->column) : "";
  if (part) {
    out += fmt::format(
        "  # {} is the most frequent coarse (temporal) filter ({} uses): a day "
        "partition lets those questions skip every other day's files.\n",
        part->column, part->total());
    out += "  - name: partitioned\n";
    out += fmt::format("    description: partitioned by {}\n", part_spec);
    out += fmt::format("    partition_by: {}\n", part_spec);
  }
  if (sort) {
    out += fmt::format(
        "  # {} is the next most used filter ({} equality/IN, {} range): sorting by "
        "it inside each write lets bounds and the page index skip the rest.\n",
        sort->column, sort->equality + sort->in_list, sort->range);
    out += "  - name: sorted\n";
    out += fmt::format("    description: {}sorted by {} in each write\n",
                       part ? "partitioned by " + part_spec + ", " : "", sort->column);
    if (part) out += fmt::format("    partition_by: {}\n", part_spec);
    out += fmt::format("    sort_by: {}\n", sort->column);
    // File size per question type: point questions want small files (one file opened, little
    // fetched); scans want few large ones (fewer requests per byte).
    bool mostly_point = point >= scans;
    out += fmt::format(
        "  # A sort rewrite clusters across writes. {} of {} questions are point questions, so the "
        "target is {}.\n",
        point, point + scans,
        mostly_point ? "small (8MB: a lookup opens one small file)"
                     : "large (128MB: scans make fewer requests per byte)");
    out += "  - name: sort-rewritten\n";
    out += fmt::format("    description: {}sort-rewritten by {}, {} files\n",
                       part ? "partitioned by " + part_spec + ", " : "", sort->column,
                       mostly_point ? "8MB" : "128MB");
    if (part) out += fmt::format("    partition_by: {}\n", part_spec);
    out += fmt::format("    sort_by: {}\n", sort->column);
    out += fmt::format("    target_file_size: {}\n", mostly_point ? "8MB" : "128MB");
    out += "    maintenance:\n      - rewrite: sort\n";
  }
  out += "questions:\n";
  const std::string want = Lower(table);
  for (size_t i = 0; i < a.queries.size(); ++i) {
    const auto& q = a.queries[i];
    std::string sql = q.sql;
    // The table name becomes {table}, matched case-insensitively.
    std::string lower = Lower(sql);
    for (size_t pos = lower.find(want); !want.empty() && pos != std::string::npos;
         pos = lower.find(want, pos + 7)) {
      sql.replace(pos, want.size(), "{table}");
      lower.replace(pos, want.size(), "{table}");
    }
    std::string quoted;
    for (char ch : sql) quoted += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    out += fmt::format("  - name: q{}{}\n    sql: \"{}\"\n    daily: {}\n", i + 1,
                       q.point ? " (point)" : "", quoted, q.count);
  }
  return out;
}

}  // namespace floe::bench
