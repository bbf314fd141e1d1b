#include "floe/parquet/compression.h"

#include <lz4.h>

#include <random>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace floe::parquet {
namespace {

std::vector<uint8_t> Compressible(size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>("parquet pages "[i % 14] + i / 4096);
  return out;
}

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

const CompressionCodec kWritable[] = {CompressionCodec::kUncompressed, CompressionCodec::kSnappy,
                                      CompressionCodec::kGzip,         CompressionCodec::kZstd,
                                      CompressionCodec::kLz4Raw,       CompressionCodec::kBrotli};

TEST(CompressionTest, RoundTripsEveryWritableCodec) {
  std::vector<std::vector<uint8_t>> inputs = {
      {}, {42}, ::floe::testing::RandomBytes(100000, 7), Compressible(1 << 20)};
  for (CompressionCodec c : kWritable) {
    SCOPED_TRACE(CompressionCodecName(c));
    auto codec = MakeCodec(c);
    ASSERT_TRUE(codec.has_value());
    EXPECT_EQ((*codec)->codec(), c);
    for (const auto& input : inputs) {
      auto compressed = (*codec)->Compress(input);
      ASSERT_TRUE(compressed.has_value()) << compressed.error().ToString();
      EXPECT_LE(compressed->size(), (*codec)->MaxCompressedLength(input.size()));
      if (c != CompressionCodec::kUncompressed && input.size() == (1u << 20)) {
        EXPECT_LT(compressed->size(), input.size() / 4);
      }
      std::vector<uint8_t> output(input.size());
      auto st = (*codec)->Decompress(*compressed, output);
      ASSERT_TRUE(st.has_value()) << st.error().ToString();
      EXPECT_EQ(output, input);
    }
  }
}

TEST(CompressionTest, SizeMismatchIsCorrupt) {
  auto input = Compressible(5000);
  for (CompressionCodec c : kWritable) {
    SCOPED_TRACE(CompressionCodecName(c));
    auto codec = *MakeCodec(c);
    auto compressed = *codec->Compress(input);
    std::vector<uint8_t> small(4999), big(5001);
    std::string e1 = ErrorOf(codec->Decompress(compressed, small));
    std::string e2 = ErrorOf(codec->Decompress(compressed, big));
    EXPECT_EQ(e1.rfind("corrupt: ", 0), 0u) << e1;
    EXPECT_EQ(e2.rfind("corrupt: ", 0), 0u) << e2;
  }
  std::vector<uint8_t> out(10);
  auto snappy = *MakeCodec(CompressionCodec::kSnappy);
  EXPECT_EQ(ErrorOf(snappy->Decompress(*snappy->Compress(input), out)),
            "corrupt: SNAPPY page decompresses to 5000 bytes, but its header says 10");
  EXPECT_EQ(ErrorOf((*MakeCodec(CompressionCodec::kUncompressed))->Decompress(input, out)),
            "corrupt: UNCOMPRESSED page decompresses to 5000 bytes, but its header says 10");
}

// Truncated and bit-flipped inputs: always a clean error or (rarely) a valid decode, never a
// crash or an out-of-bounds write (meaningful under ASan).
TEST(CompressionTest, MalformedInputIsCorruptNeverACrash) {
  std::mt19937 rng(99);
  auto input = Compressible(20000);
  for (CompressionCodec c :
       {CompressionCodec::kSnappy, CompressionCodec::kGzip, CompressionCodec::kZstd,
        CompressionCodec::kLz4Raw, CompressionCodec::kLz4, CompressionCodec::kBrotli}) {
    SCOPED_TRACE(CompressionCodecName(c));
    auto codec = *MakeCodec(c);
    auto compressed = c == CompressionCodec::kLz4
                          ? *(*MakeCodec(CompressionCodec::kLz4Raw))->Compress(input)
                          : *codec->Compress(input);
    std::vector<uint8_t> output(input.size());
    for (size_t cut = 0; cut < compressed.size(); cut += 1 + compressed.size() / 50) {
      auto st = codec->Decompress(ByteView(compressed).first(cut), output);
      ASSERT_FALSE(st.has_value());
      EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt) << st.error().ToString();
    }
    for (int round = 0; round < 200; ++round) {
      auto mutated = compressed;
      mutated[rng() % mutated.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      auto st = codec->Decompress(mutated, output);
      if (!st.has_value()) {
        EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
      }
    }
  }
}

TEST(CompressionTest, GzipReadsConcatenatedMembers) {
  auto gzip = *MakeCodec(CompressionCodec::kGzip);
  std::vector<uint8_t> a = {'h', 'e', 'l', 'l', 'o', ' '};
  auto b = Compressible(3000);
  auto ca = *gzip->Compress(a);
  auto cb = *gzip->Compress(b);
  std::vector<uint8_t> both = ca;
  both.insert(both.end(), cb.begin(), cb.end());
  std::vector<uint8_t> expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  std::vector<uint8_t> out(expected.size());
  auto st = gzip->Decompress(both, out);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  EXPECT_EQ(out, expected);
  // Only the first member's worth of room: the page is larger than its header says.
  std::vector<uint8_t> short_out(a.size() + 10);
  EXPECT_EQ(ErrorOf(gzip->Decompress(both, short_out)),
            "corrupt: GZIP page decompresses to more than the 16 bytes its header says");
}

void PutBigEndian32(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<uint8_t>(v >> shift));
}

std::vector<uint8_t> Lz4Block(ByteView input) {
  std::vector<uint8_t> out(LZ4_compressBound(static_cast<int>(input.size())));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(input.data()),
                               reinterpret_cast<char*>(out.data()), static_cast<int>(input.size()),
                               static_cast<int>(out.size()));
  out.resize(n);
  return out;
}

TEST(CompressionTest, HadoopLz4FramesAndRawBlockFallback) {
  auto lz4 = *MakeCodec(CompressionCodec::kLz4);
  auto input = Compressible(10000);
  ByteView in(input);
  std::vector<uint8_t> out(input.size());

  // Two frames of one chunk each.
  std::vector<uint8_t> framed;
  for (ByteView part : {in.first(6000), in.subspan(6000)}) {
    auto block = Lz4Block(part);
    PutBigEndian32(&framed, static_cast<uint32_t>(part.size()));
    PutBigEndian32(&framed, static_cast<uint32_t>(block.size()));
    framed.insert(framed.end(), block.begin(), block.end());
  }
  ASSERT_TRUE(lz4->Decompress(framed, out).has_value());
  EXPECT_EQ(out, input);

  // One frame made of three chunks (Hadoop's block stream splits large inputs this way).
  std::vector<uint8_t> chunked;
  PutBigEndian32(&chunked, static_cast<uint32_t>(input.size()));
  for (ByteView part : {in.first(1000), in.subspan(1000, 4000), in.subspan(5000)}) {
    auto block = Lz4Block(part);
    PutBigEndian32(&chunked, static_cast<uint32_t>(block.size()));
    chunked.insert(chunked.end(), block.begin(), block.end());
  }
  std::fill(out.begin(), out.end(), 0);
  ASSERT_TRUE(lz4->Decompress(chunked, out).has_value());
  EXPECT_EQ(out, input);

  // A bare block, as parquet-cpp 1.5 wrote under this codec.
  std::fill(out.begin(), out.end(), 0);
  ASSERT_TRUE(lz4->Decompress(Lz4Block(in), out).has_value());
  EXPECT_EQ(out, input);

  std::vector<uint8_t> junk = {0, 0, 0, 5, 0, 0, 0, 1, 0xff};
  std::vector<uint8_t> five(5);
  EXPECT_EQ(ErrorOf(lz4->Decompress(junk, five)),
            "corrupt: LZ4 page data is neither Hadoop-framed LZ4 nor an LZ4 block of 5 bytes");
  auto written = lz4->Compress(input);
  ASSERT_FALSE(written.has_value());
  EXPECT_EQ(written.error().ToString(),
            "unsupported: writing the deprecated LZ4 (Hadoop) codec; use LZ4_RAW");
}

TEST(CompressionTest, FactoryRejectsUnsupportedCodecsAndBadLevels) {
  auto lzo = MakeCodec(CompressionCodec::kLzo);
  ASSERT_FALSE(lzo.has_value());
  EXPECT_EQ(lzo.error().ToString(), "unsupported: compression codec LZO");
  auto unknown = MakeCodec(static_cast<CompressionCodec>(42));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().ToString(), "unsupported: compression codec CompressionCodec(42)");
  CodecOptions options;
  options.zstd_level = 99;
  auto zstd = MakeCodec(CompressionCodec::kZstd, options);
  ASSERT_FALSE(zstd.has_value());
  EXPECT_EQ(zstd.error().kind, ErrorKind::kInvalidInput);
  options = {};
  options.zstd_level = 19;
  auto compressed = (*MakeCodec(CompressionCodec::kZstd, options))->Compress(Compressible(4096));
  ASSERT_TRUE(compressed.has_value());
  std::vector<uint8_t> out(4096);
  EXPECT_TRUE((*MakeCodec(CompressionCodec::kZstd))->Decompress(*compressed, out).has_value());
  EXPECT_EQ(out, Compressible(4096));
}

}  // namespace
}  // namespace floe::parquet
