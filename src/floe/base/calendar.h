// Calendar arithmetic on the proleptic Gregorian calendar and the ISO 8601 text forms floe reads
// (CSV cells, filter literals, SQL): dates, times of day, timestamps with an optional offset, and
// exact decimals. One implementation shared by every module; pure functions, thread safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe {

// a / b rounded toward negative infinity.
int64_t FloorDiv(int64_t a, int64_t b);

// Days since 1970-01-01 of y-m-d (month 1-12), and back.
int32_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

// "YYYY-MM-DD".
std::string FormatDate(int32_t days);

// "YYYY-MM-DD" -> days; nullopt for malformed text or a day the month lacks (Feb 30).
std::optional<int32_t> ParseIsoDate(std::string_view s);
// "HH:MM:SS[.f{1,9}]" -> nanoseconds since midnight (a leap second :60 is accepted).
std::optional<int64_t> ParseIsoTimeNanos(std::string_view s);
// "YYYY-MM-DD[(T| )HH:MM:SS[.f][Z|+hh:mm|-hh:mm]]" -> nanoseconds since the epoch: UTC when an
// offset is given, otherwise the wall-clock value as written.
std::optional<int64_t> ParseIsoTimestampNanos(std::string_view s);
// "-12.345" at `scale` -> the unscaled value, exactly: digits beyond the scale must be zeros.
std::optional<__int128> ParseDecimalText(std::string_view s, int32_t scale);

}  // namespace floe
