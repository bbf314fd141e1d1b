#include "floe/iceberg/transform.h"

#include <charconv>

#include "floe/iceberg/murmur3.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kMicrosPerHour = 3600LL * 1000000;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

bool IsTemporal(TypeId id) {
  return id == TypeId::kTimestamp || id == TypeId::kTimestampTz || id == TypeId::kTimestampNs ||
         id == TypeId::kTimestampTzNs;
}

// Timestamps of any precision as microseconds (nanosecond values floor to micros).
int64_t MicrosOf(const Literal& v) {
  bool nanos = v.type() == TypeId::kTimestampNs || v.type() == TypeId::kTimestampTzNs;
  return nanos ? FloorDiv(v.AsLong(), 1000) : v.AsLong();
}

int32_t DaysOf(const Literal& v) {
  if (v.type() == TypeId::kDate) return v.AsInt();
  return static_cast<int32_t>(FloorDiv(MicrosOf(v), kMicrosPerDay));
}

int32_t MonthsOf(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return static_cast<int32_t>((y - 1970) * 12 + (m - 1));
}

// Truncates a string to `w` Unicode code points (UTF-8 aware; never splits a character).
std::string TruncateUtf8(const std::string& s, int32_t w) {
  size_t i = 0;
  int32_t cps = 0;
  while (i < s.size() && cps < w) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 1;
    i += len;
    ++cps;
  }
  return s.substr(0, std::min(i, s.size()));
}

template <typename T>
T TruncateInteger(T v, T w) {
  return v - (((v % w) + w) % w);
}

}  // namespace

Result<Transform> Transform::Parse(std::string_view text) {
  auto param = [&](std::string_view prefix, TransformKind kind) -> Result<Transform> {
    std::string_view inner = text.substr(prefix.size(), text.size() - prefix.size() - 1);
    int32_t n = 0;
    auto [p, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), n);
    if (ec != std::errc() || p != inner.data() + inner.size() || n <= 0) {
      return InvalidInput("bad transform '{}': the parameter must be a positive integer", text);
    }
    return Transform{kind, n};
  };
  if (text == "identity") return Identity();
  if (text == "year") return Year();
  if (text == "month") return Month();
  if (text == "day") return Day();
  if (text == "hour") return Hour();
  if (text == "void") return Void();
  if (text.starts_with("bucket[") && text.ends_with("]"))
    return param("bucket[", TransformKind::kBucket);
  if (text.starts_with("truncate[") && text.ends_with("]")) {
    return param("truncate[", TransformKind::kTruncate);
  }
  return Unsupported("partition transform '{}'", text);
}

std::string Transform::ToString() const {
  switch (kind) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return "bucket[" + std::to_string(param) + "]";
    case TransformKind::kTruncate:
      return "truncate[" + std::to_string(param) + "]";
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
  }
  return "?";
}

bool Transform::CanApply(const Type& t) const {
  switch (kind) {
    case TransformKind::kIdentity:
      return t.IsPrimitive();
    case TransformKind::kVoid:
      return true;
    case TransformKind::kBucket:
      return t.id == TypeId::kInt || t.id == TypeId::kLong || t.id == TypeId::kDecimal ||
             t.id == TypeId::kDate || t.id == TypeId::kTime || IsTemporal(t.id) ||
             t.id == TypeId::kString || t.id == TypeId::kUuid || t.id == TypeId::kFixed ||
             t.id == TypeId::kBinary;
    case TransformKind::kTruncate:
      return t.id == TypeId::kInt || t.id == TypeId::kLong || t.id == TypeId::kDecimal ||
             t.id == TypeId::kString || t.id == TypeId::kBinary;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return t.id == TypeId::kDate || IsTemporal(t.id);
    case TransformKind::kHour:
      return IsTemporal(t.id);
  }
  return false;
}

Result<TypePtr> Transform::ResultType(const Type& source) const {
  if (!CanApply(source)) {
    return InvalidInput("transform {} cannot apply to type {}", ToString(), source.ToString());
  }
  switch (kind) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
    case TransformKind::kVoid: {
      auto t = std::make_shared<Type>(source);
      return TypePtr(t);
    }
    case TransformKind::kDay:
      return Primitive(TypeId::kDate);
    default:
      return Primitive(TypeId::kInt);
  }
}

Result<int32_t> BucketHash(const Literal& v) {
  switch (v.type()) {
    case TypeId::kInt:
    case TypeId::kDate:
      return HashLong(v.AsInt());
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return HashLong(IsTemporal(v.type()) ? MicrosOf(v) : v.AsLong());
    case TypeId::kString:
      return Murmur3Hash32(v.AsString());
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      return Murmur3Hash32(v.AsBytes());
    case TypeId::kDecimal:
      return Murmur3Hash32(Int128ToMinimalBigEndian(v.AsDecimal().unscaled));
    default:
      return InvalidInput("bucket cannot hash a {} value", Primitive(v.type())->ToString());
  }
}

Result<Literal> Transform::Apply(const Literal& v) const {
  if (kind == TransformKind::kVoid) return Literal::Null(v.type());
  if (v.is_null()) {
    if (kind == TransformKind::kIdentity || kind == TransformKind::kTruncate) return v;
    return Literal::Null(kind == TransformKind::kDay ? TypeId::kDate : TypeId::kInt);
  }
  switch (kind) {
    case TransformKind::kIdentity:
      return v;
    case TransformKind::kBucket: {
      FLOE_ASSIGN_OR_RETURN(int32_t h, BucketHash(v));
      return Literal::Int((h & 0x7FFFFFFF) % param);
    }
    case TransformKind::kTruncate:
      switch (v.type()) {
        case TypeId::kInt:
          return Literal::Int(TruncateInteger<int32_t>(v.AsInt(), param));
        case TypeId::kLong:
          return Literal::Long(TruncateInteger<int64_t>(v.AsLong(), param));
        case TypeId::kDecimal:
          return Literal::Decimal(TruncateInteger<Int128>(v.AsDecimal().unscaled, param),
                                  v.AsDecimal().scale);
        case TypeId::kString:
          return Literal::String(TruncateUtf8(v.AsString(), param));
        case TypeId::kBinary:
          return Literal::Binary(v.AsBytes().substr(0, static_cast<size_t>(param)));
        default:
          break;
      }
      break;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      if (v.type() != TypeId::kDate && !IsTemporal(v.type())) break;
      if (kind == TransformKind::kDay) return Literal::Date(DaysOf(v));
      if (kind == TransformKind::kMonth) return Literal::Int(MonthsOf(DaysOf(v)));
      return Literal::Int(static_cast<int32_t>(FloorDiv(MonthsOf(DaysOf(v)), 12)));
    case TransformKind::kHour:
      if (!IsTemporal(v.type())) break;
      return Literal::Int(static_cast<int32_t>(FloorDiv(MicrosOf(v), kMicrosPerHour)));
    case TransformKind::kVoid:
      break;
  }
  return InvalidInput("transform {} cannot apply to a {} value", ToString(),
                      Primitive(v.type())->ToString());
}

}  // namespace floe::iceberg
