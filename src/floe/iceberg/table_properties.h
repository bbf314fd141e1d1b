// The table properties floe reads: Iceberg's names, their defaults and the range each value must
// lie in. Every write path (data writer, commit, maintenance) and `table create` validates a
// table's properties here first, so a value that does not parse or lies outside its range --
// whoever set it: floe, Spark, pyiceberg -- is one invalid-input error naming the property,
// never a crash, a hang or a silently substituted default. Properties floe does not read are
// left alone (other engines' own). Pure functions, thread safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::iceberg {

enum class PropertyKind {
  kInteger,      // a decimal integer in [min, max]
  kFraction,     // a number strictly between 0 and 1 (bloom filter false-positive rates)
  kBoolean,      // true or false
  kCodec,        // a Parquet compression codec name
  kMetricsMode,  // none, counts, truncate(N), full
  kChoice,       // one of `choices` (case-insensitive)
  kLayout,       // a clustering: zorder(col, ...) or hilbert(col, ...)
  kText,
};

struct PropertyDef {
  std::string_view key;  // a key, or a prefix ending in '.' followed by a column name
  PropertyKind kind;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::string_view default_value;  // as Iceberg 1.11 documents it ("" when none)
  std::string_view doc;
  std::string_view choices = {};  // kChoice: the values, separated by '|'
};

// Every property floe reads, in the order `floe table create --help` lists them.
const std::vector<PropertyDef>& TableProperties();

// Checks one key/value: unknown keys pass; a known one must parse and lie in its range. The
// error reads "table property commit.retry.min-wait-ms = '-100': expected an integer from 0 to
// 3600000".
Status ValidateTableProperty(std::string_view key, std::string_view value);
// Every entry of `properties`.
Status ValidateTableProperties(const std::map<std::string, std::string>& properties);

}  // namespace floe::iceberg
