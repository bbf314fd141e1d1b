// floe: measure an Iceberg table design before placing it. This file wires the subcommands of
// CLI.md together; each subcommand lives in the file named after it.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "cli.h"
#include "floe/base/progress.h"

int main(int argc, char** argv) {
  // Column buffers of a few MB are allocated and freed per batch. glibc would map each with mmap
  // and unmap it on free, so every batch paid page faults and the kernel's zeroing of fresh
  // pages (a fifth of a warm query's time); kept in the heap, freed buffers are reused instead.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // A scan runs many short threads; past a few arenas glibc spreads their buffers over heaps it
  // shrinks on free, so the next query faults the pages in again (a third of a 3 ms query here).
  // Twice the cores keeps lock contention low and the freed buffers reusable.
  mallopt(M_ARENA_MAX, static_cast<int>(2 * std::max(1u, std::thread::hardware_concurrency())));
  using namespace floe::cli;
  CLI::App app{
      "floe: write real Iceberg tables in candidate layouts and measure what each query costs\n"
      "(data files opened, requests, bytes fetched, latency) before a table design goes live."};
  app.name("floe");
  app.set_version_flag("--version", std::string("floe ") + FLOE_VERSION);
  app.require_subcommand(0, 1);
  app.footer(SimulationFooter());
  app.fallthrough();
  GlobalOptions options;
  AddGlobalOptions(app, options);

  AddDemoCommand(app, options);
  AddBenchCommand(app, options);
  AddAdviseCommand(app, options);
  AddQueryCommand(app, options);
  AddGenCommand(app, options);
  AddTableCommand(app, options);
  AddParquetCommand(app, options);
  AddStoreCommand(app, options);

  app.parse_complete_callback([&] { floe::SetProgressQuiet(options.quiet); });
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      std::fprintf(stderr, "floe: invalid input: no command given (see floe --help)\n");
      return 2;
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "floe: invalid input: %s (see floe --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // The library returns errors as values; an exception here is a bug, still reported on one
    // line with a non-zero exit rather than an abort.
    std::fprintf(stderr, "floe: internal: unexpected exception: %s (a bug in floe)\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "floe: internal: unexpected exception (a bug in floe)\n");
    return 1;
  }
  return 0;
}
