// floe: measure an Iceberg table design before placing it. This file wires the subcommands of
// docs/cli.md together; each subcommand lives in the file named after it.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli.h"
#include "floe/base/progress.h"
#include "floe/base/thread_pool.h"

namespace {

// Edits between two words (Levenshtein), for "did you mean".
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// A command-line error as one line naming the command it is about and pointing at that command's
// help: "table: unknown command 'lst' (did you mean 'list'?); see floe table --help".
std::string ParseErrorMessage(CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  // The commands parsed before the error: floe, then e.g. table, then create.
  CLI::App* at = &app;
  std::string path = "floe";
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
    at = subs.front();
    path += " " + at->get_name();
  }
  // "table create: " before the message ("floe: invalid input: " precedes it).
  const std::string label = path == "floe" ? std::string() : path.substr(5) + ": ";
  // An unknown command word: the first argument after the last command that is neither an option
  // nor the value of one, where the command takes subcommands.
  const std::vector<CLI::App*> commands = at->get_subcommands([](CLI::App*) { return true; });
  if (!commands.empty()) {
    int i = 1;
    // Skip to just past the last command named in `path`.
    std::vector<std::string> names;
    for (size_t start = 0, end; start < path.size(); start = end + 1) {
      end = path.find(' ', start);
      if (end == std::string::npos) end = path.size();
      names.push_back(path.substr(start, end - start));
    }
    size_t matched = 1;  // "floe"
    for (; i < argc && matched < names.size(); ++i) {
      if (names[matched] == argv[i]) ++matched;
    }
    for (; i < argc; ++i) {
      const std::string_view w = argv[i];
      if (w.starts_with("-")) {
        // An option's value is not a command: skip it (the option is this command's or an
        // ancestor's, which floe's commands fall through to).
        if (w.find('=') != std::string_view::npos) continue;
        for (CLI::App* a = at; a != nullptr; a = a->get_parent()) {
          const CLI::Option* opt = a->get_option_no_throw(std::string(w));
          if (opt != nullptr) {
            if (opt->get_items_expected_min() > 0) ++i;
            break;
          }
        }
        continue;
      }
      std::string best;
      size_t best_distance = 3;
      for (CLI::App* c : commands) {
        const size_t d = Distance(w, c->get_name());
        if (d < best_distance) {
          best_distance = d;
          best = c->get_name();
        }
      }
      if (std::any_of(commands.begin(), commands.end(),
                      [&](CLI::App* c) { return c->get_name() == w; })) {
        break;
      }
      return fmt::format("{}unknown command '{}'{}; see {} --help", label, w,
                         best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best), path);
    }
  }
  return fmt::format("{}{}; see {} --help", label, e.what(), path);
}

}  // namespace

int main(int argc, char** argv) {
  // Column buffers of a few MB are allocated and freed per batch. glibc would map each with mmap
  // and unmap it on free, so every batch paid page faults and the kernel's zeroing of fresh
  // pages (a fifth of a warm query's time); kept in the heap, freed buffers are reused instead.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // A scan runs many short threads; past a few arenas glibc spreads their buffers over heaps it
  // shrinks on free, so the next query faults the pages in again (a third of a 3 ms query here).
  // Twice the cores keeps lock contention low and the freed buffers reusable.
  mallopt(M_ARENA_MAX, static_cast<int>(2 * floe::Cores()));
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
  AddProxyCommand(app, options);
  AddTraceCommand(app);
  AddHelpCommand(app);

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
    std::fprintf(stderr, "floe: invalid input: %s\n",
                 ParseErrorMessage(app, argc, argv, e).c_str());
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
