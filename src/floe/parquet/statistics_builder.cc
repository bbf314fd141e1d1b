#include "floe/parquet/statistics_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace floe::parquet {

namespace {

template <typename T>
T Load(std::string_view bytes) {
  T v{};
  std::memcpy(&v, bytes.data(), std::min(sizeof(T), bytes.size()));
  return v;
}

template <typename T>
std::string Store(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

int CompareUnsignedBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Big-endian two's complement of any length, shorter values sign-extended.
int CompareSignedBytes(std::string_view a, std::string_view b) {
  const bool a_neg = !a.empty() && static_cast<int8_t>(a[0]) < 0;
  const bool b_neg = !b.empty() && static_cast<int8_t>(b[0]) < 0;
  if (a_neg != b_neg) return a_neg ? -1 : 1;
  const size_t n = std::max(a.size(), b.size());
  const uint8_t pad = a_neg ? 0xFF : 0x00;  // same sign for both here
  for (size_t i = 0; i < n; ++i) {
    // Right-align: byte i of the n-byte sign-extended value.
    uint8_t x = i + a.size() >= n ? static_cast<uint8_t>(a[i + a.size() - n]) : pad;
    uint8_t y = i + b.size() >= n ? static_cast<uint8_t>(b[i + b.size() - n]) : pad;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

template <typename T>
int Compare3(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Length of the UTF-8 sequence starting with `lead`, or 0 when `lead` cannot start one.
int Utf8SequenceLength(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return lead >= 0xC2 ? 2 : 0;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return lead <= 0xF4 ? 4 : 0;
  return 0;
}

// Decodes `s` into code points; false when it is not valid UTF-8.
bool DecodeUtf8(std::string_view s, std::vector<uint32_t>* out) {
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t lead = static_cast<uint8_t>(s[i]);
    const int len = Utf8SequenceLength(lead);
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? lead : lead & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      const uint8_t c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    static constexpr uint32_t kMinForLength[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out->push_back(cp);
    i += static_cast<size_t>(len);
  }
  return true;
}

void EncodeUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The longest prefix of valid UTF-8 `s` that is at most `max_length` bytes and ends on a
// character boundary.
size_t Utf8Cut(std::string_view s, size_t max_length) {
  size_t cut = std::min(max_length, s.size());
  while (cut > 0 && cut < s.size() && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

std::optional<std::string> IncrementBinaryPrefix(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    uint8_t last = static_cast<uint8_t>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

}  // namespace

ValueOrder ValueOrder::For(const SchemaElement& leaf) {
  ValueOrder o;
  o.type = leaf.type.value_or(PhysicalType::kByteArray);
  const bool is_decimal =
      (leaf.logical_type && leaf.logical_type->kind == LogicalType::Kind::kDecimal) ||
      leaf.converted_type == ConvertedType::kDecimal;
  switch (o.type) {
    case PhysicalType::kBoolean:
      o.kind = Kind::kBoolean;
      break;
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      bool is_unsigned = false;
      if (leaf.logical_type && leaf.logical_type->kind == LogicalType::Kind::kInteger) {
        is_unsigned = !leaf.logical_type->is_signed;
      } else if (leaf.converted_type) {
        auto c = *leaf.converted_type;
        is_unsigned = c == ConvertedType::kUint8 || c == ConvertedType::kUint16 ||
                      c == ConvertedType::kUint32 || c == ConvertedType::kUint64;
      }
      o.kind = is_unsigned ? Kind::kUnsignedInt : Kind::kSignedInt;
      break;
    }
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
      o.kind = Kind::kFloat;
      break;
    case PhysicalType::kInt96:
      o.kind = Kind::kUnsignedBytes;  // floe never writes INT96 statistics
      break;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      o.kind = is_decimal ? Kind::kSignedBytes : Kind::kUnsignedBytes;
      o.utf8 = o.type == PhysicalType::kByteArray &&
               ((leaf.logical_type && (leaf.logical_type->kind == LogicalType::Kind::kString ||
                                       leaf.logical_type->kind == LogicalType::Kind::kEnum ||
                                       leaf.logical_type->kind == LogicalType::Kind::kJson)) ||
                leaf.converted_type == ConvertedType::kUtf8);
      break;
  }
  return o;
}

int CompareValues(const ValueOrder& order, std::string_view a, std::string_view b) {
  using Kind = ValueOrder::Kind;
  const bool is32 = order.type == PhysicalType::kInt32 || order.type == PhysicalType::kFloat;
  switch (order.kind) {
    case Kind::kBoolean:
      return Compare3<int>(a.empty() ? 0 : a[0] != 0, b.empty() ? 0 : b[0] != 0);
    case Kind::kSignedInt:
      return is32 ? Compare3(Load<int32_t>(a), Load<int32_t>(b))
                  : Compare3(Load<int64_t>(a), Load<int64_t>(b));
    case Kind::kUnsignedInt:
      return is32 ? Compare3(Load<uint32_t>(a), Load<uint32_t>(b))
                  : Compare3(Load<uint64_t>(a), Load<uint64_t>(b));
    case Kind::kFloat:
      return is32 ? Compare3(Load<float>(a), Load<float>(b))
                  : Compare3(Load<double>(a), Load<double>(b));
    case Kind::kUnsignedBytes:
      return CompareUnsignedBytes(a, b);
    case Kind::kSignedBytes:
      return CompareSignedBytes(a, b);
  }
  return 0;
}

std::string TruncateLowerBound(std::string_view value, size_t max_length, bool utf8) {
  if (value.size() <= max_length) return std::string(value);
  if (utf8) {
    std::vector<uint32_t> ignored;
    if (DecodeUtf8(value, &ignored))
      return std::string(value.substr(0, Utf8Cut(value, max_length)));
  }
  return std::string(value.substr(0, max_length));
}

std::optional<std::string> TruncateUpperBound(std::string_view value, size_t max_length,
                                              bool utf8) {
  if (value.size() <= max_length) return std::string(value);
  if (utf8) {
    std::vector<uint32_t> cps;
    if (DecodeUtf8(value, &cps)) {
      // Keep whole characters; at least the first one, even when it alone is too long.
      size_t cut = Utf8Cut(value, max_length);
      if (cut == 0) cut = static_cast<size_t>(Utf8SequenceLength(static_cast<uint8_t>(value[0])));
      cps.clear();
      DecodeUtf8(value.substr(0, cut), &cps);
      while (!cps.empty()) {
        uint32_t next = cps.back() + 1;
        if (next == 0xD800) next = 0xE000;  // surrogates are not characters
        if (next <= 0x10FFFF) {
          cps.back() = next;
          std::string out;
          for (uint32_t cp : cps) EncodeUtf8(cp, &out);
          return out;
        }
        cps.pop_back();
      }
      return std::nullopt;
    }
  }
  return IncrementBinaryPrefix(value.substr(0, max_length));
}

// ---- StatisticsBuilder ----------------------------------------------------------------------

template <typename T>
void StatisticsBuilder::UpdateSigned(std::span<const T> values) {
  if (values.empty()) return;
  T lo = values[0], hi = values[0];
  for (T v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  non_null_count_ += static_cast<int64_t>(values.size());
  if (!has_min_max_) {
    imin_ = lo;
    imax_ = hi;
    has_min_max_ = true;
  } else {
    imin_ = std::min<int64_t>(imin_, lo);
    imax_ = std::max<int64_t>(imax_, hi);
  }
}

template <typename T>
void StatisticsBuilder::UpdateUnsigned(std::span<const T> values) {
  using U = std::make_unsigned_t<T>;
  if (values.empty()) return;
  U lo = static_cast<U>(values[0]), hi = lo;
  for (T s : values) {
    U v = static_cast<U>(s);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  non_null_count_ += static_cast<int64_t>(values.size());
  if (!has_min_max_) {
    umin_ = lo;
    umax_ = hi;
    has_min_max_ = true;
  } else {
    umin_ = std::min<uint64_t>(umin_, lo);
    umax_ = std::max<uint64_t>(umax_, hi);
  }
}

template <typename T>
void StatisticsBuilder::UpdateFloat(std::span<const T> values) {
  non_null_count_ += static_cast<int64_t>(values.size());
  bool have = false;
  T lo = 0, hi = 0;
  for (T v : values) {
    if (std::isnan(v)) {
      ++nan_count_;
      continue;
    }
    if (!have) {
      lo = hi = v;
      have = true;
    } else {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  if (!have) return;
  if (!has_min_max_) {
    fmin_ = lo;
    fmax_ = hi;
    has_min_max_ = true;
  } else {
    fmin_ = std::min<double>(fmin_, lo);
    fmax_ = std::max<double>(fmax_, hi);
  }
}

void StatisticsBuilder::Update(std::span<const bool> values) {
  if (values.empty()) return;
  bool any_true = false, any_false = false;
  for (bool v : values) (v ? any_true : any_false) = true;
  non_null_count_ += static_cast<int64_t>(values.size());
  int64_t lo = any_false ? 0 : 1, hi = any_true ? 1 : 0;
  if (!has_min_max_) {
    imin_ = lo;
    imax_ = hi;
    has_min_max_ = true;
  } else {
    imin_ = std::min(imin_, lo);
    imax_ = std::max(imax_, hi);
  }
}

void StatisticsBuilder::Update(std::span<const int32_t> values) {
  if (order_.kind == ValueOrder::Kind::kUnsignedInt) {
    UpdateUnsigned(values);
  } else {
    UpdateSigned(values);
  }
}

void StatisticsBuilder::Update(std::span<const int64_t> values) {
  if (order_.kind == ValueOrder::Kind::kUnsignedInt) {
    UpdateUnsigned(values);
  } else {
    UpdateSigned(values);
  }
}

void StatisticsBuilder::Update(std::span<const float> values) { UpdateFloat(values); }
void StatisticsBuilder::Update(std::span<const double> values) { UpdateFloat(values); }

bool StatisticsBuilder::BytesLess(std::string_view a, std::string_view b) const {
  return order_.kind == ValueOrder::Kind::kSignedBytes ? CompareSignedBytes(a, b) < 0
                                                       : CompareUnsignedBytes(a, b) < 0;
}

void StatisticsBuilder::Update(std::string_view value) {
  ++non_null_count_;
  if (!has_min_max_) {
    smin_.assign(value);
    smax_.assign(value);
    has_min_max_ = true;
    return;
  }
  if (BytesLess(value, smin_)) {
    smin_.assign(value);
  } else if (BytesLess(smax_, value)) {
    smax_.assign(value);
  }
}

void StatisticsBuilder::Merge(const StatisticsBuilder& other) {
  null_count_ += other.null_count_;
  nan_count_ += other.nan_count_;
  non_null_count_ += other.non_null_count_;
  if (!other.has_min_max_) return;
  if (!has_min_max_) {
    has_min_max_ = true;
    imin_ = other.imin_;
    imax_ = other.imax_;
    umin_ = other.umin_;
    umax_ = other.umax_;
    fmin_ = other.fmin_;
    fmax_ = other.fmax_;
    smin_ = other.smin_;
    smax_ = other.smax_;
    return;
  }
  imin_ = std::min(imin_, other.imin_);
  imax_ = std::max(imax_, other.imax_);
  umin_ = std::min(umin_, other.umin_);
  umax_ = std::max(umax_, other.umax_);
  fmin_ = std::min(fmin_, other.fmin_);
  fmax_ = std::max(fmax_, other.fmax_);
  if (BytesLess(other.smin_, smin_)) smin_ = other.smin_;
  if (BytesLess(smax_, other.smax_)) smax_ = other.smax_;
}

void StatisticsBuilder::Reset() { *this = StatisticsBuilder(order_); }

namespace {

std::string EncodeBound(const ValueOrder& order, bool is_min, int64_t i, uint64_t u, double f,
                        const std::string& s) {
  using Kind = ValueOrder::Kind;
  switch (order.kind) {
    case Kind::kBoolean:
      return std::string(1, i != 0 ? '\1' : '\0');
    case Kind::kSignedInt:
      return order.type == PhysicalType::kInt32 ? Store(static_cast<int32_t>(i)) : Store(i);
    case Kind::kUnsignedInt:
      return order.type == PhysicalType::kInt32 ? Store(static_cast<uint32_t>(u)) : Store(u);
    case Kind::kFloat: {
      // The spec: a zero min is written as -0.0, a zero max as +0.0, so that a reader looking
      // for either zero never skips the page.
      if (f == 0) f = is_min ? -0.0 : 0.0;
      return order.type == PhysicalType::kFloat ? Store(static_cast<float>(f)) : Store(f);
    }
    case Kind::kUnsignedBytes:
    case Kind::kSignedBytes:
      return s;
  }
  return s;
}

}  // namespace

std::string StatisticsBuilder::EncodeMin() const {
  return EncodeBound(order_, true, imin_, umin_, fmin_, smin_);
}

std::string StatisticsBuilder::EncodeMax() const {
  return EncodeBound(order_, false, imax_, umax_, fmax_, smax_);
}

Statistics StatisticsBuilder::ToStatistics(int32_t truncate_length) const {
  Statistics s;
  s.null_count = null_count_;
  if (order_.kind == ValueOrder::Kind::kFloat) s.nan_count = nan_count_;
  if (!has_min_max_) return s;
  std::string min = EncodeMin();
  std::string max = EncodeMax();
  if (order_.type == PhysicalType::kByteArray && truncate_length > 0) {
    const size_t limit = static_cast<size_t>(truncate_length);
    if (min.size() > limit) {
      s.min_value = TruncateLowerBound(min, limit, order_.utf8);
      s.is_min_value_exact = false;
    } else {
      s.min_value = std::move(min);
      s.is_min_value_exact = true;
    }
    if (max.size() > limit) {
      if (auto upper = TruncateUpperBound(max, limit, order_.utf8)) {
        s.max_value = std::move(*upper);
        s.is_max_value_exact = false;
      }
    } else {
      s.max_value = std::move(max);
      s.is_max_value_exact = true;
    }
    return s;
  }
  s.min_value = std::move(min);
  s.max_value = std::move(max);
  s.is_min_value_exact = true;
  s.is_max_value_exact = true;
  return s;
}

BoundaryOrder ComputeBoundaryOrder(const ValueOrder& order, const std::vector<bool>& null_pages,
                                   const std::vector<std::string>& mins,
                                   const std::vector<std::string>& maxes) {
  bool ascending = true, descending = true;
  std::optional<size_t> prev;
  for (size_t i = 0; i < null_pages.size(); ++i) {
    if (null_pages[i]) continue;
    if (prev) {
      int cmin = CompareValues(order, mins[*prev], mins[i]);
      int cmax = CompareValues(order, maxes[*prev], maxes[i]);
      if (cmin > 0 || cmax > 0) ascending = false;
      if (cmin < 0 || cmax < 0) descending = false;
    }
    prev = i;
  }
  if (ascending) return BoundaryOrder::kAscending;
  if (descending) return BoundaryOrder::kDescending;
  return BoundaryOrder::kUnordered;
}

}  // namespace floe::parquet
