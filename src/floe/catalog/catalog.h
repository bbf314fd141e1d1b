// Catalog: where a table's current metadata file is recorded, and what makes a commit atomic. Two
// kinds: a pointer catalog (SQLite) records the location of a metadata file the client wrote and
// commits by compare-and-swap on it; a service catalog (Iceberg's REST protocol) writes metadata
// itself and commits a change sent as the protocol's requirements and updates (JSON). Either way
// a catalog knows identifiers, locations and JSON only; building and reading the metadata is the
// iceberg module's job. Implementations are thread-safe and safe across processes sharing the
// same catalog.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

// Storage credentials a catalog vends with a table (the REST protocol's access delegation): the
// FileIO properties ("s3.access-key-id", "s3.secret-access-key", "s3.session-token", ...) to reach
// the objects whose locations start with `prefix` ("s3://bucket/path", or a bare scheme "s3" for
// every location of that scheme).
struct StorageCredential {
  std::string prefix;
  std::map<std::string, std::string> config;

  // "s3.session-token-expires-at-ms" (Unix milliseconds); 0 when the credential does not expire.
  int64_t ExpiresAtMs() const;
};

// Fetches a table's credentials again (when the vended ones expire).
using CredentialRefresher = std::function<Result<std::vector<StorageCredential>>()>;

// A table as a catalog gives it: its current metadata file and, from a catalog that sends it
// (REST), that file's contents, so nothing has to read it again, and the credentials it vends
// for the table's objects with what renews them.
struct LoadedTable {
  std::string metadata_location;
  nlohmann::json metadata;  // null: read metadata_location
  std::vector<StorageCredential> credentials;
  CredentialRefresher refresh_credentials;  // empty: none vended, or no way to renew them
};

// A change in the REST protocol's terms: the TableRequirement list that must hold on the table's
// current metadata, and the TableUpdate list to apply to it (both JSON arrays of objects with a
// "type" or "action" key, as the REST OpenAPI spells them).
struct TableChanges {
  nlohmann::json requirements = nlohmann::json::array();
  nlohmann::json updates = nlohmann::json::array();
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

  // A service catalog writes the metadata: tables are created with CreateTableFromRequest and
  // changed with CommitChanges, and CreateTable / CommitTable above are unsupported.
  virtual bool WritesMetadata() const { return false; }
  // The table's metadata location and, where the catalog sends it, the metadata.
  virtual Result<LoadedTable> Load(const TableIdentifier& id) {
    FLOE_ASSIGN_OR_RETURN(std::string location, LoadTable(id));
    return LoadedTable{std::move(location), nullptr};
  }
  // Creates `id` from a REST CreateTableRequest body (schema, partition-spec, write-order,
  // properties, optional location); a conflict error when it exists.
  virtual Result<LoadedTable> CreateTableFromRequest(const TableIdentifier& id,
                                                     const nlohmann::json& request);
  // Applies `changes` atomically: a conflict error (and no change) when a requirement fails. An
  // error of another kind may leave the outcome unknown (the service may have applied it): the
  // caller checks the table before cleaning anything up.
  virtual Result<LoadedTable> CommitChanges(const TableIdentifier& id, const TableChanges& changes);
};

using CatalogPtr = std::shared_ptr<Catalog>;

}  // namespace floe::catalog
