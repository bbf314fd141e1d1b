#include "floe/iceberg/warehouse.h"

#include <filesystem>

#include "floe/catalog/rest_catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/io/store_uri.h"

namespace floe::iceberg {
namespace {

// The SQLite file a "sqlite:PATH" catalog URI names.
Result<std::string> CatalogFile(const std::string& uri) {
  if (!uri.starts_with("sqlite:")) {
    return InvalidInput("catalog '{}': expected sqlite:PATH or rest:http://HOST:PORT", uri);
  }
  std::string path = uri.substr(7);
  if (path.starts_with("///")) path = path.substr(2);  // sqlite:///abs/path as SQLAlchemy writes it
  if (path.empty()) return InvalidInput("catalog '{}' names no file", uri);
  return path;
}

}  // namespace

Result<Warehouse> OpenWarehouse(const WarehouseOptions& options) {
  FLOE_ASSIGN_OR_RETURN(io::StoreUri parsed, io::ParseStoreUri(options.uri));
  if (parsed.scheme == io::StoreUri::Scheme::kMem) {
    return InvalidInput("warehouse '{}': mem:// stores hold no catalog; use a directory or s3://",
                        options.uri);
  }
  // Everything is checked before anything is created.
  const bool rest = options.catalog.starts_with("rest:");
  std::string path;
  if (rest) {
    // The service keeps the registry; the warehouse is where floe resolves relative paths.
  } else if (!options.catalog.empty()) {
    FLOE_ASSIGN_OR_RETURN(path, CatalogFile(options.catalog));
  } else if (parsed.scheme == io::StoreUri::Scheme::kFile) {
    path = parsed.path + "/catalog.db";
  } else {
    return InvalidInput(
        "warehouse '{}' needs --catalog sqlite:PATH (or FLOE_CATALOG): an s3:// warehouse keeps "
        "its tables' registry in a SQLite file of your choosing, and floe does not guess one",
        options.uri);
  }
  std::error_code ec;
  if (!options.create_if_missing && !rest) {
    if (parsed.scheme == io::StoreUri::Scheme::kFile &&
        !std::filesystem::is_directory(parsed.path, ec)) {
      return NotFound("warehouse '{}' does not exist", options.uri);
    }
    if (!std::filesystem::exists(path, ec)) {
      if (options.catalog.empty()) {
        return NotFound("warehouse '{}' has no catalog: '{}' does not exist", options.uri, path);
      }
      return NotFound("catalog '{}' does not exist", options.catalog);
    }
  }

  Warehouse w;
  std::string store_uri = options.uri;
  if (rest && parsed.scheme == io::StoreUri::Scheme::kFile &&
      !std::filesystem::is_directory(parsed.path, ec)) {
    // The service places tables; a local warehouse that does not exist is not created for it,
    // and local paths resolve from the filesystem's root.
    store_uri = "/";
  }
  FLOE_ASSIGN_OR_RETURN(io::StorePtr base, io::OpenStore(store_uri, options.s3));
  std::string root_uri = base->Uri();
  w.store = base;
  if (options.decorate) {
    FLOE_ASSIGN_OR_RETURN(w.store, options.decorate(base));
  }
  StoreOpener open_other =
      [s3 = options.s3, decorate = options.decorate](
          const std::string& uri,
          const std::map<std::string, std::string>& properties) -> Result<io::StorePtr> {
    io::S3Options o = s3;
    FLOE_RETURN_IF_ERROR(o.ApplyProperties(properties));
    FLOE_ASSIGN_OR_RETURN(io::StorePtr store, io::OpenStore(uri, o));
    if (decorate) return decorate(std::move(store));
    return store;
  };
  w.runtime = Runtime::Make(options.runtime);
  w.io = std::make_shared<FileIO>(w.store, root_uri, std::move(open_other), w.runtime);

  if (rest) {
    FLOE_ASSIGN_OR_RETURN(catalog::RestCatalogOptions ro,
                          catalog::ParseRestCatalogUri(options.catalog));
    FLOE_ASSIGN_OR_RETURN(w.catalog, catalog::RestCatalog::Open(std::move(ro)));
    return w;
  }
  if (options.create_if_missing) {
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  FLOE_ASSIGN_OR_RETURN(auto sql,
                        catalog::SqlCatalog::Open(path, "floe", options.create_if_missing));
  w.catalog = sql;
  w.catalog_path = std::filesystem::absolute(path).string();
  return w;
}

}  // namespace floe::iceberg
