#include "floe/sql/query_log.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/sql/bind_internal.h"
#include "floe/sql/parser.h"

namespace floe::sql {
namespace {

using json = nlohmann::json;
using bench::ColumnUse;
using bench::LoggedQuery;

using internal::LastName;
using internal::Lower;
using internal::NodeField;
using internal::Unwrap;

// A statement as the log's reader knows it: comments dropped, whitespace collapsed, so that
// identical statements fold together.
std::string Normalize(std::string_view s) {
  std::string out;
  auto space = [&] {
    if (!out.empty() && out.back() != ' ') out.push_back(' ');
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == '\'' || ch == '"') {
      size_t j = s.find(ch, i + 1);
      if (j == std::string_view::npos) j = s.size() - 1;
      out.append(s.substr(i, j + 1 - i));
      i = j;
    } else if (ch == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
      space();
    } else if (ch == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 1;
      space();
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      space();
    } else {
      out.push_back(ch);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (!out.empty() && out.front() == ' ') out.erase(0, 1);
  return out;
}

bool TemporalName(std::string_view c) {
  return c == "ts" || c.ends_with("_ts") || c.ends_with("_at") || c.ends_with("date") ||
         c.ends_with("time") || c.ends_with("timestamp") || c == "day";
}

// The relations `node` names anywhere, subqueries included ("ns.t", lower case), and the names
// its WITH clauses define.
void Relations(const json& node, std::set<std::string>* tables, std::set<std::string>* ctes) {
  if (node.is_array()) {
    for (const auto& n : node) Relations(n, tables, ctes);
    return;
  }
  if (!node.is_object()) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // A RangeVar node, or the target of DELETE, UPDATE, INSERT and MERGE (a RangeVar field
    // without the node's wrapper).
    if ((it.key() == "RangeVar" || it.key() == "relation") && it->is_object() &&
        it->contains("relname")) {
      std::string name;
      for (const char* k : {"catalogname", "schemaname", "relname"}) {
        if (!it->contains(k)) continue;
        name += (name.empty() ? "" : ".") + Lower((*it)[k].get<std::string>());
      }
      tables->insert(name);
    }
    if (it.key() == "CommonTableExpr" && it->is_object() && it->contains("ctename")) {
      ctes->insert(Lower((*it)["ctename"].get<std::string>()));
    }
    Relations(*it, tables, ctes);
  }
}

bool Names(const std::string& name, const std::string& want) {
  return name == want || name.ends_with("." + want);
}

// A statement's shape: its text with every literal a '?', so that the same question asked for
// other values folds into one. Quoted identifiers stay as they are; an IN list or a VALUES row of
// literals is one '?' whatever its length; ordinals after BY (GROUP BY 1, ORDER BY 2) stay.
std::string Shape(std::string_view s) {
  std::string out;
  std::string last_word;  // the last keyword or name, upper case
  int list_depth = -1;    // the parenthesis depth of an IN ( or VALUES ( list, -1: none
  int depth = 0;
  bool by_list = false;  // after GROUP BY / ORDER BY, until the next word
  auto literal = [&] {
    if (list_depth == depth && (out.ends_with("?, ") || out.ends_with("?,"))) {
      while (out.back() != '?') out.pop_back();  // the list's earlier '?' stands for this one
      return;
    }
    out += '?';
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"') {  // a quoted identifier, whole
      size_t j = s.find('"', i + 1);
      if (j == std::string_view::npos) j = s.size() - 1;
      out.append(s.substr(i, j + 1 - i));
      last_word.clear();
      i = j;
    } else if (ch == '\'') {  // a string literal ('' inside it is a quote)
      size_t j = i + 1;
      while (j < s.size() && !(s[j] == '\'' && (j + 1 >= s.size() || s[j + 1] != '\''))) {
        j += s[j] == '\'' ? 2 : 1;
      }
      i = j;
      literal();
    } else if (std::isalpha(u) || ch == '_') {
      size_t j = i;
      while (j < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '$')) {
        ++j;
      }
      const std::string word(s.substr(i, j - i));
      out += word;
      last_word = word;
      std::ranges::transform(last_word, last_word.begin(),
                             [](unsigned char c) { return std::toupper(c); });
      by_list = last_word == "BY";
      i = j - 1;
    } else if (std::isdigit(u) && !(i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) ||
                                              s[i - 1] == '_' || s[i - 1] == '.'))) {
      size_t j = i;
      while (j + 1 < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[j + 1])) || s[j + 1] == '.')) {
        ++j;
      }
      if (by_list) {
        out.append(s.substr(i, j + 1 - i));
      } else {
        literal();
      }
      i = j;
    } else {
      if (ch == '(') {
        ++depth;
        if (last_word == "IN" || last_word == "VALUES") list_depth = depth;
        last_word.clear();
      } else if (ch == ')') {
        if (list_depth == depth) list_depth = -1;
        --depth;
      }
      out += ch;
    }
  }
  return out;
}

struct Operand {
  enum Kind { kOther, kColumn, kLiteral } kind = kOther;
  std::string column;     // kColumn: the last part of the name
  bool temporal = false;  // a column under a function, or a date/timestamp literal
};

Operand Classify(const json& node) {
  auto [type, body] = Unwrap(node);
  Operand o;
  if (type == "ColumnRef") {
    const json& fields = NodeField(*body, "fields");
    std::string name = LastName(fields);
    if (!name.empty()) o = {Operand::kColumn, Lower(name), false};
  } else if (type == "FuncCall") {
    // f(col): the column is the argument, and a function over a column is usually date_trunc,
    // date, year, ... (the old log reader's rule).
    const json& args = NodeField(*body, "args");
    if (args.is_array() && args.size() == 1) {
      Operand arg = Classify(args[0]);
      if (arg.kind == Operand::kColumn) o = {Operand::kColumn, arg.column, true};
    }
  } else if (type == "A_Const") {
    o.kind = Operand::kLiteral;
    if (body->contains("sval")) {
      const json& sval = NodeField(NodeField(*body, "sval"), "sval");
      std::string v = sval.is_string() ? sval.get<std::string>() : std::string();
      o.temporal = v.size() >= 10 && std::isdigit(static_cast<unsigned char>(v[0])) &&
                   v[4] == '-' && v[7] == '-';
    }
  } else if (type == "TypeCast") {
    Operand arg = Classify(NodeField(*body, "arg"));
    if (arg.kind == Operand::kLiteral) {
      std::string t = Lower(LastName(NodeField(NodeField(*body, "typeName"), "names")));
      o = {Operand::kLiteral, "", arg.temporal || t == "date" || t.starts_with("timestamp")};
    } else if (arg.kind == Operand::kColumn) {
      o = arg;
    }
  }
  return o;
}

struct Counter {
  std::map<std::string, ColumnUse>& uses;
  LoggedQuery& query;
  bool eq_seen = false;
  bool wide_seen = false;

  void Count(const std::string& column, const ColumnUse& u) {
    query.filtered = true;
    ColumnUse& total = uses[column];
    total.column = column;
    total.equality += u.equality;
    total.range += u.range;
    total.in_list += u.in_list;
    total.temporal |= u.temporal || (TemporalName(column) && u.range > 0);
  }

  void Comparison(const json& a_expr) {
    const std::string kind = a_expr.value("kind", "");
    const std::string op = LastName(a_expr.value("name", json::array()));
    Operand left = Classify(a_expr.value("lexpr", json::object()));
    if (kind == "AEXPR_OP") {
      Operand right = Classify(a_expr.value("rexpr", json::object()));
      if (left.kind == Operand::kLiteral && right.kind == Operand::kColumn) std::swap(left, right);
      if (left.kind != Operand::kColumn || right.kind != Operand::kLiteral) return;
      ColumnUse u;
      u.temporal = left.temporal || right.temporal;
      if (op == "=") {
        u.equality = 1;
        eq_seen = true;
      } else if (op == "<" || op == "<=" || op == ">" || op == ">=") {
        u.range = 1;
        wide_seen = true;
      } else {
        wide_seen = true;  // <> scans nearly everything
        return;
      }
      Count(left.column, u);
    } else if (kind == "AEXPR_IN" && left.kind == Operand::kColumn) {
      if (op == "<>") {  // NOT IN
        wide_seen = true;
        return;
      }
      ColumnUse u;
      u.in_list = 1;
      eq_seen = true;
      Count(left.column, u);
    } else if ((kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") &&
               left.kind == Operand::kColumn) {
      wide_seen = true;
      if (kind == "AEXPR_NOT_BETWEEN") return;
      ColumnUse u;
      u.range = 1;
      u.temporal = left.temporal;
      auto [lt, list] = Unwrap(NodeField(a_expr, "rexpr"));
      if (lt == "List") {
        const json& items = NodeField(*list, "items");
        if (items.is_array()) {
          for (const auto& item : items) u.temporal |= Classify(item).temporal;
        }
      }
      Count(left.column, u);
    }
  }

  // Every comparison in `node`, however deep (AND, OR, NOT, subqueries).
  void Walk(const json& node) {
    if (node.is_array()) {
      for (const auto& n : node) Walk(n);
      return;
    }
    if (!node.is_object()) return;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "A_Expr" && it->is_object()) Comparison(*it);
      Walk(*it);
    }
  }
};

}  // namespace

Result<bench::QueryLogAnalysis> AnalyzeQueryLog(std::string_view log, std::string_view table) {
  bench::QueryLogAnalysis a;
  std::map<std::string, ColumnUse> uses;
  std::map<std::string, size_t> seen;  // by shape
  const std::string want = Lower(std::string(table));
  for (const auto& text : SplitSql(log)) {
    const std::string stmt = Normalize(text);
    if (stmt.empty()) continue;
    auto parsed = ParseStatement(stmt);
    if (!parsed) continue;  // not SQL floe's parser reads: skipped
    std::set<std::string> tables, ctes;
    Relations(parsed->node, &tables, &ctes);
    if (!want.empty() &&
        std::ranges::none_of(tables, [&](const std::string& t) { return Names(t, want); })) {
      continue;
    }
    ++a.statements;
    const std::string shape = Shape(stmt);
    auto it = seen.find(shape);
    size_t index;
    if (it != seen.end()) {
      index = it->second;
      a.queries[index].count++;
    } else {
      index = a.queries.size();
      seen[shape] = index;
      LoggedQuery q{stmt, 1, false, false, ""};
      std::vector<std::string> others;
      for (const auto& t : tables) {
        if (!Names(t, want) && !ctes.contains(t)) others.push_back(t);
      }
      if (parsed->kind != "SelectStmt") {
        q.cannot_run = "not a SELECT: a worksheet's questions read the table";
      } else if (!others.empty()) {
        std::string list;
        for (const auto& t : others) list += (list.empty() ? "" : ", ") + t;
        q.cannot_run = fmt::format(
            "also reads {}, which the designs' warehouse does not hold (a worksheet builds one "
            "table)",
            list);
      }
      a.queries.push_back(std::move(q));
    }
    // The conditions that select rows: WHERE (and those of the subqueries in it).
    if (parsed->kind != "SelectStmt" || !parsed->node.contains("whereClause")) continue;
    Counter counter{uses, a.queries[index]};
    counter.Walk(parsed->node["whereClause"]);
    a.queries[index].point = counter.eq_seen && !counter.wide_seen;
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

}  // namespace floe::sql
