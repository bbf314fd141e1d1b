#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <random>
#include <set>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/base/random.h"

namespace floe::iceberg {
namespace {

using nlohmann::json;

// Top-level keys this file models; anything else is carried in `extra`.
const std::set<std::string>& KnownKeys() {
  static const std::set<std::string> keys = {"format-version",
                                             "table-uuid",
                                             "location",
                                             "last-sequence-number",
                                             "last-updated-ms",
                                             "last-column-id",
                                             "schema",
                                             "schemas",
                                             "current-schema-id",
                                             "partition-spec",
                                             "partition-specs",
                                             "default-spec-id",
                                             "last-partition-id",
                                             "sort-orders",
                                             "default-sort-order-id",
                                             "properties",
                                             "current-snapshot-id",
                                             "snapshots",
                                             "refs",
                                             "snapshot-log",
                                             "metadata-log"};
  return keys;
}

template <typename T>
Result<T> Get(const json& j, const char* key, const std::string& name) {
  if (!j.contains(key)) return Corrupt("table metadata '{}' lacks required field '{}'", name, key);
  try {
    return j[key].get<T>();
  } catch (const json::exception&) {
    return Corrupt("table metadata '{}': field '{}' has the wrong type", name, key);
  }
}

std::map<std::string, std::string> StringMap(const json& j) {
  std::map<std::string, std::string> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  }
  return out;
}

Result<Snapshot> SnapshotFromJson(const json& j, const std::string& name) {
  Snapshot s;
  FLOE_ASSIGN_OR_RETURN(s.snapshot_id, Get<int64_t>(j, "snapshot-id", name));
  if (j.contains("parent-snapshot-id") && !j["parent-snapshot-id"].is_null()) {
    s.parent_snapshot_id = j["parent-snapshot-id"].get<int64_t>();
  }
  s.sequence_number = j.value("sequence-number", int64_t{0});
  FLOE_ASSIGN_OR_RETURN(s.timestamp_ms, Get<int64_t>(j, "timestamp-ms", name));
  if (!j.contains("manifest-list")) {
    if (j.contains("manifests")) {
      return Unsupported(
          "table metadata '{}': snapshot {} lists manifests inline (format v1 "
          "without a manifest list)",
          name, s.snapshot_id);
    }
    return Corrupt("table metadata '{}': snapshot {} has no manifest-list", name, s.snapshot_id);
  }
  s.manifest_list = j["manifest-list"].get<std::string>();
  if (j.contains("summary")) s.summary = StringMap(j["summary"]);
  if (j.contains("schema-id")) s.schema_id = j["schema-id"].get<int32_t>();
  for (auto it = j.begin(); it != j.end(); ++it) {
    static const std::set<std::string> known = {
        "snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms", "manifest-list",
        "summary",     "schema-id"};
    if (!known.contains(it.key())) s.extra[it.key()] = it.value();
  }
  return s;
}

json SnapshotToJson(const Snapshot& s) {
  json j = json::object();
  j["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  j["sequence-number"] = s.sequence_number;
  j["timestamp-ms"] = s.timestamp_ms;
  j["manifest-list"] = s.manifest_list;
  j["summary"] = s.summary;
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  for (auto it = s.extra.begin(); it != s.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace

std::string NewUuid() {
  uint64_t hi = RandomU64(), lo = RandomU64();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
}

const Schema* TableMetadata::SchemaById(int32_t id) const {
  for (const auto& s : schemas) {
    if (s.schema_id() == id) return &s;
  }
  return nullptr;
}

const Schema& TableMetadata::CurrentSchema() const {
  const Schema* s = SchemaById(current_schema_id);
  return s != nullptr ? *s : schemas.front();
}

const PartitionSpec* TableMetadata::SpecById(int32_t id) const {
  for (const auto& s : specs) {
    if (s.spec_id() == id) return &s;
  }
  return nullptr;
}

const PartitionSpec& TableMetadata::DefaultSpec() const {
  const PartitionSpec* s = SpecById(default_spec_id);
  return s != nullptr ? *s : specs.front();
}

const SortOrder* TableMetadata::SortOrderById(int32_t id) const {
  for (const auto& o : sort_orders) {
    if (o.order_id() == id) return &o;
  }
  return nullptr;
}

const SortOrder& TableMetadata::DefaultSortOrder() const {
  static const SortOrder kUnsorted;
  const SortOrder* o = SortOrderById(default_sort_order_id);
  return o != nullptr ? *o : kUnsorted;
}

const Snapshot* TableMetadata::SnapshotById(int64_t id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  if (auto main = refs.find("main"); main != refs.end())
    return SnapshotById(main->second.snapshot_id);
  return current_snapshot_id ? SnapshotById(*current_snapshot_id) : nullptr;
}

Result<const Snapshot*> TableMetadata::SnapshotAsOf(int64_t timestamp_ms) const {
  const Snapshot* found = nullptr;
  for (const auto& e : snapshot_log) {
    if (e.timestamp_ms <= timestamp_ms) found = SnapshotById(e.snapshot_id);
  }
  if (found == nullptr) {
    return NotFound("table has no snapshot at or before timestamp {} ms", timestamp_ms);
  }
  return found;
}

std::string TableMetadata::Property(const std::string& key, const std::string& fallback) const {
  auto it = properties.find(key);
  return it == properties.end() ? fallback : it->second;
}

int64_t TableMetadata::PropertyInt(const std::string& key, int64_t fallback) const {
  auto it = properties.find(key);
  if (it == properties.end()) return fallback;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return fallback;
  }
}

json TableMetadata::ToJson() const {
  json j = json::object();
  j["format-version"] = format_version;
  j["table-uuid"] = table_uuid;
  j["location"] = location;
  j["last-sequence-number"] = last_sequence_number;
  j["last-updated-ms"] = last_updated_ms;
  j["last-column-id"] = last_column_id;
  j["current-schema-id"] = current_schema_id;
  j["schemas"] = json::array();
  for (const auto& s : schemas) j["schemas"].push_back(s.ToJson());
  j["default-spec-id"] = default_spec_id;
  j["partition-specs"] = json::array();
  for (const auto& s : specs) j["partition-specs"].push_back(s.ToJson());
  j["last-partition-id"] = last_partition_id;
  j["default-sort-order-id"] = default_sort_order_id;
  j["sort-orders"] = json::array();
  for (const auto& o : sort_orders) j["sort-orders"].push_back(o.ToJson());
  j["properties"] = properties;
  j["current-snapshot-id"] = current_snapshot_id ? json(*current_snapshot_id) : json(-1);
  j["refs"] = json::object();
  for (const auto& [name, ref] : refs) {
    json r = {{"snapshot-id", ref.snapshot_id}, {"type", ref.type}};
    for (auto it = ref.extra.begin(); it != ref.extra.end(); ++it) r[it.key()] = it.value();
    j["refs"][name] = r;
  }
  j["snapshots"] = json::array();
  for (const auto& s : snapshots) j["snapshots"].push_back(SnapshotToJson(s));
  j["snapshot-log"] = json::array();
  for (const auto& e : snapshot_log) {
    j["snapshot-log"].push_back({{"timestamp-ms", e.timestamp_ms}, {"snapshot-id", e.snapshot_id}});
  }
  j["metadata-log"] = json::array();
  for (const auto& e : metadata_log) {
    j["metadata-log"].push_back(
        {{"timestamp-ms", e.timestamp_ms}, {"metadata-file", e.metadata_file}});
  }
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

Result<TableMetadata> TableMetadata::Parse(std::string_view text, const std::string& name) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Corrupt("table metadata '{}' is not a JSON object", name);
  }
  return FromJson(j, name);
}

Result<TableMetadata> TableMetadata::FromJson(const json& j, const std::string& name) {
  TableMetadata m;
  FLOE_ASSIGN_OR_RETURN(m.format_version, Get<int>(j, "format-version", name));
  if (m.format_version < 1 || m.format_version > 3) {
    return Unsupported("table metadata '{}' has format version {} (floe reads 1-3)", name,
                       m.format_version);
  }
  m.table_uuid = j.value("table-uuid", "");
  FLOE_ASSIGN_OR_RETURN(m.location, Get<std::string>(j, "location", name));
  m.last_sequence_number = j.value("last-sequence-number", int64_t{0});
  FLOE_ASSIGN_OR_RETURN(m.last_updated_ms, Get<int64_t>(j, "last-updated-ms", name));
  FLOE_ASSIGN_OR_RETURN(m.last_column_id, Get<int32_t>(j, "last-column-id", name));

  auto bad = [&](const Error& e) { return Corrupt("table metadata '{}': {}", name, e.message); };
  if (j.contains("schemas") && j["schemas"].is_array()) {
    for (const auto& sj : j["schemas"]) {
      auto s = Schema::FromJson(sj);
      if (!s) return bad(s.error());
      m.schemas.push_back(std::move(*s));
    }
    m.current_schema_id = j.value("current-schema-id", 0);
  } else if (j.contains("schema")) {  // v1
    auto s = Schema::FromJson(j["schema"]);
    if (!s) return bad(s.error());
    m.current_schema_id = s->schema_id();
    m.schemas.push_back(std::move(*s));
  }
  if (m.schemas.empty()) return Corrupt("table metadata '{}' has no schema", name);
  if (m.SchemaById(m.current_schema_id) == nullptr) {
    return Corrupt("table metadata '{}': current-schema-id {} is not among its schemas", name,
                   m.current_schema_id);
  }

  if (j.contains("partition-specs") && j["partition-specs"].is_array()) {
    for (const auto& sj : j["partition-specs"]) {
      auto s = PartitionSpec::FromJson(sj);
      if (!s) return bad(s.error());
      m.specs.push_back(std::move(*s));
    }
    m.default_spec_id = j.value("default-spec-id", 0);
  } else if (j.contains("partition-spec")) {  // v1: the fields of spec 0
    auto s = PartitionSpec::FromJson(json{{"spec-id", 0}, {"fields", j["partition-spec"]}});
    if (!s) return bad(s.error());
    m.specs.push_back(std::move(*s));
  }
  if (m.specs.empty()) m.specs.emplace_back();
  if (m.SpecById(m.default_spec_id) == nullptr) {
    return Corrupt("table metadata '{}': default-spec-id {} is not among its specs", name,
                   m.default_spec_id);
  }
  m.last_partition_id = kFirstPartitionFieldId - 1;
  for (const auto& s : m.specs)
    m.last_partition_id = std::max(m.last_partition_id, s.LastFieldId());
  m.last_partition_id = j.value("last-partition-id", m.last_partition_id);

  if (j.contains("sort-orders") && j["sort-orders"].is_array()) {
    for (const auto& oj : j["sort-orders"]) {
      auto o = SortOrder::FromJson(oj);
      if (!o) return bad(o.error());
      m.sort_orders.push_back(std::move(*o));
    }
  }
  if (m.sort_orders.empty()) m.sort_orders.emplace_back();
  m.default_sort_order_id = j.value("default-sort-order-id", 0);

  if (j.contains("properties")) m.properties = StringMap(j["properties"]);
  if (j.contains("current-snapshot-id") && !j["current-snapshot-id"].is_null() &&
      j["current-snapshot-id"].get<int64_t>() != -1) {
    m.current_snapshot_id = j["current-snapshot-id"].get<int64_t>();
  }
  if (j.contains("snapshots") && j["snapshots"].is_array()) {
    for (const auto& sj : j["snapshots"]) {
      FLOE_ASSIGN_OR_RETURN(Snapshot s, SnapshotFromJson(sj, name));
      m.snapshots.push_back(std::move(s));
    }
  }
  if (j.contains("refs") && j["refs"].is_object()) {
    for (auto it = j["refs"].begin(); it != j["refs"].end(); ++it) {
      SnapshotRef r;
      FLOE_ASSIGN_OR_RETURN(r.snapshot_id, Get<int64_t>(it.value(), "snapshot-id", name));
      r.type = it.value().value("type", "branch");
      for (auto f = it.value().begin(); f != it.value().end(); ++f) {
        if (f.key() != "snapshot-id" && f.key() != "type") r.extra[f.key()] = f.value();
      }
      m.refs[it.key()] = std::move(r);
    }
  } else if (m.current_snapshot_id) {
    m.refs["main"] = SnapshotRef{*m.current_snapshot_id, "branch", json::object()};
  }
  if (m.current_snapshot_id && m.SnapshotById(*m.current_snapshot_id) == nullptr) {
    return Corrupt("table metadata '{}': current snapshot {} is not among its snapshots", name,
                   *m.current_snapshot_id);
  }
  if (j.contains("snapshot-log") && j["snapshot-log"].is_array()) {
    for (const auto& e : j["snapshot-log"]) {
      m.snapshot_log.push_back(
          {e.value("timestamp-ms", int64_t{0}), e.value("snapshot-id", int64_t{0})});
    }
  }
  if (j.contains("metadata-log") && j["metadata-log"].is_array()) {
    for (const auto& e : j["metadata-log"]) {
      m.metadata_log.push_back({e.value("timestamp-ms", int64_t{0}), e.value("metadata-file", "")});
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!KnownKeys().contains(it.key())) m.extra[it.key()] = it.value();
  }
  // Read v1/v3 tables; writes go out as v2 (v3-only features are refused by the writers).
  return m;
}

TableMetadata NewTableMetadata(Schema schema, PartitionSpec spec, SortOrder order,
                               std::string location,
                               std::map<std::string, std::string> properties) {
  TableMetadata m;
  m.format_version = 2;
  m.table_uuid = NewUuid();
  m.location = std::move(location);
  m.last_updated_ms = UnixMillisNow();
  m.last_column_id = schema.HighestFieldId();
  m.current_schema_id = schema.schema_id();
  m.schemas.push_back(std::move(schema));
  m.default_spec_id = spec.spec_id();
  m.last_partition_id = spec.LastFieldId();
  m.specs.push_back(std::move(spec));
  m.sort_orders.emplace_back();  // order 0, unsorted, always present
  if (!order.unsorted()) {
    m.default_sort_order_id = order.order_id();
    m.sort_orders.push_back(std::move(order));
  }
  m.properties = std::move(properties);
  return m;
}

}  // namespace floe::iceberg
