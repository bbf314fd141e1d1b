// HttpClient over libcurl's multi interface.
//
// Threads: one event-loop thread per client owns the curl multi handle and every easy handle. Other
// threads talk to it only through a task inbox (mutex + curl_multi_wakeup). A blocking call posts
// its exchange and waits on its own condition variable; the loop starts queued exchanges while
// fewer than max_connections are active, so the cap holds across every caller. Retry backoff is a
// timer queue on the loop, so a sleeping retry never blocks other transfers.
//
// Bodies go as POSTFIELDS, for which libcurl itself adds (unsigned) "Expect: 100-continue" only
// above 1 MiB; see Start(). Header-removal entries ("Expect:") are never passed: libcurl 7.88 signs
// them as empty-valued headers that are then not sent, which breaks SigV4.
#include "floe/io/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <queue>
#include <ranges>
#include <thread>
#include <unordered_map>

#include "floe/base/log.h"

namespace floe::io {
namespace {

using Clock = std::chrono::steady_clock;

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

std::string_view Trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) {
    v.remove_suffix(1);
  }
  return v;
}

// HttpStats as the loop thread counts it.
struct SendCounters {
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> resent{0};
};

// One request and its response, owned by the loop from submission until `done` runs.
struct Exchange {
  HttpRequest request;
  HttpResponse response;
  HttpCallback done;

  // Loop-thread state of the attempt in flight.
  CURLcode code = CURLE_OK;
  char errbuf[CURL_ERROR_SIZE] = {};
  Clock::time_point first_start;  // of the first attempt
  curl_slist* header_list = nullptr;
  SendCounters* counters = nullptr;
  bool sent_once = false;  // a request went out for this exchange (any attempt)

  void ResetResponse() {
    code = CURLE_OK;
    errbuf[0] = '\0';
    response.transport_error.clear();
    response.transport_transient = false;
    response.status = 0;
    response.body.clear();
    response.headers.clear();
    response.content_length.reset();
  }
};

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  x->response.body.insert(x->response.body.end(), data, data + size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  HttpResponse& r = x->response;
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    // A new status line (after "100 Continue" or a retried connection): start over.
    r.headers.clear();
    r.content_length.reset();
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return size * n;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = Trim(line.substr(colon + 1));
  if (name == "content-length") {
    uint64_t len = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), len);
    if (ec == std::errc() && ptr == value.data() + value.size()) {
      r.content_length = len;
      // Reserve for successful bodies only (HEAD has none; errors are small).
      if (len <= (1ull << 32) && x->request.method == "GET") r.body.reserve(len);
    }
  }
  r.headers.emplace_back(std::move(name), std::string(value));
  return size * n;
}

// Counts requests as they go out. libcurl silently re-sends a request once when a reused
// connection turns out dead before any response byte (a server closed it while idle, or reset
// it); those sends never reach our retry logic, yet a server or proxy sees them. Each request sent
// shows up here as one CURLINFO_HEADER_OUT, which makes HttpStats exact. Nothing here is logged:
// the headers carry the Authorization and token values.
int OnDebug(CURL*, curl_infotype type, char*, size_t, void* user) {
  if (type != CURLINFO_HEADER_OUT) return 0;
  auto* x = static_cast<Exchange*>(user);
  x->counters->sent.fetch_add(1);
  if (x->sent_once) x->counters->resent.fetch_add(1);
  x->sent_once = true;
  return 0;
}

// Waits for one exchange's callback.
struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  HttpResponse response;
  void Notify(HttpResponse r) {
    std::lock_guard lock(mu);
    response = std::move(r);
    done = true;
    cv.notify_all();
  }
  HttpResponse Wait() {
    std::unique_lock lock(mu);
    cv.wait(lock, [this] { return done; });
    return std::move(response);
  }
};

}  // namespace

std::string_view HttpResponse::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : std::views::reverse(headers)) {
    if (name == lower_name) return value;
  }
  return {};
}

class HttpClient::Loop {
 public:
  explicit Loop(HttpClientOptions options)
      : opt_(std::move(options)), rng_(std::random_device{}()) {
    CurlGlobalInit();
    multi_ = curl_multi_init();
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(max_conn()));
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(max_conn()));
    thread_ = std::thread([this] { Run(); });
  }

  ~Loop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    curl_multi_wakeup(multi_);
    thread_.join();
    for (CURL* e : idle_easy_) curl_easy_cleanup(e);
    curl_multi_cleanup(multi_);
  }

  HttpStats stats() const { return {counters_.sent.load(), counters_.resent.load()}; }
  bool OnLoopThread() const { return std::this_thread::get_id() == loop_id_.load(); }

  // Queues an exchange; from any thread.
  void Submit(std::shared_ptr<Exchange> x) {
    if (OnLoopThread()) {
      ready_.push_back(std::move(x));
      return;
    }
    Post([this, x = std::move(x)]() mutable { ready_.push_back(std::move(x)); });
  }

  void Post(std::function<void()> task) {
    {
      std::lock_guard lock(mu_);
      inbox_.push_back(std::move(task));
    }
    curl_multi_wakeup(multi_);
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
      ready_.push_front(timers_.top().exchange);
      timers_.pop();
    }
  }

  void StartReady() {
    while (!ready_.empty() && static_cast<int>(active_.size()) < max_conn()) {
      std::shared_ptr<Exchange> x = std::move(ready_.front());
      ready_.pop_front();
      Start(std::move(x));
    }
  }

  void Start(std::shared_ptr<Exchange> x) {
    CURL* e;
    if (idle_easy_.empty()) {
      e = curl_easy_init();
    } else {
      e = idle_easy_.back();
      idle_easy_.pop_back();
    }
    Exchange* p = x.get();
    const HttpRequest& req = p->request;
    p->ResetResponse();
    p->counters = &counters_;
    if (p->response.attempts++ == 0) p->first_start = Clock::now();

    curl_easy_setopt(e, CURLOPT_URL, req.url.c_str());
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

    const std::string& method = req.method;
    if (method == "HEAD") {
      curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT" || method == "POST") {
      // Bodies go as POSTFIELDS (not copied; the caller keeps them alive), PUT as a custom
      // method. Unlike CURLOPT_UPLOAD, which makes libcurl 7.88 send "Expect: 100-continue" and
      // wait a round trip before every non-empty PUT, this adds it only above 1 MiB, where letting
      // the server refuse (403, 412) before the body is worth the round trip.
      static const char kEmpty[] = "";
      const char* body = req.body.empty() ? kEmpty : reinterpret_cast<const char*>(req.body.data());
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
      if (method == "PUT") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (method != "GET") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method.c_str());
    }

    curl_slist* list = nullptr;
    for (const std::string& h : req.headers) list = curl_slist_append(list, h.c_str());
    for (const std::string& h : opt_.auth_headers) list = curl_slist_append(list, h.c_str());
    if (!opt_.aws_sigv4.empty()) {
      curl_easy_setopt(e, CURLOPT_AWS_SIGV4, opt_.aws_sigv4.c_str());
      curl_easy_setopt(e, CURLOPT_USERNAME, opt_.user.c_str());
      curl_easy_setopt(e, CURLOPT_PASSWORD, opt_.password.c_str());
    }
    p->header_list = list;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);

    if (CURLMcode rc = curl_multi_add_handle(multi_, e); rc != CURLM_OK) {
      // Cannot happen short of memory exhaustion; fail the request rather than lose it.
      Log(LogLevel::kError, "{}: curl_multi_add_handle: {}", opt_.log_name,
          curl_multi_strerror(rc));
      Release(e, *p);
      p->code = CURLE_OUT_OF_MEMORY;
      Finish(*p);
      return;
    }
    active_.emplace(e, std::move(x));
  }

  // Returns an easy handle to the idle pool and frees the attempt's header list.
  void Release(CURL* e, Exchange& x) {
    curl_easy_reset(e);
    idle_easy_.push_back(e);
    curl_slist_free_all(x.header_list);
    x.header_list = nullptr;
  }

  // Hands a finished exchange's response to its owner.
  static void Finish(Exchange& x) {
    if (x.code != CURLE_OK) {
      x.response.transport_error = x.errbuf[0] ? std::string(x.errbuf) : curl_easy_strerror(x.code);
      x.response.transport_transient = IsTransientCurlCode(x.code);
    }
    auto done = std::move(x.done);
    done(std::move(x.response));
  }

  void HandleDone() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* e = msg->easy_handle;
      CURLcode code = msg->data.result;
      auto it = active_.find(e);
      std::shared_ptr<Exchange> x = std::move(it->second);
      active_.erase(it);
      x->code = code;
      curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &x->response.status);
      curl_multi_remove_handle(multi_, e);
      Release(e, *x);

      const bool in_budget = Clock::now() - x->first_start <
                             std::chrono::milliseconds(std::max(0, opt_.retry_budget_ms));
      const bool transient = code != CURLE_OK
                                 ? IsTransientCurlCode(code) &&
                                       (x->request.retry_transport || code == CURLE_COULDNT_CONNECT)
                                 : x->request.retry_if && x->request.retry_if(x->response);
      if (transient && x->response.attempts < std::max(1, opt_.max_attempts) && in_budget) {
        int delay =
            BackoffMs(x->response.attempts - 1, opt_.base_backoff_ms, opt_.max_backoff_ms, rng_);
        Log(LogLevel::kDebug, "{}: retrying {} in {} ms (attempt {} {})", opt_.log_name,
            x->request.label, delay, x->response.attempts,
            code != CURLE_OK ? curl_easy_strerror(code)
                             : fmt::format("HTTP {}", x->response.status));
        timers_.push(
            Timer{Clock::now() + std::chrono::milliseconds(delay), timer_seq_++, std::move(x)});
        continue;
      }
      Finish(*x);
    }
  }

  struct Timer {
    Clock::time_point at;
    uint64_t seq;
    std::shared_ptr<Exchange> exchange;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  const HttpClientOptions opt_;  // immutable after construction
  SendCounters counters_;

  CURLM* multi_ = nullptr;
  std::thread thread_;
  std::atomic<std::thread::id> loop_id_{};

  std::mutex mu_;  // guards inbox_ and stopping_
  std::vector<std::function<void()>> inbox_;
  bool stopping_ = false;

  // Loop-thread only.
  std::deque<std::shared_ptr<Exchange>> ready_;
  std::unordered_map<CURL*, std::shared_ptr<Exchange>> active_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  uint64_t timer_seq_ = 0;
  std::vector<CURL*> idle_easy_;
  std::mt19937_64 rng_;
};

HttpClient::HttpClient(HttpClientOptions options)
    : loop_(std::make_unique<Loop>(std::move(options))) {}

HttpClient::~HttpClient() = default;

Result<HttpResponse> HttpClient::Execute(HttpRequest request) {
  if (loop_->OnLoopThread()) {
    return Internal("blocking HTTP call ({}) from a callback of the same client", request.label);
  }
  Waiter waiter;
  Submit(std::move(request), [&waiter](HttpResponse r) { waiter.Notify(std::move(r)); });
  return waiter.Wait();
}

void HttpClient::Submit(HttpRequest request, HttpCallback on_done) {
  auto x = std::make_shared<Exchange>();
  x->request = std::move(request);
  x->done = std::move(on_done);
  loop_->Submit(std::move(x));
}

void HttpClient::Post(std::function<void()> task) { loop_->Post(std::move(task)); }
bool HttpClient::OnLoopThread() const { return loop_->OnLoopThread(); }
HttpStats HttpClient::stats() const { return loop_->stats(); }

std::optional<int64_t> ParseHttpDate(const std::string& text) {
  time_t when = curl_getdate(text.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  return static_cast<int64_t>(when);
}

int BackoffMs(int retry, int base_ms, int max_ms, std::mt19937_64& rng) {
  int64_t cap = std::max(0, base_ms);
  for (int i = 0; i < retry && cap < max_ms; ++i) cap *= 2;
  cap = std::min<int64_t>(cap, std::max(0, max_ms));
  if (cap <= 0) return 0;
  return static_cast<int>(std::uniform_int_distribution<int64_t>(0, cap)(rng));
}

}  // namespace floe::io
