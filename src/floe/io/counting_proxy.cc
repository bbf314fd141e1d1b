#include "floe/io/counting_proxy.h"

#include <sys/socket.h>

#include <chrono>
#include <limits>
#include <list>

#include <fmt/format.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "floe/base/log.h"

namespace floe::io {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

std::string_view S3RequestKindName(S3RequestKind kind) {
  static constexpr std::string_view kNames[kS3RequestKinds] = {"GET",  "HEAD", "PUT",    "PART",
                                                               "POST", "LIST", "DELETE", "OTHER"};
  return kNames[static_cast<int>(kind)];
}

uint64_t ProxyCounts::total() const {
  uint64_t n = 0;
  for (uint64_t r : requests) n += r;
  return n;
}

ProxyCounts& ProxyCounts::operator+=(const ProxyCounts& o) {
  for (int i = 0; i < kS3RequestKinds; ++i) requests[i] += o.requests[i];
  ranged_gets += o.ranged_gets;
  bytes_in += o.bytes_in;
  bytes_out += o.bytes_out;
  errors += o.errors;
  return *this;
}

ProxyCounts& ProxyCounts::operator-=(const ProxyCounts& o) {
  for (int i = 0; i < kS3RequestKinds; ++i) requests[i] -= o.requests[i];
  ranged_gets -= o.ranged_gets;
  bytes_in -= o.bytes_in;
  bytes_out -= o.bytes_out;
  errors -= o.errors;
  return *this;
}

nlohmann::json ProxyCounts::ToJson() const {
  nlohmann::json r = nlohmann::json::object();
  for (int i = 0; i < kS3RequestKinds; ++i) {
    r[std::string(S3RequestKindName(static_cast<S3RequestKind>(i)))] = requests[i];
  }
  return {{"requests", r},        {"total", total()},       {"ranged_gets", ranged_gets},
          {"bytes_in", bytes_in}, {"bytes_out", bytes_out}, {"errors", errors}};
}

ProxyStats& ProxyStats::operator-=(const ProxyStats& o) {
  totals -= o.totals;
  for (const auto& [name, c] : o.clients) clients[name] -= c;
  for (const auto& [name, c] : o.objects) objects[name] -= c;
  std::erase_if(clients, [](const auto& e) { return e.second.total() == 0; });
  std::erase_if(objects, [](const auto& e) { return e.second.total() == 0; });
  return *this;
}

nlohmann::json ProxyStats::ToJson(bool with_objects) const {
  nlohmann::json j = totals.ToJson();
  j["clients"] = nlohmann::json::object();
  for (const auto& [name, c] : clients) j["clients"][name] = c.ToJson();
  if (with_objects) {
    j["objects"] = nlohmann::json::object();
    for (const auto& [name, c] : objects) j["objects"][name] = c.ToJson();
  }
  return j;
}

namespace {

std::string_view PathOf(std::string_view target) {
  auto q = target.find('?');
  return q == std::string_view::npos ? target : target.substr(0, q);
}

std::string_view QueryOf(std::string_view target) {
  auto q = target.find('?');
  return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

bool HasParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (pair.substr(0, pair.find('=')) == name) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

std::string Param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      return eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return "";
}

// A virtual-hosted request names its bucket in the Host ("bucket.s3.host:port"); a path-style one
// in the first path segment. Either way, an object has a key after the bucket.
bool NamesObject(std::string_view path, std::string_view host) {
  const auto colon = host.rfind(':');
  std::string_view name = colon == std::string_view::npos ? host : host.substr(0, colon);
  const bool ip = !name.empty() && name.find_first_not_of("0123456789.") == std::string_view::npos;
  const bool virtual_host = !ip && name.find('.') != std::string_view::npos;
  std::string_view rest = path;
  while (rest.starts_with('/')) rest.remove_prefix(1);
  if (virtual_host) return !rest.empty();
  auto slash = rest.find('/');
  return slash != std::string_view::npos && slash + 1 < rest.size();
}

// The object a path names, as its key reads: percent-escapes decoded.
std::string ObjectName(std::string_view path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    auto hex = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    if (path[i] == '%' && i + 2 < path.size() && hex(path[i + 1]) >= 0 && hex(path[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(path[i + 1]) * 16 + hex(path[i + 2])));
      i += 2;
    } else {
      out.push_back(path[i]);
    }
  }
  return out;
}

using Clock = std::chrono::steady_clock;

}  // namespace

S3RequestKind ClassifyS3Request(std::string_view method, std::string_view target,
                                std::string_view host, bool has_range) {
  (void)has_range;
  const std::string_view query = QueryOf(target);
  const bool object = NamesObject(PathOf(target), host);
  if (method == "HEAD") return S3RequestKind::kHead;
  if (method == "GET") return object ? S3RequestKind::kGet : S3RequestKind::kList;
  if (method == "PUT") {
    return HasParam(query, "partNumber") && HasParam(query, "uploadId") ? S3RequestKind::kPart
                                                                        : S3RequestKind::kPut;
  }
  if (method == "POST") return S3RequestKind::kPost;
  if (method == "DELETE") return S3RequestKind::kDelete;
  return S3RequestKind::kOther;
}

std::string S3ClientName(std::string_view authorization, std::string_view user_agent) {
  if (auto at = authorization.find("Credential="); at != std::string_view::npos) {
    std::string_view rest = authorization.substr(at + 11);
    auto slash = rest.find('/');
    if (slash != std::string_view::npos && slash > 0) return std::string(rest.substr(0, slash));
  }
  if (authorization.starts_with("AWS ")) {  // SigV2: "AWS AKID:signature"
    std::string_view rest = authorization.substr(4);
    auto colon = rest.find(':');
    if (colon != std::string_view::npos && colon > 0) return std::string(rest.substr(0, colon));
  }
  if (!user_agent.empty()) {
    auto space = user_agent.find(' ');
    return std::string(user_agent.substr(0, space));
  }
  return "unknown";
}

class CountingProxy::Impl {
 public:
  Impl(ProxyOptions options, tcp::endpoint upstream)
      : options_(std::move(options)),
        upstream_(std::move(upstream)),
        acceptor_(io_),
        start_(Clock::now()) {
    if (options_.simulate) model_.emplace(*options_.simulate);
  }

  ~Impl() { Stop(); }

  Status Listen(const std::string& host, uint16_t port) {
    beast::error_code ec;
    auto address = asio::ip::make_address(host, ec);
    if (ec) return InvalidInput("proxy listen address '{}': {}", host, ec.message());
    tcp::endpoint at(address, port);
    acceptor_.open(at.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(at, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return IOError("proxy cannot listen on {}:{}: {}", host, port, ec.message());
    port_ = acceptor_.local_endpoint().port();
    accept_thread_ = std::thread([this] { AcceptLoop(); });
    return {};
  }

  int port() const { return port_; }

  void Stop() {
    if (stopping_.exchange(true)) return;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    if (accept_thread_.joinable()) accept_thread_.join();
    beast::error_code ec;
    acceptor_.close(ec);
    std::list<Connection> conns;
    {
      std::lock_guard lock(conns_mu_);
      for (auto& c : conns_) c.Shutdown();
      conns.splice(conns.end(), conns_);
    }
    for (auto& c : conns) {
      if (c.thread.joinable()) c.thread.join();
    }
  }

  ProxyStats Stats(const std::string& window) {
    std::lock_guard lock(stats_mu_);
    ProxyStats s = stats_;
    if (!window.empty()) {
      auto it = windows_.find(window);
      if (it != windows_.end()) s -= it->second;
    }
    return s;
  }

  bool HasWindow(const std::string& name) {
    std::lock_guard lock(stats_mu_);
    return windows_.contains(name);
  }

  void Reset() {
    std::lock_guard lock(stats_mu_);
    stats_ = ProxyStats{};
    windows_.clear();
  }

  void StartWindow(const std::string& name) {
    std::lock_guard lock(stats_mu_);
    windows_[name] = stats_;
  }

 private:
  // A client connection and its upstream connection, shut down from Stop().
  struct Connection {
    explicit Connection(asio::io_context& io) : client(io), upstream(io) {}
    tcp::socket client;
    tcp::socket upstream;
    std::thread thread;
    std::mutex mu;
    bool closed = false;
    std::atomic<bool> done{false};

    void Shutdown() {
      std::lock_guard lock(mu);
      if (closed) return;
      ::shutdown(client.native_handle(), SHUT_RDWR);
      if (upstream.is_open()) ::shutdown(upstream.native_handle(), SHUT_RDWR);
    }
    void Close() {
      std::lock_guard lock(mu);
      closed = true;
      beast::error_code ec;
      client.close(ec);
      upstream.close(ec);
    }
  };

  // When a response's bytes may go out under the simulation: its first byte, its last.
  struct Pace {
    Clock::time_point first_byte;
    Clock::time_point finish;
    uint64_t total = 0;
    uint64_t sent = 0;
  };

  double NowMs() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }
  Clock::time_point AtMs(double ms) const {
    return start_ + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double, std::milli>(ms));
  }

  void AcceptLoop() {
    while (!stopping_) {
      auto conn = std::make_unique<Connection>(io_);
      beast::error_code ec;
      acceptor_.accept(conn->client, ec);
      if (ec) {
        if (stopping_) return;
        Log(LogLevel::kWarn, "proxy: accept failed: {}", ec.message());
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      std::lock_guard lock(conns_mu_);
      if (stopping_) return;
      // Reap finished connections.
      for (auto it = conns_.begin(); it != conns_.end();) {
        if (it->done) {
          it->thread.join();
          it = conns_.erase(it);
        } else {
          ++it;
        }
      }
      conns_.emplace_back(io_);
      Connection& c = conns_.back();
      c.client = std::move(conn->client);
      c.thread = std::thread([this, &c] {
        Serve(c);
        c.Close();
        c.done = true;
      });
    }
  }

  // Streams a message from `in` to `out`, header first. `moved(n)` runs before each n body bytes
  // are written, so counts are in before the receiver can have seen the bytes.
  template <bool isRequest, class Moved>
  static bool Relay(tcp::socket& in, beast::flat_buffer& in_buffer,
                    http::parser<isRequest, http::buffer_body>& p, tcp::socket& out,
                    const Moved& moved, Pace* pace, bool header_only) {
    http::serializer<isRequest, http::buffer_body> sr{p.get()};
    beast::error_code ec;
    if (header_only) {
      sr.split(true);
      http::write_header(out, sr, ec);
      return !ec;
    }
    std::vector<char> buf(size_t{64} << 10);
    do {
      size_t n = 0;
      if (!p.is_done()) {
        p.get().body().data = buf.data();
        p.get().body().size = buf.size();
        http::read(in, in_buffer, p, ec);
        if (ec == http::error::need_buffer) ec = {};
        if (ec) return false;
        n = buf.size() - p.get().body().size;
        p.get().body().size = n;
        p.get().body().data = buf.data();
        p.get().body().more = !p.is_done();
      } else {
        p.get().body().data = nullptr;
        p.get().body().size = 0;
        p.get().body().more = false;
      }
      moved(n);
      if (pace != nullptr && pace->total > 0 && n > 0) {
        pace->sent += n;
        const double share = static_cast<double>(pace->sent) / static_cast<double>(pace->total);
        std::this_thread::sleep_until(
            pace->first_byte + std::chrono::duration_cast<Clock::duration>(
                                   (pace->finish - pace->first_byte) * std::min(1.0, share)));
      }
      http::write(out, sr, ec);
      if (ec == http::error::need_buffer) ec = {};
      if (ec) return false;
    } while (!p.is_done() && !sr.is_done());
    return true;
  }

  // Writes a small JSON answer of the proxy's own.
  static bool Answer(tcp::socket& client, unsigned status, const nlohmann::json& body,
                     bool keep_alive) {
    http::response<http::string_body> res{static_cast<http::status>(status), 11};
    res.set(http::field::content_type, "application/json");
    res.keep_alive(keep_alive);
    res.body() = body.dump() + "\n";
    res.prepare_payload();
    beast::error_code ec;
    http::write(client, res, ec);
    return !ec;
  }

  // /_floe/stats[?window=NAME][&objects=1], /_floe/reset, /_floe/window?name=NAME.
  bool Control(tcp::socket& client, beast::flat_buffer& buffer,
               http::request_parser<http::buffer_body>& p) {
    // Drain any body: the control routes take none.
    uint64_t ignored = 0;
    std::vector<char> buf(4096);
    beast::error_code ec;
    while (!p.is_done()) {
      p.get().body().data = buf.data();
      p.get().body().size = buf.size();
      http::read(client, buffer, p, ec);
      if (ec == http::error::need_buffer) ec = {};
      if (ec) return false;
      ignored += buf.size() - p.get().body().size;
    }
    const auto& req = p.get();
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = PathOf(target);
    const std::string_view query = QueryOf(target);
    const bool keep = req.keep_alive();
    if (path == "/_floe/stats" && req.method() == http::verb::get) {
      const std::string window = Param(query, "window");
      if (!window.empty() && !HasWindow(window)) {
        return Answer(client, 404, {{"error", fmt::format("no window '{}'", window)}}, keep);
      }
      nlohmann::json j = Stats(window).ToJson(Param(query, "objects") == "1");
      if (!window.empty()) j["window"] = window;
      return Answer(client, 200, j, keep);
    }
    if (path == "/_floe/reset" && req.method() == http::verb::post) {
      Reset();
      return Answer(client, 200, {{"reset", true}}, keep);
    }
    if (path == "/_floe/window" && req.method() == http::verb::post) {
      const std::string name = Param(query, "name");
      if (name.empty()) return Answer(client, 400, {{"error", "window needs ?name=NAME"}}, keep);
      StartWindow(name);
      return Answer(client, 200, {{"window", name}}, keep);
    }
    return Answer(client, 404,
                  {{"error",
                    "unknown control route; GET /_floe/stats, POST /_floe/reset, "
                    "POST /_floe/window?name=NAME"}},
                  keep);
  }

  // Adds `delta` to the totals, the client's and the object's counts.
  void Count(const std::string& client, const std::string& object, const ProxyCounts& delta) {
    std::lock_guard lock(stats_mu_);
    stats_.totals += delta;
    stats_.clients[client] += delta;
    stats_.objects[object] += delta;
  }

  bool ConnectUpstream(Connection& c) {
    beast::error_code ec;
    {
      std::lock_guard lock(c.mu);
      if (c.closed || stopping_) return false;
      c.upstream.close(ec);
      c.upstream.connect(upstream_, ec);
    }
    if (!ec) c.upstream.set_option(tcp::no_delay(true), ec);
    return !ec;
  }

  void Serve(Connection& c) {
    beast::error_code ec;
    c.client.set_option(tcp::no_delay(true), ec);
    beast::flat_buffer client_buffer;
    beast::flat_buffer upstream_buffer;
    while (!stopping_) {
      http::request_parser<http::buffer_body> req_parser;
      req_parser.header_limit(64 * 1024);
      req_parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      http::read_header(c.client, client_buffer, req_parser, ec);
      if (ec) return;  // closed, or not HTTP
      auto& req = req_parser.get();
      const std::string target(req.target());
      if (target.starts_with("/_floe/")) {
        if (!Control(c.client, client_buffer, req_parser) || !req.keep_alive()) return;
        continue;
      }
      const std::string method(req.method_string());
      const bool ranged = req.find(http::field::range) != req.end();
      const S3RequestKind kind =
          ClassifyS3Request(method, target, std::string_view(req[http::field::host]), ranged);
      const std::string client = S3ClientName(std::string_view(req[http::field::authorization]),
                                              std::string_view(req[http::field::user_agent]));
      // The proxy answers Expect: 100-continue itself, so the body follows at once.
      if (req.find(http::field::expect) != req.end()) {
        req.erase(http::field::expect);
        asio::write(c.client, asio::buffer(std::string_view("HTTP/1.1 100 Continue\r\n\r\n")), ec);
        if (ec) return;
      }
      // The request counts as it arrives, its bytes as they move and an error as its status
      // comes: a client that has its answer finds it counted.
      const std::string object = ObjectName(PathOf(target));
      {
        ProxyCounts arrived;
        arrived.requests[static_cast<int>(kind)] = 1;
        arrived.ranged_gets = kind == S3RequestKind::kGet && ranged ? 1 : 0;
        Count(client, object, arrived);
      }
      auto moved_in = [&](uint64_t n) {
        ProxyCounts d;
        d.bytes_in = n;
        if (n > 0) Count(client, object, d);
      };
      auto moved_out = [&](uint64_t n) {
        ProxyCounts d;
        d.bytes_out = n;
        if (n > 0) Count(client, object, d);
      };
      auto failed = [&] {
        ProxyCounts d;
        d.errors = 1;
        Count(client, object, d);
      };
      uint64_t bytes_in = 0;
      auto counted_in = [&](uint64_t n) {
        bytes_in += n;
        moved_in(n);
      };
      bool sent = false;
      for (int attempt = 0; attempt < 2 && !sent; ++attempt) {
        if (!c.upstream.is_open() || attempt > 0) {
          if (!ConnectUpstream(c)) break;
        }
        // A request with a body cannot be replayed: only an empty one is retried on a fresh
        // connection when a kept-alive upstream connection turns out to be closed.
        sent = Relay(c.client, client_buffer, req_parser, c.upstream, counted_in, nullptr, false);
        if (!sent && bytes_in > 0) break;
      }
      if (!sent) {
        failed();
        Answer(c.client, 502, {{"error", "upstream unreachable"}}, false);
        return;
      }
      const double submitted = NowMs();
      http::response_parser<http::buffer_body> res_parser;
      res_parser.header_limit(64 * 1024);
      res_parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      const bool head = req.method() == http::verb::head;
      if (head) res_parser.skip(true);
      http::read_header(c.upstream, upstream_buffer, res_parser, ec);
      if (ec) {
        failed();
        Answer(c.client, 502, {{"error", fmt::format("upstream: {}", ec.message())}}, false);
        return;
      }
      auto& res = res_parser.get();
      if (res.result_int() >= 400) failed();
      const uint64_t length = res_parser.content_length().value_or(0);
      std::optional<Pace> pace;
      if (model_) {
        SimulationModel::Slot slot;
        double first_byte = 0;
        {
          std::lock_guard lock(model_mu_);
          first_byte = model_->DrawFirstByteMs();
          slot = model_->Schedule(submitted, head ? 0 : length, first_byte);
        }
        pace = Pace{AtMs(slot.start_ms + first_byte), AtMs(slot.finish_ms), head ? 0 : length, 0};
        std::this_thread::sleep_until(pace->first_byte);
      }
      const bool ok = Relay(c.upstream, upstream_buffer, res_parser, c.client, moved_out,
                            pace ? &*pace : nullptr, head);
      if (!ok || !req.keep_alive() || !res.keep_alive()) return;
    }
  }

  ProxyOptions options_;
  tcp::endpoint upstream_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::mutex conns_mu_;
  std::list<Connection> conns_;
  std::mutex stats_mu_;
  ProxyStats stats_;
  std::map<std::string, ProxyStats> windows_;
  std::mutex model_mu_;
  std::optional<SimulationModel> model_;
  Clock::time_point start_;
};

Result<std::unique_ptr<CountingProxy>> CountingProxy::Start(ProxyOptions options) {
  std::string_view up = options.upstream;
  if (!up.starts_with("http://")) {
    return InvalidInput("proxy upstream '{}': expected http://HOST:PORT", options.upstream);
  }
  up.remove_prefix(7);
  while (up.ends_with('/')) up.remove_suffix(1);
  auto colon = up.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || up.find('/') != std::string_view::npos) {
    return InvalidInput("proxy upstream '{}': expected http://HOST:PORT", options.upstream);
  }
  const std::string up_host(up.substr(0, colon));
  const std::string up_port(up.substr(colon + 1));
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::error_code ec;
  auto resolved = resolver.resolve(up_host, up_port, ec);
  if (ec || resolved.empty()) {
    return InvalidInput("proxy upstream '{}': cannot resolve {}: {}", options.upstream, up_host,
                        ec.message());
  }
  const tcp::endpoint upstream = resolved.begin()->endpoint();

  std::string_view listen = options.listen;
  auto lc = listen.rfind(':');
  if (lc == std::string_view::npos) {
    return InvalidInput("proxy listen address '{}': expected HOST:PORT", options.listen);
  }
  const std::string host(listen.substr(0, lc));
  int port = -1;
  try {
    size_t used = 0;
    port = std::stoi(std::string(listen.substr(lc + 1)), &used);
    if (used != listen.size() - lc - 1) port = -1;
  } catch (...) {
    port = -1;
  }
  if (port < 0 || port > 65535) {
    return InvalidInput("proxy listen address '{}': bad port", options.listen);
  }
  auto impl = std::make_unique<Impl>(std::move(options), upstream);
  FLOE_RETURN_IF_ERROR(impl->Listen(host, static_cast<uint16_t>(port)));
  const int bound = impl->port();
  return std::unique_ptr<CountingProxy>(new CountingProxy(std::move(impl), bound));
}

CountingProxy::CountingProxy(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

CountingProxy::~CountingProxy() = default;

std::string CountingProxy::endpoint() const { return fmt::format("http://127.0.0.1:{}", port_); }

ProxyStats CountingProxy::Stats(const std::string& window) const { return impl_->Stats(window); }

void CountingProxy::Reset() { impl_->Reset(); }

void CountingProxy::StartWindow(const std::string& name) { impl_->StartWindow(name); }

}  // namespace floe::io
