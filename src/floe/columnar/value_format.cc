#include "floe/columnar/value_format.h"

#include "floe/base/calendar.h"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace floe::columnar {

namespace {

std::string Date(int64_t days) { return FormatDate(static_cast<int32_t>(days)); }

int64_t PerSecond(TimeUnit u) {
  return u == TimeUnit::kMilli ? 1000 : u == TimeUnit::kMicro ? 1000000 : 1000000000;
}

int Digits(TimeUnit u) { return u == TimeUnit::kMilli ? 3 : u == TimeUnit::kMicro ? 6 : 9; }

// "HH:MM:SS.fff..." of `v` units since midnight, 0 <= v < one day.
std::string TimeOfDay(int64_t v, TimeUnit u) {
  const int64_t ps = PerSecond(u);
  int64_t secs = v / ps;
  int64_t frac = v % ps;
  return fmt::format("{:02d}:{:02d}:{:02d}.{:0{}d}", secs / 3600, (secs / 60) % 60, secs % 60, frac,
                     Digits(u));
}

}  // namespace

std::string FormatTimestamp(int64_t v, TimeUnit u, bool zoned) {
  const int64_t per_day = PerSecond(u) * 86400;
  const int64_t day = FloorDiv(v, per_day);
  // v - day * per_day cannot overflow: it is the remainder in [0, per_day).
  const int64_t rem = static_cast<int64_t>(
      static_cast<uint64_t>(v) - static_cast<uint64_t>(day) * static_cast<uint64_t>(per_day));
  return Date(day) + "T" + TimeOfDay(rem, u) + (zoned ? "Z" : "");
}

namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

template <typename T>
std::string Number(T v) {
  return fmt::format("{}", v);
}

// The scalar's text without JSON quoting; `quoted` tells whether JSON needs quotes around it.
std::string Scalar(const Column& c, int64_t row, bool json, bool* quoted) {
  *quoted = false;
  switch (c.type.id) {
    case TypeId::kBool:
      return c.BoolAt(row) ? "true" : "false";
    case TypeId::kInt8:
      return Number(c.Value<int8_t>(row));
    case TypeId::kInt16:
      return Number(c.Value<int16_t>(row));
    case TypeId::kInt32:
      return Number(c.Value<int32_t>(row));
    case TypeId::kInt64:
      return Number(c.Value<int64_t>(row));
    case TypeId::kUInt8:
      return Number(c.Value<uint8_t>(row));
    case TypeId::kUInt16:
      return Number(c.Value<uint16_t>(row));
    case TypeId::kUInt32:
      return Number(c.Value<uint32_t>(row));
    case TypeId::kUInt64:
      return Number(c.Value<uint64_t>(row));
    case TypeId::kFloat16: {
      float f = HalfToFloat(c.Value<uint16_t>(row));
      *quoted = json && !std::isfinite(f);
      return Float32ToString(f, false);
    }
    case TypeId::kFloat32: {
      float f = c.Value<float>(row);
      *quoted = json && !std::isfinite(f);
      return Float32ToString(f, false);
    }
    case TypeId::kFloat64: {
      double d = c.Value<double>(row);
      *quoted = json && !std::isfinite(d);
      return FloatToString(d, false);
    }
    case TypeId::kDecimal128:
      *quoted = json;
      return DecimalToString(c.Value<__int128>(row), c.type.scale);
    case TypeId::kDate32:
      *quoted = json;
      return Date(c.Value<int32_t>(row));
    case TypeId::kTime64: {
      *quoted = json;
      const int64_t v = c.Value<int64_t>(row);
      const int64_t per_day = PerSecond(c.type.unit) * 86400;
      return TimeOfDay(((v % per_day) + per_day) % per_day, c.type.unit);
    }
    case TypeId::kTimestamp:
      *quoted = json;
      return FormatTimestamp(c.Value<int64_t>(row), c.type.unit, !c.type.timezone.empty());
    case TypeId::kString:
      *quoted = json;
      return std::string(c.BytesAt(row));
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      *quoted = json;
      return Hex(c.BytesAt(row));
    default:
      *quoted = json;
      return "<" + c.type.ToString() + ">";
  }
}

}  // namespace

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in binary32.
    float f = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  uint32_t bits;
  if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u > 0) {
    digits += static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (negative) digits += '-';
  return std::string(digits.rbegin(), digits.rend());
}

std::string DecimalToString(__int128 unscaled, int32_t scale) {
  std::string s = Int128ToString(unscaled);
  if (scale <= 0) return s + std::string(static_cast<size_t>(-scale), '0');
  const bool negative = !s.empty() && s[0] == '-';
  std::string digits = negative ? s.substr(1) : s;
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  return negative ? "-" + digits : digits;
}

namespace {

std::string WithPoint(std::string s) {
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string NonFinite(double v, bool json) {
  std::string s = std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
  return json ? "\"" + s + "\"" : s;
}

}  // namespace

std::string FloatToString(double v, bool json) {
  if (!std::isfinite(v)) return NonFinite(v, json);
  return WithPoint(fmt::format("{}", v));
}

std::string Float32ToString(float v, bool json) {
  if (!std::isfinite(v)) return NonFinite(v, json);
  return WithPoint(fmt::format("{}", v));
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      switch (c) {
        case '\n':
          *out += "\\n";
          break;
        case '\r':
          *out += "\\r";
          break;
        case '\t':
          *out += "\\t";
          break;
        default:
          *out += fmt::format("\\u{:04x}", c);
      }
      ++i;
    } else {
      const size_t n = Utf8Length(s, i);
      if (n == 0) {
        *out += "\xef\xbf\xbd";
        ++i;
      } else {
        out->append(s.substr(i, n));
        i += n;
      }
    }
  }
  out->push_back('"');
}

void AppendJsonValue(const Column& c, int64_t row, std::string* out) {
  if (c.IsNull(row)) {
    *out += "null";
    return;
  }
  switch (c.type.id) {
    case TypeId::kNull:
      *out += "null";
      return;
    case TypeId::kList: {
      const int32_t* o = c.Offsets();
      *out += '[';
      for (int32_t i = o[row]; i < o[row + 1]; ++i) {
        if (i > o[row]) *out += ", ";
        AppendJsonValue(*c.children[0], i, out);
      }
      *out += ']';
      return;
    }
    case TypeId::kMap: {
      const int32_t* o = c.Offsets();
      const Column& entries = *c.children[0];
      *out += '[';
      for (int32_t i = o[row]; i < o[row + 1]; ++i) {
        if (i > o[row]) *out += ", ";
        *out += '[';
        AppendJsonValue(*entries.children[0], i, out);
        *out += ", ";
        AppendJsonValue(*entries.children[1], i, out);
        *out += ']';
      }
      *out += ']';
      return;
    }
    case TypeId::kStruct: {
      *out += '{';
      for (size_t k = 0; k < c.children.size(); ++k) {
        if (k) *out += ", ";
        AppendJsonString(c.type.children[k].name, out);
        *out += ": ";
        AppendJsonValue(*c.children[k], row, out);
      }
      *out += '}';
      return;
    }
    default:
      break;
  }
  bool quoted = false;
  std::string s = Scalar(c, row, true, &quoted);
  if (quoted) {
    AppendJsonString(s, out);
  } else {
    *out += s;
  }
}

void AppendCsvValue(const Column& c, int64_t row, std::string* out) {
  if (c.IsNull(row)) return;
  std::string s;
  if (c.type.IsNested()) {
    AppendJsonValue(c, row, &s);
  } else {
    bool quoted = false;
    s = Scalar(c, row, false, &quoted);
  }
  const bool needs_quotes = s.empty() || s.find_first_of(",\"\r\n") != std::string::npos;
  if (!needs_quotes) {
    *out += s;
    return;
  }
  out->push_back('"');
  for (char ch : s) {
    if (ch == '"') out->push_back('"');
    out->push_back(ch);
  }
  out->push_back('"');
}

}  // namespace floe::columnar
