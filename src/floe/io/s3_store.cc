// S3Store over libcurl's multi interface.
//
// Threads: one event-loop thread per store owns the curl multi handle and every easy handle. Other
// threads talk to it only through a task inbox (mutex + curl_multi_wakeup). A blocking call builds
// a Transfer, posts it and waits on its own condition variable; a batch of reads posts one task
// that keeps up to max_in_flight of its transfers queued. The loop starts queued transfers while
// fewer than max_connections are active, so the cap holds across every caller. Retry backoff is a
// timer queue on the loop, so a sleeping retry never blocks other transfers.
//
// Signing: libcurl's CURLOPT_AWS_SIGV4 with the credentials in CURLOPT_USERNAME/PASSWORD. Against
// libcurl 7.88 (Debian 12) three things needed care, each verified against versitygw:
//   1. It sends no x-amz-content-sha256 header, which S3 requires; we send
//      "x-amz-content-sha256: UNSIGNED-PAYLOAD" ourselves and curl signs with that value.
//   2. It signs the query string exactly as written in the URL, not in SigV4's canonical form
//      (sorted, every byte outside the unreserved set %XX-encoded in upper case, "name=" for
//      valueless parameters). So every URL's query is built canonical (s3::CanonicalQuery), e.g.
//      "?uploads=" rather than "?uploads".
//   3. It signs header-removal entries ("Expect:") as empty-valued headers that are then not sent,
//      so we never pass those. Bodies go as POSTFIELDS, for which curl itself adds (unsigned)
//      "Expect: 100-continue" only above 1 MiB; see Start().
// The object path is encoded per segment by us (s3::UriEncode) and sent with CURLOPT_PATH_AS_IS, so
// what curl signs is S3's canonical URI.
#include "floe/io/s3_store.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "floe/base/log.h"
#include "floe/io/s3_request_internal.h"
#include "floe/io/s3_xml_internal.h"

namespace floe::io {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kMinPartSize = 5ull << 20;   // S3's minimum for every part but the last
constexpr uint64_t kMaxPartSize = 5ull << 30;   // and its maximum
constexpr uint64_t kMaxParts = 10000;           // parts per upload
constexpr uint64_t kMaxSinglePut = 5ull << 30;  // one PUT carries at most 5 GiB

std::string EnvOr(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

void CurlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool IsTransientCurlCode(CURLcode code) {
  switch (code) {
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    // Nothing reached the server, so retrying cannot duplicate an effect; a server that is
    // restarting or shedding connections refuses for a moment.
    case CURLE_COULDNT_CONNECT:
      return true;
    default:
      return false;
  }
}

bool HeaderNameIs(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

std::string_view HeaderValue(std::string_view line, size_t name_size) {
  std::string_view v = line.substr(name_size + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) {
    v.remove_suffix(1);
  }
  return v;
}

// S3Stats as the loop thread counts it.
struct SendCounters {
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> resent{0};
};

// One HTTP request and, after it finishes, its last attempt's response. Owned jointly by the caller
// and the loop (shared_ptr); only the loop touches it between submission and `done`.
struct Transfer {
  // The request.
  const char* method = "GET";  // GET, HEAD, PUT, POST, DELETE
  const char* op = nullptr;    // for messages when not the method: "LIST", "UploadPart"
  bool bucket_level = false;   // addresses the bucket: a 404 means the bucket is missing
  std::string url;
  // Never credentials (Start() adds the token header per attempt). Every PUT and POST names its
  // Content-Type: libcurl would otherwise send a form type, which S3 would keep on the object.
  std::vector<std::string> headers;
  ByteView upload;            // PUT/POST body; the caller keeps it alive until done
  std::string key;            // for messages (relative to the store prefix)
  bool error_in_200 = false;  // CompleteMultipartUpload may answer 200 with an <Error>
  // Runs once on the loop thread after the last attempt; must be quick.
  std::function<void(Transfer&)> done;

  // The last attempt.
  int attempts = 0;
  std::chrono::steady_clock::time_point first_start;  // of the first attempt
  CURLcode code = CURLE_OK;
  long status = 0;
  std::vector<uint8_t> body;
  std::string etag;
  std::string last_modified;
  std::optional<uint64_t> content_length;
  char errbuf[CURL_ERROR_SIZE] = {};

  // Loop-thread state for the attempt in flight.
  curl_slist* header_list = nullptr;
  SendCounters* counters = nullptr;
  bool sent_once = false;  // a request went out for this transfer (any attempt)

  void ResetResponse() {
    code = CURLE_OK;
    status = 0;
    body.clear();
    etag.clear();
    last_modified.clear();
    content_length.reset();
    errbuf[0] = '\0';
  }

  // Whether the body is an S3 <Error> document (a 200 that failed).
  bool HasErrorBody() const {
    std::string_view b(reinterpret_cast<const char*>(body.data()), body.size());
    return b.substr(0, 256).find("<Error>") != std::string_view::npos;
  }
  bool Succeeded() const {
    return code == CURLE_OK && status >= 200 && status < 300 && !(error_in_200 && HasErrorBody());
  }
  bool Transient() const {
    if (code != CURLE_OK) return IsTransientCurlCode(code);
    if (s3::IsTransientStatus(status)) return true;
    return error_in_200 && status == 200 && HasErrorBody();
  }
  std::string_view BodyText() const {
    return {reinterpret_cast<const char*>(body.data()), body.size()};
  }
};

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->body.insert(t->body.end(), data, data + size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    // A new status line (after "100 Continue" or a retried connection): start over.
    t->etag.clear();
    t->last_modified.clear();
    t->content_length.reset();
  } else if (HeaderNameIs(line, "etag")) {
    t->etag = s3::UnquoteEtag(HeaderValue(line, 4));
  } else if (HeaderNameIs(line, "last-modified")) {
    t->last_modified = std::string(HeaderValue(line, 13));
  } else if (HeaderNameIs(line, "content-length")) {
    std::string_view v = HeaderValue(line, 14);
    uint64_t len = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), len);
    if (ec == std::errc() && ptr == v.data() + v.size()) {
      t->content_length = len;
      // Reserve for successful bodies only (HEAD has none; errors are small).
      if (len <= (1ull << 32) && t->method[0] == 'G') t->body.reserve(len);
    }
  }
  return size * n;
}

// Counts requests as they go out. libcurl silently re-sends a request once when a reused
// connection turns out dead before any response byte (a server closed it while idle, or reset
// it); those sends never reach our retry logic, yet a server or proxy sees them. Each request sent
// shows up here as one CURLINFO_HEADER_OUT, which makes S3Stats exact. Nothing here is logged:
// the headers carry the Authorization and token values.
int OnDebug(CURL*, curl_infotype type, char*, size_t, void* user) {
  if (type != CURLINFO_HEADER_OUT) return 0;
  auto* t = static_cast<Transfer*>(user);
  t->counters->sent.fetch_add(1);
  if (t->sent_once) t->counters->resent.fetch_add(1);
  t->sent_once = true;
  return 0;
}

// Waits for one Transfer's `done`.
struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  void Notify() {
    std::lock_guard lock(mu);
    done = true;
    cv.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu);
    cv.wait(lock, [this] { return done; });
  }
};

}  // namespace

class S3Store::Impl {
 public:
  Impl(std::string bucket, std::string prefix, S3Options options, s3::Endpoint endpoint,
       bool path_style)
      : bucket_(std::move(bucket)),
        prefix_(std::move(prefix)),
        opt_(std::move(options)),
        ep_(std::move(endpoint)),
        path_style_(path_style),
        rng_(std::random_device{}()) {
    uri_ = prefix_.empty() ? fmt::format("s3://{}", bucket_)
                           : fmt::format("s3://{}/{}", bucket_, prefix_);
    sign_ = !opt_.access_key_id.empty();
    sigv4_ = fmt::format("aws:amz:{}:s3", opt_.region);
    if (!opt_.session_token.empty()) {
      token_header_ = "x-amz-security-token: " + opt_.session_token;
    }
    multi_ = curl_multi_init();
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(max_conn()));
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(max_conn()));
    thread_ = std::thread([this] { Run(); });
  }

  ~Impl() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    curl_multi_wakeup(multi_);
    thread_.join();
    for (CURL* e : idle_easy_) curl_easy_cleanup(e);
    curl_multi_cleanup(multi_);
  }

  const std::string& uri() const { return uri_; }
  S3Stats stats() const { return {counters_.sent.load(), counters_.resent.load()}; }
  const S3Options& options() const { return opt_; }

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

  // Runs `t` to completion on the loop and waits. Fails instead of deadlocking when called from a
  // callback on the loop thread.
  Status Execute(const std::shared_ptr<Transfer>& t) {
    if (std::this_thread::get_id() == loop_id_.load()) {
      return Internal("blocking S3 call on '{}' from a read callback of the same store ({})",
                      t->key, uri_);
    }
    Waiter waiter;
    t->done = [&waiter](Transfer&) { waiter.Notify(); };
    Submit(t);
    waiter.Wait();
    return {};
  }

  // Queues `t`; from any thread.
  void Submit(std::shared_ptr<Transfer> t) {
    if (std::this_thread::get_id() == loop_id_.load()) {
      ready_.push_back(std::move(t));
      return;
    }
    Post([this, t = std::move(t)]() mutable { ready_.push_back(std::move(t)); });
  }

  // Runs `task` on the loop thread.
  void Post(std::function<void()> task) {
    {
      std::lock_guard lock(mu_);
      inbox_.push_back(std::move(task));
    }
    curl_multi_wakeup(multi_);
  }

  // The error of a failed transfer, naming the operation, key and store, the HTTP status and
  // S3's error code and message; never a header, so never a credential.
  Error FailureOf(const Transfer& t) const {
    const char* op = t.op ? t.op : t.method;
    std::string attempts = t.attempts > 1 ? fmt::format(" after {} attempts", t.attempts) : "";
    if (t.code != CURLE_OK) {
      std::string detail = t.errbuf[0] ? std::string(t.errbuf) : curl_easy_strerror(t.code);
      return Error{ErrorKind::kIO,
                   fmt::format("{} '{}' in {} failed{}: {}", op, t.key, uri_, attempts, detail),
                   IsTransientCurlCode(t.code)};
    }
    s3::ErrorBody err = s3::ParseErrorBody(t.BodyText());
    std::string code_text = err.code.empty() ? "" : fmt::format(": {}: {}", err.code, err.message);
    // A 404 means "not found" only when S3 says so (or gives no body, as for HEAD); a server may
    // answer 404 for other reasons (versitygw for an unknown access key), reported as it gave them.
    const bool no_such = err.code.empty() || err.code == "NoSuchKey" ||
                         err.code == "NoSuchBucket" || err.code == "NoSuchUpload";
    if (t.status == 404 && !no_such) {
      return Error{ErrorKind::kIO,
                   fmt::format("{} '{}' in {} refused: HTTP 404{}", op, t.key, uri_, code_text)};
    }
    if (t.status == 404 && (t.bucket_level || err.code == "NoSuchBucket")) {
      return Error{ErrorKind::kNotFound,
                   fmt::format("bucket '{}' not found ({} '{}' in {})", bucket_, op, t.key, uri_)};
    }
    if (t.status == 404) {
      return Error{ErrorKind::kNotFound, fmt::format("object '{}' not found in {}", t.key, uri_)};
    }
    if (t.status == 403) {
      return Error{ErrorKind::kIO, fmt::format("access denied (403) for '{}' in {} ({}){}", t.key,
                                               uri_, op, code_text)};
    }
    return Error{ErrorKind::kIO,
                 fmt::format("{} '{}' in {} failed{}: HTTP {}{}", op, t.key, uri_, attempts,
                             t.status, code_text),
                 t.Transient()};
  }

 private:
  int max_conn() const { return std::max(1, opt_.max_connections); }

  void Run() {
    loop_id_.store(std::this_thread::get_id());
    std::vector<std::function<void()>> tasks;
    while (true) {
      bool stopping;
      {
        std::lock_guard lock(mu_);
        tasks.swap(inbox_);
        stopping = stopping_;
      }
      for (auto& task : tasks) task();
      tasks.clear();
      FireTimers();
      StartReady();
      int running = 0;
      curl_multi_perform(multi_, &running);
      HandleDone();
      StartReady();

      if (stopping && active_.empty() && ready_.empty() && timers_.empty()) {
        std::lock_guard lock(mu_);
        if (inbox_.empty()) break;
      }
      long timeout_ms = -1;
      curl_multi_timeout(multi_, &timeout_ms);
      if (timeout_ms < 0) timeout_ms = 1000;
      if (!timers_.empty()) {
        auto until =
            std::chrono::duration_cast<std::chrono::milliseconds>(timers_.top().at - Clock::now());
        timeout_ms = std::clamp<long>(until.count() + 1, 0, timeout_ms);
      }
      if (!ready_.empty() && static_cast<int>(active_.size()) < max_conn()) timeout_ms = 0;
      curl_multi_poll(multi_, nullptr, 0, static_cast<int>(timeout_ms), nullptr);
    }
  }

  void FireTimers() {
    auto now = Clock::now();
    while (!timers_.empty() && timers_.top().at <= now) {
      // Retries go first: they have waited already.
      ready_.push_front(timers_.top().transfer);
      timers_.pop();
    }
  }

  void StartReady() {
    while (!ready_.empty() && static_cast<int>(active_.size()) < max_conn()) {
      std::shared_ptr<Transfer> t = std::move(ready_.front());
      ready_.pop_front();
      Start(std::move(t));
    }
  }

  void Start(std::shared_ptr<Transfer> t) {
    CURL* e;
    if (idle_easy_.empty()) {
      e = curl_easy_init();
    } else {
      e = idle_easy_.back();
      idle_easy_.pop_back();
    }
    Transfer* p = t.get();
    p->ResetResponse();
    p->counters = &counters_;
    if (p->attempts++ == 0) p->first_start = Clock::now();

    curl_easy_setopt(e, CURLOPT_URL, p->url.c_str());
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opt_.connect_timeout_ms));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(opt_.request_timeout_ms));
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, static_cast<long>(opt_.low_speed_timeout_s));
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, p->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, OnWrite);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, p);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, p);
    curl_easy_setopt(e, CURLOPT_PRIVATE, p);
    curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, OnDebug);
    curl_easy_setopt(e, CURLOPT_DEBUGDATA, p);
    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);  // only feeds OnDebug; nothing is printed

    std::string_view method = p->method;
    if (method == "HEAD") {
      curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT" || method == "POST") {
      // Bodies go as POSTFIELDS (not copied; the caller keeps them alive), PUT as a custom
      // method. Unlike CURLOPT_UPLOAD, which makes libcurl 7.88 send "Expect: 100-continue" and
      // wait a round trip before every non-empty PUT, this adds it only above 1 MiB, where letting
      // the server refuse (403, 412) before the body is worth the round trip.
      static const char kEmpty[] = "";
      const char* body =
          p->upload.empty() ? kEmpty : reinterpret_cast<const char*>(p->upload.data());
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(p->upload.size()));
      if (method == "PUT") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (method == "DELETE") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    }

    curl_slist* list = nullptr;
    for (const std::string& h : p->headers) list = curl_slist_append(list, h.c_str());
    if (sign_) {
      list = curl_slist_append(list, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
      if (!token_header_.empty()) list = curl_slist_append(list, token_header_.c_str());
      curl_easy_setopt(e, CURLOPT_AWS_SIGV4, sigv4_.c_str());
      curl_easy_setopt(e, CURLOPT_USERNAME, opt_.access_key_id.c_str());
      curl_easy_setopt(e, CURLOPT_PASSWORD, opt_.secret_access_key.c_str());
    }
    p->header_list = list;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);

    if (CURLMcode rc = curl_multi_add_handle(multi_, e); rc != CURLM_OK) {
      // Cannot happen short of memory exhaustion; fail the transfer rather than lose it.
      Log(LogLevel::kError, "s3: curl_multi_add_handle: {}", curl_multi_strerror(rc));
      Release(e, *p);
      p->code = CURLE_OUT_OF_MEMORY;
      Finish(*t);
      return;
    }
    active_.emplace(e, std::move(t));
  }

  // Returns an easy handle to the idle pool and frees the attempt's header list.
  void Release(CURL* e, Transfer& t) {
    curl_easy_reset(e);
    idle_easy_.push_back(e);
    curl_slist_free_all(t.header_list);
    t.header_list = nullptr;
  }

  // Hands a finished transfer to its owner. `done` is moved out first so a waiter may free
  // everything it captured as soon as it is told.
  static void Finish(Transfer& t) {
    auto done = std::move(t.done);
    done(t);
  }

  void HandleDone() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* e = msg->easy_handle;
      CURLcode code = msg->data.result;
      auto it = active_.find(e);
      std::shared_ptr<Transfer> t = std::move(it->second);
      active_.erase(it);
      t->code = code;
      curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &t->status);
      curl_multi_remove_handle(multi_, e);
      Release(e, *t);

      const bool in_budget = Clock::now() - t->first_start <
                             std::chrono::milliseconds(std::max(0, opt_.retry_budget_ms));
      if (!t->Succeeded() && t->Transient() && t->attempts < std::max(1, opt_.max_attempts) &&
          in_budget) {
        int delay = s3::BackoffMs(t->attempts - 1, opt_.base_backoff_ms, opt_.max_backoff_ms, rng_);
        Log(LogLevel::kDebug, "s3: retrying {} '{}' in {} ms (attempt {} {})", t->method, t->key,
            delay, t->attempts,
            code != CURLE_OK ? curl_easy_strerror(code) : fmt::format("HTTP {}", t->status));
        timers_.push(
            Timer{Clock::now() + std::chrono::milliseconds(delay), timer_seq_++, std::move(t)});
        continue;
      }
      Finish(*t);
    }
  }

  struct Timer {
    Clock::time_point at;
    uint64_t seq;
    std::shared_ptr<Transfer> transfer;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  // Configuration, immutable after construction.
  std::string bucket_;
  std::string prefix_;
  S3Options opt_;
  s3::Endpoint ep_;
  bool path_style_;
  std::string uri_;
  bool sign_ = false;
  std::string sigv4_;
  std::string token_header_;

  SendCounters counters_;

  CURLM* multi_ = nullptr;
  std::thread thread_;
  std::atomic<std::thread::id> loop_id_{};

  std::mutex mu_;  // guards inbox_ and stopping_
  std::vector<std::function<void()>> inbox_;
  bool stopping_ = false;

  // Loop-thread only.
  std::deque<std::shared_ptr<Transfer>> ready_;
  std::unordered_map<CURL*, std::shared_ptr<Transfer>> active_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  uint64_t timer_seq_ = 0;
  std::vector<CURL*> idle_easy_;
  std::mt19937_64 rng_;
};

namespace {

// A GET's result: the body for 200/206, the range rules of object_store.h otherwise.
Result<Buffer> GetResult(S3Store::Impl& impl, Transfer& t, const Range& range) {
  if (t.Succeeded()) {
    Buffer body(std::move(t.body));
    if (t.status == 200 && range.kind != Range::Kind::kWhole) {
      // The server ignored the Range (versitygw does for a suffix of an empty object): apply it
      // ourselves so every store gives the same answer.
      FLOE_ASSIGN_OR_RETURN(auto span, range.Resolve(t.key, body.size()));
      return body.Slice(span.first, span.second - span.first);
    }
    return body;
  }
  if (t.code == CURLE_OK && t.status == 416) {
    s3::ErrorBody err = s3::ParseErrorBody(t.BodyText());
    if (err.actual_object_size) {
      return InvalidInput("range not satisfiable: {} of '{}' ({} bytes)", range.Describe(), t.key,
                          *err.actual_object_size);
    }
    return InvalidInput("range not satisfiable: {} of '{}'", range.Describe(), t.key);
  }
  return std::unexpected(impl.FailureOf(t));
}

std::shared_ptr<Transfer> MakeGet(S3Store::Impl& impl, std::string_view key, const Range& range) {
  auto t = std::make_shared<Transfer>();
  t->method = "GET";
  t->key = std::string(key);
  t->url = impl.Url(impl.FullKey(key), "");
  std::string header = range.HttpHeader();
  if (!header.empty()) t->headers.push_back("Range: " + header);
  return t;
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
    impl_->Post([this] { Feed(); });
  }

  void Wait() override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return finished_; });
  }
  ~S3Batch() override { Wait(); }

 private:
  // Loop thread: keeps max_in_flight transfers queued or running.
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
      auto t = MakeGet(*impl_, r.key, r.range);
      t->done = [this, i](Transfer& t) {
        --in_flight_;
        on_done_(i, GetResult(*impl_, t, requests_[i].range));
        if (Completed()) return;
        Feed();
      };
      impl_->Submit(std::move(t));
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

Result<std::shared_ptr<S3Store>> S3Store::Open(std::string bucket, std::string prefix,
                                               S3Options options) {
  CurlGlobalInit();
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
  auto t = std::make_shared<Transfer>();
  t->method = "HEAD";
  t->key = std::string(key);
  t->url = impl_->Url(impl_->FullKey(key), "");
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  if (!t->Succeeded()) return std::unexpected(impl_->FailureOf(*t));
  ObjectInfo info;
  info.key = std::string(key);
  info.size = t->content_length.value_or(0);
  info.etag = t->etag;
  if (!t->last_modified.empty()) {
    time_t when = curl_getdate(t->last_modified.c_str(), nullptr);
    if (when >= 0) info.mtime_ms = static_cast<int64_t>(when) * 1000;
  }
  return info;
}

Result<Buffer> S3Store::Get(std::string_view key, Range range) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  FLOE_RETURN_IF_ERROR(range.Validate(key));
  auto t = MakeGet(*impl_, key, range);
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  return GetResult(*impl_, *t, range);
}

namespace {

std::shared_ptr<Transfer> MakePut(S3Store::Impl& impl, std::string_view key, ByteView data) {
  auto t = std::make_shared<Transfer>();
  t->method = "PUT";
  t->key = std::string(key);
  t->url = impl.Url(impl.FullKey(key), "");
  t->upload = data;
  t->headers.emplace_back("Content-Type: application/octet-stream");
  return t;
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

  auto init = std::make_shared<Transfer>();
  init->method = "POST";
  init->op = "CreateMultipartUpload";
  init->key = std::string(key);
  init->url = impl.Url(full_key, s3::CanonicalQuery({{"uploads", ""}}));
  init->headers.emplace_back("Content-Type: application/octet-stream");
  FLOE_RETURN_IF_ERROR(impl.Execute(init));
  if (!init->Succeeded()) return std::unexpected(impl.FailureOf(*init));
  auto upload_id_raw = s3::XmlFirst(init->BodyText(), "UploadId");
  if (!upload_id_raw || upload_id_raw->empty()) {
    return Corrupt("CreateMultipartUpload for '{}' in {} returned no UploadId", key, impl.uri());
  }
  std::string upload_id = s3::XmlDecode(*upload_id_raw);

  auto abort = [&] {
    auto t = std::make_shared<Transfer>();
    t->method = "DELETE";
    t->op = "AbortMultipartUpload";
    t->key = std::string(key);
    t->url = impl.Url(full_key, s3::CanonicalQuery({{"uploadId", upload_id}}));
    if (auto st = impl.Execute(t); !st || !t->Succeeded()) {
      Log(LogLevel::kWarn, "s3: could not abort multipart upload of '{}' in {}", key, impl.uri());
    }
  };

  std::vector<std::shared_ptr<Transfer>> part_transfers(parts);
  std::mutex mu;
  std::condition_variable cv;
  size_t remaining = parts;
  for (size_t i = 0; i < parts; ++i) {
    uint64_t begin = i * part_size;
    uint64_t len = std::min<uint64_t>(part_size, data.size() - begin);
    auto t = std::make_shared<Transfer>();
    t->method = "PUT";
    t->op = "UploadPart";
    t->key = std::string(key);
    t->url = impl.Url(full_key, s3::CanonicalQuery({{"partNumber", std::to_string(i + 1)},
                                                    {"uploadId", upload_id}}));
    t->upload = data.subspan(begin, len);
    t->headers.emplace_back("Content-Type: application/octet-stream");
    t->done = [&](Transfer&) {
      std::lock_guard lock(mu);
      if (--remaining == 0) cv.notify_all();
    };
    part_transfers[i] = t;
  }
  for (auto& t : part_transfers) impl.Submit(t);
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return remaining == 0; });
  }
  for (size_t i = 0; i < parts; ++i) {
    const Transfer& t = *part_transfers[i];
    if (!t.Succeeded()) {
      Error err = impl.FailureOf(t);
      abort();
      err.message += fmt::format(" (part {} of {}; upload aborted)", i + 1, parts);
      return std::unexpected(std::move(err));
    }
    if (t.etag.empty()) {
      abort();
      return Corrupt("UploadPart {} of '{}' in {} returned no ETag", i + 1, key, impl.uri());
    }
  }

  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < parts; ++i) {
    xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                       s3::XmlEscape("\"" + part_transfers[i]->etag + "\""));
  }
  xml += "</CompleteMultipartUpload>";
  auto complete = std::make_shared<Transfer>();
  complete->method = "POST";
  complete->op = "CompleteMultipartUpload";
  complete->key = std::string(key);
  complete->url = impl.Url(full_key, s3::CanonicalQuery({{"uploadId", upload_id}}));
  complete->upload = AsBytes(xml);
  complete->headers.emplace_back("Content-Type: application/xml");
  complete->error_in_200 = true;
  FLOE_RETURN_IF_ERROR(impl.Execute(complete));
  if (!complete->Succeeded()) {
    Error err = impl.FailureOf(*complete);
    abort();
    return std::unexpected(std::move(err));
  }
  return PutInfo{static_cast<uint32_t>(parts)};
}

}  // namespace

Result<PutInfo> S3Store::Put(std::string_view key, ByteView data) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  if (data.size() > impl_->options().multipart_threshold) return MultipartPut(*impl_, key, data);
  auto t = MakePut(*impl_, key, data);
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  if (!t->Succeeded()) return std::unexpected(impl_->FailureOf(*t));
  return PutInfo{};
}

Result<PutInfo> S3Store::PutIfAbsent(std::string_view key, ByteView data) {
  FLOE_RETURN_IF_ERROR(ValidateKey(key));
  if (data.size() > kMaxSinglePut) {
    return InvalidInput(
        "put-if-absent of '{}' is {} bytes; one conditional PUT carries at most 5 GiB", key,
        data.size());
  }
  auto t = MakePut(*impl_, key, data);
  t->headers.emplace_back("If-None-Match: *");
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  if (t->Succeeded()) return PutInfo{};
  if (t->code == CURLE_OK &&
      (t->status == 412 || (t->status == 409 && s3::ParseErrorBody(t->BodyText()).code ==
                                                    "ConditionalRequestConflict"))) {
    // After a lost response the object may be ours from an earlier attempt; say so.
    std::string maybe = t->attempts > 1 ? fmt::format(
                                              " (after {} attempts; an earlier attempt may have "
                                              "created it)",
                                              t->attempts)
                                        : "";
    return Conflict("object '{}' already exists in {}{}", key, impl_->uri(), maybe);
  }
  return std::unexpected(impl_->FailureOf(*t));
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
  auto t = std::make_shared<Transfer>();
  t->method = "GET";
  t->op = "LIST";
  t->bucket_level = true;
  t->key = std::string(prefix);
  t->url = impl_->Url("", s3::CanonicalQuery(params));
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  if (!t->Succeeded()) return std::unexpected(impl_->FailureOf(*t));
  auto parsed = s3::ParseListObjectsV2(t->BodyText());
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
  auto t = std::make_shared<Transfer>();
  t->method = "DELETE";
  t->key = std::string(key);
  t->url = impl_->Url(impl_->FullKey(key), "");
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  if (t->Succeeded() || (t->code == CURLE_OK && t->status == 404)) return {};
  return std::unexpected(impl_->FailureOf(*t));
}

std::unique_ptr<PendingReads> S3Store::SubmitReads(std::vector<ReadRequest> requests,
                                                   ReadCallback on_done, BatchOptions options) {
  auto batch = std::make_unique<S3Batch>(impl_.get(), std::move(requests), std::move(on_done),
                                         options.max_in_flight);
  batch->Start();
  return batch;
}

Status S3Store::CreateBucket() {
  auto t = std::make_shared<Transfer>();
  t->method = "PUT";
  t->op = "CreateBucket";
  t->bucket_level = true;
  t->key = "";
  t->url = impl_->Url("", "");
  std::string body;
  // us-east-1 is the default location and rejects an explicit constraint naming it.
  if (impl_->options().region != "us-east-1") {
    body = fmt::format(
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<LocationConstraint>{}</LocationConstraint></CreateBucketConfiguration>",
        s3::XmlEscape(impl_->options().region));
    t->upload = AsBytes(body);
  }
  t->headers.emplace_back("Content-Type: application/xml");
  FLOE_RETURN_IF_ERROR(impl_->Execute(t));
  if (t->Succeeded()) return {};
  if (t->code == CURLE_OK && t->status == 409) {
    s3::ErrorBody err = s3::ParseErrorBody(t->BodyText());
    if (err.code == "BucketAlreadyOwnedByYou") return {};
    return Conflict("bucket of {} cannot be created: {}: {}", impl_->uri(), err.code, err.message);
  }
  return std::unexpected(impl_->FailureOf(*t));
}

}  // namespace floe::io
