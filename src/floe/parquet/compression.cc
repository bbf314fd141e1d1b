#include "floe/parquet/compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>
#include <cstring>

namespace floe::parquet {

namespace {

Status CheckSize(std::string_view codec, size_t produced, size_t expected) {
  if (produced != expected) {
    return Corrupt("{} page decompresses to {} bytes, but its header says {}", codec, produced,
                   expected);
  }
  return {};
}

class UncompressedCodec final : public Codec {
 public:
  CompressionCodec codec() const override { return CompressionCodec::kUncompressed; }
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    FLOE_RETURN_IF_ERROR(CheckSize("UNCOMPRESSED", input.size(), output.size()));
    if (!input.empty()) std::memcpy(output.data(), input.data(), input.size());
    return {};
  }
  size_t MaxCompressedLength(size_t n) const override { return n; }
  Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const override {
    if (output.size() < input.size()) return Internal("UNCOMPRESSED: output buffer too small");
    if (!input.empty()) std::memcpy(output.data(), input.data(), input.size());
    return input.size();
  }
};

class SnappyCodec final : public Codec {
 public:
  CompressionCodec codec() const override { return CompressionCodec::kSnappy; }
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    auto in = reinterpret_cast<const char*>(input.data());
    size_t length = 0;
    if (!snappy::GetUncompressedLength(in, input.size(), &length)) {
      return Corrupt("SNAPPY page data is malformed (no valid length preamble)");
    }
    FLOE_RETURN_IF_ERROR(CheckSize("SNAPPY", length, output.size()));
    if (!snappy::RawUncompress(in, input.size(), reinterpret_cast<char*>(output.data()))) {
      return Corrupt("SNAPPY page data is malformed");
    }
    return {};
  }
  size_t MaxCompressedLength(size_t n) const override { return snappy::MaxCompressedLength(n); }
  Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const override {
    if (output.size() < MaxCompressedLength(input.size())) {
      return Internal("SNAPPY: output buffer too small");
    }
    size_t length = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(input.data()), input.size(),
                        reinterpret_cast<char*>(output.data()), &length);
    return length;
  }
};

class GzipCodec final : public Codec {
 public:
  explicit GzipCodec(int level) : level_(level) {}
  CompressionCodec codec() const override { return CompressionCodec::kGzip; }

  // A page may hold several gzip members back to back (the spec asks readers to accept that);
  // each one ends with Z_STREAM_END and the next starts after a reset. Headers are detected
  // automatically, so zlib-wrapped data from old writers also reads.
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    if (input.size() > UINT_MAX || output.size() > UINT_MAX) {
      return Corrupt("GZIP page is larger than 4 GiB");
    }
    uint8_t dummy = 0;
    z_stream s{};
    if (inflateInit2(&s, 15 + 32) != Z_OK) return Internal("GZIP: inflateInit2 failed");
    s.next_in = const_cast<Bytef*>(input.empty() ? &dummy : input.data());
    s.avail_in = static_cast<uInt>(input.size());
    s.next_out = output.empty() ? &dummy : output.data();
    s.avail_out = static_cast<uInt>(output.size());
    Status status;
    while (true) {
      int rc = inflate(&s, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // Another member follows only if input is left and room to put it; trailing bytes
        // after a full page (some writers pad) are ignored.
        if (s.avail_in == 0 || s.avail_out == 0) break;
        if (inflateReset(&s) != Z_OK) {
          status = Internal("GZIP: inflateReset failed");
          break;
        }
        continue;
      }
      if (rc == Z_OK) continue;
      if (rc == Z_BUF_ERROR) {
        status = s.avail_out == 0
                     ? Corrupt("GZIP page decompresses to more than the {} bytes its header says",
                               output.size())
                     : Corrupt("GZIP page data is truncated");
      } else {
        status = Corrupt("GZIP page data is malformed ({})", s.msg != nullptr ? s.msg : "error");
      }
      break;
    }
    size_t produced = output.size() - s.avail_out;
    inflateEnd(&s);
    FLOE_RETURN_IF_ERROR(status);
    return CheckSize("GZIP", produced, output.size());
  }

  size_t MaxCompressedLength(size_t n) const override {
    return compressBound(static_cast<uLong>(n)) + 18;  // + gzip header and trailer
  }

  Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const override {
    if (input.size() > UINT_MAX || output.size() > UINT_MAX) {
      return InvalidInput("GZIP: page larger than 4 GiB");
    }
    uint8_t dummy = 0;
    z_stream s{};
    if (deflateInit2(&s, level_, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Internal("GZIP: deflateInit2 failed");
    }
    s.next_in = const_cast<Bytef*>(input.empty() ? &dummy : input.data());
    s.avail_in = static_cast<uInt>(input.size());
    s.next_out = output.empty() ? &dummy : output.data();
    s.avail_out = static_cast<uInt>(output.size());
    int rc = deflate(&s, Z_FINISH);
    size_t produced = output.size() - s.avail_out;
    deflateEnd(&s);
    if (rc != Z_STREAM_END) return Internal("GZIP: deflate did not finish (output too small?)");
    return produced;
  }

 private:
  int level_;
};

class ZstdCodec final : public Codec {
 public:
  explicit ZstdCodec(int level) : level_(level) {}
  CompressionCodec codec() const override { return CompressionCodec::kZstd; }

  // Contexts are expensive to create and not thread safe: one per thread, reused.
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(),
                                                                        ZSTD_freeDCtx);
    if (!ctx) return Internal("ZSTD: cannot create a decompression context");
    size_t n =
        ZSTD_decompressDCtx(ctx.get(), output.data(), output.size(), input.data(), input.size());
    if (ZSTD_isError(n)) {
      return Corrupt("ZSTD page data is malformed or larger than its header says ({})",
                     ZSTD_getErrorName(n));
    }
    return CheckSize("ZSTD", n, output.size());
  }
  size_t MaxCompressedLength(size_t n) const override { return ZSTD_compressBound(n); }
  Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const override {
    thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(),
                                                                        ZSTD_freeCCtx);
    if (!ctx) return Internal("ZSTD: cannot create a compression context");
    size_t n = ZSTD_compressCCtx(ctx.get(), output.data(), output.size(), input.data(),
                                 input.size(), level_);
    if (ZSTD_isError(n)) return Internal("ZSTD: compression failed ({})", ZSTD_getErrorName(n));
    return n;
  }

 private:
  int level_;
};

// A bare LZ4 block (the LZ4_RAW codec, and what some writers stored under LZ4).
Result<size_t> Lz4BlockDecompress(ByteView input, std::span<uint8_t> output) {
  if (input.size() > static_cast<size_t>(INT_MAX) || output.size() > static_cast<size_t>(INT_MAX)) {
    return Corrupt("LZ4 block larger than 2 GiB");
  }
  if (input.empty()) return size_t{0};  // nothing in, nothing out (the caller checks the size)
  char dummy = 0;
  int n = LZ4_decompress_safe(reinterpret_cast<const char*>(input.data()),
                              output.empty() ? &dummy : reinterpret_cast<char*>(output.data()),
                              static_cast<int>(input.size()), static_cast<int>(output.size()));
  if (n < 0) return Corrupt("LZ4 block is malformed or larger than its page header says");
  return static_cast<size_t>(n);
}

class Lz4RawCodec final : public Codec {
 public:
  CompressionCodec codec() const override { return CompressionCodec::kLz4Raw; }
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    auto n = Lz4BlockDecompress(input, output);
    if (!n) return Corrupt("LZ4_RAW page data: {}", n.error().message);
    return CheckSize("LZ4_RAW", *n, output.size());
  }
  size_t MaxCompressedLength(size_t n) const override {
    return n > LZ4_MAX_INPUT_SIZE ? 0 : static_cast<size_t>(LZ4_compressBound(static_cast<int>(n)));
  }
  Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const override {
    if (input.size() > LZ4_MAX_INPUT_SIZE) return InvalidInput("LZ4_RAW: page too large");
    int capacity = static_cast<int>(std::min<size_t>(output.size(), INT_MAX));
    int n = LZ4_compress_default(reinterpret_cast<const char*>(input.data()),
                                 reinterpret_cast<char*>(output.data()),
                                 static_cast<int>(input.size()), capacity);
    if (n <= 0) return Internal("LZ4_RAW: compression failed (output too small?)");
    return static_cast<size_t>(n);
  }
};

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The deprecated LZ4 codec as Hadoop frames it: a sequence of frames, each a big-endian
// uncompressed length followed by one or more (big-endian compressed length, LZ4 block) chunks
// that together produce it. Returns false when the bytes do not follow that framing exactly.
bool TryHadoopLz4(ByteView input, std::span<uint8_t> output) {
  size_t pos = 0;
  size_t out = 0;
  while (pos < input.size()) {
    if (input.size() - pos < 8) return false;
    uint32_t frame_length = LoadBigEndian32(input.data() + pos);
    pos += 4;
    if (frame_length > output.size() - out) return false;
    size_t produced = 0;
    do {
      if (input.size() - pos < 4) return false;
      uint32_t chunk = LoadBigEndian32(input.data() + pos);
      pos += 4;
      if (chunk > input.size() - pos) return false;
      auto n = Lz4BlockDecompress(input.subspan(pos, chunk),
                                  output.subspan(out + produced, frame_length - produced));
      if (!n || (*n == 0 && produced < frame_length)) return false;  // no progress
      produced += *n;
      pos += chunk;
    } while (produced < frame_length);
    out += produced;
  }
  return out == output.size();
}

class HadoopLz4Codec final : public Codec {
 public:
  CompressionCodec codec() const override { return CompressionCodec::kLz4; }
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    if (TryHadoopLz4(input, output)) return {};
    // Older parquet-cpp wrote a bare LZ4 block under this codec; other readers accept that too.
    auto n = Lz4BlockDecompress(input, output);
    if (n && *n == output.size()) return {};
    return Corrupt("LZ4 page data is neither Hadoop-framed LZ4 nor an LZ4 block of {} bytes",
                   output.size());
  }
  size_t MaxCompressedLength(size_t n) const override { return n; }
  Result<size_t> Compress(ByteView, std::span<uint8_t>) const override {
    return Unsupported("writing the deprecated LZ4 (Hadoop) codec; use LZ4_RAW");
  }
};

class BrotliCodec final : public Codec {
 public:
  explicit BrotliCodec(int quality) : quality_(quality) {}
  CompressionCodec codec() const override { return CompressionCodec::kBrotli; }
  Status Decompress(ByteView input, std::span<uint8_t> output) const override {
    uint8_t dummy = 0;
    size_t length = output.size();
    auto rc = BrotliDecoderDecompress(input.size(), input.empty() ? &dummy : input.data(), &length,
                                      output.empty() ? &dummy : output.data());
    if (rc != BROTLI_DECODER_RESULT_SUCCESS) {
      return Corrupt("BROTLI page data is malformed or larger than its header says");
    }
    return CheckSize("BROTLI", length, output.size());
  }
  size_t MaxCompressedLength(size_t n) const override {
    size_t bound = BrotliEncoderMaxCompressedSize(n);
    return bound == 0 ? n + 1024 : bound;
  }
  Result<size_t> Compress(ByteView input, std::span<uint8_t> output) const override {
    uint8_t dummy = 0;
    size_t length = output.size();
    if (!BrotliEncoderCompress(quality_, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, input.size(),
                               input.empty() ? &dummy : input.data(), &length,
                               output.empty() ? &dummy : output.data())) {
      return Internal("BROTLI: compression failed (output too small?)");
    }
    return length;
  }

 private:
  int quality_;
};

}  // namespace

Result<std::vector<uint8_t>> Codec::Compress(ByteView input) const {
  std::vector<uint8_t> out(MaxCompressedLength(input.size()));
  FLOE_ASSIGN_OR_RETURN(size_t n, Compress(input, out));
  out.resize(n);
  return out;
}

Result<std::unique_ptr<Codec>> MakeCodec(CompressionCodec codec, const CodecOptions& options) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return std::make_unique<UncompressedCodec>();
    case CompressionCodec::kSnappy:
      return std::make_unique<SnappyCodec>();
    case CompressionCodec::kGzip:
      if (options.gzip_level < 0 || options.gzip_level > 9) {
        return InvalidInput("GZIP level {} is outside 0..9", options.gzip_level);
      }
      return std::make_unique<GzipCodec>(options.gzip_level);
    case CompressionCodec::kZstd:
      if (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel()) {
        return InvalidInput("ZSTD level {} is outside {}..{}", options.zstd_level, ZSTD_minCLevel(),
                            ZSTD_maxCLevel());
      }
      return std::make_unique<ZstdCodec>(options.zstd_level);
    case CompressionCodec::kLz4Raw:
      return std::make_unique<Lz4RawCodec>();
    case CompressionCodec::kLz4:
      return std::make_unique<HadoopLz4Codec>();
    case CompressionCodec::kBrotli:
      if (options.brotli_quality < BROTLI_MIN_QUALITY ||
          options.brotli_quality > BROTLI_MAX_QUALITY) {
        return InvalidInput("BROTLI quality {} is outside {}..{}", options.brotli_quality,
                            BROTLI_MIN_QUALITY, BROTLI_MAX_QUALITY);
      }
      return std::make_unique<BrotliCodec>(options.brotli_quality);
    case CompressionCodec::kLzo:
      break;
  }
  return Unsupported("compression codec {}", CompressionCodecName(codec));
}

}  // namespace floe::parquet
