// `floe table scan NS.T [--where SQL] [--columns A,B] [--format table|csv|json] [--stats]
// [--limit N] [--snapshot ID] [--read-strategy NAME]`: a table's rows as the SELECT it stands for
// -- `SELECT A, B FROM NS.T [FOR VERSION AS OF ID] [WHERE SQL] [LIMIT N]` -- run by the SQL engine
// and printed as `floe query` prints (query_session.h), so its filter is SQL's WHERE. And
// `floe table list [NS] [--format ...]`: the warehouse's tables as `SHOW TABLES [IN NS]` lists
// them.
#include <optional>

#include <fmt/format.h>

#include "floe/parquet/read_strategy.h"
#include "floe/sql/parser.h"
#include "query_session.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

struct ScanArgs {
  std::string table;
  std::string where;
  std::string columns;
  QueryOutput output;
  int64_t limit = -1;
  int64_t snapshot = -1;
  // Given only when typed: then they are session settings, over a table's properties.
  std::optional<std::string> read_strategy;
  std::optional<std::string> read_objective;
  std::vector<std::string> sets;
};

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The SELECT a scan stands for. Names are quoted, so any column or table name is taken as it is.
Result<std::string> ScanSql(const ScanArgs& a) {
  FLOE_ASSIGN_OR_RETURN(std::string from, QuotedTableName(a.table));
  std::string select;
  size_t start = 0;
  while (!a.columns.empty() && start <= a.columns.size()) {
    size_t end = a.columns.find(',', start);
    if (end == std::string::npos) end = a.columns.size();
    std::string_view name = std::string_view(a.columns).substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) return InvalidInput("--columns '{}': an empty column name", a.columns);
    select += (select.empty() ? "" : ", ") + QuoteIdentifier(name);
    start = end + 1;
  }
  if (select.empty()) select = "*";
  std::string sql = fmt::format("SELECT {} FROM {}", select, from);
  if (a.snapshot >= 0) sql += fmt::format(" FOR VERSION AS OF {}", a.snapshot);
  if (!a.where.empty()) sql += " WHERE " + a.where;
  if (a.limit >= 0) sql += fmt::format(" LIMIT {}", a.limit);
  // The flags must make one SELECT: a --where that ends the statement or starts another is
  // rejected here, before anything runs.
  FLOE_ASSIGN_OR_RETURN(sql::ParsedStatement parsed, sql::ParseStatement(sql));
  if (parsed.kind != "SelectStmt") return InvalidInput("not a SELECT");
  return sql;
}

int Scan(const GlobalOptions& g, const ScanArgs& a) {
  auto strategy = parquet::ParseReadStrategy(a.read_strategy.value_or("floe"));
  if (!strategy) return ReportError(strategy.error());
  auto sql = ScanSql(a);
  auto in_query = [&](const Error& e) {
    return Error{e.kind, fmt::format("table scan of '{}' as \"{}\": {}", a.table,
                                     sql ? *sql : std::string(), e.message)};
  };
  if (!sql) {
    // Name the flags' text: the statement may not have been built.
    const Error& e = sql.error();
    if (e.kind != ErrorKind::kInvalidInput || a.where.empty()) return ReportError(e);
    return ReportError(Error{
        e.kind, fmt::format("table scan of '{}' --where '{}': {}", a.table, a.where, e.message)});
  }
  QueryOutput output = a.output;
  auto planner = PlannerOptionsFor(g, a.read_objective.value_or("latency"));
  if (!planner) return ReportError(planner.error());
  auto settings = SettingsFrom(a.sets, a.read_strategy, a.read_objective);
  if (!settings) return ReportError(settings.error());
  auto session =
      QuerySession::Open(g, *strategy, *planner, std::move(output), std::move(*settings));
  if (!session) return ReportError(session.error());
  Status run = (*session)->Run(*sql);
  if (!run) return ReportError(in_query(run.error()));
  if (Status closed = (*session)->Close(); !closed) return ReportError(closed.error());
  return 0;
}

struct ListArgs {
  std::string ns;
  QueryOutput output;
};

int List(const GlobalOptions& g, const ListArgs& a) {
  std::string sql = "SHOW TABLES";
  if (!a.ns.empty()) {
    // Each level quoted, so any namespace name is taken as it is.
    std::string ns;
    size_t start = 0;
    while (start <= a.ns.size()) {
      size_t end = a.ns.find('.', start);
      if (end == std::string::npos) end = a.ns.size();
      const std::string level = a.ns.substr(start, end - start);
      if (level.empty()) {
        return ReportError(InvalidInput("table list '{}': an empty namespace level", a.ns).error());
      }
      ns += (ns.empty() ? "" : ".") + QuoteIdentifier(level);
      start = end + 1;
    }
    sql += " IN " + ns;
  }
  return PrintQuery(g, a.output, sql);
}

}  // namespace

int PrintQuery(const GlobalOptions& g, QueryOutput output, const std::string& sql) {
  auto planner = PlannerOptionsFor(g, "latency");
  if (!planner) return ReportError(planner.error());
  auto settings = SettingsFrom({}, std::nullopt, std::nullopt);
  if (!settings) return ReportError(settings.error());
  auto session = QuerySession::Open(g, parquet::ReadStrategy::kFloe, *planner, std::move(output),
                                    std::move(*settings));
  if (!session) return ReportError(session.error());
  Status run = (*session)->Run(sql);
  if (!run) return ReportError(run.error());
  if (Status closed = (*session)->Close(); !closed) return ReportError(closed.error());
  return 0;
}

Result<std::string> QuotedTableName(const std::string& table) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(table));
  std::string from;
  for (const auto& level : id.ns) from += QuoteIdentifier(level) + ".";
  return from + QuoteIdentifier(id.name);
}

void AddTableListCommand(CLI::App& table_cmd, GlobalOptions& options) {
  auto args = std::make_shared<ListArgs>();
  auto* sub = table_cmd.add_subcommand(
      "list", "The warehouse's tables (in one namespace if given): SHOW TABLES [IN NS]");
  sub->add_option("namespace", args->ns, "Only this namespace, e.g. shop or a.b");
  AddOutputOptions(sub, &args->output);
  sub->callback([&options, args] {
    int rc = List(options, *args);
    std::fflush(stdout);
    if (rc != 0) std::exit(rc);
  });
}

void AddTableScanCommand(CLI::App& table_cmd, GlobalOptions& options) {
  auto args = std::make_shared<ScanArgs>();
  auto* sub = table_cmd.add_subcommand(
      "scan",
      "Print a table's rows (optionally filtered), with pruning numbers: the SELECT of `floe "
      "query`");
  sub->add_option("table", args->table, "Table name, NAMESPACE.TABLE")->required();
  sub->add_option("--where", args->where,
                  "Filter: a SQL WHERE condition, e.g. \"day = '2024-01-03'\"");
  sub->add_option("--columns", args->columns, "Only these columns, comma separated (default all)");
  AddOutputOptions(sub, &args->output);
  sub->add_flag("--stats", args->output.stats,
                "Also print files opened/skipped, requests and bytes");
  sub->add_option("--limit", args->limit, "At most N rows");
  sub->add_option("--snapshot", args->snapshot, "Read this snapshot id (time travel)");
  sub->add_option("--read-strategy", args->read_strategy,
                  "How data files are fetched: floe (default), parquet-mr, aal, eager, arrow-rs");
  sub->add_option("--read-objective", args->read_objective, kReadObjectiveHelp);
  AddSetOption(sub, &args->sets);
  AddTraceOption(sub, &args->sets);
  sub->callback([&options, args] {
    int rc = Scan(options, *args);
    std::fflush(stdout);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
