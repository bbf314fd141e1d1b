// Shared pieces of the floe command line: the global options every subcommand accepts and the
// one-line error convention. Subcommands live one per file and register themselves in main.cc.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/base/result.h"
#include "floe/io/object_store.h"
#include "floe/io/s3_store.h"
#include "floe/parquet/read_planner.h"
#include "floe/sql/settings.h"

namespace floe::cli {

struct GlobalOptions {
  std::string warehouse = "./floe-warehouse";
  std::string catalog;
  std::optional<std::string> simulate_s3;  // set when --simulate-s3 is given (value may be empty)
  bool no_simulate_s3 = false;
  std::string s3_endpoint;
  std::string s3_region;
  bool s3_path_style = false;
  bool quiet = false;
};

// Adds the global flags to `app`; they are accepted before or after a subcommand.
void AddGlobalOptions(CLI::App& app, GlobalOptions& options);

// Prints "floe: <error>" on one line to stderr and returns the exit code for it.
int ReportError(const Error& error);

// Registers a subcommand that is not built yet: --help works, running it says so and exits 2.
void AddUnbuiltCommand(CLI::App& app, const std::string& name, const std::string& description,
                       const std::string& issue);

io::S3Options S3OptionsFrom(const GlobalOptions& options);

// Opens the store a URI names with the global flags applied: S3 settings, and the simulated-S3
// decorator when --simulate-s3 is given (or by default for commands that simulate by default,
// unless --no-simulate-s3). For a user's files (inputs, files to inspect or write), never a
// warehouse: local files are copied, never mapped, as they may change while read.
Result<io::StorePtr> OpenStoreFor(const GlobalOptions& options, const std::string& uri,
                                  bool simulate_by_default);

// Applies the global decorators (simulated S3) to an opened store.
Result<io::StorePtr> DecorateStore(const GlobalOptions& options, io::StorePtr store,
                                   bool simulate_by_default);

// The floe read strategy's planner for --read-objective NAME: the objective, and as its store
// model the --simulate-s3 settings when the store is simulated (SimulatedStore's defaults else).
Result<parquet::ReadPlannerOptions> PlannerOptionsFor(const GlobalOptions& options,
                                                      const std::string& objective);
inline constexpr const char* kReadObjectiveHelp =
    "What the floe strategy's request planner minimises: latency (default; modelled time under the "
    "store model, the fewest requests among plans within 10% of the fastest), requests, or cost "
    "(S3's GET price per request, transfer free in-region)";

// --set NAME=VALUE (repeatable): a read setting of the registry (sql/settings.h), applied over
// the other flags. --read-strategy and --read-objective are the same as read.strategy and
// read.objective.
void AddSetOption(CLI::App* command, std::vector<std::string>* sets);
// --trace FILE: the setting `trace` (query_session.h) given on the command line.
void AddTraceOption(CLI::App* command, std::vector<std::string>* sets);
// The settings --set gave, checked: the error names the setting and the value. --read-strategy
// and --read-objective, when typed, are read.strategy and read.objective under them (so a typed
// flag wins over a table's property, and --set over both).
Result<sql::Settings> SettingsFrom(const std::vector<std::string>& sets,
                                   const std::optional<std::string>& read_strategy = std::nullopt,
                                   const std::optional<std::string>& read_objective = std::nullopt);

// `floe table ...`
void AddTableCommand(CLI::App& app, GlobalOptions& options);

// The footer of every --help: where the long help is (help.cc).
std::string SimulationFooter();

// `floe help [simulate-s3|settings|exit-codes]`: the long help, once (help.cc).
void AddHelpCommand(CLI::App& app);
// `floe trace summarize FILE` (trace.cc).
void AddTraceCommand(CLI::App& app);

// `floe query ...`: SQL over the warehouse's tables (query.cc).
void AddQueryCommand(CLI::App& app, GlobalOptions& options);

// `floe store ...`: direct object-store access (head, get, put, ls, rm) on any store URI.
void AddStoreCommand(CLI::App& app, GlobalOptions& options);
// `floe proxy` and `floe proxy stats` (proxy.cc).
void AddProxyCommand(CLI::App& app, GlobalOptions& options);

// `floe parquet inspect|cat`: a Parquet file's footer, and its rows as CSV or JSON.
void AddParquetCommand(CLI::App& app, GlobalOptions& options);

// `floe gen`, `floe bench`, `floe demo`, `floe advise` (the main job, issue 8).
void AddGenCommand(CLI::App& app, GlobalOptions& options);
void AddBenchCommand(CLI::App& app, GlobalOptions& options);
void AddDemoCommand(CLI::App& app, GlobalOptions& options);
void AddAdviseCommand(CLI::App& app, GlobalOptions& options);

}  // namespace floe::cli
