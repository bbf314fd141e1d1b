#include "floe/layout/hilbert.h"

#include <algorithm>
#include <bit>

namespace floe::layout {
namespace {

namespace c = floe::columnar;

uint64_t Word(const uint8_t* p, int width) {
  uint64_t w = 0;
  for (int b = 0; b < 8; ++b) w = (w << 8) | (b < width ? p[b] : 0);
  return w;
}

}  // namespace

std::vector<uint64_t> RangeBoundaries(std::vector<uint64_t> sample, int ranges) {
  std::vector<uint64_t> out;
  if (sample.empty() || ranges < 2) return out;
  std::sort(sample.begin(), sample.end());
  const size_t n = sample.size();
  out.reserve(static_cast<size_t>(ranges));
  for (int i = 1; i < ranges; ++i) {
    const uint64_t b = sample[static_cast<size_t>(i) * n / static_cast<size_t>(ranges)];
    // A boundary at the smallest value would leave range 0 empty.
    if (b != sample.front() && (out.empty() || out.back() != b)) out.push_back(b);
  }
  return out;
}

uint32_t RangeId(const std::vector<uint64_t>& boundaries, uint64_t key) {
  return static_cast<uint32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), key) -
                               boundaries.begin());
}

void HilbertTranspose(std::vector<uint32_t>& x, int bits) {
  const size_t n = x.size();
  if (n == 0 || bits < 1) return;
  const uint32_t top = uint32_t{1} << (bits - 1);
  // Undo the excess work of the inverse: walk the bits from the top, inverting or exchanging the
  // low bits of the first coordinate with each other's.
  for (uint32_t q = top; q > 1; q >>= 1) {
    const uint32_t p = q - 1;
    for (size_t i = 0; i < n; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  // Gray encode.
  for (size_t i = 1; i < n; ++i) x[i] ^= x[i - 1];
  uint32_t t = 0;
  for (uint32_t q = top; q > 1; q >>= 1) {
    if (x[n - 1] & q) t ^= q - 1;
  }
  for (size_t i = 0; i < n; ++i) x[i] ^= t;
}

Result<KeyBytes> HilbertKeys(const std::vector<const c::Column*>& columns,
                             const std::vector<int64_t>& rows, const HilbertOptions& options) {
  if (columns.size() > 16) return InvalidInput("Hilbert order takes at most 16 columns");
  if (options.ranges < 2 || options.ranges > 65536) {
    return InvalidInput("Hilbert ranges {} must be 2 to 65536", options.ranges);
  }
  if (columns.size() < 2) {
    ZOrderOptions z;
    z.var_length_contribution = options.var_length_contribution;
    return ZOrderKeys(columns, rows, z);
  }
  const size_t d = columns.size();
  const int bits = std::bit_width(static_cast<unsigned>(options.ranges - 1));
  // Each column's range ids, from boundaries over an evenly spaced sample of the rows.
  const size_t n = rows.size();
  const size_t stride =
      std::max<size_t>(1, n / static_cast<size_t>(std::max<int64_t>(1, options.sample_rows)));
  std::vector<std::vector<uint32_t>> ids(d);
  for (size_t col = 0; col < d; ++col) {
    FLOE_ASSIGN_OR_RETURN(KeyBytes k,
                          OrderedBytes(*columns[col], rows, options.var_length_contribution));
    std::vector<uint64_t> sample;
    sample.reserve(n / stride + 1);
    for (size_t i = 0; i < n; i += stride) sample.push_back(Word(k.At(i), k.width));
    const std::vector<uint64_t> bounds = RangeBoundaries(std::move(sample), options.ranges);
    ids[col].resize(n);
    for (size_t i = 0; i < n; ++i) ids[col][i] = RangeId(bounds, Word(k.At(i), k.width));
  }
  KeyBytes out;
  const size_t key_bits = d * static_cast<size_t>(bits);
  out.width = static_cast<int>((key_bits + 7) / 8);
  out.bytes.assign(n * static_cast<size_t>(out.width), 0);
  std::vector<uint32_t> x(d);
  for (size_t i = 0; i < n; ++i) {
    for (size_t col = 0; col < d; ++col) x[col] = ids[col][i];
    HilbertTranspose(x, bits);
    uint8_t* o = out.bytes.data() + i * static_cast<size_t>(out.width);
    size_t at = 0;
    for (int level = bits - 1; level >= 0; --level) {
      for (size_t col = 0; col < d; ++col, ++at) {
        if ((x[col] >> level) & 1) o[at >> 3] |= static_cast<uint8_t>(0x80u >> (at & 7));
      }
    }
  }
  return out;
}

}  // namespace floe::layout
