// Deletion vectors (Iceberg v3): the deleted row positions of one data file, as the blob type
// deletion-vector-v1 of a Puffin file stores them. Bytes, from the spec: the length of magic and
// vector (4 bytes big-endian), the magic D1 D3 39 64, the vector -- a 64-bit Roaring bitmap in the
// portable format (the count of 32-bit bitmaps, 8 bytes little-endian, then per ascending key a
// 4-byte little-endian key and a portable 32-bit Roaring bitmap, run containers allowed) -- and the
// CRC-32 of magic and vector (4 bytes big-endian). The bitmap is CRoaring's (Debian's
// libroaring-dev), whose portable format is this one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/iceberg/metadata_columns.h"

namespace floe::iceberg {

inline constexpr char kDeletionVectorBlobType[] = "deletion-vector-v1";

// The blob of `positions` (any order, duplicates allowed; each >= 0).
Result<std::string> EncodeDeletionVector(const std::vector<int64_t>& positions);

// The positions of a deletion-vector-v1 blob, ascending. A wrong length, magic or CRC, or a bitmap
// that does not parse, is a Corrupt error naming `name` (the Puffin file and the blob's range).
Result<std::vector<int64_t>> DecodeDeletionVector(std::span<const uint8_t> blob,
                                                  const std::string& name);

}  // namespace floe::iceberg
