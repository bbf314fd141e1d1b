// `floe table append NS.T FILE...`: Parquet, CSV/TSV or newline-delimited JSON files (gzip or
// zstd compressed too), or folders of them, appended to a table in one commit, written in the
// table's layout (partitioning, sort order, file and row-group sizes). Also the schema of
// `table create --like FILE`.
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/base/parallel_for.h"
#include "floe/base/progress.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/compressed_input.h"
#include "floe/columnar/csv_reader.h"
#include "floe/columnar/csv_sniffer.h"
#include "floe/columnar/json_reader.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/runtime.h"
#include "floe/parquet/read_file.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

enum class Format { kNone, kParquet, kCsv, kJson };

struct InputFile {
  io::StorePtr store;
  std::string key;
  std::string display;
  Format format = Format::kNone;
};

// By the name: .parquet; .csv, .tsv, .txt; .json, .ndjson, .jsonl; the text ones also with .gz
// or .zst after.
Format FormatOf(std::string_view name) {
  if (name.ends_with(".parquet")) return Format::kParquet;
  const std::string_view base = columnar::WithoutCompressionSuffix(name);
  if (base.ends_with(".csv") || base.ends_with(".tsv") || base.ends_with(".txt"))
    return Format::kCsv;
  if (base.ends_with(".json") || base.ends_with(".ndjson") || base.ends_with(".jsonl"))
    return Format::kJson;
  return Format::kNone;
}

bool IsDataFile(std::string_view name) { return FormatOf(name) != Format::kNone; }

// A CSV or JSON input's bytes, decompressed.
Result<Buffer> TextInput(const InputFile& in) {
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, in.store->Get(in.key, io::Range::Whole()));
  return columnar::DecompressInput(std::move(bytes), in.display);
}

// A local file or folder, or a store URI naming an object or a prefix.
Result<std::vector<InputFile>> ExpandInputs(const GlobalOptions& g,
                                            const std::vector<std::string>& inputs) {
  std::vector<InputFile> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    bool local = in.find("://") == std::string::npos || in.starts_with("file://");
    std::string path = in.starts_with("file://") ? in.substr(7) : in;
    if (local && std::filesystem::is_directory(path, ec)) {
      FLOE_ASSIGN_OR_RETURN(io::StorePtr store, OpenStoreFor(g, path, false));
      FLOE_ASSIGN_OR_RETURN(auto objects, store->ListAll(""));
      size_t before = out.size();
      for (const auto& o : objects) {
        if (IsDataFile(o.key)) out.push_back({store, o.key, path + "/" + o.key, FormatOf(o.key)});
      }
      if (out.size() == before)
        return InvalidInput("folder '{}' holds no .parquet, .csv, .tsv or .json files", in);
      continue;
    }
    if (local && !std::filesystem::exists(path, ec))
      return NotFound("input file '{}' does not exist", in);
    if (!IsDataFile(in)) {
      return InvalidInput(
          "input file '{}' is not .parquet, .csv, .tsv, .txt, .json, .ndjson or .jsonl (each but "
          "parquet also with .gz or .zst)",
          in);
    }
    auto slash = in.rfind('/');
    std::string root = slash == std::string::npos ? "." : in.substr(0, slash);
    std::string key = slash == std::string::npos ? in : in.substr(slash + 1);
    FLOE_ASSIGN_OR_RETURN(io::StorePtr store, OpenStoreFor(g, root.empty() ? "/" : root, false));
    out.push_back({store, key, in, FormatOf(key)});
  }
  return out;
}

int Append(const GlobalOptions& g, const TableArgs& a) {
  Stopwatch watch;
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  auto table = iceberg::LoadTable(*w->catalog, *w->io, *id);
  if (!table) return ReportError(table.error());
  if (a.inputs.empty())
    return ReportError(
        Error{ErrorKind::kInvalidInput, "table append needs at least one input file"});
  auto inputs = ExpandInputs(g, a.inputs);
  if (!inputs) return ReportError(inputs.error());
  auto target_schema = iceberg::ToColumnarSchema(table->metadata.CurrentSchema());
  if (!target_schema) return ReportError(target_schema.error());

  iceberg::TableDataWriter writer(*table, *w->io);
  int64_t bytes_in = 0;
  {
    // The files are read and decoded at once on the runtime's decode pool, then handed to the
    // writer in input order (so the table comes out the same however the reads interleave).
    Progress progress("reading", inputs->size(), "files");
    struct Read {
      std::vector<columnar::RecordBatch> batches;
      int64_t bytes = 0;
      Status status;
    };
    std::vector<Read> reads(inputs->size());
    parquet::ReadFileOptions parquet_options;
    auto read_one = [&](const InputFile& in, Read* out) -> Status {
      if (in.format == Format::kCsv || in.format == Format::kJson) {
        FLOE_ASSIGN_OR_RETURN(Buffer bytes, TextInput(in));
        out->bytes = static_cast<int64_t>(bytes.size());
        if (in.format == Format::kJson) {
          FLOE_ASSIGN_OR_RETURN(
              out->batches, columnar::ReadJson(bytes.string_view(), *target_schema, in.display));
          return {};
        }
        FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch batch,
                              columnar::ReadCsvAs(bytes.string_view(), *target_schema, in.display));
        out->batches.push_back(std::move(batch));
        return {};
      }
      FLOE_ASSIGN_OR_RETURN(auto contents,
                            parquet::ReadFileAll(*in.store, in.key, {}, parquet_options));
      out->bytes = contents.read.fetch.bytes_fetched;
      if (contents.batches.empty()) {  // no rows, but the schema must still fit the table
        columnar::RecordBatch empty;
        empty.schema = contents.read.schema;
        for (const auto& f : contents.read.schema->fields)
          empty.columns.push_back(columnar::NullColumn(f.type, 0));
        contents.batches.push_back(std::move(empty));
      }
      out->batches = std::move(contents.batches);
      return {};
    };
    std::mutex progress_mu;
    ThreadPool& pool = w->io->runtime().decode_pool();
    if (inputs->size() <= pool.size()) {
      // Fewer files than threads: one at a time, each Parquet file's row groups decoded at once.
      parquet_options.decode_threads = pool.size() + 1;
      parquet_options.pool = &pool;
      for (size_t i = 0; i < inputs->size(); ++i) {
        reads[i].status = read_one((*inputs)[i], &reads[i]);
        progress.Advance();
      }
    } else {
      ParallelFor(pool, inputs->size(), [&](size_t i) {
        reads[i].status = read_one((*inputs)[i], &reads[i]);
        std::lock_guard lock(progress_mu);
        progress.Advance();
      });
    }
    for (size_t i = 0; i < reads.size(); ++i) {
      if (!reads[i].status) {  // a read's error names its file already
        progress.Abandon();
        return ReportError(reads[i].status.error());
      }
      Status s;
      for (const auto& b : reads[i].batches) {
        s = writer.Write(b);
        if (!s) break;
      }
      reads[i].batches.clear();
      bytes_in += reads[i].bytes;
      if (!s) {
        progress.Abandon();
        Error e = s.error();
        e.message = fmt::format("{}: {}", (*inputs)[i].display, e.message);
        return ReportError(e);
      }
    }
    progress.Finish();
  }
  if (writer.rows() == 0) {
    // An empty snapshot would only lengthen the history; nothing changes, as in DuckDB's COPY.
    fmt::print("appended 0 rows to {}: the inputs hold no rows, nothing committed\n",
               id->ToString());
    return 0;
  }
  Progress writing("writing", 0, "files");
  writer.set_on_file_written([&](int64_t) { writing.Advance(); });
  auto files = writer.Finish();
  if (!files) {
    writing.Abandon();
    return ReportError(files.error());
  }
  writing.Finish();
  iceberg::SnapshotUpdate update;
  update.added = *files;
  auto committed = iceberg::CommitSnapshot(*w->catalog, *w->io, *id, update);
  if (!committed) {
    for (const auto& f : *files) (void)w->io->Delete(f.file_path);
    return ReportError(committed.error());
  }
  int64_t bytes_out = 0;
  for (const auto& f : *files) bytes_out += f.file_size_in_bytes;
  fmt::print(
      "appended {} rows to {}: {} input files ({:.1f} MB) -> {} data files ({:.1f} MB) in {:.2f} "
      "s, snapshot {}\n",
      writer.rows(), id->ToString(), inputs->size(), bytes_in / 1e6, files->size(), bytes_out / 1e6,
      watch.ElapsedSeconds(), committed->metadata.CurrentSnapshot()->snapshot_id);
  return 0;
}

}  // namespace

Result<iceberg::Schema> SchemaLikeFile(const GlobalOptions& g, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(std::vector<InputFile> inputs, ExpandInputs(g, {path}));
  const InputFile& in = inputs.front();
  if (in.format == Format::kCsv || in.format == Format::kJson) {
    // The columns as DuckDB's read_csv / read_json would name and type them, all optional.
    FLOE_ASSIGN_OR_RETURN(Buffer bytes, TextInput(in));
    columnar::Schema schema;
    if (in.format == Format::kCsv) {
      FLOE_ASSIGN_OR_RETURN(columnar::CsvSniff sniff,
                            columnar::SniffCsv(bytes.string_view(), in.display));
      schema = std::move(sniff.schema);
    } else {
      FLOE_ASSIGN_OR_RETURN(schema, columnar::InferJsonSchema(bytes.string_view(), in.display));
    }
    int32_t next_id = 1;
    return iceberg::FromColumnarSchema(schema, &next_id);
  }
  FLOE_ASSIGN_OR_RETURN(parquet::OpenedFooter footer, parquet::OpenFooter(*in.store, in.key, 0));
  const parquet::FileReader& reader = footer.reader;
  // A column the reader cannot map (decimal256, an unknown physical layout) says why.
  const auto& fields = reader.arrow_schema().fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (const auto& err = reader.schema().FieldError(static_cast<int>(i))) {
      return Unsupported("{}: column '{}' cannot become an Iceberg column: {}", path,
                         fields[i].name, err->message);
    }
  }
  int32_t next_id = 1;
  return iceberg::FromColumnarSchema(reader.arrow_schema(), &next_id);
}

void AddAppendCommand(CLI::App& table_cmd, GlobalOptions& options,
                      std::shared_ptr<TableArgs> args) {
  auto* sub = table_cmd.add_subcommand(
      "append",
      "Append Parquet, CSV/TSV or newline-delimited JSON files (also .gz, .zst), or folders of "
      "them, in one commit");
  sub->add_option("table", args->table, "Table name, NAMESPACE.TABLE")->required();
  sub->add_option(
         "files", args->inputs,
         "Input files or folders (.parquet; .csv, .tsv, .txt, .json, .ndjson, .jsonl, each also "
         "with .gz or .zst), local or store URIs. CSV dialect and header are sniffed; "
         "header columns and JSON keys are matched by name")
      ->required();
  sub->callback([&options, args] {
    int rc = Append(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
