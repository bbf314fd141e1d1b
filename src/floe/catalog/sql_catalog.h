// SqlCatalog: a catalog in a SQLite file with the tables pyiceberg's SqlCatalog and Iceberg's
// JdbcCatalog use (iceberg_tables, iceberg_namespace_properties), so those tools open a floe
// warehouse directly. Commits are `UPDATE ... WHERE metadata_location = <expected>`; SQLite's file
// locking (with a busy timeout) makes that atomic across processes. Thread-safe: one connection
// guarded by a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "floe/catalog/catalog.h"

struct sqlite3;

namespace floe::catalog {

class SqlCatalog final : public Catalog {
 public:
  // Opens the SQLite file at `path` for catalog `catalog_name`. With `create`, a missing file and
  // missing catalog tables are created; without, the file must exist and hold iceberg_tables
  // (a not-found or invalid-input error naming it otherwise), and nothing is created.
  static Result<std::shared_ptr<SqlCatalog>> Open(std::string path,
                                                  std::string catalog_name = "floe",
                                                  bool create = true);
  ~SqlCatalog() override;

  std::string name() const override { return catalog_name_; }
  const std::string& path() const { return path_; }

  Result<std::vector<std::string>> ListNamespaces() override;
  Result<bool> NamespaceExists(std::string_view ns) override;
  Status CreateNamespace(std::string_view ns,
                         const std::map<std::string, std::string>& properties) override;
  Status DropNamespace(std::string_view ns) override;
  Result<std::map<std::string, std::string>> NamespaceProperties(std::string_view ns) override;
  Result<std::vector<TableIdentifier>> ListTables(std::string_view ns) override;
  Result<std::string> LoadTable(const TableIdentifier& id) override;
  Status CreateTable(const TableIdentifier& id, std::string_view metadata_location) override;
  Status CommitTable(const TableIdentifier& id, std::string_view expected,
                     std::string_view next) override;
  Status DropTable(const TableIdentifier& id) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;

 private:
  SqlCatalog(sqlite3* db, std::string path, std::string catalog_name);
  Status Exec(const char* sql);
  Result<bool> NamespaceExistsLocked(std::string_view ns);

  std::mutex mu_;
  sqlite3* db_;
  std::string path_;
  std::string catalog_name_;
};

}  // namespace floe::catalog
