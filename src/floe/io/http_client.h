// HttpClient: HTTP/1.1 requests over libcurl's multi interface, driven by one event-loop thread.
// It knows nothing of the protocol above it (S3, a REST catalog): the caller gives each request's
// URL, headers and body and says which responses are worth another attempt; the client owns the
// connections (reused, capped across every caller), the timeouts, the retries with backoff and
// their budget, optional AWS SigV4 signing, and an exact count of the requests it sent.
// Thread-safe; callbacks run on the loop thread, one at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::io {

struct HttpClientOptions {
  int max_connections = 64;  // transfers in flight at once, all callers
  int connect_timeout_ms = 5000;
  int request_timeout_ms = 60000;  // whole transfer, per attempt
  // An attempt that gets no byte for this long (no first byte, or a stalled transfer) is aborted.
  int low_speed_timeout_s = 10;
  int max_attempts = 5;  // first try + retries of transient failures
  int base_backoff_ms = 50;
  int max_backoff_ms = 5000;
  // No attempt starts later than this after a request's first.
  int retry_budget_ms = 20000;

  // When set ("aws:amz:REGION:SERVICE"), libcurl signs every request with AWS SigV4 using
  // `user` (access key id) and `password` (secret key).
  std::string aws_sigv4;
  std::string user;
  std::string password;
  // Added to every request after its own headers: those that carry or accompany credentials (a
  // session token). Kept here, out of the requests, so nothing that describes a request holds one.
  std::vector<std::string> auth_headers;
  std::string log_name = "http";  // prefix of log lines
};

// Requests as the server sees them: exact, including libcurl's own silent re-send of a request
// whose reused connection was found dead.
struct HttpStats {
  uint64_t sent = 0;    // requests actually sent, retries included
  uint64_t resent = 0;  // of those, re-sends of a request already sent once
};

// The outcome of a request's last attempt.
struct HttpResponse {
  int attempts = 0;
  // Set when the last attempt got no complete response (refused, reset, timed out): libcurl's
  // message, and whether the failure is of a kind the client retries.
  std::string transport_error;
  bool transport_transient = false;
  long status = 0;
  std::vector<uint8_t> body;
  // Of the final response (after "100 Continue" or a re-sent request): names in lower case,
  // values trimmed, in the order received.
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<uint64_t> content_length;  // a well-formed Content-Length header

  bool TransportFailed() const { return !transport_error.empty(); }
  // The last value of header `lower_name`; empty when absent.
  std::string_view Header(std::string_view lower_name) const;
  std::string_view BodyText() const {
    return {reinterpret_cast<const char*>(body.data()), body.size()};
  }
};

struct HttpRequest {
  std::string method = "GET";  // GET, HEAD, PUT, POST, DELETE
  std::string url;             // as it goes on the wire (sent as is: no path normalisation)
  // "Name: value". Every PUT and POST should name its Content-Type: libcurl would otherwise send
  // a form type.
  std::vector<std::string> headers;
  ByteView body;      // PUT/POST; the caller keeps it alive until the request is done
  std::string label;  // names the request in log lines ("GET 'key'")
  // Whether a response (not a transport failure, whose retry the client decides) deserves
  // another attempt. Empty: none does. Runs on the loop thread.
  std::function<bool(const HttpResponse&)> retry_if;
  // False for a request that must not be applied twice (a catalog commit the server cannot
  // deduplicate): a transport failure is then retried only when the connection was never made,
  // since a body that went out may have been applied.
  bool retry_transport = true;
};

// Runs once on the loop thread after the last attempt; must be quick and must not block on the
// client (submitting more requests is fine).
using HttpCallback = std::function<void(HttpResponse)>;

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  // Finishes every request submitted so far first, so callbacks still pending are run.
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Runs `request` to completion and waits; a kInternal error when called on the loop thread,
  // where waiting would deadlock.
  Result<HttpResponse> Execute(HttpRequest request);
  // Queues `request`; `on_done` gets its response. From any thread, the loop's included.
  void Submit(HttpRequest request, HttpCallback on_done);
  // Runs `task` on the loop thread.
  void Post(std::function<void()> task);
  // Whether the caller is the loop thread (a callback of this client).
  bool OnLoopThread() const;
  HttpStats stats() const;

 private:
  class Loop;
  std::unique_ptr<Loop> loop_;
};

// Unix seconds of an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"); nullopt when unreadable.
std::optional<int64_t> ParseHttpDate(const std::string& text);

// Full-jitter exponential backoff: uniform in [0, min(max_ms, base_ms * 2^retry)] for the
// `retry`-th retry (0-based).
int BackoffMs(int retry, int base_ms, int max_ms, std::mt19937_64& rng);

}  // namespace floe::io
