#include "floe/layout/hilbert.h"

#include <algorithm>
#include <array>
#include <bit>

namespace floe::layout {
namespace {

namespace c = floe::columnar;

uint64_t Word(const uint8_t* p, int width) {
  uint64_t w = 0;
  for (int b = 0; b < 8; ++b) w = (w << 8) | (b < width ? p[b] : 0);
  return w;
}

// RangeId by table: the keys' span cut into up to 2^16 equal buckets, each knowing the range of
// its lowest key, so that a key's range is a lookup and a step or two forward.
class RangeFinder {
 public:
  explicit RangeFinder(const std::vector<uint64_t>& bounds) : bounds_(bounds) {
    if (bounds.size() < 2) return;
    lo_ = bounds.front();
    const uint64_t span = bounds.back() - lo_;
    while ((span >> shift_) >= kBuckets) ++shift_;
    first_.resize(static_cast<size_t>(span >> shift_) + 1);
    for (size_t b = 0; b < first_.size(); ++b) {
      first_[b] = RangeId(bounds, lo_ + (static_cast<uint64_t>(b) << shift_));
    }
  }
  uint32_t operator()(uint64_t key) const {
    if (first_.empty()) return RangeId(bounds_, key);
    if (key < lo_) return 0;
    const uint64_t b = (key - lo_) >> shift_;
    if (b >= first_.size()) return static_cast<uint32_t>(bounds_.size());
    uint32_t id = first_[b];
    for (int step = 0; step < 8; ++step, ++id) {
      if (id == bounds_.size() || bounds_[id] > key) return id;
    }
    // Many boundaries in one bucket (a skewed span): search the rest.
    return static_cast<uint32_t>(std::upper_bound(bounds_.begin() + id, bounds_.end(), key) -
                                 bounds_.begin());
  }

 private:
  static constexpr uint64_t kBuckets = 1 << 16;
  const std::vector<uint64_t>& bounds_;
  uint64_t lo_ = 0;
  int shift_ = 0;
  std::vector<uint32_t> first_;
};

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
  // upper_bound without branches: the data decides the steps, so mispredictions cost nothing.
  const uint64_t* base = boundaries.data();
  size_t n = boundaries.size();
  if (n == 0) return 0;
  while (n > 1) {
    const size_t half = n / 2;
    base = base[half - 1] <= key ? base + half : base;
    n -= half;
  }
  return static_cast<uint32_t>(base - boundaries.data()) + (*base <= key ? 1 : 0);
}

namespace {

// Skilling's transform over `n` coordinates held in a local array, so the compiler keeps them in
// registers (N: a count known at compile time, unrolled; 0: `n` at run time).
template <size_t N>
void Transpose(uint32_t* io, size_t n, int bits) {
  if constexpr (N != 0) n = N;
  std::array<uint32_t, N == 0 ? 16 : N> x{};
  for (size_t i = 0; i < n; ++i) x[i] = io[i];
  const uint32_t top = uint32_t{1} << (bits - 1);
  // Undo the excess work of the inverse: walk the bits from the top, inverting or exchanging the
  // low bits of the first coordinate with each other's -- without branches, as the bits are the
  // data's: when bit q of x[i] is set invert the low bits of x[0], else exchange them with x[i]'s.
  for (uint32_t q = top; q > 1; q >>= 1) {
    const uint32_t p = q - 1;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t set = 0u - ((x[i] & q) != 0 ? 1u : 0u);
      const uint32_t t = (x[0] ^ x[i]) & p & ~set;
      x[0] ^= (p & set) | t;
      x[i] ^= t;
    }
  }
  // Gray encode.
  for (size_t i = 1; i < n; ++i) x[i] ^= x[i - 1];
  uint32_t t = 0;
  for (uint32_t q = top; q > 1; q >>= 1) t ^= (q - 1) & (0u - ((x[n - 1] & q) != 0 ? 1u : 0u));
  for (size_t i = 0; i < n; ++i) io[i] = x[i] ^ t;
}

}  // namespace

void HilbertTranspose(uint32_t* x, size_t n, int bits) {
  if (n == 0 || bits < 1) return;
  switch (n) {
    case 2:
      return Transpose<2>(x, n, bits);
    case 3:
      return Transpose<3>(x, n, bits);
    case 4:
      return Transpose<4>(x, n, bits);
    default:
      return Transpose<0>(x, std::min<size_t>(n, 16), bits);
  }
}

Result<HilbertRanges> SampleRanges(const std::vector<const c::Column*>& columns,
                                   const std::vector<int64_t>& rows,
                                   const HilbertOptions& options) {
  if (columns.size() < 2 || columns.size() > 16) {
    return InvalidInput("Hilbert order takes 2 to 16 columns, not {}", columns.size());
  }
  if (options.ranges < 2 || options.ranges > 65536) {
    return InvalidInput("Hilbert ranges {} must be 2 to 65536", options.ranges);
  }
  HilbertRanges out;
  out.bits = std::bit_width(static_cast<unsigned>(options.ranges - 1));
  out.var_length_contribution = options.var_length_contribution;
  // An evenly spaced sample of the rows.
  const size_t n = rows.size();
  const size_t stride =
      std::max<size_t>(1, n / static_cast<size_t>(std::max<int64_t>(1, options.sample_rows)));
  std::vector<int64_t> sample_rows;
  sample_rows.reserve(n / stride + 1);
  for (size_t i = 0; i < n; i += stride) sample_rows.push_back(rows[i]);
  for (const c::Column* col : columns) {
    FLOE_ASSIGN_OR_RETURN(KeyBytes k,
                          OrderedBytes(*col, sample_rows, options.var_length_contribution));
    std::vector<uint64_t> sample(sample_rows.size());
    for (size_t i = 0; i < sample.size(); ++i) sample[i] = Word(k.At(i), k.width);
    out.bounds.push_back(RangeBoundaries(std::move(sample), options.ranges));
  }
  return out;
}

Result<KeyBytes> HilbertKeys(const std::vector<const c::Column*>& columns,
                             const std::vector<int64_t>& rows, const HilbertRanges& ranges) {
  const size_t d = columns.size();
  if (ranges.bounds.size() != d) {
    return Internal("Hilbert ranges of {} columns for {}", ranges.bounds.size(), d);
  }
  const int bits = ranges.bits;
  const size_t n = rows.size();
  // Each column's range ids.
  std::vector<std::vector<uint32_t>> ids(d);
  for (size_t col = 0; col < d; ++col) {
    FLOE_ASSIGN_OR_RETURN(KeyBytes k,
                          OrderedBytes(*columns[col], rows, ranges.var_length_contribution));
    ids[col].resize(n);
    const RangeFinder find(ranges.bounds[col]);
    for (size_t i = 0; i < n; ++i) ids[col][i] = find(Word(k.At(i), k.width));
  }
  KeyBytes out;
  const size_t key_bits = d * static_cast<size_t>(bits);  // at most 16 x 16
  out.width = static_cast<int>((key_bits + 7) / 8);
  out.bytes.assign(n * static_cast<size_t>(out.width), 0);
  std::array<uint32_t, 16> x{};
  for (size_t i = 0; i < n; ++i) {
    for (size_t col = 0; col < d; ++col) x[col] = ids[col][i];
    HilbertTranspose(x.data(), d, bits);
    // The transposed bits, most significant first, into a 256-bit accumulator of 4 words.
    std::array<uint64_t, 4> acc{};
    size_t at = 0;
    for (int level = bits - 1; level >= 0; --level) {
      for (size_t col = 0; col < d; ++col, ++at) {
        acc[at >> 6] |= static_cast<uint64_t>((x[col] >> level) & 1) << (63 - (at & 63));
      }
    }
    uint8_t* o = out.bytes.data() + i * static_cast<size_t>(out.width);
    for (int b = 0; b < out.width; ++b) {
      o[b] = static_cast<uint8_t>(acc[static_cast<size_t>(b) >> 3] >> (56 - 8 * (b & 7)));
    }
  }
  return out;
}

}  // namespace floe::layout
