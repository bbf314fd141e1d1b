// CountingProxy: a transparent HTTP/1.1 reverse proxy in front of an S3 server that counts what any
// engine asks of it -- requests by kind, bytes each way, per object and per client -- so that
// Spark's, DuckDB's or pyiceberg's request pattern is measured the way floe's own counting store
// measures floe's. Bodies are streamed both ways; the request line and every end-to-end header
// (Host included) go upstream unchanged, so SigV4 signatures stay valid; connections are kept
// alive, one upstream connection per client connection. With a SimulationOptions model the
// proxy also holds each response to S3's timing shape (first-byte latency, bandwidth) so engines
// on loopback see what they would on S3. Its own port answers /_floe/stats, /_floe/reset and
// /_floe/window (see StatsJson). Thread-safe; one thread per client connection.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/io/simulated_store.h"

namespace floe::io {

// What a request asked of S3, from its method, target and headers.
enum class S3RequestKind {
  kGet,     // GetObject (ranged or whole)
  kHead,    // HeadObject, HeadBucket
  kPut,     // PutObject, CreateBucket
  kPart,    // UploadPart (a PUT with partNumber and uploadId)
  kPost,    // CreateMultipartUpload, CompleteMultipartUpload, DeleteObjects
  kList,    // ListObjects(V2), ListMultipartUploads: a GET of a bucket
  kDelete,  // DeleteObject, AbortMultipartUpload, DeleteBucket
  kOther,
};
inline constexpr int kS3RequestKinds = 8;
std::string_view S3RequestKindName(S3RequestKind kind);  // "GET", "HEAD", "PUT", "PART", ...

// Counts of one scope (all traffic, one client, one object).
struct ProxyCounts {
  uint64_t requests[kS3RequestKinds] = {};
  uint64_t ranged_gets = 0;  // GETs with a Range header (counted in requests[kGet] too)
  uint64_t bytes_in = 0;     // request bodies received from clients
  uint64_t bytes_out = 0;    // response bodies sent to clients
  uint64_t errors = 0;       // responses with a status >= 400 (502s of the proxy's own included)

  uint64_t total() const;
  ProxyCounts& operator+=(const ProxyCounts& o);
  ProxyCounts& operator-=(const ProxyCounts& o);
  nlohmann::json ToJson() const;
};

struct ProxyStats {
  ProxyCounts totals;
  std::map<std::string, ProxyCounts> clients;  // by access key id, else user agent
  // By the request's path, percent-escapes decoded: "/bucket/key" (path style) or "/key".
  std::map<std::string, ProxyCounts> objects;
  ProxyStats& operator-=(const ProxyStats& o);
  // {"requests": {"GET": n, ...}, "ranged_gets": n, "bytes_in": n, "bytes_out": n,
  //  "errors": n, "clients": {name: {...}}, "objects": {path: {...}} (with `objects`)}.
  nlohmann::json ToJson(bool objects) const;
};

struct ProxyOptions {
  std::string listen = "127.0.0.1:0";  // host:port; port 0 picks a free one
  std::string upstream;                // http://host:port of the S3 server
  std::optional<SimulationOptions> simulate;
};

// The kind of an S3 request (exposed for tests).
S3RequestKind ClassifyS3Request(std::string_view method, std::string_view target,
                                std::string_view host, bool has_range);
// The client a request came from: the access key id of its SigV4 Authorization header, else its
// User-Agent's first word, else "unknown".
std::string S3ClientName(std::string_view authorization, std::string_view user_agent);

class CountingProxy {
 public:
  // Binds and starts accepting; an error naming the address when it cannot bind, or naming the
  // upstream when it is not an http:// URL.
  static Result<std::unique_ptr<CountingProxy>> Start(ProxyOptions options);
  // Stops accepting, closes every connection and joins their threads.
  ~CountingProxy();
  CountingProxy(const CountingProxy&) = delete;
  CountingProxy& operator=(const CountingProxy&) = delete;

  int port() const { return port_; }
  std::string endpoint() const;  // http://127.0.0.1:PORT

  ProxyStats Stats(const std::string& window = "") const;
  // Zeroes the counters and forgets every window.
  void Reset();
  // Starts (or restarts) the named window: Stats(name) counts from now on.
  void StartWindow(const std::string& name);

  class Impl;

 private:
  explicit CountingProxy(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_;
};

}  // namespace floe::io
