// OpenWarehouse: a warehouse opened to read must exist, and nothing is created when it does not;
// an s3:// warehouse names its catalog.
#include "floe/iceberg/warehouse.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

std::string Open(const std::string& uri, const std::string& catalog, bool create) {
  WarehouseOptions o;
  o.uri = uri;
  o.catalog = catalog;
  o.create_if_missing = create;
  auto w = OpenWarehouse(o);
  return w ? "ok " + w->catalog_path : w.error().ToString();
}

TEST(Warehouse, AMissingWarehouseOpenedToReadIsAnErrorAndIsNotCreated) {
  testing::TempDir dir;
  const std::string wh = dir.str() + "/typo/wh";
  EXPECT_EQ(Open(wh, "", false), "not found: warehouse '" + wh + "' does not exist");
  EXPECT_FALSE(fs::exists(dir.str() + "/typo"));
  fs::create_directories(wh);
  EXPECT_EQ(Open(wh, "", false), "not found: warehouse '" + wh + "' has no catalog: '" + wh +
                                     "/catalog.db' does not exist");
  EXPECT_TRUE(fs::is_empty(wh));
  const std::string cat = "sqlite:" + dir.str() + "/missing/cat.db";
  EXPECT_EQ(Open(wh, cat, false), "not found: catalog '" + cat + "' does not exist");
  EXPECT_FALSE(fs::exists(dir.str() + "/missing"));
  std::ofstream(dir.str() + "/empty.db").close();
  EXPECT_EQ(Open(wh, "sqlite:" + dir.str() + "/empty.db", false),
            "invalid input: '" + dir.str() +
                "/empty.db' is not an Iceberg SQL catalog: it has no iceberg_tables table");
  EXPECT_EQ(fs::file_size(dir.str() + "/empty.db"), 0u);
  EXPECT_TRUE(fs::is_empty(wh));
}

TEST(Warehouse, AWarehouseToWriteIsCreatedAndThenOpensToRead) {
  testing::TempDir dir;
  const std::string wh = dir.str() + "/new/wh";
  EXPECT_EQ(Open(wh, "", true), "ok " + wh + "/catalog.db");
  EXPECT_TRUE(fs::exists(wh + "/catalog.db"));
  EXPECT_EQ(Open(wh, "", false), "ok " + wh + "/catalog.db");
  EXPECT_EQ(Open("file://" + wh, "sqlite://" + wh + "/catalog.db", false),
            "ok " + wh + "/catalog.db");
}

TEST(Warehouse, AnS3WarehouseNeedsItsCatalogNamed) {
  EXPECT_EQ(Open("s3://bucket/wh", "", true),
            "invalid input: warehouse 's3://bucket/wh' needs --catalog sqlite:PATH (or "
            "FLOE_CATALOG): an s3:// warehouse keeps its tables' registry in a SQLite file of your "
            "choosing, and floe does not guess one");
  EXPECT_FALSE(fs::exists("catalog.db"));
}

}  // namespace
}  // namespace floe::iceberg
