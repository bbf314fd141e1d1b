// An s3:// warehouse on the real S3 server ctest starts: its catalog is the one named, never a
// file of the working directory; a table whose location is in another bucket is written and read
// through the same decorators as the warehouse's own store.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_reader.h"
#include "floe/iceberg/warehouse.h"
#include "floe/io/counting_store.h"
#include "iceberg/maintenance_fixture.h"
#include "support/s3_env.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

using testing_support::DimensionBatch;
using testing_support::DimensionSchema;

struct Counted {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<io::CountingStore>> by_uri;
  std::shared_ptr<io::CountingStore> Of(const std::string& uri) {
    std::lock_guard lock(mu);
    return by_uri.contains(uri) ? by_uri[uri] : nullptr;
  }
};

std::vector<int64_t> Ids(const Warehouse& w, const catalog::TableIdentifier& id) {
  Table t = LoadTable(*w.catalog, *w.io, id).value();
  auto plan = PlanFiles(t, *w.io, {});
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  std::vector<int64_t> ids;
  for (const auto& task : plan->tasks) {
    auto batches = ReadTask(task, t.metadata.CurrentSchema(), *w.io);
    EXPECT_TRUE(batches.has_value()) << batches.error().ToString();
    for (const auto& b : *batches) {
      for (int64_t r = 0; r < b.num_rows; ++r) ids.push_back(b.columns[0]->Value<int64_t>(r));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(S3Warehouse, TheCatalogIsTheOneNamedAndATableInAnotherBucketIsReadThroughTheDecorators) {
  testing::S3TestEnv env, other;
  if (!env.available()) GTEST_SKIP() << "FLOE_S3_ENV is not set: run through ctest";
  ASSERT_TRUE(env.Store());
  ASSERT_TRUE(other.Store());
  testing::TempDir dir;
  const std::string uri = "s3://" + env.bucket() + "/wh";

  // No catalog named: refused, and no catalog.db appears in the working directory.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  WarehouseOptions o;
  o.uri = uri;
  o.s3 = env.Options();
  auto refused = OpenWarehouse(o);
  std::filesystem::current_path(cwd);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().ToString(),
            "invalid input: warehouse '" + uri +
                "' needs --catalog sqlite:PATH (or FLOE_CATALOG): an s3:// warehouse keeps its "
                "tables' registry in a SQLite file of your choosing, and floe does not guess one");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));

  Counted counted;
  o.catalog = "sqlite:" + dir.str() + "/cat.db";
  o.decorate = [&](io::StorePtr s) -> Result<io::StorePtr> {
    auto c = std::make_shared<io::CountingStore>(std::move(s));
    std::lock_guard lock(counted.mu);
    counted.by_uri[c->Uri()] = c;
    return io::StorePtr(c);
  };
  o.create_if_missing = false;
  EXPECT_EQ(OpenWarehouse(o).error().ToString(),
            "not found: catalog 'sqlite:" + dir.str() + "/cat.db' does not exist");
  o.create_if_missing = true;
  Warehouse w = OpenWarehouse(o).value();

  const catalog::TableIdentifier here{{"db"}, "t"}, there{{"db"}, "far"};
  CreateTableOptions co{DimensionSchema(), {}, {}, {}, ""};
  Table t = CreateTable(*w.catalog, *w.io, here, co).value();
  EXPECT_EQ(t.metadata.location, uri + "/db.db/t");
  co.location = "s3a://" + other.bucket() + "/elsewhere/far";
  Table far = CreateTable(*w.catalog, *w.io, there, co).value();
  for (const auto& [id, table, ids] : {std::tuple{here, t, std::vector<int64_t>{1, 2}},
                                       std::tuple{there, far, std::vector<int64_t>{3}}}) {
    TableDataWriter writer(table, *w.io);
    ASSERT_TRUE(writer.Write(DimensionBatch(ids)).has_value());
    auto files = writer.Finish();
    ASSERT_TRUE(files.has_value()) << files.error().ToString();
    ASSERT_TRUE(AppendFiles(*w.catalog, *w.io, id, *files).has_value());
  }
  EXPECT_EQ(Ids(w, here), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Ids(w, there), (std::vector<int64_t>{3}));

  auto mine = counted.Of(uri);
  auto theirs = counted.Of("s3://" + other.bucket());
  ASSERT_TRUE(mine && theirs);
  // Every file of the far table is in the other bucket, and was moved through its counter.
  auto listed = other.Store()->ListAll("elsewhere/far/").value();
  EXPECT_EQ(listed.size(), 5u);  // two metadata files, manifest list, manifest, data file
  EXPECT_TRUE(env.Store()->ListAll("elsewhere/").value().empty());
  EXPECT_GE(theirs->Snapshot().put, 4u);
  mine->Reset();
  theirs->Reset();
  Table loaded = LoadTable(*w.catalog, *w.io, there).value();  // the metadata cache is warm
  auto bytes = w.io->Read(loaded.metadata_location);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().ToString();
  EXPECT_EQ(theirs->Snapshot().get, 1u);
  EXPECT_EQ(mine->Snapshot().total(), 0u);
  // A catalog is opened to read by name from anywhere, and holds both tables.
  o.create_if_missing = false;
  Warehouse again = OpenWarehouse(o).value();
  EXPECT_EQ(Ids(again, there), (std::vector<int64_t>{3}));
}

}  // namespace
}  // namespace floe::iceberg
