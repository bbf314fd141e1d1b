// BloomFilter: Parquet's split-block Bloom filter (BloomFilter.md) over XXH64 (seed 0) of PLAIN
// values. The writer inserts hashes and serialises header + bitset; a reader parses those bytes
// and asks MightContain, which is const and safe to share between threads.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::parquet {

class BloomFilter {
 public:
  static constexpr int64_t kBytesPerBlock = 32;
  static constexpr int64_t kMinBytes = kBytesPerBlock;
  // Filters larger than this are refused when parsing (no writer makes one; a corrupt size does).
  static constexpr int64_t kMaxBytes = int64_t{128} << 20;

  // An empty filter of `num_bytes` (a positive multiple of 32) -- see OptimalNumBytes.
  explicit BloomFilter(int64_t num_bytes);

  // Bytes for `ndv` distinct values at false-positive probability `fpp`, by the spec's formula
  // (bits per value = -8 / ln(1 - fpp^(1/8))), rounded up to a power of two and clamped to
  // [32, max_bytes] (max_bytes itself rounded down to a power of two).
  static int64_t OptimalNumBytes(int64_t ndv, double fpp, int64_t max_bytes);

  // Parses header + bitset at the front of `bytes` (the bloom_filter_offset of a column chunk,
  // bloom_filter_length bytes, or the rest of the file when the length is absent). A filter of an
  // algorithm, hash or compression floe does not know is `unsupported`; bad sizes are `corrupt`.
  static Result<BloomFilter> Parse(ByteView bytes);

  void InsertHash(uint64_t hash);
  bool MightContain(uint64_t hash) const;

  int64_t num_bytes() const { return static_cast<int64_t>(words_.size()) * 4; }
  // Header (Thrift BloomFilterHeader) + bitset, as stored in the file.
  Result<std::vector<uint8_t>> Serialize() const;

  // XXH64 (seed 0) of a value's PLAIN encoding: 4/8 little-endian bytes for INT32/FLOAT and
  // INT64/DOUBLE, the bytes themselves (no length prefix) for BYTE_ARRAY and
  // FIXED_LEN_BYTE_ARRAY.
  static uint64_t Hash(int32_t v);
  static uint64_t Hash(int64_t v);
  static uint64_t Hash(float v);
  static uint64_t Hash(double v);
  static uint64_t Hash(std::string_view bytes);

 private:
  BloomFilter() = default;

  std::vector<uint32_t> words_;  // little-endian on disk; floe targets little-endian hosts
};

}  // namespace floe::parquet
