// The pieces every subcommand shares: global flags, opening the store they name, one-line errors.
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "cli.h"
#include "floe/columnar/box_renderer.h"
#include "floe/io/counting_store.h"
#include "floe/io/simulated_store.h"
#include "floe/io/store_uri.h"

namespace floe::cli {

void AddGlobalOptions(CLI::App& app, GlobalOptions& o) {
  if (const char* env = std::getenv("FLOE_WAREHOUSE"); env != nullptr && *env != '\0') {
    o.warehouse = env;
  }
  app.add_option("--warehouse", o.warehouse,
                 "Warehouse URI: a directory, file:///abs, or s3://bucket/prefix "
                 "(env FLOE_WAREHOUSE; default ./floe-warehouse)");
  if (const char* env = std::getenv("FLOE_CATALOG"); env != nullptr && *env != '\0') {
    o.catalog = env;
  }
  app.add_option("--catalog", o.catalog,
                 "Catalog: sqlite:PATH or rest:http://HOST:PORT[?warehouse=W] (env "
                 "FLOE_CATALOG; default: catalog.db in a local warehouse; an s3:// warehouse "
                 "needs one named; a REST catalog's secrets come from FLOE_REST_CREDENTIAL or "
                 "FLOE_REST_TOKEN)");
  app.add_option("--simulate-s3", o.simulate_s3,
                 "Put the simulated-S3 decorator in front of the store, optionally with settings "
                 "KEY=VALUE,... (see the defaults below)")
      ->expected(0, 1);
  app.add_flag("--no-simulate-s3", o.no_simulate_s3, "Turn the simulated-S3 decorator off");
  app.add_option("--s3-endpoint", o.s3_endpoint, "S3 endpoint URL, e.g. http://127.0.0.1:9000");
  app.add_option("--s3-region", o.s3_region, "S3 region (default: AWS_REGION or us-east-1)");
  app.add_flag("--s3-path-style", o.s3_path_style,
               "Address buckets by path instead of virtual host");
  app.add_flag("-q,--quiet", o.quiet, "No progress output");
}

int ReportError(const Error& error) {
  // One line whatever the message quotes: a value or file name with a newline or other control
  // character is shown escaped.
  const std::string line = columnar::OneLine(error.ToString());
  std::fprintf(stderr, "floe: %s\n", line.c_str());
  switch (error.kind) {
    case ErrorKind::kInvalidInput:
      return 2;
    case ErrorKind::kUnsupported:
      return 3;
    default:
      return 1;
  }
}

void AddUnbuiltCommand(CLI::App& app, const std::string& name, const std::string& description,
                       const std::string& issue) {
  auto* cmd = app.add_subcommand(name, description + " [not built yet]");
  cmd->allow_extras();
  cmd->callback([name, issue] {
    std::fprintf(stderr, "floe: unsupported: 'floe %s' is not built yet (see issue %s)\n",
                 name.c_str(), issue.c_str());
    std::exit(3);
  });
}

io::S3Options S3OptionsFrom(const GlobalOptions& g) {
  io::S3Options s3;
  s3.endpoint = g.s3_endpoint;
  s3.region = g.s3_region;
  s3.path_style = g.s3_path_style;
  return s3;
}

Result<io::StorePtr> OpenStoreFor(const GlobalOptions& g, const std::string& uri,
                                  bool simulate_by_default) {
  // The user's own files: one truncated while floe reads it must be an error, not a SIGBUS.
  io::LocalStoreOptions local;
  local.map_reads = false;
  FLOE_ASSIGN_OR_RETURN(io::StorePtr store, io::OpenStore(uri, S3OptionsFrom(g), local));
  return DecorateStore(g, std::move(store), simulate_by_default);
}

Result<io::StorePtr> DecorateStore(const GlobalOptions& g, io::StorePtr store,
                                   bool simulate_by_default) {
  bool simulate = g.simulate_s3.has_value() || (simulate_by_default && !g.no_simulate_s3);
  if (g.no_simulate_s3 && g.simulate_s3.has_value()) {
    return InvalidInput("--simulate-s3 and --no-simulate-s3 contradict each other");
  }
  if (!simulate) return store;
  auto parsed = io::ParseSimulationOptions(g.simulate_s3.value_or(""));
  if (!parsed) return std::unexpected(parsed.error());
  return io::StorePtr(std::make_shared<io::SimulatedStore>(std::move(store), *parsed));
}

Result<parquet::ReadPlannerOptions> PlannerOptionsFor(const GlobalOptions& g,
                                                      const std::string& objective) {
  parquet::ReadPlannerOptions p;
  auto parsed = parquet::ParseReadObjective(objective);
  if (!parsed) {
    return InvalidInput("--read-objective '{}': expected latency, requests or cost", objective);
  }
  p.objective = *parsed;
  if (g.simulate_s3 && !g.no_simulate_s3) {
    FLOE_ASSIGN_OR_RETURN(p.store_model, io::ParseSimulationOptions(*g.simulate_s3));
  }
  return p;
}

void AddSetOption(CLI::App* command, std::vector<std::string>* sets) {
  const bool listed_here = command->get_name() == "query";
  command->add_option("--set", *sets,
                      fmt::format("NAME=VALUE: a read setting, e.g. read.request-budget=32 "
                                  "(repeatable; {})",
                                  listed_here ? "the settings are listed below"
                                              : "`floe query --help` lists them"));
}

void AddTraceOption(CLI::App* command, std::vector<std::string>* sets) {
  command->add_option_function<std::string>(
      "--trace", [sets](const std::string& file) { sets->push_back("trace=" + file); },
      "FILE: write every store request of each statement as a JSON line (kind, object, byte "
      "range, bytes, times, purpose); `floe trace summarize FILE` groups them (the setting "
      "`trace`)");
}

Result<sql::Settings> SettingsFrom(const std::vector<std::string>& sets,
                                   const std::optional<std::string>& read_strategy,
                                   const std::optional<std::string>& read_objective) {
  sql::Settings s;
  if (read_strategy) FLOE_RETURN_IF_ERROR(s.Set("read.strategy", *read_strategy));
  if (read_objective) FLOE_RETURN_IF_ERROR(s.Set("read.objective", *read_objective));
  for (const auto& a : sets) {
    FLOE_RETURN_IF_ERROR(s.SetAssignment(a));
  }
  return s;
}

}  // namespace floe::cli
