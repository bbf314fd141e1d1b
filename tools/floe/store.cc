// `floe store`: direct access to any object store by URI -- list, head, get, put, rm. Useful to
// check a store URI and credentials before pointing a warehouse at it.
#include <cstdio>
#include <fstream>
#include <iterator>

#include "cli.h"
#include "floe/io/store_uri.h"

namespace floe::cli {
namespace {

// Splits "URI" into the store root and the key after it: the last path segment(s) are the key
// for head/get/put/rm, so "file:///tmp/w/a/b.txt" opens file:///tmp/w/a and uses key "b.txt".
std::pair<std::string, std::string> SplitObjectUri(const std::string& uri) {
  auto slash = uri.rfind('/');
  if (slash == std::string::npos) return {".", uri};
  return {uri.substr(0, slash), uri.substr(slash + 1)};
}

int Run(const GlobalOptions& g, const std::string& verb, const std::string& uri,
        const std::string& local_file) {
  if (verb == "ls") {
    auto store = OpenStoreFor(g, uri, false);
    if (!store) return ReportError(store.error());
    auto all = (*store)->ListAll("");
    if (!all) return ReportError(all.error());
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
    std::ifstream in(local_file, std::ios::binary);
    if (!in)
      return ReportError(
          Error{ErrorKind::kNotFound, "cannot open local file '" + local_file + "'"});
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
  struct Args {
    std::string uri;
    std::string file;
  };
  auto args = std::make_shared<Args>();
  for (const char* verb : {"ls", "head", "get", "put", "rm"}) {
    auto* sub = cmd->add_subcommand(verb, std::string(verb) + " an object (URI ends with its key)");
    sub->add_option("uri", args->uri, "Store or object URI")->required();
    if (std::string(verb) == "put")
      sub->add_option("file", args->file, "Local file to upload")->required();
    sub->callback([&options, args, v = std::string(verb)] {
      int rc = Run(options, v, args->uri, args->file);
      if (rc != 0) std::exit(rc);
    });
  }
}

}  // namespace floe::cli
