// The bench runner: source -> designs -> counted runs -> protocol -> recommendation.
#include "floe/bench/runner.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/base/progress.h"
#include "floe/bench/generators.h"
#include "floe/bench/schedule.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/rewrite_position_deletes.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/table.h"
#include "floe/io/store_uri.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/read_file.h"
#include "floe/parquet/writer.h"

namespace floe::bench {
namespace c = floe::columnar;

namespace {

// The non-NULL values of a source column of integers or floating point numbers, as doubles.
Result<std::vector<double>> NumberValues(const std::vector<c::RecordBatch>& source,
                                         const std::string& column) {
  std::vector<double> out;
  for (const auto& b : source) {
    auto index = b.schema->IndexOf(column);
    if (!index) return InvalidInput("the source has no column '{}'", column);
    const c::Column& col = *b.columns[*index];
    auto add = [&]<typename T>() {
      for (int64_t i = 0; i < b.num_rows; ++i)
        if (!col.IsNull(i)) out.push_back(static_cast<double>(col.Value<T>(i)));
    };
    switch (col.type.id) {
      case c::TypeId::kInt8:
        add.template operator()<int8_t>();
        break;
      case c::TypeId::kInt16:
        add.template operator()<int16_t>();
        break;
      case c::TypeId::kInt32:
        add.template operator()<int32_t>();
        break;
      case c::TypeId::kInt64:
        add.template operator()<int64_t>();
        break;
      case c::TypeId::kFloat32:
        add.template operator()<float>();
        break;
      case c::TypeId::kFloat64:
        add.template operator()<double>();
        break;
      default:
        return InvalidInput("column '{}' is {}: quantiles take integers or floating point numbers",
                            column, col.type.ToString());
    }
  }
  return out;
}

Result<c::RecordBatch> Rows(const c::RecordBatch& all, int64_t begin, int64_t end) {
  std::vector<int64_t> idx(static_cast<size_t>(end - begin));
  for (int64_t i = begin; i < end; ++i) idx[static_cast<size_t>(i - begin)] = i;
  return c::Take(all, idx);
}

// Regroups the source's batches into `writes` batches of (nearly) equal rows, order kept.
Result<std::vector<c::RecordBatch>> Regroup(const std::vector<c::RecordBatch>& in, int writes) {
  if (writes <= 0 || static_cast<size_t>(writes) == in.size()) return in;
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch all, c::Concatenate(in));
  std::vector<c::RecordBatch> out;
  for (int w = 0; w < writes; ++w) {
    int64_t b = all.num_rows * w / writes, e = all.num_rows * (w + 1) / writes;
    if (e > b) {
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch part, Rows(all, b, e));
      out.push_back(std::move(part));
    }
  }
  return out;
}

Result<std::vector<c::RecordBatch>> ReadParquetSource(const std::vector<std::string>& paths) {
  std::vector<c::RecordBatch> out;
  for (const auto& p : paths) {
    std::error_code ec;
    std::vector<std::pair<std::string, std::string>> files;  // dir, key
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> names;
      for (const auto& e : std::filesystem::directory_iterator(p, ec)) {
        if (e.path().extension() == ".parquet") names.push_back(e.path().filename().string());
      }
      std::sort(names.begin(), names.end());
      if (names.empty())
        return InvalidInput("source.parquet: folder '{}' has no .parquet files", p);
      for (auto& n : names) files.emplace_back(p, n);
    } else {
      if (!std::filesystem::exists(p, ec))
        return NotFound("source.parquet: '{}' does not exist", p);
      std::filesystem::path fp(p);
      files.emplace_back(fp.has_parent_path() ? fp.parent_path().string() : ".",
                         fp.filename().string());
    }
    for (const auto& [dir, key] : files) {
      FLOE_ASSIGN_OR_RETURN(io::StorePtr store, io::OpenStore(dir));
      auto contents = parquet::ReadFileAll(*store, key, {});
      if (!contents) {
        Error e = contents.error();
        e.message = fmt::format("source.parquet '{}/{}': {}", dir, key, e.message);
        return std::unexpected(e);
      }
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch one, c::Concatenate(contents->batches));
      out.push_back(std::move(one));
    }
  }
  return out;
}

// The tables floe bench made in a warehouse, one name a line, kept in the warehouse itself: a
// later run replaces those, and never a table someone else made.
constexpr char kBenchTablesKey[] = "floe-bench-tables.txt";

Result<std::set<std::string>> BenchTables(const iceberg::Warehouse& w) {
  std::set<std::string> out;
  auto got = w.io->store()->Get(kBenchTablesKey);
  if (!got) {
    if (got.error().kind == ErrorKind::kNotFound) return out;
    return std::unexpected(got.error());
  }
  std::string_view text = got->string_view();
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty()) out.emplace(line);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return out;
}

Status RecordBenchTable(const iceberg::Warehouse& w, const std::string& table) {
  FLOE_ASSIGN_OR_RETURN(std::set<std::string> tables, BenchTables(w));
  if (!tables.insert(table).second) return {};
  std::string text;
  for (const auto& t : tables) text += t + "\n";
  FLOE_RETURN_IF_ERROR(w.io->store()->Put(kBenchTablesKey, AsBytes(text)));
  return {};
}

// Writes `batch` as one Parquet file at `path` (a local file).
Status WriteParquetFile(const std::string& path, const c::RecordBatch& batch) {
  parquet::MemorySink sink;
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(batch.schema, &sink, {}));
  FLOE_RETURN_IF_ERROR(writer->Write(batch));
  FLOE_RETURN_IF_ERROR(writer->Close());
  const Buffer bytes = sink.ToBuffer();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) return IOError("cannot write '{}'", path);
  return {};
}

// The state of `table` from its current snapshot's summary.
Result<TableState> StateOf(const iceberg::Warehouse& w, const std::string& table) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(table));
  FLOE_ASSIGN_OR_RETURN(iceberg::Table t, iceberg::LoadTable(*w.catalog, *w.io, id));
  TableState out;
  const iceberg::Snapshot* snap = t.metadata.CurrentSnapshot();
  if (snap == nullptr) return out;
  auto get = [&](const char* key) -> int64_t {
    auto it = snap->summary.find(key);
    return it == snap->summary.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
  };
  out.data_files = get("total-data-files");
  out.delete_files = get("total-delete-files");
  out.deleted_positions = get("total-position-deletes");
  out.bytes = get("total-files-size");
  return out;
}

// The change statement of a round on a table: {table} and {changes} (how the engine reads the
// round's Parquet file) filled in.
std::string ChangeSql(const ChangeSpec& c, const std::string& table, const std::string& changes) {
  std::string sql = c.sql;
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{table}", table},
                                   std::pair<std::string, std::string>{"{changes}", changes}}) {
    for (size_t at = sql.find(key); at != std::string::npos;
         at = sql.find(key, at + value.size())) {
      sql.replace(at, key.size(), value);
    }
  }
  return sql;
}

// Two engines' answers agree: the same number of rows and the same first cell, numbers compared
// as numbers (1e-9 relative: engines print 2.50, 2.5 and 2.5000000001 for one sum), other
// values as text once a trailing "+00:00"/"Z" of a UTC timestamp and a "T" separator are
// normalised away.
bool SameAnswer(const Measurement& a, const Measurement& b) {
  if (a.rows != b.rows) return false;
  if (a.first_value == b.first_value) return true;
  auto number = [](const std::string& s) -> std::optional<double> {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return std::nullopt;
    return v;
  };
  auto x = number(a.first_value), y = number(b.first_value);
  if (x && y) return std::fabs(*x - *y) <= 1e-9 * std::max({1.0, std::fabs(*x), std::fabs(*y)});
  auto norm = [](std::string s) {
    for (const char* tail : {"+00:00", "Z", ".000000", ".000"}) {
      if (s.ends_with(tail)) s.resize(s.size() - std::string_view(tail).size());
    }
    if (s.size() > 10 && s[10] == 'T') s[10] = ' ';
    if (s == "NULL" || s == "None" || s == "null") return std::string();
    return s;
  };
  return norm(a.first_value) == norm(b.first_value);
}

Status WriteDesign(iceberg::Warehouse& w, const Design& d, const catalog::TableIdentifier& id,
                   DesignBuild& out, const std::vector<c::RecordBatch>& source);

}  // namespace

// Every row of a table at one snapshot, in its own schema's types.
Result<std::vector<c::RecordBatch>> ReadTableSource(const SourceSpec& s, iceberg::Warehouse& w) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(s.table));
  auto table = iceberg::LoadTable(*w.catalog, *w.io, id);
  if (!table) {
    Error e = table.error();
    e.message = fmt::format("source.table: {}", e.message);
    return std::unexpected(e);
  }
  iceberg::ScanOptions so;
  so.snapshot_id = s.snapshot_id;
  if (s.snapshot_id && table->metadata.SnapshotById(*s.snapshot_id) == nullptr) {
    return NotFound("source.table: table {} has no snapshot {}", s.table, *s.snapshot_id);
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::ScanPlan plan, iceberg::PlanFiles(*table, *w.io, so));
  const iceberg::TableMetadata& m = table->metadata;
  const iceberg::Schema* schema = &m.CurrentSchema();
  if (plan.snapshot && plan.snapshot->schema_id && m.SchemaById(*plan.snapshot->schema_id)) {
    schema = m.SchemaById(*plan.snapshot->schema_id);  // the rows as they were then
  }
  std::vector<c::RecordBatch> out;
  iceberg::ScanReadOptions ro;
  ro.preserve_order = true;
  iceberg::ScanHooks hooks;
  hooks.table_schema = schema;
  FLOE_RETURN_IF_ERROR(iceberg::ReadScan(
      plan.tasks, *schema, *w.io, ro, hooks,
      [&](c::RecordBatch b) -> Status {
        if (b.num_rows > 0) out.push_back(std::move(b));
        return {};
      },
      nullptr));
  return out;
}

Result<std::vector<c::RecordBatch>> LoadSource(const SourceSpec& s, double scale,
                                               iceberg::Warehouse* warehouse) {
  if (!(scale > 0)) return InvalidInput("scale must be > 0, got {}", scale);
  if (!s.table.empty()) {
    if (warehouse == nullptr) return InvalidInput("source.table needs a warehouse to read from");
    FLOE_ASSIGN_OR_RETURN(auto batches, ReadTableSource(s, *warehouse));
    if (batches.empty()) return InvalidInput("source.table: table {} has no rows", s.table);
    return Regroup(batches, s.writes);
  }
  if (!s.parquet.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto batches, ReadParquetSource(s.parquet));
    return Regroup(batches, s.writes);
  }
  FLOE_ASSIGN_OR_RETURN(Workload w, ParseWorkload(s.generator));
  GenOptions o;
  int64_t rows = s.rows > 0 ? s.rows : DefaultRows(w);
  o.rows = std::max<int64_t>(1, static_cast<int64_t>(std::llround(rows * scale)));
  o.seed = s.seed;
  o.writes = s.writes;
  return Generate(w, o);
}

Result<DesignBuild> BuildDesign(iceberg::Warehouse& w, const Worksheet& sheet, const Design& d,
                                const std::vector<c::RecordBatch>& source,
                                const EngineWriter* writer, const std::string& scratch) {
  if (source.empty()) return InvalidInput("design '{}': the source has no rows", d.name);
  DesignBuild out;
  out.table = DesignTableName(sheet, d);
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(out.table));
  // A table of an earlier run is rebuilt; any other table of that name is left alone.
  if (auto existing = w.catalog->LoadTable(id); existing) {
    FLOE_ASSIGN_OR_RETURN(std::set<std::string> mine, BenchTables(w));
    if (!mine.contains(out.table)) {
      return Conflict(
          "design '{}': table '{}' already exists in the warehouse {} and floe bench did not "
          "create it; bench replaces only the tables it made",
          d.name, out.table, w.io->root_uri());
    }
    FLOE_RETURN_IF_ERROR(iceberg::DropTable(*w.catalog, *w.io, id, true));
  } else if (existing.error().kind != ErrorKind::kNotFound) {
    return std::unexpected(existing.error());
  }
  Stopwatch watch;  // the write time: creating the table, the writes, the maintenance steps
  if (writer != nullptr) {
    // Another engine writes it, from one local Parquet file per write.
    FLOE_RETURN_IF_ERROR(RecordBenchTable(w, out.table));
    FLOE_ASSIGN_OR_RETURN(auto writes, Regroup(source, d.writes));
    const std::string dir = scratch + "/floe-bench-source";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return IOError("cannot create '{}': {}", dir, ec.message());
    std::vector<std::string> files;
    for (size_t i = 0; i < writes.size(); ++i) {
      files.push_back(fmt::format("{}/{}-write-{}.parquet", std::filesystem::absolute(dir).string(),
                                  out.table, i));
      FLOE_RETURN_IF_ERROR(WriteParquetFile(files.back(), writes[i]));
    }
    auto notes = writer->build(d, out.table, files);
    for (const auto& f : files) std::filesystem::remove(f, ec);
    if (!notes) {
      return InvalidInput("design '{}' (built by {}): {}", d.name, d.built_by,
                          notes.error().message);
    }
    out.notes = std::move(*notes);
  } else {
    FLOE_RETURN_IF_ERROR(WriteDesign(w, d, id, out, source));
  }
  out.seconds = watch.ElapsedSeconds();
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::LoadTable(*w.catalog, *w.io, id));
  FLOE_ASSIGN_OR_RETURN(auto entries, table.LiveEntries(*w.io));
  for (const auto& e : entries) {
    ++out.data_files;
    out.bytes += e.file.file_size_in_bytes;
    out.rows += e.file.record_count;
  }
  out.write_seconds = Summarize({out.seconds});
  return out;
}

namespace {

// floe writes design `d` into the table `id`: created with its spec, order and properties, one
// append per write, then its maintenance steps (notes in `out`).
Status WriteDesign(iceberg::Warehouse& w, const Design& d, const catalog::TableIdentifier& id,
                   DesignBuild& out, const std::vector<c::RecordBatch>& source) {
  int32_t next_id = 1;
  FLOE_ASSIGN_OR_RETURN(iceberg::Schema schema,
                        iceberg::FromColumnarSchema(*source.front().schema, &next_id));
  auto where = [&](std::string_view key, const Error& e) {
    return InvalidInput("design '{}': {}: {}", d.name, key, e.message);
  };
  auto spec = iceberg::PartitionSpec::Parse(d.partition_by, schema);
  if (!spec) return where("partition_by", spec.error());
  iceberg::SortOrder order;
  if (!d.sort_by.empty()) {
    auto o = iceberg::SortOrder::Parse(d.sort_by, schema);
    if (!o) return where("sort_by", o.error());
    order = *o;
  }
  FLOE_ASSIGN_OR_RETURN(
      iceberg::Table table,
      iceberg::CreateTable(*w.catalog, *w.io, id, {schema, *spec, order, d.TableProperties(), ""}));
  FLOE_RETURN_IF_ERROR(RecordBenchTable(w, out.table));
  FLOE_ASSIGN_OR_RETURN(auto writes, Regroup(source, d.writes));
  for (const auto& batch : writes) {
    std::vector<iceberg::DataFile> files;
    const int tasks = std::max(1, d.tasks_per_write);
    for (int t = 0; t < tasks; ++t) {
      int64_t b = batch.num_rows * t / tasks, e = batch.num_rows * (t + 1) / tasks;
      if (e <= b) continue;
      iceberg::TableDataWriter writer(table, *w.io);
      if (tasks == 1) {
        FLOE_RETURN_IF_ERROR(writer.Write(batch));
      } else {
        FLOE_ASSIGN_OR_RETURN(c::RecordBatch part, Rows(batch, b, e));
        FLOE_RETURN_IF_ERROR(writer.Write(part));
      }
      FLOE_ASSIGN_OR_RETURN(auto written, writer.Finish());
      files.insert(files.end(), written.begin(), written.end());
    }
    FLOE_ASSIGN_OR_RETURN(table, iceberg::AppendFiles(*w.catalog, *w.io, id, std::move(files)));
  }
  for (const auto& step : d.maintenance) {
    iceberg::RewriteOptions ro;
    ro.strategy = step.strategy == "sort" ? iceberg::RewriteStrategy::kSort
                                          : iceberg::RewriteStrategy::kBinPack;
    ro.sort_order_text = step.sort_by;
    ro.target_file_size_bytes = step.target_file_size;
    ro.rewrite_all = true;
    ro.min_input_files = 1;
    auto r = iceberg::RewriteDataFiles(*w.catalog, *w.io, id, ro);
    if (!r) return where("maintenance rewrite", r.error());
    out.notes.push_back(
        fmt::format("rewrite {}{}{}: {} files -> {}", step.strategy,
                    step.sort_by.empty() ? "" : " by " + step.sort_by,
                    step.target_file_size ? ", target " + FormatBytes(*step.target_file_size) : "",
                    r->rewritten_data_files_count, r->added_data_files_count));
  }
  return {};
}

}  // namespace

Result<BenchResult> RunBench(const Worksheet& sheet, const BenchOptions& options,
                             const QuestionFnFactory& questions) {
  BenchResult result;
  result.sheet = sheet;
  result.simulated = static_cast<bool>(options.decorate);
  result.prices = options.prices;
  std::error_code ec;
  const bool local = options.warehouse.find("://") == std::string::npos ||
                     options.warehouse.starts_with("file://");
  if (local && !options.catalog.starts_with("rest:")) {
    std::filesystem::create_directories(options.warehouse, ec);
  }
  auto warehouse_options = [&] {
    iceberg::WarehouseOptions wo;
    wo.uri = options.warehouse;
    wo.catalog = options.catalog;
    wo.s3 = options.s3;
    return wo;
  };
  std::vector<c::RecordBatch> source;
  if (!sheet.source.table.empty()) {
    // The source table stays as it is: no design may be built over it, and its snapshot is pinned
    // (and named in the result) before anything is written.
    FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier source_id,
                          catalog::TableIdentifier::Parse(sheet.source.table));
    for (const auto& d : sheet.designs) {
      auto design_id = catalog::TableIdentifier::Parse(DesignTableName(sheet, d));
      if (design_id && *design_id == source_id) {
        return InvalidInput("design '{}' would be built into the source table {}", d.name,
                            sheet.source.table);
      }
    }
    FLOE_ASSIGN_OR_RETURN(
        iceberg::Warehouse w,
        iceberg::OpenWarehouse(options.source_warehouse.uri.empty() ? warehouse_options()
                                                                    : options.source_warehouse));
    if (!sheet.source.snapshot_id) {
      auto t = iceberg::LoadTable(*w.catalog, *w.io, source_id);
      if (!t) {
        Error e = t.error();
        e.message = fmt::format("source.table: {}", e.message);
        return std::unexpected(e);
      }
      if (const iceberg::Snapshot* now = t->metadata.CurrentSnapshot()) {
        result.sheet.source.snapshot_id = now->snapshot_id;
      }
    }
    FLOE_ASSIGN_OR_RETURN(source, LoadSource(result.sheet.source, options.scale, &w));
  } else {
    FLOE_ASSIGN_OR_RETURN(source, LoadSource(sheet.source, options.scale));
  }
  // The engines that write designs other than floe's, started once each.
  std::map<std::string, EngineWriter> writers;
  std::vector<const EngineWriter*> writer_of(sheet.designs.size(), nullptr);
  const std::string scratch = options.scratch.empty() ? options.warehouse : options.scratch;
  for (size_t d = 0; d < sheet.designs.size(); ++d) {
    const std::string& by = sheet.designs[d].built_by;
    if (by == "floe") continue;
    if (!writers.contains(by)) {
      auto factory = options.writers.find(by);
      if (factory == options.writers.end()) {
        return InvalidInput("design '{}' is built by {}, which this run cannot start",
                            sheet.designs[d].name, by);
      }
      if (options.scratch.empty() && !local) {
        return InvalidInput("design '{}' (built by {}) needs a local scratch directory",
                            sheet.designs[d].name, by);
      }
      FLOE_ASSIGN_OR_RETURN(EngineWriter writer, factory->second());
      writers.emplace(by, std::move(writer));
    }
    writer_of[d] = &writers.at(by);
  }
  {
    iceberg::WarehouseOptions wo = warehouse_options();
    FLOE_ASSIGN_OR_RETURN(iceberg::Warehouse w, iceberg::OpenWarehouse(wo));
    std::unique_ptr<Progress> progress;
    if (options.progress)
      progress = std::make_unique<Progress>(
          "building " + sheet.name,
          sheet.designs.size() * static_cast<size_t>(std::max(1, sheet.build_rounds)), "designs");
    // Each round builds every design anew, the order rotating; the last round's tables stay.
    const size_t nd = sheet.designs.size();
    const int rounds = std::max(1, sheet.build_rounds);
    std::vector<std::vector<double>> seconds(nd);
    result.builds.resize(nd);
    for (int round = 0; round < rounds; ++round) {
      for (size_t k = 0; k < nd; ++k) {
        const size_t d = (k + static_cast<size_t>(round)) % nd;
        FLOE_ASSIGN_OR_RETURN(result.builds[d], BuildDesign(w, sheet, sheet.designs[d], source,
                                                            writer_of[d], scratch));
        seconds[d].push_back(result.builds[d].seconds);
        if (progress) progress->Advance();
      }
    }
    for (size_t d = 0; d < nd; ++d) {
      result.builds[d].write_seconds = Summarize(seconds[d]);
      result.builds[d].seconds = result.builds[d].write_seconds.median;
    }
  }
  int64_t source_rows = 0;
  for (const auto& b : source) source_rows += b.num_rows;
  // {quantile:COLUMN:F} in the questions: from the source's rows (each column's values gathered
  // once, each quantile selected in linear time), all resolved before the source is let go, then
  // answered from `resolved`.
  std::map<std::string, std::vector<double>> column_values;
  std::map<std::pair<std::string, double>, std::string> resolved;
  const QuantileFn quantile = [&](const std::string& column, double f) -> Result<std::string> {
    if (auto r = resolved.find({column, f}); r != resolved.end()) return r->second;
    auto it = column_values.find(column);
    if (it == column_values.end()) {
      FLOE_ASSIGN_OR_RETURN(std::vector<double> values, NumberValues(source, column));
      it = column_values.emplace(column, std::move(values)).first;
    }
    std::vector<double>& v = it->second;
    if (v.empty()) return InvalidInput("column '{}' holds no values", column);
    const auto k = static_cast<std::ptrdiff_t>(f * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + k, v.end());
    const double x = v[static_cast<size_t>(k)];
    std::string literal = x == std::floor(x) && std::abs(x) < 9e15
                              ? fmt::format("{}", static_cast<int64_t>(x))
                              : fmt::format("{}", x);
    resolved.emplace(std::pair{column, f}, literal);
    return literal;
  };
  // Only to resolve the placeholders while the source is here: the texts are made again below.
  for (const Question& q : sheet.questions) {
    FLOE_RETURN_IF_ERROR(QuestionSql(q, "{table}", source_rows, quantile));
  }
  column_values.clear();
  // Each round of changes: its rows, one Parquet file shared by every design (round 0 warms up).
  std::vector<std::string> change_files;
  if (sheet.changes) {
    if (options.scratch.empty() && !local) {
      return InvalidInput(
          "a worksheet with changes needs a local scratch directory beside the "
          "warehouse '{}'",
          options.warehouse);
    }
    const std::string dir =
        (options.scratch.empty() ? options.warehouse : options.scratch) + "/floe-bench-changes";
    std::filesystem::create_directories(dir, ec);
    FLOE_ASSIGN_OR_RETURN(Workload workload, ParseWorkload(sheet.source.generator));
    for (int round = 0; round <= sheet.changes->rounds; ++round) {
      FLOE_ASSIGN_OR_RETURN(
          c::RecordBatch rows,
          GenerateChanges(workload, source, sheet.changes->fraction, round, sheet.source.seed));
      change_files.push_back(fmt::format(
          "{}/{}-round-{}.parquet", std::filesystem::absolute(dir).string(), sheet.name, round));
      FLOE_RETURN_IF_ERROR(WriteParquetFile(change_files.back(), rows));
    }
  }
  source.clear();

  std::shared_ptr<io::CountingStore> counting;
  iceberg::WarehouseOptions wo = warehouse_options();
  wo.decorate = [&](io::StorePtr store) -> Result<io::StorePtr> {
    if (options.decorate) {
      FLOE_ASSIGN_OR_RETURN(store, options.decorate(std::move(store)));
    }
    counting = std::make_shared<io::CountingStore>(std::move(store));
    return io::StorePtr(counting);
  };
  FLOE_ASSIGN_OR_RETURN(iceberg::Warehouse w, iceberg::OpenWarehouse(wo));
  FLOE_ASSIGN_OR_RETURN(QuestionFn ask, questions(w));
  // The other engines, each one long-lived session for the whole run.
  std::vector<QuestionFn> peer_ask;
  for (const auto& e : options.engines) {
    FLOE_ASSIGN_OR_RETURN(QuestionFn f, e.questions(w));
    peer_ask.push_back(std::move(f));
    result.engines.push_back(e.name);
  }
  const size_t ne = peer_ask.size();

  const size_t nd = sheet.designs.size();
  const int runs_per_question =
      static_cast<int>(nd) * (1 + options.protocol.warmup + options.protocol.rounds);
  const int change_runs = sheet.changes
                              ? static_cast<int>(nd) * (sheet.changes->rounds + 2) +
                                    runs_per_question * static_cast<int>(sheet.questions.size())
                              : 0;
  std::unique_ptr<Progress> progress;
  if (options.progress)
    progress = std::make_unique<Progress>(
        "measuring " + sheet.name,
        sheet.questions.size() * runs_per_question * (1 + ne) + change_runs, "runs");
  auto advance = [&](int n = 1) {
    if (progress) progress->Advance(n);
  };

  // The changes: a warm-up round on every design, then the measured rounds, the designs in a
  // different order each round (A B C, B C A, ...) so none always runs first.
  if (sheet.changes) {
    result.changes.assign(nd, {});
    std::vector<std::vector<double>> samples(nd);
    for (int round = 0; round <= sheet.changes->rounds; ++round) {
      for (size_t i = 0; i < nd; ++i) {
        const size_t d = (i + static_cast<size_t>(round)) % nd;
        ChangesOutcome& out = result.changes[d];
        advance();
        if (!out.error.empty()) continue;
        counting->Reset();
        Stopwatch watch;
        const EngineWriter* writer = writer_of[d];
        auto got = writer == nullptr
                       ? ask(ChangeSql(*sheet.changes, result.builds[d].table,
                                       "read_parquet('" + change_files[round] + "')"))
                       : writer->change(ChangeSql(*sheet.changes, result.builds[d].table,
                                                  writer->file_ref(change_files[round])));
        const double ms = got && got->engine_ms ? *got->engine_ms : watch.ElapsedMs();
        if (!got) {
          out.error = got.error().ToString();
          continue;
        }
        if (round > 0) samples[d].push_back(ms);
        out.counts =
            writer == nullptr ? counting->Snapshot() : got->counts.value_or(io::RequestCounts{});
        out.counted = writer == nullptr || got->counts.has_value();
      }
    }
    for (size_t d = 0; d < nd; ++d) {
      result.changes[d].latency = Summarize(samples[d]);
      FLOE_ASSIGN_OR_RETURN(result.changes[d].after_changes, StateOf(w, result.builds[d].table));
    }
  }

  // Every question on every design: a cold run, then the protocol. With `engines`, every other
  // engine's arms too, interleaved with floe's (floe's design d, then each engine's, ...).
  auto measure = [&](std::vector<std::vector<Measurement>>* into, bool engines) -> Status {
    const size_t npeers = engines ? ne : 0;
    if (engines) result.engine_results.assign(npeers, {});
    for (size_t qi = 0; qi < sheet.questions.size(); ++qi) {
      const Question& q = sheet.questions[qi];
      // The report shows the question as asked: placeholders other than {table} resolved.
      FLOE_ASSIGN_OR_RETURN(result.sheet.questions[qi].sql,
                            QuestionSql(q, "{table}", source_rows, quantile));
      std::vector<Measurement> row(nd);
      std::vector<std::vector<Measurement>> peer_row(npeers, std::vector<Measurement>(nd));
      std::vector<ArmRun> arms;
      std::vector<std::pair<size_t, size_t>> arm_of;  // (0 floe, 1 + peer engine; design)
      for (size_t d = 0; d < nd; ++d) {
        std::string text;
        FLOE_ASSIGN_OR_RETURN(text, QuestionSql(q, result.builds[d].table, source_rows, quantile));
        w.runtime->ClearCaches();
        counting->Reset();
        auto got = ask(text);
        io::RequestCounts counts = counting->Snapshot();
        advance();
        if (!got) {
          row[d].error = got.error().ToString();
          advance(options.protocol.warmup + options.protocol.rounds);
        } else {
          row[d].data_files_opened = got->data_files_opened;
          row[d].rows = got->rows;
          row[d].first_value = got->first_value;
          row[d].cold_counts = counts;
          // Runs are sequential (interleaved, never concurrent), so the counts of each run are
          // its own; the last run is the last measured round.
          arms.emplace_back([&ask, &counting, &row, d, text]() -> Result<double> {
            counting->Reset();
            Stopwatch watch;
            FLOE_ASSIGN_OR_RETURN(QuestionOutcome outcome, ask(text));
            const double ms = watch.ElapsedMs();
            row[d].counts = counting->Snapshot();
            row[d].scan = std::move(outcome.scan);
            row[d].last_ms = ms;
            return ms;
          });
          arm_of.emplace_back(0, d);
        }
        for (size_t e = 0; e < npeers; ++e) {
          Measurement& m = peer_row[e][d];
          auto peer = peer_ask[e](text);
          advance();
          if (!peer) {
            m.error = peer.error().ToString();
            advance(options.protocol.warmup + options.protocol.rounds);
            continue;
          }
          m.data_files_opened = peer->data_files_opened;
          m.rows = peer->rows;
          m.first_value = peer->first_value;
          m.cold_counts = peer->counts.value_or(io::RequestCounts{});
          if (row[d].error.empty() && !SameAnswer(row[d], m))
            m.differs_from_floe = fmt::format("rows {}, first {}", row[d].rows, row[d].first_value);
          arms.emplace_back([&peer_ask, &peer_row, e, d, text]() -> Result<double> {
            Stopwatch watch;
            FLOE_ASSIGN_OR_RETURN(QuestionOutcome o, peer_ask[e](text));
            const double ms = o.engine_ms.value_or(watch.ElapsedMs());
            peer_row[e][d].counts = o.counts.value_or(io::RequestCounts{});
            return ms;
          });
          arm_of.emplace_back(1 + e, d);
        }
      }
      if (!arms.empty()) {
        auto measured = RunProtocol(arms, options.protocol, [&] { advance(); });
        if (!measured) return std::unexpected(measured.error());
        // Verdicts among one engine's designs: which layout wins on that engine.
        for (size_t engine = 0; engine <= npeers; ++engine) {
          std::vector<Spread> spreads;
          std::vector<Measurement*> ms;
          for (size_t a = 0; a < arms.size(); ++a) {
            if (arm_of[a].first != engine) continue;
            Measurement& m =
                engine == 0 ? row[arm_of[a].second] : peer_row[engine - 1][arm_of[a].second];
            m.latency = (*measured)[a].spread;
            spreads.push_back(m.latency);
            ms.push_back(&m);
          }
          auto verdicts = Verdicts(spreads);
          for (size_t i = 0; i < ms.size(); ++i) ms[i]->verdict = verdicts[i];
        }
      }
      into->push_back(std::move(row));
      for (size_t e = 0; e < npeers; ++e)
        result.engine_results[e].push_back(std::move(peer_row[e]));
    }
    return {};
  };
  FLOE_RETURN_IF_ERROR(measure(&result.results, true));

  // Compaction, then the questions again.
  if (sheet.changes) {
    for (size_t d = 0; d < nd; ++d) {
      ChangesOutcome& out = result.changes[d];
      advance();
      if (!out.error.empty()) continue;
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id,
                            catalog::TableIdentifier::Parse(result.builds[d].table));
      counting->Reset();
      Stopwatch watch;
      for (const std::string& step : sheet.changes->compaction) {
        if (const EngineWriter* writer = writer_of[d]; writer != nullptr) {
          auto note = writer->compact(step, result.builds[d].table);
          if (!note) {
            out.error = note.error().ToString();
            break;
          }
          out.compaction_notes.push_back(*note);
        } else if (step == "rewrite_position_deletes") {
          auto r = iceberg::RewritePositionDeleteFiles(*w.catalog, *w.io, id, {});
          if (!r) {
            out.error = r.error().ToString();
            break;
          }
          out.compaction_notes.push_back(
              fmt::format("rewrite_position_delete_files: {} delete files -> {}",
                          r->rewritten_delete_files_count, r->added_delete_files_count));
        } else {
          // Every data file that has a delete file is rewritten with its deletes applied.
          iceberg::RewriteOptions ro;
          ro.delete_file_threshold = 1;
          auto r = iceberg::RewriteDataFiles(*w.catalog, *w.io, id, ro);
          if (!r) {
            out.error = r.error().ToString();
            break;
          }
          out.compaction_notes.push_back(fmt::format("rewrite_data_files: {} data files -> {}",
                                                     r->rewritten_data_files_count,
                                                     r->added_data_files_count));
        }
      }
      out.compaction_ms = watch.ElapsedMs();
      out.compaction_counts = counting->Snapshot();
      out.compaction_counted = writer_of[d] == nullptr;
      FLOE_ASSIGN_OR_RETURN(out.after_compaction, StateOf(w, result.builds[d].table));
    }
    FLOE_RETURN_IF_ERROR(measure(&result.compacted, false));
  }
  if (progress) progress->Finish();
  Recommend(result, options.prices);
  if (sheet.changes) result.schedule = RecommendSchedule(result, options.prices);
  return result;
}

void Recommend(BenchResult& r, const Prices& prices) {
  const auto& sheet = r.sheet;
  const size_t nd = sheet.designs.size();
  r.costs.assign(nd, {});
  std::vector<bool> complete(nd, true);
  for (size_t d = 0; d < nd; ++d) {
    std::vector<QuestionLoad> loads;
    for (size_t q = 0; q < sheet.questions.size() && q < r.results.size(); ++q) {
      const Measurement& m = r.results[q][d];
      if (!m.error.empty()) complete[d] = false;
      QuestionLoad l;
      l.daily = sheet.questions[q].daily;
      l.get_requests = m.counts.get + m.counts.head;
      l.other_requests = m.counts.put + m.counts.post + m.counts.list;
      l.bytes = m.counts.bytes_read;
      l.latency_ms = m.latency.median;
      loads.push_back(l);
    }
    uint64_t stored = d < r.builds.size() ? static_cast<uint64_t>(r.builds[d].bytes) : 0;
    r.costs[d] = Monthly(loads, stored, prices);
  }
  // A day's query time at every question's fastest and slowest measured run. Two designs cannot
  // be told apart by time under the protocol when each one's median day lies within the other's
  // range (an overlap of the ranges' edges alone is not enough: summed over questions they are
  // wide).
  std::vector<std::pair<double, double>> day_range(nd, {0, 0});
  for (size_t d = 0; d < nd; ++d) {
    for (size_t q = 0; q < sheet.questions.size() && q < r.results.size(); ++q) {
      day_range[d].first += sheet.questions[q].daily * r.results[q][d].latency.min;
      day_range[d].second += sheet.questions[q].daily * r.results[q][d].latency.max;
    }
  }
  auto indistinct = [&](size_t a, size_t b) {
    auto within = [&](size_t x, size_t range) {
      return r.costs[x].latency_ms_per_day >= day_range[range].first &&
             r.costs[x].latency_ms_per_day <= day_range[range].second;
    };
    return within(a, b) && within(b, a);
  };
  // Best: the least query time per day; a design indistinguishable from it in time (overlapping
  // ranges, or medians within 2%) wins instead when it is cheaper.
  int best = -1;
  for (size_t d = 0; d < nd; ++d) {
    if (!complete[d]) continue;
    if (best < 0 || r.costs[d].latency_ms_per_day < r.costs[best].latency_ms_per_day)
      best = static_cast<int>(d);
  }
  bool by_cost = false;
  if (best >= 0) {
    const int fastest = best;
    for (size_t d = 0; d < nd; ++d) {
      if (!complete[d] || static_cast<int>(d) == fastest) continue;
      const auto& a = r.costs[d];
      const auto& f = r.costs[fastest];
      const bool tie = indistinct(d, static_cast<size_t>(fastest)) ||
                       std::abs(a.latency_ms_per_day - f.latency_ms_per_day) <=
                           0.02 * std::max(a.latency_ms_per_day, f.latency_ms_per_day);
      if (tie && a.total_usd() < r.costs[best].total_usd()) {
        best = static_cast<int>(d);
        by_cost = true;
      }
    }
  }
  r.best_design = best;
  if (best < 0) {
    r.recommendation =
        "No design answered every question, so none can be recommended; see the errors above.";
    return;
  }
  if (nd == 1) {
    r.recommendation =
        fmt::format("Only one design, '{}', was measured.", sheet.designs[best].name);
    return;
  }
  // The runner-up (the fastest other design), and the question on which the best design gives
  // up the most requests to it.
  int second = -1;
  for (size_t d = 0; d < nd; ++d) {
    if (static_cast<int>(d) == best || !complete[d]) continue;
    if (second < 0 || r.costs[d].latency_ms_per_day < r.costs[second].latency_ms_per_day)
      second = static_cast<int>(d);
  }
  const auto& B = r.costs[best];
  if (second < 0) {
    r.recommendation = fmt::format(
        "'{}' is the only design that answered every question ({:.0f} requests/day, "
        "${:.2f}/month).",
        sheet.designs[best].name, B.requests_per_day, B.total_usd());
    return;
  }
  const auto& S = r.costs[second];
  int worst_q = -1;
  double worst_ratio = 1.0;
  for (size_t q = 0; q < r.results.size(); ++q) {
    double rb = static_cast<double>(r.results[q][best].counts.total());
    double rs = static_cast<double>(r.results[q][second].counts.total());
    if (rs > 0 && rb / rs > worst_ratio) {
      worst_ratio = rb / rs;
      worst_q = static_cast<int>(q);
    }
  }
  std::string cost = fmt::format(
      "'{}' answers the day's questions in {:.1f} s of query time against {:.1f} s for '{}', "
      "with {:.0f} vs {:.0f} requests and {} vs {} fetched per day (${:.2f} vs ${:.2f} a month)",
      sheet.designs[best].name, B.latency_ms_per_day / 1000, S.latency_ms_per_day / 1000,
      sheet.designs[second].name, B.requests_per_day, S.requests_per_day,
      FormatBytes(B.bytes_per_day), FormatBytes(S.bytes_per_day), B.total_usd(), S.total_usd());
  if (by_cost || indistinct(static_cast<size_t>(best), static_cast<size_t>(second))) {
    cost += fmt::format(
        ". Their query times are indistinguishable under the protocol (a day's questions at "
        "their fastest and slowest runs: {:.1f}-{:.1f} s vs {:.1f}-{:.1f} s){}",
        day_range[best].first / 1000, day_range[best].second / 1000, day_range[second].first / 1000,
        day_range[second].second / 1000,
        by_cost ? ", so the cheaper design is recommended"
                : "; measure more rounds to separate them");
  }
  if (worst_q >= 0) {
    cost += fmt::format("; the price is '{}', where it makes {} requests to {}'s {}.",
                        sheet.questions[worst_q].name, r.results[worst_q][best].counts.total(),
                        sheet.designs[second].name, r.results[worst_q][second].counts.total());
  } else {
    cost += "; it makes no more requests than the runner-up on any question.";
  }
  r.recommendation = cost;
}

}  // namespace floe::bench
