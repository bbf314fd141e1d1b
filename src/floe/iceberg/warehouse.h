// Warehouse: a store plus a catalog, opened from the URIs of docs/cli.md. A local warehouse is a
// directory holding catalog.db (the SQLite catalog named "floe") and the tables under
// <namespace>.db/<table>/; an s3:// warehouse keeps its catalog in a local SQLite file that must be
// named (`catalog`), since nothing ties a file of this machine's working directory to the bucket.
// With a REST catalog the service keeps the registry and places new tables; the warehouse is the
// store floe resolves paths against, and nothing is created in it.
// A warehouse is created only when asked (`create_if_missing`): opening a missing one to read is a
// not-found error, and creates nothing. Every table file moves through `io` (so decorators on the
// store -- counting, simulation -- see it all, the stores of other roots included).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/runtime.h"
#include "floe/io/object_store.h"
#include "floe/io/s3_store.h"

namespace floe::iceberg {

struct WarehouseOptions {
  std::string uri = "./floe-warehouse";
  // "sqlite:PATH" or "rest:http://HOST:PORT[/PATH][?warehouse=W]" (catalog/rest_catalog.h);
  // empty: <dir>/catalog.db locally; required for s3://
  std::string catalog;
  io::S3Options s3;
  // Wraps each opened store (simulation, counting): the warehouse's, and any other root a table's
  // locations reach (another directory, another bucket). Identity when empty.
  std::function<Result<io::StorePtr>(io::StorePtr)> decorate;
  // The pools' sizes and the caches' capacities of the warehouse's runtime.
  RuntimeOptions runtime;
  // Create the warehouse directory and its catalog when missing. Off, a missing warehouse or
  // catalog is a not-found error naming it and nothing is created (commands that only read).
  bool create_if_missing = true;
};

// `runtime` (the pools and caches every read of the warehouse shares) is the one `io` carries.
struct Warehouse {
  io::StorePtr store;
  catalog::CatalogPtr catalog;
  std::shared_ptr<FileIO> io;
  RuntimePtr runtime;
  std::string catalog_path;
};

Result<Warehouse> OpenWarehouse(const WarehouseOptions& options);

}  // namespace floe::iceberg
