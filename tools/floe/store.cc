// `floe store`: direct access to any object store by URI -- list, head, get, put, rm. Useful to
// check a store URI and credentials before pointing a warehouse at it. `ls` and `head` print their
// objects as rows (key, size, last_modified, etag) in any result format, as every listing does.
#include <cstdio>
#include <fstream>
#include <iterator>

#include "cli.h"
#include "floe/columnar/column_builder.h"
#include "floe/io/store_uri.h"
#include "result_printer.h"

namespace floe::cli {
namespace {

// Splits "URI" into the store root and the key after it: the last path segment(s) are the key
// for head/get/put/rm, so "file:///tmp/w/a/b.txt" opens file:///tmp/w/a and uses key "b.txt".
std::pair<std::string, std::string> SplitObjectUri(const std::string& uri) {
  auto slash = uri.rfind('/');
  if (slash == std::string::npos) return {".", uri};
  return {uri.substr(0, slash), uri.substr(slash + 1)};
}

struct StoreArgs {
  std::string uri;
  std::string file;
  std::string format = "text";
};

// Objects as the rows of a listing: key, size, last_modified (UTC), etag (NULL when the store has
// none).
Status PrintObjects(const std::vector<io::ObjectInfo>& objects, const std::string& format) {
  namespace c = columnar;
  c::BinaryBuilder keys, etags;
  c::FixedWidthBuilder<int64_t> sizes(c::Int64()), times(c::Timestamp(c::TimeUnit::kMicro, "UTC"));
  for (const auto& o : objects) {
    FLOE_RETURN_IF_ERROR(keys.Append(o.key));
    sizes.Append(static_cast<int64_t>(o.size));
    times.Append(o.mtime_ms * 1000);
    if (o.etag.empty()) {
      etags.AppendNull();
    } else {
      FLOE_RETURN_IF_ERROR(etags.Append(o.etag));
    }
  }
  auto schema = std::make_shared<c::Schema>();
  schema->fields = {{"key", c::String(), false, -1},
                    {"size", c::Int64(), false, -1},
                    {"last_modified", c::Timestamp(c::TimeUnit::kMicro, "UTC"), false, -1},
                    {"etag", c::String(), true, -1}};
  c::RecordBatch batch;
  batch.schema = schema;
  batch.columns.push_back(keys.Finish());
  batch.columns.push_back(sizes.Finish());
  batch.columns.push_back(times.Finish());
  batch.columns.push_back(etags.Finish());
  batch.num_rows = static_cast<int64_t>(objects.size());
  ResultPrinter printer(format, stdout, {.max_width = TerminalWidth()});
  if (batch.num_rows > 0) FLOE_RETURN_IF_ERROR(printer.Add(batch));
  printer.Finish(batch.schema->fields, std::nullopt, "");
  return {};
}

int Run(const GlobalOptions& g, const std::string& verb, const StoreArgs& a) {
  const std::string& uri = a.uri;
  if (verb == "ls") {
    auto store = OpenStoreFor(g, uri, false);
    if (!store) return ReportError(store.error());
    auto all = (*store)->ListAll("");
    if (!all) return ReportError(all.error());
    if (a.format != "text") {
      Status printed = PrintObjects(*all, a.format);
      return printed ? 0 : ReportError(printed.error());
    }
    for (const auto& o : *all)
      std::printf("%12llu  %s\n", static_cast<unsigned long long>(o.size), o.key.c_str());
    return 0;
  }
  auto [root, key] = SplitObjectUri(uri);
  auto store = OpenStoreFor(g, root, false);
  if (!store) return ReportError(store.error());
  if (verb == "head") {
    auto info = (*store)->Head(key);
    if (!info) return ReportError(info.error());
    if (a.format != "text") {
      Status printed = PrintObjects({*info}, a.format);
      return printed ? 0 : ReportError(printed.error());
    }
    std::printf("key=%s size=%llu mtime_ms=%lld etag=%s\n", info->key.c_str(),
                static_cast<unsigned long long>(info->size), static_cast<long long>(info->mtime_ms),
                info->etag.c_str());
    return 0;
  }
  if (verb == "get") {
    auto data = (*store)->Get(key, io::Range::Whole());
    if (!data) return ReportError(data.error());
    std::fwrite(data->data(), 1, data->size(), stdout);
    return 0;
  }
  if (verb == "put") {
    std::ifstream in(a.file, std::ios::binary);
    if (!in)
      return ReportError(Error{ErrorKind::kNotFound, "cannot open local file '" + a.file + "'"});
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto put = (*store)->Put(key, AsBytes(bytes));
    if (!put) return ReportError(put.error());
    return 0;
  }
  auto del = (*store)->Delete(key);
  if (!del) return ReportError(del.error());
  return 0;
}

}  // namespace

void AddStoreCommand(CLI::App& app, GlobalOptions& options) {
  auto* cmd = app.add_subcommand("store", "Object-store access by URI: ls, head, get, put, rm");
  cmd->require_subcommand(1);
  auto args = std::make_shared<StoreArgs>();
  for (const char* verb : {"ls", "head", "get", "put", "rm"}) {
    auto* sub = cmd->add_subcommand(verb, std::string(verb) + " an object (URI ends with its key)");
    sub->add_option("uri", args->uri, "Store or object URI")->required();
    if (std::string(verb) == "put")
      sub->add_option("file", args->file, "Local file to upload")->required();
    if (std::string(verb) == "ls" || std::string(verb) == "head") {
      sub->add_option("--format", args->format,
                      "text (default: size and key, a line each), or key, size, last_modified "
                      "and etag as rows in table, csv, json, jsonl or markdown")
          ->check(FormatCheck({"text"}));
    }
    sub->callback([&options, args, v = std::string(verb)] {
      int rc = Run(options, v, *args);
      if (rc != 0) std::exit(rc);
    });
  }
}

}  // namespace floe::cli
