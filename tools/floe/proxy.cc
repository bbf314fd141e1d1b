// `floe proxy`: the counting S3 proxy (io/counting_proxy.h) in front of an S3 server, so that any
// engine's requests -- Spark's, DuckDB's, pyiceberg's -- are counted as floe counts its own; and
// `floe proxy stats` to read (or reset, or window) a running proxy's counts.
#include <csignal>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "cli.h"
#include "floe/columnar/column_builder.h"
#include "floe/io/counting_proxy.h"
#include "floe/io/http_client.h"
#include "result_printer.h"

namespace floe::cli {
namespace {

struct ProxyArgs {
  std::string listen = "127.0.0.1:0";
  std::string upstream;
  std::string port_file;
  // stats
  std::string proxy;
  std::string window;
  std::string start_window;
  bool reset = false;
  bool objects = false;
  std::string format = "text";
};

int Serve(const GlobalOptions& g, const ProxyArgs& a) {
  if (a.upstream.empty()) {
    return ReportError(Error{ErrorKind::kInvalidInput,
                             "floe proxy: --upstream http://HOST:PORT is required (the S3 server "
                             "to forward to)"});
  }
  io::ProxyOptions o;
  o.listen = a.listen;
  o.upstream = a.upstream;
  if (g.simulate_s3 && !g.no_simulate_s3) {
    auto sim = io::ParseSimulationOptions(*g.simulate_s3);
    if (!sim) return ReportError(sim.error());
    o.simulate = *sim;
  }
  // Every thread the proxy starts inherits this mask, so SIGINT and SIGTERM reach sigwait only.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  auto proxy = io::CountingProxy::Start(o);
  if (!proxy) return ReportError(proxy.error());
  if (!a.port_file.empty()) {
    std::ofstream out(a.port_file + ".tmp");
    out << (*proxy)->port() << "\n";
    out.close();
    std::rename((a.port_file + ".tmp").c_str(), a.port_file.c_str());
  }
  std::printf(
      "floe proxy: %s -> %s%s; counts at %s/_floe/stats (Ctrl-C stops)\n",
      (*proxy)->endpoint().c_str(), a.upstream.c_str(),
      o.simulate ? (" with S3 timing " + io::FormatSimulationOptions(*o.simulate)).c_str() : "",
      (*proxy)->endpoint().c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  const io::ProxyStats s = (*proxy)->Stats();
  std::fprintf(stderr, "floe proxy: stopped after %llu requests (%llu bytes out, %llu in)\n",
               static_cast<unsigned long long>(s.totals.total()),
               static_cast<unsigned long long>(s.totals.bytes_out),
               static_cast<unsigned long long>(s.totals.bytes_in));
  return 0;
}

void PrintTable(const nlohmann::json& j) {
  auto line = [](const std::string& name, const nlohmann::json& c) {
    std::string kinds;
    for (auto it = c["requests"].begin(); it != c["requests"].end(); ++it) {
      if (it.value().get<uint64_t>() == 0) continue;
      kinds += fmt::format(" {}={}", it.key(), it.value().get<uint64_t>());
    }
    std::printf("%-24s requests=%llu%s ranged_gets=%llu bytes_out=%llu bytes_in=%llu errors=%llu\n",
                name.c_str(), static_cast<unsigned long long>(c["total"].get<uint64_t>()),
                kinds.c_str(), static_cast<unsigned long long>(c["ranged_gets"].get<uint64_t>()),
                static_cast<unsigned long long>(c["bytes_out"].get<uint64_t>()),
                static_cast<unsigned long long>(c["bytes_in"].get<uint64_t>()),
                static_cast<unsigned long long>(c["errors"].get<uint64_t>()));
  };
  line(j.contains("window") ? "window " + j["window"].get<std::string>() : "total", j);
  for (auto it = j["clients"].begin(); it != j["clients"].end(); ++it) {
    line("  client " + it.key(), it.value());
  }
  if (j.contains("objects")) {
    for (auto it = j["objects"].begin(); it != j["objects"].end(); ++it) {
      line("  " + it.key(), it.value());
    }
  }
}

// The counts as rows, one per scope (the total or window, each client, each object), for the
// result formats every listing prints in: requests by kind as columns, in the proxy's order.
Status PrintRows(const nlohmann::json& j, const std::string& format) {
  namespace c = columnar;
  std::vector<std::string> kinds;
  for (auto it = j["requests"].begin(); it != j["requests"].end(); ++it) kinds.push_back(it.key());
  auto schema = std::make_shared<c::Schema>();
  schema->fields.push_back({"scope", c::String(), false, -1});
  schema->fields.push_back({"name", c::String(), true, -1});  // NULL for the total
  std::vector<std::string> counts = {"requests"};
  counts.insert(counts.end(), kinds.begin(), kinds.end());
  for (const char* k : {"ranged_gets", "bytes_out", "bytes_in", "errors"}) counts.push_back(k);
  for (const auto& k : counts) schema->fields.push_back({k, c::Int64(), false, -1});
  c::BinaryBuilder scopes, names;
  std::vector<c::FixedWidthBuilder<int64_t>> values(counts.size(),
                                                    c::FixedWidthBuilder<int64_t>(c::Int64()));
  int64_t rows = 0;
  auto add = [&](const std::string& scope, const std::string& name,
                 const nlohmann::json& o) -> Status {
    FLOE_RETURN_IF_ERROR(scopes.Append(scope));
    if (scope == "total") {
      names.AppendNull();
    } else {
      FLOE_RETURN_IF_ERROR(names.Append(name));
    }
    for (size_t i = 0; i < counts.size(); ++i) {
      const nlohmann::json& v = i == 0 ? o["total"]
                                : i <= kinds.size()
                                    ? o["requests"].value(counts[i], nlohmann::json(0))
                                    : o[counts[i]];
      values[i].Append(v.is_number() ? v.get<int64_t>() : 0);
    }
    ++rows;
    return {};
  };
  FLOE_RETURN_IF_ERROR(j.contains("window") ? add("window", j["window"].get<std::string>(), j)
                                            : add("total", "", j));
  for (auto it = j["clients"].begin(); it != j["clients"].end(); ++it)
    FLOE_RETURN_IF_ERROR(add("client", it.key(), it.value()));
  if (j.contains("objects")) {
    for (auto it = j["objects"].begin(); it != j["objects"].end(); ++it)
      FLOE_RETURN_IF_ERROR(add("object", it.key(), it.value()));
  }
  c::RecordBatch batch;
  batch.schema = schema;
  batch.columns.push_back(scopes.Finish());
  batch.columns.push_back(names.Finish());
  for (auto& v : values) batch.columns.push_back(v.Finish());
  batch.num_rows = rows;
  ResultPrinter printer(format, stdout, {.max_width = TerminalWidth()});
  FLOE_RETURN_IF_ERROR(printer.Add(batch));
  printer.Finish(schema->fields, std::nullopt, "");
  return {};
}

int Stats(const ProxyArgs& a) {
  if (a.proxy.empty()) {
    return ReportError(Error{ErrorKind::kInvalidInput,
                             "floe proxy stats: --proxy http://127.0.0.1:PORT is required"});
  }
  std::string base = a.proxy;
  while (base.ends_with('/')) base.pop_back();
  io::HttpClientOptions ho;
  ho.max_attempts = 1;
  ho.request_timeout_ms = 10000;
  io::HttpClient http(ho);
  auto call = [&](const std::string& method, const std::string& path) -> Result<nlohmann::json> {
    io::HttpRequest req;
    req.method = method;
    req.url = base + path;
    req.label = method + " " + path;
    if (method == "POST") req.headers.emplace_back("Content-Type: application/json");
    FLOE_ASSIGN_OR_RETURN(io::HttpResponse r, http.Execute(std::move(req)));
    if (r.TransportFailed()) {
      return IOError("floe proxy stats: {} does not answer: {}", base, r.transport_error);
    }
    auto j = nlohmann::json::parse(r.BodyText(), nullptr, false);
    if (r.status != 200 || !j.is_object()) {
      std::string why = j.is_object() && j.contains("error") ? j["error"].dump() : "";
      return IOError("floe proxy stats: {}{}: HTTP {} {}", base, path, r.status, why);
    }
    return j;
  };
  if (a.reset) {
    auto r = call("POST", "/_floe/reset");
    if (!r) return ReportError(r.error());
  }
  if (!a.start_window.empty()) {
    auto r = call("POST", "/_floe/window?name=" + a.start_window);
    if (!r) return ReportError(r.error());
  }
  if (a.reset || !a.start_window.empty()) return 0;
  std::string path = "/_floe/stats?objects=" + std::string(a.objects ? "1" : "0");
  if (!a.window.empty()) path += "&window=" + a.window;
  auto j = call("GET", path);
  if (!j) return ReportError(j.error());
  if (a.format == "json") {
    std::printf("%s\n", j->dump(2).c_str());
  } else if (a.format == "text") {
    PrintTable(*j);
  } else {
    Status printed = PrintRows(*j, a.format);
    if (!printed) return ReportError(printed.error());
  }
  return 0;
}

}  // namespace

void AddProxyCommand(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<ProxyArgs>();
  auto* cmd = app.add_subcommand(
      "proxy",
      "A counting S3 proxy: run an engine's S3 traffic through it and read its requests, bytes "
      "and clients (with --simulate-s3: S3's first-byte latency and bandwidth on loopback)");
  cmd->add_option("--listen", args->listen,
                  "HOST:PORT to listen on (default 127.0.0.1:0: any port)");
  cmd->add_option("--upstream", args->upstream, "The S3 server, http://HOST:PORT");
  cmd->add_option("--port-file", args->port_file, "Write the port here once listening");
  auto* stats = cmd->add_subcommand(
      "stats", "A running proxy's counts: totals, per client (and per object with --objects)");
  stats->add_option("--proxy", args->proxy, "The proxy, http://127.0.0.1:PORT")->required();
  stats->add_option("--window", args->window, "Counts since this named window started");
  stats->add_option("--start-window", args->start_window, "Start (or restart) a named window");
  stats->add_flag("--reset", args->reset, "Zero the counts and forget every window");
  stats->add_flag("--objects", args->objects, "Also per object");
  stats
      ->add_option("--format", args->format,
                   "text (default: a line per scope), json (the proxy's own object), or a row per "
                   "scope -- total or window, client, object -- in table, csv, jsonl or markdown")
      ->check(FormatCheck({"text"}, {}));
  stats->callback([args] {
    int rc = Stats(*args);
    if (rc != 0) std::exit(rc);
  });
  cmd->callback([&options, args, cmd] {
    if (cmd->got_subcommand("stats")) return;
    std::exit(Serve(options, *args));
  });
}

}  // namespace floe::cli
