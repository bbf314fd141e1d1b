// QuerySession: the SQL engine over the warehouse the global flags name, with a CountingStore
// around every store it opens, running statements one at a time and printing each through
// ResultPrinter in docs/cli.md's formats with its four numbers. The one way the CLI answers a
// query: `floe query` and `floe table scan` both run through it. With the setting `trace` (SET
// trace = 'FILE', --trace FILE) each statement's requests are appended to FILE as JSON lines (a
// TracingStore around every store; io/request_trace.h): first a line for the statement, then one
// per request. The file is emptied when the session first writes to it. Not thread-safe.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "floe/base/result.h"
#include "floe/io/counting_store.h"
#include "floe/io/tracing_store.h"
#include "floe/parquet/read_planner.h"
#include "floe/parquet/read_strategy.h"
#include "floe/sql/engine.h"
#include "result_export.h"
#include "result_printer.h"

namespace floe::cli {

struct QueryOutput {
  std::string format = "table";  // one of kResultFormats (result_printer.h)
  bool stats = false;            // print the stats object after the rows
  // table: rows shown (0: all) and the width fitted (unset: the terminal's; 0: none).
  int64_t max_rows = ResultLayout::kDefaultMaxRows;
  std::optional<size_t> max_width;
  bool timer = false;  // print each statement's wall time after it (the shell's .timer on)
  // --output FILE: the rows go to FILE instead of standard output; with format "parquet" or
  // "arrow" a query's rows are a Parquet or Arrow IPC file (result_export.h), else the printed
  // text. "arrow" without FILE: the IPC stream on standard output.
  std::string file;
};

// --format, --max-rows, --max-width and --output on `command`, into `output`.
void AddOutputOptions(CLI::App* command, QueryOutput* output);

class QuerySession {
 public:
  // Opens the warehouse: a missing one is an error unless `create_if_missing` (the statements
  // make a table, or the shell opens it as DuckDB opens a new database).
  static Result<std::unique_ptr<QuerySession>> Open(const GlobalOptions& options,
                                                    parquet::ReadStrategy strategy,
                                                    const parquet::ReadPlannerOptions& planner,
                                                    QueryOutput output, sql::Settings settings = {},
                                                    bool create_if_missing = false);

  // Runs one statement and prints its rows as they come; on an error mid-answer what was printed
  // stays, and the error is returned for the caller to report. A write that fails (a full disk,
  // a closed pipe) is the statement's error.
  Status Run(const std::string& statement);
  // Ends the session's output: an --output file is put in place when a statement succeeded (and
  // left as it was when none did). The destructor does the same for a session not closed.
  Status Close();
  ~QuerySession();
  // Runs one statement for its rows, printing nothing and counting nothing (the shell's
  // completion reads table and column names so).
  Result<sql::QueryResult> Collect(const std::string& statement);

  // How rows print from the next statement on (the shell's .mode, .maxrows, .stats).
  QueryOutput& output() { return output_; }
  // Asked as statements run; true stops the running one with a kCancelled error (Ctrl-C).
  void set_cancelled(std::function<bool()> cancelled) { options_.cancelled = std::move(cancelled); }

 private:
  QuerySession() = default;
  io::RequestCounts Counted();
  // Run without the trace's bookkeeping.
  Status RunTraced(const std::string& statement);

  std::unique_ptr<sql::Engine> engine_;
  // One per store: the warehouse's, and those of other roots that tables' locations reach, which
  // are opened while a statement runs (hence the mutex).
  std::mutex counters_mu_;
  std::vector<std::shared_ptr<io::CountingStore>> counters_;
  // The trace (SET trace, --trace): every store's requests go to it while a statement runs.
  std::shared_ptr<io::TraceSwitch> trace_ = std::make_shared<io::TraceSwitch>();
  std::set<std::string> traces_begun_;  // files this session truncated and writes to
  int statements_ = 0;                  // run so far, numbering a trace's statements
  sql::QueryOptions options_;
  QueryOutput output_;
  // Where rows print: standard output, or the --output file (not for parquet or arrow), put in
  // place by Close once a statement has succeeded; standard error when the Arrow stream has
  // standard output to itself.
  std::unique_ptr<OutputFile> out_file_;
  std::FILE* out_ = stdout;
  bool succeeded_ = false;  // a statement ran to its end
  bool exported_ = false;   // --format parquet|arrow: a statement's rows are the file
};

}  // namespace floe::cli
