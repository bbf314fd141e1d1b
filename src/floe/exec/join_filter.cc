#include "floe/exec/join_filter.h"

#include <algorithm>
#include <bit>

namespace floe::exec {

namespace {

using columnar::TypeId;

bool IsWide(TypeId t) {
  return t == TypeId::kInt64 || t == TypeId::kTimestamp || t == TypeId::kTime64;
}
bool IsNarrow(TypeId t) { return t == TypeId::kInt32 || t == TypeId::kDate32; }

// A key's hash for the Bloom filter: one multiply-xorshift (the keys are the filter's own; no
// file's filter is compared with it).
inline uint64_t Mix(int64_t x) {
  uint64_t h = static_cast<uint64_t>(x) * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  return h ^ (h >> 32);
}

// A bitmap (a bit per value of the range, one load per row) when its range needs no more than
// this many bits per key, up to 2^27 bits (16 MiB); past that, the Bloom filter.
constexpr uint64_t kBitsPerKey = 128;
constexpr uint64_t kMaxBitmapBits = uint64_t{1} << 27;
// The Bloom filter: a 64-bit word per key's hash, 4 bits set in it (a "register-blocked" filter:
// one load per row), about 16 bits per key -- a false positive for one row in 50 or so.
constexpr uint64_t kBloomBitsPerKey = 16;

inline uint64_t BloomBits(uint64_t h) {
  return (uint64_t{1} << (h & 63)) | (uint64_t{1} << ((h >> 6) & 63)) |
         (uint64_t{1} << ((h >> 12) & 63)) | (uint64_t{1} << ((h >> 18) & 63));
}

}  // namespace

std::shared_ptr<const JoinKeyFilter> JoinKeyFilter::Of(const columnar::Column& keys, int64_t rows) {
  const TypeId t = keys.type.id;
  if (!IsWide(t) && !IsNarrow(t)) return nullptr;
  rows = std::min(rows, keys.length);
  const bool nulls = keys.null_count > 0;
  auto value = [&](int64_t r) -> int64_t {
    return IsWide(t) ? keys.Values<int64_t>()[r] : keys.Values<int32_t>()[r];
  };
  int64_t lo = 0, hi = 0;
  uint64_t n = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (nulls && keys.IsNull(r)) continue;
    const int64_t v = value(r);
    lo = n == 0 ? v : std::min(lo, v);
    hi = n == 0 ? v : std::max(hi, v);
    ++n;
  }
  auto f = std::shared_ptr<JoinKeyFilter>(new JoinKeyFilter());
  if (n == 0) {
    f->bits_.assign(1, 0);  // no bit set: nothing passes
    return f;
  }
  f->lo_ = lo;
  f->last_ = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (f->last_ < kMaxBitmapBits && f->last_ < n * kBitsPerKey + 4096) {
    f->bits_.assign(f->last_ / 64 + 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
      if (nulls && keys.IsNull(r)) continue;
      const uint64_t i = static_cast<uint64_t>(value(r)) - static_cast<uint64_t>(lo);
      f->bits_[i / 64] |= uint64_t{1} << (i % 64);
    }
    for (uint64_t w : f->bits_) f->keys_ += std::popcount(w);
    return f;
  }
  // Sized for every row's key (duplicates only make it emptier); the rows bound the keys.
  f->keys_ = static_cast<int64_t>(n);
  f->bloom_.assign(std::bit_ceil(std::max<uint64_t>(1, n * kBloomBitsPerKey / 64)), 0);
  f->bloom_shift_ = 64 - std::countr_zero(f->bloom_.size());
  for (int64_t r = 0; r < rows; ++r) {
    if (nulls && keys.IsNull(r)) continue;
    const uint64_t h = Mix(value(r));
    f->bloom_[f->BloomWord(h)] |= BloomBits(h);
  }
  return f;
}

template <typename T>
void JoinKeyFilter::TestValues(const T* v, int64_t n, uint8_t* out) const {
  const auto lo = static_cast<uint64_t>(lo_);
  if (!bits_.empty()) {
    const uint64_t* bits = bits_.data();
    const uint64_t last = last_;
    for (int64_t r = 0; r < n; ++r) {
      const uint64_t i = static_cast<uint64_t>(static_cast<int64_t>(v[r])) - lo;
      out[r] = i <= last ? static_cast<uint8_t>((bits[i / 64] >> (i % 64)) & 1) : 0;
    }
    return;
  }
  const uint64_t* bloom = bloom_.data();
  for (int64_t r = 0; r < n; ++r) {
    const auto x = static_cast<int64_t>(v[r]);
    const uint64_t h = Mix(x);
    const uint64_t want = BloomBits(h);
    const bool in_range = static_cast<uint64_t>(x) - lo <= last_;
    out[r] = in_range && (bloom[BloomWord(h)] & want) == want ? 1 : 0;
  }
}

std::vector<uint8_t> JoinKeyFilter::Test(const columnar::Column& c) const {
  const int64_t n = c.length;
  std::vector<uint8_t> out(static_cast<size_t>(n), 1);
  if (IsWide(c.type.id)) {
    TestValues(c.Values<int64_t>(), n, out.data());
  } else if (IsNarrow(c.type.id)) {
    TestValues(c.Values<int32_t>(), n, out.data());
  } else {
    return out;
  }
  if (c.null_count > 0) {
    for (int64_t r = 0; r < n; ++r) {
      if (c.IsNull(r)) out[static_cast<size_t>(r)] = 0;
    }
  }
  return out;
}

}  // namespace floe::exec
