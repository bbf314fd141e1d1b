#include "floe/parquet/bloom_filter_header.h"

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

namespace {

constexpr int32_t kBloomFilterBlockBytes = 32;  // eight 32-bit words per split block

}  // namespace

Result<BloomFilterHeader> ParseBloomFilterHeader(ByteView bytes, size_t* header_len) {
  format::BloomFilterHeader in;
  size_t consumed = 0;
  FLOE_RETURN_IF_ERROR(internal::ReadThrift(bytes, &in, &consumed, "BloomFilterHeader"));
  if (!in.__isset.numBytes || in.numBytes <= 0 || in.numBytes % kBloomFilterBlockBytes != 0) {
    return Corrupt("BloomFilterHeader: bitset size {} is not a positive multiple of {} bytes",
                   in.numBytes, kBloomFilterBlockBytes);
  }
  BloomFilterHeader out;
  out.num_bytes = in.numBytes;
  out.algorithm = in.algorithm.__isset.BLOCK ? BloomFilterHeader::Algorithm::kSplitBlock
                                             : BloomFilterHeader::Algorithm::kUnrecognized;
  out.hash = in.hash.__isset.XXHASH ? BloomFilterHeader::Hash::kXxHash64
                                    : BloomFilterHeader::Hash::kUnrecognized;
  out.compression = in.compression.__isset.UNCOMPRESSED
                        ? BloomFilterHeader::Compression::kUncompressed
                        : BloomFilterHeader::Compression::kUnrecognized;
  *header_len = consumed;
  return out;
}

Result<std::vector<uint8_t>> SerializeBloomFilterHeader(const BloomFilterHeader& in) {
  format::BloomFilterHeader out;
  out.numBytes = in.num_bytes;
  if (in.algorithm == BloomFilterHeader::Algorithm::kSplitBlock) out.algorithm.__set_BLOCK({});
  if (in.hash == BloomFilterHeader::Hash::kXxHash64) out.hash.__set_XXHASH({});
  if (in.compression == BloomFilterHeader::Compression::kUncompressed) {
    out.compression.__set_UNCOMPRESSED({});
  }
  return internal::WriteThrift(out, "BloomFilterHeader");
}

}  // namespace floe::parquet
