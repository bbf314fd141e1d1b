// Minimal leveled logging to stderr. The level comes from FLOE_LOG (error|warn|info|debug, default
// warn). Thread-safe: each message is written with one call. Never log credentials.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace floe {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

LogLevel CurrentLogLevel();
void SetLogLevel(LogLevel level);
void LogLine(LogLevel level, std::string_view message);

template <typename... Args>
void Log(LogLevel level, fmt::format_string<Args...> f, Args&&... args) {
  if (level <= CurrentLogLevel()) LogLine(level, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace floe
