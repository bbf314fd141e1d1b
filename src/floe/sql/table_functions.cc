#include "floe/sql/table_functions.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "floe/base/calendar.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/compressed_input.h"
#include "floe/columnar/csv_reader.h"
#include "floe/columnar/csv_sniffer.h"
#include "floe/columnar/json_reader.h"
#include "floe/columnar/take.h"
#include "floe/parquet/read_file.h"

namespace floe::sql {

namespace {

namespace c = columnar;

// The location of a path as the FileIO resolves it: URIs as they are, local paths absolute.
std::string LocationOf(const std::string& path) {
  if (path.find("://") != std::string::npos) return path;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return "file://" + (ec ? path : abs.lexically_normal().string());
}

Result<std::string> PathArgument(std::string_view name, const std::vector<ast::Const>& args) {
  if (args.size() != 1 || args[0].kind != ast::Const::Kind::kString) {
    return InvalidInput("{}() takes one argument, the file's path as a string", name);
  }
  return args[0].text;
}

// The file's bytes, decompressed when it is gzip or zstd.
Result<Buffer> ReadTextFile(const std::string& path, const iceberg::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(iceberg::StoreObject object, io.Resolve(LocationOf(path)));
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, object.store->Get(object.key, io::Range::Whole()));
  return c::DecompressInput(std::move(bytes), path);
}

// A local path with wildcards (*, ?, [...]) in any of its parts, `**` standing for any number of
// folders: the files it matches, in name order, as DuckDB's globs; any other path as it is.
Result<std::vector<std::string>> ExpandGlob(const std::string& path) {
  if (path.find_first_of("*?[") == std::string::npos || path.find("://") != std::string::npos)
    return std::vector<std::string>{path};
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  // Paths matched so far ("" for a relative path's start), one part at a time.
  std::vector<std::string> at = {path.starts_with('/') ? "/" : ""};
  std::error_code ec;
  auto join = [](const std::string& dir, const std::string& name) {
    return dir.empty() ? name : dir.ends_with('/') ? dir + name : dir + "/" + name;
  };
  for (size_t i = path.starts_with('/') ? 1 : 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    std::vector<std::string> next;
    if (part == "**") {
      // Every folder below (and the folder itself), for the parts after it to match in.
      for (const std::string& dir : at) {
        next.push_back(dir);
        for (auto it = std::filesystem::recursive_directory_iterator(dir.empty() ? "." : dir, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
          if (it->is_directory(ec)) {
            next.push_back(
                join(dir, std::filesystem::relative(it->path(), dir.empty() ? "." : dir).string()));
          }
        }
      }
    } else if (part.find_first_of("*?[") == std::string::npos) {
      for (const std::string& dir : at) next.push_back(join(dir, part));
    } else {
      for (const std::string& dir : at) {
        for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
          const std::string name = e.path().filename().string();
          const bool kind_fits = last ? e.is_regular_file(ec) : e.is_directory(ec);
          if (kind_fits && fnmatch(part.c_str(), name.c_str(), 0) == 0)
            next.push_back(join(dir, name));
        }
        ec.clear();  // a folder that cannot be listed matches nothing
      }
    }
    at = std::move(next);
  }
  std::vector<std::string> out;
  for (const std::string& p : at) {
    if (std::filesystem::is_regular_file(p, ec)) out.push_back(p);
  }
  if (out.empty()) return NotFound("no file matches '{}'", path);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A schema on one line, for messages: "a long, b string".
std::string Columns(const c::Schema& schema) {
  std::string out;
  for (const auto& f : schema.fields) {
    if (!out.empty()) out += ", ";
    out += f.name + " " + f.type.ToString();
  }
  return out;
}

Result<std::string> StringOption(const ast::NamedConst& o) {
  if (o.value.kind != ast::Const::Kind::kString)
    return InvalidInput("option {} takes a string", o.name);
  return o.value.text;
}

// One character, as DuckDB spells it: 'x', '\t' for a tab, '' for none (quote and escape).
Result<char> CharOption(const ast::NamedConst& o, bool allow_empty) {
  FLOE_ASSIGN_OR_RETURN(std::string v, StringOption(o));
  if (v == "\\t") return '\t';
  if (v.empty() && allow_empty) return '\0';
  if (v.size() != 1) return InvalidInput("option {} takes one character, not '{}'", o.name, v);
  return v[0];
}

Result<bool> BoolOption(const ast::NamedConst& o) {
  if (o.value.kind == ast::Const::Kind::kBool) return o.value.boolean;
  if (o.value.kind == ast::Const::Kind::kInteger && (o.value.integer == 0 || o.value.integer == 1))
    return o.value.integer == 1;
  return InvalidInput("option {} takes true or false", o.name);
}

Result<int64_t> CountOption(const ast::NamedConst& o) {
  if (o.value.kind != ast::Const::Kind::kInteger || o.value.integer < 0)
    return InvalidInput("option {} takes a count (an integer >= 0)", o.name);
  return o.value.integer;
}

Result<c::RecordBatch> Combine(std::vector<c::RecordBatch> batches, const c::Schema& schema) {
  if (batches.size() == 1) return std::move(batches[0]);
  if (batches.empty()) {
    c::RecordBatch empty;
    empty.schema = std::make_shared<c::Schema>(schema);
    for (const auto& f : schema.fields) empty.columns.push_back(c::NullColumn(f.type, 0));
    return empty;
  }
  return c::Concatenate(batches);
}

// read_parquet(path): a file, or every file a glob matches, each with the first file's columns
// (names and types; a file whose columns differ is an error naming both, as DuckDB's default).
Result<c::RecordBatch> ReadParquetFunction(const std::string& path, const iceberg::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandGlob(path));
  std::vector<c::RecordBatch> batches;
  c::SchemaPtr schema;
  for (const std::string& file : files) {
    FLOE_ASSIGN_OR_RETURN(iceberg::StoreObject object, io.Resolve(LocationOf(file)));
    FLOE_ASSIGN_OR_RETURN(parquet::FileContents contents,
                          parquet::ReadFileAll(*object.store, object.key, {}));
    if (!schema) {
      schema = contents.read.schema;
    } else {
      const auto& want = schema->fields;
      const auto& got = contents.read.schema->fields;
      bool same = want.size() == got.size();
      for (size_t i = 0; same && i < want.size(); ++i) {
        same = want[i].name == got[i].name && want[i].type == got[i].type;
      }
      if (!same) {
        return InvalidInput("'{}' has other columns than '{}' ({} against {})", file, files[0],
                            Columns(*contents.read.schema), Columns(*schema));
      }
    }
    for (auto& b : contents.batches) {
      b.schema = schema;
      batches.push_back(std::move(b));
    }
  }
  return Combine(std::move(batches), *schema);
}

// read_csv(path, delim =, header =, ...): the dialect and columns sniffed from the first file
// (what the options fix is taken as given), every file read with them.
Result<c::RecordBatch> ReadCsvFunction(const std::string& path,
                                       const std::vector<ast::NamedConst>& named,
                                       const iceberg::FileIO& io) {
  c::CsvSniffOptions sniff;
  bool all_varchar = false;
  for (const auto& o : named) {
    if (o.name == "delim" || o.name == "sep" || o.name == "delimiter") {
      FLOE_ASSIGN_OR_RETURN(char ch, CharOption(o, false));
      sniff.delimiter = ch;
    } else if (o.name == "quote") {
      FLOE_ASSIGN_OR_RETURN(char ch, CharOption(o, true));
      sniff.quote = ch;
    } else if (o.name == "escape") {
      FLOE_ASSIGN_OR_RETURN(char ch, CharOption(o, true));
      sniff.escape = ch;
    } else if (o.name == "header") {
      FLOE_ASSIGN_OR_RETURN(bool b, BoolOption(o));
      sniff.header = b;
    } else if (o.name == "nullstr") {
      FLOE_ASSIGN_OR_RETURN(sniff.null_value, StringOption(o));
    } else if (o.name == "skip") {
      FLOE_ASSIGN_OR_RETURN(sniff.skip, CountOption(o));
    } else if (o.name == "sample_size") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, CountOption(o));
      if (n > 0) sniff.sample_lines = static_cast<size_t>(n);
    } else if (o.name == "all_varchar") {
      FLOE_ASSIGN_OR_RETURN(all_varchar, BoolOption(o));
    } else if (o.name == "auto_detect") {
      FLOE_RETURN_IF_ERROR(BoolOption(o));  // floe always sniffs what is not given
    } else {
      return InvalidInput(
          "unknown option {} (floe's read_csv takes delim, sep, header, quote, escape, nullstr, "
          "skip, sample_size, all_varchar, auto_detect)",
          o.name);
    }
  }
  if (sniff.quote && !sniff.escape) sniff.escape = *sniff.quote;
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandGlob(path));
  std::vector<c::RecordBatch> batches;
  c::Schema schema;
  c::CsvOptions options;
  for (size_t i = 0; i < files.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(Buffer bytes, ReadTextFile(files[i], io));
    if (i == 0) {
      FLOE_ASSIGN_OR_RETURN(c::CsvSniff s, c::SniffCsv(bytes.string_view(), files[i], sniff));
      schema = std::move(s.schema);
      if (all_varchar) {
        for (auto& f : schema.fields) f.type = c::String();
      }
      options.dialect = s.dialect;
      options.null_value = sniff.null_value;
      options.match_by_name = false;
    }
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch b,
                          c::ReadCsv(bytes.string_view(), schema, files[i], options));
    batches.push_back(std::move(b));
  }
  return Combine(std::move(batches), schema);
}

// read_json(path): newline-delimited JSON or one array of objects; the columns inferred from the
// first file.
Result<c::RecordBatch> ReadJsonFunction(const std::string& path,
                                        const std::vector<ast::NamedConst>& named,
                                        const iceberg::FileIO& io) {
  int64_t sample = 20000;
  for (const auto& o : named) {
    if (o.name == "format") {
      FLOE_ASSIGN_OR_RETURN(std::string f, StringOption(o));
      if (f != "auto" && f != "newline_delimited" && f != "array")
        return InvalidInput("option format takes 'auto', 'newline_delimited' or 'array', not '{}'",
                            f);
    } else if (o.name == "sample_size") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, CountOption(o));
      if (n > 0) sample = n;
    } else if (o.name == "auto_detect") {
      FLOE_RETURN_IF_ERROR(BoolOption(o));
    } else {
      return InvalidInput(
          "unknown option {} (floe's read_json takes format, sample_size, auto_detect)", o.name);
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandGlob(path));
  std::vector<c::RecordBatch> batches;
  c::Schema schema;
  c::JsonReadOptions options;
  options.unknown_keys_are_errors = false;
  for (size_t i = 0; i < files.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(Buffer bytes, ReadTextFile(files[i], io));
    if (i == 0) {
      FLOE_ASSIGN_OR_RETURN(schema, c::InferJsonSchema(bytes.string_view(), files[i], sample));
    }
    FLOE_ASSIGN_OR_RETURN(auto bs, c::ReadJson(bytes.string_view(), schema, files[i], options));
    for (auto& b : bs) batches.push_back(std::move(b));
  }
  return Combine(std::move(batches), schema);
}

}  // namespace

Result<c::RecordBatch> ReadTableFunction(std::string_view name, const std::vector<ast::Const>& args,
                                         const std::vector<ast::NamedConst>& named,
                                         const iceberg::FileIO& io) {
  auto wrap = [&](const std::string& path, Result<c::RecordBatch> r) -> Result<c::RecordBatch> {
    if (!r)
      return MakeError(r.error().kind, fmt::format("{}('{}'): {}", name, path, r.error().message));
    return r;
  };
  if (name == "read_parquet" || name == "parquet_scan") {
    FLOE_ASSIGN_OR_RETURN(std::string path, PathArgument(name, args));
    if (!named.empty()) return InvalidInput("{}() takes no option {}", name, named[0].name);
    return wrap(path, ReadParquetFunction(path, io));
  }
  if (name == "read_csv" || name == "read_csv_auto") {
    FLOE_ASSIGN_OR_RETURN(std::string path, PathArgument(name, args));
    return wrap(path, ReadCsvFunction(path, named, io));
  }
  if (name == "read_json" || name == "read_json_auto" || name == "read_ndjson" ||
      name == "read_ndjson_auto") {
    FLOE_ASSIGN_OR_RETURN(std::string path, PathArgument(name, args));
    return wrap(path, ReadJsonFunction(path, named, io));
  }
  return NotFound(
      "table function {}() does not exist (floe has floe_settings(), read_parquet(path), "
      "read_csv(path), read_json(path))",
      name);
}

}  // namespace floe::sql
