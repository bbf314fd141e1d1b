// `floe query [-e SQL | -f FILE] [--format table|csv|json] [--stats] [--read-strategy NAME]`:
// SQL over the warehouse's tables with the four numbers (docs/cli.md). Requests and bytes come from
// a CountingStore around the warehouse store, so metadata reads count too. With neither -e nor -f,
// the interactive shell (shell.h), or the statements read from stdin when it is not a terminal.
// Statements from a file or a pipe run as each one ends.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "cli.h"
#include "floe/parquet/read_strategy.h"
#include "floe/sql/ddl.h"
#include "floe/sql/parser.h"
#include "query_session.h"
#include "shell.h"

namespace floe::cli {
namespace {

struct QueryArgs {
  std::string sql;
  std::string file;
  QueryOutput output;
  // Given only when typed: then they are session settings, over a table's properties.
  std::optional<std::string> read_strategy;
  std::optional<std::string> read_objective;
  std::vector<std::string> sets;
};

// Runs the statements of `f` (a file or a pipe) as each one ends, so a program can drive one
// long-lived process over a pipe, statement by statement; a statement still open at the end of
// the input runs then. With `dot_commands`, a line that starts one runs as in the shell (shell.h);
// .quit or .exit ends the input.
// The first error stops the run. Input with no statement (an empty pipe, a file of comments) runs
// nothing and succeeds, as DuckDB's and sqlite3's shells do.
int RunStream(QuerySession& s, std::FILE* f, bool dot_commands) {
  std::string pending;
  int line_of_pending = 1;  // the input's line where `pending` starts, for error positions
  auto run = [&](const std::string& text) -> Status {
    for (const auto& st : sql::SplitSql(text, line_of_pending)) {
      FLOE_RETURN_IF_ERROR(s.Run(st));
    }
    line_of_pending += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    return {};
  };
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  Status status;
  while (status && (n = getline(&line, &cap, f)) >= 0) {
    std::string_view l(line, static_cast<size_t>(n));
    if (dot_commands && OnlyComments(pending)) {
      const DotResult dot = RunDotCommand(s, std::string(l));
      if (dot == DotResult::kQuit) break;
      if (dot == DotResult::kFailed) {
        std::free(line);
        return 2;  // it said why; later statements do not run, as after a failed statement
      }
      if (dot == DotResult::kDone) {
        line_of_pending += 1 + static_cast<int>(std::count(pending.begin(), pending.end(), '\n'));
        pending.clear();  // the comments before it
        continue;
      }
    }
    pending += l;
    if (!StatementComplete(pending)) continue;
    status = run(pending);
    pending.clear();
  }
  std::free(line);
  if (status) status = run(pending);
  if (!status) return ReportError(status.error());
  return 0;
}

int Query(const GlobalOptions& g, const QueryArgs& a) {
  if (!a.sql.empty() && !a.file.empty()) {
    return ReportError(Error{ErrorKind::kInvalidInput, "give -e SQL or -f FILE, not both"});
  }
  auto strategy = parquet::ParseReadStrategy(a.read_strategy.value_or("floe"));
  if (!strategy) return ReportError(strategy.error());
  std::FILE* file = nullptr;
  if (!a.file.empty()) {
    file = a.file == "-" ? stdin : std::fopen(a.file.c_str(), "rb");
    if (file == nullptr) {
      return ReportError(Error{ErrorKind::kNotFound, fmt::format("cannot read '{}'", a.file)});
    }
  }
  auto planner = PlannerOptionsFor(g, a.read_objective.value_or("latency"));
  if (!planner) return ReportError(planner.error());
  auto settings = SettingsFrom(a.sets, a.read_strategy, a.read_objective);
  if (!settings) return ReportError(settings.error());
  QueryOutput output = a.output;
  // A missing warehouse is made for a CREATE TABLE given with -e, and for the interactive shell.
  bool creates = file == nullptr && a.sql.empty() && isatty(STDIN_FILENO);
  // A DDL statement that does not parse says so, not that the warehouse is missing.
  std::optional<Error> malformed;
  for (const auto& st : sql::SplitSql(a.sql)) {
    auto ddl = sql::ParseDdlStatement(st);
    if (ddl && *ddl && (*ddl)->kind == sql::DdlStatement::Kind::kCreate) creates = true;
    if (ddl && !*ddl && !malformed) malformed = ddl->error();
  }
  auto session =
      QuerySession::Open(g, *strategy, *planner, std::move(output), std::move(*settings), creates);
  if (!session) {
    if (file != nullptr && file != stdin) std::fclose(file);
    if (malformed && session.error().kind == ErrorKind::kNotFound) return ReportError(*malformed);
    return ReportError(session.error());
  }
  QuerySession& s = **session;
  auto run = [&]() -> int {
    if (file != nullptr) {
      int rc = RunStream(s, file, false);
      if (file != stdin) std::fclose(file);
      return rc;
    }
    if (a.sql.empty()) {
      if (isatty(STDIN_FILENO)) return Shell(s);
      return RunStream(s, stdin, true);  // piped statements
    }
    auto statements = sql::SplitSql(a.sql, /*first_line=*/1);
    if (statements.empty()) {
      return ReportError(Error{ErrorKind::kInvalidInput, "no SQL statement given"});
    }
    for (const auto& st : statements) {
      Status r = s.Run(st);
      if (!r) return ReportError(r.error());
    }
    return 0;
  };
  const int rc = run();
  // The --output file, in place once a statement succeeded (also after a later one failed).
  Status closed = s.Close();
  if (!closed && rc == 0) return ReportError(closed.error());
  return rc;
}

}  // namespace

void AddQueryCommand(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<QueryArgs>();
  auto* sub = app.add_subcommand(
      "query",
      "Run SQL over Iceberg tables with the four numbers (files, requests, bytes, time).\n"
      "Tables are NAMESPACE.TABLE; metadata tables NAMESPACE.TABLE.files|snapshots|manifests|"
      "partitions|history|...;\ntime travel: FROM ns.t FOR VERSION AS OF <snapshot-id> or "
      "FOR TIMESTAMP AS OF '2024-01-03 10:00:00'.\nRow-level changes: DELETE, UPDATE and MERGE "
      "INTO (copy-on-write or merge-on-read, as write.<op>.mode says); files: read_parquet('f'), "
      "read_csv('f'); metadata columns _file, _pos, _spec_id, _row_id.\nWithout -e or -f: an "
      "interactive shell (statements end at ';').");
  auto* e = sub->add_option("-e,--execute", args->sql, "SQL to run (statements separated by ';')");
  sub->add_option("-f,--file", args->file, "A file of SQL statements ('-' for stdin)")->excludes(e);
  AddOutputOptions(sub, &args->output);
  sub->add_flag(
      "--stats", args->output.stats,
      "Also print files opened/skipped, row groups, pages, requests, bytes and wall time");
  sub->add_option("--read-strategy", args->read_strategy,
                  "floe (default), parquet-mr, aal, eager or arrow-rs");
  sub->add_option("--read-objective", args->read_objective, kReadObjectiveHelp);
  AddSetOption(sub, &args->sets);
  AddTraceOption(sub, &args->sets);
  sub->footer(sql::SettingsHelp() +
              "In SQL: SET read.request-budget = 32; RESET read.request-budget; SHOW ALL;\n"
              "SELECT * FROM floe_settings() shows each setting's value in effect.");
  sub->callback([&options, args] {
    int rc = Query(options, *args);
    std::fflush(stdout);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
