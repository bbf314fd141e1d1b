#include "floe/parquet/rle_bit_packed_hybrid.h"

#include <random>

#include <gtest/gtest.h>

#include "floe/parquet/bit_packed.h"

namespace floe::parquet {
namespace {

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

// The spec's example: 0..7 at bit width 3 bit-pack into 10001000 11000110 11111010.
TEST(RleBitPackedHybridTest, SpecBitPackingExample) {
  const std::vector<uint8_t> run = {0x03, 0x88, 0xc6, 0xfa};  // header: 1 group, bit-packed
  RleBitPackedHybridDecoder d;
  ASSERT_TRUE(d.Reset(run, 3).has_value());
  std::vector<int32_t> out(8);
  ASSERT_TRUE(d.Decode(std::span(out)).has_value());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(d.bytes_read(), 4u);

  RleBitPackedHybridEncoder e(3);
  for (uint32_t v = 0; v < 8; ++v) e.Put(v);
  std::vector<uint8_t> bytes;
  e.Flush(&bytes);
  EXPECT_EQ(bytes, run);
}

// The spec's deprecated BIT_PACKED example: the same values MSB first, 00000101 00111001 01110111.
TEST(RleBitPackedHybridTest, SpecDeprecatedBitPackedExample) {
  const std::vector<uint8_t> bytes = {0x05, 0x39, 0x77};
  EXPECT_EQ(BitPackedLevelDecoder::EncodedLength(8, 3), 3u);
  BitPackedLevelDecoder d;
  ASSERT_TRUE(d.Reset(bytes, 3, 8).has_value());
  std::vector<int16_t> out(8);
  ASSERT_TRUE(d.Decode(out).has_value());
  EXPECT_EQ(out, (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out).first(1))),
            "corrupt: BIT_PACKED: 1 levels requested, 0 left");
  EXPECT_EQ(ErrorOf(d.Reset(bytes, 3, 9)),
            "corrupt: BIT_PACKED: 9 levels of 3 bits need 4 bytes, 3 are there");
}

TEST(RleBitPackedHybridTest, RleRunsAndMixedRuns) {
  // 100 x 5 (rle-run: header 200 as ULEB128, value in one byte), then 8 bit-packed values.
  std::vector<uint8_t> bytes = {0xc8, 0x01, 0x05, 0x03, 0x88, 0xc6, 0xfa};
  RleBitPackedHybridDecoder d;
  ASSERT_TRUE(d.Reset(bytes, 3).has_value());
  std::vector<int16_t> out(108);
  ASSERT_TRUE(d.Decode(std::span(out)).has_value());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], 5);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[100 + i], i);
  // The encoder picks the same runs.
  RleBitPackedHybridEncoder e(3);
  for (int i = 0; i < 100; ++i) e.Put(5);
  for (uint32_t v = 0; v < 8; ++v) e.Put(v);
  std::vector<uint8_t> encoded;
  e.Flush(&encoded);
  EXPECT_EQ(encoded, bytes);
}

template <typename T>
void RoundTrip(const std::vector<uint32_t>& values, int bit_width) {
  RleBitPackedHybridEncoder e(bit_width);
  for (uint32_t v : values) e.Put(v);
  EXPECT_EQ(e.num_values(), static_cast<int64_t>(values.size()));
  size_t bound = e.MaxEncodedSize();
  std::vector<uint8_t> bytes;
  e.Flush(&bytes);
  EXPECT_LE(bytes.size(), bound);
  RleBitPackedHybridDecoder d;
  ASSERT_TRUE(d.Reset(bytes, bit_width).has_value());
  // Decode in uneven batches to cross run boundaries mid-run.
  std::unique_ptr<T[]> storage(new T[values.size() + 1]());  // vector<bool> has no span
  std::span<T> out(storage.get(), values.size());
  size_t at = 0, step = 1;
  while (at < out.size()) {
    size_t k = std::min(step, out.size() - at);
    ASSERT_TRUE(d.Decode(out.subspan(at, k)).has_value());
    at += k;
    step = step * 3 + 1;
  }
  for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(out[i], static_cast<T>(values[i])) << i;
}

TEST(RleBitPackedHybridTest, RoundTripsEveryBitWidth) {
  std::mt19937_64 rng(1);
  for (int bw = 0; bw <= 32; ++bw) {
    SCOPED_TRACE(bw);
    const uint64_t limit = bw == 32 ? 0xffffffffull : (uint64_t{1} << bw) - 1;
    for (size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 1000}) {
      std::vector<uint32_t> random(n), runs(n), max(n, static_cast<uint32_t>(limit));
      for (size_t i = 0; i < n; ++i) {
        random[i] = static_cast<uint32_t>(bw == 0 ? 0 : rng() & limit);
        runs[i] = static_cast<uint32_t>(((i / 13) % 3) & limit);  // runs of 13 with short tails
      }
      RoundTrip<uint32_t>(random, bw);
      RoundTrip<uint32_t>(runs, bw);
      RoundTrip<uint32_t>(max, bw);
      if (bw <= 15) RoundTrip<int16_t>(random, bw);
      if (bw <= 1) RoundTrip<bool>(random, bw);
    }
  }
}

// A frequent value in RLE runs between single bit-packed groups, as writers lay out skewed
// dictionary indices: each short group is decoded from 8-byte windows that reach into the runs
// after it (the bits past the group are masked off), and the last ones near the end of the data
// byte by byte. Hand-built so that the layout does not depend on the encoder.
TEST(RleBitPackedHybridTest, ShortBitPackedGroupsBetweenRleRuns) {
  for (int width : {1, 3, 5, 7, 12}) {
    const uint32_t mask = (1u << width) - 1;
    std::vector<uint8_t> bytes;
    std::vector<int32_t> expected;
    for (int r = 0; r < 40; ++r) {
      bytes.push_back(static_cast<uint8_t>(((10 + r) << 1) | 0));  // RLE run of 10 + r
      const uint32_t v = static_cast<uint32_t>(r * 7 + 1) & mask;
      for (int b = 0; b < (width + 7) / 8; ++b) bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
      expected.insert(expected.end(), 10 + r, static_cast<int32_t>(v));
      bytes.push_back((1 << 1) | 1);  // one bit-packed group of 8 values
      uint64_t bits = 0;
      int nbits = 0;
      for (int k = 0; k < 8; ++k) {
        const uint32_t x = static_cast<uint32_t>(r * 31 + k * 5 + 2) & mask;
        expected.push_back(static_cast<int32_t>(x));
        bits |= uint64_t{x} << nbits;
        nbits += width;
        while (nbits >= 8) {
          bytes.push_back(static_cast<uint8_t>(bits));
          bits >>= 8;
          nbits -= 8;
        }
      }
      ASSERT_EQ(nbits, 0);  // 8 values of any width fill whole bytes
    }
    RleBitPackedHybridDecoder d;
    ASSERT_TRUE(d.Reset(bytes, width).has_value());
    std::vector<int32_t> out(expected.size());
    // In uneven pieces, so that decoding resumes inside runs and groups.
    size_t at = 0;
    for (size_t piece = 1; at < out.size(); piece = piece * 3 % 17 + 1) {
      const size_t n = std::min(piece, out.size() - at);
      ASSERT_TRUE(d.Decode(std::span(out).subspan(at, n)).has_value()) << width;
      at += n;
    }
    EXPECT_EQ(out, expected) << "bit width " << width;
    EXPECT_EQ(d.bytes_read(), bytes.size());
  }
}

TEST(RleBitPackedHybridTest, LongRunsOfEveryShape) {
  std::vector<uint32_t> values;
  for (int len : {1, 7, 8, 9, 15, 16, 17, 100, 3}) {
    for (int i = 0; i < len; ++i) values.push_back(static_cast<uint32_t>(len % 4));
  }
  for (int i = 0; i < 5; ++i) values.push_back(static_cast<uint32_t>(i % 4));
  RoundTrip<int32_t>(values, 2);
}

TEST(RleBitPackedHybridTest, TruncatedAndMalformedInputIsCorrupt) {
  RleBitPackedHybridDecoder d;
  std::vector<int32_t> out(9);
  const std::vector<uint8_t> bytes = {0x03, 0x88, 0xc6, 0xfa};
  ASSERT_TRUE(d.Reset(bytes, 3).has_value());
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out))),
            "corrupt: RLE/bit-packed hybrid: data ends after 8 of 9 values");
  // A bit-packed run cut short keeps the values it holds: 2 bytes = 5 values at 3 bits.
  ASSERT_TRUE(d.Reset(std::span(bytes).first(3), 3).has_value());
  ASSERT_TRUE(d.Decode(std::span(out).first(5)).has_value());
  EXPECT_EQ(std::vector<int32_t>(out.begin(), out.begin() + 5),
            (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(d.Decode(std::span(out).first(1)).has_value());
  // RLE value too wide for the bit width.
  const std::vector<uint8_t> wide = {0x10, 0x09};
  ASSERT_TRUE(d.Reset(wide, 3).has_value());
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out).first(1))),
            "corrupt: RLE/bit-packed hybrid: run value 9 does not fit 3 bits");
  // RLE run whose value is missing.
  const std::vector<uint8_t> no_value = {0x10};
  ASSERT_TRUE(d.Reset(no_value, 8).has_value());
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out).first(1))),
            "corrupt: RLE/bit-packed hybrid: data ends inside a run's value at byte 1");
  // Run header that never ends.
  const std::vector<uint8_t> endless = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0xff};
  ASSERT_TRUE(d.Reset(endless, 8).has_value());
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out).first(1))),
            "corrupt: RLE/bit-packed hybrid: run header at byte 0 is malformed");
  EXPECT_EQ(ErrorOf(d.Reset(bytes, 33)),
            "corrupt: RLE/bit-packed hybrid: bit width 33 is outside 0..32");
  // A huge run count is fine as long as only what exists is read.
  const std::vector<uint8_t> huge = {0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01};
  ASSERT_TRUE(d.Reset(huge, 1).has_value());
  ASSERT_TRUE(d.Skip(1000000).has_value());
  ASSERT_TRUE(d.Decode(std::span(out)).has_value());
  EXPECT_EQ(out[8], 1);
}

TEST(RleBitPackedHybridTest, RandomBytesNeverCrash) {
  std::mt19937 rng(5);
  std::vector<int32_t> out(300);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes(rng() % 40);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    RleBitPackedHybridDecoder d;
    ASSERT_TRUE(d.Reset(bytes, static_cast<int>(rng() % 33)).has_value());
    (void)d.Decode(std::span(out).first(rng() % out.size()));
    (void)d.Skip(rng() % 100);
  }
}

TEST(RleBitPackedHybridTest, LengthPrefixAndBooleans) {
  std::vector<uint8_t> bytes = {3, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd};
  auto parts = SplitLengthPrefixed(bytes, "definition levels");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->first.size(), 3u);
  EXPECT_EQ(parts->second.size(), 1u);
  bytes[0] = 9;
  auto bad = SplitLengthPrefixed(bytes, "definition levels");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().ToString(),
            "corrupt: definition levels: length prefix says 9 bytes, 4 remain");

  RleBooleanEncoder e;
  std::vector<bool> flags;
  for (int i = 0; i < 1000; ++i) flags.push_back(i % 7 == 0 || (i > 500 && i < 600));
  std::unique_ptr<bool[]> in(new bool[flags.size()]);
  for (size_t i = 0; i < flags.size(); ++i) in[i] = flags[i];
  ASSERT_TRUE(e.Put(std::span<const bool>(in.get(), flags.size())).has_value());
  std::vector<uint8_t> encoded;
  ASSERT_TRUE(e.Flush(&encoded).has_value());
  RleBooleanDecoder d;
  ASSERT_TRUE(d.SetData(1000, encoded).has_value());
  std::unique_ptr<bool[]> out(new bool[1000]);
  ASSERT_TRUE(d.Decode(std::span<bool>(out.get(), 1000)).has_value());
  for (size_t i = 0; i < flags.size(); ++i) ASSERT_EQ(out[i], flags[i]) << i;
  EXPECT_EQ(d.values_left(), 0);
  EXPECT_FALSE(d.Decode(std::span<bool>(out.get(), 1)).has_value());
}

}  // namespace
}  // namespace floe::parquet
