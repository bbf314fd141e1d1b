// Shared state of the `floe table` subcommands (table.cc, table_append.cc): their parsed arguments
// and the warehouse/table opening helpers. Internal to tools/floe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/warehouse.h"
#include "query_session.h"

namespace floe::cli {

struct TableArgs {
  std::string table;
  std::string like;
  std::string schema;
  std::string partition_by;
  std::string sort_by;
  std::optional<int> format_version;
  std::vector<std::string> properties;
  std::vector<std::string> inputs;  // append: files or folders
  bool purge = false;
  // describe, snapshots, files: "text" (the listing) or a result format (result_printer.h)
  std::string format = "text";
};

// Runs `sql` (a SELECT, SHOW or DESCRIBE) through the query session and prints its rows in
// `output`'s format: the listings' --format, in the same printer and types as `floe query`.
int PrintQuery(const GlobalOptions& g, QueryOutput output, const std::string& sql);
// NAMESPACE.TABLE with every level quoted, so any name is taken as it is.
Result<std::string> QuotedTableName(const std::string& table);

// Opens the warehouse the global flags name; a missing one is an error unless `create_if_missing`
// (only commands that make tables create it).
Result<iceberg::Warehouse> OpenWarehouseFor(const GlobalOptions& g,
                                            bool simulate_by_default = false,
                                            bool create_if_missing = false);
// The table `name` through w's catalog; what the catalog vends with it (credentials) goes to w's
// FileIO, so the table is read through `w`.
Result<iceberg::Table> LoadTableFor(const iceberg::Warehouse& w, const std::string& name);
// The Iceberg schema of a Parquet file's columns (ids from the file, fresh ones where missing),
// or of a CSV/JSON file's sniffed columns (all optional).
Result<iceberg::Schema> SchemaLikeFile(const GlobalOptions& g, const std::string& path);
// Maintenance: rewrite, rewrite-manifests (table_rewrite.cc), expire, remove-orphans
// (table_expire.cc).
void AddRewriteCommands(CLI::App& table_cmd, GlobalOptions& options);
void AddExpireCommands(CLI::App& table_cmd, GlobalOptions& options);
void AddTableScanCommand(CLI::App& table_cmd, GlobalOptions& options);
void AddTableListCommand(CLI::App& table_cmd, GlobalOptions& options);
void AddAppendCommand(CLI::App& table_cmd, GlobalOptions& options, std::shared_ptr<TableArgs> args);
// add-files (table_add_files.cc).
void AddAddFilesCommand(CLI::App& table_cmd, GlobalOptions& options);

}  // namespace floe::cli
