// INTERVAL constants: `INTERVAL '3 days'`, `INTERVAL '3' DAY`, DuckDB's `INTERVAL 3 DAY` (the
// parser quotes its number), `INTERVAL '1 year 2 months'`. floe has no interval column type:
// an interval is folded where it meets a date or timestamp (`x + INTERVAL ...`, `x - INTERVAL
// ...`) into a call moving x by its months, days and microseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "floe/base/result.h"

namespace floe::sql {

struct Interval {
  int64_t months = 0;
  int64_t days = 0;
  int64_t micros = 0;
};

// `text` ("3 days", "1 year 2 months", "90 minutes", "-2 weeks", "1.5 seconds", or a bare "3"
// given `unit`, the field of `INTERVAL '3' DAY`): units year, quarter, month, week, day, hour,
// minute, second, millisecond, microsecond (singular, plural or short: yr, mon, min, sec, ms, us).
Result<Interval> ParseInterval(std::string_view text, std::optional<std::string_view> unit);

}  // namespace floe::sql
