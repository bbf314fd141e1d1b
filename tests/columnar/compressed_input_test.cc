#include "floe/columnar/compressed_input.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include "floe/columnar/csv_reader.h"

namespace floe::columnar {
namespace {

std::string Gzip(std::string_view s) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, s.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(std::string_view s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// Text large enough to take several output chunks.
std::string Big() {
  std::string s = "id,name\n";
  for (int i = 0; i < 200000; ++i) s += std::to_string(i) + ",name" + std::to_string(i % 97) + "\n";
  return s;
}

TEST(CompressedInput, GzipAndZstdRoundTripByMagicOrName) {
  const std::string text = Big();
  for (const std::string& packed : {Gzip(text), Zstd(text)}) {
    auto out = DecompressInput(Buffer::FromString(packed), "x.csv");  // known by its magic
    ASSERT_TRUE(out) << out.error().ToString();
    EXPECT_EQ(out->string_view(), text);
  }
  // Two gzip members back to back, as `cat a.gz b.gz` makes.
  auto two = DecompressInput(Buffer::FromString(Gzip("a,b\n") + Gzip("1,2\n")), "t.csv.gz");
  ASSERT_TRUE(two) << two.error().ToString();
  EXPECT_EQ(two->string_view(), "a,b\n1,2\n");
  // Not compressed: the same bytes.
  auto plain = DecompressInput(Buffer::FromString("a\n1\n"), "p.csv");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->string_view(), "a\n1\n");
  EXPECT_EQ(WithoutCompressionSuffix("a.csv.gz"), "a.csv");
  EXPECT_EQ(WithoutCompressionSuffix("a.ndjson.zst"), "a.ndjson");
}

TEST(CompressedInput, ThenReadAsCsv) {
  Schema t;
  t.fields = {{"id", Int64(), true}, {"name", String(), true}};
  auto bytes = DecompressInput(Buffer::FromString(Zstd(Big())), "big.csv.zst");
  ASSERT_TRUE(bytes);
  auto b = ReadCsvAs(bytes->string_view(), t, "big.csv.zst");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(b->num_rows, 200000);
  EXPECT_EQ(b->columns[0]->Value<int64_t>(199999), 199999);
}

TEST(CompressedInput, CorruptOrTruncatedIsOneErrorNamingTheFile) {
  const std::string gz = Gzip(Big());
  auto r = DecompressInput(Buffer::FromString(gz.substr(0, gz.size() / 2)), "t.csv.gz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "t.csv.gz: the gzip stream is truncated");
  std::string bad = gz;
  bad[20] ^= 0x55;
  bad[21] ^= 0x55;
  r = DecompressInput(Buffer::FromString(bad), "c.csv.gz");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().message.starts_with("c.csv.gz: the gzip stream is corrupt ("))
      << r.error().message;
  const std::string zs = Zstd(Big());
  r = DecompressInput(Buffer::FromString(zs.substr(0, zs.size() - 10)), "t.csv.zst");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "t.csv.zst: the zstd stream is truncated");
  r = DecompressInput(Buffer::FromString(std::string("\x28\xb5\x2f\xfd") + "garbage!"), "g.zst");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().message.starts_with("g.zst: the zstd stream is corrupt ("))
      << r.error().message;
  r = DecompressInput(Buffer::FromString(""), "empty.csv.gz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "empty.csv.gz: the gzip stream is truncated");
}

}  // namespace
}  // namespace floe::columnar
