// Value: one scalar of the executor's type system, and the conversions between scalars and
// Arrow-layout columns. The executor computes on a few normalised types -- bool, int64, float64,
// string, binary, date32 (days), timestamp[us] (with or without "UTC"), time64[us] and decimal128
// -- so integer and float columns of narrower widths are widened once, when a scan produces them.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/data_type.h"

namespace floe::exec {

using columnar::ColumnPtr;
using columnar::DataType;
using columnar::TypeId;

// Payload by type: bool; int64 for integers, dates (days), timestamps and times (micros); double;
// string for strings and binary; __int128 for decimals (unscaled, at the type's scale).
struct Value {
  std::variant<std::monostate, bool, int64_t, double, std::string, __int128> v;

  bool is_null() const { return std::holds_alternative<std::monostate>(v); }
  bool b() const { return std::get<bool>(v); }
  int64_t i() const { return std::get<int64_t>(v); }
  double d() const { return std::get<double>(v); }
  const std::string& s() const { return std::get<std::string>(v); }
  __int128 dec() const { return std::get<__int128>(v); }

  static Value Null() { return {}; }
  static Value Bool(bool x) { return {x}; }
  static Value Int(int64_t x) { return {x}; }
  static Value Double(double x) { return {x}; }
  static Value Str(std::string x) { return {std::move(x)}; }
};

bool IsIntegerType(const DataType& t);   // int64 (the normalised integer)
bool IsNumericType(const DataType& t);   // int64, float64, decimal
bool IsTemporalType(const DataType& t);  // date32, timestamp, time64
bool IsStringType(const DataType& t);

// The normalised form of a column type: ints -> int64, floats -> float64, timestamps -> micros,
// large/fixed binary kept. Nested types are kept (they can be output, not computed on).
DataType NormalizedType(const DataType& t);
// The column converted to its normalised type (the column itself when already normalised).
Result<ColumnPtr> NormalizeColumn(const ColumnPtr& column);

// A normalised column turned back into `type` (the column's type before NormalizedType), as a
// write needs it: int64 -> the narrower integer (a value out of its range is an invalid-input
// error), float64 -> float32, micros -> the timestamp's or time's unit. Other types come back as
// they are.
Result<ColumnPtr> DenormalizeColumn(const ColumnPtr& column, const DataType& type);

// The value at `row` of a column (normalised or not). Nested columns are an unsupported error.
Result<Value> ValueAt(const columnar::Column& column, int64_t row);

// Total order for sorting and MIN/MAX on two non-null values of the same (normalised) type.
int CompareValues(const Value& a, const Value& b);
// Hashable bytes identifying a value (type-tagged), for GROUP BY and COUNT(DISTINCT).
void AppendKeyBytes(const Value& v, std::string* out);

// Text of a value as CAST(... AS VARCHAR) gives it: 42, 1.5, 2024-01-03, 2024-01-03 10:00:00.
std::string ValueToText(const Value& v, const DataType& type);

// Converts a value between types; a string that does not parse as the target type is an
// invalid-input error naming it ("malformed date literal '2024-13-01'"), and a value outside the
// target's range is one too ("value 2147483648 is out of range for INTEGER"). `to` may be a
// narrower integer type (int8/16/32): the result is an int64 value checked against its range.
Result<Value> CastValue(const Value& v, const DataType& from, const DataType& to);
// int8, int16 and int32: SQL types the executor holds as int64 with a range.
bool IsNarrowInteger(const DataType& t);

// SQL's date and timestamp literals: ISO 8601 ("2024-01-03", "2024-01-03[ T]10:00[:00[.ffffff]]
// [Z|+hh:mm]", one-digit months and days allowed), through base/calendar.h; a timestamp is
// microseconds since the epoch in UTC (nullopt outside int64's range).
std::optional<int32_t> ParseDate(std::string_view s);
std::optional<int64_t> ParseTimestampMicros(std::string_view s);

// Appends values of one type and produces a column of it.
class ValueColumnBuilder {
 public:
  explicit ValueColumnBuilder(const DataType& type);
  Status Append(const Value& v);
  void AppendNull();
  int64_t length() const { return length_; }
  ColumnPtr Finish();

 private:
  DataType type_;
  int64_t length_ = 0;
  columnar::FixedWidthBuilder<int64_t> i64_;
  columnar::FixedWidthBuilder<int32_t> i32_;
  columnar::FixedWidthBuilder<double> f64_;
  columnar::FixedWidthBuilder<__int128> dec_;
  columnar::BoolBuilder bool_;
  columnar::BinaryBuilder bin_;
};

// A column of `n` copies of `v`.
Result<ColumnPtr> MakeConstantColumn(const Value& v, const DataType& type, int64_t n);

}  // namespace floe::exec
