// Catalog: where a table's current metadata file is recorded, and the compare-and-swap that makes
// a commit atomic. A catalog knows identifiers and metadata locations only; reading and writing the
// metadata itself is the iceberg module's job. Implementations are thread-safe and safe across
// processes sharing the same catalog.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::catalog {

struct TableIdentifier {
  std::vector<std::string> ns;  // namespace levels
  std::string name;

  // "ns.table" or "a.b.table"; every part non-empty.
  static Result<TableIdentifier> Parse(std::string_view text);
  std::string NamespaceString() const;  // levels joined by '.'
  std::string ToString() const;         // "ns.table"
  friend bool operator==(const TableIdentifier&, const TableIdentifier&) = default;
  friend auto operator<=>(const TableIdentifier&, const TableIdentifier&) = default;
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  virtual std::string name() const = 0;

  virtual Result<std::vector<std::string>> ListNamespaces() = 0;
  virtual Result<bool> NamespaceExists(std::string_view ns) = 0;
  // Creating an existing namespace is a conflict error.
  virtual Status CreateNamespace(std::string_view ns,
                                 const std::map<std::string, std::string>& properties = {}) = 0;
  // Fails with a conflict when the namespace still holds tables.
  virtual Status DropNamespace(std::string_view ns) = 0;
  virtual Result<std::map<std::string, std::string>> NamespaceProperties(std::string_view ns) = 0;

  virtual Result<std::vector<TableIdentifier>> ListTables(std::string_view ns) = 0;
  // The current metadata location, or a not-found error naming the table.
  virtual Result<std::string> LoadTable(const TableIdentifier& id) = 0;
  // Registers a new table; a conflict error if one exists with that name.
  virtual Status CreateTable(const TableIdentifier& id, std::string_view metadata_location) = 0;
  // Atomically moves the table from `expected` to `next`; a conflict error (and no change) when
  // the current location is not `expected`.
  virtual Status CommitTable(const TableIdentifier& id, std::string_view expected,
                             std::string_view next) = 0;
  virtual Status DropTable(const TableIdentifier& id) = 0;
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
};

using CatalogPtr = std::shared_ptr<Catalog>;

}  // namespace floe::catalog
