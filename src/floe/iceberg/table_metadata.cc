#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <random>
#include <set>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/base/random.h"
#include "floe/iceberg/json_field_internal.h"

namespace floe::iceberg {
namespace {

using nlohmann::json;

// Top-level keys this file models; anything else is carried in `extra`.
const std::set<std::string>& KnownKeys() {
  static const std::set<std::string> keys = {
      "format-version",  "table-uuid",          "location",       "last-sequence-number",
      "next-row-id",     "last-updated-ms",     "last-column-id", "schema",
      "schemas",         "current-schema-id",   "partition-spec", "partition-specs",
      "default-spec-id", "last-partition-id",   "sort-orders",    "default-sort-order-id",
      "properties",      "current-snapshot-id", "snapshots",      "refs",
      "snapshot-log",    "metadata-log"};
  return keys;
}

// A field error of the decoders ("field 'x' must be ...") as the file's corruption.
template <typename T>
Result<T> In(const std::string& name, Result<T> r) {
  if (r || r.error().kind != ErrorKind::kInvalidInput) return r;
  return Corrupt("table metadata '{}': {}", name, r.error().message);
}

template <typename T>
Result<T> Get(const json& j, const char* key, const std::string& name) {
  if (!j.contains(key)) return Corrupt("table metadata '{}' lacks required field '{}'", name, key);
  return In(name, internal::JsonAs<T>(j[key], key));
}

// A string map (properties, a snapshot's summary); other scalar values are kept as their JSON
// text, as a reader that does not care for their type should.
Result<std::map<std::string, std::string>> StringMap(const json& parent, const char* key,
                                                     const std::string& name,
                                                     const std::string& path) {
  std::map<std::string, std::string> out;
  FLOE_ASSIGN_OR_RETURN(const json* j, In(name, internal::JsonObjectField(parent, key, path)));
  if (j == nullptr) return out;
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (it.value().is_structured()) {
      return Corrupt("table metadata '{}': field '{}' must be a string, not {}", name,
                     internal::JsonPath(internal::JsonPath(path, key), it.key()),
                     internal::JsonKind(it.value()));
    }
    out[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  }
  return out;
}

Result<Snapshot> SnapshotFromJson(const json& j, const std::string& name, const std::string& at) {
  namespace in = internal;
  Snapshot s;
  FLOE_RETURN_IF_ERROR(In(name, in::JsonExpectObject(j, at)));
  FLOE_ASSIGN_OR_RETURN(s.snapshot_id, In(name, in::JsonRequired<int64_t>(j, "snapshot-id", at)));
  FLOE_ASSIGN_OR_RETURN(s.parent_snapshot_id,
                        In(name, in::JsonOptional<int64_t>(j, "parent-snapshot-id", at)));
  FLOE_ASSIGN_OR_RETURN(s.sequence_number,
                        In(name, in::JsonOr<int64_t>(j, "sequence-number", at, 0)));
  FLOE_ASSIGN_OR_RETURN(s.timestamp_ms, In(name, in::JsonRequired<int64_t>(j, "timestamp-ms", at)));
  if (!j.contains("manifest-list")) {
    if (j.contains("manifests")) {
      return Unsupported(
          "table metadata '{}': snapshot {} lists manifests inline (format v1 "
          "without a manifest list)",
          name, s.snapshot_id);
    }
    return Corrupt("table metadata '{}': snapshot {} has no manifest-list", name, s.snapshot_id);
  }
  FLOE_ASSIGN_OR_RETURN(s.manifest_list,
                        In(name, in::JsonRequired<std::string>(j, "manifest-list", at)));
  FLOE_ASSIGN_OR_RETURN(s.summary, StringMap(j, "summary", name, at));
  FLOE_ASSIGN_OR_RETURN(s.schema_id, In(name, in::JsonOptional<int32_t>(j, "schema-id", at)));
  FLOE_ASSIGN_OR_RETURN(s.first_row_id, In(name, in::JsonOptional<int64_t>(j, "first-row-id", at)));
  FLOE_ASSIGN_OR_RETURN(s.added_rows, In(name, in::JsonOptional<int64_t>(j, "added-rows", at)));
  if ((s.first_row_id && *s.first_row_id < 0) || (s.added_rows && *s.added_rows < 0)) {
    return Corrupt("table metadata '{}': snapshot {} has a negative first-row-id or added-rows",
                   name, s.snapshot_id);
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    static const std::set<std::string> known = {
        "snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms", "manifest-list",
        "summary",     "schema-id",          "first-row-id",    "added-rows"};
    if (!known.contains(it.key())) s.extra[it.key()] = it.value();
  }
  return s;
}

Result<SnapshotRef> RefFromJson(const json& j, const std::string& name, const std::string& at) {
  namespace in = internal;
  SnapshotRef r;
  FLOE_RETURN_IF_ERROR(In(name, in::JsonExpectObject(j, at)));
  FLOE_ASSIGN_OR_RETURN(r.snapshot_id, In(name, in::JsonRequired<int64_t>(j, "snapshot-id", at)));
  FLOE_ASSIGN_OR_RETURN(r.type, In(name, in::JsonOr<std::string>(j, "type", at, "branch")));
  if (r.type != "branch" && r.type != "tag") {
    return Corrupt("table metadata '{}': field '{}' is '{}', not branch or tag", name,
                   in::JsonPath(at, "type"), r.type);
  }
  // Retention settings, which expiry obeys: positive integers when present.
  for (const char* key : {"max-ref-age-ms", "max-snapshot-age-ms", "min-snapshots-to-keep"}) {
    FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> v,
                          In(name, in::JsonOptional<int64_t>(j, key, at)));
    if (v && *v <= 0) {
      return Corrupt("table metadata '{}': field '{}' = {} must be positive", name,
                     in::JsonPath(at, key), *v);
    }
  }
  for (auto f = j.begin(); f != j.end(); ++f) {
    if (f.key() != "snapshot-id" && f.key() != "type") r.extra[f.key()] = f.value();
  }
  return r;
}

// "statistics" and "partition-statistics" stay in `extra`, but their shape is checked: orphan
// removal keeps the files they name, so an entry it could not read would lose its file.
Status CheckStatistics(const json& j, const char* key, const std::string& name) {
  namespace in = internal;
  FLOE_ASSIGN_OR_RETURN(const json* list, In(name, in::JsonArrayField(j, key, "")));
  if (list == nullptr) return {};
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = in::JsonPath(key, i);
    const json& e = (*list)[i];
    FLOE_RETURN_IF_ERROR(In(name, in::JsonRequired<int64_t>(e, "snapshot-id", at)));
    FLOE_RETURN_IF_ERROR(In(name, in::JsonRequired<std::string>(e, "statistics-path", at)));
    FLOE_RETURN_IF_ERROR(In(name, in::JsonOptional<int64_t>(e, "file-size-in-bytes", at)));
  }
  return {};
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
  if (s.first_row_id) j["first-row-id"] = *s.first_row_id;
  if (s.added_rows) j["added-rows"] = *s.added_rows;
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
  if (format_version >= 3) j["next-row-id"] = next_row_id;
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
  // Every field is read through typed accessors whose errors name the file and the field; the
  // handler is the last guard that no JSON of any shape escapes as an exception.
  try {
    return Decode(j, name);
  } catch (const std::exception& e) {
    return Corrupt("table metadata '{}' cannot be decoded: {}", name, e.what());
  }
}

Result<TableMetadata> TableMetadata::Decode(const json& j, const std::string& name) {
  namespace in = internal;
  if (!j.is_object()) return Corrupt("table metadata '{}' is not a JSON object", name);
  TableMetadata m;
  FLOE_ASSIGN_OR_RETURN(m.format_version, Get<int32_t>(j, "format-version", name));
  if (m.format_version < 1 || m.format_version > 3) {
    return Unsupported("table metadata '{}' has format version {} (floe reads 1-3)", name,
                       m.format_version);
  }
  FLOE_ASSIGN_OR_RETURN(m.table_uuid, In(name, in::JsonOr<std::string>(j, "table-uuid", "", "")));
  FLOE_ASSIGN_OR_RETURN(m.location, Get<std::string>(j, "location", name));
  FLOE_ASSIGN_OR_RETURN(m.last_sequence_number,
                        In(name, in::JsonOr<int64_t>(j, "last-sequence-number", "", 0)));
  // Required in v3; a v3 table another writer left without it has assigned no row ids.
  FLOE_ASSIGN_OR_RETURN(m.next_row_id, In(name, in::JsonOr<int64_t>(j, "next-row-id", "", 0)));
  if (m.next_row_id < 0) {
    return Corrupt("table metadata '{}': next-row-id {} is negative", name, m.next_row_id);
  }
  FLOE_ASSIGN_OR_RETURN(m.last_updated_ms, Get<int64_t>(j, "last-updated-ms", name));
  FLOE_ASSIGN_OR_RETURN(m.last_column_id, Get<int32_t>(j, "last-column-id", name));

  auto bad = [&](const Error& e) { return Corrupt("table metadata '{}': {}", name, e.message); };
  FLOE_ASSIGN_OR_RETURN(const json* schemas, In(name, in::JsonArrayField(j, "schemas", "")));
  if (schemas != nullptr) {
    for (size_t i = 0; i < schemas->size(); ++i) {
      auto s = Schema::FromJson((*schemas)[i], in::JsonPath("schemas", i));
      if (!s) return bad(s.error());
      m.schemas.push_back(std::move(*s));
    }
    FLOE_ASSIGN_OR_RETURN(m.current_schema_id,
                          In(name, in::JsonOr<int32_t>(j, "current-schema-id", "", 0)));
  } else if (j.contains("schema")) {  // v1
    auto s = Schema::FromJson(j["schema"], "schema");
    if (!s) return bad(s.error());
    m.current_schema_id = s->schema_id();
    m.schemas.push_back(std::move(*s));
  }
  if (m.schemas.empty()) return Corrupt("table metadata '{}' has no schema", name);
  if (m.SchemaById(m.current_schema_id) == nullptr) {
    return Corrupt("table metadata '{}': current-schema-id {} is not among its schemas", name,
                   m.current_schema_id);
  }

  FLOE_ASSIGN_OR_RETURN(const json* specs, In(name, in::JsonArrayField(j, "partition-specs", "")));
  if (specs != nullptr) {
    for (size_t i = 0; i < specs->size(); ++i) {
      auto s = PartitionSpec::FromJson((*specs)[i], in::JsonPath("partition-specs", i));
      if (!s) return bad(s.error());
      m.specs.push_back(std::move(*s));
    }
    FLOE_ASSIGN_OR_RETURN(m.default_spec_id,
                          In(name, in::JsonOr<int32_t>(j, "default-spec-id", "", 0)));
  } else if (j.contains("partition-spec")) {  // v1: the fields of spec 0
    FLOE_RETURN_IF_ERROR(In(name, in::JsonExpectArray(j["partition-spec"], "partition-spec")));
    auto s = PartitionSpec::FromJson(json{{"spec-id", 0}, {"fields", j["partition-spec"]}},
                                     "partition-spec");
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
  FLOE_ASSIGN_OR_RETURN(
      m.last_partition_id,
      In(name, in::JsonOr<int32_t>(j, "last-partition-id", "", m.last_partition_id)));

  FLOE_ASSIGN_OR_RETURN(const json* orders, In(name, in::JsonArrayField(j, "sort-orders", "")));
  if (orders != nullptr) {
    for (size_t i = 0; i < orders->size(); ++i) {
      auto o = SortOrder::FromJson((*orders)[i], in::JsonPath("sort-orders", i));
      if (!o) return bad(o.error());
      m.sort_orders.push_back(std::move(*o));
    }
  }
  if (m.sort_orders.empty()) m.sort_orders.emplace_back();
  FLOE_ASSIGN_OR_RETURN(m.default_sort_order_id,
                        In(name, in::JsonOr<int32_t>(j, "default-sort-order-id", "", 0)));
  if (m.SortOrderById(m.default_sort_order_id) == nullptr) {
    return Corrupt("table metadata '{}': default-sort-order-id {} is not among its sort orders",
                   name, m.default_sort_order_id);
  }

  FLOE_ASSIGN_OR_RETURN(m.properties, StringMap(j, "properties", name, ""));
  FLOE_ASSIGN_OR_RETURN(m.current_snapshot_id,
                        In(name, in::JsonOptional<int64_t>(j, "current-snapshot-id", "")));
  if (m.current_snapshot_id == -1) m.current_snapshot_id.reset();
  FLOE_ASSIGN_OR_RETURN(const json* snapshots, In(name, in::JsonArrayField(j, "snapshots", "")));
  if (snapshots != nullptr) {
    std::set<int64_t> ids;
    for (size_t i = 0; i < snapshots->size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Snapshot s,
                            SnapshotFromJson((*snapshots)[i], name, in::JsonPath("snapshots", i)));
      if (!ids.insert(s.snapshot_id).second) {
        return Corrupt("table metadata '{}': snapshot {} appears twice in 'snapshots'", name,
                       s.snapshot_id);
      }
      m.snapshots.push_back(std::move(s));
    }
  }
  if (m.current_snapshot_id && m.SnapshotById(*m.current_snapshot_id) == nullptr) {
    return Corrupt("table metadata '{}': current snapshot {} is not among its snapshots", name,
                   *m.current_snapshot_id);
  }
  FLOE_ASSIGN_OR_RETURN(const json* refs, In(name, in::JsonObjectField(j, "refs", "")));
  if (refs != nullptr) {
    for (auto it = refs->begin(); it != refs->end(); ++it) {
      FLOE_ASSIGN_OR_RETURN(SnapshotRef r,
                            RefFromJson(it.value(), name, in::JsonPath("refs", it.key())));
      m.refs[it.key()] = std::move(r);
    }
  } else if (m.current_snapshot_id) {
    m.refs["main"] = SnapshotRef{*m.current_snapshot_id, "branch", json::object()};
  }
  // A ref to a missing snapshot is not an empty table: reading it as one would let the next
  // commit start a new history and expiry delete the old one.
  for (const auto& [ref_name, ref] : m.refs) {
    if (m.SnapshotById(ref.snapshot_id) == nullptr) {
      return Corrupt(
          "table metadata '{}': ref '{}' points at snapshot {}, which is not among its "
          "snapshots",
          name, ref_name, ref.snapshot_id);
    }
  }
  if (auto main = m.refs.find("main"); main != m.refs.end()) {
    if (main->second.type != "branch") {
      return Corrupt("table metadata '{}': ref 'main' is a {}, not a branch", name,
                     main->second.type);
    }
    if (m.current_snapshot_id != main->second.snapshot_id) {
      return Corrupt(
          "table metadata '{}': ref 'main' points at snapshot {} but current-snapshot-id is {}",
          name, main->second.snapshot_id,
          m.current_snapshot_id ? std::to_string(*m.current_snapshot_id) : "-1");
    }
  }

  FLOE_ASSIGN_OR_RETURN(const json* slog, In(name, in::JsonArrayField(j, "snapshot-log", "")));
  if (slog != nullptr) {
    for (size_t i = 0; i < slog->size(); ++i) {
      const std::string at = in::JsonPath("snapshot-log", i);
      SnapshotLogEntry e;
      FLOE_ASSIGN_OR_RETURN(e.timestamp_ms,
                            In(name, in::JsonRequired<int64_t>((*slog)[i], "timestamp-ms", at)));
      FLOE_ASSIGN_OR_RETURN(e.snapshot_id,
                            In(name, in::JsonRequired<int64_t>((*slog)[i], "snapshot-id", at)));
      m.snapshot_log.push_back(e);
    }
  }
  FLOE_ASSIGN_OR_RETURN(const json* mlog, In(name, in::JsonArrayField(j, "metadata-log", "")));
  if (mlog != nullptr) {
    for (size_t i = 0; i < mlog->size(); ++i) {
      const std::string at = in::JsonPath("metadata-log", i);
      MetadataLogEntry e;
      FLOE_ASSIGN_OR_RETURN(e.timestamp_ms,
                            In(name, in::JsonRequired<int64_t>((*mlog)[i], "timestamp-ms", at)));
      FLOE_ASSIGN_OR_RETURN(e.metadata_file, In(name, in::JsonRequired<std::string>(
                                                          (*mlog)[i], "metadata-file", at)));
      m.metadata_log.push_back(std::move(e));
    }
  }
  FLOE_RETURN_IF_ERROR(CheckStatistics(j, "statistics", name));
  FLOE_RETURN_IF_ERROR(CheckStatistics(j, "partition-statistics", name));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!KnownKeys().contains(it.key())) m.extra[it.key()] = it.value();
  }
  return m;
}

TableMetadata NewTableMetadata(Schema schema, PartitionSpec spec, SortOrder order,
                               std::string location, std::map<std::string, std::string> properties,
                               int format_version) {
  TableMetadata m;
  m.format_version = format_version;
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
