// Where tables live, and which files under a table's location are another table's. A new table's
// default location is "<warehouse>/<namespace>.db/<table>" (pyiceberg's SqlCatalog and Hive lay
// tables out so): the namespace is one directory named with ".db", the table one directory below,
// with '%' and '/' escaped, so no two tables' default locations ever nest, and two are equal only
// for one catalog identity. Explicit locations can still nest (Spark's LOCATION, the library's
// CreateTableOptions), and an existing table keeps the location its metadata names; OtherTables is
// what orphan removal and purge consult so that they never touch another table's files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/location.h"

namespace floe::iceberg {

// "<warehouse_root>/<ns>.db/<name>", ns being the catalog's namespace string (levels joined by
// '.'). '%' and '/' are percent-escaped, and so is a name of only dots; the namespace "catalog"
// becomes "%63atalog.db", since a local warehouse's catalog file is "catalog.db".
std::string DefaultTableLocation(std::string_view warehouse_root,
                                 const catalog::TableIdentifier& id);

// The parts of one table's location that belong to the catalog's other tables: every other table
// whose location lies inside it (or equals it), and, when it lies inside another table's location,
// that table's data and metadata directories (and its write.data.path / write.metadata.path).
class OtherTables {
 public:
  // Reads the catalog's other tables (one metadata file each; a table whose metadata cannot be
  // read is taken to live where its metadata file does). `location` is `id`'s own location.
  static Result<OtherTables> Load(catalog::Catalog& catalog, const FileIO& io,
                                  const catalog::TableIdentifier& id, std::string_view location);

  // The other table `location` (any spelling) may belong to, or nullptr when it is not under any.
  const catalog::TableIdentifier* Owner(std::string_view location) const;
  // A conflict error when another table's files may lie anywhere under the location, so nothing
  // in it can be removed (`what`: "remove orphan files of", "purge"): the table shares its
  // location with another, or lies in another table's data or metadata directory.
  Status CheckRemovable(std::string_view what) const;

 private:
  struct Claim {
    Location at;  // canonical: this and everything below it
    catalog::TableIdentifier table;
  };
  catalog::TableIdentifier id_;
  Location location_;
  std::vector<Claim> claims_;
};

}  // namespace floe::iceberg
