// Which column types a text value can be read as, for the CSV sniffer and the JSON reader's
// strings: a bit mask per value, AND-ed over a column, then the narrowest type left. The types
// and rules are DuckDB's sniffer's: BOOLEAN (true/false/t/f/yes/no, any case), BIGINT, DOUBLE
// (also nan, inf, infinity), TIME, DATE, TIMESTAMP (ISO 8601, 'T' or ' ', fractions), TIMESTAMP
// WITH TIME ZONE (an offset or Z on every value), else VARCHAR. Spaces and tabs around a value do
// not change its type ("a, b" files); a number written with a leading zero ("007", a zip code)
// stays text.
#pragma once

#include <cstdint>
#include <string_view>

#include "floe/columnar/data_type.h"

namespace floe::columnar {

enum TextType : uint32_t {
  kTextBool = 1u << 0,
  kTextInt64 = 1u << 1,
  kTextFloat64 = 1u << 2,
  kTextTime = 1u << 3,
  kTextDate = 1u << 4,
  kTextTimestamp = 1u << 5,
  kTextTimestampTz = 1u << 6,
  kTextAny = (1u << 7) - 1,  // a column that has seen no value yet
};

// The types `s` parses as; 0 when only VARCHAR (an empty or blank value too).
uint32_t TextTypesOf(std::string_view s);

// `s` without the spaces and tabs around it: how a value of a type other than text is read, and
// how a CSV header names its column.
std::string_view TrimBlanks(std::string_view s);

// The narrowest type of a column whose values all parse as `mask` (VARCHAR for 0 and for a
// column of no values, kTextAny).
DataType NarrowestTextType(uint32_t mask);

}  // namespace floe::columnar
