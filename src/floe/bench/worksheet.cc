// Worksheet parsing. yaml-cpp throws; every exception is caught here and becomes one error that
// names the key path and, when yaml-cpp knows it, the line.
#include "floe/bench/worksheet.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "floe/iceberg/data_writer.h"

namespace floe::bench {
namespace {

using Path = std::string;

std::unexpected<Error> Bad(std::string_view origin, const Path& key, const YAML::Node& node,
                           std::string_view what) {
  std::string where;
  if (node.IsDefined() && node.Mark().line >= 0)
    where = fmt::format(" (line {})", node.Mark().line + 1);
  return InvalidInput("{}: {}{}: {}", origin, key, where, what);
}

struct Reader {
  std::string_view origin;

  Status CheckKeys(const YAML::Node& map, const Path& path,
                   const std::set<std::string>& allowed) const {
    if (!map.IsMap()) return Bad(origin, path, map, "expected a mapping");
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) {
          if (!list.empty()) list += ", ";
          list += a;
        }
        return Bad(origin, path.empty() ? key : fmt::format("{}.{}", path, key), kv.first,
                   fmt::format("unknown key (expected one of: {})", list));
      }
    }
    return {};
  }

  Result<std::string> String(const YAML::Node& n, const Path& path) const {
    if (!n.IsScalar()) return Bad(origin, path, n, "expected a string");
    return n.as<std::string>();
  }

  Result<int64_t> Int(const YAML::Node& n, const Path& path, int64_t min) const {
    if (!n.IsScalar()) return Bad(origin, path, n, "expected an integer");
    std::string s = n.as<std::string>();
    std::string digits;
    for (char ch : s)
      if (ch != '_') digits.push_back(ch);
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(digits, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != digits.size())
      return Bad(origin, path, n, fmt::format("'{}' is not an integer", s));
    if (v < min) return Bad(origin, path, n, fmt::format("must be >= {}, got {}", min, v));
    return v;
  }

  Result<double> Number(const YAML::Node& n, const Path& path) const {
    if (!n.IsScalar()) return Bad(origin, path, n, "expected a number");
    std::string s = n.as<std::string>();
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != s.size() || !std::isfinite(v) || v < 0)
      return Bad(origin, path, n, fmt::format("'{}' is not a non-negative number", s));
    return v;
  }

  Result<int64_t> Size(const YAML::Node& n, const Path& path) const {
    if (!n.IsScalar()) return Bad(origin, path, n, "expected a size such as 2MB or 512MiB");
    auto v = ParseSize(n.as<std::string>());
    if (!v) return Bad(origin, path, n, v.error().message);
    return v;
  }

  Result<std::vector<std::string>> Strings(const YAML::Node& n, const Path& path) const {
    std::vector<std::string> out;
    if (n.IsScalar()) {
      // "a, b" is accepted as a list.
      std::string s = n.as<std::string>();
      std::stringstream ss(s);
      std::string item;
      while (std::getline(ss, item, ',')) {
        size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
        if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
      }
      return out;
    }
    if (!n.IsSequence()) return Bad(origin, path, n, "expected a list");
    for (size_t i = 0; i < n.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(std::string s, String(n[i], fmt::format("{}[{}]", path, i)));
      out.push_back(std::move(s));
    }
    return out;
  }

  Result<SourceSpec> Source(const YAML::Node& n) const {
    SourceSpec s;
    FLOE_RETURN_IF_ERROR(CheckKeys(
        n, "source", {"generator", "parquet", "table", "snapshot", "rows", "seed", "writes"}));
    if (n["generator"]) {
      FLOE_ASSIGN_OR_RETURN(s.generator, String(n["generator"], "source.generator"));
      static const std::set<std::string> known = {"events", "orders", "customers", "store_sales"};
      if (!known.count(s.generator))
        return Bad(origin, "source.generator", n["generator"],
                   fmt::format("unknown generator '{}' (expected events, orders, customers or "
                               "store_sales)",
                               s.generator));
    }
    if (n["parquet"]) {
      FLOE_ASSIGN_OR_RETURN(s.parquet, Strings(n["parquet"], "source.parquet"));
    }
    if (n["table"]) {
      FLOE_ASSIGN_OR_RETURN(s.table, String(n["table"], "source.table"));
      if (s.table.find('.') == std::string::npos) {
        return Bad(origin, "source.table", n["table"],
                   fmt::format("table '{}' needs its namespace: NAMESPACE.TABLE", s.table));
      }
    }
    if (n["snapshot"]) {
      if (s.table.empty()) {
        return Bad(origin, "source.snapshot", n["snapshot"], "a snapshot pins a source table");
      }
      FLOE_ASSIGN_OR_RETURN(s.snapshot_id, Int(n["snapshot"], "source.snapshot", 1));
    }
    const int kinds = !s.generator.empty() + !s.parquet.empty() + !s.table.empty();
    if (kinds != 1)
      return Bad(origin, "source", n, "needs exactly one of 'generator', 'parquet' or 'table'");
    if (!s.table.empty() && (n["rows"] || n["seed"])) {
      return Bad(origin, "source", n,
                 "a source table has its rows: 'rows' and 'seed' are a generator's");
    }
    if (n["rows"]) {
      FLOE_ASSIGN_OR_RETURN(s.rows, Int(n["rows"], "source.rows", 1));
    }
    if (n["seed"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t seed, Int(n["seed"], "source.seed", 0));
      s.seed = static_cast<uint64_t>(seed);
    }
    if (n["writes"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t w, Int(n["writes"], "source.writes", 1));
      s.writes = static_cast<int>(w);
    }
    return s;
  }

  Result<MaintenanceStep> Step(const YAML::Node& n, const Path& path) const {
    MaintenanceStep m;
    FLOE_RETURN_IF_ERROR(CheckKeys(n, path, {"rewrite", "sort_by", "target_file_size"}));
    if (!n["rewrite"]) return Bad(origin, path, n, "a step needs 'rewrite: sort|binpack'");
    FLOE_ASSIGN_OR_RETURN(m.strategy, String(n["rewrite"], path + ".rewrite"));
    if (m.strategy != "sort" && m.strategy != "binpack")
      return Bad(origin, path + ".rewrite", n["rewrite"],
                 fmt::format("unknown strategy '{}' (expected sort or binpack)", m.strategy));
    if (n["sort_by"]) {
      FLOE_ASSIGN_OR_RETURN(m.sort_by, String(n["sort_by"], path + ".sort_by"));
    }
    if (n["target_file_size"]) {
      FLOE_ASSIGN_OR_RETURN(m.target_file_size,
                            Size(n["target_file_size"], path + ".target_file_size"));
    }
    return m;
  }

  Result<Design> DesignAt(const YAML::Node& n, const Path& p) const {
    Design d;
    FLOE_RETURN_IF_ERROR(CheckKeys(
        n, p,
        {"name", "description", "built_by", "partition_by", "sort_by", "writes", "tasks_per_write",
         "target_file_size", "row_group_size", "page_size", "page_row_limit", "bloom_columns",
         "colocated_columns", "properties", "maintenance"}));
    if (!n["name"]) return Bad(origin, p + ".name", n, "missing (every design needs a name)");
    FLOE_ASSIGN_OR_RETURN(d.name, String(n["name"], p + ".name"));
    if (d.name.empty()) return Bad(origin, p + ".name", n["name"], "must not be empty");
    if (n["description"]) {
      FLOE_ASSIGN_OR_RETURN(d.description, String(n["description"], p + ".description"));
    }
    if (n["built_by"]) {
      FLOE_ASSIGN_OR_RETURN(d.built_by, String(n["built_by"], p + ".built_by"));
      if (d.built_by != "floe" && d.built_by != "spark")
        return Bad(
            origin, p + ".built_by", n["built_by"],
            fmt::format("'{}' is not an engine that builds designs (floe or spark)", d.built_by));
    }
    if (n["partition_by"]) {
      FLOE_ASSIGN_OR_RETURN(d.partition_by, String(n["partition_by"], p + ".partition_by"));
    }
    if (n["sort_by"]) {
      FLOE_ASSIGN_OR_RETURN(d.sort_by, String(n["sort_by"], p + ".sort_by"));
    }
    if (n["writes"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t w, Int(n["writes"], p + ".writes", 1));
      d.writes = static_cast<int>(w);
    }
    if (n["tasks_per_write"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t t, Int(n["tasks_per_write"], p + ".tasks_per_write", 1));
      d.tasks_per_write = static_cast<int>(t);
    }
    if (n["target_file_size"]) {
      FLOE_ASSIGN_OR_RETURN(d.target_file_size,
                            Size(n["target_file_size"], p + ".target_file_size"));
    }
    if (n["row_group_size"]) {
      FLOE_ASSIGN_OR_RETURN(d.row_group_size, Size(n["row_group_size"], p + ".row_group_size"));
    }
    if (n["page_size"]) {
      FLOE_ASSIGN_OR_RETURN(d.page_size, Size(n["page_size"], p + ".page_size"));
    }
    if (n["page_row_limit"]) {
      FLOE_ASSIGN_OR_RETURN(d.page_row_limit, Int(n["page_row_limit"], p + ".page_row_limit", 1));
    }
    if (n["bloom_columns"]) {
      FLOE_ASSIGN_OR_RETURN(d.bloom_columns, Strings(n["bloom_columns"], p + ".bloom_columns"));
    }
    if (n["colocated_columns"]) {
      FLOE_ASSIGN_OR_RETURN(d.colocated_columns,
                            Strings(n["colocated_columns"], p + ".colocated_columns"));
    }
    if (n["properties"]) {
      const YAML::Node& props = n["properties"];
      if (!props.IsMap()) return Bad(origin, p + ".properties", props, "expected a mapping");
      for (const auto& kv : props) {
        std::string k = kv.first.as<std::string>();
        FLOE_ASSIGN_OR_RETURN(std::string v,
                              String(kv.second, fmt::format("{}.properties.{}", p, k)));
        d.properties[k] = v;
      }
    }
    if (n["maintenance"]) {
      const YAML::Node& steps = n["maintenance"];
      if (!steps.IsSequence())
        return Bad(origin, p + ".maintenance", steps, "expected a list of steps");
      for (size_t i = 0; i < steps.size(); ++i) {
        FLOE_ASSIGN_OR_RETURN(MaintenanceStep s,
                              Step(steps[i], fmt::format("{}.maintenance[{}]", p, i)));
        d.maintenance.push_back(std::move(s));
      }
    }
    return d;
  }

  Result<Question> QuestionAt(const YAML::Node& n, const Path& p) const {
    Question q;
    FLOE_RETURN_IF_ERROR(CheckKeys(n, p, {"name", "sql", "daily", "weight"}));
    if (!n["name"]) return Bad(origin, p + ".name", n, "missing (every question needs a name)");
    FLOE_ASSIGN_OR_RETURN(q.name, String(n["name"], p + ".name"));
    if (!n["sql"]) return Bad(origin, p + ".sql", n, "missing (every question needs its SQL)");
    FLOE_ASSIGN_OR_RETURN(q.sql, String(n["sql"], p + ".sql"));
    if (n["daily"] && n["weight"])
      return Bad(origin, p, n, "give 'daily' or 'weight', not both (they mean the same)");
    if (n["daily"]) {
      FLOE_ASSIGN_OR_RETURN(q.daily, Number(n["daily"], p + ".daily"));
    }
    if (n["weight"]) {
      FLOE_ASSIGN_OR_RETURN(q.daily, Number(n["weight"], p + ".weight"));
    }
    return q;
  }

  Result<ChangeSpec> Changes(const YAML::Node& n) const {
    ChangeSpec c;
    FLOE_RETURN_IF_ERROR(
        CheckKeys(n, "changes", {"sql", "fraction", "rounds", "daily", "compaction"}));
    if (!n["sql"]) return Bad(origin, "changes.sql", n, "missing (the statement each round runs)");
    FLOE_ASSIGN_OR_RETURN(c.sql, String(n["sql"], "changes.sql"));
    if (c.sql.find("{changes}") == std::string::npos) {
      return Bad(origin, "changes.sql", n["sql"], "must name the round's rows as {changes}");
    }
    if (n["fraction"]) {
      FLOE_ASSIGN_OR_RETURN(c.fraction, Number(n["fraction"], "changes.fraction"));
      if (!(c.fraction > 0 && c.fraction <= 1)) {
        return Bad(origin, "changes.fraction", n["fraction"], "must lie in (0, 1]");
      }
    }
    if (n["rounds"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t r, Int(n["rounds"], "changes.rounds", 1));
      c.rounds = static_cast<int>(r);
    }
    if (n["daily"]) {
      FLOE_ASSIGN_OR_RETURN(c.daily, Number(n["daily"], "changes.daily"));
    }
    if (n["compaction"]) {
      FLOE_ASSIGN_OR_RETURN(c.compaction, Strings(n["compaction"], "changes.compaction"));
      for (size_t i = 0; i < c.compaction.size(); ++i) {
        if (c.compaction[i] != "rewrite_position_deletes" &&
            c.compaction[i] != "rewrite_data_files") {
          return Bad(origin, fmt::format("changes.compaction[{}]", i), n["compaction"],
                     fmt::format("unknown step '{}' (expected rewrite_position_deletes or "
                                 "rewrite_data_files)",
                                 c.compaction[i]));
        }
      }
    }
    return c;
  }

  Result<Worksheet> Sheet(const YAML::Node& root) const {
    Worksheet w;
    if (!root.IsMap()) return Bad(origin, "(top level)", root, "expected a mapping");
    FLOE_RETURN_IF_ERROR(CheckKeys(root, "",
                                   {"name", "description", "table", "source", "designs",
                                    "questions", "changes", "build_rounds"}));
    if (root["name"]) {
      FLOE_ASSIGN_OR_RETURN(w.name, String(root["name"], "name"));
    }
    if (root["description"]) {
      FLOE_ASSIGN_OR_RETURN(w.description, String(root["description"], "description"));
    }
    if (root["table"]) {
      FLOE_ASSIGN_OR_RETURN(w.table, String(root["table"], "table"));
      auto dot = w.table.find('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == w.table.size())
        return Bad(origin, "table", root["table"],
                   fmt::format("'{}' is not NAMESPACE.TABLE", w.table));
    }
    if (root["build_rounds"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t rounds, Int(root["build_rounds"], "build_rounds", 1));
      if (rounds > 100)
        return Bad(origin, "build_rounds", root["build_rounds"], "at most 100 builds per design");
      w.build_rounds = static_cast<int>(rounds);
    }
    if (!root["source"]) return Bad(origin, "source", root, "missing");
    FLOE_ASSIGN_OR_RETURN(w.source, Source(root["source"]));
    const YAML::Node& designs = root["designs"];
    if (!designs || !designs.IsSequence() || designs.size() == 0)
      return Bad(origin, "designs", designs.IsDefined() ? designs : root,
                 "expected a non-empty list of designs");
    std::set<std::string> names;
    std::map<std::string, std::string> by_table;  // design table -> the design it is built for
    for (size_t i = 0; i < designs.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Design d, DesignAt(designs[i], fmt::format("designs[{}]", i)));
      if (!names.insert(d.name).second)
        return Bad(origin, fmt::format("designs[{}].name", i), designs[i]["name"],
                   fmt::format("duplicate design name '{}'", d.name));
      // Two names that differ only in case or punctuation would build the same table.
      const std::string table = DesignTableName(w, d);
      if (auto [it, fresh] = by_table.emplace(table, d.name); !fresh) {
        return Bad(origin, fmt::format("designs[{}].name", i), designs[i]["name"],
                   fmt::format("design '{}' would be built as the same table as '{}' ({}); give "
                               "it a name that differs in more than case and punctuation",
                               d.name, it->second, table));
      }
      w.designs.push_back(std::move(d));
    }
    const YAML::Node& questions = root["questions"];
    if (!questions || !questions.IsSequence() || questions.size() == 0)
      return Bad(origin, "questions", questions.IsDefined() ? questions : root,
                 "expected a non-empty list of questions");
    for (size_t i = 0; i < questions.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Question q, QuestionAt(questions[i], fmt::format("questions[{}]", i)));
      w.questions.push_back(std::move(q));
    }
    if (root["changes"]) {
      FLOE_ASSIGN_OR_RETURN(w.changes, Changes(root["changes"]));
      if (w.source.generator.empty()) {
        return Bad(origin, "changes", root["changes"],
                   "changes are generated from the source's generator; this source has none");
      }
    }
    return w;
  }
};

std::string Slug(std::string_view name) {
  std::string s;
  for (char ch : name) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (std::isalnum(u)) {
      s.push_back(static_cast<char>(std::tolower(u)));
    } else if (!s.empty() && s.back() != '_') {
      s.push_back('_');
    }
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  return s.empty() ? "design" : s;
}

}  // namespace

std::map<std::string, std::string> Design::TableProperties() const {
  std::map<std::string, std::string> p = properties;
  if (target_file_size) p["write.target-file-size-bytes"] = std::to_string(*target_file_size);
  if (row_group_size) p["write.parquet.row-group-size-bytes"] = std::to_string(*row_group_size);
  if (page_size) p["write.parquet.page-size-bytes"] = std::to_string(*page_size);
  if (page_row_limit) p["write.parquet.page-row-limit"] = std::to_string(*page_row_limit);
  for (const auto& c : bloom_columns) p["write.parquet.bloom-filter-enabled.column." + c] = "true";
  if (!colocated_columns.empty()) {
    std::string list;
    for (const auto& c : colocated_columns) list += (list.empty() ? "" : ",") + c;
    p[iceberg::kColocatedColumnsProperty] = list;
  }
  return p;
}

Result<Worksheet> ParseWorksheet(std::string_view yaml, std::string_view origin) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    return Reader{origin}.Sheet(root);
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: line {}: {}", origin, e.mark.line + 1, e.msg);
  }
}

Result<Worksheet> LoadWorksheet(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("worksheet '{}' cannot be read", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseWorksheet(ss.str(), path);
}

Result<int64_t> ParseSize(std::string_view text) {
  std::string s;
  for (char ch : text)
    if (ch != ' ' && ch != '_') s.push_back(ch);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return InvalidInput("'{}' is not a size (e.g. 2MB, 512MiB, 1048576)", text);
  double v = 0;
  try {
    v = std::stod(s.substr(0, i));
  } catch (...) {
    return InvalidInput("'{}' is not a size (e.g. 2MB, 512MiB, 1048576)", text);
  }
  std::string unit = s.substr(i);
  for (auto& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  double mult = 0;
  if (unit.empty() || unit == "B")
    mult = 1;
  else if (unit == "KB" || unit == "K")
    mult = 1e3;
  else if (unit == "MB" || unit == "M")
    mult = 1e6;
  else if (unit == "GB" || unit == "G")
    mult = 1e9;
  else if (unit == "KIB")
    mult = 1024.0;
  else if (unit == "MIB")
    mult = 1024.0 * 1024;
  else if (unit == "GIB")
    mult = 1024.0 * 1024 * 1024;
  if (mult == 0)
    return InvalidInput("'{}': unknown unit '{}' (B, KB, MB, GB, KiB, MiB, GiB)", text,
                        s.substr(i));
  double bytes = v * mult;
  if (bytes < 1 || bytes > 1e15) return InvalidInput("'{}' is out of range", text);
  return static_cast<int64_t>(std::llround(bytes));
}

std::string FormatBytes(double b) {
  if (b < 1e3) return fmt::format("{:.0f} B", b);
  if (b < 1e6) return fmt::format("{:.1f} KB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.2f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

std::string DesignTableName(const Worksheet& sheet, const Design& design) {
  return sheet.table + "_" + Slug(design.name);
}

Result<std::string> QuestionSql(const Question& q, const std::string& table, int64_t source_rows,
                                const QuantileFn& quantile) {
  std::string out;
  std::string_view sql = q.sql;
  while (!sql.empty()) {
    const size_t open = sql.find('{');
    if (open == std::string_view::npos) break;
    out += sql.substr(0, open);
    sql.remove_prefix(open);
    if (sql.starts_with("{table}")) {
      out += table;
      sql.remove_prefix(7);
      continue;
    }
    if (sql.starts_with("{row:")) {
      const size_t close = sql.find('}');
      const std::string f(sql.substr(5, close == std::string_view::npos ? 0 : close - 5));
      char* end = nullptr;
      const double fraction = f.empty() ? -1 : std::strtod(f.c_str(), &end);
      if (close == std::string_view::npos || end != f.c_str() + f.size() || !(fraction >= 0) ||
          !(fraction < 1)) {
        return InvalidInput("question '{}': {{row:F}} needs a fraction 0 <= F < 1, got '{}'",
                            q.name,
                            sql.substr(0, close == std::string_view::npos ? 12 : close + 1));
      }
      out += std::to_string(static_cast<int64_t>(fraction * static_cast<double>(source_rows)));
      sql.remove_prefix(close + 1);
      continue;
    }
    if (sql.starts_with("{quantile:")) {
      const size_t close = sql.find('}');
      const std::string_view whole =
          sql.substr(0, close == std::string_view::npos ? 16 : close + 1);
      const std::string_view body =
          close == std::string_view::npos ? std::string_view() : sql.substr(10, close - 10);
      const size_t colon = body.rfind(':');
      const std::string column(body.substr(0, colon == std::string_view::npos ? 0 : colon));
      const std::string f(colon == std::string_view::npos ? "" : body.substr(colon + 1));
      char* end = nullptr;
      const double fraction = f.empty() ? -1 : std::strtod(f.c_str(), &end);
      if (column.empty() || end != f.c_str() + f.size() || !(fraction >= 0) || !(fraction <= 1)) {
        return InvalidInput(
            "question '{}': {{quantile:COLUMN:F}} needs a column and a fraction 0 <= F <= 1, "
            "got '{}'",
            q.name, whole);
      }
      if (!quantile)
        return InvalidInput("question '{}': {} needs the source's rows", q.name, whole);
      auto value = quantile(column, fraction);
      if (!value)
        return InvalidInput("question '{}': {}: {}", q.name, whole, value.error().message);
      out += *value;
      sql.remove_prefix(close + 1);
      continue;
    }
    out += '{';
    sql.remove_prefix(1);
  }
  out += sql;
  return out;
}

}  // namespace floe::bench
