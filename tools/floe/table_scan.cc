// `floe table scan NS.T [--where FILTER] [--format table|csv|json] [--stats] [--limit N]
// [--read-strategy NAME]`: the
// rows of a table (or of a snapshot) through scan planning and the Parquet reader, with the
// pruning numbers. A stand-in for `floe query` (issue #6) that interop tests and users can rely on.
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/clock.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/table_reader.h"
#include "table_internal.h"

namespace floe::cli {

using iceberg::ExprPtr;
using iceberg::Literal;
using iceberg::Op;

// FILTER: `col OP value [AND col OP value ...]`, OP one of = != <> < <= > >=, value a 'quoted'
// string or a number. The full SQL grammar arrives with `floe query`.
Result<ExprPtr> ParseWhere(std::string_view text) {
  ExprPtr out = iceberg::True();
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  for (;;) {
    skip();
    size_t start = i;
    while (i < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '.'))
      ++i;
    std::string column(text.substr(start, i - start));
    if (column.empty())
      return InvalidInput("--where '{}': expected a column name at position {}", text, start + 1);
    skip();
    std::string op;
    while (i < text.size() && std::string_view("=!<>").find(text[i]) != std::string_view::npos)
      op.push_back(text[i++]);
    Op kind;
    if (op == "=") {
      kind = Op::kEq;
    } else if (op == "!=" || op == "<>") {
      kind = Op::kNotEq;
    } else if (op == "<") {
      kind = Op::kLt;
    } else if (op == "<=") {
      kind = Op::kLtEq;
    } else if (op == ">") {
      kind = Op::kGt;
    } else if (op == ">=") {
      kind = Op::kGtEq;
    } else {
      return InvalidInput("--where '{}': expected a comparison (= != < <= > >=) at position {}",
                          text, i + 1);
    }
    skip();
    Literal value;
    if (i < text.size() && text[i] == '\'') {
      std::string s;
      ++i;
      while (i < text.size() &&
             !(text[i] == '\'' && (i + 1 >= text.size() || text[i + 1] != '\''))) {
        if (text[i] == '\'') ++i;
        s.push_back(text[i++]);
      }
      if (i >= text.size()) return InvalidInput("--where '{}': unterminated string", text);
      ++i;
      value = Literal::String(s);
    } else {
      size_t vs = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      std::string num(text.substr(vs, i - vs));
      try {
        size_t used = 0;
        if (num.find_first_of(".eE") == std::string::npos) {
          long long v = std::stoll(num, &used);
          value = Literal::Long(v);
        } else {
          double v = std::stod(num, &used);
          value = Literal::Double(v);
        }
        if (used != num.size()) throw std::invalid_argument(num);
      } catch (...) {
        return InvalidInput("--where '{}': '{}' is not a number or a 'quoted' string", text, num);
      }
    }
    out = iceberg::And(out, iceberg::Predicate(kind, column, {value}));
    skip();
    if (i >= text.size()) break;
    std::string word;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i++]))));
    }
    if (word != "and")
      return InvalidInput("--where '{}': expected AND at position {}", text, i + 1 - word.size());
  }
  return iceberg::Simplify(out);
}

namespace {

nlohmann::json JsonValue(const Literal& v) {
  if (v.is_null()) return nullptr;
  switch (v.type()) {
    case iceberg::TypeId::kBoolean:
      return std::get<bool>(v.storage());
    case iceberg::TypeId::kInt:
      return v.AsInt();
    case iceberg::TypeId::kLong:
      return v.AsLong();
    case iceberg::TypeId::kFloat:
      return std::get<float>(v.storage());
    case iceberg::TypeId::kDouble:
      return std::get<double>(v.storage());
    default:
      return v.ToString();
  }
}

struct ScanArgs {
  std::string table;
  std::string where;
  std::string format = "table";
  bool stats = false;
  int64_t limit = -1;
  int64_t snapshot = -1;
  std::string read_strategy = "floe";
};

int Scan(const GlobalOptions& g, const ScanArgs& a) {
  Stopwatch watch;
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  auto table = iceberg::LoadTable(*w->catalog, *w->io, *id);
  if (!table) return ReportError(table.error());
  iceberg::ScanOptions options;
  if (!a.where.empty()) {
    auto f = ParseWhere(a.where);
    if (!f) return ReportError(f.error());
    options.filter = *f;
  }
  if (a.snapshot >= 0) options.snapshot_id = a.snapshot;
  auto plan = iceberg::PlanFiles(*table, *w->io, options);
  if (!plan) return ReportError(plan.error());
  const iceberg::Schema& schema = table->metadata.CurrentSchema();
  auto strategy = parquet::ParseReadStrategy(a.read_strategy);
  if (!strategy) return ReportError(strategy.error());
  std::vector<columnar::RecordBatch> batches;
  iceberg::ScanReadOptions read_options;
  read_options.strategy = *strategy;
  read_options.preserve_order = true;  // rows in file order, as before
  read_options.limit = a.limit;
  iceberg::ScanReadStats scan_stats;
  auto read = iceberg::ReadScan(
      plan->tasks, schema, *w->io, read_options,
      [&](columnar::RecordBatch b) -> Status {
        batches.push_back(std::move(b));
        return {};
      },
      &scan_stats);
  if (!read) return ReportError(read.error());
  iceberg::TaskReadStats read_stats;
  read_stats.requests = scan_stats.requests;
  read_stats.bytes_fetched = scan_stats.bytes_fetched;
  std::vector<std::string> names;
  for (const auto& f : schema.fields()) names.push_back(f.name);
  nlohmann::json out_rows = nlohmann::json::array();
  int64_t emitted = 0;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b.num_rows && (a.limit < 0 || emitted < a.limit); ++r, ++emitted) {
      nlohmann::json row = nlohmann::json::array();
      for (size_t c = 0; c < schema.fields().size(); ++c) {
        auto v = iceberg::LiteralAt(*b.columns[c], r, *schema.fields()[c].type);
        row.push_back(v ? JsonValue(*v) : nlohmann::json("?"));
      }
      out_rows.push_back(std::move(row));
    }
  }
  nlohmann::json stats = {{"data_files_opened", plan->tasks.size()},
                          {"data_files_skipped",
                           {{"partition", plan->stats.files_skipped_partition},
                            {"bounds", plan->stats.files_skipped_bounds}}},
                          {"manifests_skipped", plan->stats.manifests_skipped},
                          {"requests", read_stats.requests},
                          {"bytes_fetched", read_stats.bytes_fetched},
                          {"wall_ms", watch.ElapsedMs()}};
  if (a.format == "json") {
    nlohmann::json doc = {{"columns", names}, {"rows", out_rows}};
    if (a.stats) doc["stats"] = stats;
    fmt::print("{}\n", doc.dump());
    return 0;
  }
  if (a.format == "csv") {
    for (size_t i = 0; i < names.size(); ++i) fmt::print("{}{}", i ? "," : "", names[i]);
    fmt::print("\n");
  } else {
    for (const auto& n : names) fmt::print("{:<22}", n);
    fmt::print("\n");
  }
  for (const auto& row : out_rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = row[i].is_null()     ? (a.format == "csv" ? "" : "NULL")
                         : row[i].is_string() ? row[i].get<std::string>()
                                              : row[i].dump();
      if (a.format == "csv") {
        if (cell.find_first_of(",\"\n") != std::string::npos) {
          std::string q = "\"";
          for (char ch : cell) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
          cell = q + "\"";
        }
        fmt::print("{}{}", i ? "," : "", cell);
      } else {
        fmt::print("{:<22}", cell);
      }
    }
    fmt::print("\n");
  }
  if (a.stats) fmt::print("{}\n", stats.dump());
  return 0;
}

}  // namespace

void AddTableScanCommand(CLI::App& table_cmd, GlobalOptions& options) {
  auto args = std::make_shared<ScanArgs>();
  auto* sub = table_cmd.add_subcommand(
      "scan", "Print a table's rows (optionally filtered), with pruning numbers");
  sub->add_option("table", args->table, "Table name, NAMESPACE.TABLE")->required();
  sub->add_option("--where", args->where,
                  "Filter: col OP value [AND ...], OP one of = != < <= > >=");
  sub->add_option("--format", args->format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sub->add_flag("--stats", args->stats, "Also print files opened/skipped, requests and bytes");
  sub->add_option("--limit", args->limit, "At most N rows");
  sub->add_option("--snapshot", args->snapshot, "Read this snapshot id (time travel)");
  sub->add_option("--read-strategy", args->read_strategy,
                  "How data files are fetched: floe (default), parquet-mr, aal, eager, arrow-rs");
  sub->callback([&options, args] {
    int rc = Scan(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
