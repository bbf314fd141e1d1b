#include "floe/sql/table_functions.h"

#include <charconv>
#include <filesystem>

#include <fmt/format.h>

#include "floe/base/calendar.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/csv_reader.h"
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

Result<c::RecordBatch> ReadParquetFunction(const std::string& path, const iceberg::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(iceberg::StoreObject object, io.Resolve(LocationOf(path)));
  FLOE_ASSIGN_OR_RETURN(parquet::FileContents contents,
                        parquet::ReadFileAll(*object.store, object.key, {}));
  if (contents.batches.empty()) {
    c::RecordBatch empty;
    empty.schema = contents.read.schema;
    for (const auto& f : contents.read.schema->fields) {
      empty.columns.push_back(c::NullColumn(f.type, 0));
    }
    return empty;
  }
  return c::Concatenate(contents.batches);
}

// The narrowest type every non-empty value of column `col` of `strings` parses as.
c::DataType InferType(const c::Column& col) {
  bool integer = true, number = true, boolean = true, date = true, timestamp = true;
  int64_t seen = 0;
  for (int64_t r = 0; r < col.length && (integer || number || boolean || date || timestamp); ++r) {
    if (col.IsNull(r)) continue;
    const std::string_view v = col.BytesAt(r);
    ++seen;
    if (integer) {
      int64_t x = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      integer = ec == std::errc() && p == v.data() + v.size();
    }
    if (number) {
      double x = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      number = ec == std::errc() && p == v.data() + v.size();
    }
    if (boolean) boolean = v == "true" || v == "false" || v == "TRUE" || v == "FALSE";
    if (date) date = v.size() == 10 && ParseIsoDate(v).has_value();
    if (timestamp) timestamp = v.size() > 10 && ParseIsoDateTime(v).has_value();
  }
  if (seen == 0) return c::String();
  if (integer) return c::Int64();
  if (number) return c::Float64();
  if (boolean) return c::Bool();
  if (date) return c::Date32();
  if (timestamp) return c::Timestamp(c::TimeUnit::kMicro);
  return c::String();
}

Result<c::RecordBatch> ReadCsvFunction(const std::string& path, const iceberg::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(iceberg::StoreObject object, io.Resolve(LocationOf(path)));
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, object.store->Get(object.key, io::Range::Whole()));
  const std::string_view text = bytes.string_view();
  // The header names the columns; read every one as text first, then as the type its values fit.
  const size_t eol = text.find('\n');
  std::string header(text.substr(0, eol));
  if (!header.empty() && header.back() == '\r') header.pop_back();
  if (header.empty()) return InvalidInput("csv file '{}' has no header line", path);
  auto as_text = std::make_shared<c::Schema>();
  // The header's names (quotes taken off); a CSV reader of strings reads every column first.
  size_t start = 0;
  for (size_t i = 0; i <= header.size(); ++i) {
    if (i == header.size() || header[i] == ',') {
      std::string n = header.substr(start, i - start);
      if (n.size() >= 2 && n.front() == '"' && n.back() == '"') n = n.substr(1, n.size() - 2);
      as_text->fields.push_back({n, c::String(), true});
      start = i + 1;
    }
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch strings, c::ReadCsv(text, *as_text, path));
  c::Schema typed;
  for (size_t i = 0; i < as_text->fields.size(); ++i) {
    typed.fields.push_back({as_text->fields[i].name, InferType(*strings.columns[i]), true});
  }
  return c::ReadCsv(text, typed, path);
}

}  // namespace

Result<c::RecordBatch> ReadTableFunction(std::string_view name, const std::vector<ast::Const>& args,
                                         const iceberg::FileIO& io) {
  if (name == "read_parquet" || name == "parquet_scan") {
    FLOE_ASSIGN_OR_RETURN(std::string path, PathArgument(name, args));
    auto r = ReadParquetFunction(path, io);
    if (!r)
      return MakeError(r.error().kind, fmt::format("{}('{}'): {}", name, path, r.error().message));
    return r;
  }
  if (name == "read_csv" || name == "read_csv_auto") {
    FLOE_ASSIGN_OR_RETURN(std::string path, PathArgument(name, args));
    auto r = ReadCsvFunction(path, io);
    if (!r)
      return MakeError(r.error().kind, fmt::format("{}('{}'): {}", name, path, r.error().message));
    return r;
  }
  return NotFound(
      "table function {}() does not exist (floe has floe_settings(), read_parquet(path), "
      "read_csv(path))",
      name);
}

}  // namespace floe::sql
