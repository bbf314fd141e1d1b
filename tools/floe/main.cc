// floe: measure an Iceberg table design before placing it. This file wires the subcommands of
// CLI.md together; each subcommand lives in the file named after it.
#include <cstdio>
#include <cstdlib>

#include "cli.h"
#include "floe/base/log.h"
#include "floe/base/progress.h"

namespace floe::cli {

void AddGlobalOptions(CLI::App& app, GlobalOptions& o) {
  if (const char* env = std::getenv("FLOE_WAREHOUSE"); env != nullptr && *env != '\0') {
    o.warehouse = env;
  }
  app.add_option("--warehouse", o.warehouse,
                 "Warehouse URI: a directory, file:///abs, or s3://bucket/prefix "
                 "(env FLOE_WAREHOUSE; default ./floe-warehouse)");
  app.add_option("--catalog", o.catalog,
                 "Catalog: sqlite:PATH (default: catalog.db in the warehouse)");
  app.add_option("--simulate-s3", o.simulate_s3,
                 "Put the simulated-S3 decorator in front of the store; optional settings "
                 "first_byte_ms=25,jitter=0.37,mbps=90,total_mbps=1250,concurrency=64,seed=1")
      ->expected(0, 1);
  app.add_flag("--no-simulate-s3", o.no_simulate_s3, "Turn the simulated-S3 decorator off");
  app.add_option("--s3-endpoint", o.s3_endpoint, "S3 endpoint URL, e.g. http://127.0.0.1:9000");
  app.add_option("--s3-region", o.s3_region, "S3 region (default: AWS_REGION or us-east-1)");
  app.add_flag("--s3-path-style", o.s3_path_style,
               "Address buckets by path instead of virtual host");
  app.add_flag("-q,--quiet", o.quiet, "No progress output");
}

int ReportError(const Error& error) {
  std::fprintf(stderr, "floe: %s\n", error.ToString().c_str());
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

}  // namespace floe::cli

int main(int argc, char** argv) {
  using namespace floe::cli;
  CLI::App app{
      "floe: write real Iceberg tables in candidate layouts and measure what each query costs\n"
      "(data files opened, requests, bytes fetched, latency) before a table design goes live."};
  app.name("floe");
  app.set_version_flag("--version", std::string("floe ") + FLOE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  GlobalOptions options;
  AddGlobalOptions(app, options);

  AddUnbuiltCommand(app, "demo", "Run the built-in worksheets and write a report", "#8");
  AddUnbuiltCommand(app, "bench", "Build every design of a worksheet and measure its questions",
                    "#8");
  AddUnbuiltCommand(app, "advise", "Derive a starting worksheet from a query log", "#8");
  AddUnbuiltCommand(app, "query", "Run SQL over Iceberg tables with the four numbers", "#6");
  AddUnbuiltCommand(app, "gen",
                    "Generate a workload table (events, orders, customers, store_sales)", "#8");
  AddUnbuiltCommand(app, "table", "Create, append to, describe and maintain Iceberg tables",
                    "#4 and #7");
  AddUnbuiltCommand(app, "parquet", "Inspect and print Parquet files", "#3");
  AddStoreCommand(app, options);

  app.parse_complete_callback([&] { floe::SetProgressQuiet(options.quiet); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "floe: invalid input: %s (see floe --help)\n", e.what());
    return 2;
  }
  return 0;
}
