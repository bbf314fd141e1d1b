// parquet_dump: prints a Parquet file as floe reads it, in the canonical JSON the differential
// test (differential.py) compares with pyarrow and DuckDB:
//   {"schema": [["name", "type"], ...], "rows": [[v, ...], ...], "pages_skipped": N}
//   or {"error": "..."}
// Values use columnar::AppendJsonValue. Reads through the store path (ReadFile over a
// local directory store) with the file length known, so planning, coalescing and decoding are all
// exercised. Exit status: 0 read, 2 reported error, anything else a crash.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "floe/columnar/value_format.h"
#include "floe/io/store_uri.h"
#include "floe/parquet/read_file.h"

namespace {

int Fail(const std::string& message) {
  std::string out = "{\"error\": ";
  floe::columnar::AppendJsonString(message, &out);
  out += "}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  floe::parquet::ReadFileOptions file_options;
  floe::parquet::StrategyReadOptions& options = file_options.fetch;
  bool length_known = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--batch-rows") {
      options.read.batch_rows = std::stoll(value());
    } else if (a == "--tail-bytes") {
      options.planner.initial_tail_bytes = std::stoll(value());
    } else if (a == "--columns") {
      std::string list = value();
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) options.read.columns.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--limit") {
      options.read.limit = std::stoll(value());
    } else if (a == "--unknown-length") {
      length_known = false;
    } else if (a == "--verify-checksums") {
      options.read.verify_checksums = true;
    } else if (a == "--page-index") {
      options.read.use_page_index = true;
    } else if (a == "--equal") {  // COLUMN=INTEGER: a predicate to prune with
      std::string p = value();
      const size_t eq = p.find('=');
      if (eq == std::string::npos) return Fail("--equal wants COLUMN=INTEGER, not " + p);
      options.read.predicates.push_back(floe::parquet::ColumnPredicate::Equal(
          p.substr(0, eq), int64_t{std::stoll(p.substr(eq + 1))}));
    } else {
      path = a;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: parquet_dump FILE [--batch-rows N] [--columns A,B] ...\n");
    return 64;
  }
  std::filesystem::path file = std::filesystem::absolute(path);
  std::error_code ec;
  const uint64_t length = std::filesystem::file_size(file, ec);
  if (ec) return Fail("cannot stat " + file.string());
  auto store = floe::io::OpenStore(file.parent_path().string());
  if (!store) return Fail(store.error().ToString());
  auto contents = floe::parquet::ReadFileAll(**store, file.filename().string(),
                                             {length_known ? length : 0}, file_options);
  if (!contents) return Fail(contents.error().ToString());

  std::string out = "{\"schema\": [";
  const auto& fields = contents->read.schema->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += "[";
    floe::columnar::AppendJsonString(fields[i].name, &out);
    out += ", ";
    floe::columnar::AppendJsonString(fields[i].type.ToString(), &out);
    out += "]";
  }
  out += "],\n\"rows\": [";
  bool first = true;
  for (const auto& batch : contents->batches) {
    if (auto st = batch.Validate(); !st) return Fail("invalid batch: " + st.error().ToString());
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      out += first ? "\n[" : ",\n[";
      first = false;
      for (int c = 0; c < batch.num_columns(); ++c) {
        if (c) out += ", ";
        floe::columnar::AppendJsonValue(*batch.column(c), r, &out);
      }
      out += "]";
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  }
  out += fmt::format("],\n\"pages_skipped\": {}}}\n", contents->read.fetch.plan.pages_skipped);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
