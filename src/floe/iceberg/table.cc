#include "floe/iceberg/table.h"

#include "floe/iceberg/table_properties.h"

#include <charconv>

#include <fmt/format.h>

#include "floe/iceberg/location.h"
#include "floe/iceberg/row_order.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/table_location.h"
#include "floe/iceberg/table_update.h"

namespace floe::iceberg {

std::string NewMetadataLocation(const std::string& table_location, int version) {
  return fmt::format("{}/metadata/{:05d}-{}.metadata.json", table_location, version, NewUuid());
}

int MetadataVersion(std::string_view location) {
  auto slash = location.rfind('/');
  std::string_view file = slash == std::string_view::npos ? location : location.substr(slash + 1);
  auto dash = file.find('-');
  if (dash == std::string_view::npos) return -1;
  int v = -1;
  auto [p, ec] = std::from_chars(file.data(), file.data() + dash, v);
  return ec == std::errc() && p == file.data() + dash ? v : -1;
}

Result<std::vector<ManifestFile>> Table::Manifests(const FileIO& io,
                                                   const Snapshot& snapshot) const {
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadMetadata(snapshot.manifest_list));
  FLOE_ASSIGN_OR_RETURN(auto decoded, io.runtime().decoded_metadata().DecodeManifestList(
                                          bytes, snapshot.manifest_list));
  return *decoded;
}

Result<std::vector<ManifestEntry>> Table::LiveEntries(const FileIO& io,
                                                      std::optional<int64_t> snapshot_id) const {
  const Snapshot* snap =
      snapshot_id ? metadata.SnapshotById(*snapshot_id) : metadata.CurrentSnapshot();
  if (snapshot_id && snap == nullptr) return NotFound("snapshot {} does not exist", *snapshot_id);
  std::vector<ManifestEntry> out;
  if (snap == nullptr) return out;
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, Manifests(io, *snap));
  for (const auto& m : manifests) {
    const PartitionSpec* spec = metadata.SpecById(m.partition_spec_id);
    if (spec == nullptr) {
      return Corrupt("manifest '{}' uses partition spec {} that the table lacks", m.manifest_path,
                     m.partition_spec_id);
    }
    FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec->PartitionType(metadata.CurrentSchema()));
    FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadMetadata(m.manifest_path));
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                          ReadManifest(bytes, m.manifest_path, m, *ptype));
    for (auto& e : entries) {
      if (e.status != EntryStatus::kDeleted) out.push_back(std::move(e));
    }
  }
  return out;
}

Status ValidateLayoutProperty(const std::map<std::string, std::string>& properties,
                              const Schema& schema, const PartitionSpec& spec) {
  auto it = properties.find(std::string(kLayoutProperty));
  if (it == properties.end()) return {};
  // The layout's columns must be the table's (the syntax is checked with the properties).
  FLOE_ASSIGN_OR_RETURN(layout::ClusterSpec cluster, layout::ParseClusterSpec(it->second));
  if (cluster.is_otree() && !spec.fields().empty()) {
    return InvalidInput(
        "table property {} = '{}': an OTree lays out an unpartitioned table (its cubes are "
        "the partitioning); drop the partition spec or cluster with zorder/hilbert",
        kLayoutProperty, it->second);
  }
  auto resolved = ResolveClusterSpec(cluster, schema, spec);
  if (!resolved) {
    return InvalidInput("table property {} = '{}': {}", kLayoutProperty, it->second,
                        resolved.error().message);
  }
  return {};
}

Result<Table> CreateTable(catalog::Catalog& catalog, const FileIO& io,
                          const catalog::TableIdentifier& id, CreateTableOptions options) {
  FLOE_RETURN_IF_ERROR(options.schema.Validate());
  FLOE_RETURN_IF_ERROR(options.spec.Validate(options.schema));
  FLOE_RETURN_IF_ERROR(ValidateTableProperties(options.properties));
  FLOE_RETURN_IF_ERROR(ValidateLayoutProperty(options.properties, options.schema, options.spec));
  int format_version = options.format_version.value_or(2);
  if (auto it = options.properties.find("format-version"); it != options.properties.end()) {
    const int v = std::stoi(it->second);  // validated: 2 or 3
    if (options.format_version && *options.format_version != v) {
      return InvalidInput("table '{}': format version {} and property format-version={} disagree",
                          id.ToString(), *options.format_version, v);
    }
    format_version = v;
    options.properties.erase(it);
  }
  if (format_version < kMinWriteFormatVersion || format_version > kMaxWriteFormatVersion) {
    return InvalidInput("table '{}': format version {}: floe creates tables of version 2 or 3",
                        id.ToString(), format_version);
  }
  std::string ns = id.NamespaceString();
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, catalog.NamespaceExists(ns));
  if (!ns_exists) {
    auto created = catalog.CreateNamespace(ns, {});
    if (!created && created.error().kind != ErrorKind::kConflict)
      return std::unexpected(created.error());
  }
  if (auto existing = catalog.LoadTable(id); existing) {
    return Conflict("table '{}' already exists", id.ToString());
  }
  std::string location = options.location;
  // A service catalog places a table itself unless told where.
  const bool service_places = catalog.WritesMetadata() && location.empty();
  if (location.empty() && !service_places) location = DefaultTableLocation(io.root_uri(), id);
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  if (!service_places) {
    // A table holding the whole warehouse (its catalog file among its "orphans") is refused.
    FLOE_ASSIGN_OR_RETURN(Location at, Location::Parse(location));
    auto root = Location::Parse(io.root_uri());
    if (root && (at == *root || at.Contains(*root))) {
      return InvalidInput("table '{}': location '{}' would hold the whole warehouse '{}'",
                          id.ToString(), location, io.root_uri());
    }
  }
  // Iceberg's own defaults, recorded so other engines write the table the same way.
  options.properties.emplace("write.parquet.compression-codec", "zstd");
  TableMetadata m = NewTableMetadata(std::move(options.schema), std::move(options.spec),
                                     std::move(options.sort_order), location,
                                     std::move(options.properties), format_version);
  if (catalog.WritesMetadata()) {
    FLOE_ASSIGN_OR_RETURN(
        catalog::LoadedTable created,
        catalog.CreateTableFromRequest(id, CreateTableRequest(m, !service_places)));
    return TableFromCatalog(io, id, created);
  }
  Table t{id, NewMetadataLocation(location, 0), std::move(m)};
  std::string json = t.metadata.ToJson().dump();
  FLOE_RETURN_IF_ERROR(io.WriteIfAbsent(t.metadata_location, AsBytes(json)));
  auto registered = catalog.CreateTable(id, t.metadata_location);
  if (!registered) {
    (void)io.Delete(t.metadata_location);
    return std::unexpected(registered.error());
  }
  return t;
}

Result<Table> LoadStaticTable(const FileIO& io, const std::string& metadata_location) {
  auto bytes = io.ReadMetadata(metadata_location);
  if (!bytes) {
    Error e = bytes.error();
    e.message = fmt::format("cannot read table metadata '{}': {}", metadata_location, e.message);
    return std::unexpected(e);
  }
  FLOE_ASSIGN_OR_RETURN(
      auto m, io.runtime().decoded_metadata().DecodeTableMetadata(*bytes, metadata_location));
  return Table{catalog::TableIdentifier{}, metadata_location, *m};
}

Result<Table> TableFromCatalog(const FileIO& io, const catalog::TableIdentifier& id,
                               const catalog::LoadedTable& loaded) {
  if (!loaded.credentials.empty())
    io.UseCredentials(loaded.credentials, loaded.refresh_credentials);
  if (loaded.metadata.is_null()) {
    FLOE_ASSIGN_OR_RETURN(Table t, LoadStaticTable(io, loaded.metadata_location));
    t.id = id;
    return t;
  }
  FLOE_ASSIGN_OR_RETURN(TableMetadata m,
                        TableMetadata::FromJson(loaded.metadata, loaded.metadata_location));
  return Table{id, loaded.metadata_location, std::move(m)};
}

Result<Table> LoadTable(catalog::Catalog& catalog, const FileIO& io,
                        const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable loaded, catalog.Load(id));
  auto t = TableFromCatalog(io, id, loaded);
  if (!t) {
    // The catalog has the table; its metadata file is gone or unreadable: not "not found".
    Error e = t.error();
    if (e.kind == ErrorKind::kNotFound) e.kind = ErrorKind::kCorrupt;
    e.message = fmt::format("table {}: {}", id.ToString(), e.message);
    return std::unexpected(e);
  }
  t->id = id;
  return t;
}

Status DropTable(catalog::Catalog& catalog, const FileIO& io, const catalog::TableIdentifier& id,
                 bool purge) {
  if (!purge) return catalog.DropTable(id);
  // Everything is checked before the table is unregistered: a refused purge changes nothing.
  FLOE_ASSIGN_OR_RETURN(Table t, LoadTable(catalog, io, id));
  FLOE_ASSIGN_OR_RETURN(OtherTables others,
                        OtherTables::Load(catalog, io, id, t.metadata.location));
  FLOE_RETURN_IF_ERROR(others.CheckRemovable("purge"));
  FLOE_ASSIGN_OR_RETURN(StoreObject root, io.Resolve(t.metadata.location));
  FLOE_RETURN_IF_ERROR(catalog.DropTable(id));
  const std::string prefix = root.key + "/";
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> objects, root.store->ListAll(prefix));
  for (const auto& o : objects) {
    const std::string location = root.LocationOf(o.key);
    if (others.Owner(location) != nullptr) continue;
    FLOE_RETURN_IF_ERROR(io.Delete(location));
  }
  // Temp files of killed writes, whatever their age: the table is gone, so no write into it can
  // still commit.
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> abandoned,
                        root.store->ListAbandonedWrites(prefix));
  for (const auto& o : abandoned) {
    if (others.Owner(root.LocationOf(o.key)) != nullptr) continue;
    FLOE_RETURN_IF_ERROR(root.store->DeleteAbandonedWrite(o.key));
  }
  return {};
}

}  // namespace floe::iceberg
