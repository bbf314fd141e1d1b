// FileIO: every spelling of a location inside the warehouse reaches the warehouse's store; a
// location outside it reaches the store of its own root, opened once through the opener (so its
// requests are counted where the warehouse's are); a key escape stays an error.
#include "floe/iceberg/file_io.h"

#include <gtest/gtest.h>

#include <chrono>
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
  std::vector<std::string> opened;                             // roots the opener was asked for
  std::vector<std::map<std::string, std::string>> properties;  // and the properties, each time
  std::vector<std::shared_ptr<io::CountingStore>> others;
  std::unique_ptr<FileIO> io;

  Fixture() {
    counted = std::make_shared<io::CountingStore>(io::LocalStore::Open(wh.str()).value());
    io = std::make_unique<FileIO>(
        counted, "file://" + wh.str(),
        [this](const std::string& root,
               const std::map<std::string, std::string>& props) -> Result<io::StorePtr> {
          properties.push_back(props);
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

catalog::StorageCredential Credential(std::string prefix, std::string key, int64_t expires = 0) {
  catalog::StorageCredential c{std::move(prefix),
                               {{"s3.access-key-id", key}, {"s3.secret-access-key", "s-" + key}}};
  if (expires != 0) c.config["s3.session-token-expires-at-ms"] = std::to_string(expires);
  return c;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(FileIO, VendedCredentialsReachTheirPrefixTheLongestMatchWinning) {
  Fixture f;
  auto other = io::LocalStore::Open(f.other.str()).value();
  ASSERT_TRUE(other->Put("t1/x", AsBytes("1")));
  ASSERT_TRUE(other->Put("t2/x", AsBytes("2")));
  ASSERT_TRUE(other->Put("t10/x", AsBytes("10")));
  ASSERT_TRUE(f.io->Write("file://" + f.wh.str() + "/db.db/t/x", AsBytes("W")).has_value());
  ASSERT_TRUE(f.io->Write("file://" + f.wh.str() + "/db.db/u/x", AsBytes("U")).has_value());
  const std::string o = "file://" + f.other.str();
  f.io->UseCredentials({Credential(o + "/t1/", "A"), Credential(o, "B"),
                        Credential("file:" + f.wh.str() + "/db.db/t", "A")},
                       nullptr);
  EXPECT_EQ(Text(f.io->Read(o + "/t1/x")), "1");
  EXPECT_EQ(Text(f.io->Read(o + "/t2/x")), "2");
  // Any spelling of a location finds its credential; a prefix is a directory: "t1" does not
  // reach "t10".
  EXPECT_EQ(Text(f.io->Read(f.other.str() + "/t1/x")), "1");
  EXPECT_EQ(Text(f.io->Read(o + "/t10/x")), "10");
  // Inside the warehouse, the table's vended credential wins over the warehouse's store; the
  // same properties for the same root share one store.
  EXPECT_EQ(Text(f.io->Read("file://" + f.wh.str() + "/db.db/t/x")), "W");
  EXPECT_EQ(Text(f.io->Read("file://" + f.wh.str() + "/db.db/u/x")), "U");
  ASSERT_EQ(f.properties.size(), 2u);
  EXPECT_EQ(f.properties[0].at("s3.access-key-id"), "A");
  EXPECT_EQ(f.properties[1].at("s3.access-key-id"), "B");
  EXPECT_EQ(f.opened, (std::vector<std::string>{"file:///", "file:///"}));
  EXPECT_EQ(f.others[0]->Snapshot().get, 3u);  // t1/x twice, the warehouse's t/x
  EXPECT_EQ(f.others[1]->Snapshot().get, 2u);  // t2/x, t10/x
  EXPECT_EQ(f.counted->Snapshot().get, 1u);    // u/x: no credential reaches it
  // A credential for a prefix already held replaces it.
  f.io->UseCredentials({Credential(o + "/t1", "C")}, nullptr);
  EXPECT_EQ(Text(f.io->Read(o + "/t1/x")), "1");
  ASSERT_EQ(f.properties.size(), 3u);
  EXPECT_EQ(f.properties[2].at("s3.access-key-id"), "C");
}

TEST(FileIO, ABareSchemePrefixReachesEveryLocationOfItsScheme) {
  Fixture f;
  ASSERT_TRUE(io::LocalStore::Open(f.other.str()).value()->Put("x", AsBytes("X")));
  f.io->UseCredentials({Credential("file", "A")}, nullptr);
  EXPECT_EQ(Text(f.io->Read("file:" + f.other.str() + "/x")), "X");
  ASSERT_EQ(f.properties.size(), 1u);
  EXPECT_EQ(f.properties[0].at("s3.access-key-id"), "A");
}

TEST(FileIO, ExpiringCredentialsAreRenewedOnceBeforeUse) {
  Fixture f;
  ASSERT_TRUE(io::LocalStore::Open(f.other.str()).value()->Put("t/x", AsBytes("X")));
  const std::string t = "file://" + f.other.str() + "/t";
  int renewals = 0;
  // Expiring in 30 s: within the minute's margin, so renewed before the first read.
  f.io->UseCredentials({Credential(t, "OLD", NowMs() + 30'000)},
                       [&]() -> Result<std::vector<catalog::StorageCredential>> {
                         ++renewals;
                         return std::vector{Credential(t, "NEW", NowMs() + 3'600'000)};
                       });
  EXPECT_EQ(Text(f.io->Read(t + "/x")), "X");
  EXPECT_EQ(Text(f.io->Read(t + "/x")), "X");
  EXPECT_EQ(renewals, 1);
  ASSERT_EQ(f.properties.size(), 1u);
  EXPECT_EQ(f.properties[0].at("s3.access-key-id"), "NEW");
}

TEST(FileIO, ACredentialThatCannotBeRenewedIsAnErrorNamingItsPrefix) {
  Fixture f;
  const std::string t = "file://" + f.other.str() + "/t";
  f.io->UseCredentials({Credential(t + "/", "OLD", NowMs() - 1)},
                       []() -> Result<std::vector<catalog::StorageCredential>> {
                         return Unsupported("the service is gone");
                       });
  EXPECT_EQ(
      f.io->Read(t + "/x").error().ToString(),
      "unsupported: cannot renew the storage credentials for '" + t + "/': the service is gone");
  EXPECT_TRUE(f.opened.empty());
  // Without a way to renew them, expired credentials are used as they are: the store decides.
  ASSERT_TRUE(io::LocalStore::Open(f.other.str()).value()->Put("u/x", AsBytes("U")));
  f.io->UseCredentials({Credential("file://" + f.other.str() + "/u", "OLD", NowMs() - 1)}, nullptr);
  EXPECT_EQ(Text(f.io->Read("file://" + f.other.str() + "/u/x")), "U");
}

}  // namespace
}  // namespace floe::iceberg
