// `floe help [TOPIC]`: the long help every subcommand would otherwise repeat, once -- the simulated
// store's settings (simulate-s3), the read settings (settings) and the exit codes (exit-codes) --
// and the one-line footer that points at it from every --help.
#include <fmt/format.h>

#include "cli.h"
#include "floe/io/simulated_store.h"
#include "floe/sql/settings.h"

namespace floe::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  done\n"
    "  1  it failed: the store or network (I/O), a table or file not found, a commit that lost to\n"
    "     a concurrent one, a corrupt file, or a bug in floe (\"internal\")\n"
    "  2  invalid input: a flag, argument, property, URI or SQL text is wrong; nothing changed\n"
    "  3  unsupported: valid input floe does not handle (yet); nothing changed\n"
    "Every error is one line on stderr, \"floe: <kind>: <what and where>\".\n";

}  // namespace

std::string SimulationFooter() {
  return "--simulate-s3=KEY=VALUE,... models S3's latency and bandwidth: floe help simulate-s3.\n"
         "Exit codes: floe help exit-codes. The command line: docs/cli.md; worksheets: "
         "docs/worksheet.md (in floe's repository).";
}

void AddHelpCommand(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  auto* cmd =
      app.add_subcommand("help",
                         "Long help on a topic: simulate-s3 (the simulated store), settings (read "
                         "settings), exit-codes");
  cmd->add_option("topic", *topic, "simulate-s3, settings or exit-codes (default: all three)")
      ->check(CLI::IsMember({"simulate-s3", "settings", "exit-codes"}));
  cmd->callback([topic] {
    if (topic->empty() || *topic == "simulate-s3") {
      fmt::print("--simulate-s3 settings:\n{}\n", io::SimulationHelp());
    }
    if (topic->empty() || *topic == "settings") fmt::print("{}\n", sql::SettingsHelp());
    if (topic->empty() || *topic == "exit-codes") fmt::print("{}", kExitCodes);
  });
}

}  // namespace floe::cli
