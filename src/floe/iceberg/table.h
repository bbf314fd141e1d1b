// Table: a loaded Iceberg table (identifier, current metadata location, metadata) and the catalog
// operations on whole tables: create, load, load a metadata file directly (static), drop with or
// without purging its files. Plain data; every change makes a new Table through a commit.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

struct Table {
  catalog::TableIdentifier id;  // empty for a static table
  std::string metadata_location;
  TableMetadata metadata;

  // The data files of a snapshot (current when nullopt), read from its manifests.
  // Deleted entries are left out.
  Result<std::vector<ManifestEntry>> LiveEntries(
      const FileIO& io, std::optional<int64_t> snapshot_id = std::nullopt) const;
  Result<std::vector<ManifestFile>> Manifests(const FileIO& io, const Snapshot& snapshot) const;
};

struct CreateTableOptions {
  Schema schema;
  PartitionSpec spec;
  SortOrder sort_order;
  // The property `format-version` (Iceberg's reserved one, as Spark's TBLPROPERTIES set it) also
  // gives the version; it goes into the metadata, not the properties.
  std::map<std::string, std::string> properties;
  std::string location;  // empty: DefaultTableLocation (<warehouse>/<namespace>.db/<table>)
  std::optional<int> format_version;  // 2 (default) or 3
};

// The table property floe.layout (when set) checked against a schema and spec: its syntax, its
// columns, and an OTree only on an unpartitioned table. An error names the property and value.
Status ValidateLayoutProperty(const std::map<std::string, std::string>& properties,
                              const Schema& schema, const PartitionSpec& spec);

// Creates the namespace if missing, writes metadata version 0 and registers the table.
Result<Table> CreateTable(catalog::Catalog& catalog, const FileIO& io,
                          const catalog::TableIdentifier& id, CreateTableOptions options);
// The table a catalog answered with: its metadata as sent, or read from its location.
Result<Table> TableFromCatalog(const FileIO& io, const catalog::TableIdentifier& id,
                               const catalog::LoadedTable& loaded);
Result<Table> LoadTable(catalog::Catalog& catalog, const FileIO& io,
                        const catalog::TableIdentifier& id);
// Opens a metadata file directly, without a catalog (read-only use).
Result<Table> LoadStaticTable(const FileIO& io, const std::string& metadata_location);
// Unregisters the table; with `purge`, also deletes every object under its location (temp files
// of killed writes included) but those another table may own, and refuses (changing nothing) when
// another table's files may lie anywhere there (table_location.h).
Status DropTable(catalog::Catalog& catalog, const FileIO& io, const catalog::TableIdentifier& id,
                 bool purge);

// "<location>/metadata/<version:05d>-<uuid>.metadata.json"
std::string NewMetadataLocation(const std::string& table_location, int version);
// The version number of a metadata file name, or -1 when it has none.
int MetadataVersion(std::string_view metadata_location);

}  // namespace floe::iceberg
