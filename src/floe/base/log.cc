#include "floe/base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace floe {
namespace {

LogLevel LevelFromEnv() {
  const char* env = std::getenv("FLOE_LOG");
  if (env == nullptr) return LogLevel::kWarn;
  std::string_view v(env);
  if (v == "error") return LogLevel::kError;
  if (v == "info") return LogLevel::kInfo;
  if (v == "debug") return LogLevel::kDebug;
  return LogLevel::kWarn;
}

std::atomic<int>& Level() {
  static std::atomic<int> level{static_cast<int>(LevelFromEnv())};
  return level;
}

}  // namespace

LogLevel CurrentLogLevel() {
  return static_cast<LogLevel>(Level().load(std::memory_order_relaxed));
}
void SetLogLevel(LogLevel level) { Level().store(static_cast<int>(level)); }

void LogLine(LogLevel level, std::string_view message) {
  static constexpr std::string_view kNames[] = {"error", "warn", "info", "debug"};
  std::string line = fmt::format("floe {}: {}\n", kNames[static_cast<int>(level)], message);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace floe
