// FileIO: every spelling of a location inside the warehouse reaches the warehouse's store; a
// location outside it reaches the store of its own root, opened once through the opener (so its
// requests are counted where the warehouse's are); a key escape stays an error.
#include "floe/iceberg/file_io.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "floe/io/counting_store.h"
#include "floe/io/local_store.h"
#include "floe/io/store_uri.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

struct Fixture {
  testing::TempDir wh;
  testing::TempDir other;
  std::shared_ptr<io::CountingStore> counted;
  std::vector<std::string> opened;  // roots the opener was asked for
  std::vector<std::shared_ptr<io::CountingStore>> others;
  std::unique_ptr<FileIO> io;

  Fixture() {
    counted = std::make_shared<io::CountingStore>(io::LocalStore::Open(wh.str()).value());
    io = std::make_unique<FileIO>(counted, "file://" + wh.str(),
                                  [this](const std::string& root) -> Result<io::StorePtr> {
                                    opened.push_back(root);
                                    FLOE_ASSIGN_OR_RETURN(io::StorePtr s, io::OpenStore(root));
                                    others.push_back(std::make_shared<io::CountingStore>(s));
                                    return io::StorePtr(others.back());
                                  });
  }
};

std::string Text(const Result<Buffer>& r) {
  return r ? r->ToString() : "<" + r.error().ToString() + ">";
}

TEST(FileIO, EverySpellingInsideTheWarehouseReachesItsStore) {
  Fixture f;
  ASSERT_TRUE(f.io->Write("file://" + f.wh.str() + "/db.db/t/a", AsBytes("A")).has_value());
  for (const std::string& loc :
       {"file:" + f.wh.str() + "/db.db/t/a", "file://" + f.wh.str() + "/db.db/t/a",
        f.wh.str() + "/db.db/t/a"}) {
    EXPECT_EQ(Text(f.io->Read(loc)), "A") << loc;
    EXPECT_EQ(f.io->KeyOf(loc).value(), "db.db/t/a");
    auto o = f.io->Resolve(loc).value();
    EXPECT_EQ(o.store.get(), f.counted.get());
    EXPECT_EQ(o.LocationOf(o.key), "file://" + f.wh.str() + "/db.db/t/a");
  }
  EXPECT_TRUE(f.opened.empty());
  EXPECT_EQ(f.counted->Snapshot().get, 3u);
}

TEST(FileIO, ALocationOutsideTheWarehouseIsReadThroughItsRootsStoreAndCounted) {
  Fixture f;
  ASSERT_TRUE(io::LocalStore::Open(f.other.str()).value()->Put("t/data/x", AsBytes("X")));
  const std::string hadoop = "file:" + f.other.str() + "/t/data/x";
  EXPECT_EQ(Text(f.io->Read(hadoop)), "X");
  EXPECT_EQ(Text(f.io->ReadMetadata(f.other.str() + "/t/data/x")), "X");  // a cache miss: new key
  EXPECT_EQ(f.opened, std::vector<std::string>{"file:///"});  // opened once, for both reads
  ASSERT_EQ(f.others.size(), 1u);
  EXPECT_EQ(f.others[0]->Snapshot().get, 2u);
  EXPECT_EQ(f.others[0]->Snapshot().bytes_read, 2u);
  EXPECT_EQ(f.counted->Snapshot().total(), 0u);
  // The canonical spelling is what the metadata cache keeps: another spelling is a hit.
  EXPECT_EQ(Text(f.io->ReadMetadata("file://" + f.other.str() + "/t/data/x")), "X");
  EXPECT_EQ(f.others[0]->Snapshot().get, 2u);
  auto all = f.io->ReadMetadataAll({hadoop, "file://" + f.wh.str() + "/missing"}, 4);
  EXPECT_EQ(Text(all[0]), "X");
  EXPECT_FALSE(all[1].has_value());
  EXPECT_EQ(f.counted->Snapshot().get, 1u);
}

TEST(FileIO, AKeyEscapeInALocationStaysAnError) {
  Fixture f;
  auto inside = f.io->Read("file://" + f.wh.str() + "/db.db/../../etc/passwd");
  ASSERT_FALSE(inside.has_value());
  EXPECT_NE(inside.error().message.find("'..'"), std::string::npos) << inside.error().ToString();
  auto outside = f.io->Read("file:/etc/../etc/passwd");
  ASSERT_FALSE(outside.has_value());
  EXPECT_NE(outside.error().message.find("'..'"), std::string::npos) << outside.error().ToString();
  EXPECT_EQ(f.others.empty() ? 0u : f.others[0]->Snapshot().get, 0u);
}

TEST(FileIO, AnUnreachableSchemeIsAnErrorNamingTheLocation) {
  Fixture f;
  EXPECT_EQ(f.io->Read("gs://b/t/x").error().ToString(),
            "invalid input: location 'gs://b/t/x' has scheme 'gs', which floe cannot reach (file, "
            "s3, mem)");
  EXPECT_EQ(f.io->KeyOf("file:/elsewhere/x").error().ToString(),
            "invalid input: location 'file:/elsewhere/x' is outside the warehouse 'file://" +
                f.wh.str() + "'");
}

}  // namespace
}  // namespace floe::iceberg
