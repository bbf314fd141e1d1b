#include "floe/iceberg/table_update.h"

#include <set>

namespace floe::iceberg {
namespace {

using json = nlohmann::json;

// The entries of a metadata list (schemas, specs, snapshots, statistics) by their id key.
std::map<int64_t, json> ById(const json& list, const char* key) {
  std::map<int64_t, json> out;
  if (!list.is_array()) return out;
  for (const auto& e : list) {
    if (e.is_object() && e.contains(key) && e[key].is_number_integer()) {
      out.emplace(e[key].get<int64_t>(), e);
    }
  }
  return out;
}

json Field(const json& j, const char* key) { return j.contains(key) ? j[key] : json(); }

// Adds what `next` has of list `list_key` that `base` lacks, as `add_action` with the entry under
// `entry_key`; returns whether any was added.
bool AddNew(const json& base, const json& next, const char* list_key, const char* id_key,
            const char* add_action, const char* entry_key, json* updates) {
  const auto before = ById(Field(base, list_key), id_key);
  bool added = false;
  for (const auto& [id, entry] : ById(Field(next, list_key), id_key)) {
    if (before.contains(id)) continue;
    updates->push_back({{"action", add_action}, {entry_key, entry}});
    added = true;
  }
  return added;
}

}  // namespace

catalog::TableChanges ChangesBetween(const TableMetadata& base_metadata,
                                     const TableMetadata& next_metadata) {
  const json base = base_metadata.ToJson();
  const json next = next_metadata.ToJson();
  catalog::TableChanges c;
  json& u = c.updates;
  json& r = c.requirements;
  r.push_back({{"type", "assert-table-uuid"}, {"uuid", base_metadata.table_uuid}});

  if (next_metadata.format_version > base_metadata.format_version) {
    u.push_back(
        {{"action", "upgrade-format-version"}, {"format-version", next_metadata.format_version}});
  }

  // Schemas, specs and sort orders: the service numbers what is added (reusing an equal one's
  // id), so a new default is named -1, "the one this change added", when it is new.
  const bool schema_added = AddNew(base, next, "schemas", "schema-id", "add-schema", "schema", &u);
  if (schema_added) u.back()["last-column-id"] = next_metadata.last_column_id;
  if (schema_added || next_metadata.current_schema_id != base_metadata.current_schema_id) {
    const bool is_new = base_metadata.SchemaById(next_metadata.current_schema_id) == nullptr;
    u.push_back({{"action", "set-current-schema"},
                 {"schema-id", is_new ? -1 : next_metadata.current_schema_id}});
    r.push_back({{"type", "assert-current-schema-id"},
                 {"current-schema-id", base_metadata.current_schema_id}});
    r.push_back({{"type", "assert-last-assigned-field-id"},
                 {"last-assigned-field-id", base_metadata.last_column_id}});
  }
  const bool spec_added = AddNew(base, next, "partition-specs", "spec-id", "add-spec", "spec", &u);
  if (spec_added || next_metadata.default_spec_id != base_metadata.default_spec_id) {
    const bool is_new = base_metadata.SpecById(next_metadata.default_spec_id) == nullptr;
    u.push_back(
        {{"action", "set-default-spec"}, {"spec-id", is_new ? -1 : next_metadata.default_spec_id}});
    r.push_back(
        {{"type", "assert-default-spec-id"}, {"default-spec-id", base_metadata.default_spec_id}});
    r.push_back({{"type", "assert-last-assigned-partition-id"},
                 {"last-assigned-partition-id", base_metadata.last_partition_id}});
  }
  const bool order_added =
      AddNew(base, next, "sort-orders", "order-id", "add-sort-order", "sort-order", &u);
  if (order_added || next_metadata.default_sort_order_id != base_metadata.default_sort_order_id) {
    const bool is_new = base_metadata.SortOrderById(next_metadata.default_sort_order_id) == nullptr;
    u.push_back({{"action", "set-default-sort-order"},
                 {"sort-order-id", is_new ? -1 : next_metadata.default_sort_order_id}});
    r.push_back({{"type", "assert-default-sort-order-id"},
                 {"default-sort-order-id", base_metadata.default_sort_order_id}});
  }

  // Snapshots first, then the refs that point at them; refs removed before the snapshots they
  // held are expired.
  AddNew(base, next, "snapshots", "snapshot-id", "add-snapshot", "snapshot", &u);
  std::set<std::string> ref_names;
  for (const auto& [name, ref] : base_metadata.refs) ref_names.insert(name);
  for (const auto& [name, ref] : next_metadata.refs) ref_names.insert(name);
  std::set<std::string> asserted;
  auto assert_ref = [&](const std::string& name) {
    if (!asserted.insert(name).second) return;
    auto it = base_metadata.refs.find(name);
    r.push_back(
        {{"type", "assert-ref-snapshot-id"},
         {"ref", name},
         {"snapshot-id", it == base_metadata.refs.end() ? json() : json(it->second.snapshot_id)}});
  };
  for (const auto& name : ref_names) {
    const json& before = base["refs"].contains(name) ? base["refs"][name] : json();
    const json& after = next["refs"].contains(name) ? next["refs"][name] : json();
    if (before == after) continue;
    assert_ref(name);
    if (after.is_null()) {
      u.push_back({{"action", "remove-snapshot-ref"}, {"ref-name", name}});
      continue;
    }
    json set = after;
    set["action"] = "set-snapshot-ref";
    set["ref-name"] = name;
    u.push_back(std::move(set));
  }
  const auto next_snapshots = ById(next["snapshots"], "snapshot-id");
  json removed = json::array();
  for (const auto& [id, s] : ById(base["snapshots"], "snapshot-id")) {
    if (!next_snapshots.contains(id)) removed.push_back(id);
  }
  if (!removed.empty()) {
    u.push_back({{"action", "remove-snapshots"}, {"snapshot-ids", removed}});
    // What an expiry deletes was worked out from the branch as it was.
    assert_ref("main");
  }

  if (next_metadata.location != base_metadata.location) {
    u.push_back({{"action", "set-location"}, {"location", next_metadata.location}});
  }
  json set = json::object();
  json removals = json::array();
  for (const auto& [k, v] : next_metadata.properties) {
    auto it = base_metadata.properties.find(k);
    if (it == base_metadata.properties.end() || it->second != v) set[k] = v;
  }
  for (const auto& [k, v] : base_metadata.properties) {
    if (!next_metadata.properties.contains(k)) removals.push_back(k);
  }
  if (!set.empty()) u.push_back({{"action", "set-properties"}, {"updates", set}});
  if (!removals.empty()) u.push_back({{"action", "remove-properties"}, {"removals", removals}});

  // Statistics files, one per snapshot in each list.
  for (const auto& [list, set_action, remove_action] :
       {std::tuple{"statistics", "set-statistics", "remove-statistics"},
        std::tuple{"partition-statistics", "set-partition-statistics",
                   "remove-partition-statistics"}}) {
    const auto before = ById(Field(base, list), "snapshot-id");
    const auto after = ById(Field(next, list), "snapshot-id");
    for (const auto& [id, entry] : after) {
      auto it = before.find(id);
      if (it != before.end() && it->second == entry) continue;
      u.push_back({{"action", set_action}, {"snapshot-id", id}, {list, entry}});
    }
    for (const auto& [id, entry] : before) {
      if (!after.contains(id)) u.push_back({{"action", remove_action}, {"snapshot-id", id}});
    }
  }
  if (u.empty()) c.requirements = json::array();
  return c;
}

json CreateTableRequest(const TableMetadata& m, bool with_location) {
  json j = json::object();
  j["schema"] = m.CurrentSchema().ToJson();
  j["partition-spec"] = m.DefaultSpec().ToJson();
  j["write-order"] = m.DefaultSortOrder().ToJson();
  json props = json::object();
  for (const auto& [k, v] : m.properties) props[k] = v;
  props["format-version"] = std::to_string(m.format_version);
  j["properties"] = props;
  if (with_location) j["location"] = m.location;
  return j;
}

}  // namespace floe::iceberg
