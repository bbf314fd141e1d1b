// Literal: one typed Iceberg value (a partition value, a column bound, a predicate constant), with
// the spec's single-value binary serialisation used for manifest bounds, ordering for pruning, and
// a readable rendering for metadata tables. Plain data.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>

#include "floe/base/calendar.h"
#include "floe/base/result.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

using Int128 = __int128;

struct DecimalValue {
  Int128 unscaled = 0;
  int32_t scale = 0;
  friend bool operator==(const DecimalValue&, const DecimalValue&) = default;
};

struct BinaryValue {  // binary, fixed and uuid (16 bytes, big-endian)
  std::string bytes;
  friend bool operator==(const BinaryValue&, const BinaryValue&) = default;
};

class Literal {
 public:
  using Storage = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                               BinaryValue, DecimalValue>;

  Literal() = default;  // null
  static Literal Null(TypeId type) { return Literal(type, std::monostate{}); }
  static Literal Boolean(bool v) { return Literal(TypeId::kBoolean, v); }
  static Literal Int(int32_t v) { return Literal(TypeId::kInt, v); }
  static Literal Long(int64_t v) { return Literal(TypeId::kLong, v); }
  static Literal Float(float v) { return Literal(TypeId::kFloat, v); }
  static Literal Double(double v) { return Literal(TypeId::kDouble, v); }
  static Literal Date(int32_t days) { return Literal(TypeId::kDate, days); }
  static Literal Time(int64_t micros) { return Literal(TypeId::kTime, micros); }
  static Literal Timestamp(int64_t micros) { return Literal(TypeId::kTimestamp, micros); }
  static Literal TimestampTz(int64_t micros) { return Literal(TypeId::kTimestampTz, micros); }
  static Literal TimestampNs(int64_t nanos) { return Literal(TypeId::kTimestampNs, nanos); }
  static Literal TimestampTzNs(int64_t nanos) { return Literal(TypeId::kTimestampTzNs, nanos); }
  static Literal String(std::string v) { return Literal(TypeId::kString, std::move(v)); }
  // `v` as a value of an integer-valued type: int and date (nullopt outside int32), long, time
  // and the timestamps; nullopt for any other type.
  static std::optional<Literal> OfInteger(TypeId type, int64_t v);
  static Literal Binary(std::string v) {
    return Literal(TypeId::kBinary, BinaryValue{std::move(v)});
  }
  static Literal Fixed(std::string v) { return Literal(TypeId::kFixed, BinaryValue{std::move(v)}); }
  static Literal Uuid(std::string big_endian16) {
    return Literal(TypeId::kUuid, BinaryValue{std::move(big_endian16)});
  }
  static Literal Decimal(Int128 unscaled, int32_t scale) {
    return Literal(TypeId::kDecimal, DecimalValue{unscaled, scale});
  }

  TypeId type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  const Storage& storage() const { return v_; }
  int32_t AsInt() const { return std::get<int32_t>(v_); }
  int64_t AsLong() const { return std::get<int64_t>(v_); }
  const std::string& AsString() const { return std::get<std::string>(v_); }
  const std::string& AsBytes() const { return std::get<BinaryValue>(v_).bytes; }
  const DecimalValue& AsDecimal() const { return std::get<DecimalValue>(v_); }

  // Readable form: 42, 'abc', 2024-01-03, 2024-01-03T10:00:00.000000, 12.34, 0x0102.
  // The value as floe's outputs print it: ToString, but timestamps in the one form of
  // columnar/value_format.h ("2024-01-03T12:30:00.000000Z" for a timestamptz).
  std::string ToDisplayString() const;
  std::string ToString() const;

  friend bool operator==(const Literal&, const Literal&) = default;

 private:
  Literal(TypeId t, Storage v) : type_(t), v_(std::move(v)) {}
  TypeId type_ = TypeId::kBoolean;
  Storage v_;
};

// gtest and logs print a literal as its readable form.
inline void PrintTo(const Literal& v, std::ostream* os) { *os << v.ToString(); }

// Orders two non-null literals of the same type as Iceberg does (strings and binary by unsigned
// bytes, floats with -0.0 < +0.0 and NaN unordered). Mixed types are unordered.
std::partial_ordering Compare(const Literal& a, const Literal& b);

// The spec's single-value serialisation (Appendix D): 4/8-byte little-endian numbers, UTF-8,
// big-endian uuid, minimal two's-complement big-endian decimals.
std::string SerializeBound(const Literal& v);
Result<Literal> DeserializeBound(const Type& type, std::string_view bytes);

// Minimal big-endian two's-complement bytes of a 128-bit integer (decimal bounds, bucket hash).
std::string Int128ToMinimalBigEndian(Int128 v);

}  // namespace floe::iceberg
