// Table metadata written gzip-compressed (write.metadata.compression-codec=gzip, as Spark names
// it "*.gz.metadata.json") reads as the plain JSON does; a corrupt one is an error naming it.
#include "floe/iceberg/decoded_metadata.h"

#include <gtest/gtest.h>

#include "floe/iceberg/metadata_cache.h"
#include "floe/iceberg/table.h"
#include "floe/io/mem_store.h"
#include "floe/parquet/compression.h"

namespace floe::iceberg {
namespace {

std::vector<uint8_t> Gzip(std::string_view text) {
  auto codec = parquet::MakeCodec(parquet::CompressionCodec::kGzip).value();
  return codec->Compress(AsBytes(text)).value();
}

TEST(DecodedMetadata, GzipTableMetadataReadsAsTheJsonItHolds) {
  Schema s(0, {{1, "id", true, Primitive(TypeId::kLong)}});
  TableMetadata m = NewTableMetadata(s, {}, {}, "s3://b/w/db.db/t",
                                     {{"write.metadata.compression-codec", "gzip"}});
  const std::string json = m.ToJson().dump();
  const std::string at = "mem://gzip-metadata/db.db/t/metadata/00000-x.gz.metadata.json";
  auto zipped = Gzip(json);
  MetadataCache bytes;
  DecodedMetadataCache decoded(&bytes);
  auto direct = decoded.DecodeTableMetadata(Buffer(zipped), at);
  ASSERT_TRUE(direct.has_value()) << direct.error().ToString();
  EXPECT_EQ((*direct)->ToJson().dump(), json);

  auto store = io::MemStore::Open("gzip-metadata", "").value();
  ASSERT_TRUE(store->Put("db.db/t/metadata/00000-x.gz.metadata.json", zipped));
  FileIO fio(store, "mem://gzip-metadata");
  auto t = LoadStaticTable(fio, at);
  ASSERT_TRUE(t.has_value()) << t.error().ToString();
  EXPECT_EQ(t->metadata.location, "s3://b/w/db.db/t");
  EXPECT_EQ(t->metadata.table_uuid, m.table_uuid);
}

TEST(DecodedMetadata, CorruptGzipMetadataIsAnErrorNamingTheFile) {
  const std::string at = "s3://b/t/metadata/00001-y.gz.metadata.json";
  auto zipped = Gzip(std::string(200, '{'));
  MetadataCache bytes;
  DecodedMetadataCache decoded(&bytes);
  std::vector<uint8_t> bad_size = zipped;
  bad_size[bad_size.size() - 1] = 0x7f;  // ISIZE of 2 GiB from a few bytes
  EXPECT_EQ(decoded.DecodeTableMetadata(Buffer(bad_size), at).error().ToString(),
            fmt::format("corrupt: gzip table metadata '{}' claims {} bytes, more than {} "
                        "compressed bytes hold",
                        at, (uint64_t{0x7f} << 24) | 200, bad_size.size()));
  std::vector<uint8_t> truncated(zipped.begin(), zipped.begin() + 12);
  EXPECT_EQ(decoded.DecodeTableMetadata(Buffer(truncated), at).error().ToString(),
            "corrupt: gzip table metadata '" + at + "' is truncated");
  std::vector<uint8_t> flipped = zipped;
  flipped[12] ^= 0xff;
  auto r = decoded.DecodeTableMetadata(Buffer(flipped), at);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().message.starts_with("gzip table metadata '" + at + "': "))
      << r.error().ToString();
}

}  // namespace
}  // namespace floe::iceberg
