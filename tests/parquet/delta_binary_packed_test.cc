#include "floe/parquet/delta_binary_packed.h"

#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace floe::parquet {
namespace {

std::string ErrorOf(const Status& s) { return s.has_value() ? "(no error)" : s.error().ToString(); }

template <typename T>
std::vector<T> DecodeAll(ByteView bytes, int64_t n) {
  DeltaBinaryPackedDecoder d(sizeof(T) == 4 ? PhysicalType::kInt32 : PhysicalType::kInt64);
  auto st = d.SetData(n, bytes);
  EXPECT_TRUE(st.has_value()) << st.error().ToString();
  std::vector<T> out(static_cast<size_t>(n));
  st = d.Decode(std::span<T>(out));
  EXPECT_TRUE(st.has_value()) << st.error().ToString();
  return out;
}

// The spec's Example 1 (1, 2, 3, 4, 5) with the block size raised from 8 -- which the spec
// calls invalid in real files -- to 128 in one miniblock: header 128, 1, 5, first value 1;
// block: min delta 1, bit width 0, no data.
TEST(DeltaBinaryPackedTest, SpecExample1) {
  const std::vector<uint8_t> bytes = {0x80, 0x01, 0x01, 0x05, 0x02, 0x02, 0x00};
  EXPECT_EQ(DecodeAll<int32_t>(bytes, 5), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(*DeltaBinaryPackedDecoder::EncodedLength(bytes), bytes.size());
}

// Example 2 (7, 5, 3, 1, 2, 3, 4, 5): deltas -2 -2 -2 1 1 1 1, min delta -2, relative deltas
// 0 0 0 3 3 3 3 on 2 bits, the miniblock padded to its full 128 values (32 bytes).
TEST(DeltaBinaryPackedTest, SpecExample2) {
  std::vector<uint8_t> bytes = {0x80, 0x01, 0x01, 0x08, 0x0e,  // header: 128, 1, 8, zigzag(7)
                                0x03, 0x02,                    // block: zigzag(-2), width 2
                                0xc0, 0x3f};                   // 0,0,0,3 | 3,3,3,(pad)
  bytes.resize(bytes.size() + 30, 0);
  EXPECT_EQ(DecodeAll<int64_t>(bytes, 8), (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(*DeltaBinaryPackedDecoder::EncodedLength(bytes), bytes.size());
}

TEST(DeltaBinaryPackedTest, SpecBlockSizeOf8IsRejected) {
  const std::vector<uint8_t> bytes = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
  DeltaBinaryPackedDecoder d(PhysicalType::kInt32);
  EXPECT_EQ(ErrorOf(d.SetData(5, bytes)),
            "corrupt: DELTA_BINARY_PACKED: block size 8 is not a positive multiple of 128");
  const std::vector<uint8_t> bad_mini = {0x80, 0x01, 0x03, 0x05, 0x02};
  EXPECT_EQ(ErrorOf(d.SetData(5, bad_mini)),
            "corrupt: DELTA_BINARY_PACKED: 3 miniblocks do not split a block of 128 into "
            "multiples of 32");
}

template <typename T>
void RoundTrip(const std::vector<T>& values) {
  constexpr PhysicalType kType = sizeof(T) == 4 ? PhysicalType::kInt32 : PhysicalType::kInt64;
  DeltaBinaryPackedEncoder e(kType);
  ASSERT_TRUE(e.Put(std::span<const T>(values)).has_value());
  size_t estimate = e.EstimatedSize();
  std::vector<uint8_t> bytes = {0xee};  // Flush appends
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  ByteView stream = ByteView(bytes).subspan(1);
  EXPECT_LE(stream.size(), estimate);
  auto length = DeltaBinaryPackedDecoder::EncodedLength(stream);
  ASSERT_TRUE(length.has_value()) << length.error().ToString();
  EXPECT_EQ(*length, stream.size());
  DeltaBinaryPackedDecoder d(kType);
  ASSERT_TRUE(d.SetData(static_cast<int64_t>(values.size()), stream).has_value());
  EXPECT_EQ(d.total_values(), static_cast<int64_t>(values.size()));
  std::vector<T> out(values.size());
  size_t at = 0, step = 1;
  while (at < out.size()) {  // uneven batches, crossing miniblocks and blocks
    size_t k = std::min(step, out.size() - at);
    auto st = d.Decode(std::span<T>(out).subspan(at, k));
    ASSERT_TRUE(st.has_value()) << st.error().ToString();
    at += k;
    step = step * 2 + 1;
  }
  EXPECT_EQ(out, values);
  EXPECT_EQ(d.values_left(), 0);
  EXPECT_FALSE(d.Decode(std::span<T>(out).first(std::min<size_t>(1, out.size()))).has_value() &&
               !out.empty());
}

template <typename T>
void RoundTripShapes() {
  using L = std::numeric_limits<T>;
  std::mt19937_64 rng(42);
  for (size_t n : {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 255, 256, 257, 1000, 4097}) {
    SCOPED_TRACE(n);
    std::vector<T> ascending(n), descending(n), random(n), extremes(n), constant(n, 17), small(n);
    for (size_t i = 0; i < n; ++i) {
      ascending[i] = static_cast<T>(i * 3);
      descending[i] = static_cast<T>(1000 - static_cast<int64_t>(i) * 7);  // negative deltas
      random[i] = static_cast<T>(rng());
      extremes[i] = (i % 3 == 0) ? L::min() : (i % 3 == 1) ? L::max() : T{0};  // overflowing deltas
      small[i] = static_cast<T>(static_cast<int64_t>(rng() % 5) - 2);
    }
    RoundTrip(ascending);
    RoundTrip(descending);
    RoundTrip(random);
    RoundTrip(extremes);
    RoundTrip(constant);
    RoundTrip(small);
  }
  RoundTrip(std::vector<T>{L::max(), L::min()});
  RoundTrip(std::vector<T>{L::min(), L::max(), L::min()});
}

TEST(DeltaBinaryPackedTest, RoundTripsInt32) { RoundTripShapes<int32_t>(); }
TEST(DeltaBinaryPackedTest, RoundTripsInt64) { RoundTripShapes<int64_t>(); }

TEST(DeltaBinaryPackedTest, Int32DeltasNeverNeedMoreThan32Bits) {
  // min, max alternating: every delta overflows int32 but is written wrapped in 32 bits.
  std::vector<int32_t> values;
  for (int i = 0; i < 200; ++i) {
    values.push_back(i % 2 ? std::numeric_limits<int32_t>::max()
                           : std::numeric_limits<int32_t>::min());
  }
  DeltaBinaryPackedEncoder e(PhysicalType::kInt32);
  ASSERT_TRUE(e.Put(std::span<const int32_t>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  // header 5 bytes (128, 4, 200 -> 2 bytes, zigzag(min) -> 5 bytes) ... every width <= 32.
  DeltaBinaryPackedDecoder d(PhysicalType::kInt32);
  ASSERT_TRUE(d.SetData(200, bytes).has_value());
  std::vector<int32_t> out(200);
  ASSERT_TRUE(d.Decode(std::span(out)).has_value());
  EXPECT_EQ(out, values);
  // Whole stream: 2 blocks of 4 miniblocks of 32 values at <= 32 bits, far below 64-bit widths.
  EXPECT_LT(bytes.size(), 2u * (10 + 4) + 200u * 4 + 32);
}

TEST(DeltaBinaryPackedTest, Width64MiniblocksDecode) {
  // INT64 extremes force 64-bit miniblocks.
  std::vector<int64_t> values;
  for (int i = 0; i < 70; ++i) {
    values.push_back(i % 2 ? std::numeric_limits<int64_t>::max()
                           : std::numeric_limits<int64_t>::min() + i);
  }
  DeltaBinaryPackedEncoder e(PhysicalType::kInt64);
  ASSERT_TRUE(e.Put(std::span<const int64_t>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  EXPECT_EQ(DecodeAll<int64_t>(bytes, 70), values);
}

TEST(DeltaBinaryPackedTest, UnusedMiniblockWidthsMayHoldAnything) {
  // 3 values: one block whose first miniblock holds the 2 deltas; the other three widths are
  // garbage (200) as the spec allows, and no bytes follow for them.
  std::vector<uint8_t> bytes = {0x80, 0x01, 0x04, 0x03, 0x00,  // 128, 4, 3, first 0
                                0x02,                          // min delta 1
                                0x01, 200,  200,  200};        // widths
  bytes.resize(bytes.size() + 4, 0);                           // 32 values x 1 bit
  bytes[10] = 0x02;                                            // deltas-min: 0, 1
  EXPECT_EQ(DecodeAll<int32_t>(bytes, 3), (std::vector<int32_t>{0, 1, 3}));
  EXPECT_EQ(*DeltaBinaryPackedDecoder::EncodedLength(bytes), bytes.size());
}

TEST(DeltaBinaryPackedTest, TruncationAndBadWidthsAreCorrupt) {
  std::vector<int64_t> values(300);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i * i) - 5000;
  DeltaBinaryPackedEncoder e(PhysicalType::kInt64);
  ASSERT_TRUE(e.Put(std::span<const int64_t>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  std::vector<int64_t> out(300);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    SCOPED_TRACE(cut);
    DeltaBinaryPackedDecoder d(PhysicalType::kInt64);
    auto st = d.SetData(300, ByteView(bytes).first(cut));
    if (st.has_value()) st = d.Decode(std::span(out));
    if (st.has_value()) {
      // Only the last miniblock's padding was cut: every value is still there.
      EXPECT_EQ(out, values);
    } else {
      EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
    }
    EXPECT_FALSE(DeltaBinaryPackedDecoder::EncodedLength(ByteView(bytes).first(cut)).has_value());
  }
  std::vector<uint8_t> wide = {0x80, 0x01, 0x04, 0x03, 0x00, 0x02, 65, 0, 0, 0};
  wide.resize(wide.size() + 300, 0);
  DeltaBinaryPackedDecoder d(PhysicalType::kInt64);
  ASSERT_TRUE(d.SetData(3, wide).has_value());
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out).first(3))),
            "corrupt: DELTA_BINARY_PACKED: miniblock bit width 65 exceeds 64");
  // Asking for more than the header's count.
  ASSERT_TRUE(d.SetData(10, wide).has_value());
  EXPECT_EQ(d.values_left(), 3);
  EXPECT_EQ(ErrorOf(d.Decode(std::span(out).first(4))),
            "corrupt: DELTA_BINARY_PACKED: 4 values requested, the stream has 3 left");
}

TEST(DeltaBinaryPackedTest, SkipMatchesDecode) {
  std::vector<int32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i * 7919 % 1013);
  DeltaBinaryPackedEncoder e(PhysicalType::kInt32);
  ASSERT_TRUE(e.Put(std::span<const int32_t>(values)).has_value());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(e.Flush(&bytes).has_value());
  DeltaBinaryPackedDecoder d(PhysicalType::kInt32);
  ASSERT_TRUE(d.SetData(1000, bytes).has_value());
  ASSERT_TRUE(d.Skip(1).has_value());
  std::vector<int32_t> out(10);
  ASSERT_TRUE(d.Decode(std::span(out)).has_value());
  EXPECT_EQ(out, std::vector<int32_t>(values.begin() + 1, values.begin() + 11));
  ASSERT_TRUE(d.Skip(500).has_value());
  ASSERT_TRUE(d.Decode(std::span(out)).has_value());
  EXPECT_EQ(out, std::vector<int32_t>(values.begin() + 511, values.begin() + 521));
  EXPECT_EQ(d.values_left(), 1000 - 521);
}

// Requests that end inside a group of 32 (a reader taking the rows a filter kept, skipping the
// others) in every mix of sizes, across miniblocks, blocks and the stream's short last miniblock.
TEST(DeltaBinaryPackedTest, SmallDecodesAndSkipsInAnyMixGiveTheValues) {
  std::mt19937_64 rng(7);
  for (int width : {0, 3, 17, 40, 64}) {
    SCOPED_TRACE(width);
    std::vector<int64_t> values(4101);
    int64_t v = 5;
    for (auto& x : values) {
      x = v;
      const uint64_t r = width == 64 ? rng() : width == 0 ? 0 : rng() % (uint64_t{1} << width);
      v = static_cast<int64_t>(static_cast<uint64_t>(v) + r);
    }
    DeltaBinaryPackedEncoder e(PhysicalType::kInt64);
    ASSERT_TRUE(e.Put(std::span<const int64_t>(values)).has_value());
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(e.Flush(&bytes).has_value());
    for (int trial = 0; trial < 20; ++trial) {
      DeltaBinaryPackedDecoder d(PhysicalType::kInt64);
      ASSERT_TRUE(d.SetData(static_cast<int64_t>(values.size()), bytes).has_value());
      size_t at = 0;
      while (at < values.size()) {
        const size_t k = std::min<size_t>(rng() % 70, values.size() - at);
        if (rng() % 2 == 0) {
          ASSERT_TRUE(d.Skip(static_cast<int64_t>(k)).has_value());
        } else {
          std::vector<int64_t> out(k);
          ASSERT_TRUE(d.Decode(std::span(out)).has_value());
          ASSERT_EQ(out, std::vector<int64_t>(values.begin() + static_cast<std::ptrdiff_t>(at),
                                              values.begin() + static_cast<std::ptrdiff_t>(at + k)))
              << "at " << at;
        }
        at += k;
      }
      EXPECT_EQ(d.values_left(), 0);
    }
  }
}

TEST(DeltaBinaryPackedTest, RandomBytesNeverCrash) {
  std::mt19937 rng(3);
  std::vector<int64_t> out(600);
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes = {0x80, 0x01, static_cast<uint8_t>(1 << (rng() % 3)),
                                  static_cast<uint8_t>(rng() % 128)};
    size_t extra = rng() % 80;
    for (size_t i = 0; i < extra; ++i) bytes.push_back(static_cast<uint8_t>(rng()));
    DeltaBinaryPackedDecoder d(PhysicalType::kInt64);
    if (d.SetData(600, bytes).has_value()) {
      (void)d.Decode(std::span(out).first(static_cast<size_t>(d.values_left())));
    }
    (void)DeltaBinaryPackedDecoder::EncodedLength(bytes);
  }
}

}  // namespace
}  // namespace floe::parquet
