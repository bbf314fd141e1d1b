#include "floe/iceberg/deletion_vector.h"

#include <cstring>
#include <exception>
#include <vector>

#include <roaring/roaring64map.hh>

#include "floe/parquet/metadata_checksum.h"

namespace floe::iceberg {
namespace {

constexpr uint8_t kMagic[4] = {0xD1, 0xD3, 0x39, 0x64};

uint32_t BigEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

void PutBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xff));
}

}  // namespace

Result<std::string> EncodeDeletionVector(const std::vector<int64_t>& positions) {
  try {
    Roaring64Map bitmap;
    for (int64_t p : positions) {
      if (p < 0) return InvalidInput("a deletion vector cannot hold the negative position {}", p);
      bitmap.add(static_cast<uint64_t>(p));
    }
    bitmap.runOptimize();
    std::string vector(bitmap.getSizeInBytes(true), '\0');
    vector.resize(bitmap.write(vector.data(), true));
    std::string body(reinterpret_cast<const char*>(kMagic), 4);
    body += vector;
    std::string out;
    out.reserve(body.size() + 8);
    PutBigEndian32(static_cast<uint32_t>(body.size()), &out);
    out += body;
    PutBigEndian32(parquet::Crc32(AsBytes(body)), &out);
    return out;
  } catch (const std::exception& e) {
    return Internal("encoding a deletion vector: {}", e.what());
  }
}

Result<std::vector<int64_t>> DecodeDeletionVector(std::span<const uint8_t> blob,
                                                  const std::string& name) {
  if (blob.size() < 12) {
    return Corrupt("deletion vector {}: {} bytes is too short for one", name, blob.size());
  }
  const uint32_t length = BigEndian32(blob.data());
  if (length + size_t{8} != blob.size()) {
    return Corrupt("deletion vector {}: it says {} bytes of magic and vector, the blob holds {}",
                   name, length, blob.size() - 8);
  }
  const uint8_t* body = blob.data() + 4;
  if (std::memcmp(body, kMagic, 4) != 0) {
    return Corrupt("deletion vector {}: no D1 D3 39 64 magic", name);
  }
  const uint32_t want = BigEndian32(body + length);
  const uint32_t got = parquet::Crc32(ByteView(body, length));
  if (want != got) {
    return Corrupt("deletion vector {}: CRC-32 {:08x} does not match its bytes ({:08x})", name,
                   want, got);
  }
  const char* vector = reinterpret_cast<const char*>(body + 4);
  const size_t vector_size = length - 4;
  uint64_t count = 0;
  if (vector_size < sizeof(count)) return Corrupt("deletion vector {}: no bitmap count", name);
  std::memcpy(&count, vector, sizeof(count));
  // Each 32-bit bitmap takes at least a key and a cookie: a count beyond that is a lie.
  if (count > vector_size / 8) {
    return Corrupt("deletion vector {}: {} bitmaps cannot fit in {} bytes", name, count,
                   vector_size);
  }
  // CRoaring 0.2.66's readSafe loads the bitmap count as an aligned uint64_t: hand it an 8-byte
  // aligned copy (a blob lies anywhere in a Puffin file).
  std::vector<uint64_t> aligned((vector_size + 7) / 8);
  std::memcpy(aligned.data(), vector, vector_size);
  try {
    Roaring64Map bitmap =
        Roaring64Map::readSafe(reinterpret_cast<const char*>(aligned.data()), vector_size);
    if (bitmap.getSizeInBytes(true) != vector_size) {
      return Corrupt("deletion vector {}: its bitmap takes {} of its {} bytes", name,
                     bitmap.getSizeInBytes(true), vector_size);
    }
    std::vector<int64_t> out(bitmap.cardinality());
    size_t i = 0;
    for (uint64_t p : bitmap) {
      if (p > static_cast<uint64_t>(INT64_MAX)) {
        return Corrupt("deletion vector {}: position {} is beyond any file", name, p);
      }
      out[i++] = static_cast<int64_t>(p);
    }
    return out;
  } catch (const std::exception& e) {
    return Corrupt("deletion vector {}: its bitmap does not parse ({})", name, e.what());
  }
}

}  // namespace floe::iceberg
