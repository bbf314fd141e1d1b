// Calendar arithmetic on the proleptic Gregorian calendar and the ISO 8601 text forms floe reads
// (CSV cells, filter literals, SQL): dates, times of day, timestamps with an optional offset, and
// exact decimals. One implementation shared by every module; pure functions, thread safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "floe/base/result.h"

namespace floe {

// a / b rounded toward negative infinity.
int64_t FloorDiv(int64_t a, int64_t b);

// Days since 1970-01-01 of y-m-d (month 1-12), and back.
int32_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

// "YYYY-MM-DD".
std::string FormatDate(int32_t days);

// "YYYY-MM-DD" -> days; nullopt for malformed text or a day the month lacks (Feb 30). Years
// may have 4 to 7 digits and a sign (ISO 8601's expanded form), within int32 days. `lenient`
// also takes one-digit months and days ("2024-1-3"), as SQL literals do.
std::optional<int32_t> ParseIsoDate(std::string_view s, bool lenient = false);
// "HH:MM[:SS[.f{1,9}]]" -> nanoseconds since midnight (a leap second :60 is accepted).
std::optional<int64_t> ParseIsoTimeNanos(std::string_view s);

// What an ISO 8601 date or date-time text says, before it is placed on a time line of some unit.
struct IsoDateTime {
  int64_t days = 0;            // since 1970-01-01, proleptic Gregorian
  int64_t nanos_of_day = 0;    // 0 .. 86,400 s (a leap second :60 is kept)
  int32_t offset_minutes = 0;  // the UTC offset written (Z is 0), -18:00 .. +18:00
  bool has_offset = false;
};
// "[+|-]YYYY[Y...]-MM-DD[(T| )HH:MM[:SS[.f{1,9}]][Z|+hh|+hhmm|+hh:mm|-...]]"; nullopt when
// malformed: a day the month lacks, an hour past 23, an offset beyond 18:00. `lenient` as for
// ParseIsoDate.
std::optional<IsoDateTime> ParseIsoDateTime(std::string_view s, bool lenient = false);
// The instant in units of 1/`units_per_second` s since the epoch (UTC when an offset was written,
// otherwise the wall-clock value as written), fractions floored; nullopt when it lies outside
// int64. Iceberg's timestamps are micros (years -290308 .. 294247), the _ns types nanos (1677 ..
// 2262).
std::optional<int64_t> EpochUnits(const IsoDateTime& t, int64_t units_per_second);
// Both steps, with an error saying which failed: "'x' is not a timestamp" or "timestamp 'x' is
// outside the range of <what>" (`what` names the type, e.g. "timestamp (microseconds)").
Result<int64_t> ParseIsoTimestamp(std::string_view s, int64_t units_per_second,
                                  std::string_view what);
// Nanoseconds since the epoch; nullopt when malformed or outside the int64 nanosecond range.
std::optional<int64_t> ParseIsoTimestampNanos(std::string_view s);

// A point in time as CLI flags and CALL arguments take it, in Unix milliseconds: an age before
// `now_ms` ("250ms", "30s", "15m", "12h", "3d"), an ISO 8601 date or timestamp (UTC unless it
// gives an offset), or Unix milliseconds. The error names `what` ("--older-than", "older_than").
Result<int64_t> ParseTimeOrAge(std::string_view text, int64_t now_ms, std::string_view what);

// "-12.345" at `scale` -> the unscaled value, exactly: digits beyond the scale must be zeros.
std::optional<__int128> ParseDecimalText(std::string_view s, int32_t scale);
// True when the unscaled value has at most `precision` digits (fits decimal(precision, s)).
bool DecimalFits(__int128 unscaled, int32_t precision);

}  // namespace floe
