// S3Store: the S3 protocol on top of HttpClient (http_client.h), which owns the event loop,
// connections, timeouts and retries. Here: URLs, the S3 operations, which responses are failures
// and which of those are worth retrying, and how each becomes an Error.
//
// Threads: every request runs on the client's loop thread. A blocking call waits for its response;
// a batch of reads posts one task that keeps up to max_in_flight of its GETs submitted, each
// completion (on the loop) submitting the next.
//
// Signing: libcurl's CURLOPT_AWS_SIGV4 (HttpClientOptions::aws_sigv4) with the credentials as user
// and password. Against libcurl 7.88 (Debian 12) three things needed care, each verified against
// versitygw:
//   1. It sends no x-amz-content-sha256 header, which S3 requires; we send
//      "x-amz-content-sha256: UNSIGNED-PAYLOAD" ourselves and curl signs with that value.
//   2. It signs the query string exactly as written in the URL, not in SigV4's canonical form
//      (sorted, every byte outside the unreserved set %XX-encoded in upper case, "name=" for
//      valueless parameters). So every URL's query is built canonical (s3::CanonicalQuery), e.g.
//      "?uploads=" rather than "?uploads".
//   3. It signs header-removal entries ("Expect:") as empty-valued headers that are then not sent,
//      so we never pass those (nor does the client). Bodies go as POSTFIELDS, for which curl itself
//      adds (unsigned) "Expect: 100-continue" only above 1 MiB; see HttpClient's Start().
// The object path is encoded per segment by us (s3::UriEncode) and sent as is (the client sets
// CURLOPT_PATH_AS_IS), so what curl signs is S3's canonical URI.
#include "floe/io/s3_store.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "floe/base/log.h"
#include "floe/io/http_client.h"
#include "floe/io/s3_request_internal.h"
#include "floe/io/s3_xml_internal.h"

namespace floe::io {
namespace {

constexpr uint64_t kMinPartSize = 5ull << 20;   // S3's minimum for every part but the last
constexpr uint64_t kMaxPartSize = 5ull << 30;   // and its maximum
constexpr uint64_t kMaxParts = 10000;           // parts per upload
constexpr uint64_t kMaxSinglePut = 5ull << 30;  // one PUT carries at most 5 GiB

std::string EnvOr(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// What an S3 operation's messages name and how its responses are judged.
struct S3Call {
  const char* op = "GET";     // for messages: the method, or "LIST", "UploadPart"
  std::string key;            // relative to the store prefix
  bool bucket_level = false;  // addresses the bucket: a 404 means the bucket is missing
  bool error_in_200 = false;  // CompleteMultipartUpload may answer 200 with an <Error>
};

// Whether the body is an S3 <Error> document (a 200 that failed).
bool HasErrorBody(const HttpResponse& r) {
  return r.BodyText().substr(0, 256).find("<Error>") != std::string_view::npos;
}

bool Succeeded(const S3Call& c, const HttpResponse& r) {
  return !r.TransportFailed() && r.status >= 200 && r.status < 300 &&
         !(c.error_in_200 && HasErrorBody(r));
}

// S3's retry policy for a response that arrived (the client decides for transport failures).
bool TransientResponse(bool error_in_200, const HttpResponse& r) {
  if (s3::IsTransientStatus(r.status)) return true;
  return error_in_200 && r.status == 200 && HasErrorBody(r);
}

bool Transient(const S3Call& c, const HttpResponse& r) {
  if (r.TransportFailed()) return r.transport_transient;
  return TransientResponse(c.error_in_200, r);
}

}  // namespace

class S3Store::Impl {
 public:
  Impl(std::string bucket, std::string prefix, S3Options options, s3::Endpoint endpoint,
       bool path_style)
      : bucket_(std::move(bucket)),
        prefix_(std::move(prefix)),
        opt_(std::move(options)),
        ep_(std::move(endpoint)),
        path_style_(path_style) {
    uri_ = prefix_.empty() ? fmt::format("s3://{}", bucket_)
                           : fmt::format("s3://{}/{}", bucket_, prefix_);
    client_ = std::make_unique<HttpClient>(ClientOptions(opt_));
  }

  const std::string& uri() const { return uri_; }
  S3Stats stats() const {
    HttpStats s = client_->stats();
    return {s.sent, s.resent};
  }
  const S3Options& options() const { return opt_; }
  HttpClient& client() { return *client_; }

  // The full object key (store prefix + key).
  std::string FullKey(std::string_view key) const { return JoinKey(prefix_, key); }
  const std::string& prefix() const { return prefix_; }

  // URL of `full_key` (empty: the bucket itself) with an already canonical query.
  std::string Url(std::string_view full_key, std::string_view query) const {
    std::string port = ep_.port.empty() ? "" : ":" + ep_.port;
    std::string url;
    if (path_style_) {
      url = fmt::format("{}://{}{}{}/{}", ep_.scheme, ep_.host, port, ep_.base_path, bucket_);
      if (!full_key.empty()) url += "/" + s3::UriEncode(full_key, true);
    } else {
      url = fmt::format("{}://{}.{}{}{}/{}", ep_.scheme, bucket_, ep_.host, port, ep_.base_path,
                        s3::UriEncode(full_key, true));
    }
    if (!query.empty()) url += "?" + std::string(query);
    return url;
  }

  // The HTTP request of call `c`, retried on S3's transient responses.
  static HttpRequest Request(const S3Call& c, const char* method, std::string url) {
    HttpRequest req;
    req.method = method;
    req.url = std::move(url);
    req.label = fmt::format("{} '{}'", method, c.key);
    req.retry_if = [error_in_200 = c.error_in_200](const HttpResponse& r) {
      return TransientResponse(error_in_200, r);
    };
    return req;
  }

  // Runs `req` to completion and waits. Fails instead of deadlocking when called from a callback
  // on the loop thread.
  Result<HttpResponse> Execute(const S3Call& c, HttpRequest req) {
    if (client_->OnLoopThread()) {
      return Internal("blocking S3 call on '{}' from a read callback of the same store ({})", c.key,
                      uri_);
    }
    return client_->Execute(std::move(req));
  }

  // The error of a failed call, naming the operation, key and store, the HTTP status and S3's
  // error code and message; never a header, so never a credential.
  Error FailureOf(const S3Call& c, const HttpResponse& r) const {
    const char* op = c.op;
    std::string attempts = r.attempts > 1 ? fmt::format(" after {} attempts", r.attempts) : "";
    if (r.TransportFailed()) {
      return Error{
          ErrorKind::kIO,
          fmt::format("{} '{}' in {} failed{}: {}", op, c.key, uri_, attempts, r.transport_error),
          r.transport_transient};
    }
    s3::ErrorBody err = s3::ParseErrorBody(r.BodyText());
    std::string code_text = err.code.empty() ? "" : fmt::format(": {}: {}", err.code, err.message);
    // A 404 means "not found" only when S3 says so (or gives no body, as for HEAD); a server may
    // answer 404 for other reasons (versitygw for an unknown access key), reported as it gave them.
    const bool no_such = err.code.empty() || err.code == "NoSuchKey" ||
                         err.code == "NoSuchBucket" || err.code == "NoSuchUpload";
    if (r.status == 404 && !no_such) {
      return Error{ErrorKind::kIO,
                   fmt::format("{} '{}' in {} refused: HTTP 404{}", op, c.key, uri_, code_text)};
    }
    if (r.status == 404 && (c.bucket_level || err.code == "NoSuchBucket")) {
      return Error{ErrorKind::kNotFound,
                   fmt::format("bucket '{}' not found ({} '{}' in {})", bucket_, op, c.key, uri_)};
    }
    if (r.status == 404) {
      return Error{ErrorKind::kNotFound, fmt::format("object '{}' not found in {}", c.key, uri_)};
    }
    if (r.status == 403) {
      return Error{ErrorKind::kIO, fmt::format("access denied (403) for '{}' in {} ({}){}", c.key,
                                               uri_, op, code_text)};
    }
    return Error{ErrorKind::kIO,
                 fmt::format("{} '{}' in {} failed{}: HTTP {}{}", op, c.key, uri_, attempts,
                             r.status, code_text),
                 Transient(c, r)};
  }

 private:
  // The transport's settings from the store's; SigV4 headers only when there are credentials.
  static HttpClientOptions ClientOptions(const S3Options& o) {
    HttpClientOptions h;
    h.max_connections = o.max_connections;
    h.connect_timeout_ms = o.connect_timeout_ms;
    h.request_timeout_ms = o.request_timeout_ms;
    h.low_speed_timeout_s = o.low_speed_timeout_s;
    h.max_attempts = o.max_attempts;
    h.base_backoff_ms = o.base_backoff_ms;
    h.max_backoff_ms = o.max_backoff_ms;
    h.retry_budget_ms = o.retry_budget_ms;
    h.log_name = "s3";
    if (!o.access_key_id.empty()) {
      h.aws_sigv4 = fmt::format("aws:amz:{}:s3", o.region);
      h.user = o.access_key_id;
      h.password = o.secret_access_key;
      h.auth_headers.emplace_back("x-amz-content-sha256: UNSIGNED-PAYLOAD");
      if (!o.session_token.empty()) {
        h.auth_headers.push_back("x-amz-security-token: " + o.session_token);
      }
    }
    return h;
  }

  // Configuration, immutable after construction.
  std::string bucket_;
  std::string prefix_;
  S3Options opt_;
  s3::Endpoint ep_;
  bool path_style_;
  std::string uri_;
  // Last, so it is destroyed first: its destructor runs pending callbacks, which use the above.
  std::unique_ptr<HttpClient> client_;
};

namespace {

// A GET's result: the body for 200/206, the range rules of object_store.h otherwise.
Result<Buffer> GetResult(S3Store::Impl& impl, const S3Call& c, HttpResponse& r,
                         const Range& range) {
  if (Succeeded(c, r)) {
    Buffer body(std::move(r.body));
    if (r.status == 200 && range.kind != Range::Kind::kWhole) {
      // The server ignored the Range (versitygw does for a suffix of an empty object): apply it
      // ourselves so every store gives the same answer.
      FLOE_ASSIGN_OR_RETURN(auto span, range.Resolve(c.key, body.size()));
      return body.Slice(span.first, span.second - span.first);
    }
    return body;
  }
  if (!r.TransportFailed() && r.status == 416) {
    s3::ErrorBody err = s3::ParseErrorBody(r.BodyText());
    if (err.actual_object_size) {
      return InvalidInput("range not satisfiable: {} of '{}' ({} bytes)", range.Describe(), c.key,
                          *err.actual_object_size);
    }
    return InvalidInput("range not satisfiable: {} of '{}'", range.Describe(), c.key);
  }
  return std::unexpected(impl.FailureOf(c, r));
}

HttpRequest MakeGet(S3Store::Impl& impl, const S3Call& c, const Range& range) {
  HttpRequest req = S3Store::Impl::Request(c, "GET", impl.Url(impl.FullKey(c.key), ""));
  std::string header = range.HttpHeader();
  if (!header.empty()) req.headers.push_back("Range: " + header);
  return req;
}

// A batch of reads fed to the loop at most max_in_flight at a time. All its state but the
// finished flag is touched only on the loop thread.
class S3Batch final : public PendingReads {
 public:
  S3Batch(S3Store::Impl* impl, std::vector<ReadRequest> requests, ReadCallback on_done,
          int max_in_flight)
      : impl_(impl),
        requests_(std::move(requests)),
        on_done_(std::move(on_done)),
        max_in_flight_(static_cast<size_t>(std::max(1, max_in_flight))) {}

  void Start() {
    if (requests_.empty()) {
      finished_ = true;
      return;
    }
    impl_->client().Post([this] { Feed(); });
  }

  void Wait() override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return finished_; });
  }
  ~S3Batch() override { Wait(); }

 private:
  // Loop thread: keeps max_in_flight GETs submitted or running.
  void Feed() {
    while (in_flight_ < max_in_flight_ && next_ < requests_.size()) {
      size_t i = next_++;
      const ReadRequest& r = requests_[i];
      Status valid = ValidateKey(r.key);
      if (valid) valid = r.range.Validate(r.key);
      if (!valid) {
        on_done_(i, std::unexpected(std::move(valid).error()));
        if (Completed()) return;
        continue;
      }
      ++in_flight_;
      S3Call c{.op = "GET", .key = r.key};
      HttpRequest req = MakeGet(*impl_, c, r.range);
      impl_->client().Submit(std::move(req), [this, i, c = std::move(c)](HttpResponse resp) {
        --in_flight_;
        on_done_(i, GetResult(*impl_, c, resp, requests_[i].range));
        if (Completed()) return;
        Feed();
      });
    }
  }

  // Counts one finished request; true (and the batch may be gone) once all have finished.
  bool Completed() {
    if (++completed_ < requests_.size()) return false;
    std::lock_guard lock(mu_);
    finished_ = true;
    cv_.notify_all();
    return true;
  }

  S3Store::Impl* impl_;
  std::vector<ReadRequest> requests_;
  ReadCallback on_done_;
  size_t max_in_flight_;
  size_t next_ = 0;
  size_t in_flight_ = 0;
  size_t completed_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false;
};

}  // namespace

void S3Options::ApplyEnvironment() {
  if (endpoint.empty()) endpoint = EnvOr("AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = EnvOr("AWS_ENDPOINT_URL");
  if (region.empty()) region = EnvOr("AWS_REGION");
  if (region.empty()) region = EnvOr("AWS_DEFAULT_REGION");
  if (region.empty()) region = "us-east-1";
  // The environment's credentials are one identity: a session token is taken only together with
  // the key it belongs to, never mixed into keys the caller passed.
  if (access_key_id.empty() && secret_access_key.empty()) {
    access_key_id = EnvOr("AWS_ACCESS_KEY_ID");
    secret_access_key = EnvOr("AWS_SECRET_ACCESS_KEY");
    if (session_token.empty()) session_token = EnvOr("AWS_SESSION_TOKEN");
  }
}

Status S3Options::ApplyProperties(const std::map<std::string, std::string>& properties) {
  auto get = [&](const char* key) -> const std::string* {
    auto it = properties.find(key);
    return it == properties.end() ? nullptr : &it->second;
  };
  const std::string* key_id = get("s3.access-key-id");
  const std::string* secret = get("s3.secret-access-key");
  if ((key_id == nullptr) != (secret == nullptr)) {
    return InvalidInput("S3 property {} is given without {}",
                        key_id != nullptr ? "s3.access-key-id" : "s3.secret-access-key",
                        key_id != nullptr ? "s3.secret-access-key" : "s3.access-key-id");
  }
  if (key_id != nullptr) {
    access_key_id = *key_id;
    secret_access_key = *secret;
    const std::string* token = get("s3.session-token");
    session_token = token != nullptr ? *token : "";
  }
  if (const std::string* e = get("s3.endpoint"); e != nullptr && endpoint.empty()) endpoint = *e;
  if (const std::string* r = get("client.region"); r != nullptr && region.empty()) region = *r;
  if (const std::string* p = get("s3.path-style-access"); p != nullptr) {
    if (*p != "true" && *p != "false") {
      return InvalidInput("S3 property s3.path-style-access = '{}': expected true or false", *p);
    }
    path_style = path_style || *p == "true";
  }
  return {};
}

Result<std::shared_ptr<S3Store>> S3Store::Open(std::string bucket, std::string prefix,
                                               S3Options options) {
  FLOE_RETURN_IF_ERROR(s3::ValidateBucketName(bucket));
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(prefix.begin());
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty()) {
    if (auto st = ValidateKey(prefix); !st) {
      return InvalidInput("bad prefix for s3://{}/{}: {}", bucket, prefix, st.error().message);
    }
  }
  options.ApplyEnvironment();
  if (options.access_key_id.empty() != options.secret_access_key.empty()) {
    return InvalidInput("S3 credentials for s3://{} need both an access key id and a secret key",
                        bucket);
  }
  if (options.endpoint.empty()) {
    options.endpoint = fmt::format("https://s3.{}.amazonaws.com", options.region);
  }
  FLOE_ASSIGN_OR_RETURN(s3::Endpoint ep, s3::ParseEndpoint(options.endpoint));
  if (options.multipart_part_size < kMinPartSize || options.multipart_part_size > kMaxPartSize) {
    return InvalidInput("S3 multipart part size {} is outside S3's limits [5 MiB, 5 GiB]",
                        options.multipart_part_size);
  }
  if (options.multipart_threshold > kMaxSinglePut) {
    return InvalidInput("S3 multipart threshold {} exceeds the 5 GiB limit of a single PUT",
                        options.multipart_threshold);
  }
  // An IP host cannot carry the bucket as a subdomain, and a dotted bucket breaks the TLS
  // wildcard certificate of virtual hosts; both fall back to path style, as the AWS SDKs do.
  bool path_style = options.path_style || ep.host_is_ip ||
                    (ep.scheme == "https" && bucket.find('.') != std::string::npos);
  auto impl = std::make_unique<Impl>(std::move(bucket), std::move(prefix), std::move(options),
                                     std::move(ep), path_style);
  return std::shared_ptr<S3Store>(new S3Store(std::move(impl)));
}

S3Store::S3Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
S3Store::~S3Store() = default;

std::string S3Store::Uri() const { return impl_->uri(); }
S3Stats S3Store::stats() const { return impl_->stats(); }

Result<ObjectInfo> S3Store::Head(std::string_view key) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  S3Call c{.op = "HEAD", .key = std::string(key)};
  FLOE_ASSIGN_OR_RETURN(
      HttpResponse r,
      impl_->Execute(c, Impl::Request(c, "HEAD", impl_->Url(impl_->FullKey(key), ""))));
  if (!Succeeded(c, r)) return std::unexpected(impl_->FailureOf(c, r));
  ObjectInfo info;
  info.key = std::string(key);
  info.size = r.content_length.value_or(0);
  info.etag = s3::UnquoteEtag(r.Header("etag"));
  if (std::string_view modified = r.Header("last-modified"); !modified.empty()) {
    if (auto when = ParseHttpDate(std::string(modified))) info.mtime_ms = *when * 1000;
  }
  return info;
}

Result<Buffer> S3Store::Get(std::string_view key, Range range) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  FLOE_RETURN_IF_ERROR(range.Validate(key));
  S3Call c{.op = "GET", .key = std::string(key)};
  FLOE_ASSIGN_OR_RETURN(HttpResponse r, impl_->Execute(c, MakeGet(*impl_, c, range)));
  return GetResult(*impl_, c, r, range);
}

namespace {

HttpRequest MakePut(S3Store::Impl& impl, const S3Call& c, ByteView data) {
  HttpRequest req = S3Store::Impl::Request(c, "PUT", impl.Url(impl.FullKey(c.key), ""));
  req.body = data;
  req.headers.emplace_back("Content-Type: application/octet-stream");
  return req;
}

// Put's multipart path: initiate, upload every part concurrently on the loop, complete; abort on
// any failure so no parts are left billed.
Result<PutInfo> MultipartPut(S3Store::Impl& impl, std::string_view key, ByteView data) {
  const S3Options& opt = impl.options();
  uint64_t part_size = opt.multipart_part_size;
  // S3 allows 10,000 parts; grow the part for larger objects rather than fail.
  while ((data.size() + part_size - 1) / part_size > kMaxParts) part_size *= 2;
  size_t parts = static_cast<size_t>((data.size() + part_size - 1) / part_size);
  std::string full_key = impl.FullKey(key);

  S3Call init{.op = "CreateMultipartUpload", .key = std::string(key)};
  HttpRequest init_req = S3Store::Impl::Request(
      init, "POST", impl.Url(full_key, s3::CanonicalQuery({{"uploads", ""}})));
  init_req.headers.emplace_back("Content-Type: application/octet-stream");
  FLOE_ASSIGN_OR_RETURN(HttpResponse init_resp, impl.Execute(init, std::move(init_req)));
  if (!Succeeded(init, init_resp)) return std::unexpected(impl.FailureOf(init, init_resp));
  auto upload_id_raw = s3::XmlFirst(init_resp.BodyText(), "UploadId");
  if (!upload_id_raw || upload_id_raw->empty()) {
    return Corrupt("CreateMultipartUpload for '{}' in {} returned no UploadId", key, impl.uri());
  }
  std::string upload_id = s3::XmlDecode(*upload_id_raw);

  auto abort = [&] {
    S3Call c{.op = "AbortMultipartUpload", .key = std::string(key)};
    auto r = impl.Execute(
        c, S3Store::Impl::Request(
               c, "DELETE", impl.Url(full_key, s3::CanonicalQuery({{"uploadId", upload_id}}))));
    if (!r || !Succeeded(c, *r)) {
      Log(LogLevel::kWarn, "s3: could not abort multipart upload of '{}' in {}", key, impl.uri());
    }
  };

  const S3Call part{.op = "UploadPart", .key = std::string(key)};
  std::vector<HttpResponse> part_responses(parts);
  std::vector<HttpRequest> part_requests(parts);
  for (size_t i = 0; i < parts; ++i) {
    uint64_t begin = i * part_size;
    uint64_t len = std::min<uint64_t>(part_size, data.size() - begin);
    HttpRequest& req = part_requests[i];
    req = S3Store::Impl::Request(
        part, "PUT",
        impl.Url(full_key, s3::CanonicalQuery(
                               {{"partNumber", std::to_string(i + 1)}, {"uploadId", upload_id}})));
    req.body = data.subspan(begin, len);
    req.headers.emplace_back("Content-Type: application/octet-stream");
  }
  std::mutex mu;
  std::condition_variable cv;
  size_t remaining = parts;
  for (size_t i = 0; i < parts; ++i) {
    impl.client().Submit(std::move(part_requests[i]), [&, i](HttpResponse r) {
      std::lock_guard lock(mu);
      part_responses[i] = std::move(r);
      if (--remaining == 0) cv.notify_all();
    });
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return remaining == 0; });
  }
  std::vector<std::string> etags(parts);
  for (size_t i = 0; i < parts; ++i) {
    const HttpResponse& r = part_responses[i];
    if (!Succeeded(part, r)) {
      Error err = impl.FailureOf(part, r);
      abort();
      err.message += fmt::format(" (part {} of {}; upload aborted)", i + 1, parts);
      return std::unexpected(std::move(err));
    }
    etags[i] = s3::UnquoteEtag(r.Header("etag"));
    if (etags[i].empty()) {
      abort();
      return Corrupt("UploadPart {} of '{}' in {} returned no ETag", i + 1, key, impl.uri());
    }
  }

  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < parts; ++i) {
    xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                       s3::XmlEscape("\"" + etags[i] + "\""));
  }
  xml += "</CompleteMultipartUpload>";
  S3Call complete{.op = "CompleteMultipartUpload", .key = std::string(key), .error_in_200 = true};
  HttpRequest complete_req = S3Store::Impl::Request(
      complete, "POST", impl.Url(full_key, s3::CanonicalQuery({{"uploadId", upload_id}})));
  complete_req.body = AsBytes(xml);
  complete_req.headers.emplace_back("Content-Type: application/xml");
  FLOE_ASSIGN_OR_RETURN(HttpResponse complete_resp,
                        impl.Execute(complete, std::move(complete_req)));
  if (!Succeeded(complete, complete_resp)) {
    Error err = impl.FailureOf(complete, complete_resp);
    abort();
    return std::unexpected(std::move(err));
  }
  return PutInfo{static_cast<uint32_t>(parts)};
}

}  // namespace

Result<PutInfo> S3Store::Put(std::string_view key, ByteView data) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  if (data.size() > impl_->options().multipart_threshold) return MultipartPut(*impl_, key, data);
  S3Call c{.op = "PUT", .key = std::string(key)};
  FLOE_ASSIGN_OR_RETURN(HttpResponse r, impl_->Execute(c, MakePut(*impl_, c, data)));
  if (!Succeeded(c, r)) return std::unexpected(impl_->FailureOf(c, r));
  return PutInfo{};
}

Result<PutInfo> S3Store::PutIfAbsent(std::string_view key, ByteView data) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  if (data.size() > kMaxSinglePut) {
    return InvalidInput(
        "put-if-absent of '{}' is {} bytes; one conditional PUT carries at most 5 GiB", key,
        data.size());
  }
  S3Call c{.op = "PUT", .key = std::string(key)};
  HttpRequest req = MakePut(*impl_, c, data);
  req.headers.emplace_back("If-None-Match: *");
  FLOE_ASSIGN_OR_RETURN(HttpResponse r, impl_->Execute(c, std::move(req)));
  if (Succeeded(c, r)) return PutInfo{};
  if (!r.TransportFailed() &&
      (r.status == 412 || (r.status == 409 && s3::ParseErrorBody(r.BodyText()).code ==
                                                  "ConditionalRequestConflict"))) {
    // After a lost response the object may be ours from an earlier attempt; say so.
    std::string maybe = r.attempts > 1 ? fmt::format(
                                             " (after {} attempts; an earlier attempt may have "
                                             "created it)",
                                             r.attempts)
                                       : "";
    return Conflict("object '{}' already exists in {}{}", key, impl_->uri(), maybe);
  }
  return std::unexpected(impl_->FailureOf(c, r));
}

Result<ListPage> S3Store::List(std::string_view prefix, std::string_view continuation_token,
                               int max_keys) {
  if (max_keys < 1 || max_keys > 1000) {
    return InvalidInput("list of '{}' in {}: max_keys {} is outside [1, 1000]", prefix,
                        impl_->uri(), max_keys);
  }
  if (prefix.find('\0') != std::string_view::npos) {
    return InvalidInput("list prefix contains a NUL byte");
  }
  // Under a store prefix "p", listing "" must not match "p2/...": list "p/" + prefix.
  std::string root = impl_->prefix().empty() ? "" : impl_->prefix() + "/";
  std::string full_prefix = root + std::string(prefix);
  std::vector<std::pair<std::string, std::string>> params = {
      {"list-type", "2"}, {"max-keys", std::to_string(max_keys)}};
  if (!full_prefix.empty()) params.emplace_back("prefix", full_prefix);
  if (!continuation_token.empty()) {
    params.emplace_back("continuation-token", std::string(continuation_token));
  }
  S3Call c{.op = "LIST", .key = std::string(prefix), .bucket_level = true};
  FLOE_ASSIGN_OR_RETURN(
      HttpResponse r,
      impl_->Execute(c, Impl::Request(c, "GET", impl_->Url("", s3::CanonicalQuery(params)))));
  if (!Succeeded(c, r)) return std::unexpected(impl_->FailureOf(c, r));
  auto parsed = s3::ParseListObjectsV2(r.BodyText());
  if (!parsed) {
    Error err = parsed.error();
    err.message += fmt::format(" (list of '{}' in {})", prefix, impl_->uri());
    return std::unexpected(std::move(err));
  }
  ListPage page;
  page.objects.reserve(parsed->entries.size());
  for (s3::ListEntry& e : parsed->entries) {
    if (!e.key.starts_with(root)) continue;  // not ours; S3 never returns these
    page.objects.push_back(
        ObjectInfo{e.key.substr(root.size()), e.size, e.mtime_ms, std::move(e.etag)});
  }
  page.next_token = std::move(parsed->next_token);
  return page;
}

Status S3Store::Delete(std::string_view key) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  S3Call c{.op = "DELETE", .key = std::string(key)};
  FLOE_ASSIGN_OR_RETURN(
      HttpResponse r,
      impl_->Execute(c, Impl::Request(c, "DELETE", impl_->Url(impl_->FullKey(key), ""))));
  if (Succeeded(c, r) || (!r.TransportFailed() && r.status == 404)) return {};
  return std::unexpected(impl_->FailureOf(c, r));
}

std::unique_ptr<PendingReads> S3Store::SubmitReads(std::vector<ReadRequest> requests,
                                                   ReadCallback on_done, BatchOptions options) {
  auto batch = std::make_unique<S3Batch>(impl_.get(), std::move(requests), std::move(on_done),
                                         options.max_in_flight);
  batch->Start();
  return batch;
}

Status S3Store::CreateBucket() {
  S3Call c{.op = "CreateBucket", .key = "", .bucket_level = true};
  HttpRequest req = Impl::Request(c, "PUT", impl_->Url("", ""));
  std::string body;
  // us-east-1 is the default location and rejects an explicit constraint naming it.
  if (impl_->options().region != "us-east-1") {
    body = fmt::format(
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<LocationConstraint>{}</LocationConstraint></CreateBucketConfiguration>",
        s3::XmlEscape(impl_->options().region));
    req.body = AsBytes(body);
  }
  req.headers.emplace_back("Content-Type: application/xml");
  FLOE_ASSIGN_OR_RETURN(HttpResponse r, impl_->Execute(c, std::move(req)));
  if (Succeeded(c, r)) return {};
  if (!r.TransportFailed() && r.status == 409) {
    s3::ErrorBody err = s3::ParseErrorBody(r.BodyText());
    if (err.code == "BucketAlreadyOwnedByYou") return {};
    return Conflict("bucket of {} cannot be created: {}: {}", impl_->uri(), err.code, err.message);
  }
  return std::unexpected(impl_->FailureOf(c, r));
}

}  // namespace floe::io
