#include "floe/parquet/bloom_filter.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "floe/parquet/bloom_filter_header.h"

namespace floe::parquet {

namespace {

// BloomFilter.md: the eight odd constants that spread a 32-bit key over the eight words.
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

// The block: the top 32 bits of the hash scaled onto [0, blocks) without a division.
inline size_t BlockIndex(uint64_t hash, size_t blocks) {
  return static_cast<size_t>(((hash >> 32) * static_cast<uint64_t>(blocks)) >> 32);
}

inline uint32_t BitInWord(uint32_t key, int word) {
  return uint32_t{1} << ((key * kSalt[word]) >> 27);
}

template <typename T>
uint64_t HashPlain(T v) {
  return XXH64(&v, sizeof(T), 0);
}

}  // namespace

BloomFilter::BloomFilter(int64_t num_bytes)
    : words_(static_cast<size_t>(std::max(num_bytes, kMinBytes) / kBytesPerBlock * 8), 0) {}

int64_t BloomFilter::OptimalNumBytes(int64_t ndv, double fpp, int64_t max_bytes) {
  const int64_t cap = static_cast<int64_t>(
      std::bit_floor(static_cast<uint64_t>(std::clamp(max_bytes, kMinBytes, kMaxBytes))));
  if (ndv <= 0) return kMinBytes;
  if (!(fpp > 0 && fpp < 1)) fpp = 0.01;
  const double bits = -8.0 * static_cast<double>(ndv) / std::log(1.0 - std::pow(fpp, 1.0 / 8));
  const double bytes = std::ceil(bits / 8);
  if (!(bytes < static_cast<double>(cap))) return cap;
  return std::clamp<int64_t>(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(bytes))),
                             kMinBytes, cap);
}

void BloomFilter::InsertHash(uint64_t hash) {
  uint32_t* block = words_.data() + BlockIndex(hash, words_.size() / 8) * 8;
  const uint32_t key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) block[i] |= BitInWord(key, i);
}

bool BloomFilter::MightContain(uint64_t hash) const {
  const uint32_t* block = words_.data() + BlockIndex(hash, words_.size() / 8) * 8;
  const uint32_t key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    if ((block[i] & BitInWord(key, i)) == 0) return false;
  }
  return true;
}

Result<BloomFilter> BloomFilter::Parse(ByteView bytes) {
  size_t header_len = 0;
  FLOE_ASSIGN_OR_RETURN(BloomFilterHeader header, ParseBloomFilterHeader(bytes, &header_len));
  if (!header.usable()) {
    return Unsupported(
        "Bloom filter: algorithm {}, hash {}, compression {} (floe reads split-block, XXH64, "
        "uncompressed)",
        static_cast<int32_t>(header.algorithm), static_cast<int32_t>(header.hash),
        static_cast<int32_t>(header.compression));
  }
  if (header.num_bytes > kMaxBytes) {
    return Corrupt("Bloom filter: bitset of {} bytes exceeds the {} byte limit", header.num_bytes,
                   kMaxBytes);
  }
  if (bytes.size() - header_len < static_cast<size_t>(header.num_bytes)) {
    return Corrupt("Bloom filter: header promises {} bitset bytes, {} follow it", header.num_bytes,
                   bytes.size() - header_len);
  }
  BloomFilter filter;
  filter.words_.resize(static_cast<size_t>(header.num_bytes) / 4);
  std::memcpy(filter.words_.data(), bytes.data() + header_len,
              static_cast<size_t>(header.num_bytes));
  return filter;
}

Result<std::vector<uint8_t>> BloomFilter::Serialize() const {
  BloomFilterHeader header;
  header.num_bytes = static_cast<int32_t>(num_bytes());
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> out, SerializeBloomFilterHeader(header));
  const auto* bits = reinterpret_cast<const uint8_t*>(words_.data());
  out.insert(out.end(), bits, bits + num_bytes());
  return out;
}

uint64_t BloomFilter::Hash(int32_t v) { return HashPlain(v); }
uint64_t BloomFilter::Hash(int64_t v) { return HashPlain(v); }
uint64_t BloomFilter::Hash(float v) { return HashPlain(v); }
uint64_t BloomFilter::Hash(double v) { return HashPlain(v); }
uint64_t BloomFilter::Hash(std::string_view bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

}  // namespace floe::parquet
