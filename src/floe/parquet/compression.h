// Codec: (de)compresses page bytes for one Parquet CompressionCodec. Decompression fills a buffer
// of exactly the size the page header promises, or fails `corrupt:`. Codecs are stateless and
// const: one instance may be shared by any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

struct CodecOptions {
  int zstd_level = 3;      // 1..22 (negative: faster)
  int gzip_level = 6;      // 0..9
  int brotli_quality = 5;  // 0..11
};

class Codec {
 public:
  virtual ~Codec() = default;

  virtual CompressionCodec codec() const = 0;

  // Decompresses all of `input` into exactly output.size() bytes.
  virtual Status Decompress(ByteView input, std::span<uint8_t> output) const = 0;

  // Upper bound of Compress's output for `input_length` bytes of input.
  virtual size_t MaxCompressedLength(size_t input_length) const = 0;

  // Compresses `input` into `output` (at least MaxCompressedLength bytes); returns the length.
  virtual Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const = 0;

  // Convenience: compresses into a new vector.
  Result<std::vector<uint8_t>> Compress(ByteView input) const;
};

// Reading: UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4 (Hadoop framing, or a bare LZ4 block as some
// writers produced), ZSTD, LZ4_RAW. Writing: all of those but LZ4, whose Compress is
// `unsupported` (it is deprecated; write LZ4_RAW). LZO and unknown codecs are `unsupported`.
Result<std::unique_ptr<Codec>> MakeCodec(CompressionCodec codec, const CodecOptions& options = {});

}  // namespace floe::parquet
