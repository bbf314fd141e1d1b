// BloomFilterHeader: the Thrift header in front of a column chunk's split-block Bloom filter
// bitset, with its parser and serialiser. The parser reports the header's length so the bitset
// (num_bytes long) can be sliced from the same buffer; probing the filter lives elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::parquet {

struct BloomFilterHeader {
  // Each union of the spec has one member today; kUnrecognized marks a newer one, which makes
  // the filter unusable (but is not an error: the reader just cannot prune with it).
  enum class Algorithm : int32_t { kSplitBlock = 1, kUnrecognized = -1 };
  enum class Hash : int32_t { kXxHash64 = 1, kUnrecognized = -1 };
  enum class Compression : int32_t { kUncompressed = 1, kUnrecognized = -1 };

  int32_t num_bytes = 0;  // bitset size; a positive multiple of the 32-byte block
  Algorithm algorithm = Algorithm::kSplitBlock;
  Hash hash = Hash::kXxHash64;
  Compression compression = Compression::kUncompressed;

  bool usable() const {
    return algorithm == Algorithm::kSplitBlock && hash == Hash::kXxHash64 &&
           compression == Compression::kUncompressed;
  }

  friend bool operator==(const BloomFilterHeader&, const BloomFilterHeader&) = default;
};

// Parses the header at the front of `bytes`; *header_len receives its length.
Result<BloomFilterHeader> ParseBloomFilterHeader(ByteView bytes, size_t* header_len);

Result<std::vector<uint8_t>> SerializeBloomFilterHeader(const BloomFilterHeader& header);

}  // namespace floe::parquet
