#include "floe/exec/value.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "floe/base/calendar.h"
#include "floe/columnar/value_format.h"

namespace floe::exec {

bool IsIntegerType(const DataType& t) { return t.id == TypeId::kInt64; }
bool IsNumericType(const DataType& t) {
  return t.id == TypeId::kInt64 || t.id == TypeId::kFloat64 || t.id == TypeId::kDecimal128;
}
bool IsTemporalType(const DataType& t) {
  return t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp || t.id == TypeId::kTime64;
}
bool IsStringType(const DataType& t) { return t.id == TypeId::kString; }

DataType NormalizedType(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return columnar::Int64();
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return columnar::Float64();
    case TypeId::kTimestamp:
      return columnar::Timestamp(columnar::TimeUnit::kMicro, t.timezone);
    case TypeId::kTime64:
      return columnar::Time64(columnar::TimeUnit::kMicro);
    default:
      return t;
  }
}

namespace {

int64_t ToMicros(int64_t v, columnar::TimeUnit unit) {
  switch (unit) {
    case columnar::TimeUnit::kMilli:
      return v * 1000;
    case columnar::TimeUnit::kMicro:
      return v;
    case columnar::TimeUnit::kNano:
      return FloorDiv(v, 1000);
  }
  return v;
}

}  // namespace

Result<ColumnPtr> NormalizeColumn(const ColumnPtr& column) {
  DataType to = NormalizedType(column->type);
  if (to == column->type) return column;
  if (column->type.IsNested()) return column;
  // Widening a fixed-width column is one loop over its values; the validity bitmap is shared.
  auto widen = [&]<typename From, typename To>(auto convert) -> ColumnPtr {
    const int64_t n = column->length;
    if (column->values.size() < static_cast<size_t>(n) * sizeof(From)) return nullptr;
    ByteVector out(static_cast<size_t>(n) * sizeof(To));
    To* o = reinterpret_cast<To*>(out.data());
    const uint8_t* in = column->values.data();
    for (int64_t i = 0; i < n; ++i) {
      From x;
      std::memcpy(&x, in + i * sizeof(From), sizeof(From));
      o[i] = convert(x);
    }
    auto c = std::make_shared<columnar::Column>();
    c->type = to;
    c->length = n;
    c->null_count = column->null_count;
    c->validity = column->validity;
    c->values = Buffer(std::move(out));
    return c;
  };
  auto same = [](auto x) { return x; };
  ColumnPtr fast;
  switch (column->type.id) {
    case TypeId::kInt8:
      fast = widen.template operator()<int8_t, int64_t>(same);
      break;
    case TypeId::kInt16:
      fast = widen.template operator()<int16_t, int64_t>(same);
      break;
    case TypeId::kInt32:
      fast = widen.template operator()<int32_t, int64_t>(same);
      break;
    case TypeId::kUInt8:
      fast = widen.template operator()<uint8_t, int64_t>(same);
      break;
    case TypeId::kUInt16:
      fast = widen.template operator()<uint16_t, int64_t>(same);
      break;
    case TypeId::kUInt32:
      fast = widen.template operator()<uint32_t, int64_t>(same);
      break;
    case TypeId::kFloat32:
      fast = widen.template operator()<float, double>(same);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      if (column->type.unit == columnar::TimeUnit::kMilli) {
        fast = widen.template operator()<int64_t, int64_t>([](int64_t x) { return x * 1000; });
      } else if (column->type.unit == columnar::TimeUnit::kNano) {
        fast = widen.template operator()<int64_t, int64_t>(
            [](int64_t x) { return FloorDiv(x, 1000); });
      }
      break;
    default:
      break;
  }
  if (fast) return fast;
  ValueColumnBuilder b(to);
  for (int64_t r = 0; r < column->length; ++r) {
    FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(*column, r));
    FLOE_RETURN_IF_ERROR(b.Append(v));
  }
  return b.Finish();
}

Result<ColumnPtr> DenormalizeColumn(const ColumnPtr& column, const DataType& type) {
  if (column->type == type || column->type.IsNested() || type.IsNested()) return column;
  if (column->type.id == TypeId::kNull) return column;
  if (NormalizedType(type) != column->type) {
    return Internal("a {} column cannot be written as {}", column->type.ToString(),
                    type.ToString());
  }
  const int64_t n = column->length;
  // One loop over the values; the validity bitmap is shared. A null row's value is not checked.
  auto narrow = [&]<typename From, typename To>(auto convert) -> Result<ColumnPtr> {
    ByteVector out(static_cast<size_t>(n) * sizeof(To));
    To* o = reinterpret_cast<To*>(out.data());
    for (int64_t i = 0; i < n; ++i) {
      const From x = column->Value<From>(i);
      if (column->IsNull(i)) {
        o[i] = To{};
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(o[i], convert(x));
    }
    auto c = std::make_shared<columnar::Column>();
    c->type = type;
    c->length = n;
    c->null_count = column->null_count;
    c->validity = column->validity;
    c->values = Buffer(std::move(out));
    return ColumnPtr(c);
  };
  auto in_range = [&]<typename To>(int64_t x) -> Result<To> {
    if (x < static_cast<int64_t>(std::numeric_limits<To>::min()) ||
        x > static_cast<int64_t>(std::numeric_limits<To>::max())) {
      return InvalidInput("value {} is out of range for {}", x, type.ToString());
    }
    return static_cast<To>(x);
  };
  auto from_micros = [&](int64_t x) -> Result<int64_t> {
    switch (type.unit) {
      case columnar::TimeUnit::kMilli:
        return FloorDiv(x, 1000);
      case columnar::TimeUnit::kNano:
        if (x > INT64_MAX / 1000 || x < INT64_MIN / 1000) {
          return InvalidInput("value {} is out of range for {}", x, type.ToString());
        }
        return x * 1000;
      default:
        return x;
    }
  };
  switch (type.id) {
    case TypeId::kInt8:
      return narrow.template operator()<int64_t, int8_t>(
          [&](int64_t x) { return in_range.template operator()<int8_t>(x); });
    case TypeId::kInt16:
      return narrow.template operator()<int64_t, int16_t>(
          [&](int64_t x) { return in_range.template operator()<int16_t>(x); });
    case TypeId::kInt32:
      return narrow.template operator()<int64_t, int32_t>(
          [&](int64_t x) { return in_range.template operator()<int32_t>(x); });
    case TypeId::kUInt8:
      return narrow.template operator()<int64_t, uint8_t>(
          [&](int64_t x) { return in_range.template operator()<uint8_t>(x); });
    case TypeId::kUInt16:
      return narrow.template operator()<int64_t, uint16_t>(
          [&](int64_t x) { return in_range.template operator()<uint16_t>(x); });
    case TypeId::kUInt32:
      return narrow.template operator()<int64_t, uint32_t>(
          [&](int64_t x) { return in_range.template operator()<uint32_t>(x); });
    case TypeId::kFloat32:
      return narrow.template operator()<double, float>(
          [](double x) -> Result<float> { return static_cast<float>(x); });
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      return narrow.template operator()<int64_t, int64_t>(from_micros);
    default:
      return Internal("a {} column cannot be written as {}", column->type.ToString(),
                      type.ToString());
  }
}

Result<Value> ValueAt(const columnar::Column& c, int64_t row) {
  if (c.IsNull(row)) return Value{};
  switch (c.type.id) {
    case TypeId::kNull:
      return Value{};
    case TypeId::kBool:
      return Value::Bool(c.BoolAt(row));
    case TypeId::kInt8:
      return Value::Int(c.Value<int8_t>(row));
    case TypeId::kInt16:
      return Value::Int(c.Value<int16_t>(row));
    case TypeId::kInt32:
      return Value::Int(c.Value<int32_t>(row));
    case TypeId::kInt64:
      return Value::Int(c.Value<int64_t>(row));
    case TypeId::kUInt8:
      return Value::Int(c.Value<uint8_t>(row));
    case TypeId::kUInt16:
      return Value::Int(c.Value<uint16_t>(row));
    case TypeId::kUInt32:
      return Value::Int(c.Value<uint32_t>(row));
    case TypeId::kUInt64:
      return Value::Int(static_cast<int64_t>(c.Value<uint64_t>(row)));
    case TypeId::kFloat16:
      return Value::Double(columnar::HalfToFloat(c.Value<uint16_t>(row)));
    case TypeId::kFloat32:
      return Value::Double(c.Value<float>(row));
    case TypeId::kFloat64:
      return Value::Double(c.Value<double>(row));
    case TypeId::kDecimal128:
      return Value{c.Value<__int128>(row)};
    case TypeId::kDate32:
      return Value::Int(c.Value<int32_t>(row));
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return Value::Int(ToMicros(c.Value<int64_t>(row), c.type.unit));
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      return Value::Str(std::string(c.BytesAt(row)));
    default:
      return Unsupported("computing on a {} value", c.type.ToString());
  }
}

int CompareValues(const Value& a, const Value& b) {
  if (a.v.index() != b.v.index()) return a.v.index() < b.v.index() ? -1 : 1;
  switch (a.v.index()) {
    case 0:
      return 0;
    case 1:
      return static_cast<int>(a.b()) - static_cast<int>(b.b());
    case 2:
      return a.i() < b.i() ? -1 : a.i() > b.i() ? 1 : 0;
    case 3: {
      double x = a.d(), y = b.d();
      // NaN sorts above every number, as in DuckDB and Postgres.
      bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn) return xn == yn ? 0 : xn ? 1 : -1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 4: {
      int c = a.s().compare(b.s());
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case 5:
      return a.dec() < b.dec() ? -1 : a.dec() > b.dec() ? 1 : 0;
  }
  return 0;
}

void AppendKeyBytes(const Value& v, std::string* out) {
  out->push_back(static_cast<char>(v.v.index()));
  switch (v.v.index()) {
    case 1:
      out->push_back(v.b() ? 1 : 0);
      break;
    case 2: {
      int64_t x = v.i();
      out->append(reinterpret_cast<const char*>(&x), 8);
      break;
    }
    case 3: {
      double x = v.d();
      if (x == 0) x = 0;           // -0.0 and 0.0 group together
      if (std::isnan(x)) x = NAN;  // one NaN
      out->append(reinterpret_cast<const char*>(&x), 8);
      break;
    }
    case 4: {
      uint32_t n = static_cast<uint32_t>(v.s().size());
      out->append(reinterpret_cast<const char*>(&n), 4);
      out->append(v.s());
      break;
    }
    case 5: {
      __int128 x = v.dec();
      out->append(reinterpret_cast<const char*>(&x), 16);
      break;
    }
    default:
      break;
  }
}

namespace {

std::string TimeOfDay(int64_t micros) {
  int64_t s = micros / 1000000, us = micros % 1000000;
  std::string out = fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  if (us != 0) out += fmt::format(".{:06}", us);
  return out;
}

}  // namespace

std::string ValueToText(const Value& v, const DataType& type) {
  if (v.is_null()) return "NULL";
  switch (type.id) {
    case TypeId::kBool:
      return v.b() ? "true" : "false";
    case TypeId::kFloat64:
      return columnar::FloatToString(v.d(), false);
    case TypeId::kDecimal128:
      return columnar::DecimalToString(v.dec(), type.scale);
    case TypeId::kDate32:
      return FormatDate(static_cast<int32_t>(v.i()));
    case TypeId::kTime64:
      return TimeOfDay(v.i());
    case TypeId::kTimestamp: {
      int64_t days = FloorDiv(v.i(), 86400000000LL);
      std::string out =
          FormatDate(static_cast<int32_t>(days)) + " " + TimeOfDay(v.i() - days * 86400000000LL);
      if (!type.timezone.empty()) out += "+00";
      return out;
    }
    default:
      break;
  }
  switch (v.v.index()) {
    case 1:
      return v.b() ? "true" : "false";
    case 2:
      return std::to_string(v.i());
    case 3:
      return columnar::FloatToString(v.d(), false);
    case 4:
      return v.s();
    default:
      return "?";
  }
}

std::optional<int32_t> ParseDate(std::string_view s) { return ParseIsoDate(s, /*lenient=*/true); }

std::optional<int64_t> ParseTimestampMicros(std::string_view s) {
  auto t = ParseIsoDateTime(s, /*lenient=*/true);
  if (!t) return std::nullopt;
  return EpochUnits(*t, 1000000);
}

namespace {

std::string TypeWord(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt64:
      return "integer";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kDate32:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kBool:
      return "boolean";
    case TypeId::kDecimal128:
      return "decimal";
    default:
      return t.ToString();
  }
}

__int128 Pow10(int n) {
  __int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// `x / 10^n` rounded half away from zero, as SQL engines round a decimal to fewer digits.
__int128 DivRound(__int128 x, int n) {
  __int128 p = Pow10(n);
  __int128 q = x / p, r = x % p;
  if (2 * (r < 0 ? -r : r) >= p) q += x < 0 ? -1 : 1;
  return q;
}

std::string SqlTypeName(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt8:
      return "TINYINT";
    case TypeId::kInt16:
      return "SMALLINT";
    case TypeId::kInt32:
      return "INTEGER";
    case TypeId::kInt64:
      return "BIGINT";
    case TypeId::kDecimal128:
      return fmt::format("DECIMAL({},{})", t.precision, t.scale);
    default:
      return TypeWord(t);
  }
}

std::unexpected<Error> OutOfRange(const Value& v, const DataType& from, const DataType& to) {
  return InvalidInput("value {} is out of range for {}", ValueToText(v, from), SqlTypeName(to));
}

}  // namespace

bool IsNarrowInteger(const DataType& t) {
  return t.id == TypeId::kInt8 || t.id == TypeId::kInt16 || t.id == TypeId::kInt32;
}

Result<Value> CastValue(const Value& v, const DataType& from, const DataType& to) {
  if (v.is_null()) return Value{};
  if (from == to) return v;
  if (IsNarrowInteger(to)) {
    // The executor holds every integer as int64; a narrower SQL type is a range the value must
    // fit.
    FLOE_ASSIGN_OR_RETURN(Value wide, CastValue(v, from, columnar::Int64()));
    const int bits = to.id == TypeId::kInt8 ? 8 : to.id == TypeId::kInt16 ? 16 : 32;
    const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
    if (wide.i() < -hi - 1 || wide.i() > hi) return OutOfRange(v, from, to);
    return wide;
  }
  switch (to.id) {
    case TypeId::kString:
      return Value::Str(ValueToText(v, from));
    case TypeId::kInt64: {
      if (from.id == TypeId::kFloat64) {
        double d = std::nearbyint(v.d());
        // [-2^63, 2^63): the upper end is not representable, so compare against it exclusively.
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
          return OutOfRange(v, from, to);
        }
        return Value::Int(static_cast<int64_t>(d));
      }
      if (from.id == TypeId::kDecimal128) {
        __int128 q = DivRound(v.dec(), from.scale);
        if (q < INT64_MIN || q > INT64_MAX) return OutOfRange(v, from, to);
        return Value::Int(static_cast<int64_t>(q));
      }
      if (from.id == TypeId::kBool) return Value::Int(v.b() ? 1 : 0);
      if (from.id == TypeId::kString) {
        std::string_view s = v.s();
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        int64_t x = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
          return InvalidInput("malformed integer literal '{}'", v.s());
        }
        return Value::Int(x);
      }
      if (from.id == TypeId::kInt64 || from.id == TypeId::kDate32) return Value::Int(v.i());
      break;
    }
    case TypeId::kFloat64: {
      if (from.id == TypeId::kInt64) return Value::Double(static_cast<double>(v.i()));
      if (from.id == TypeId::kDecimal128) {
        return Value::Double(static_cast<double>(v.dec()) / std::pow(10.0, from.scale));
      }
      if (from.id == TypeId::kString) {
        const std::string& s = v.s();
        char* end = nullptr;
        double d = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size()) {
          return InvalidInput("malformed numeric literal '{}'", v.s());
        }
        return Value::Double(d);
      }
      if (from.id == TypeId::kBool) return Value::Double(v.b() ? 1 : 0);
      break;
    }
    case TypeId::kDecimal128: {
      // Every result must fit the target's precision: 10^(precision - scale) bounds the integer
      // part, checked before scaling so nothing overflows.
      const __int128 limit = Pow10(to.precision);
      auto fits = [&](__int128 unscaled) -> Result<Value> {
        if (unscaled <= -limit || unscaled >= limit) return OutOfRange(v, from, to);
        return Value{unscaled};
      };
      if (from.id == TypeId::kInt64) {
        const __int128 whole = Pow10(to.precision - to.scale);
        if (v.i() <= -whole || v.i() >= whole) return OutOfRange(v, from, to);
        return Value{static_cast<__int128>(v.i()) * Pow10(to.scale)};
      }
      if (from.id == TypeId::kFloat64) {
        double scaled = std::round(v.d() * std::pow(10.0, to.scale));
        if (!(std::fabs(scaled) < std::pow(10.0, to.precision))) return OutOfRange(v, from, to);
        return fits(static_cast<__int128>(scaled));
      }
      if (from.id == TypeId::kDecimal128) {
        if (to.scale >= from.scale) {
          const __int128 whole = Pow10(to.precision - to.scale);
          const __int128 integer_part = v.dec() / Pow10(from.scale);
          if (integer_part >= whole || integer_part <= -whole) return OutOfRange(v, from, to);
          return fits(v.dec() * Pow10(to.scale - from.scale));
        }
        return fits(DivRound(v.dec(), from.scale - to.scale));
      }
      if (from.id == TypeId::kString) {
        FLOE_ASSIGN_OR_RETURN(Value d, CastValue(v, from, columnar::Float64()));
        return CastValue(d, columnar::Float64(), to);
      }
      break;
    }
    case TypeId::kBool: {
      if (from.id == TypeId::kInt64) return Value::Bool(v.i() != 0);
      if (from.id == TypeId::kString) {
        std::string s;
        for (char c : v.s()) s.push_back(static_cast<char>(std::tolower(c)));
        if (s == "true" || s == "t" || s == "1") return Value::Bool(true);
        if (s == "false" || s == "f" || s == "0") return Value::Bool(false);
        return InvalidInput("malformed boolean literal '{}'", v.s());
      }
      break;
    }
    case TypeId::kDate32: {
      if (from.id == TypeId::kString) {
        auto d = ParseDate(v.s());
        if (!d) {
          auto t = ParseIsoDateTime(v.s(), /*lenient=*/true);
          if (!t) return InvalidInput("malformed date literal '{}'", v.s());
          // The UTC day of the instant (an offset may move it across midnight).
          auto ts = EpochUnits(*t, 1000000);
          if (!ts) return InvalidInput("date literal '{}' is out of range", v.s());
          return Value::Int(FloorDiv(*ts, 86400000000LL));
        }
        return Value::Int(*d);
      }
      if (from.id == TypeId::kTimestamp) return Value::Int(FloorDiv(v.i(), 86400000000LL));
      break;
    }
    case TypeId::kTimestamp: {
      if (from.id == TypeId::kString) {
        auto t = ParseIsoDateTime(v.s(), /*lenient=*/true);
        if (!t) return InvalidInput("malformed timestamp literal '{}'", v.s());
        auto ts = EpochUnits(*t, 1000000);
        if (!ts) {
          return InvalidInput(
              "timestamp literal '{}' is out of range (timestamps are microseconds: years "
              "-290308 to 294247)",
              v.s());
        }
        return Value::Int(*ts);
      }
      if (from.id == TypeId::kDate32) {
        // Dates reach 5.8 million years, timestamps 292 thousand.
        __int128 us = static_cast<__int128>(v.i()) * 86400000000LL;
        if (us < INT64_MIN || us > INT64_MAX) {
          return InvalidInput("date {} is out of range for a timestamp", ValueToText(v, from));
        }
        return Value::Int(static_cast<int64_t>(us));
      }
      if (from.id == TypeId::kTimestamp) return v;
      break;
    }
    default:
      break;
  }
  return InvalidInput("cannot cast {} to {}", TypeWord(from), TypeWord(to));
}

ValueColumnBuilder::ValueColumnBuilder(const DataType& type)
    : type_(type),
      i64_(type),
      i32_(type),
      f64_(type),
      dec_(type),
      bin_(type.id == TypeId::kString || type.id == TypeId::kBinary ||
                   type.id == TypeId::kFixedSizeBinary
               ? type
               : columnar::String()) {}

void ValueColumnBuilder::AppendNull() {
  ++length_;
  switch (type_.id) {
    case TypeId::kBool:
      bool_.AppendNull();
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      i64_.AppendNull();
      break;
    case TypeId::kDate32:
      i32_.AppendNull();
      break;
    case TypeId::kFloat64:
      f64_.AppendNull();
      break;
    case TypeId::kDecimal128:
      dec_.AppendNull();
      break;
    case TypeId::kNull:
      break;
    default:
      bin_.AppendNull();
      break;
  }
}

Status ValueColumnBuilder::Append(const Value& v) {
  if (v.is_null()) {
    AppendNull();
    return {};
  }
  switch (type_.id) {
    case TypeId::kBool:
      if (v.v.index() != 1) break;
      bool_.Append(v.b());
      ++length_;
      return {};
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      if (v.v.index() != 2) break;
      i64_.Append(v.i());
      ++length_;
      return {};
    case TypeId::kDate32:
      if (v.v.index() != 2) break;
      i32_.Append(static_cast<int32_t>(v.i()));
      ++length_;
      return {};
    case TypeId::kFloat64:
      if (v.v.index() != 3) break;
      f64_.Append(v.d());
      ++length_;
      return {};
    case TypeId::kDecimal128:
      if (v.v.index() != 5) break;
      dec_.Append(v.dec());
      ++length_;
      return {};
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      if (v.v.index() != 4) break;
      ++length_;
      return bin_.Append(v.s());
    default:
      break;
  }
  return Internal("value of kind {} does not fit a {} column", v.v.index(), type_.ToString());
}

ColumnPtr ValueColumnBuilder::Finish() {
  ColumnPtr out;
  switch (type_.id) {
    case TypeId::kBool:
      out = bool_.Finish();
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      out = i64_.Finish();
      break;
    case TypeId::kDate32:
      out = i32_.Finish();
      break;
    case TypeId::kFloat64:
      out = f64_.Finish();
      break;
    case TypeId::kDecimal128:
      out = dec_.Finish();
      break;
    case TypeId::kNull: {
      auto c = std::make_shared<columnar::Column>();
      c->type = type_;
      c->length = length_;
      c->null_count = length_;
      std::vector<uint8_t> bits(columnar::BitmapBytes(length_), 0);
      c->validity = Buffer(std::move(bits));
      out = c;
      break;
    }
    default:
      out = bin_.Finish();
      break;
  }
  if (out->type != type_) {
    auto c = std::make_shared<columnar::Column>(*out);
    c->type = type_;
    out = c;
  }
  length_ = 0;
  return out;
}

namespace {

// `n` copies of the `width` bytes at `bytes`.
Buffer Repeated(const void* bytes, size_t width, int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n) * width);
  for (int64_t i = 0; i < n; ++i) std::memcpy(out.data() + i * width, bytes, width);
  return Buffer(std::move(out));
}

// The constant column of the common types built whole, not value by value; null where the
// value does not fit the type's fast form.
ColumnPtr ConstantFixed(const Value& v, const DataType& type, int64_t n) {
  auto c = std::make_shared<columnar::Column>();
  c->type = type;
  c->length = n;
  if (v.is_null()) {
    const int width = type.id == TypeId::kDecimal128 ? 16 : type.id == TypeId::kDate32 ? 4 : 8;
    switch (type.id) {
      case TypeId::kInt64:
      case TypeId::kTimestamp:
      case TypeId::kTime64:
      case TypeId::kDate32:
      case TypeId::kFloat64:
      case TypeId::kDecimal128:
        c->values = Buffer(std::vector<uint8_t>(static_cast<size_t>(n) * width, 0));
        break;
      case TypeId::kBool:
        c->values = Buffer(std::vector<uint8_t>(static_cast<size_t>(columnar::BitmapBytes(n)), 0));
        break;
      case TypeId::kString:
      case TypeId::kBinary:
        c->offsets = Buffer(std::vector<uint8_t>(static_cast<size_t>(n + 1) * 4, 0));
        break;
      default:
        return nullptr;
    }
    c->null_count = n;
    c->validity = Buffer(std::vector<uint8_t>(static_cast<size_t>(columnar::BitmapBytes(n)), 0));
    return c;
  }
  switch (type.id) {
    case TypeId::kBool:
      if (v.v.index() != 1) return nullptr;
      if (v.b()) {
        std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(n)), 0xff);
        if (n % 8 != 0) bits.back() = static_cast<uint8_t>((1u << (n % 8)) - 1);  // no bit past n
        c->values = Buffer(std::move(bits));
      } else {
        c->values = Buffer(std::vector<uint8_t>(static_cast<size_t>(columnar::BitmapBytes(n)), 0));
      }
      return c;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTime64: {
      if (v.v.index() != 2) return nullptr;
      const int64_t x = v.i();
      c->values = Repeated(&x, 8, n);
      return c;
    }
    case TypeId::kDate32: {
      if (v.v.index() != 2) return nullptr;
      const auto x = static_cast<int32_t>(v.i());
      c->values = Repeated(&x, 4, n);
      return c;
    }
    case TypeId::kFloat64: {
      if (v.v.index() != 3) return nullptr;
      const double x = v.d();
      c->values = Repeated(&x, 8, n);
      return c;
    }
    case TypeId::kDecimal128: {
      if (v.v.index() != 5) return nullptr;
      const __int128 x = v.dec();
      c->values = Repeated(&x, 16, n);
      return c;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      if (v.v.index() != 4) return nullptr;
      auto repeated = columnar::RepeatedBinary(type, v.s(), n);
      return repeated ? *repeated : nullptr;  // past 2 GiB: value by value, which says so
    }
    default:
      return nullptr;
  }
}

}  // namespace

Result<ColumnPtr> MakeConstantColumn(const Value& v, const DataType& type, int64_t n) {
  if (ColumnPtr fixed = ConstantFixed(v, type, n)) return fixed;
  ValueColumnBuilder b(type);
  for (int64_t i = 0; i < n; ++i) {
    FLOE_RETURN_IF_ERROR(b.Append(v));
  }
  return b.Finish();
}

}  // namespace floe::exec
