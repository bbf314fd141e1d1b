// RestCatalog against Iceberg's reference REST catalog (iceberg-core 1.11's RESTCatalogAdapter
// over a JdbcCatalog), which ctest starts on loopback (scripts/rest_catalog.sh; its env file is
// named by FLOE_REST_ENV). Each test works in a namespace of its own.
#include "floe/catalog/rest_catalog.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "floe/base/random.h"

namespace floe::catalog {
namespace {

std::string RestUri() {
  const char* path = std::getenv("FLOE_REST_ENV");
  if (path == nullptr) return "";
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("FLOE_REST_URI=")) return line.substr(14);
  }
  return "";
}

TableIdentifier Id(std::string_view s) { return TableIdentifier::Parse(s).value(); }

std::string UniqueNamespace() { return fmt::format("rc{:016x}", RandomU64()); }

// A CreateTableRequest body: one long column, unpartitioned.
nlohmann::json Request() {
  return {{"schema",
           {{"type", "struct"},
            {"schema-id", 0},
            {"fields", {{{"id", 1}, {"name", "id"}, {"required", false}, {"type", "long"}}}}}},
          {"properties", {{"format-version", "2"}}}};
}

class RestCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = RestUri();
    if (uri_.empty()) GTEST_SKIP() << "FLOE_REST_ENV names no running REST catalog";
    RestCatalogOptions o;
    o.uri = uri_;
    auto c = RestCatalog::Open(o);
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    cat_ = *c;
    ns_ = UniqueNamespace();
  }
  std::string uri_;
  std::shared_ptr<RestCatalog> cat_;
  std::string ns_;
};

TEST_F(RestCatalogTest, Namespaces) {
  EXPECT_FALSE(cat_->NamespaceExists(ns_).value());
  ASSERT_TRUE(cat_->CreateNamespace(ns_, {{"owner", "floe"}}).has_value());
  EXPECT_TRUE(cat_->NamespaceExists(ns_).value());
  EXPECT_EQ(cat_->NamespaceProperties(ns_).value()["owner"], "floe");
  auto again = cat_->CreateNamespace(ns_, {});
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().kind, ErrorKind::kConflict) << again.error().ToString();

  // Nested namespaces are listed level by level.
  ASSERT_TRUE(cat_->CreateNamespace(ns_ + ".child", {}).has_value());
  EXPECT_TRUE(cat_->NamespaceExists(ns_ + ".child").value());
  auto all = cat_->ListNamespaces().value();
  EXPECT_NE(std::find(all.begin(), all.end(), ns_), all.end());
  EXPECT_NE(std::find(all.begin(), all.end(), ns_ + ".child"), all.end());

  ASSERT_TRUE(cat_->DropNamespace(ns_ + ".child").has_value());
  EXPECT_FALSE(cat_->NamespaceExists(ns_ + ".child").value());
  auto missing = cat_->DropNamespace(ns_ + ".child");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound) << missing.error().ToString();
}

TEST_F(RestCatalogTest, TablesCreateLoadListRenameDrop) {
  ASSERT_TRUE(cat_->CreateNamespace(ns_, {}).has_value());
  const TableIdentifier t = Id(ns_ + ".t");
  auto created = cat_->CreateTableFromRequest(t, Request());
  ASSERT_TRUE(created.has_value()) << created.error().ToString();
  EXPECT_EQ(created->metadata["format-version"], 2);
  EXPECT_EQ(created->metadata["schemas"][0]["fields"][0]["name"], "id");
  EXPECT_TRUE(created->metadata_location.ends_with(".metadata.json"));

  auto loaded = cat_->Load(t);
  ASSERT_TRUE(loaded.has_value()) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata_location, created->metadata_location);
  EXPECT_EQ(loaded->metadata["table-uuid"], created->metadata["table-uuid"]);
  EXPECT_EQ(cat_->LoadTable(t).value(), created->metadata_location);
  EXPECT_EQ(cat_->ListTables(ns_).value(), std::vector<TableIdentifier>{t});

  auto twice = cat_->CreateTableFromRequest(t, Request());
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().ToString(),
            fmt::format("conflict: table '{}' already exists", ns_ + ".t"));

  // A namespace that holds a table is not dropped.
  auto busy = cat_->DropNamespace(ns_);
  ASSERT_FALSE(busy.has_value());
  EXPECT_EQ(busy.error().kind, ErrorKind::kConflict) << busy.error().ToString();

  const TableIdentifier u = Id(ns_ + ".u");
  ASSERT_TRUE(cat_->RenameTable(t, u).has_value());
  auto gone = cat_->Load(t);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().ToString(),
            fmt::format("not found: table '{}.t' does not exist in REST catalog {}", ns_, uri_));
  EXPECT_EQ(cat_->LoadTable(u).value(), created->metadata_location);

  // A metadata file registers as a new table under another name.
  const TableIdentifier r = Id(ns_ + ".registered");
  ASSERT_TRUE(cat_->CreateTable(r, created->metadata_location).has_value());
  EXPECT_EQ(cat_->LoadTable(r).value(), created->metadata_location);
  EXPECT_EQ(cat_->ListTables(ns_).value(), (std::vector<TableIdentifier>{r, u}));
  // The pointer swap of a SQLite catalog is not how a service commits.
  EXPECT_EQ(cat_->CommitTable(u, "a", "b").error().kind, ErrorKind::kUnsupported);

  ASSERT_TRUE(cat_->DropTable(u).has_value());
  ASSERT_TRUE(cat_->DropTable(r).has_value());
  EXPECT_EQ(cat_->DropTable(u).error().kind, ErrorKind::kNotFound);
  EXPECT_TRUE(cat_->ListTables(ns_).value().empty());
  EXPECT_TRUE(cat_->DropNamespace(ns_).has_value());
}

TEST_F(RestCatalogTest, CommitsApplyOnlyWhenTheirRequirementsHold) {
  ASSERT_TRUE(cat_->CreateNamespace(ns_, {}).has_value());
  const TableIdentifier t = Id(ns_ + ".t");
  auto created = cat_->CreateTableFromRequest(t, Request());
  ASSERT_TRUE(created.has_value()) << created.error().ToString();
  const std::string uuid = created->metadata["table-uuid"];

  TableChanges ok;
  ok.requirements = {
      {{"type", "assert-table-uuid"}, {"uuid", uuid}},
      {{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", nullptr}}};
  ok.updates = {{{"action", "set-properties"}, {"updates", {{"floe.test", "1"}}}}};
  auto committed = cat_->CommitChanges(t, ok);
  ASSERT_TRUE(committed.has_value()) << committed.error().ToString();
  EXPECT_NE(committed->metadata_location, created->metadata_location);
  EXPECT_EQ(committed->metadata["properties"]["floe.test"], "1");

  TableChanges stale = ok;
  stale.requirements[0]["uuid"] = "00000000-0000-4000-8000-000000000000";
  stale.updates[0]["updates"]["floe.test"] = "2";
  auto refused = cat_->CommitChanges(t, stale);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().kind, ErrorKind::kConflict) << refused.error().ToString();
  auto now = cat_->Load(t).value();
  EXPECT_EQ(now.metadata_location, committed->metadata_location);
  EXPECT_EQ(now.metadata["properties"]["floe.test"], "1");

  // A ref that must not exist yet, but does, fails the same way.
  TableChanges no_main = ok;
  no_main.requirements[1]["snapshot-id"] = 42;
  auto ref_refused = cat_->CommitChanges(t, no_main);
  ASSERT_FALSE(ref_refused.has_value());
  EXPECT_EQ(ref_refused.error().kind, ErrorKind::kConflict);

  // An update the service refuses is named by its message.
  auto bad = cat_->CommitChanges(
      t, {nlohmann::json::array(), {{{"action", "set-current-schema"}, {"schema-id", 99}}}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().ToString(),
            fmt::format("invalid input: REST catalog {}: commit to table '{}.t': HTTP 400 "
                        "IllegalArgumentException: Cannot set current schema to unknown schema: 99",
                        uri_, ns_));
  ASSERT_TRUE(cat_->DropTable(t).has_value());
}

TEST(RestCatalogUri, ParsesAndRefusesSecretsInTheUri) {
  auto o = ParseRestCatalogUri("rest:http://127.0.0.1:8181/api/?warehouse=wh&scope=all");
  ASSERT_TRUE(o.has_value()) << o.error().ToString();
  EXPECT_EQ(o->uri, "http://127.0.0.1:8181/api");
  EXPECT_EQ(o->warehouse, "wh");
  EXPECT_EQ(o->scope, "all");
  EXPECT_EQ(ParseRestCatalogUri("rest:http://h:1?credential=a:b").error().ToString(),
            "invalid input: catalog 'http://h:1': a credential does not belong in a URI (it would "
            "show in logs and process lists); set FLOE_REST_CREDENTIAL instead");
  EXPECT_EQ(ParseRestCatalogUri("rest:ftp://h").error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(ParseRestCatalogUri("rest:http://h?x=1").error().ToString(),
            "invalid input: catalog 'http://h': unknown parameter 'x' (known: warehouse, scope, "
            "oauth2-server-uri, access-delegation)");
  EXPECT_EQ(o->access_delegation, "vended-credentials");  // as Iceberg's Java client asks
  EXPECT_EQ(ParseRestCatalogUri("rest:http://h:1?access-delegation=none")->access_delegation, "");
  EXPECT_EQ(
      ParseRestCatalogUri("rest:http://h:1?access-delegation=remote-signing").error().ToString(),
      "invalid input: catalog 'http://h:1': access-delegation 'remote-signing': floe takes "
      "vended-credentials or none");
  EXPECT_EQ(ParseRestCatalogUri("rest:http://").error().kind, ErrorKind::kInvalidInput);
}

TEST(RestVendedCredentials, StorageCredentialsByPrefixThenTheConfigForTheTablesLocations) {
  auto body = nlohmann::json::parse(R"({
    "metadata-location": "s3://b/wh/db/t/metadata/00001.metadata.json",
    "metadata": {"location": "s3://b/wh/db/t",
                 "properties": {"write.data.path": "s3://other/data", "owner": "x"}},
    "config": {"s3.access-key-id": "K", "s3.secret-access-key": "S", "token": "not-storage",
               "client.region": "eu-west-1", "rest-metrics-reporting-enabled": "false"},
    "storage-credentials": [
      {"prefix": "s3://b/wh/db/t/", "config": {"s3.access-key-id": "K2",
                                               "s3.secret-access-key": "S2",
                                               "s3.session-token": "T2",
                                               "s3.session-token-expires-at-ms": "1700000000000"}},
      {"prefix": "gs://elsewhere", "config": {"gcs.oauth2.token": "G"}},
      {"no-prefix": true}]})");
  auto creds = VendedCredentials(body);
  ASSERT_EQ(creds.size(), 4u);
  EXPECT_EQ(creds[0].prefix, "s3://b/wh/db/t/");
  EXPECT_EQ(creds[0].config.at("s3.session-token"), "T2");
  EXPECT_EQ(creds[0].ExpiresAtMs(), 1700000000000);
  EXPECT_EQ(creds[1].prefix, "gs://elsewhere");
  EXPECT_EQ(creds[1].ExpiresAtMs(), 0);
  const std::map<std::string, std::string> config = {
      {"client.region", "eu-west-1"}, {"s3.access-key-id", "K"}, {"s3.secret-access-key", "S"}};
  EXPECT_EQ(creds[2].prefix, "s3://b/wh/db/t");
  EXPECT_EQ(creds[2].config, config);
  EXPECT_EQ(creds[3].prefix, "s3://other/data");
  EXPECT_EQ(creds[3].config, config);
  // A commit's response carries no config: nothing vended, nothing replaced.
  EXPECT_TRUE(
      VendedCredentials(nlohmann::json::parse(
                            R"({"metadata-location": "m", "metadata": {"location": "s3://b/t"}})"))
          .empty());
  // An expiry that is not a time is taken as expired (renewed, not trusted).
  EXPECT_EQ((StorageCredential{"s3", {{"s3.session-token-expires-at-ms", "soon"}}}.ExpiresAtMs()),
            1);
}

TEST(RestCatalogOpen, NamesTheServiceThatDoesNotAnswer) {
  RestCatalogOptions o;
  o.uri = "http://127.0.0.1:9";  // discard: nothing listens
  o.request_timeout_ms = 2000;
  auto c = RestCatalog::Open(o);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().kind, ErrorKind::kIO);
  EXPECT_TRUE(c.error().message.starts_with(
      "REST catalog http://127.0.0.1:9: read the configuration (GET /v1/config) failed"))
      << c.error().message;
}

}  // namespace
}  // namespace floe::catalog
