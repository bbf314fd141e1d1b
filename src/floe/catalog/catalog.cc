#include "floe/catalog/catalog.h"

namespace floe::catalog {

Result<LoadedTable> Catalog::CreateTableFromRequest(const TableIdentifier& id,
                                                    const nlohmann::json& /*request*/) {
  return Unsupported("catalog '{}' registers metadata files; it cannot create '{}' from a request",
                     name(), id.ToString());
}

Result<LoadedTable> Catalog::CommitChanges(const TableIdentifier& id,
                                           const TableChanges& /*changes*/) {
  return Unsupported("catalog '{}' commits by metadata location; it cannot apply changes to '{}'",
                     name(), id.ToString());
}

}  // namespace floe::catalog
