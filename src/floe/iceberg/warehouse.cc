#include "floe/iceberg/warehouse.h"

#include <filesystem>

#include "floe/catalog/sql_catalog.h"
#include "floe/io/store_uri.h"

namespace floe::iceberg {

Result<Warehouse> OpenWarehouse(const WarehouseOptions& options) {
  FLOE_ASSIGN_OR_RETURN(io::StoreUri parsed, io::ParseStoreUri(options.uri));
  if (parsed.scheme == io::StoreUri::Scheme::kMem) {
    return InvalidInput("warehouse '{}': mem:// stores hold no catalog; use a directory or s3://",
                        options.uri);
  }
  Warehouse w;
  FLOE_ASSIGN_OR_RETURN(io::StorePtr base, io::OpenStore(options.uri, options.s3));
  std::string root_uri = base->Uri();
  w.store = base;
  if (options.decorate) {
    FLOE_ASSIGN_OR_RETURN(w.store, options.decorate(base));
  }
  w.io = std::make_shared<FileIO>(w.store, root_uri);

  std::string path;
  if (!options.catalog.empty()) {
    if (!options.catalog.starts_with("sqlite:")) {
      return InvalidInput(
          "catalog '{}': expected sqlite:PATH (REST catalogs are not supported yet)",
          options.catalog);
    }
    path = options.catalog.substr(7);
    if (path.starts_with("///"))
      path = path.substr(2);  // sqlite:///abs/path as SQLAlchemy writes it
    if (path.empty()) return InvalidInput("catalog '{}' names no file", options.catalog);
  } else if (parsed.scheme == io::StoreUri::Scheme::kFile) {
    path = parsed.path + "/catalog.db";
  } else {
    path = "catalog.db";
  }
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  FLOE_ASSIGN_OR_RETURN(auto sql, catalog::SqlCatalog::Open(path, "floe"));
  w.catalog = sql;
  w.catalog_path = std::filesystem::absolute(path).string();
  return w;
}

}  // namespace floe::iceberg
