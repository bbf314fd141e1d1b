// Warehouse: a store plus a catalog, opened from the URIs of CLI.md. A local warehouse is a
// directory holding catalog.db (the SQLite catalog named "floe") and the tables under
// <namespace>/<table>/; an s3:// warehouse keeps its catalog in a local SQLite file. Every table
// file moves through `io` (so decorators on the store -- counting, simulation -- see it all).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/io/object_store.h"
#include "floe/io/s3_store.h"

namespace floe::iceberg {

struct WarehouseOptions {
  std::string uri = "./floe-warehouse";
  std::string catalog;  // "sqlite:PATH"; empty: <dir>/catalog.db locally, ./catalog.db for s3://
  io::S3Options s3;
  // Wraps the opened store (simulation, counting); identity when empty.
  std::function<Result<io::StorePtr>(io::StorePtr)> decorate;
};

struct Warehouse {
  io::StorePtr store;
  catalog::CatalogPtr catalog;
  std::shared_ptr<FileIO> io;
  std::string catalog_path;
};

Result<Warehouse> OpenWarehouse(const WarehouseOptions& options);

}  // namespace floe::iceberg
