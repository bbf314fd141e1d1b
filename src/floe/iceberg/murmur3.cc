#include "floe/iceberg/murmur3.h"

#include <cstring>

namespace floe::iceberg {
namespace {

inline uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

inline uint32_t MixK(uint32_t k) {
  k *= 0xcc9e2d51u;
  k = Rotl(k, 15);
  return k * 0x1b873593u;
}

}  // namespace

int32_t Murmur3Hash32(std::string_view bytes, uint32_t seed) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  uint32_t h = seed;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t k = uint32_t{data[i]} | uint32_t{data[i + 1]} << 8 | uint32_t{data[i + 2]} << 16 |
                 uint32_t{data[i + 3]} << 24;
    h ^= MixK(k);
    h = Rotl(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  uint32_t k = 0;
  switch (n & 3) {
    case 3:
      k ^= uint32_t{data[i + 2]} << 16;
      [[fallthrough]];
    case 2:
      k ^= uint32_t{data[i + 1]} << 8;
      [[fallthrough]];
    case 1:
      k ^= data[i];
      h ^= MixK(k);
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

int32_t HashLong(int64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
  return Murmur3Hash32(std::string_view(reinterpret_cast<const char*>(b), 8));
}

}  // namespace floe::iceberg
