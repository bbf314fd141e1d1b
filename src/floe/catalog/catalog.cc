#include "floe/catalog/catalog.h"

#include <charconv>

namespace floe::catalog {

int64_t StorageCredential::ExpiresAtMs() const {
  auto it = config.find("s3.session-token-expires-at-ms");
  if (it == config.end()) return 0;
  int64_t ms = 0;
  const char* end = it->second.data() + it->second.size();
  auto [ptr, ec] = std::from_chars(it->second.data(), end, ms);
  // A value that is not a time is taken as "already expired": renewed rather than trusted.
  return ec == std::errc() && ptr == end ? ms : 1;
}

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
