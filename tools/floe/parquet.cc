// `floe parquet inspect|cat`: a Parquet file's footer in readable form, and its rows as CSV, as
// the JSON of docs/cli.md or as a table, through `floe query`'s result printer. PATH is a local
// file or a store URI whose last segment is the key.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/value_format.h"
#include "floe/parquet/column_predicate.h"
#include "floe/parquet/read_file.h"
#include "result_printer.h"

namespace floe::cli {
namespace {

struct ParquetArgs {
  std::string path;
  std::string columns;
  int64_t limit = -1;
  std::string format = "csv";
};

struct OpenedFile {
  io::StorePtr store;
  std::string key;
  uint64_t length = 0;  // 0: unknown
  std::optional<parquet::FileReader> reader;
};

bool HasScheme(const std::string& path) { return path.find("://") != std::string::npos; }

Result<OpenedFile> Open(const GlobalOptions& g, const std::string& path, bool read_footer = true) {
  OpenedFile f;
  std::string root;
  uint64_t length = 0;
  if (HasScheme(path)) {
    const size_t slash = path.rfind('/');
    root = path.substr(0, slash);
    f.key = path.substr(slash + 1);
    if (f.key.empty()) return InvalidInput("'{}' names no file (it ends in '/')", path);
  } else {
    // A local file: its length comes from the file system, so no HEAD and no guessing.
    std::error_code ec;
    std::filesystem::path p(path);
    if (!std::filesystem::is_regular_file(p, ec)) return NotFound("no such file '{}'", path);
    length = std::filesystem::file_size(p, ec);
    if (ec) return IOError("cannot read the size of '{}': {}", path, ec.message());
    p = std::filesystem::absolute(p, ec);
    root = p.parent_path().string();
    f.key = p.filename().string();
  }
  FLOE_ASSIGN_OR_RETURN(f.store, OpenStoreFor(g, root, false));
  f.length = length;
  if (!read_footer) return f;  // the reader opens it
  FLOE_ASSIGN_OR_RETURN(parquet::OpenedFooter opened, parquet::OpenFooter(*f.store, f.key, length));
  f.reader = std::move(opened.reader);
  return f;
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// ---- inspect --------------------------------------------------------------------------------

std::string Shorten(std::string s, size_t max = 96) {
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

// A statistics value in the column's Arrow type, rendered as floe renders values.
std::string StatText(const parquet::ColumnDescriptor& leaf, const std::string& bytes) {
  using columnar::TypeId;
  auto value = parquet::DecodeStatValue(leaf, bytes);
  auto column = std::make_shared<columnar::Column>();
  column->type = leaf.type;
  column->length = 1;
  const int width = leaf.type.FixedWidth();
  if (value && leaf.type.id == TypeId::kBool) {
    column->values = Buffer(std::vector<uint8_t>{std::get<bool>(*value) ? uint8_t{1} : uint8_t{0}});
  } else if (value && leaf.type.IsBinaryLike()) {
    columnar::BinaryBuilder b(leaf.type);
    (void)b.Append(std::get<std::string>(*value));
    column = std::const_pointer_cast<columnar::Column>(b.Finish());
  } else if (value && width > 0 && leaf.type.id != TypeId::kFixedSizeBinary &&
             leaf.type.id != TypeId::kFloat16 && leaf.type.id != TypeId::kFloat32 &&
             leaf.type.id != TypeId::kFloat64) {
    std::vector<uint8_t> raw(static_cast<size_t>(width));
    if (const auto* i = std::get_if<int64_t>(&*value)) std::memcpy(raw.data(), i, raw.size());
    if (const auto* u = std::get_if<uint64_t>(&*value)) std::memcpy(raw.data(), u, raw.size());
    if (const auto* d = std::get_if<__int128>(&*value)) std::memcpy(raw.data(), d, raw.size());
    column->values = Buffer(std::move(raw));
  } else if (width > 0 && static_cast<int>(bytes.size()) == width &&
             leaf.type.id != TypeId::kDecimal128) {
    column->values = Buffer::FromString(bytes);  // floats and fixed-size binary as stored
  } else {
    std::string hex;
    for (unsigned char c : bytes) hex += fmt::format("{:02x}", c);
    return "0x" + hex;
  }
  std::string out;
  columnar::AppendJsonValue(*column, 0, &out);
  return Shorten(out);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// " (STRING, UTF8)": the logical and converted annotations, as Parquet's schema text shows them.
std::string Annotation(const parquet::SchemaElement& e) {
  std::vector<std::string> parts;
  if (e.logical_type) parts.push_back(e.logical_type->ToString());
  if (e.converted_type) parts.push_back(parquet::ConvertedTypeName(*e.converted_type));
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? "" : " (" + s + ")";
}

// The schema tree in Parquet's message notation ("optional int32 id (INT_8)"), each leaf with
// the Arrow type floe reads it as and its column index and levels.
void PrintSchemaTree(const parquet::FileReader& r) {
  const auto& schema = r.metadata().schema;
  const auto& leaves = r.schema().leaves();
  std::vector<int64_t> open = {schema[0].num_children.value_or(0)};
  size_t leaf = 0;
  for (size_t i = 1; i < schema.size(); ++i) {
    while (!open.empty() && open.back() == 0) open.pop_back();
    if (open.empty()) break;
    const auto& e = schema[i];
    std::string indent(2 * open.size(), ' ');
    --open.back();
    std::string type = "group";
    if (e.is_leaf()) {
      type = *e.type == parquet::PhysicalType::kByteArray
                 ? "binary"
                 : Lower(parquet::PhysicalTypeName(*e.type));
      if (*e.type == parquet::PhysicalType::kFixedLenByteArray) {
        type += fmt::format("({})", e.type_length.value_or(0));
      }
    }
    std::string line =
        fmt::format("{}{} {} {}{}", indent,
                    Lower(parquet::FieldRepetitionTypeName(
                        e.repetition_type.value_or(parquet::FieldRepetitionType::kRequired))),
                    type, e.name, Annotation(e));
    if (e.field_id) line += fmt::format(" field_id={}", *e.field_id);
    if (e.is_leaf() && leaf < leaves.size()) {
      const auto& l = leaves[leaf++];
      line += fmt::format("  -> {} (column {}, def {}, rep {})", l.type.ToString(), l.column,
                          l.max_def, l.max_rep);
    }
    fmt::print("{}\n", line);
    if (e.num_children.value_or(0) > 0) open.push_back(*e.num_children);
  }
}

int Inspect(const GlobalOptions& g, const ParquetArgs& a) {
  auto f = Open(g, a.path);
  if (!f) return ReportError(f.error());
  const parquet::FileReader& r = *f->reader;
  const parquet::FileMetaData& md = r.metadata();
  fmt::print("file: {}\n", r.path());
  fmt::print("size: {} bytes\n", r.file_length());
  fmt::print("created_by: {}\n", md.created_by.value_or("(none)"));
  fmt::print("format version: {}\n", md.version);
  fmt::print("rows: {}\nrow groups: {}\ncolumns: {}\n", md.num_rows, md.row_groups.size(),
             md.num_columns());
  if (md.encrypted) fmt::print("encrypted: yes (plaintext footer)\n");
  fmt::print("key-value metadata:{}\n", md.key_value_metadata.empty() ? " (none)" : "");
  for (const auto& kv : md.key_value_metadata) {
    fmt::print("  {} = {}\n", kv.key, kv.value ? Shorten(*kv.value, 120) : "(no value)");
  }
  fmt::print("schema (Arrow, with field ids):\n");
  const auto& fields = r.arrow_schema().fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& err = r.schema().FieldError(static_cast<int>(i));
    fmt::print("  {}: {}{}{}\n", fields[i].name,
               err ? "unreadable (" + err->ToString() + ")" : fields[i].type.ToString(),
               fields[i].nullable ? "" : " not null",
               fields[i].field_id >= 0 ? fmt::format(" field_id={}", fields[i].field_id) : "");
  }
  fmt::print("schema (Parquet):\n");
  PrintSchemaTree(r);
  for (size_t rg = 0; rg < md.row_groups.size(); ++rg) {
    const auto& group = md.row_groups[rg];
    fmt::print("row group {}: {} rows, {} bytes uncompressed", rg, group.num_rows,
               group.total_byte_size);
    if (group.total_compressed_size) fmt::print(", {} compressed", *group.total_compressed_size);
    if (group.file_offset) fmt::print(", at offset {}", *group.file_offset);
    fmt::print("\n");
    for (const auto& s : group.sorting_columns) {
      fmt::print("  sorted by column {} {} nulls {}\n", s.column_idx, s.descending ? "DESC" : "ASC",
                 s.nulls_first ? "first" : "last");
    }
    for (size_t c = 0; c < group.columns.size(); ++c) {
      const auto& chunk = group.columns[c];
      const auto& leaf = r.schema().leaves()[c];
      fmt::print("  column {} '{}':", c, leaf.path);
      if (!chunk.meta_data) {
        fmt::print(" encrypted\n");
        continue;
      }
      const auto& m = *chunk.meta_data;
      std::string encodings;
      for (auto e : m.encodings)
        encodings += (encodings.empty() ? "" : ",") + parquet::EncodingName(e);
      fmt::print(" {} {} values, codec {}, encodings {}\n", parquet::PhysicalTypeName(m.type),
                 m.num_values, parquet::CompressionCodecName(m.codec), encodings);
      fmt::print("    bytes [{}, +{}) compressed, {} uncompressed; data page at {}",
                 m.chunk_start(), m.total_compressed_size, m.total_uncompressed_size,
                 m.data_page_offset);
      if (m.dictionary_page_offset)
        fmt::print(", dictionary page at {}", *m.dictionary_page_offset);
      fmt::print("\n");
      if (m.statistics) {
        const auto& s = *m.statistics;
        std::string line = "    stats:";
        auto min = s.min_value ? s.min_value : s.min;
        auto max = s.max_value ? s.max_value : s.max;
        if (min) line += " min " + StatText(leaf, *min);
        if (max) line += " max " + StatText(leaf, *max);
        if (!s.min_value && (s.min || s.max)) line += " (legacy min/max)";
        if (s.is_min_value_exact == false || s.is_max_value_exact == false) line += " (truncated)";
        if (s.null_count) line += fmt::format(" nulls {}", *s.null_count);
        if (s.distinct_count) line += fmt::format(" distinct {}", *s.distinct_count);
        if (s.nan_count) line += fmt::format(" NaNs {}", *s.nan_count);
        fmt::print("{}\n", line);
      }
      std::string index = "    page index:";
      if (chunk.column_index_offset && chunk.column_index_length) {
        index += fmt::format(" column index [{}, +{})", *chunk.column_index_offset,
                             *chunk.column_index_length);
      }
      if (chunk.offset_index_offset && chunk.offset_index_length) {
        index += fmt::format(" offset index [{}, +{})", *chunk.offset_index_offset,
                             *chunk.offset_index_length);
      }
      if (!chunk.column_index_offset && !chunk.offset_index_offset) index += " none";
      fmt::print("{}\n", index);
      if (m.bloom_filter_offset) {
        fmt::print("    bloom filter: at {}{}\n", *m.bloom_filter_offset,
                   m.bloom_filter_length ? fmt::format(", {} bytes", *m.bloom_filter_length) : "");
      }
    }
  }
  return 0;
}

// ---- cat ------------------------------------------------------------------------------------

int Cat(const GlobalOptions& g, const ParquetArgs& a) {
  auto f = Open(g, a.path, /*read_footer=*/false);
  if (!f) return ReportError(f.error());
  parquet::ReadFileOptions options;
  options.fetch.read.columns = SplitList(a.columns);
  options.fetch.read.limit = a.limit;
  // The result printer of `floe query`, in cat's layout of docs/cli.md; batches printed as they are
  // decoded, in file order.
  ResultPrinter printer(
      a.format, stdout,
      {.json_row_per_line = true, .csv_quote_names = true, .max_width = TerminalWidth()});
  auto read = parquet::ReadFile(*f->store, f->key, {f->length}, options,
                                [&](columnar::RecordBatch batch) { return printer.Add(batch); });
  if (!read) return ReportError(read.error());
  printer.Finish(read->schema->fields, std::nullopt, "");
  return 0;
}

}  // namespace

void AddParquetCommand(CLI::App& app, GlobalOptions& options) {
  auto* cmd = app.add_subcommand("parquet", "Inspect and print Parquet files");
  cmd->require_subcommand(1);
  auto args = std::make_shared<ParquetArgs>();

  auto* inspect = cmd->add_subcommand(
      "inspect",
      "Schema (with field ids), row groups, column chunk offsets and sizes, encodings, codecs, "
      "statistics, page index and Bloom filter locations, key-value metadata");
  inspect->add_option("path", args->path, "A local Parquet file or a store URI")->required();
  inspect->callback([&options, args] {
    int rc = Inspect(options, *args);
    if (rc != 0) std::exit(rc);
  });

  auto* cat = cmd->add_subcommand(
      "cat", "Print rows as CSV (with a header line), JSON or an aligned table");
  cat->add_option("path", args->path, "A local Parquet file or a store URI")->required();
  cat->add_option("--columns", args->columns,
                  "Comma-separated columns to print (dotted paths reach into structs)");
  cat->add_option("--limit", args->limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
  cat->add_option("--format", args->format,
                  "csv (default), json: {\"columns\": [...], \"types\": [...], \"rows\": "
                  "[[...], ...]}, jsonl, markdown, or table (as `floe query` prints it)")
      ->check(FormatCheck({}));
  cat->callback([&options, args] {
    int rc = Cat(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
