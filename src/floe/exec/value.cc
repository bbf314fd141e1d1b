#include "floe/exec/value.h"

#include <charconv>
#include <cmath>
#include <cstring>

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

std::optional<int32_t> ParseDate(std::string_view s) {
  int y = 0, m = 0, d = 0;
  if (s.size() < 8) return std::nullopt;
  auto num = [&](size_t& i, int& out, size_t max_digits) {
    size_t start = i;
    while (i < s.size() && i - start < max_digits && s[i] >= '0' && s[i] <= '9') {
      out = out * 10 + (s[i] - '0');
      ++i;
    }
    return i > start;
  };
  size_t i = 0;
  if (!num(i, y, 6) || i >= s.size() || s[i++] != '-') return std::nullopt;
  if (!num(i, m, 2) || i >= s.size() || s[i++] != '-') return std::nullopt;
  if (!num(i, d, 2) || i != s.size()) return std::nullopt;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return std::nullopt;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && d == 29 && !leap) return std::nullopt;
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

std::optional<int64_t> ParseTimestampMicros(std::string_view s) {
  size_t sep = s.find_first_of("T ");
  std::string_view date = sep == std::string_view::npos ? s : s.substr(0, sep);
  auto days = ParseDate(date);
  if (!days) return std::nullopt;
  int64_t micros = static_cast<int64_t>(*days) * 86400000000LL;
  if (sep == std::string_view::npos) return micros;
  std::string_view t = s.substr(sep + 1);
  // Time zone suffix: Z or +00[:00] only (floe's timestamps are UTC).
  if (!t.empty() && (t.back() == 'Z' || t.back() == 'z')) t.remove_suffix(1);
  size_t plus = t.find_first_of("+");
  if (plus != std::string_view::npos) {
    std::string_view tz = t.substr(plus);
    if (tz != "+00" && tz != "+00:00" && tz != "+0000") return std::nullopt;
    t = t.substr(0, plus);
  }
  int h = 0, mi = 0, sec = 0;
  int64_t frac = 0;
  if (t.size() < 5 || t[2] != ':') return std::nullopt;
  auto two = [&](size_t at, int& out) {
    if (at + 2 > t.size() || !isdigit(t[at]) || !isdigit(t[at + 1])) return false;
    out = (t[at] - '0') * 10 + (t[at + 1] - '0');
    return true;
  };
  if (!two(0, h) || !two(3, mi)) return std::nullopt;
  size_t i = 5;
  if (i < t.size()) {
    if (t[i] != ':' || !two(i + 1, sec)) return std::nullopt;
    i += 3;
    if (i < t.size()) {
      if (t[i] != '.') return std::nullopt;
      ++i;
      int digits = 0;
      while (i < t.size() && isdigit(t[i])) {
        if (digits < 6) frac = frac * 10 + (t[i] - '0');
        ++digits;
        ++i;
      }
      if (digits == 0 || i != t.size()) return std::nullopt;
      for (int k = digits; k < 6; ++k) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || sec > 59) return std::nullopt;
  return micros + ((h * 60LL + mi) * 60 + sec) * 1000000LL + frac;
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

}  // namespace

Result<Value> CastValue(const Value& v, const DataType& from, const DataType& to) {
  if (v.is_null()) return Value{};
  if (from == to) return v;
  switch (to.id) {
    case TypeId::kString:
      return Value::Str(ValueToText(v, from));
    case TypeId::kInt64: {
      if (from.id == TypeId::kFloat64) {
        double d = std::nearbyint(v.d());
        if (!(d >= -9.2e18 && d <= 9.2e18)) {
          return InvalidInput("value {} is out of range for an integer", v.d());
        }
        return Value::Int(static_cast<int64_t>(d));
      }
      if (from.id == TypeId::kDecimal128) {
        __int128 p = Pow10(from.scale);
        __int128 q = v.dec() / p, r = v.dec() % p;
        if (2 * (r < 0 ? -r : r) >= p) q += v.dec() < 0 ? -1 : 1;
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
        std::string s = v.s();
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
      __int128 p = Pow10(to.scale);
      if (from.id == TypeId::kInt64) return Value{static_cast<__int128>(v.i()) * p};
      if (from.id == TypeId::kFloat64) {
        return Value{static_cast<__int128>(std::llround(v.d() * static_cast<double>(p)))};
      }
      if (from.id == TypeId::kDecimal128) {
        if (to.scale >= from.scale) return Value{v.dec() * Pow10(to.scale - from.scale)};
        return Value{v.dec() / Pow10(from.scale - to.scale)};
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
          auto ts = ParseTimestampMicros(v.s());
          if (!ts) return InvalidInput("malformed date literal '{}'", v.s());
          return Value::Int(FloorDiv(*ts, 86400000000LL));
        }
        return Value::Int(*d);
      }
      if (from.id == TypeId::kTimestamp) return Value::Int(FloorDiv(v.i(), 86400000000LL));
      break;
    }
    case TypeId::kTimestamp: {
      if (from.id == TypeId::kString) {
        auto ts = ParseTimestampMicros(v.s());
        if (!ts) return InvalidInput("malformed timestamp literal '{}'", v.s());
        return Value::Int(*ts);
      }
      if (from.id == TypeId::kDate32) return Value::Int(v.i() * 86400000000LL);
      if (from.id == TypeId::kTimestamp) return v;
      break;
    }
    default:
      break;
  }
  return InvalidInput("cannot cast {} to {}", TypeWord(from), TypeWord(to));
}

ValueColumnBuilder::ValueColumnBuilder(DataType type)
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

Result<ColumnPtr> MakeConstantColumn(const Value& v, const DataType& type, int64_t n) {
  ValueColumnBuilder b(type);
  for (int64_t i = 0; i < n; ++i) {
    FLOE_RETURN_IF_ERROR(b.Append(v));
  }
  return b.Finish();
}

}  // namespace floe::exec
