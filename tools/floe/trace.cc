// `floe trace summarize FILE [--by file|purpose|request] [--format table|csv|json]`: a trace that
// `--trace FILE` or `SET trace = 'FILE'` wrote (query_session.h), taken apart -- per statement,
// the requests and bytes each file cost for each purpose (table metadata, manifest list,
// manifest, footer, page index, data, whole file, deletes, ...), or totals per purpose, or every
// request on a row of its own.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "floe/columnar/column_builder.h"
#include "result_printer.h"

namespace floe::cli {
namespace {

struct Request {
  int64_t statement = 0;
  std::string kind, object, purpose, detail, error;
  int64_t offset = -1, length = -1, bytes = 0;
  double start_ms = 0, end_ms = 0;
};

struct Statement {
  int64_t number = 0;
  std::string sql;
};

Result<std::pair<std::vector<Statement>, std::vector<Request>>> ReadTrace(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("trace file '{}' cannot be read", path);
  std::vector<Statement> statements;
  std::vector<Request> requests;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string() ||
        !j.contains("statement") || !j["statement"].is_number_integer()) {
      return InvalidInput("trace file '{}', line {}: not a line of a floe trace", path, n);
    }
    auto text = [&](const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    auto integer = [&](const char* key, int64_t otherwise) {
      return j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : otherwise;
    };
    auto real = [&](const char* key) {
      return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
    };
    if (j["type"] == "statement") {
      statements.push_back({j["statement"].get<int64_t>(), text("sql")});
      continue;
    }
    if (j["type"] != "request") {
      return InvalidInput("trace file '{}', line {}: unknown line type '{}'", path, n,
                          text("type"));
    }
    Request r;
    r.statement = j["statement"].get<int64_t>();
    r.kind = text("kind");
    r.object = text("object");
    r.purpose = text("purpose");
    r.detail = text("detail");
    r.error = text("error");
    r.offset = integer("offset", -1);
    r.length = integer("length", integer("suffix", -1));
    r.bytes = integer("bytes", 0);
    r.start_ms = real("start_ms");
    r.end_ms = real("end_ms");
    requests.push_back(std::move(r));
  }
  return std::pair{std::move(statements), std::move(requests)};
}

// The objects' names after the directory they all share ("shop.db/events/data/x.parquet").
std::vector<std::string> ShortNames(const std::vector<Request>& requests) {
  std::string common;
  bool first = true;
  for (const Request& r : requests) {
    const std::string dir = r.object.substr(0, r.object.rfind('/') + 1);
    if (first) {
      common = dir;
      first = false;
      continue;
    }
    size_t n = 0;
    while (n < common.size() && n < dir.size() && common[n] == dir[n]) ++n;
    common.resize(common.rfind('/', n == 0 ? 0 : n - 1) + 1);
  }
  std::vector<std::string> out;
  out.reserve(requests.size());
  for (const Request& r : requests) out.push_back(r.object.substr(common.size()));
  return out;
}

struct Group {
  int64_t statement = 0;
  std::string object, purpose;
  int64_t requests = 0, bytes = 0, errors = 0;
  double first_ms = 0, request_ms = 0;
};

// The columns, named, as one answer through the one printer.
int Print(const std::vector<std::string>& names, std::vector<columnar::ColumnPtr> columns,
          int64_t rows, const std::string& format) {
  columnar::RecordBatch b;
  b.num_rows = rows;
  b.columns = std::move(columns);
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t i = 0; i < names.size(); ++i) {
    schema->fields.push_back({names[i], b.columns[i]->type, true});
  }
  b.schema = schema;
  ResultPrinter printer(format, stdout, {.max_width = TerminalWidth()});
  if (Status s = printer.Add(b); !s) return ReportError(s.error());
  printer.Finish(schema->fields, std::nullopt, "");
  return 0;
}

int Summarize(const std::string& path, const std::string& by, const std::string& format) {
  auto trace = ReadTrace(path);
  if (!trace) return ReportError(trace.error());
  const auto& [statements, requests] = *trace;
  const std::vector<std::string> names = ShortNames(requests);
  columnar::FixedWidthBuilder<int64_t> statement(columnar::Int64()), count(columnar::Int64()),
      bytes(columnar::Int64()), errors(columnar::Int64());
  columnar::BinaryBuilder object, purpose, detail, sql;
  columnar::FixedWidthBuilder<double> ms(columnar::Float64()), start(columnar::Float64());
  std::vector<std::string> columns;
  int64_t rows = 0;
  std::map<int64_t, std::string> sql_of;
  for (const auto& s : statements) sql_of[s.number] = s.sql;
  if (by == "request") {
    columns = {"statement", "kind",   "object", "purpose",  "detail",
               "offset",    "length", "bytes",  "start_ms", "ms"};
    columnar::BinaryBuilder kind;
    columnar::FixedWidthBuilder<int64_t> offset(columnar::Int64()), length(columnar::Int64());
    for (size_t i = 0; i < requests.size(); ++i) {
      const Request& r = requests[i];
      statement.Append(r.statement);
      (void)kind.Append(r.kind);
      (void)object.Append(names[i]);
      (void)purpose.Append(r.purpose);
      (void)detail.Append(r.error.empty() ? r.detail : r.detail + " (failed: " + r.error + ")");
      if (r.offset >= 0) {
        offset.Append(r.offset);
      } else {
        offset.AppendNull();
      }
      if (r.length >= 0) {
        length.Append(r.length);
      } else {
        length.AppendNull();
      }
      bytes.Append(r.bytes);
      start.Append(r.start_ms);
      ms.Append(std::round((r.end_ms - r.start_ms) * 1000) / 1000);
      ++rows;
    }
    return Print(
        columns,
        {statement.Finish(), kind.Finish(), object.Finish(), purpose.Finish(), detail.Finish(),
         offset.Finish(), length.Finish(), bytes.Finish(), start.Finish(), ms.Finish()},
        rows, format);
  }
  // Groups in the order their first request started.
  std::vector<Group> groups;
  std::map<std::tuple<int64_t, std::string, std::string>, size_t> index;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    const std::string what = by == "purpose" ? std::string() : names[i];
    auto key = std::tuple{r.statement, what, r.purpose};
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({r.statement, what, r.purpose, 0, 0, 0, r.start_ms, 0});
    Group& g = groups[it->second];
    ++g.requests;
    g.bytes += r.kind == "GET" ? r.bytes : 0;
    g.errors += r.error.empty() ? 0 : 1;
    g.first_ms = std::min(g.first_ms, r.start_ms);
    g.request_ms += r.end_ms - r.start_ms;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.statement < b.statement; });
  columns = by == "purpose"
                ? std::vector<std::string>{"statement", "sql",    "purpose",   "requests",
                                           "bytes",     "failed", "request_ms"}
                : std::vector<std::string>{"statement", "object", "purpose",   "requests",
                                           "bytes",     "failed", "request_ms"};
  for (const Group& g : groups) {
    statement.Append(g.statement);
    if (by == "purpose") {
      (void)sql.Append(sql_of[g.statement]);
    } else {
      (void)object.Append(g.object);
    }
    (void)purpose.Append(g.purpose);
    count.Append(g.requests);
    bytes.Append(g.bytes);
    errors.Append(g.errors);
    ms.Append(std::round(g.request_ms * 1000) / 1000);
    ++rows;
  }
  return Print(columns,
               {statement.Finish(), by == "purpose" ? sql.Finish() : object.Finish(),
                purpose.Finish(), count.Finish(), bytes.Finish(), errors.Finish(), ms.Finish()},
               rows, format);
}

}  // namespace

void AddTraceCommand(CLI::App& app) {
  auto* trace = app.add_subcommand(
      "trace", "Take apart a trace of store requests written by `floe query --trace FILE`");
  trace->require_subcommand(1);
  struct Args {
    std::string file, by = "file", format = "table";
  };
  auto args = std::make_shared<Args>();
  auto* sub = trace->add_subcommand(
      "summarize",
      "Per statement, the requests and bytes of each file by purpose (table metadata, manifest "
      "list, manifest, footer, page index, data, whole file, deletes)");
  sub->add_option("file", args->file, "The trace: a JSON line per statement and per request")
      ->required();
  sub->add_option("--by", args->by,
                  "file (default): each file and purpose; purpose: totals per purpose; request: "
                  "every request")
      ->check(CLI::IsMember({"file", "purpose", "request"}));
  sub->add_option("--format", args->format, "table (default), csv, json, jsonl or markdown")
      ->check(FormatCheck({}));
  sub->callback([args] {
    int rc = Summarize(args->file, args->by, args->format);
    std::fflush(stdout);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
