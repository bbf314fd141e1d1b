#include "floe/catalog/sql_catalog.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "support/temp_dir.h"

namespace floe::catalog {
namespace {

TableIdentifier Id(std::string_view s) { return TableIdentifier::Parse(s).value(); }

TEST(TableIdentifier, ParsesNamespacesAndRejectsBadNames) {
  EXPECT_EQ(Id("db.events").ns, std::vector<std::string>{"db"});
  EXPECT_EQ(Id("a.b.t").NamespaceString(), "a.b");
  EXPECT_EQ(Id("a.b.t").name, "t");
  EXPECT_EQ(TableIdentifier::Parse("events").error().ToString(),
            "invalid input: bad table name 'events': expected namespace.table");
  EXPECT_EQ(TableIdentifier::Parse("db..t").error().ToString(),
            "invalid input: bad table name 'db..t': expected namespace.table with non-empty parts");
}

TEST(SqlCatalog, NamespacesAndTables) {
  testing::TempDir dir;
  auto cat = SqlCatalog::Open(dir.str() + "/catalog.db").value();
  ASSERT_TRUE(cat->CreateNamespace("db", {{"owner", "me"}}).has_value());
  EXPECT_EQ(cat->CreateNamespace("db", {}).error().ToString(),
            "conflict: namespace 'db' already exists");
  EXPECT_EQ(cat->ListNamespaces().value(), std::vector<std::string>{"db"});
  auto props = cat->NamespaceProperties("db").value();
  EXPECT_EQ(props["owner"], "me");
  EXPECT_EQ(props["exists"], "true");

  ASSERT_TRUE(
      cat->CreateTable(Id("db.t"), "file:///w/db/t/metadata/00000-a.metadata.json").has_value());
  EXPECT_EQ(cat->CreateTable(Id("db.t"), "x").error().ToString(),
            "conflict: table 'db.t' already exists");
  EXPECT_EQ(cat->LoadTable(Id("db.t")).value(), "file:///w/db/t/metadata/00000-a.metadata.json");
  EXPECT_EQ(cat->ListTables("db").value().size(), 1u);
  EXPECT_EQ(cat->DropNamespace("db").error().ToString(),
            "conflict: namespace 'db' is not empty (1 tables)");

  ASSERT_TRUE(cat->RenameTable(Id("db.t"), Id("db.u")).has_value());
  EXPECT_EQ(cat->LoadTable(Id("db.t")).error().kind, ErrorKind::kNotFound);
  ASSERT_TRUE(cat->DropTable(Id("db.u")).has_value());
  EXPECT_EQ(cat->DropTable(Id("db.u")).error().ToString(),
            "not found: table 'db.u' does not exist");
  ASSERT_TRUE(cat->DropNamespace("db").has_value());
  EXPECT_TRUE(cat->ListNamespaces().value().empty());
}

TEST(SqlCatalog, CommitIsACompareAndSwap) {
  testing::TempDir dir;
  auto cat = SqlCatalog::Open(dir.str() + "/catalog.db").value();
  ASSERT_TRUE(cat->CreateNamespace("db", {}).has_value());
  ASSERT_TRUE(cat->CreateTable(Id("db.t"), "m0").has_value());
  ASSERT_TRUE(cat->CommitTable(Id("db.t"), "m0", "m1").has_value());
  auto lost = cat->CommitTable(Id("db.t"), "m0", "m2");
  ASSERT_FALSE(lost.has_value());
  EXPECT_EQ(lost.error().ToString(),
            "conflict: table 'db.t' changed concurrently: its metadata is no longer 'm0'");
  EXPECT_EQ(cat->LoadTable(Id("db.t")).value(), "m1");

  // The row holds what pyiceberg and JdbcCatalog read.
  sqlite3* db;
  ASSERT_EQ(sqlite3_open((dir.str() + "/catalog.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st;
  ASSERT_EQ(
      sqlite3_prepare_v2(db,
                         "SELECT catalog_name, table_namespace, table_name, metadata_location, "
                         "previous_metadata_location, iceberg_type FROM iceberg_tables",
                         -1, &st, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  auto col = [&](int i) {
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
  };
  EXPECT_EQ(col(0), "floe");
  EXPECT_EQ(col(1), "db");
  EXPECT_EQ(col(2), "t");
  EXPECT_EQ(col(3), "m1");
  EXPECT_EQ(col(4), "m0");
  EXPECT_EQ(col(5), "TABLE");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// Many processes race to move the table from m0: exactly one wins each round.
TEST(SqlCatalog, ExactlyOneOfManyProcessesWinsACommit) {
  testing::TempDir dir;
  std::string path = dir.str() + "/catalog.db";
  {
    auto cat = SqlCatalog::Open(path).value();
    ASSERT_TRUE(cat->CreateNamespace("db", {}).has_value());
    ASSERT_TRUE(cat->CreateTable(Id("db.t"), "v0").has_value());
  }
  for (int round = 0; round < 3; ++round) {
    std::string from = "v" + std::to_string(round);
    constexpr int kProcs = 6;
    std::vector<pid_t> kids;
    for (int p = 0; p < kProcs; ++p) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        auto cat = SqlCatalog::Open(path);
        if (!cat) _exit(3);
        auto s = (*cat)->CommitTable(Id("db.t"), from, from + "-by-" + std::to_string(p));
        _exit(s ? 0 : (s.error().kind == ErrorKind::kConflict ? 1 : 2));
      }
      kids.push_back(pid);
    }
    int wins = 0, conflicts = 0;
    std::string winner;
    for (int p = 0; p < kProcs; ++p) {
      int status = 0;
      waitpid(kids[p], &status, 0);
      ASSERT_TRUE(WIFEXITED(status));
      if (WEXITSTATUS(status) == 0) {
        ++wins;
        winner = from + "-by-" + std::to_string(p);
      } else {
        EXPECT_EQ(WEXITSTATUS(status), 1);
        ++conflicts;
      }
    }
    EXPECT_EQ(wins, 1);
    EXPECT_EQ(conflicts, kProcs - 1);
    auto cat = SqlCatalog::Open(path).value();
    EXPECT_EQ(cat->LoadTable(Id("db.t")).value(), winner);
    ASSERT_TRUE(cat->CommitTable(Id("db.t"), winner, "v" + std::to_string(round + 1)).has_value());
  }
}

TEST(SqlCatalog, UnopenablePathIsAnIoError) {
  auto r = SqlCatalog::Open("/nonexistent-dir/x/catalog.db");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kIO);
  EXPECT_NE(r.error().message.find("/nonexistent-dir/x/catalog.db"), std::string::npos);
}

}  // namespace
}  // namespace floe::catalog
