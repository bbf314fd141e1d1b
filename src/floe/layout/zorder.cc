#include "floe/layout/zorder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

namespace floe::layout {
namespace {

namespace c = floe::columnar;

constexpr int kPrimitiveBytes = 8;

void PutBigEndian(uint64_t v, uint8_t* out) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(v & 0xff);
    v >>= 8;
  }
}

// A whole number's bytes: big-endian with the sign bit flipped, so negatives sort first.
void PutWhole(int64_t v, uint8_t* out) {
  PutBigEndian(static_cast<uint64_t>(v) ^ 0x8000000000000000ULL, out);
}

// A double's bits (NaN canonical, as Java's doubleToLongBits) with the sign trick: positives get
// the sign bit set, negatives every bit flipped.
void PutFloating(double d, uint8_t* out) {
  auto bits = std::bit_cast<int64_t>(d);
  if (std::isnan(d)) bits = 0x7ff8000000000000LL;
  const int64_t mask = (bits >> 63) | std::numeric_limits<int64_t>::min();
  PutBigEndian(static_cast<uint64_t>(bits ^ mask), out);
}

// Bytes truncated or zero-filled to `width`; a string is cut at a whole UTF-8 character, as
// Java's encoder stops before a character that does not fit.
void PutVariable(std::string_view v, bool utf8, int width, uint8_t* out) {
  size_t n = std::min(v.size(), static_cast<size_t>(width));
  if (utf8 && n < v.size()) {
    while (n > 0 && (static_cast<uint8_t>(v[n]) & 0xC0) == 0x80) --n;
  }
  if (n > 0) std::memcpy(out, v.data(), n);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t UnitsPerSecond(c::TimeUnit unit) {
  switch (unit) {
    case c::TimeUnit::kMilli:
      return 1000;
    case c::TimeUnit::kMicro:
      return 1000000;
    case c::TimeUnit::kNano:
      return 1000000000;
  }
  return 1000000;
}

// spread[d][b]: the 8 bits of b, most significant first, d bits apart in an 8d-bit chunk whose
// top bit is b's top bit -- one source byte of d interleaved columns of equal width.
const std::array<std::array<uint64_t, 256>, 9>& SpreadTable() {
  static const auto table = [] {
    std::array<std::array<uint64_t, 256>, 9> t{};
    for (int d = 1; d <= 8; ++d) {
      for (int b = 0; b < 256; ++b) {
        uint64_t v = 0;
        for (int bit = 0; bit < 8; ++bit) {  // bit 0 = b's most significant
          if ((b >> (7 - bit)) & 1) v |= uint64_t{1} << (8 * d - 1 - bit * d);
        }
        t[d][b] = v;
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

Result<KeyBytes> OrderedBytes(const c::Column& col, const std::vector<int64_t>& rows,
                              int var_length_contribution) {
  KeyBytes out;
  const bool variable = col.type.id == c::TypeId::kString || col.type.id == c::TypeId::kBinary ||
                        col.type.id == c::TypeId::kFixedSizeBinary;
  if (variable && var_length_contribution < 1) {
    return InvalidInput("var-length-contribution {} must be at least 1", var_length_contribution);
  }
  out.width = variable ? var_length_contribution : kPrimitiveBytes;
  out.bytes.assign(rows.size() * static_cast<size_t>(out.width), 0);
  auto each = [&](auto put) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t r = rows[i];
      if (col.IsValid(r)) put(r, out.bytes.data() + i * static_cast<size_t>(out.width));
    }
  };
  switch (col.type.id) {
    case c::TypeId::kBool:
      each([&](int64_t r, uint8_t* p) { p[0] = col.BoolAt(r) ? 0x81 : 0; });
      break;
    case c::TypeId::kInt8:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<int8_t>(r), p); });
      break;
    case c::TypeId::kInt16:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<int16_t>(r), p); });
      break;
    case c::TypeId::kInt32:
    case c::TypeId::kDate32:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<int32_t>(r), p); });
      break;
    case c::TypeId::kUInt8:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<uint8_t>(r), p); });
      break;
    case c::TypeId::kUInt16:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<uint16_t>(r), p); });
      break;
    case c::TypeId::kUInt32:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<uint32_t>(r), p); });
      break;
    case c::TypeId::kInt64:
    case c::TypeId::kTime64:
      each([&](int64_t r, uint8_t* p) { PutWhole(col.Value<int64_t>(r), p); });
      break;
    case c::TypeId::kTimestamp: {
      const int64_t per_second = UnitsPerSecond(col.type.unit);
      each(
          [&](int64_t r, uint8_t* p) { PutWhole(FloorDiv(col.Value<int64_t>(r), per_second), p); });
      break;
    }
    case c::TypeId::kFloat32:
      each([&](int64_t r, uint8_t* p) { PutFloating(col.Value<float>(r), p); });
      break;
    case c::TypeId::kFloat64:
      each([&](int64_t r, uint8_t* p) { PutFloating(col.Value<double>(r), p); });
      break;
    case c::TypeId::kDecimal128: {
      const bool narrow = col.type.precision <= 18;
      each([&](int64_t r, uint8_t* p) {
        const auto v = col.Value<__int128>(r);
        PutWhole(narrow ? static_cast<int64_t>(v) : static_cast<int64_t>(v >> 64), p);
      });
      break;
    }
    case c::TypeId::kString:
    case c::TypeId::kBinary:
    case c::TypeId::kFixedSizeBinary: {
      const bool utf8 = col.type.id == c::TypeId::kString;
      each([&](int64_t r, uint8_t* p) { PutVariable(col.BytesAt(r), utf8, out.width, p); });
      break;
    }
    default:
      return Unsupported("clustering by a {} column", col.type.ToString());
  }
  return out;
}

KeyBytes Interleave(const std::vector<KeyBytes>& columns, size_t rows, int max_output_size) {
  KeyBytes out;
  int64_t total = 0;
  for (const KeyBytes& k : columns) total += k.width;
  out.width = static_cast<int>(std::min<int64_t>(total, max_output_size));
  out.bytes.assign(rows * static_cast<size_t>(out.width), 0);
  const size_t d = columns.size();
  const bool equal_widths = std::all_of(columns.begin(), columns.end(), [&](const KeyBytes& k) {
    return k.width == columns[0].width;
  });
  if (d >= 1 && d <= 8 && equal_widths) {
    // Equal widths: source byte j of every column makes output bytes [j*d, (j+1)*d).
    const auto& spread = SpreadTable()[d];
    const int width = columns[0].width;
    for (size_t i = 0; i < rows; ++i) {
      uint8_t* o = out.bytes.data() + i * static_cast<size_t>(out.width);
      for (int j = 0; j < width; ++j) {
        uint64_t chunk = 0;
        for (size_t col = 0; col < d; ++col) chunk |= spread[columns[col].At(i)[j]] >> col;
        for (size_t k = 0; k < d; ++k) {
          const size_t at = static_cast<size_t>(j) * d + k;
          if (at >= static_cast<size_t>(out.width)) break;
          o[at] = static_cast<uint8_t>(chunk >> (8 * (d - 1 - k)));
        }
      }
    }
    return out;
  }
  // Any widths: bit by bit, most significant first, round-robin over the columns that still have
  // a byte at the current position.
  for (size_t i = 0; i < rows; ++i) {
    uint8_t* o = out.bytes.data() + i * static_cast<size_t>(out.width);
    int64_t out_bit = 0;
    const int64_t out_bits = int64_t{out.width} * 8;
    for (int byte = 0; out_bit < out_bits; ++byte) {
      bool any = false;
      for (int bit = 7; bit >= 0 && out_bit < out_bits; --bit) {
        for (size_t col = 0; col < d && out_bit < out_bits; ++col) {
          if (columns[col].width <= byte) continue;
          any = true;
          if ((columns[col].At(i)[byte] >> bit) & 1) {
            o[out_bit >> 3] |= static_cast<uint8_t>(0x80u >> (out_bit & 7));
          }
          ++out_bit;
        }
      }
      if (!any) break;
    }
  }
  return out;
}

Result<KeyBytes> ZOrderKeys(const std::vector<const c::Column*>& columns,
                            const std::vector<int64_t>& rows, const ZOrderOptions& options) {
  if (columns.empty()) return InvalidInput("Z-order needs at least one column");
  if (options.max_output_size < 1) {
    return InvalidInput("max-output-size {} must be at least 1", options.max_output_size);
  }
  std::vector<KeyBytes> parts;
  parts.reserve(columns.size());
  for (const c::Column* col : columns) {
    FLOE_ASSIGN_OR_RETURN(KeyBytes k, OrderedBytes(*col, rows, options.var_length_contribution));
    parts.push_back(std::move(k));
  }
  if (parts.size() == 1 && parts[0].width <= options.max_output_size) return std::move(parts[0]);
  return Interleave(parts, rows.size(), options.max_output_size);
}

void SortByKeys(const KeyBytes& keys, std::vector<int64_t>* rows) {
  const size_t n = rows->size();
  if (n < 2) return;
  // Byte positions where every key holds the same byte order nothing: keys of small values share
  // most of their bytes (flipped sign bits, zero high bits interleaved). The others, in order,
  // make a shorter key.
  std::vector<size_t> varying;
  {
    std::vector<uint8_t> differs(static_cast<size_t>(keys.width), 0);
    const uint8_t* first = keys.At(0);
    for (size_t i = 1; i < n; ++i) {
      const uint8_t* k = keys.At(i);
      for (size_t b = 0; b < differs.size(); ++b) differs[b] |= k[b] ^ first[b];
    }
    for (size_t b = 0; b < differs.size(); ++b) {
      if (differs[b] != 0) varying.push_back(b);
    }
  }
  const size_t width = varying.size();
  // The first 8 varying bytes as one big-endian word, with the row's position as the tie-break;
  // runs of equal words are then ordered by the rest of the varying bytes.
  std::vector<std::pair<uint64_t, uint64_t>> order(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t w = 0;
    const uint8_t* k = keys.At(i);
    for (size_t b = 0; b < 8; ++b) w = (w << 8) | (b < width ? k[varying[b]] : 0);
    order[i] = {w, i};
  }
  if (n >= 4096) {
    // LSD radix sort on the word's meaningful bytes (its top min(width, 8)), least significant
    // first: each pass is stable, and the pairs start in row order, so ties keep it.
    std::vector<std::pair<uint64_t, uint64_t>> scratch(n);
    const size_t bytes = std::min<size_t>(width, 8);
    for (size_t pass = 0; pass < bytes; ++pass) {
      const int shift = static_cast<int>(8 * (8 - bytes + pass));
      std::array<size_t, 257> at{};
      for (const auto& e : order) ++at[((e.first >> shift) & 0xff) + 1];
      for (size_t b = 1; b < at.size(); ++b) at[b] += at[b - 1];
      for (const auto& e : order) scratch[at[(e.first >> shift) & 0xff]++] = e;
      order.swap(scratch);
    }
  } else {
    std::sort(order.begin(), order.end());
  }
  if (width > 8) {
    auto less = [&](const std::pair<uint64_t, uint64_t>& a,
                    const std::pair<uint64_t, uint64_t>& b) {
      const uint8_t* ka = keys.At(a.second);
      const uint8_t* kb = keys.At(b.second);
      for (size_t v = 8; v < width; ++v) {
        if (ka[varying[v]] != kb[varying[v]]) return ka[varying[v]] < kb[varying[v]];
      }
      return a.second < b.second;
    };
    for (size_t s = 0; s < n;) {
      size_t e = s + 1;
      while (e < n && order[e].first == order[s].first) ++e;
      if (e - s > 1) {
        std::sort(order.begin() + static_cast<std::ptrdiff_t>(s),
                  order.begin() + static_cast<std::ptrdiff_t>(e), less);
      }
      s = e;
    }
  }
  std::vector<int64_t> sorted(n);
  for (size_t i = 0; i < n; ++i) sorted[i] = (*rows)[order[i].second];
  *rows = std::move(sorted);
}

}  // namespace floe::layout
