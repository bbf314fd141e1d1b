// LogicalType: the spec's annotation of what a column's physical values mean (string, decimal,
// timestamp with unit and UTC flag, ...), as a plain value. A union member floe does not know
// parses as kUnrecognized, never an error, so the column still reads by its physical type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace floe::parquet {

// Which annotation, plus the parameters of the ones that have any.
struct LogicalType {
  enum class Kind : int32_t {
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // the spec's UNKNOWN: a column that only ever holds nulls
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
    kUnrecognized = -1,  // a member this version of floe does not know
  };
  enum class TimeUnit : int32_t { kMillis = 1, kMicros = 2, kNanos = 3, kUnrecognized = -1 };

  Kind kind = Kind::kUnrecognized;
  // kDecimal
  int32_t scale = 0;
  int32_t precision = 0;
  // kTime, kTimestamp
  bool is_adjusted_to_utc = false;
  TimeUnit unit = TimeUnit::kUnrecognized;
  // kInteger
  int8_t bit_width = 0;
  bool is_signed = true;
  // kVariant
  std::optional<int8_t> specification_version;
  // kGeometry, kGeography
  std::optional<std::string> crs;
  std::optional<int32_t> edge_interpolation_algorithm;  // kGeography; spec enum, SPHERICAL = 0

  static LogicalType Of(Kind kind) {
    LogicalType t;
    t.kind = kind;
    return t;
  }
  static LogicalType Decimal(int32_t precision, int32_t scale);
  static LogicalType Time(bool is_adjusted_to_utc, TimeUnit unit);
  static LogicalType Timestamp(bool is_adjusted_to_utc, TimeUnit unit);
  static LogicalType Integer(int8_t bit_width, bool is_signed);

  // "DECIMAL(10,2)", "TIMESTAMP(MICROS,UTC)", "INTEGER(16,unsigned)", "STRING".
  std::string ToString() const;

  friend bool operator==(const LogicalType&, const LogicalType&) = default;
};

}  // namespace floe::parquet
