// `floe table`: create, describe, list snapshots and files, and drop Iceberg tables in the
// warehouse (CLI.md). The work is the iceberg module's; this file parses flags and prints.
#include <cstdio>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "cli.h"
#include "floe/base/clock.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/warehouse.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

using iceberg::Schema;

Result<std::string> ReadArgOrFile(const std::string& arg) {
  if (!arg.starts_with("@")) return arg;
  std::ifstream in(arg.substr(1));
  if (!in) return NotFound("cannot read '{}'", arg.substr(1));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// An Iceberg schema JSON, or the short form [{"name": "id", "type": "long", "required": true}, ...]
// (ids assigned in order from 1).
Result<Schema> ParseSchemaArg(const std::string& arg) {
  FLOE_ASSIGN_OR_RETURN(std::string text, ReadArgOrFile(arg));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return InvalidInput("--schema is not valid JSON");
  if (j.is_array()) j = nlohmann::json{{"type", "struct"}, {"fields", j}};
  if (!j.is_object() || !j.contains("fields")) {
    return InvalidInput("--schema must be an Iceberg schema object or an array of fields");
  }
  j["type"] = "struct";
  int32_t next_id = 1;
  for (auto& f : j["fields"]) {
    if (f.is_object() && !f.contains("id")) f["id"] = next_id;
    if (f.is_object() && f.contains("id") && f["id"].is_number_integer()) {
      next_id = std::max(next_id, f["id"].get<int32_t>() + 1);
    }
    if (f.is_object() && !f.contains("required")) f["required"] = false;
  }
  auto s = Schema::FromJson(j);
  if (!s) return InvalidInput("--schema: {}", s.error().message);
  return s;
}

void PrintSchema(const Schema& s) {
  fmt::print("schema (id {}):\n", s.schema_id());
  for (const auto& f : s.fields()) {
    fmt::print("  {:>4}  {:<24} {:<20}{}\n", f.id, f.name, f.type->ToString(),
               f.required ? " required" : "");
  }
}

int Create(const GlobalOptions& g, const TableArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  if (a.like.empty() == a.schema.empty()) {
    return ReportError(
        Error{ErrorKind::kInvalidInput,
              "table create needs exactly one of --like FILE.parquet or --schema JSON"});
  }
  Result<Schema> schema = a.like.empty() ? ParseSchemaArg(a.schema) : SchemaLikeParquet(g, a.like);
  if (!schema) return ReportError(schema.error());
  auto spec = iceberg::PartitionSpec::Parse(a.partition_by, *schema);
  if (!spec) return ReportError(spec.error());
  iceberg::SortOrder order;
  if (!a.sort_by.empty()) {
    auto o = iceberg::SortOrder::Parse(a.sort_by, *schema);
    if (!o) return ReportError(o.error());
    order = *o;
  }
  if (a.format_version != 2) {
    return ReportError(Error{ErrorKind::kUnsupported,
                             fmt::format("--format-version {} (floe writes 2)", a.format_version)});
  }
  std::map<std::string, std::string> props;
  for (const auto& kv : a.properties) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ReportError(
          Error{ErrorKind::kInvalidInput, fmt::format("--property '{}': expected KEY=VALUE", kv)});
    }
    props[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  auto t = iceberg::CreateTable(*w->catalog, *w->io, *id, {*schema, *spec, order, props, ""});
  if (!t) return ReportError(t.error());
  fmt::print("created {} at {}\n", id->ToString(), t->metadata.location);
  return 0;
}

int Describe(const GlobalOptions& g, const TableArgs& a) {
  auto t = LoadTableFor(g, a.table);
  if (!t) return ReportError(t.error());
  const auto& m = t->metadata;
  fmt::print("table      {}\nlocation   {}\nmetadata   {}\nformat     v{}\nuuid       {}\n",
             t->id.ToString(), m.location, t->metadata_location, m.format_version, m.table_uuid);
  PrintSchema(m.CurrentSchema());
  const auto& spec = m.DefaultSpec();
  fmt::print("partition spec (id {}):{}\n", spec.spec_id(),
             spec.fields().empty() ? " unpartitioned" : "");
  for (const auto& f : spec.fields()) {
    fmt::print("  {:>4}  {:<24} {}({})\n", f.field_id, f.name, f.transform.ToString(),
               m.CurrentSchema().NameOf(f.source_id));
  }
  const auto& order = m.DefaultSortOrder();
  fmt::print("sort order (id {}): {}\n", order.order_id(),
             order.unsorted() ? "unsorted" : order.ToString(m.CurrentSchema()));
  if (!m.properties.empty()) {
    fmt::print("properties:\n");
    for (const auto& [k, v] : m.properties) fmt::print("  {} = {}\n", k, v);
  }
  if (const auto* s = m.CurrentSnapshot()) {
    fmt::print("current snapshot {} ({} snapshots)\n", s->snapshot_id, m.snapshots.size());
    for (const auto& [k, v] : s->summary) fmt::print("  {} = {}\n", k, v);
  } else {
    fmt::print("no snapshots\n");
  }
  return 0;
}

int Snapshots(const GlobalOptions& g, const TableArgs& a) {
  auto t = LoadTableFor(g, a.table);
  if (!t) return ReportError(t.error());
  fmt::print("{:<20} {:<20} {:>8} {:<24} {:<10} {:>10} {:>12}\n", "snapshot_id", "parent_id", "seq",
             "committed_at (UTC)", "operation", "files", "records");
  const iceberg::Snapshot* current = t->metadata.CurrentSnapshot();
  for (const auto& s : t->metadata.snapshots) {
    auto get = [&](const char* k) {
      auto it = s.summary.find(k);
      return it == s.summary.end() ? std::string("-") : it->second;
    };
    std::string ts = iceberg::Literal::Timestamp(s.timestamp_ms * 1000).ToString().substr(0, 23);
    fmt::print("{:<20} {:<20} {:>8} {:<24} {:<10} {:>10} {:>12}{}\n", s.snapshot_id,
               s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "-",
               s.sequence_number, ts, s.operation(), get("total-data-files"), get("total-records"),
               current && current->snapshot_id == s.snapshot_id ? "  (current)" : "");
  }
  return 0;
}

int Files(const GlobalOptions& g, const TableArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto t = LoadTableFor(g, a.table);
  if (!t) return ReportError(t.error());
  auto entries = t->LiveEntries(*w->io);
  if (!entries) return ReportError(entries.error());
  const auto& m = t->metadata;
  for (const auto& e : *entries) {
    const auto* spec = m.SpecById(e.file.spec_id);
    std::string partition = spec ? spec->PartitionPath(e.file.partition) : "";
    fmt::print("{}\n  partition={} records={} bytes={} seq={}\n", e.file.file_path,
               partition.empty() ? "-" : partition, e.file.record_count, e.file.file_size_in_bytes,
               e.sequence_number.value_or(0));
    for (const auto& [id, lower] : e.file.lower_bounds) {
      const auto* field = m.CurrentSchema().FindById(id);
      auto upper = e.file.upper_bounds.find(id);
      if (field == nullptr || upper == e.file.upper_bounds.end()) continue;
      auto lo = iceberg::DeserializeBound(*field->type, lower);
      auto hi = iceberg::DeserializeBound(*field->type, upper->second);
      if (!lo || !hi) continue;
      auto nulls = e.file.null_value_counts.find(id);
      fmt::print("    {:<20} [{} .. {}] nulls={}\n", m.CurrentSchema().NameOf(id), lo->ToString(),
                 hi->ToString(),
                 nulls == e.file.null_value_counts.end() ? std::string("?")
                                                         : std::to_string(nulls->second));
    }
  }
  fmt::print("{} data files\n", entries->size());
  return 0;
}

int Drop(const GlobalOptions& g, const TableArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  auto s = iceberg::DropTable(*w->catalog, *w->io, *id, a.purge);
  if (!s) return ReportError(s.error());
  fmt::print("dropped {}{}\n", id->ToString(), a.purge ? " and purged its files" : "");
  return 0;
}

}  // namespace

Result<iceberg::Warehouse> OpenWarehouseFor(const GlobalOptions& g, bool simulate_by_default) {
  iceberg::WarehouseOptions o;
  o.uri = g.warehouse;
  o.catalog = g.catalog;
  o.s3 = S3OptionsFrom(g);
  GlobalOptions copy = g;
  o.decorate = [copy, simulate_by_default](io::StorePtr store) -> Result<io::StorePtr> {
    return DecorateStore(copy, std::move(store), simulate_by_default);
  };
  return iceberg::OpenWarehouse(o);
}

Result<iceberg::Table> LoadTableFor(const GlobalOptions& g, const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(iceberg::Warehouse w, OpenWarehouseFor(g));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(name));
  return iceberg::LoadTable(*w.catalog, *w.io, id);
}

void AddTableCommand(CLI::App& app, GlobalOptions& options) {
  auto* cmd =
      app.add_subcommand("table", "Create, append to, describe and maintain Iceberg tables");
  cmd->require_subcommand(1);
  auto args = std::make_shared<TableArgs>();
  auto add = [&](const char* name, const char* help,
                 int (*fn)(const GlobalOptions&, const TableArgs&)) {
    auto* sub = cmd->add_subcommand(name, help);
    sub->add_option("table", args->table, "Table name, NAMESPACE.TABLE")->required();
    sub->callback([&options, args, fn] {
      int rc = fn(options, *args);
      if (rc != 0) std::exit(rc);
    });
    return sub;
  };
  auto* create = add("create", "Create a table (and its namespace)", Create);
  create->add_option("--like", args->like,
                     "Take the schema of this Parquet file (path or store URI)");
  create->add_option(
      "--schema", args->schema,
      "Schema: Iceberg schema JSON, or [{\"name\":..,\"type\":..,\"required\":..}], or @FILE");
  create->add_option("--partition-by", args->partition_by,
                     "Partition spec, e.g. 'day(ts), bucket(8, id), region'");
  create->add_option("--sort-by", args->sort_by, "Sort order, e.g. 'id ASC NULLS LAST, ts DESC'");
  create->add_option("--format-version", args->format_version, "Table format version (2)");
  create->add_option("--property", args->properties, "Table property KEY=VALUE (repeatable)");
  AddAppendCommand(*cmd, options, args);
  AddTableScanCommand(*cmd, options);
  add("describe", "Schema, partitioning, sort order, properties and current snapshot", Describe);
  add("snapshots", "Every snapshot with its operation and totals", Snapshots);
  add("files", "The live data files of the current snapshot with their metrics", Files);
  auto* drop = add("drop", "Drop a table from the catalog", Drop);
  drop->add_flag("--purge", args->purge, "Also delete every file under the table's location");
}

}  // namespace floe::cli
