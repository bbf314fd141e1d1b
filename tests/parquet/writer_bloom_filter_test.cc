#include "floe/parquet/bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "floe/parquet/bloom_filter_header.h"
#include "parquet/parquet_test_util.h"

namespace floe::parquet {
namespace {

using testing::DataFile;
using testing::ReadFileBytes;

TEST(WriterBloomFilterTest, HashIsXxh64WithSeedZeroOfThePlainBytes) {
  // XXH64 reference values (seed 0).
  EXPECT_EQ(BloomFilter::Hash(std::string_view()), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(BloomFilter::Hash(std::string_view("bloom")), 0x50c8fb9e62dbc53cull);
  EXPECT_EQ(BloomFilter::Hash(std::string_view("filter")), 0x2a5736cdfcd7a9a1ull);
  // Numbers hash as their little-endian PLAIN bytes.
  const int64_t v64 = 42;
  const int32_t v32 = 42;
  EXPECT_EQ(BloomFilter::Hash(v64),
            BloomFilter::Hash(std::string_view(reinterpret_cast<const char*>(&v64), 8)));
  EXPECT_EQ(BloomFilter::Hash(v32),
            BloomFilter::Hash(std::string_view(reinterpret_cast<const char*>(&v32), 4)));
  const double d = 1.5;
  EXPECT_EQ(BloomFilter::Hash(d),
            BloomFilter::Hash(std::string_view(reinterpret_cast<const char*>(&d), 8)));
}

TEST(WriterBloomFilterTest, ReadsTheParquetMrFilterOfTheCorpus) {
  // parquet-testing's bloom_filter.xxhash.bin: parquet-mr's 1024-byte filter holding "hello",
  // "parquet", "bloom" and "filter" (as Arrow's and arrow-rs' tests describe it).
  auto bytes = ReadFileBytes(DataFile("bloom_filter.xxhash.bin"));
  ASSERT_EQ(bytes.size(), 1040u);
  auto filter = BloomFilter::Parse(bytes);
  ASSERT_TRUE(filter.has_value()) << filter.error().ToString();
  EXPECT_EQ(filter->num_bytes(), 1024);
  for (std::string_view v : {"hello", "parquet", "bloom", "filter"}) {
    EXPECT_TRUE(filter->MightContain(BloomFilter::Hash(v))) << v;
  }
  int passed = 0;
  for (int i = 0; i < 1000; ++i) {
    passed += filter->MightContain(BloomFilter::Hash("absent-" + std::to_string(i))) ? 1 : 0;
  }
  EXPECT_LT(passed, 20);  // four values in 32 blocks: almost everything else is excluded
  // Our serialisation of the same filter is byte for byte what parquet-mr wrote.
  auto again = filter->Serialize();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, bytes);
}

TEST(WriterBloomFilterTest, SetsOneBitPerWordOfTheBlockTheHighHalfPicks) {
  BloomFilter f(32 * 4);  // four blocks
  // High half 0x80000000 of four blocks: block (0x80000000 * 4) >> 32 = 2.
  const uint64_t hash = (uint64_t{0x80000000} << 32) | 0x12345678u;
  f.InsertHash(hash);
  auto bytes = f.Serialize();
  ASSERT_TRUE(bytes.has_value());
  size_t header = bytes->size() - 128;
  static constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                        0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
  for (int block = 0; block < 4; ++block) {
    for (int w = 0; w < 8; ++w) {
      uint32_t word;
      std::memcpy(&word, bytes->data() + header + block * 32 + w * 4, 4);
      const uint32_t want = block == 2 ? uint32_t{1} << ((0x12345678u * kSalt[w]) >> 27) : 0;
      EXPECT_EQ(word, want) << "block " << block << " word " << w;
    }
  }
  EXPECT_TRUE(f.MightContain(hash));
  EXPECT_FALSE(f.MightContain(hash ^ 1));
}

TEST(WriterBloomFilterTest, SizingFollowsTheSpecFormula) {
  // Bits per value = -8 / ln(1 - p^(1/8)): about 9.7 at 1%; rounded up to a power of two.
  EXPECT_EQ(BloomFilter::OptimalNumBytes(0, 0.01, 1 << 20), 32);
  EXPECT_EQ(BloomFilter::OptimalNumBytes(1, 0.01, 1 << 20), 32);
  EXPECT_EQ(BloomFilter::OptimalNumBytes(100, 0.01, 1 << 20), 128);           // 121 bytes
  EXPECT_EQ(BloomFilter::OptimalNumBytes(10000, 0.01, 1 << 20), 16384);       // 12.1 KB
  EXPECT_EQ(BloomFilter::OptimalNumBytes(100000, 0.01, 1 << 20), 131072);     // 121 KB
  EXPECT_EQ(BloomFilter::OptimalNumBytes(10000000, 0.01, 1 << 20), 1 << 20);  // capped
  EXPECT_EQ(BloomFilter::OptimalNumBytes(10000000, 0.01, 1000000), 524288);   // cap rounded down
  EXPECT_LT(BloomFilter::OptimalNumBytes(10000, 0.1, 1 << 20),
            BloomFilter::OptimalNumBytes(10000, 0.001, 1 << 20));
}

TEST(WriterBloomFilterTest, NoFalseNegativesAndAboutTheFalsePositiveRateAskedFor) {
  const int64_t ndv = 20000;
  BloomFilter f(BloomFilter::OptimalNumBytes(ndv, 0.01, 1 << 20));
  for (int64_t i = 0; i < ndv; ++i) f.InsertHash(BloomFilter::Hash(i * 3));
  auto bytes = f.Serialize();
  ASSERT_TRUE(bytes.has_value());
  auto parsed = BloomFilter::Parse(*bytes);
  ASSERT_TRUE(parsed.has_value());
  for (int64_t i = 0; i < ndv; ++i) ASSERT_TRUE(parsed->MightContain(BloomFilter::Hash(i * 3)));
  int passed = 0;
  const int trials = 100000;
  for (int64_t i = 0; i < trials; ++i) passed += parsed->MightContain(BloomFilter::Hash(i * 3 + 1));
  // Rounding up to a power of two makes the filter roomier than asked: at most the 1% target.
  EXPECT_LT(static_cast<double>(passed) / trials, 0.01);
}

TEST(WriterBloomFilterTest, ParseRejectsBadInput) {
  BloomFilter f(64);
  auto bytes = f.Serialize();
  ASSERT_TRUE(bytes.has_value());
  auto cut = BloomFilter::Parse(ByteView(*bytes).first(bytes->size() - 1));
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(cut.error().message.find("63 follow it"), std::string::npos) << cut.error().message;
  // A header whose algorithm floe does not know: usable() is false.
  BloomFilterHeader h;
  h.num_bytes = 32;
  h.hash = BloomFilterHeader::Hash::kUnrecognized;
  auto header = SerializeBloomFilterHeader(h);
  ASSERT_TRUE(header.has_value());
  header->resize(header->size() + 32, 0);
  auto unknown = BloomFilter::Parse(*header);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kUnsupported);
}

}  // namespace
}  // namespace floe::parquet
