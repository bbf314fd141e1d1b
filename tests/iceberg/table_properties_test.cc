#include "floe/iceberg/table_properties.h"

#include <gtest/gtest.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/table.h"
#include "floe/io/local_store.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

std::string ErrorOf(std::string_view key, std::string_view value) {
  auto s = ValidateTableProperty(key, value);
  return s ? "" : s.error().message;
}

TEST(TableProperties, EachKindIsParsedAndRangeChecked) {
  EXPECT_EQ(ErrorOf("write.target-file-size-bytes", "2097152"), "");
  EXPECT_EQ(ErrorOf("write.target-file-size-bytes", "0"),
            "table property write.target-file-size-bytes = '0': expected an integer of at least 1");
  EXPECT_EQ(ErrorOf("write.target-file-size-bytes", "2MB"),
            "table property write.target-file-size-bytes = '2MB': expected an integer of at "
            "least 1");
  EXPECT_EQ(ErrorOf("write.target-file-size-bytes", "99999999999999999999"),
            "table property write.target-file-size-bytes = '99999999999999999999': expected an "
            "integer of at least 1");
  EXPECT_EQ(ErrorOf("commit.retry.min-wait-ms", "-100"),
            "table property commit.retry.min-wait-ms = '-100': expected an integer from 0 to "
            "3600000");
  EXPECT_EQ(ErrorOf("write.metadata.previous-versions-max", "-1"),
            "table property write.metadata.previous-versions-max = '-1': expected an integer from "
            "0 to 2147483647");
  EXPECT_EQ(ErrorOf("write.parquet.bloom-filter-fpp.column.id", "0.05"), "");
  EXPECT_EQ(ErrorOf("write.parquet.bloom-filter-fpp.column.id", "abc"),
            "table property write.parquet.bloom-filter-fpp.column.id = 'abc': expected a number "
            "between 0 and 1, e.g. 0.01");
  EXPECT_EQ(ErrorOf("write.parquet.bloom-filter-fpp.column.id", "1"),
            "table property write.parquet.bloom-filter-fpp.column.id = '1': expected a number "
            "between 0 and 1, e.g. 0.01");
  EXPECT_EQ(ErrorOf("write.parquet.bloom-filter-enabled.column.id", "yes"),
            "table property write.parquet.bloom-filter-enabled.column.id = 'yes': expected true "
            "or false");
  EXPECT_EQ(ErrorOf("write.parquet.compression-codec", "ZSTD"), "");
  EXPECT_EQ(ErrorOf("write.parquet.compression-codec", "lzo"),
            "table property write.parquet.compression-codec = 'lzo': expected one of zstd, "
            "snappy, gzip, lz4, brotli, uncompressed");
  EXPECT_EQ(ErrorOf("write.metadata.metrics.column.x", "truncate(0)"),
            "table property write.metadata.metrics.column.x = 'truncate(0)': expected none, "
            "counts, truncate(N) or full");
  // Properties floe does not read are other engines' business.
  EXPECT_EQ(ErrorOf("spark.sql.something", "-1"), "");
  EXPECT_EQ(ErrorOf("write.parquet.bloom-filter-fpp.column.", "abc"), "");
}

// A bad value set by another engine (here written into the metadata directly) makes every write
// fail with the one-line error, where it aborted appends (std::stod) or made a commit sleep for
// 2.3e18 ms; reads still work.
TEST(TableProperties, WritesToATableWithABadPropertyFailNamingIt) {
  testing::TempDir dir;
  auto store = io::LocalStore::Open(dir.str()).value();
  auto cat = catalog::SqlCatalog::Open(dir.str() + "/catalog.db").value();
  FileIO io(store, "file://" + dir.str());
  auto id = catalog::TableIdentifier::Parse("db.t").value();
  Schema s(0, {NestedField{1, "id", true, Primitive(TypeId::kLong)}});
  Table t = CreateTable(*cat, io, id, {s, {}, {}, {}, ""}).value();
  for (auto [key, value] : {std::pair{"write.parquet.bloom-filter-fpp.column.id", "abc"},
                            std::pair{"commit.retry.min-wait-ms", "-100"}}) {
    Table cur = LoadTable(*cat, io, id).value();
    TableMetadata m = cur.metadata;
    m.properties = {{key, value}};
    std::string next = NewMetadataLocation(m.location, MetadataVersion(cur.metadata_location) + 1);
    ASSERT_TRUE(io.WriteIfAbsent(next, AsBytes(m.ToJson().dump())));
    ASSERT_TRUE(cat->CommitTable(id, cur.metadata_location, next));

    Table bad = LoadTable(*cat, io, id).value();  // reading is unaffected
    auto written = ParquetOptionsFor(bad.metadata);
    auto committed = AppendFiles(*cat, io, id, {});
    const std::string want = fmt::format("table property {} = '{}': expected ", key, value);
    if (std::string_view(key).starts_with("write.")) {
      ASSERT_FALSE(written);
      EXPECT_TRUE(written.error().message.starts_with(want)) << written.error().message;
    }
    ASSERT_FALSE(committed);
    EXPECT_TRUE(committed.error().message.starts_with(want)) << committed.error().message;
    EXPECT_EQ(LoadTable(*cat, io, id).value().metadata_location, bad.metadata_location);
  }
}

}  // namespace
}  // namespace floe::iceberg
