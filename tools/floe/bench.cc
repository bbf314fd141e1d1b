// `floe bench WORKSHEET`, `floe demo` and `floe advise`: the main job (docs/cli.md). The work is
// the bench module's; this file parses flags, asks questions through the SQL engine, and prints.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli.h"
#include "floe/base/clock.h"
#include "floe/bench/advise.h"
#include "floe/bench/builtin.h"
#include "floe/bench/html_report.h"
#include "floe/bench/report.h"
#include "floe/bench/runner.h"
#include "floe/bench/worksheet.h"
#include "floe/columnar/column.h"
#include "floe/sql/engine.h"
#include "floe/sql/query_log.h"
#include "peer_engines.h"
#include "query_session.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

// Questions go to the SQL engine, a fresh one per run. The warehouse runtime's Parquet footer cache
// and Iceberg metadata cache persist across runs, as in any long-lived engine, so the protocol's
// warm-up fills them; `cold` empties both before every run instead, which is what an engine that
// keeps no cache between queries (Spark's Parquet reader, without its catalog cache) pays.
bench::QuestionFnFactory EngineQuestions(bool cold, const parquet::ReadPlannerOptions& planner,
                                         const sql::Settings& settings) {
  return [cold, planner, settings](const iceberg::Warehouse& w) -> Result<bench::QuestionFn> {
    return bench::QuestionFn(
        [w, cold, planner, settings](const std::string& sql) -> Result<bench::QuestionOutcome> {
          if (cold) w.runtime->ClearCaches();
          sql::Engine engine(w);
          sql::QueryOptions options;
          options.read.planner = planner;
          options.runtime = w.runtime.get();
          settings.ApplyTo(&options);
          FLOE_ASSIGN_OR_RETURN(sql::QueryResult r, engine.Execute(sql, options));
          bench::QuestionOutcome out;
          out.data_files_opened = r.stats.data_files_opened;
          out.scan = r.stats;
          for (const auto& b : r.batches) {
            if (out.rows == 0 && b.num_rows > 0 && b.num_columns() > 0)
              out.first_value = columnar::ValueToString(*b.columns[0], 0);
            out.rows += b.num_rows;
          }
          return out;
        });
  };
}

struct BenchArgs {
  std::string worksheet;
  int rounds = 7;
  int warmup = 2;
  std::string out;
  std::string json;
  double scale = 1;
  bool cold = false;
  std::string read_objective = "latency";
  std::vector<std::string> sets;
  std::string tables_at;
  std::vector<std::string> engines;
};

// `tables_at` (--tables-at): build in that warehouse, with the global --catalog and S3 flags,
// instead of `warehouse` (bench's own local one); its change files then go to `scratch`.
bench::BenchOptions OptionsFor(const GlobalOptions& g, const std::string& warehouse, int rounds,
                               int warmup, double scale, const std::string& tables_at = "",
                               const std::string& scratch = "") {
  bench::BenchOptions o;
  o.warehouse = tables_at.empty() ? warehouse : tables_at;
  if (!tables_at.empty()) {
    o.catalog = g.catalog;
    o.s3 = S3OptionsFrom(g);
    o.scratch = scratch;
  }
  o.source_warehouse.uri = g.warehouse;
  o.source_warehouse.catalog = g.catalog;
  o.source_warehouse.s3 = S3OptionsFrom(g);
  o.source_warehouse.create_if_missing = false;  // a source is read, never made
  o.protocol.rounds = rounds;
  o.protocol.warmup = warmup;
  o.scale = scale;
  o.progress = !g.quiet;
  // A real object store is measured as it is unless --simulate-s3 asks for the model on top.
  const bool remote = tables_at.find("://") != std::string::npos && !tables_at.starts_with("file:");
  bool simulate = g.simulate_s3.has_value() || (!g.no_simulate_s3 && !remote);
  if (simulate) {
    GlobalOptions copy = g;
    o.decorate = [copy](io::StorePtr store) { return DecorateStore(copy, std::move(store), true); };
  }
  return o;
}

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) return IOError("cannot write '{}'", path);
  return {};
}

// 0 when some question was answered; else the first question's error (e.g. no SQL engine).
int NoAnswerError(const bench::BenchResult& r) {
  std::string first;
  for (const auto& row : r.results)
    for (const auto& m : row) {
      if (m.error.empty()) return 0;
      if (first.empty()) first = m.error;
    }
  if (r.results.empty()) return 0;
  std::fprintf(stderr, "floe: no question could be answered: %s\n", first.c_str());
  return 3;
}

// A directory of the system's temporary space that lives as long as this object.
class ScratchDir {
 public:
  static Result<ScratchDir> Make(const std::string& stem) {
    std::error_code ec;
    std::string path = (std::filesystem::temp_directory_path(ec) / (stem + "-XXXXXX")).string();
    if (ec || mkdtemp(path.data()) == nullptr)
      return IOError("cannot create a temporary directory for {}", stem);
    return ScratchDir(std::move(path));
  }
  ScratchDir(ScratchDir&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  ScratchDir(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The S3 endpoint floe would use: --s3-endpoint, else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL.
std::string S3Endpoint(const GlobalOptions& g) {
  std::string endpoint = S3OptionsFrom(g).endpoint;
  for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
    const char* v = std::getenv(name);
    if (endpoint.empty() && v != nullptr) endpoint = v;
  }
  return endpoint;
}

// How the other engines reach the designs' warehouse `warehouse` (the bench's own local one, or
// --tables-at): its catalog (a SQLite path made absolute), the S3 endpoint, credentials and
// region floe uses; scratch files and logs under SCRATCH/engines.
Result<PeerSetup> EngineSetup(const GlobalOptions& g, const std::string& tables_at,
                              const std::string& scratch, const std::string& warehouse) {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v == nullptr ? "" : v);
  };
  PeerSetup setup;
  const bool remote = tables_at.find("://") != std::string::npos && !tables_at.starts_with("file:");
  setup.catalog = g.catalog;
  if (!remote && setup.catalog.empty()) setup.catalog = "sqlite:" + warehouse + "/catalog.db";
  if (setup.catalog.starts_with("sqlite:"))
    setup.catalog = "sqlite:" + std::filesystem::absolute(setup.catalog.substr(7)).string();
  if (remote) {
    setup.warehouse = tables_at;
    const io::S3Options s3 = S3OptionsFrom(g);
    setup.endpoint = S3Endpoint(g);
    setup.access_key = s3.access_key_id.empty() ? env("AWS_ACCESS_KEY_ID") : s3.access_key_id;
    setup.secret_key =
        s3.secret_access_key.empty() ? env("AWS_SECRET_ACCESS_KEY") : s3.secret_access_key;
    setup.region = s3.region;
    if (setup.region.empty()) setup.region = env("AWS_REGION");
    if (setup.region.empty()) setup.region = env("AWS_DEFAULT_REGION");
    if (setup.region.empty()) setup.region = "us-east-1";
  } else {
    std::string dir = warehouse.starts_with("file://") ? warehouse.substr(7) : warehouse;
    setup.warehouse = "file:" + std::filesystem::absolute(dir).string();
  }
  setup.scratch = scratch + "/engines";
  std::error_code ec;
  std::filesystem::create_directories(setup.scratch, ec);
  if (ec) return IOError("cannot create '{}': {}", setup.scratch, ec.message());
  return setup;
}

// Spark as the writer of the designs a worksheet says are `built_by: spark`, on the same
// warehouse (through the proxy when --engines started one, so its change rounds are counted).
Status AddSparkWriter(const GlobalOptions& g, const bench::Worksheet& sheet,
                      const std::string& tables_at, const std::string& scratch,
                      io::CountingProxy* proxy, bench::BenchOptions* o) {
  const auto& designs = sheet.designs;
  if (std::none_of(designs.begin(), designs.end(),
                   [](const bench::Design& d) { return d.built_by == "spark"; }))
    return {};
  FLOE_ASSIGN_OR_RETURN(PeerSetup setup, EngineSetup(g, tables_at, scratch, o->warehouse));
  if (proxy != nullptr) {
    setup.endpoint = proxy->endpoint();
    setup.proxy = proxy;
  }
  o->writers["spark"] = SparkWriter(setup);
  return {};
}

// --engines: the other engines to measure beside floe, each an arm reading the designs' tables
// through a counting proxy started here in front of the S3 server (--s3-endpoint). The proxy gets
// --simulate-s3's timing so every engine sees it, and floe's own reads go through it too.
// Returns the proxy (null when --engines names only floe).
Result<std::unique_ptr<io::CountingProxy>> SetUpEngines(const GlobalOptions& g,
                                                        const std::string& tables_at,
                                                        const std::vector<std::string>& engines,
                                                        const std::string& scratch,
                                                        bench::BenchOptions* o) {
  std::vector<std::string> peers;
  for (const auto& e : engines) {
    if (e == "floe") continue;
    const auto& known = PeerEngineNames();
    if (std::find(known.begin(), known.end(), e) == known.end())
      return InvalidInput(
          "--engines: unknown engine '{}' (floe, spark, spark-aal, duckdb, pyiceberg)", e);
    if (std::find(peers.begin(), peers.end(), e) == peers.end()) peers.push_back(e);
  }
  if (peers.empty()) return nullptr;
  if (!tables_at.starts_with("s3://"))
    return InvalidInput(
        "--engines {} reads the designs' tables from an S3 store: add --tables-at "
        "s3://BUCKET/PREFIX with --catalog and --s3-endpoint (README: \"Other engines\")",
        fmt::join(peers, ","));
  if (!g.catalog.starts_with("sqlite:") && !g.catalog.starts_with("rest:"))
    return InvalidInput(
        "--engines needs --catalog sqlite:PATH or rest:URL, which the other "
        "engines open too");
  const std::string upstream = S3Endpoint(g);
  if (!upstream.starts_with("http://"))
    return InvalidInput(
        "--engines counts every engine's requests through a proxy in front of an http:// S3 "
        "server; --s3-endpoint is '{}'",
        upstream);
  io::ProxyOptions po;
  po.upstream = upstream;
  if (g.simulate_s3) {
    FLOE_ASSIGN_OR_RETURN(po.simulate, io::ParseSimulationOptions(*g.simulate_s3));
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::CountingProxy> proxy, io::CountingProxy::Start(po));
  o->s3.endpoint = proxy->endpoint();
  o->s3.path_style = true;
  o->decorate = nullptr;  // the proxy keeps S3's timing for every engine
  FLOE_ASSIGN_OR_RETURN(PeerSetup setup, EngineSetup(g, tables_at, scratch, o->warehouse));
  setup.endpoint = proxy->endpoint();
  setup.proxy = proxy.get();
  for (const auto& e : peers) o->engines.push_back(PeerEngineArm(e, setup));
  return proxy;
}

// Where the report says the tables were measured, when not a local directory of bench's own
// (empty: the report says so from the result).
std::string StoreFact(const GlobalOptions& g, const std::string& tables_at) {
  if (tables_at.empty()) return "";
  return fmt::format("{}{}, {}", tables_at, g.catalog.empty() ? "" : " (catalog " + g.catalog + ")",
                     g.simulate_s3 ? "behind the simulated-S3 decorator" : "measured as it is");
}

int Bench(const GlobalOptions& g, const BenchArgs& a) {
  if (g.no_simulate_s3 && g.simulate_s3)
    return ReportError(Error{ErrorKind::kInvalidInput,
                             "--simulate-s3 and --no-simulate-s3 contradict each other"});
  // A worksheet file, or the name of a built-in one (`floe bench clustering`).
  const bench::BuiltinWorksheet* builtin = bench::FindBuiltinWorksheet(a.worksheet);
  std::error_code exists_ec;
  const bool is_builtin = builtin != nullptr && !std::filesystem::exists(a.worksheet, exists_ec);
  auto sheet = is_builtin
                   ? bench::ParseWorksheet(builtin->yaml, "built-in worksheet " + builtin->name)
                   : bench::LoadWorksheet(a.worksheet);
  if (!sheet) return ReportError(sheet.error());
  // bench builds its designs into a warehouse of its own, as demo does, never into --warehouse:
  // OUT/warehouse, or without --out a temporary one removed at the end.
  std::optional<ScratchDir> scratch;
  std::string warehouse = a.out + "/warehouse";
  if (a.out.empty()) {
    auto made = ScratchDir::Make("floe-bench");
    if (!made) return ReportError(made.error());
    scratch.emplace(std::move(*made));
    warehouse = scratch->path();
  }
  auto options = OptionsFor(g, warehouse, a.rounds, a.warmup, a.scale, a.tables_at, warehouse);
  auto proxy = SetUpEngines(g, a.tables_at, a.engines, warehouse, &options);
  if (!proxy) return ReportError(proxy.error());
  if (auto s = AddSparkWriter(g, *sheet, a.tables_at, warehouse, proxy->get(), &options); !s)
    return ReportError(s.error());
  auto planner = PlannerOptionsFor(g, a.read_objective);
  if (!planner) return ReportError(planner.error());
  auto settings = SettingsFrom(a.sets);
  if (!settings) return ReportError(settings.error());
  auto result = bench::RunBench(*sheet, options, EngineQuestions(a.cold, *planner, *settings));
  if (!result) return ReportError(result.error());
  fmt::print("{}", bench::FormatTables(*result));
  if (!a.json.empty()) {
    if (auto s = WriteText(a.json, bench::FormatJson(*result)); !s) return ReportError(s.error());
  }
  if (!a.out.empty()) {
    std::string name = sheet->name.empty() ? "report" : sheet->name;
    bench::ReportFacts facts{.worksheet = a.worksheet,
                             .warmup = a.warmup,
                             .rounds = a.rounds,
                             .store = StoreFact(g, a.tables_at)};
    auto files = bench::WriteReport(
        *result, a.out, name, is_builtin ? builtin->chapter : std::vector<bench::ChapterFigure>{},
        facts);
    if (!files) return ReportError(files.error());
    fmt::print("report: {}\nreport page: {}\n", files->markdown, files->html);
  }
  return NoAnswerError(*result);
}

// The demo runs the full protocol (2 warm-up runs, 7 interleaved rounds); both worksheets take
// about two minutes on two cores.
struct DemoArgs {
  std::string tables_at;
  std::string out = "floe-demo";
  double scale = 1;
  int rounds = 7;
  int warmup = 2;
  bool cold = false;
  std::string read_objective = "latency";
  std::vector<std::string> sets;
  std::vector<std::string> engines;
  std::vector<std::string> built_by = {"floe"};
};

// The built-in worksheet with each design once per builder: floe's under its own name, Spark's as
// "NAME (Spark)", which the chapter's figures (taken on Spark-built tables) are set beside too.
Result<std::pair<bench::Worksheet, std::vector<bench::ChapterFigure>>> DemoSheet(
    const bench::BuiltinWorksheet& builtin, const std::vector<std::string>& built_by) {
  FLOE_ASSIGN_OR_RETURN(bench::Worksheet sheet,
                        bench::ParseWorksheet(builtin.yaml, "built-in worksheet " + builtin.name));
  std::vector<bench::ChapterFigure> chapter;
  std::vector<bench::Design> designs;
  for (const auto& d : sheet.designs) {
    for (const auto& by : built_by) {
      bench::Design copy = d;
      copy.built_by = by;
      if (by == "spark") copy.name += " (Spark)";
      for (const auto& c : builtin.chapter)
        if (c.design == d.name) {
          bench::ChapterFigure f = c;
          f.design = copy.name;
          chapter.push_back(std::move(f));
        }
      designs.push_back(std::move(copy));
    }
  }
  sheet.designs = std::move(designs);
  return std::pair{std::move(sheet), std::move(chapter)};
}

int Demo(const GlobalOptions& g, const DemoArgs& a) {
  Stopwatch watch;
  if (g.no_simulate_s3 && g.simulate_s3)
    return ReportError(Error{ErrorKind::kInvalidInput,
                             "--simulate-s3 and --no-simulate-s3 contradict each other"});
  auto settings = SettingsFrom(a.sets);
  if (!settings) return ReportError(settings.error());
  for (const auto& by : a.built_by) {
    if (by != "floe" && by != "spark")
      return ReportError(Error{
          ErrorKind::kInvalidInput,
          fmt::format("--built-by: '{}' is not an engine that builds designs (floe, spark)", by)});
  }
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return ReportError(Error{ErrorKind::kIO, fmt::format("cannot create '{}'", a.out)});
  std::string md = fmt::format(
      "# floe demo: a table design measured before it is placed\n\n"
      "The chapter's workloads rebuilt by {} and measured under its protocol (pre-warm {} runs "
      "per design, {} interleaved rounds; median and min-max). Files opened, requests and bytes "
      "are exact counts, metadata included, {}; latency is {}. Scale {}.\n\n",
      fmt::join(a.built_by, " and "), a.warmup, a.rounds,
      a.cold ? "with the footer and metadata caches emptied before every run"
             : "with the process's footer and metadata caches warm from the warm-up runs",
      !a.tables_at.empty()
          ? fmt::format("{} at {}{}", g.simulate_s3 ? "simulated S3 over the store" : "the store's",
                        a.tables_at, g.catalog.empty() ? "" : " (catalog " + g.catalog + ")")
      : g.no_simulate_s3 ? "the local disk's"
                         : "on a local directory behind the simulated-S3 decorator",
      a.scale);
  std::vector<std::string> html_sections;
  for (const auto& builtin : bench::BuiltinWorksheets()) {
    if (!builtin.in_demo) continue;
    auto sheet = DemoSheet(builtin, a.built_by);
    if (!sheet) return ReportError(sheet.error());
    const auto& [worksheet, chapter] = *sheet;
    auto options =
        OptionsFor(g, a.out + "/warehouse", a.rounds, a.warmup, a.scale, a.tables_at, a.out);
    auto proxy = SetUpEngines(g, a.tables_at, a.engines, a.out, &options);
    if (!proxy) return ReportError(proxy.error());
    if (auto s = AddSparkWriter(g, worksheet, a.tables_at, a.out, proxy->get(), &options); !s)
      return ReportError(s.error());
    auto planner = PlannerOptionsFor(g, a.read_objective);
    if (!planner) return ReportError(planner.error());
    auto result = bench::RunBench(worksheet, options, EngineQuestions(a.cold, *planner, *settings));
    if (!result) return ReportError(result.error());
    fmt::print("{}", bench::FormatTables(*result));
    std::fflush(stdout);
    bench::ReportFacts facts{.worksheet = "built-in worksheet " + builtin.name,
                             .warmup = a.warmup,
                             .rounds = a.rounds,
                             .store = StoreFact(g, a.tables_at)};
    auto written = bench::WriteReport(*result, a.out, builtin.name, chapter, facts);
    if (!written) return ReportError(written.error());
    html_sections.push_back(bench::HtmlSection(*result, chapter, facts));
    if (auto s =
            WriteText(fmt::format("{}/{}.json", a.out, builtin.name), bench::FormatJson(*result));
        !s)
      return ReportError(s.error());
    md += bench::FormatMarkdown(*result, builtin.name + "-", chapter) + "\n";
  }
  if (auto s = WriteText(a.out + "/report.md", md); !s) return ReportError(s.error());
  const std::string page = bench::HtmlPage(
      "floe demo: a table design measured before it is placed",
      fmt::format("The chapter's workloads rebuilt by {} and measured under its protocol; one "
                  "section per workload, each also on its own page beside this one.",
                  fmt::join(a.built_by, " and ")),
      html_sections);
  if (auto s = WriteText(a.out + "/report.html", page); !s) return ReportError(s.error());
  fmt::print(
      "\nreport: {0}/report.md (charts and JSON beside it)\nreport page: {0}/report.html (one "
      "self-contained page; one per workload beside it), {1:.0f} s\n",
      a.out, watch.ElapsedSeconds());
  return 0;
}

struct AdviseArgs {
  std::string queries;
  std::string table;
};

// With the table in the warehouse --warehouse names, the worksheet's source pins its current
// snapshot, and each question is planned there (EXPLAIN, which reads metadata only): one floe
// cannot run is left out, with floe's reason.
bench::AdviseSource CheckAgainstWarehouse(const GlobalOptions& g, const std::string& table,
                                          bench::QueryLogAnalysis* analysis) {
  bench::AdviseSource source;
  auto w = OpenWarehouseFor(g);
  if (!w) return source;
  auto t = LoadTableFor(*w, table);
  if (!t) return source;
  if (const auto* s = t->metadata.CurrentSnapshot()) source.snapshot = s->snapshot_id;
  auto planner = PlannerOptionsFor(g, "latency");
  auto settings = SettingsFrom({}, std::nullopt, std::nullopt);
  if (!planner || !settings) return source;
  auto session = QuerySession::Open(g, parquet::ReadStrategy::kFloe, *planner, QueryOutput{},
                                    std::move(*settings));
  if (!session) return source;
  for (auto& q : analysis->queries) {
    if (!q.cannot_run.empty()) continue;
    auto planned = (*session)->Collect("EXPLAIN " + q.sql);
    if (!planned) q.cannot_run = "floe cannot run it: " + planned.error().ToString();
  }
  return source;
}

int Advise(const GlobalOptions& g, const AdviseArgs& a) {
  std::ifstream in(a.queries);
  if (!in)
    return ReportError(
        Error{ErrorKind::kNotFound, fmt::format("query log '{}' cannot be read", a.queries)});
  std::stringstream ss;
  ss << in.rdbuf();
  auto analysis = sql::AnalyzeQueryLog(ss.str(), a.table);
  if (!analysis) {
    Error e = analysis.error();
    e.message = a.queries + ": " + e.message;
    return ReportError(e);
  }
  const bench::AdviseSource source = CheckAgainstWarehouse(g, a.table, &*analysis);
  fmt::print("{}", bench::AdviseWorksheet(*analysis, a.table, source));
  return 0;
}

}  // namespace

void AddBenchCommand(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Build every design of a worksheet and measure its questions (simulated S3 by "
      "default for local warehouses)");
  cmd->add_option("worksheet", args->worksheet,
                  "Worksheet YAML, or a built-in worksheet's name: events, orders, dimension "
                  "(floe demo's), clustering (Z-order, Hilbert and OTree on 10M store_sales rows)")
      ->required();
  cmd->add_option("--rounds", args->rounds, "Measured rounds per design, interleaved (default 7)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", args->warmup, "Unmeasured runs per design first (default 2)")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--out", args->out,
                  "Write a report folder here: NAME.md with SVG charts, and NAME.html, one "
                  "self-contained page; the designs' tables "
                  "in OUT/warehouse (without --out: a temporary warehouse, removed afterwards; "
                  "bench never builds in --warehouse)");
  cmd->add_option("--json", args->json, "Write every figure as JSON to this file");
  cmd->add_option("--tables-at", args->tables_at,
                  "Build the designs' tables in this warehouse instead: s3://bucket/prefix (with "
                  "--catalog sqlite:PATH or rest:URL, and --s3-endpoint, e.g. a floe proxy's) or "
                  "a directory; a real store is measured as it is unless --simulate-s3 is given");
  cmd->add_option("--scale", args->scale, "Multiply the source's rows (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--cold", args->cold,
                "Empty the footer and metadata caches before every run (default: warm, as the "
                "warm-up runs leave them)");
  cmd->add_option("--read-objective", args->read_objective, kReadObjectiveHelp);
  cmd->add_option(
         "--engines", args->engines,
         "Also ask every question on these engines, on the same tables (with "
         "--tables-at s3://...): spark, spark-aal (Spark through S3's Analytics Accelerator "
         "Library), duckdb, pyiceberg (floe always runs); each "
         "one's requests and bytes are counted by a proxy floe starts in front of "
         "--s3-endpoint")
      ->delimiter(',');
  AddSetOption(cmd, &args->sets);
  cmd->callback([&options, args] {
    int rc = Bench(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

void AddDemoCommand(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand(
      "demo", "Run the chapter's worksheets (events, customer dimension) and write a report");
  cmd->add_option("--out", args->out,
                  "Report folder (default ./floe-demo): report.md and report.html (one "
                  "self-contained page), a pair per workload, SVG charts, JSON; tables under "
                  "OUT/warehouse");
  cmd->add_option("--scale", args->scale, "Multiply the chapter's row counts (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rounds", args->rounds, "Measured rounds per design (default 7)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", args->warmup, "Unmeasured runs per design first (default 2)")
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--cold", args->cold,
                "Empty the footer and metadata caches before every run (default: warm)");
  cmd->add_option("--tables-at", args->tables_at,
                  "Build the designs' tables in this warehouse instead: s3://bucket/prefix (with "
                  "--catalog sqlite:PATH or rest:URL, and --s3-endpoint, e.g. a floe proxy's) or "
                  "a directory; a real store is measured as it is unless --simulate-s3 is given");
  cmd->add_option("--read-objective", args->read_objective, kReadObjectiveHelp);
  cmd->add_option("--engines", args->engines,
                  "Also ask every question on these engines (with --tables-at s3://...): spark, "
                  "spark-aal, duckdb, pyiceberg, as floe bench --engines")
      ->delimiter(',');
  cmd->add_option("--built-by", args->built_by,
                  "Who writes each design: floe (default), spark (as the chapter built its "
                  "tables: Spark SQL DDL, INSERT, MERGE INTO, CALL rewrite_data_files; named "
                  "'NAME (Spark)'), or floe,spark for both side by side")
      ->delimiter(',');
  AddSetOption(cmd, &args->sets);
  cmd->callback([&options, args] {
    int rc = Demo(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

void AddAdviseCommand(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<AdviseArgs>();
  auto* cmd = app.add_subcommand(
      "advise",
      "Derive a starting worksheet from a query log (printed on stdout): its source the table "
      "itself (with --warehouse holding it: pinned to its current snapshot, each question planned "
      "there first)");
  cmd->add_option("--queries", args->queries, "Query log: SQL statements separated by ';'")
      ->required();
  cmd->add_option("--table", args->table, "The table to design, NAMESPACE.TABLE")->required();
  cmd->callback([&options, args] {
    int rc = Advise(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
