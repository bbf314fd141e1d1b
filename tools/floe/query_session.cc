#include "query_session.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/clock.h"
#include "floe/base/progress.h"
#include "floe/bench/stats_json.h"
#include "floe/columnar/value_format.h"
#include "floe/sql/parser.h"
#include "result_export.h"
#include "result_printer.h"

namespace floe::cli {

namespace {

// A count of rows or characters: digits only, at most a billion.
std::string NotACount(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 10 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && std::stoll(text) <= 1'000'000'000) return "";
  return "'" + text + "' is not a count (0 to 1000000000)";
}

}  // namespace

void AddOutputOptions(CLI::App* command, QueryOutput* output) {
  command
      ->add_option("--format", output->format,
                   "table (default: a box fitted to the terminal), csv, json, jsonl, markdown, "
                   "parquet (with --output), or arrow (an Arrow IPC file with --output, else the "
                   "IPC stream on a standard output that is not a terminal)")
      ->check(FormatCheck({}, {"parquet", "arrow"}));
  command
      ->add_option("--max-rows", output->max_rows,
                   "table: rows shown, the first and the last halves (default 40; 0: all)")
      ->check(NotACount);
  command
      ->add_option("--max-width", output->max_width,
                   "table: the width fitted, in characters (default: the terminal's; 0: no "
                   "limit)")
      ->check(NotACount);
  command->add_option("--output", output->file,
                      "FILE: write the rows there instead of standard output (with --format "
                      "parquet or arrow, a Parquet or Arrow IPC file of the statement's rows)");
}

Result<std::unique_ptr<QuerySession>> QuerySession::Open(const GlobalOptions& g,
                                                         parquet::ReadStrategy strategy,
                                                         const parquet::ReadPlannerOptions& planner,
                                                         QueryOutput output, sql::Settings settings,
                                                         bool create_if_missing) {
  if (output.format == "parquet" && output.file.empty()) {
    return InvalidInput("--format parquet writes a file: give --output FILE");
  }
  if (output.format == "arrow" && output.file.empty() && isatty(STDOUT_FILENO)) {
    return InvalidInput(
        "--format arrow writes binary Arrow IPC: give --output FILE, or pipe standard output to "
        "a reader");
  }
  std::unique_ptr<QuerySession> s(new QuerySession());
  const bool exports = output.format == "parquet" || output.format == "arrow";
  if (!output.file.empty() && !exports) {
    FLOE_ASSIGN_OR_RETURN(s->out_file_, OutputFile::Open(output.file));
    s->out_ = s->out_file_->file();
  }
  // The Arrow stream is standard output's only content: what else prints goes to standard error.
  if (output.format == "arrow" && output.file.empty()) s->out_ = stderr;
  s->options_.read.strategy = strategy;
  s->options_.read.planner = planner;
  s->output_ = std::move(output);
  iceberg::WarehouseOptions o;
  o.uri = g.warehouse;
  o.catalog = g.catalog;
  o.s3 = S3OptionsFrom(g);
  // Queries read: a missing warehouse is an error, created only for a statement that makes a table.
  o.create_if_missing = create_if_missing;
  GlobalOptions copy = g;
  QuerySession* session = s.get();
  o.decorate = [copy, session](io::StorePtr store) -> Result<io::StorePtr> {
    FLOE_ASSIGN_OR_RETURN(io::StorePtr decorated, DecorateStore(copy, std::move(store), false));
    auto counter = std::make_shared<io::CountingStore>(
        std::make_shared<io::TracingStore>(std::move(decorated), session->trace_));
    std::lock_guard lock(session->counters_mu_);
    session->counters_.push_back(counter);
    return io::StorePtr(counter);
  };
  FLOE_ASSIGN_OR_RETURN(iceberg::Warehouse w, iceberg::OpenWarehouse(o));
  s->engine_ = std::make_unique<sql::Engine>(std::move(w));
  s->engine_->settings() = std::move(settings);
  return s;
}

Status QuerySession::Close() {
  if (!out_file_) return {};
  std::unique_ptr<OutputFile> out = std::move(out_file_);
  out_ = stdout;
  if (!succeeded_) return {};  // FILE as it was: the temporary file goes with `out`
  return out->Commit();
}

QuerySession::~QuerySession() { (void)Close(); }

io::RequestCounts QuerySession::Counted() {
  std::lock_guard lock(counters_mu_);
  io::RequestCounts sum;
  for (const auto& c : counters_) sum += c->Snapshot();
  return sum;
}

Status QuerySession::Run(const std::string& statement) {
  ++statements_;
  // The trace file, opened before the statement runs so that a path that cannot be written is an
  // error before anything happens.
  std::string trace_path;
  {
    sql::QueryOptions effective;
    engine_->settings().ApplyTo(&effective);
    trace_path = effective.trace;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> trace_file(nullptr, &std::fclose);
  std::shared_ptr<io::RequestTrace> trace;
  if (!trace_path.empty()) {
    const bool begun = traces_begun_.contains(trace_path);
    trace_file.reset(std::fopen(trace_path.c_str(), begun ? "ab" : "wb"));
    if (!trace_file) {
      return IOError("trace file '{}' cannot be written: {}", trace_path, std::strerror(errno));
    }
    traces_begun_.insert(trace_path);
    trace = std::make_shared<io::RequestTrace>();
    trace_->Attach(trace);
  }
  Stopwatch watch;
  auto r = RunTraced(statement);
  if (output_.timer) std::fprintf(out_, "Run Time (s): real %.3f\n", watch.ElapsedMs() / 1000);
  if (std::fflush(out_) != 0 || std::ferror(out_)) {
    std::clearerr(out_);
    const std::string where = out_ == stdout   ? std::string("standard output")
                              : out_ == stderr ? std::string("standard error")
                                               : "'" + output_.file + "'";
    Status failed = IOError("writing the rows to {} failed: {}", where, std::strerror(errno));
    if (r) r = failed;
  }
  if (r) succeeded_ = true;
  if (trace) {
    trace_->Detach();
    std::vector<io::TracedRequest> requests = trace->Requests();
    uint64_t bytes = 0;
    for (const auto& q : requests) bytes += q.kind == "GET" ? q.bytes : 0;
    nlohmann::ordered_json head;
    head["type"] = "statement";
    head["statement"] = statements_;
    const size_t from = statement.find_first_not_of(" \t\r\n");
    const size_t to = statement.find_last_not_of(" \t\r\n;");
    head["sql"] = from == std::string::npos ? "" : statement.substr(from, to - from + 1);
    head["requests"] = requests.size();
    head["bytes_fetched"] = bytes;
    head["wall_ms"] = std::round(trace->NowMs() * 1000) / 1000;
    if (!r) head["error"] = r.error().ToString();
    std::string out = head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    out += io::TraceJsonLines(requests, statements_);
    if (std::fwrite(out.data(), 1, out.size(), trace_file.get()) != out.size() ||
        std::fflush(trace_file.get()) != 0) {
      Status written =
          IOError("trace file '{}': write failed: {}", trace_path, std::strerror(errno));
      if (r) return written;
    }
  }
  return r;
}

Result<sql::QueryResult> QuerySession::Collect(const std::string& statement) {
  sql::QueryOptions o = options_;
  o.cancelled = nullptr;
  return engine_->Execute(statement, o);
}

Status QuerySession::RunTraced(const std::string& statement) {
  io::RequestCounts before = Counted();
  Stopwatch watch;
  ResultLayout layout;
  layout.max_rows = output_.max_rows;
  // A file gets the whole box: the terminal's width is the terminal's.
  layout.max_width = output_.max_width.value_or(out_ == stdout ? TerminalWidth() : 0);
  ResultPrinter printer(output_.format, out_, layout);
  // --format parquet|arrow exports a query's rows (SELECT, VALUES, a set operation); a statement
  // that changes tables prints its counts as usual. The file (or the Arrow stream on standard
  // output) holds one query's rows: a second query is refused before it runs.
  std::optional<ResultExport> exported;
  if (output_.format == "parquet" || output_.format == "arrow") {
    auto parsed = sql::ParseStatement(statement);
    if (parsed && parsed->kind == "SelectStmt") {
      if (exported_) {
        const std::string where =
            output_.file.empty()
                ? fmt::format("--format {} on standard output", output_.format)
                : fmt::format("--output '{}' --format {}", output_.file, output_.format);
        return InvalidInput(
            "{} holds one query's rows, and an earlier query's are there; run this one on its own",
            where);
      }
      exported.emplace(output_.file, output_.format);
    }
  }
  sql::QueryOptions o = options_;
  o.sink = [&printer, &exported, &o](const columnar::RecordBatch& b) -> Status {
    if (o.cancelled && o.cancelled()) {
      return std::unexpected(Error{ErrorKind::kCancelled, "the statement was cancelled"});
    }
    return exported ? exported->Add(b) : printer.Add(b);
  };
  // A bar on a terminal while a scan reads its files (drawn only past 100 ms, erased when the
  // answer prints); not when rows stream to that same terminal.
  const bool rows_to_terminal =
      output_.format != "table" && out_ == stdout && isatty(STDOUT_FILENO);
  Progress progress(
      "query", 0, "files",
      isatty(STDERR_FILENO) && !rows_to_terminal ? ProgressMode::kBar : ProgressMode::kSilent);
  o.progress = [&progress](size_t done, size_t total) {
    progress.SetTotal(total);
    progress.Advance();
    (void)done;
  };
  auto r = engine_->Execute(statement, o);
  progress.Abandon();
  double ms = watch.ElapsedMs();
  if (!r) return std::unexpected(r.error());
  io::RequestCounts used = Counted().Since(before);
  std::optional<std::string> stats;
  if (output_.stats) stats = bench::StatsJson(r->stats, used, ms);
  if (exported && r->schema) {
    exported_ = true;
    // The rows are the file; what was written prints as a statement's message does.
    FLOE_ASSIGN_OR_RETURN(ExportedFile file, exported->Finish(r->schema->fields));
    r->schema = nullptr;
    r->batches.clear();
    // On standard output the stream is the answer: nothing follows it there.
    if (output_.file.empty()) {
      if (stats) std::fprintf(out_, "%s\n", stats->c_str());
      return {};
    }
    r->message = fmt::format("exported {} row{} to {} ({}, {} bytes)", file.rows,
                             file.rows == 1 ? "" : "s", output_.file, output_.format, file.bytes);
  }
  if (!r->schema && !r->message.empty() && r->batches.empty()) {
    // A statement without rows (SET, RESET): its one line; csv stays rows only.
    std::string out;
    if (output_.format == "json") {
      out = R"({"columns": [], "rows": [], "message": )";
      columnar::AppendJsonString(r->message, &out);
      if (stats) out += ", \"stats\": " + *stats;
      out += "}\n";
    } else if (output_.format == "jsonl") {
      out = R"({"message": )";
      columnar::AppendJsonString(r->message, &out);
      out += "}\n";
      if (stats) out += "{\"stats\": " + *stats + "}\n";
    } else if (output_.format != "csv") {
      out = r->message + "\n";
      if (stats) out += *stats + "\n";
    }
    std::fputs(out.c_str(), out_);
    std::fflush(out_);
    return {};
  }
  printer.Finish(r->schema ? r->schema->fields : std::vector<columnar::Field>{}, stats, r->message);
  std::fflush(out_);
  return {};
}

}  // namespace floe::cli
