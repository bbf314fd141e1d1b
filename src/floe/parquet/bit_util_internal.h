// Internal to src/floe/parquet: the bit-level primitives the encodings share (ULEB128, zigzag,
// LSB-first packing of 0..64-bit values). Readers take an explicit end and never read past it;
// callers check that enough bytes exist before unpacking.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace floe::parquet::internal {

// Bits needed for `v`: 0 for 0, 64 for values with the top bit set.
inline int BitWidth(uint64_t v) { return v == 0 ? 0 : 64 - std::countl_zero(v); }

// Bytes holding `bits` bits, rounded up; safe for any bit count up to 2^64 - 8.
inline uint64_t BytesForBits(uint64_t bits) { return bits / 8 + (bits % 8 != 0 ? 1 : 0); }

template <typename T>
T LoadLittleEndian(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // floe targets little-endian hosts only
  return v;
}

// Reads a ULEB128 varint of at most 10 bytes into *out and advances *p. False when the bytes end
// first or the value does not fit 64 bits.
inline bool ReadUleb128(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return false;
    uint8_t b = *(*p)++;
    uint64_t bits = b & 0x7f;
    if (shift == 63 && bits > 1) return false;  // would overflow 64 bits
    v |= bits << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

inline void WriteUleb128(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Unpacks `n` values of `bit_width` bits (0..64) starting `bit_offset` bits into `in`, LSB
// first. The caller guarantees bit_offset + n * bit_width <= in_bytes * 8.
inline void UnpackBits(const uint8_t* in, size_t in_bytes, uint64_t bit_offset, int bit_width,
                       uint64_t* out, size_t n) {
  if (bit_width == 0) {
    std::fill(out, out + n, uint64_t{0});
    return;
  }
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  for (size_t i = 0; i < n; ++i, bit_offset += static_cast<uint64_t>(bit_width)) {
    size_t byte = static_cast<size_t>(bit_offset >> 3);
    int shift = static_cast<int>(bit_offset & 7);
    uint64_t v;
    const bool spills = shift + bit_width > 64;  // the value reaches a ninth byte
    if (byte + 8 + (spills ? 1 : 0) <= in_bytes) {
      v = LoadLittleEndian<uint64_t>(in + byte) >> shift;
      if (spills) v |= uint64_t{in[byte + 8]} << (64 - shift);
    } else {
      // Near the end: gather only the bytes that exist.
      v = 0;
      size_t last = std::min(in_bytes, byte + 9);
      for (size_t b = byte; b < last; ++b) {
        int s = static_cast<int>((b - byte) * 8) - shift;
        if (s >= 64) break;
        v |= s >= 0 ? uint64_t{in[b]} << s : uint64_t{in[b]} >> -s;
      }
    }
    out[i] = v & mask;
  }
}

// Unpacks 32 values of W bits (1..64), LSB first, from `in`: the 4 * W bytes they fill, plus up
// to 9 bytes past them that may be read (not used) -- the caller checks those exist. With the
// width a constant, every value's byte and shift are too: the loop unrolls into loads and shifts.
template <int W>
void Unpack32(const uint8_t* in, uint64_t* out) {
  constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
#pragma GCC unroll 32
  for (int i = 0; i < 32; ++i) {
    const uint64_t bit = static_cast<uint64_t>(i) * W;
    const size_t byte = static_cast<size_t>(bit >> 3);
    const int shift = static_cast<int>(bit & 7);
    uint64_t v = LoadLittleEndian<uint64_t>(in + byte) >> shift;
    if (shift + W > 64) v |= uint64_t{in[byte + 8]} << (64 - shift);
    out[i] = v & kMask;
  }
}

using Unpack32Fn = void (*)(const uint8_t*, uint64_t*);

template <size_t... W>
constexpr std::array<Unpack32Fn, sizeof...(W) + 1> MakeUnpack32Table(std::index_sequence<W...>) {
  return {nullptr, &Unpack32<static_cast<int>(W) + 1>...};
}

// Unpack32 for a width of 1..64 (null for 0).
inline Unpack32Fn Unpack32For(int bit_width) {
  static constexpr auto kTable = MakeUnpack32Table(std::make_index_sequence<64>{});
  return bit_width >= 1 && bit_width <= 64 ? kTable[static_cast<size_t>(bit_width)] : nullptr;
}

// Unpacks `n` values of `bit_width` bits from bit `bit_offset` of `in` as UnpackBits does, by 32
// at a time through Unpack32 where the offset is a whole group's and `readable` bytes from `in`
// (at least in_bytes) leave room for its reads past the values. Returns how many it unpacked:
// a multiple of 32, possibly 0 (the caller unpacks the rest with UnpackBits).
inline size_t UnpackGroups(const uint8_t* in, size_t readable, uint64_t bit_offset, int bit_width,
                           uint64_t* out, size_t n) {
  const Unpack32Fn unpack = Unpack32For(bit_width);
  if (unpack == nullptr || bit_offset % (32 * static_cast<uint64_t>(bit_width)) != 0) return 0;
  const size_t group_bytes = 4 * static_cast<size_t>(bit_width);
  size_t byte = static_cast<size_t>(bit_offset / 8);
  size_t done = 0;
  while (done + 32 <= n && byte + group_bytes + 9 <= readable) {
    unpack(in + byte, out + done);
    byte += group_bytes;
    done += 32;
  }
  return done;
}

// Appends `n` values of `bit_width` bits, LSB first, padded with zero bits to a whole byte.
// Each value must be below 2^bit_width.
inline void PackBits(const uint64_t* values, size_t n, int bit_width, std::vector<uint8_t>* out) {
  if (bit_width == 0 || n == 0) return;
  const size_t start = out->size();
  const auto bytes = static_cast<size_t>(BytesForBits(uint64_t{n} * bit_width));
  // Whole 64-bit words little-endian from an accumulator (the last may pass the end: 8 bytes of
  // slack, cut after).
  out->resize(start + bytes + 8, 0);
  uint8_t* dst = out->data() + start;
  uint64_t acc = 0;
  int filled = 0;  // bits of acc in use, < 64
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = values[i];  // below 2^bit_width
    acc |= v << filled;
    filled += bit_width;
    if (filled >= 64) {
      std::memcpy(dst, &acc, 8);
      dst += 8;
      filled -= 64;
      // The bits of v that did not fit (none when it ended the word exactly).
      acc = filled > 0 ? v >> (bit_width - filled) : 0;
    }
  }
  if (filled > 0) std::memcpy(dst, &acc, 8);
  out->resize(start + bytes);
}

}  // namespace floe::parquet::internal
