// Text forms of column values for docs/cli.md's output contracts: exact, canonical JSON values
// (numbers, ISO 8601 strings for temporal types, strings for decimals, hex for binary, arrays and
// objects for nested values, null) and CSV fields, so tests can compare them with other readers'.
// Pure.
#pragma once

#include <cstdint>
#include <string>

#include "floe/columnar/column.h"

namespace floe::columnar {

// IEEE 754 binary16 -> binary32 (exact; NaN payloads and signs kept).
float HalfToFloat(uint16_t half);

// Decimal digits of a 128-bit integer ("-170141183460469231731687303715884105728").
std::string Int128ToString(__int128 v);
// An unscaled decimal at `scale` ("-12.50" for -1250 at scale 2; "0.05"; "7" at scale 0).
std::string DecimalToString(__int128 unscaled, int32_t scale);

// Shortest text that reads back to the same value, always with a '.', an exponent or a name:
// "1.0", "0.1", "1e+20", "-0.0"; NaN and infinities as the JSON strings "NaN", "Infinity",
// "-Infinity" (quoted when `json`).
std::string FloatToString(double v, bool json);
std::string Float32ToString(float v, bool json);

// The one form floe gives a timestamp of `v` units since the epoch, in JSON, tables and listings:
// ISO 8601, "2024-01-03T12:30:00.000000" (3, 6 or 9 digits by unit), "Z" appended when `zoned`
// (timestamptz, adjusted to UTC).
std::string FormatTimestamp(int64_t v, TimeUnit unit, bool zoned);

// Appends the JSON form of column[row]:
//   bool -> true/false; integers -> numbers; float16/float/double -> FloatToString;
//   decimal -> "12.50"; date32 -> "2024-01-03"; time64 -> "12:30:00.000000" (6 or 9 digits);
//   timestamp -> "2024-01-03T12:30:00.000000" (3, 6 or 9 digits by unit; "Z" appended when the
//   type has a time zone); string -> JSON string; binary / fixed_size_binary -> lowercase hex
//   string; list -> array; struct -> object; map -> array of [key, value] pairs; null -> null.
void AppendJsonValue(const Column& column, int64_t row, std::string* out);

// Appends a JSON string literal (quotes and escapes; bytes that are not UTF-8 become U+FFFD).
void AppendJsonString(std::string_view s, std::string* out);

// Appends the CSV field of column[row]: empty for NULL, else the JSON form with strings
// unquoted, quoted RFC 4180 style when they hold a comma, quote, CR or LF.
void AppendCsvValue(const Column& column, int64_t row, std::string* out);

}  // namespace floe::columnar
