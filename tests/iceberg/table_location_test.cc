// Table locations: default locations never nest or collide; orphan removal and purge never touch
// another table's files, however the tables' explicit locations nest; tables outside the
// warehouse and Hadoop-spelled locations are read and maintained; temp files of killed writes are
// cleaned.
#include "floe/iceberg/table_location.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "floe/base/clock.h"
#include "floe/iceberg/remove_orphan_files.h"
#include "iceberg/maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using testing_support::AllIds;
using testing_support::AppendBatch;
using testing_support::DimensionBatch;
using testing_support::DimensionSchema;
using testing_support::Warehouse;

catalog::TableIdentifier Id(std::vector<std::string> ns, std::string name) {
  return catalog::TableIdentifier{std::move(ns), std::move(name)};
}

Table Create(Warehouse& w, const catalog::TableIdentifier& id, std::string location = "",
             std::map<std::string, std::string> props = {}) {
  CreateTableOptions o{DimensionSchema(), {}, {}, std::move(props), std::move(location)};
  auto t = CreateTable(*w.cat, *w.io, id, std::move(o));
  EXPECT_TRUE(t.has_value()) << t.error().ToString();
  return *t;
}

// Every object (and temp file) under a directory, relative to it.
std::set<std::string> Files(const std::string& dir) {
  std::set<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(std::filesystem::relative(e.path(), dir).string());
  }
  return out;
}

// A temp file as a killed LocalStore Put leaves it, last modified `age_ms` ago.
std::string PlantTemp(const std::string& dir, const std::string& name, int64_t age_ms) {
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + std::string(io::LocalStore::kTempPrefix) + name;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, "partial", 7), 7);
  ::close(fd);
  const int64_t when = UnixMillisNow() - age_ms;
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = when / 1000;
  times[0].tv_nsec = times[1].tv_nsec = (when % 1000) * 1000000;
  EXPECT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  return path;
}

constexpr int64_t kDay = int64_t{24} * 3600 * 1000;

TEST(TableLocation, DefaultLocationsOfTheIssuesShapesNeverNestOrCollide) {
  const std::string root = "file:///w";
  std::vector<catalog::TableIdentifier> ids = {
      Id({"p"}, "a"),   Id({"p", "a"}, "b"),  Id({"a/b"}, "c"), Id({"a", "b"}, "c"),
      Id({"a"}, "b.c"), Id({"a.b"}, "c.db"),  Id({"p"}, ".."),  Id({"p%2F"}, "x"),
      Id({"p/"}, "x"),  Id({"catalog"}, "t"), Id({"p"}, "a/b"), Id({"p", "a"}, "b%2Fc")};
  std::vector<std::string> want = {
      "file:///w/p.db/a",         "file:///w/p.a.db/b",    "file:///w/a%2Fb.db/c",
      "file:///w/a.b.db/c",       "file:///w/a.db/b.c",    "file:///w/a.b.db/c.db",
      "file:///w/p.db/%2E%2E",    "file:///w/p%252F.db/x", "file:///w/p%2F.db/x",
      "file:///w/%63atalog.db/t", "file:///w/p.db/a%2Fb",  "file:///w/p.a.db/b%252Fc"};
  std::vector<Location> at;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(DefaultTableLocation(root, ids[i]), want[i]) << ids[i].ToString();
    at.push_back(Location::Parse(DefaultTableLocation(root + "/", ids[i])).value());
  }
  for (size_t i = 0; i < at.size(); ++i) {
    for (size_t j = 0; j < at.size(); ++j) {
      if (i == j) continue;
      EXPECT_FALSE(at[i] == at[j]) << ids[i].ToString() << " and " << ids[j].ToString();
      EXPECT_FALSE(at[i].Contains(at[j])) << ids[i].ToString() << " holds " << ids[j].ToString();
    }
  }
}

TEST(TableLocation, OrphanRemovalAndPurgeOfPAKeepPABsFiles) {
  // Locations nested as the old default layout made them (<ns>/<table>), given explicitly.
  Warehouse w;
  const auto pa = Id({"p"}, "a"), pab = Id({"p", "a"}, "b");
  const std::string base = "file://" + w.dir.str();
  Create(w, pa, base + "/p/a");
  Create(w, pab, base + "/p/a/b");
  AppendBatch(w, pa, DimensionBatch({1, 2}));
  AppendBatch(w, pab, DimensionBatch({3, 4, 5}));
  const std::set<std::string> pab_files = Files(w.dir.str() + "/p/a/b");
  ASSERT_EQ(pab_files.size(), 5u);  // two metadata files, a manifest list, a manifest, a data file
  RemoveOrphanFilesOptions o;
  o.older_than_ms = UnixMillisNow() + kDay;  // everything is old enough
  o.allow_recent_files = true;               // no write is running
  auto r = RemoveOrphanFiles(*w.cat, *w.io, pa, o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->orphan_file_locations.empty());
  EXPECT_EQ(r->other_tables_files, static_cast<int64_t>(pab_files.size()));
  EXPECT_EQ(Files(w.dir.str() + "/p/a/b"), pab_files);
  EXPECT_EQ(AllIds(w, pab), (std::vector<int64_t>{3, 4, 5}));

  ASSERT_TRUE(DropTable(*w.cat, *w.io, pa, /*purge=*/true).has_value());
  EXPECT_EQ(Files(w.dir.str() + "/p/a/b"), pab_files);
  EXPECT_EQ(Files(w.dir.str() + "/p/a").size(), pab_files.size());  // p.a's own files are gone
  EXPECT_EQ(AllIds(w, pab), (std::vector<int64_t>{3, 4, 5}));
}

TEST(TableLocation, OrphanRemovalOfTheInnerTableLeavesTheOuterOne) {
  Warehouse w;
  const auto pa = Id({"p"}, "a"), pab = Id({"p", "a"}, "b");
  const std::string base = "file://" + w.dir.str();
  Create(w, pa, base + "/p/a");
  Create(w, pab, base + "/p/a/b");
  AppendBatch(w, pa, DimensionBatch({1, 2}));
  AppendBatch(w, pab, DimensionBatch({3}));
  RemoveOrphanFilesOptions o;
  o.older_than_ms = UnixMillisNow() + kDay;
  o.allow_recent_files = true;  // no write is running
  auto r = RemoveOrphanFiles(*w.cat, *w.io, pab, o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->orphan_file_locations.empty());
  ASSERT_TRUE(DropTable(*w.cat, *w.io, pab, /*purge=*/true).has_value());
  EXPECT_FALSE(std::filesystem::exists(w.dir.str() + "/p/a/b"));
  EXPECT_EQ(AllIds(w, pa), (std::vector<int64_t>{1, 2}));
}

TEST(TableLocation, ATableInsideAnothersDataDirectoryOrSharingItsLocationIsNeverPurged) {
  Warehouse w;
  const auto outer = Id({"p"}, "a"), inner = Id({"p"}, "inner"), twin = Id({"q"}, "twin");
  const std::string base = "file://" + w.dir.str();
  Table o = Create(w, outer, base + "/p/a");
  Create(w, inner, base + "/p/a/data/inner");
  Create(w, twin, base + "/p/a");
  AppendBatch(w, outer, DimensionBatch({1, 2}));
  const std::set<std::string> before = Files(w.dir.str() + "/p/a");
  auto purge = DropTable(*w.cat, *w.io, inner, true);
  ASSERT_FALSE(purge.has_value());
  EXPECT_EQ(purge.error().ToString(), "conflict: will not purge 'p.inner': its location '" + base +
                                          "/p/a/data/inner' lies inside '" + base +
                                          "/p/a/data', where table 'p.a' writes "
                                          "its files");
  auto orphans = RemoveOrphanFiles(*w.cat, *w.io, twin, {});
  ASSERT_FALSE(orphans.has_value());
  EXPECT_EQ(
      orphans.error().ToString(),
      "conflict: will not remove orphan files of 'q.twin': table 'p.a' shares its location '" +
          base + "/p/a'");
  EXPECT_FALSE(DropTable(*w.cat, *w.io, outer, true).has_value());
  // Nothing was unregistered or deleted.
  EXPECT_TRUE(w.cat->LoadTable(inner).has_value());
  EXPECT_TRUE(w.cat->LoadTable(outer).has_value());
  EXPECT_EQ(Files(w.dir.str() + "/p/a"), before);
  EXPECT_EQ(AllIds(w, outer), (std::vector<int64_t>{1, 2}));
}

TEST(TableLocation, ATableMayNotHoldTheWholeWarehouse) {
  Warehouse w;
  CreateTableOptions o{DimensionSchema(), {}, {}, {}, "file:" + w.dir.str()};
  EXPECT_EQ(CreateTable(*w.cat, *w.io, Id({"p"}, "all"), o).error().ToString(),
            "invalid input: table 'p.all': location 'file:" + w.dir.str() +
                "' would hold the whole warehouse 'file://" + w.dir.str() + "'");
  EXPECT_FALSE(w.cat->LoadTable(Id({"p"}, "all")).has_value());
}

TEST(TableLocation, ATableOutsideTheWarehouseIsWrittenReadAndMaintained) {
  Warehouse w;
  testing::TempDir elsewhere;
  const auto id = Id({"x"}, "t");
  Create(w, id, "file:" + elsewhere.str() + "/t");  // Hadoop's spelling, as Spark writes it
  AppendBatch(w, id, DimensionBatch({7, 8}));
  AppendBatch(w, id, DimensionBatch({9}));
  EXPECT_EQ(AllIds(w, id), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(Files(w.dir.str() + "/x.db"), std::set<std::string>{});
  ASSERT_TRUE(w.io->Write("file://" + elsewhere.str() + "/t/data/stray.parquet", AsBytes("junk")));
  const size_t files = Files(elsewhere.str() + "/t").size();
  RemoveOrphanFilesOptions o;
  o.older_than_ms = UnixMillisNow() + kDay;
  o.allow_recent_files = true;  // no write is running
  auto r = RemoveOrphanFiles(*w.cat, *w.io, id, o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->orphan_file_locations,
            std::vector<std::string>{"file://" + elsewhere.str() + "/t/data/stray.parquet"});
  EXPECT_EQ(Files(elsewhere.str() + "/t").size(), files - 1);
  EXPECT_EQ(AllIds(w, id), (std::vector<int64_t>{7, 8, 9}));
  ASSERT_TRUE(DropTable(*w.cat, *w.io, id, true).has_value());
  EXPECT_FALSE(std::filesystem::exists(elsewhere.str() + "/t"));
}

TEST(TableLocation, FilesReferencedInHadoopSpellingAreNotOrphans) {
  // Spark's HadoopFileIO records "file:/abs/path"; floe writes "file:///abs/path".
  Warehouse w;
  const auto id = Id({"db"}, "t");
  Table t = Create(w, id);
  TableDataWriter writer(t, *w.io);
  ASSERT_TRUE(writer.Write(DimensionBatch({1, 2, 3})).has_value());
  std::vector<DataFile> files = writer.Finish().value();
  ASSERT_EQ(files.size(), 1u);
  ASSERT_TRUE(files[0].file_path.starts_with("file:///"));
  files[0].file_path = "file:" + files[0].file_path.substr(7);
  ASSERT_TRUE(AppendFiles(*w.cat, *w.io, id, files).has_value());
  RemoveOrphanFilesOptions o;
  o.older_than_ms = UnixMillisNow() + kDay;
  o.allow_recent_files = true;  // no write is running
  auto r = RemoveOrphanFiles(*w.cat, *w.io, id, o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->orphan_file_locations.empty());
  EXPECT_EQ(AllIds(w, id), (std::vector<int64_t>{1, 2, 3}));
}

TEST(TableLocation, TempFilesOfKilledWritesAreRemovedByOrphanRemovalWhenOldAndByPurge) {
  Warehouse w;
  const auto id = Id({"db"}, "t");
  Table t = Create(w, id);
  AppendBatch(w, id, DimensionBatch({1}));
  const std::string dir = w.dir.str() + "/db.db/t";
  const std::string old_temp = PlantTemp(dir + "/data", "111-aa-0", 4 * kDay);
  const std::string new_temp = PlantTemp(dir + "/metadata", "222-bb-1", 0);
  auto r = RemoveOrphanFiles(*w.cat, *w.io, id, {});  // default guard: 3 days
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->orphan_file_locations,
            std::vector<std::string>{"file://" + dir + "/data/.floe-tmp-111-aa-0"});
  EXPECT_EQ(r->orphan_bytes, 7);
  EXPECT_EQ(r->too_new_files, 1);
  EXPECT_FALSE(std::filesystem::exists(old_temp));
  EXPECT_TRUE(std::filesystem::exists(new_temp));
  EXPECT_EQ(AllIds(w, id), (std::vector<int64_t>{1}));

  PlantTemp(dir + "/data/deep", "333-cc-2", 0);
  ASSERT_TRUE(DropTable(*w.cat, *w.io, id, true).has_value());
  EXPECT_EQ(Files(w.dir.str() + "/db.db"), std::set<std::string>{});
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace floe::iceberg
