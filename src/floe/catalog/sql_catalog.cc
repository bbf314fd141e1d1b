#include "floe/catalog/sql_catalog.h"

#include <sqlite3.h>

#include <fmt/format.h>

namespace floe::catalog {
namespace {

// The tables of pyiceberg's SqlCatalog / Iceberg's JdbcCatalog (schema v1, with iceberg_type).
constexpr const char* kCreateTables = R"sql(
CREATE TABLE IF NOT EXISTS iceberg_tables (
  catalog_name VARCHAR(255) NOT NULL,
  table_namespace VARCHAR(255) NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(1000),
  previous_metadata_location VARCHAR(1000),
  iceberg_type VARCHAR(5),
  PRIMARY KEY (catalog_name, table_namespace, table_name));
CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (
  catalog_name VARCHAR(255) NOT NULL,
  namespace VARCHAR(255) NOT NULL,
  property_key VARCHAR(255) NOT NULL,
  property_value VARCHAR(1000),
  PRIMARY KEY (catalog_name, namespace, property_key));
)sql";

// A prepared statement that finalizes itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  Stmt& Bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  std::string Text(int col) {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t == nullptr ? "" : std::string(reinterpret_cast<const char*>(t));
  }
  bool IsNull(int col) { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

}  // namespace

SqlCatalog::SqlCatalog(sqlite3* db, std::string path, std::string catalog_name)
    : db_(db), path_(std::move(path)), catalog_name_(std::move(catalog_name)) {}

SqlCatalog::~SqlCatalog() { sqlite3_close(db_); }

Result<std::shared_ptr<SqlCatalog>> SqlCatalog::Open(std::string path, std::string catalog_name,
                                                     bool create) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    if (!create && rc == SQLITE_CANTOPEN) {
      return NotFound("catalog database '{}' does not exist", path);
    }
    return IOError("cannot open catalog database '{}': {}", path, msg);
  }
  // Writers in other processes hold the lock briefly; wait rather than fail.
  sqlite3_busy_timeout(db, 30000);
  auto catalog = std::shared_ptr<SqlCatalog>(new SqlCatalog(db, path, std::move(catalog_name)));
  if (create) {
    FLOE_RETURN_IF_ERROR(catalog->Exec(kCreateTables));
  } else {
    Stmt s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'iceberg_tables'");
    int step = s.Step();
    if (step == SQLITE_DONE) {
      return InvalidInput("'{}' is not an Iceberg SQL catalog: it has no iceberg_tables table",
                          path);
    }
    if (step != SQLITE_ROW) {
      return IOError("cannot read catalog database '{}': {}", path, sqlite3_errmsg(db));
    }
  }
  // Older JdbcCatalog databases lack iceberg_type; add it (ignored when present).
  sqlite3_exec(db, "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)", nullptr,
               nullptr, nullptr);
  return catalog;
}

Status SqlCatalog::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return IOError("catalog database '{}': {}", path_, msg);
  }
  return {};
}

Result<std::vector<std::string>> SqlCatalog::ListNamespaces() {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1 "
         "UNION SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 ORDER BY 1");
  s.Bind(1, catalog_name_);
  std::vector<std::string> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(s.Text(0));
  if (rc != SQLITE_DONE) return IOError("catalog '{}': {}", path_, sqlite3_errmsg(db_));
  return out;
}

Result<bool> SqlCatalog::NamespaceExistsLocked(std::string_view ns) {
  Stmt s(db_,
         "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2 "
         "UNION SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
         "LIMIT 1");
  s.Bind(1, catalog_name_).Bind(2, ns);
  int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return IOError("catalog '{}': {}", path_, sqlite3_errmsg(db_));
}

Result<bool> SqlCatalog::NamespaceExists(std::string_view ns) {
  std::lock_guard lock(mu_);
  return NamespaceExistsLocked(ns);
}

Status SqlCatalog::CreateNamespace(std::string_view ns,
                                   const std::map<std::string, std::string>& properties) {
  if (ns.empty()) return InvalidInput("empty namespace name");
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExistsLocked(ns));
  if (exists) return Conflict("namespace '{}' already exists", ns);
  // Both pyiceberg and JdbcCatalog mark a namespace with the property exists=true.
  std::map<std::string, std::string> props = properties;
  props.emplace("exists", "true");
  FLOE_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  for (const auto& [k, v] : props) {
    Stmt s(db_,
           "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
           "property_value) VALUES (?1, ?2, ?3, ?4)");
    s.Bind(1, catalog_name_).Bind(2, ns).Bind(3, k).Bind(4, v);
    if (s.Step() != SQLITE_DONE) {
      std::string msg = sqlite3_errmsg(db_);
      (void)Exec("ROLLBACK");
      return IOError("catalog '{}': creating namespace '{}': {}", path_, ns, msg);
    }
  }
  return Exec("COMMIT");
}

Status SqlCatalog::DropNamespace(std::string_view ns) {
  std::lock_guard lock(mu_);
  Stmt count(
      db_, "SELECT COUNT(*) FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2");
  count.Bind(1, catalog_name_).Bind(2, ns);
  if (count.Step() == SQLITE_ROW && count.Text(0) != "0") {
    return Conflict("namespace '{}' is not empty ({} tables)", ns, count.Text(0));
  }
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExistsLocked(ns));
  if (!exists) return NotFound("namespace '{}' does not exist", ns);
  Stmt s(db_,
         "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2");
  s.Bind(1, catalog_name_).Bind(2, ns);
  if (s.Step() != SQLITE_DONE) return IOError("catalog '{}': {}", path_, sqlite3_errmsg(db_));
  return {};
}

Result<std::map<std::string, std::string>> SqlCatalog::NamespaceProperties(std::string_view ns) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExistsLocked(ns));
  if (!exists) return NotFound("namespace '{}' does not exist", ns);
  Stmt s(db_,
         "SELECT property_key, property_value FROM iceberg_namespace_properties "
         "WHERE catalog_name = ?1 AND namespace = ?2");
  s.Bind(1, catalog_name_).Bind(2, ns);
  std::map<std::string, std::string> out;
  while (s.Step() == SQLITE_ROW) out[s.Text(0)] = s.Text(1);
  return out;
}

Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(std::string_view ns) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
         "ORDER BY table_name");
  s.Bind(1, catalog_name_).Bind(2, ns);
  std::vector<TableIdentifier> out;
  auto parsed = TableIdentifier::Parse(std::string(ns) + ".x");
  if (!parsed) return std::unexpected(parsed.error());
  while (s.Step() == SQLITE_ROW) {
    TableIdentifier id = *parsed;
    id.name = s.Text(0);
    out.push_back(std::move(id));
  }
  return out;
}

Result<std::string> SqlCatalog::LoadTable(const TableIdentifier& id) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND "
         "table_namespace = ?2 AND table_name = ?3");
  s.Bind(1, catalog_name_).Bind(2, id.NamespaceString()).Bind(3, id.name);
  int rc = s.Step();
  if (rc == SQLITE_ROW && !s.IsNull(0)) return s.Text(0);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    return NotFound("table '{}' does not exist in catalog '{}' ({})", id.ToString(), catalog_name_,
                    path_);
  }
  return IOError("catalog '{}': {}", path_, sqlite3_errmsg(db_));
}

Status SqlCatalog::CreateTable(const TableIdentifier& id, std::string_view metadata_location) {
  std::lock_guard lock(mu_);
  Stmt s(
      db_,
      "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
      "previous_metadata_location, iceberg_type) VALUES (?1, ?2, ?3, ?4, NULL, 'TABLE')");
  s.Bind(1, catalog_name_)
      .Bind(2, id.NamespaceString())
      .Bind(3, id.name)
      .Bind(4, metadata_location);
  int rc = s.Step();
  if (rc == SQLITE_DONE) return {};
  if (rc == SQLITE_CONSTRAINT) return Conflict("table '{}' already exists", id.ToString());
  return IOError("catalog '{}': creating table '{}': {}", path_, id.ToString(),
                 sqlite3_errmsg(db_));
}

Status SqlCatalog::CommitTable(const TableIdentifier& id, std::string_view expected,
                               std::string_view next) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "UPDATE iceberg_tables SET metadata_location = ?4, previous_metadata_location = ?5 "
         "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3 AND "
         "metadata_location = ?5");
  s.Bind(1, catalog_name_)
      .Bind(2, id.NamespaceString())
      .Bind(3, id.name)
      .Bind(4, next)
      .Bind(5, expected);
  if (s.Step() != SQLITE_DONE) {
    return IOError("catalog '{}': committing '{}': {}", path_, id.ToString(), sqlite3_errmsg(db_));
  }
  if (sqlite3_changes(db_) == 1) return {};
  return Conflict("table '{}' changed concurrently: its metadata is no longer '{}'", id.ToString(),
                  expected);
}

Status SqlCatalog::DropTable(const TableIdentifier& id) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND "
         "table_name = ?3");
  s.Bind(1, catalog_name_).Bind(2, id.NamespaceString()).Bind(3, id.name);
  if (s.Step() != SQLITE_DONE) return IOError("catalog '{}': {}", path_, sqlite3_errmsg(db_));
  if (sqlite3_changes(db_) == 0) return NotFound("table '{}' does not exist", id.ToString());
  return {};
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  std::lock_guard lock(mu_);
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExistsLocked(to.NamespaceString()));
  if (!ns_exists) return NotFound("namespace '{}' does not exist", to.NamespaceString());
  Stmt s(db_,
         "UPDATE iceberg_tables SET table_namespace = ?4, table_name = ?5 WHERE catalog_name = ?1 "
         "AND table_namespace = ?2 AND table_name = ?3");
  s.Bind(1, catalog_name_).Bind(2, from.NamespaceString()).Bind(3, from.name);
  s.Bind(4, to.NamespaceString()).Bind(5, to.name);
  int rc = s.Step();
  if (rc == SQLITE_CONSTRAINT) return Conflict("table '{}' already exists", to.ToString());
  if (rc != SQLITE_DONE) return IOError("catalog '{}': {}", path_, sqlite3_errmsg(db_));
  if (sqlite3_changes(db_) == 0) return NotFound("table '{}' does not exist", from.ToString());
  return {};
}

}  // namespace floe::catalog
