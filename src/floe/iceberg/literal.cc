#include "floe/iceberg/literal.h"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "floe/base/uuid.h"
#include "floe/columnar/value_format.h"

namespace floe::iceberg {

std::optional<Literal> Literal::OfInteger(TypeId type, int64_t v) {
  const bool fits32 = v >= INT32_MIN && v <= INT32_MAX;
  switch (type) {
    case TypeId::kInt:
    case TypeId::kDate:
      if (!fits32) return std::nullopt;
      return Literal(type, static_cast<int32_t>(v));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Literal(type, v);
    default:
      return std::nullopt;
  }
}

namespace {

std::string FormatTime(int64_t v, int64_t per_second) {
  int64_t secs = FloorDiv(v, per_second);
  int64_t frac = v - secs * per_second;
  int digits = per_second == 1000000 ? 6 : 9;
  return fmt::format("{:02d}:{:02d}:{:02d}.{:0{}d}", secs / 3600, (secs / 60) % 60, secs % 60, frac,
                     digits);
}

std::string FormatTimestamp(int64_t v, int64_t per_second, bool tz) {
  int64_t per_day = per_second * 86400;
  int64_t day = FloorDiv(v, per_day);
  return FormatDate(static_cast<int32_t>(day)) + "T" + FormatTime(v - day * per_day, per_second) +
         (tz ? "+00:00" : "");
}

std::string Int128ToString(Int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (neg) s.push_back('-');
  return std::string(s.rbegin(), s.rend());
}

std::string Hex(std::string_view b) {
  std::string s = "0x";
  for (unsigned char c : b) s += fmt::format("{:02x}", c);
  return s;
}

template <typename T>
std::string LittleEndian(T v) {
  std::string out(sizeof(T), '\0');
  auto u = std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(v);
  for (size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<char>(u >> (8 * i));
  return out;
}

template <typename T>
Result<T> ReadLittleEndian(std::string_view b, const Type& t) {
  if (b.size() != sizeof(T)) {
    return Corrupt("bound of {} bytes for type {} (expected {})", b.size(), t.ToString(),
                   sizeof(T));
  }
  std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> u = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    u |= static_cast<decltype(u)>(static_cast<uint8_t>(b[i])) << (8 * i);
  return std::bit_cast<T>(u);
}

}  // namespace

std::string Int128ToMinimalBigEndian(Int128 v) {
  std::string be(16, '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = 0; i < 16; ++i) be[15 - i] = static_cast<char>(static_cast<uint8_t>(u >> (8 * i)));
  // Drop leading bytes that only repeat the sign.
  size_t start = 0;
  while (start < 15) {
    auto b = static_cast<uint8_t>(be[start]);
    auto next = static_cast<uint8_t>(be[start + 1]);
    if ((b == 0x00 && (next & 0x80) == 0) || (b == 0xFF && (next & 0x80) != 0)) {
      ++start;
    } else {
      break;
    }
  }
  return be.substr(start);
}

std::string Literal::ToDisplayString() const {
  const bool nanos = type_ == TypeId::kTimestampNs || type_ == TypeId::kTimestampTzNs;
  const bool zoned = type_ == TypeId::kTimestampTz || type_ == TypeId::kTimestampTzNs;
  if (is_null() || (!nanos && !zoned && type_ != TypeId::kTimestamp)) return ToString();
  return columnar::FormatTimestamp(
      AsLong(), nanos ? columnar::TimeUnit::kNano : columnar::TimeUnit::kMicro, zoned);
}

std::string Literal::ToString() const {
  if (is_null()) return "null";
  switch (type_) {
    case TypeId::kBoolean:
      return std::get<bool>(v_) ? "true" : "false";
    case TypeId::kInt:
      return fmt::format("{}", AsInt());
    case TypeId::kLong:
      return fmt::format("{}", AsLong());
    case TypeId::kFloat:
      return fmt::format("{}", std::get<float>(v_));
    case TypeId::kDouble:
      return fmt::format("{}", std::get<double>(v_));
    case TypeId::kDate:
      return FormatDate(AsInt());
    case TypeId::kTime:
      return FormatTime(AsLong(), 1000000);
    case TypeId::kTimestamp:
      return FormatTimestamp(AsLong(), 1000000, false);
    case TypeId::kTimestampTz:
      return FormatTimestamp(AsLong(), 1000000, true);
    case TypeId::kTimestampNs:
      return FormatTimestamp(AsLong(), 1000000000, false);
    case TypeId::kTimestampTzNs:
      return FormatTimestamp(AsLong(), 1000000000, true);
    case TypeId::kString:
      return AsString();
    case TypeId::kUuid: {
      const std::string& b = AsBytes();
      if (b.size() != 16) return Hex(b);
      return FormatUuid(b);
    }
    case TypeId::kFixed:
    case TypeId::kBinary:
      return Hex(AsBytes());
    case TypeId::kDecimal: {
      const auto& d = AsDecimal();
      std::string digits = Int128ToString(d.unscaled < 0 ? -d.unscaled : d.unscaled);
      if (d.scale > 0) {
        if (static_cast<int32_t>(digits.size()) <= d.scale) {
          digits = std::string(d.scale - digits.size() + 1, '0') + digits;
        }
        digits.insert(digits.size() - d.scale, ".");
      }
      return (d.unscaled < 0 ? "-" : "") + digits;
    }
    default:
      return "?";
  }
}

std::partial_ordering Compare(const Literal& a, const Literal& b) {
  if (a.type() != b.type() || a.is_null() || b.is_null() ||
      a.storage().index() != b.storage().index()) {
    return std::partial_ordering::unordered;
  }
  return std::visit(
      [&](const auto& x) -> std::partial_ordering {
        using X = std::decay_t<decltype(x)>;
        const X& y = std::get<X>(b.storage());
        if constexpr (std::is_same_v<X, std::monostate>) {
          return std::partial_ordering::unordered;
        } else if constexpr (std::is_same_v<X, float> || std::is_same_v<X, double>) {
          if (std::isnan(x) || std::isnan(y)) return std::partial_ordering::unordered;
          if (x == 0 && y == 0) return std::signbit(y) <=> std::signbit(x);  // -0.0 < +0.0
          return x <=> y;
        } else if constexpr (std::is_same_v<X, std::string>) {
          return x.compare(y) <=> 0;  // char_traits<char> compares as unsigned char
        } else if constexpr (std::is_same_v<X, BinaryValue>) {
          return x.bytes.compare(y.bytes) <=> 0;
        } else if constexpr (std::is_same_v<X, DecimalValue>) {
          if (x.scale != y.scale) return std::partial_ordering::unordered;
          return x.unscaled <=> y.unscaled;
        } else {
          return x <=> y;
        }
      },
      a.storage());
}

std::string SerializeBound(const Literal& v) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<X, bool>) {
          return std::string(1, x ? '\x01' : '\x00');
        } else if constexpr (std::is_same_v<X, int32_t> || std::is_same_v<X, float> ||
                             std::is_same_v<X, int64_t> || std::is_same_v<X, double>) {
          return LittleEndian(x);
        } else if constexpr (std::is_same_v<X, std::string>) {
          return x;
        } else if constexpr (std::is_same_v<X, BinaryValue>) {
          return x.bytes;
        } else {
          return Int128ToMinimalBigEndian(x.unscaled);
        }
      },
      v.storage());
}

Result<Literal> DeserializeBound(const Type& t, std::string_view b) {
  switch (t.id) {
    case TypeId::kBoolean:
      if (b.size() != 1) return Corrupt("boolean bound of {} bytes", b.size());
      return Literal::Boolean(b[0] != 0);
    case TypeId::kInt: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, ReadLittleEndian<int32_t>(b, t));
      return Literal::Int(v);
    }
    case TypeId::kDate: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, ReadLittleEndian<int32_t>(b, t));
      return Literal::Date(v);
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      // Iceberg writers may store an int-typed bound for a column promoted to long.
      int64_t v;
      if (t.id == TypeId::kLong && b.size() == 4) {
        FLOE_ASSIGN_OR_RETURN(int32_t v32, ReadLittleEndian<int32_t>(b, t));
        v = v32;
      } else {
        FLOE_ASSIGN_OR_RETURN(v, ReadLittleEndian<int64_t>(b, t));
      }
      return *Literal::OfInteger(t.id, v);
    }
    case TypeId::kFloat: {
      FLOE_ASSIGN_OR_RETURN(float v, ReadLittleEndian<float>(b, t));
      return Literal::Float(v);
    }
    case TypeId::kDouble: {
      if (b.size() == 4) {  // promoted from float
        FLOE_ASSIGN_OR_RETURN(float v32, ReadLittleEndian<float>(b, t));
        return Literal::Double(v32);
      }
      FLOE_ASSIGN_OR_RETURN(double v, ReadLittleEndian<double>(b, t));
      return Literal::Double(v);
    }
    case TypeId::kString:
      return Literal::String(std::string(b));
    case TypeId::kBinary:
      return Literal::Binary(std::string(b));
    case TypeId::kFixed:
      return Literal::Fixed(std::string(b));
    case TypeId::kUuid:
      if (b.size() != 16) return Corrupt("uuid bound of {} bytes", b.size());
      return Literal::Uuid(std::string(b));
    case TypeId::kDecimal: {
      if (b.empty() || b.size() > 16) return Corrupt("decimal bound of {} bytes", b.size());
      unsigned __int128 u =
          (static_cast<uint8_t>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (unsigned char c : b) u = (u << 8) | c;
      return Literal::Decimal(static_cast<Int128>(u), t.scale);
    }
    default:
      return Unsupported("bounds for type {}", t.ToString());
  }
}

}  // namespace floe::iceberg
