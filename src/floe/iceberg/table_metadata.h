// TableMetadata: the contents of a `<V>-<uuid>.metadata.json` file -- schemas, partition specs,
// sort orders, properties, snapshots, refs and logs -- read from format v1, v2 and v3 JSON and
// written in the table's own version (v3 adds row lineage: next-row-id, a snapshot's first-row-id
// and added-rows). Keys floe does not model are kept and written back unchanged, so rewriting
// metadata made by another engine loses nothing. Plain data; commits build a new value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;
  std::map<std::string, std::string> summary;  // includes "operation"
  std::optional<int32_t> schema_id;
  // v3 row lineage: the first row id the snapshot's manifest list hands out, and the ids it hands
  // out (an upper bound of the rows given ids). Unset in v1/v2 and in snapshots of upgraded tables
  // made before the upgrade.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  nlohmann::json extra = nlohmann::json::object();  // keys floe does not model

  std::string operation() const {
    auto it = summary.find("operation");
    return it == summary.end() ? "" : it->second;
  }
};

struct SnapshotRef {
  int64_t snapshot_id = 0;
  std::string type = "branch";                      // or "tag"
  nlohmann::json extra = nlohmann::json::object();  // retention settings
};

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
};

struct TableMetadata {
  int format_version = 2;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  // v3: higher than every row id assigned; the next snapshot's first-row-id.
  int64_t next_row_id = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = kFirstPartitionFieldId - 1;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::map<std::string, SnapshotRef> refs;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  nlohmann::json extra = nlohmann::json::object();  // statistics, partition-statistics, ...

  const Schema* SchemaById(int32_t id) const;
  const Schema& CurrentSchema() const;
  const PartitionSpec* SpecById(int32_t id) const;
  const PartitionSpec& DefaultSpec() const;
  const SortOrder* SortOrderById(int32_t id) const;
  const SortOrder& DefaultSortOrder() const;
  const Snapshot* SnapshotById(int64_t id) const;
  const Snapshot* CurrentSnapshot() const;
  // The snapshot that was current at `timestamp_ms` (from the snapshot log), or an error naming
  // the time when the table had none yet.
  Result<const Snapshot*> SnapshotAsOf(int64_t timestamp_ms) const;

  // A table property, or `fallback` when unset.
  std::string Property(const std::string& key, const std::string& fallback) const;
  int64_t PropertyInt(const std::string& key, int64_t fallback) const;

  nlohmann::json ToJson() const;
  // `name` (the file's location) is used in errors. JSON of any shape gives a value or a corrupt
  // error naming the file and the field; refs must point at snapshots of the table, and 'main' at
  // the current one.
  static Result<TableMetadata> FromJson(const nlohmann::json& j, const std::string& name);
  static Result<TableMetadata> Parse(std::string_view text, const std::string& name);

 private:
  static Result<TableMetadata> Decode(const nlohmann::json& j, const std::string& name);
};

// The format versions floe writes.
inline constexpr int kMinWriteFormatVersion = 2;
inline constexpr int kMaxWriteFormatVersion = 3;

// Metadata for a new table (no snapshots) of `format_version` (2 or 3).
TableMetadata NewTableMetadata(Schema schema, PartitionSpec spec, SortOrder order,
                               std::string location, std::map<std::string, std::string> properties,
                               int format_version = 2);

// A random version-4 UUID in its canonical text form.
std::string NewUuid();

}  // namespace floe::iceberg
