// `floe table`: create, describe, list snapshots and files, and drop Iceberg tables in the
// warehouse (docs/cli.md). The work is the iceberg module's; this file parses flags and prints.
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "floe/base/clock.h"
#include "floe/columnar/value_format.h"
#include "floe/iceberg/alter_table.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metadata_tables.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/warehouse.h"
#include "result_printer.h"
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

// Spark SQL's type names for Iceberg's (bigint -> long, ...; iceberg::IcebergPrimitiveName).
std::string IcebergTypeName(const std::string& name) { return iceberg::IcebergPrimitiveName(name); }

// Every type written as a name in a schema's JSON -- fields' types, list elements, map keys and
// values, at any depth -- through IcebergTypeName.
void SparkTypeNames(nlohmann::json& j) {
  if (!j.is_object()) return;
  for (const char* key : {"type", "element", "key", "value"}) {
    if (!j.contains(key)) continue;
    nlohmann::json& t = j[key];
    if (t.is_string()) {
      if (std::string(key) != "type" || !j.contains("fields")) t = IcebergTypeName(t);
    } else {
      SparkTypeNames(t);
    }
  }
  if (j.contains("fields") && j["fields"].is_array()) {
    for (auto& f : j["fields"]) SparkTypeNames(f);
  }
}

// An Iceberg schema JSON, or the short form [{"name": "id", "type": "long", "required": true}, ...]
// (ids assigned in order from 1); types by Iceberg's names or Spark SQL's (IcebergTypeName).
Result<Schema> ParseSchemaArg(const std::string& arg) {
  FLOE_ASSIGN_OR_RETURN(std::string text, ReadArgOrFile(arg));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return InvalidInput("--schema is not valid JSON");
  if (j.is_array()) j = nlohmann::json{{"type", "struct"}, {"fields", j}};
  if (!j.is_object() || !j.contains("fields")) {
    return InvalidInput("--schema must be an Iceberg schema object or an array of fields");
  }
  j["type"] = "struct";
  SparkTypeNames(j);
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
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  if (a.like.empty() == a.schema.empty()) {
    return ReportError(Error{ErrorKind::kInvalidInput,
                             "table create needs exactly one of --like FILE or --schema JSON"});
  }
  Result<Schema> schema = a.like.empty() ? ParseSchemaArg(a.schema) : SchemaLikeFile(g, a.like);
  if (!schema) return ReportError(schema.error());
  auto spec = iceberg::PartitionSpec::Parse(a.partition_by, *schema);
  if (!spec) return ReportError(spec.error());
  iceberg::SortOrder order;
  if (!a.sort_by.empty()) {
    auto o = iceberg::SortOrder::Parse(a.sort_by, *schema);
    if (!o) return ReportError(o.error());
    order = *o;
  }
  if (a.format_version && (*a.format_version < iceberg::kMinWriteFormatVersion ||
                           *a.format_version > iceberg::kMaxWriteFormatVersion)) {
    return ReportError(Error{ErrorKind::kInvalidInput,
                             fmt::format("--format-version {}: floe creates tables of version 2 "
                                         "or 3",
                                         *a.format_version)});
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
  // Opened (and created when missing) only once the arguments are known to be good.
  auto w = OpenWarehouseFor(g, false, /*create_if_missing=*/true);
  if (!w) return ReportError(w.error());
  auto t = iceberg::CreateTable(*w->catalog, *w->io, *id,
                                {*schema, *spec, order, props, "", a.format_version});
  if (!t) return ReportError(t.error());
  fmt::print("created {} at {}\n", id->ToString(), t->metadata.location);
  return 0;
}

// The listings in a result format: through `floe query`'s printer, as rows of `sql`.
int PrintListing(const GlobalOptions& g, const TableArgs& a, const std::string& sql_of_table) {
  auto name = QuotedTableName(a.table);
  if (!name) return ReportError(name.error());
  QueryOutput output;
  output.format = a.format;
  output.max_width = TerminalWidth();
  return PrintQuery(g, output, fmt::format(fmt::runtime(sql_of_table), *name));
}

// `describe --format json`: the table as one object -- Iceberg's JSON forms of its schema,
// partition spec and sort order, its properties and current snapshot.
void PrintDescribeJson(const iceberg::Table& t) {
  const auto& m = t.metadata;
  nlohmann::ordered_json j;
  j["table"] = t.id.ToString();
  j["location"] = m.location;
  j["metadata_location"] = t.metadata_location;
  j["format_version"] = m.format_version;
  j["uuid"] = m.table_uuid;
  j["schema"] = m.CurrentSchema().ToJson();
  j["partition_spec"] = m.DefaultSpec().ToJson();
  j["sort_order"] = m.DefaultSortOrder().ToJson();
  j["properties"] = m.properties;
  if (const auto* s = m.CurrentSnapshot()) {
    j["current_snapshot"] = {
        {"snapshot_id", s->snapshot_id},
        {"sequence_number", s->sequence_number},
        {"committed_at", columnar::FormatTimestamp(s->timestamp_ms, columnar::TimeUnit::kMilli,
                                                   /*zoned=*/true)},
        {"summary", s->summary}};
  } else {
    j["current_snapshot"] = nullptr;
  }
  j["snapshots"] = m.snapshots.size();
  fmt::print("{}\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

int Describe(const GlobalOptions& g, const TableArgs& a) {
  if (a.format != "text" && a.format != "json") return PrintListing(g, a, "DESCRIBE {}");
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto t = LoadTableFor(*w, a.table);
  if (!t) return ReportError(t.error());
  if (a.format == "json") {
    PrintDescribeJson(*t);
    return 0;
  }
  const auto& m = t->metadata;
  fmt::print("table      {}\nlocation   {}\nmetadata   {}\nformat     v{}\nuuid       {}\n",
             t->id.ToString(), m.location, t->metadata_location, m.format_version, m.table_uuid);
  if (m.format_version >= 3) fmt::print("next row id {}\n", m.next_row_id);
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
  if (a.format != "text") {
    return PrintListing(g, a, "SELECT * FROM {}.snapshots ORDER BY sequence_number");
  }
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto t = LoadTableFor(*w, a.table);
  if (!t) return ReportError(t.error());
  fmt::print("{:<20} {:<20} {:>8} {:<24} {:<10} {:>10} {:>12}\n", "snapshot_id", "parent_id", "seq",
             "committed_at", "operation", "files", "records");
  const iceberg::Snapshot* current = t->metadata.CurrentSnapshot();
  for (const auto& s : t->metadata.snapshots) {
    auto get = [&](const char* k) {
      auto it = s.summary.find(k);
      return it == s.summary.end() ? std::string("-") : it->second;
    };
    std::string ts =
        columnar::FormatTimestamp(s.timestamp_ms, columnar::TimeUnit::kMilli, /*zoned=*/true);
    fmt::print("{:<20} {:<20} {:>8} {:<24} {:<10} {:>10} {:>12}{}\n", s.snapshot_id,
               s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "-",
               s.sequence_number, ts, s.operation(), get("total-data-files"), get("total-records"),
               current && current->snapshot_id == s.snapshot_id ? "  (current)" : "");
  }
  return 0;
}

// The files metadata table, printed per file: partition, size, sequence number (from the entries
// table) and each column's bounds and null count.
int Files(const GlobalOptions& g, const TableArgs& a) {
  if (a.format != "text") return PrintListing(g, a, "SELECT * FROM {}.files");
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto t = LoadTableFor(*w, a.table);
  if (!t) return ReportError(t.error());
  auto files = iceberg::ReadMetadataTable(*t, *w->io, "files");
  if (!files) return ReportError(files.error());
  auto entries = iceberg::ReadMetadataTable(*t, *w->io, "entries");
  if (!entries) return ReportError(entries.error());
  auto col = [](const columnar::RecordBatch& b, const std::string& name) {
    auto i = b.schema->IndexOf(name);
    return i ? b.columns[*i].get() : nullptr;
  };
  std::map<std::string, int64_t> seq;
  {
    const auto *path = col(*entries, "data_file.file_path"), *s = col(*entries, "sequence_number"),
               *status = col(*entries, "status");
    for (int64_t r = 0; r < entries->num_rows; ++r) {
      if (status->Value<int32_t>(r) == 2 || s->IsNull(r)) continue;
      seq[std::string(path->BytesAt(r))] = s->Value<int64_t>(r);
    }
  }
  const auto& schema = t->metadata.CurrentSchema();
  const auto *path = col(*files, "file_path"), *partition = col(*files, "partition"),
             *records = col(*files, "record_count"), *bytes = col(*files, "file_size_in_bytes"),
             *content = col(*files, "content"), *format = col(*files, "file_format"),
             *referenced = col(*files, "referenced_data_file"),
             *offset = col(*files, "content_offset"),
             *length = col(*files, "content_size_in_bytes"),
             *equality = col(*files, "equality_ids");
  int64_t data_files = 0, delete_files = 0;
  for (int64_t r = 0; r < files->num_rows; ++r) {
    std::string p(path->BytesAt(r));
    std::string part(partition->BytesAt(r));
    const int32_t kind = content->Value<int32_t>(r);
    ++(kind == 0 ? data_files : delete_files);
    // Delete files say what they are and what they apply to.
    std::string what;
    if (kind == 1 && (format->BytesAt(r) == "PUFFIN" || format->BytesAt(r) == "puffin")) {
      what = fmt::format(" deletion vector (bytes {}+{}) of {}", offset->Value<int64_t>(r),
                         length->Value<int64_t>(r), referenced->BytesAt(r));
    } else if (kind == 1) {
      what = referenced->IsNull(r) ? std::string(" position deletes")
                                   : fmt::format(" position deletes of {}", referenced->BytesAt(r));
    } else if (kind == 2) {
      what = fmt::format(" equality deletes on field ids {}", equality->BytesAt(r));
    }
    fmt::print("{}\n  partition={} records={} bytes={} seq={}{}\n", p, part == "{}" ? "-" : part,
               records->Value<int64_t>(r), bytes->Value<int64_t>(r), seq[p], what);
    for (const auto& f : schema.fields()) {
      std::string prefix = "readable_metrics." + f.name + ".";
      const auto *lo = col(*files, prefix + "lower_bound"),
                 *hi = col(*files, prefix + "upper_bound"),
                 *nulls = col(*files, prefix + "null_value_count");
      if (lo == nullptr || hi == nullptr || lo->IsNull(r) || hi->IsNull(r)) continue;
      auto lv = iceberg::LiteralAt(*lo, r, *f.type), hv = iceberg::LiteralAt(*hi, r, *f.type);
      if (!lv || !hv) continue;
      fmt::print("    {:<20} [{} .. {}] nulls={}\n", f.name, lv->ToDisplayString(),
                 hv->ToDisplayString(),
                 nulls == nullptr || nulls->IsNull(r) ? std::string("?")
                                                      : std::to_string(nulls->Value<int64_t>(r)));
    }
  }
  if (delete_files > 0) {
    fmt::print("{} data files, {} delete files\n", data_files, delete_files);
  } else {
    fmt::print("{} data files\n", data_files);
  }
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

Result<iceberg::Warehouse> OpenWarehouseFor(const GlobalOptions& g, bool simulate_by_default,
                                            bool create_if_missing) {
  iceberg::WarehouseOptions o;
  o.uri = g.warehouse;
  o.catalog = g.catalog;
  o.create_if_missing = create_if_missing;
  o.s3 = S3OptionsFrom(g);
  GlobalOptions copy = g;
  o.decorate = [copy, simulate_by_default](io::StorePtr store) -> Result<io::StorePtr> {
    return DecorateStore(copy, std::move(store), simulate_by_default);
  };
  return iceberg::OpenWarehouse(o);
}

Result<iceberg::Table> LoadTableFor(const iceberg::Warehouse& w, const std::string& name) {
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
  create->add_option(
      "--like", args->like,
      "Take the schema of this file (path or store URI): Parquet, or CSV/TSV or "
      "newline-delimited JSON (also .gz, .zst) whose columns are sniffed as DuckDB's "
      "read_csv/read_json does");
  create->add_option(
      "--schema", args->schema,
      "Schema: Iceberg schema JSON, or [{\"name\":..,\"type\":..,\"required\":..}], or @FILE");
  create->add_option("--partition-by", args->partition_by,
                     "Partition spec, e.g. 'day(ts), bucket(8, id), region'");
  create->add_option("--sort-by", args->sort_by, "Sort order, e.g. 'id ASC NULLS LAST, ts DESC'");
  create->add_option("--format-version", args->format_version,
                     "Table format version: 2 (default) or 3 (row lineage, deletion vectors)");
  create->add_option("--property", args->properties, "Table property KEY=VALUE (repeatable)");
  AddAppendCommand(*cmd, options, args);
  AddAddFilesCommand(*cmd, options);
  AddTableScanCommand(*cmd, options);
  AddTableListCommand(*cmd, options);
  auto listing = [&](CLI::App* sub, const char* rows) {
    sub->add_option("--format", args->format,
                    fmt::format("text (default: the listing), or {} in table, csv, json, jsonl "
                                "or markdown",
                                rows))
        ->check(FormatCheck({"text"}));
  };
  listing(add("describe", "Schema, partitioning, sort order, properties and current snapshot",
              Describe),
          "the table as one JSON object (json), or DESCRIBE's rows");
  listing(add("snapshots", "Every snapshot with its operation and totals", Snapshots),
          "the snapshots metadata table's rows");
  listing(add("files", "The live data files of the current snapshot with their metrics", Files),
          "the files metadata table's rows");
  AddRewriteCommands(*cmd, options);
  AddExpireCommands(*cmd, options);
  auto* drop = add("drop", "Drop a table from the catalog", Drop);
  drop->add_flag("--purge", args->purge,
                 "Also delete every file under the table's location (temp files of killed writes "
                 "too), but none under another table's location");
}

}  // namespace floe::cli
