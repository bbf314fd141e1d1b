#include "floe/sql/procedures.h"

#include <cctype>
#include <charconv>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "floe/base/calendar.h"
#include "floe/base/clock.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/add_files.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/remove_orphan_files.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/rewrite_manifests.h"
#include "floe/iceberg/rewrite_position_deletes.h"

namespace floe::sql {

namespace {

using nlohmann::json;

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The text of a constant or of map('k', 'v', ...) as the procedures take their arguments.
struct ArgValue {
  std::string text;
  std::map<std::string, std::string> map;
  bool is_map = false;
};

Result<std::string> ConstText(const json& node, std::string_view what) {
  if (node.contains("A_Const")) {
    const json& c = node["A_Const"];
    if (c.contains("sval")) return c["sval"].value("sval", "");
    if (c.contains("ival")) return std::to_string(c["ival"].value("ival", 0));
    if (c.contains("fval")) return c["fval"].value("fval", "");
    if (c.contains("boolval") && c["boolval"].is_object())
      return std::string(c["boolval"].value("boolval", false) ? "true" : "false");
  }
  if (node.contains("TypeCast") && node["TypeCast"].contains("arg")) {
    return ConstText(node["TypeCast"]["arg"], what);
  }
  return InvalidInput("argument {} must be a constant", what);
}

Result<ArgValue> ReadArg(const json& node, std::string_view what) {
  ArgValue v;
  if (node.contains("FuncCall")) {
    const json& f = node["FuncCall"];
    std::string name;
    for (const auto& part : f.value("funcname", json::array()))
      name = part.value("String", json::object()).value("sval", "");
    if (name != "map")
      return InvalidInput("argument {}: only map('key', 'value', ...) is taken", what);
    const json& args = f.value("args", json::array());
    if (args.size() % 2 != 0) return InvalidInput("argument {}: map() needs key/value pairs", what);
    for (size_t i = 0; i < args.size(); i += 2) {
      FLOE_ASSIGN_OR_RETURN(std::string k, ConstText(args[i], what));
      FLOE_ASSIGN_OR_RETURN(std::string val, ConstText(args[i + 1], what));
      v.map[k] = val;
    }
    v.is_map = true;
    return v;
  }
  FLOE_ASSIGN_OR_RETURN(v.text, ConstText(node, what));
  return v;
}

// A whole number in [min, max]: retain_last => 'x', 2.5 or 4294967297 are errors naming it.
Result<int64_t> Integer(const std::string& text, std::string_view what, int64_t min, int64_t max) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || p != text.data() + text.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return InvalidInput("{} '{}' is not a whole number", what, text);
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    return InvalidInput("{} {} is out of range ({} to {})", what, text, min, max);
  }
  return v;
}

Result<bool> Bool(const std::string& text, std::string_view what) {
  if (text == "true") return true;
  if (text == "false") return false;
  return InvalidInput("{} '{}' is not true or false", what, text);
}

QueryResult OneRow(const std::vector<std::pair<std::string, int64_t>>& columns,
                   std::string message) {
  QueryResult r;
  auto schema = std::make_shared<columnar::Schema>();
  columnar::RecordBatch b;
  for (auto& [name, value] : columns) {
    columnar::FixedWidthBuilder<int64_t> col(columnar::Int64());
    col.Append(value);
    schema->fields.push_back({name, columnar::Int64()});
    b.columns.push_back(col.Finish());
  }
  b.schema = schema;
  b.num_rows = 1;
  r.schema = schema;
  r.batches.push_back(std::move(b));
  r.message = std::move(message);
  return r;
}

// source_table => '`parquet`.`/path`' (Spark's form for files that are no table): the path.
Result<std::string> ParquetSource(const std::string& text) {
  std::string_view s = text;
  auto part = [&]() -> std::optional<std::string> {
    if (s.starts_with('`')) {
      size_t end = s.find('`', 1);
      if (end == std::string_view::npos) return std::nullopt;
      std::string out(s.substr(1, end - 1));
      s.remove_prefix(end + 1);
      return out;
    }
    size_t dot = s.find('.');
    std::string out(s.substr(0, dot));
    s.remove_prefix(dot == std::string_view::npos ? s.size() : dot);
    return out;
  };
  std::optional<std::string> format = part();
  if (!format || !s.starts_with('.')) {
    return Unsupported(
        "CALL system.add_files: source_table '{}': floe adds files named as "
        "'`parquet`.`/path`', not a catalog table",
        text);
  }
  s.remove_prefix(1);
  std::string lower = *format;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != "parquet" && lower != "orc" && lower != "avro") {
    return Unsupported(
        "CALL system.add_files: source_table '{}': floe adds files named as "
        "'`parquet`.`/path`', not a catalog table",
        text);
  }
  if (lower != "parquet") {
    return Unsupported("CALL system.add_files: source_table '{}': {} files (floe adds Parquet)",
                       text, *format);
  }
  std::optional<std::string> path;
  if (s.starts_with('`')) {
    path = part();
    if (!s.empty()) path.reset();
  } else {
    path = std::string(s);
  }
  if (!path || path->empty()) {
    return InvalidInput("CALL system.add_files: source_table '{}' is not '`parquet`.`/path`'",
                        text);
  }
  return *path;
}

Result<QueryResult> RunAddFiles(iceberg::Warehouse& warehouse, const catalog::TableIdentifier& id,
                                std::map<std::string, ArgValue>& args) {
  if (!args.contains("source_table")) {
    return InvalidInput("CALL system.add_files: missing argument 'source_table'");
  }
  FLOE_ASSIGN_OR_RETURN(std::string path, ParquetSource(args["source_table"].text));
  iceberg::AddFilesOptions o;
  if (args.contains("partition_filter")) {
    if (!args["partition_filter"].is_map) {
      return InvalidInput(
          "CALL system.add_files: partition_filter must be map('column', 'value', ...)");
    }
    for (const auto& [k, v] : args["partition_filter"].map) o.partition_filter.emplace_back(k, v);
  }
  if (args.contains("check_duplicate_files")) {
    FLOE_ASSIGN_OR_RETURN(o.check_duplicate_files,
                          Bool(args["check_duplicate_files"].text, "check_duplicate_files"));
  }
  if (args.contains("parallelism")) {  // footers are read on the runtime's pool
    FLOE_ASSIGN_OR_RETURN(int64_t n, Integer(args["parallelism"].text, "parallelism", 1, 65536));
    (void)n;
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::AddFilesResult r,
                        iceberg::AddFiles(*warehouse.catalog, *warehouse.io, id, {path}, o));
  return OneRow(
      {{"added_files_count", static_cast<int64_t>(r.files.size())},
       {"changed_partition_count", r.changed_partitions}},
      fmt::format("added {} files to {}: {} rows", r.files.size(), id.ToString(), r.rows));
}

}  // namespace

std::string QuoteReservedCallArguments(std::string_view sql) {
  std::string out(sql);
  size_t i = out.find_first_not_of(" \t\r\n");
  if (i == std::string::npos || out.size() < i + 4) return out;
  std::string head = out.substr(i, 4);
  for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head != "call") return out;
  bool quoted = false;
  for (size_t k = i; k + 5 <= out.size(); ++k) {
    if (out[k] == '\'') quoted = !quoted;
    if (quoted) continue;
    if ((k > 0 && (IsIdentChar(out[k - 1]) || out[k - 1] == '"')) ||
        (k + 5 < out.size() && IsIdentChar(out[k + 5])))
      continue;
    std::string word = out.substr(k, 5);
    for (auto& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word != "table") continue;
    size_t after = out.find_first_not_of(" \t\r\n", k + 5);
    if (after != std::string::npos && out.compare(after, 2, "=>") == 0)
      out.replace(k, 5, "\"tbl\"");
  }
  return out;
}

Result<QueryResult> RunProcedure(iceberg::Warehouse& warehouse, const std::string& sql,
                                 const nlohmann::json& call) {
  const json empty = json::object();
  const json& outer = call.contains("funccall") ? call["funccall"] : empty;
  const json& f = outer.contains("FuncCall") ? outer["FuncCall"] : outer;
  std::vector<std::string> parts;
  for (const auto& p : f.value("funcname", json::array()))
    parts.push_back(p.value("String", json::object()).value("sval", ""));
  const std::string name = parts.empty() ? "" : parts.back();
  if (parts.size() > 2 || (parts.size() == 2 && parts[0] != "system")) {
    return InvalidInput("CALL {}: procedures live in the 'system' namespace (CALL system.{}(...))",
                        fmt::join(parts, "."), name);
  }
  // Positional order per procedure, as Iceberg's Spark procedures declare their parameters.
  static const std::map<std::string, std::vector<std::string>> kParams = {
      {"rewrite_data_files", {"table", "strategy", "sort_order", "options", "where"}},
      {"rewrite_manifests", {"table", "use_caching", "spec_id"}},
      {"rewrite_position_delete_files", {"table", "options", "where"}},
      {"expire_snapshots",
       {"table", "older_than", "retain_last", "max_concurrent_deletes", "stream_results",
        "snapshot_ids", "clean_expired_metadata"}},
      {"remove_orphan_files", {"table", "older_than", "location", "dry_run"}},
      {"add_files",
       {"table", "source_table", "partition_filter", "check_duplicate_files", "parallelism"}}};
  auto params = kParams.find(name);
  if (params == kParams.end()) {
    return Unsupported(
        "CALL system.{}: unknown procedure (floe has rewrite_data_files, "
        "rewrite_position_delete_files, rewrite_manifests, expire_snapshots, "
        "remove_orphan_files, add_files)",
        name);
  }
  std::map<std::string, ArgValue> args;
  size_t position = 0;
  for (const auto& a : f.value("args", json::array())) {
    std::string key;
    const json* value = &a;
    if (a.contains("NamedArgExpr")) {
      key = a["NamedArgExpr"].value("name", "");
      if (key == "tbl") key = "table";
      if (!a["NamedArgExpr"].contains("arg"))
        return Internal("CALL: a named argument without value");
      value = &a["NamedArgExpr"]["arg"];
    } else {
      if (position >= params->second.size())
        return InvalidInput("CALL system.{}: too many arguments", name);
      key = params->second[position++];
    }
    if (std::find(params->second.begin(), params->second.end(), key) == params->second.end()) {
      return InvalidInput("CALL system.{}: no argument named '{}' (takes {})", name, key,
                          fmt::join(params->second, ", "));
    }
    FLOE_ASSIGN_OR_RETURN(args[key], ReadArg(*value, fmt::format("'{}' of {}", key, name)));
  }
  if (!args.contains("table"))
    return InvalidInput("CALL system.{}: missing argument 'table'", name);
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id,
                        catalog::TableIdentifier::Parse(args["table"].text));
  auto text = [&](const std::string& k) { return args.contains(k) ? args[k].text : std::string(); };

  if (name == "add_files") return RunAddFiles(warehouse, id, args);
  if (name == "rewrite_data_files") {
    std::map<std::string, std::string> options = args["options"].map;
    FLOE_ASSIGN_OR_RETURN(iceberg::RewriteOptions o, iceberg::RewriteOptionsFromMap(options));
    std::string strategy = text("strategy");
    if (strategy == "sort" || (strategy.empty() && args.contains("sort_order"))) {
      o.strategy = iceberg::RewriteStrategy::kSort;
    } else if (strategy.empty() || strategy == "binpack") {
      o.strategy = iceberg::RewriteStrategy::kBinPack;
    } else {
      return InvalidInput("CALL system.rewrite_data_files: strategy '{}' (binpack or sort)",
                          strategy);
    }
    o.sort_order_text = text("sort_order");
    if (args.contains("where")) {
      return Unsupported(
          "CALL system.rewrite_data_files: the 'where' argument (use floe table "
          "rewrite --where)");
    }
    FLOE_ASSIGN_OR_RETURN(iceberg::RewriteResult r,
                          iceberg::RewriteDataFiles(*warehouse.catalog, *warehouse.io, id, o));
    return OneRow({{"rewritten_data_files_count", r.rewritten_data_files_count},
                   {"added_data_files_count", r.added_data_files_count},
                   {"rewritten_bytes_count", r.rewritten_bytes_count},
                   {"failed_data_files_count", r.failed_file_groups},
                   {"removed_delete_files_count", r.removed_delete_files_count}},
                  fmt::format("rewrote {}: {} files -> {}", id.ToString(),
                              r.rewritten_data_files_count, r.added_data_files_count));
  }
  if (name == "rewrite_position_delete_files") {
    if (args.contains("where")) {
      return Unsupported("CALL system.rewrite_position_delete_files: the 'where' argument");
    }
    FLOE_ASSIGN_OR_RETURN(iceberg::RewritePositionDeletesOptions o,
                          iceberg::RewritePositionDeletesOptionsFromMap(args["options"].map));
    FLOE_ASSIGN_OR_RETURN(
        iceberg::RewritePositionDeletesResult r,
        iceberg::RewritePositionDeleteFiles(*warehouse.catalog, *warehouse.io, id, o));
    return OneRow(
        {{"rewritten_delete_files_count", r.rewritten_delete_files_count},
         {"added_delete_files_count", r.added_delete_files_count},
         {"rewritten_bytes_count", r.rewritten_bytes_count},
         {"added_bytes_count", r.added_bytes_count}},
        fmt::format("rewrote the position deletes of {}: {} delete files -> {}", id.ToString(),
                    r.rewritten_delete_files_count, r.added_delete_files_count));
  }
  if (name == "rewrite_manifests") {
    FLOE_ASSIGN_OR_RETURN(iceberg::RewriteManifestsResult r,
                          iceberg::RewriteManifests(*warehouse.catalog, *warehouse.io, id, {}));
    return OneRow({{"rewritten_manifests_count", r.rewritten_manifests_count},
                   {"added_manifests_count", r.added_manifests_count}},
                  fmt::format("rewrote the manifests of {}", id.ToString()));
  }
  if (name == "expire_snapshots") {
    iceberg::ExpireSnapshotsOptions o;
    if (args.contains("older_than")) {
      FLOE_ASSIGN_OR_RETURN(o.older_than_ms,
                            ParseTimeOrAge(text("older_than"), UnixMillisNow(), "older_than"));
    }
    if (args.contains("retain_last")) {
      FLOE_ASSIGN_OR_RETURN(int64_t n, Integer(text("retain_last"), "retain_last", 1, 2147483647));
      o.retain_last = static_cast<int>(n);
    }
    FLOE_ASSIGN_OR_RETURN(iceberg::ExpireSnapshotsResult r,
                          iceberg::ExpireSnapshots(*warehouse.catalog, *warehouse.io, id, o));
    return OneRow(
        {{"deleted_data_files_count", r.deleted_data_files_count},
         {"deleted_position_delete_files_count", r.deleted_position_delete_files_count},
         {"deleted_equality_delete_files_count", r.deleted_equality_delete_files_count},
         {"deleted_manifest_files_count", r.deleted_manifest_files_count},
         {"deleted_manifest_lists_count", r.deleted_manifest_lists_count}},
        fmt::format("expired {} snapshots of {}", r.expired_snapshot_ids.size(), id.ToString()));
  }
  // remove_orphan_files
  iceberg::RemoveOrphanFilesOptions o;
  if (args.contains("older_than")) {
    FLOE_ASSIGN_OR_RETURN(o.older_than_ms,
                          ParseTimeOrAge(text("older_than"), UnixMillisNow(), "older_than"));
  }
  if (args.contains("dry_run")) {
    FLOE_ASSIGN_OR_RETURN(o.dry_run, Bool(text("dry_run"), "dry_run"));
  }
  if (args.contains("location")) {
    return Unsupported(
        "CALL system.remove_orphan_files: the 'location' argument (the table's "
        "own location is always used)");
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::RemoveOrphanFilesResult r,
                        iceberg::RemoveOrphanFiles(*warehouse.catalog, *warehouse.io, id, o));
  QueryResult out;
  auto schema = std::make_shared<columnar::Schema>();
  schema->fields.push_back({"orphan_file_location", columnar::String()});
  columnar::BinaryBuilder col;
  for (const auto& loc : r.orphan_file_locations) FLOE_RETURN_IF_ERROR(col.Append(loc));
  columnar::RecordBatch b;
  b.schema = schema;
  b.num_rows = static_cast<int64_t>(r.orphan_file_locations.size());
  b.columns.push_back(col.Finish());
  out.schema = schema;
  out.batches.push_back(std::move(b));
  out.message = fmt::format("{} orphan files{}", r.orphan_file_locations.size(),
                            o.dry_run ? " (dry run: nothing deleted)" : " deleted");
  (void)sql;
  return out;
}

}  // namespace floe::sql
