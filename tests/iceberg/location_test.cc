// Location: the spellings engines write for one file compare equal; what is not an absolute
// location of a reachable store is an error naming it.
#include "floe/iceberg/location.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

std::string Canonical(std::string_view text) {
  auto l = Location::Parse(text);
  return l ? l->ToString() : "<" + l.error().ToString() + ">";
}

TEST(Location, HadoopAndUriAndPathSpellingsOfALocalFileAreOne) {
  for (const char* s :
       {"file:/tmp/w/db.db/t/data/a.parquet", "file:///tmp/w/db.db/t/data/a.parquet",
        "/tmp/w/db.db/t/data/a.parquet", "file://localhost/tmp/w/db.db/t/data/a.parquet",
        "FILE:/tmp/w/db.db/t/data/a.parquet"}) {
    EXPECT_EQ(Canonical(s), "file:///tmp/w/db.db/t/data/a.parquet") << s;
  }
  EXPECT_EQ(Canonical("file:/tmp/w/"), "file:///tmp/w");
  EXPECT_EQ(Canonical("/"), "file:///");
  Location l = Location::Parse("file:/tmp/w/x").value();
  EXPECT_EQ(l.root, "file:///");
  EXPECT_EQ(l.path, "tmp/w/x");
}

TEST(Location, S3SchemesNameOneBucket) {
  EXPECT_EQ(Canonical("s3a://bucket/w/t/"), "s3://bucket/w/t");
  EXPECT_EQ(Canonical("s3n://bucket/w/t"), "s3://bucket/w/t");
  EXPECT_EQ(Canonical("s3://bucket"), "s3://bucket");
  EXPECT_EQ(Location::Parse("s3://bucket/w/t").value().root, "s3://bucket");
  EXPECT_EQ(Canonical("mem://w/data/x"), "mem://w/data/x");
}

TEST(Location, KeepsDotDotSegmentsForTheStoreToRefuse) {
  EXPECT_EQ(Canonical("file:/tmp/w/../etc/passwd"), "file:///tmp/w/../etc/passwd");
  EXPECT_EQ(Canonical("s3://b/w/../x"), "s3://b/w/../x");
}

TEST(Location, RejectsWhatIsNotAnAbsoluteReachableLocation) {
  EXPECT_EQ(Canonical("db/t/data/a.parquet"),
            "<invalid input: location 'db/t/data/a.parquet' is not absolute (expected /path, "
            "file:/path or s3://...)>");
  EXPECT_EQ(Canonical("gs://b/k"),
            "<invalid input: location 'gs://b/k' has scheme 'gs', which floe cannot reach (file, "
            "s3, mem)>");
  EXPECT_EQ(Canonical("file://host/x"),
            "<invalid input: location 'file://host/x' names a host or is not absolute (expected "
            "file:/path or file:///path)>");
  EXPECT_EQ(Canonical("s3:///k"), "<invalid input: location 's3:///k' has no bucket>");
  EXPECT_EQ(Canonical("s3:/b/k"),
            "<invalid input: location 's3:/b/k' is malformed (expected s3://bucket/path)>");
  EXPECT_EQ(Canonical(""), "<invalid input: empty location>");
}

TEST(Location, ContainsOnlyWhatLiesStrictlyBelow) {
  auto at = [](std::string_view s) { return Location::Parse(s).value(); };
  EXPECT_TRUE(at("/w/p.db/a").Contains(at("file:/w/p.db/a/data/x")));
  EXPECT_FALSE(at("/w/p.db/a").Contains(at("/w/p.db/a")));
  EXPECT_FALSE(at("/w/p.db/a").Contains(at("/w/p.db/ab")));
  EXPECT_FALSE(at("s3://b/w").Contains(at("s3://c/w/x")));
  EXPECT_FALSE(at("s3://b/w").Contains(at("file:///w/x")));
  EXPECT_TRUE(at("s3://b").Contains(at("s3://b/w")));
  EXPECT_TRUE(at("/").Contains(at("/w")));
}

}  // namespace
}  // namespace floe::iceberg
