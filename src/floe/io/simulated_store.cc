#include "floe/io/simulated_store.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <numbers>
#include <thread>

#include "floe/base/clock.h"

namespace floe::io {

// ---------------------------------------------------------------------------------------------
// Options

namespace {

constexpr std::string_view kKnownSettings =
    "first_byte_ms, jitter, mbps, total_mbps, concurrency, seed";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<double> ParseNumber(std::string_view key, std::string_view value, double min, double max,
                           std::string_view what) {
  double v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() ||
      !std::isfinite(v) || v < min || v > max) {
    return InvalidInput("bad --simulate-s3 value '{}' for '{}' ({})", value, key, what);
  }
  return v;
}

Result<uint64_t> ParseInteger(std::string_view key, std::string_view value, uint64_t min,
                              uint64_t max, std::string_view what) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < min ||
      v > max) {
    return InvalidInput("bad --simulate-s3 value '{}' for '{}' ({})", value, key, what);
  }
  return v;
}

}  // namespace

Result<SimulationOptions> ParseSimulationOptions(std::string_view spec) {
  SimulationOptions o;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = std::min(spec.find(',', start), spec.size());
    std::string_view item = Trim(spec.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string_view key = Trim(item.substr(0, eq));
    bool known = key == "first_byte_ms" || key == "jitter" || key == "jitter_sigma" ||
                 key == "mbps" || key == "total_mbps" || key == "concurrency" || key == "seed";
    if (!known) {
      return InvalidInput("unknown --simulate-s3 setting '{}' (known: {})", key, kKnownSettings);
    }
    if (eq == std::string_view::npos) {
      return InvalidInput("--simulate-s3 setting '{}' has no value (expected {}=VALUE)", key, key);
    }
    std::string_view value = Trim(item.substr(eq + 1));
    if (key == "first_byte_ms") {
      FLOE_ASSIGN_OR_RETURN(o.first_byte_ms,
                            ParseNumber(key, value, 0, 3.6e6, "milliseconds, 0 to 3600000"));
    } else if (key == "jitter" || key == "jitter_sigma") {
      FLOE_ASSIGN_OR_RETURN(o.jitter_sigma, ParseNumber(key, value, 0, 3, "a sigma from 0 to 3"));
    } else if (key == "mbps") {
      FLOE_ASSIGN_OR_RETURN(o.mbps,
                            ParseNumber(key, value, 0, 1e9, "megabytes per second, 0 = unlimited"));
    } else if (key == "total_mbps") {
      FLOE_ASSIGN_OR_RETURN(o.total_mbps,
                            ParseNumber(key, value, 0, 1e9, "megabytes per second, 0 = unlimited"));
    } else if (key == "concurrency") {
      FLOE_ASSIGN_OR_RETURN(uint64_t c,
                            ParseInteger(key, value, 1, 1000000, "an integer from 1 to 1000000"));
      o.concurrency = static_cast<int>(c);
    } else {
      FLOE_ASSIGN_OR_RETURN(o.seed,
                            ParseInteger(key, value, 0, std::numeric_limits<uint64_t>::max(),
                                         "an unsigned 64-bit integer"));
    }
  }
  return o;
}

std::string FormatSimulationOptions(const SimulationOptions& o) {
  return fmt::format("first_byte_ms={},jitter={},mbps={},total_mbps={},concurrency={},seed={}",
                     o.first_byte_ms, o.jitter_sigma, o.mbps, o.total_mbps, o.concurrency, o.seed);
}

std::string SimulationHelp() {
  SimulationOptions d;
  return fmt::format(
      "Simulated S3 (--simulate-s3=KEY=VALUE,...; every key optional, defaults in brackets):\n"
      "  first_byte_ms [{}]  median time to first byte of every request (GET, HEAD, PUT, LIST,\n"
      "                     DELETE), in ms. Source: measured S3 GET latency p50 of 25.3 ms at\n"
      "                     64 KiB (one public report; REFERENCE.md, object-store numbers).\n"
      "  jitter [{}]        sigma of the lognormal first-byte latency: p99 = median * exp(2.326 *\n"
      "                     sigma) = about 2.4x the median, 59 ms, the low end of the reported\n"
      "                     p99 of 59-178 ms. 0 = every request takes exactly the median.\n"
      "  mbps [{}]           megabytes (10^6 bytes) per second per request, i.e. per connection.\n"
      "                     Source: per-connection throughput about 85-90 MB/s (unverified).\n"
      "                     0 = unlimited.\n"
      "  total_mbps [{}]   megabytes per second over all requests at once: a 10 Gbit/s network\n"
      "                     interface (10^10 / 8 bytes). 0 = unlimited.\n"
      "  concurrency [{}]    requests served at once; more wait in a queue. Matches the S3\n"
      "                     store's default connection pool (64).\n"
      "  seed [{}]            seed of the jitter sequence, so runs repeat.\n"
      "The store's IO happens at once; the model computes in virtual time when each request would\n"
      "have finished on S3, and the caller gets the result then.\n",
      d.first_byte_ms, d.jitter_sigma, d.mbps, d.total_mbps, d.concurrency, d.seed);
}

// ---------------------------------------------------------------------------------------------
// Model

SimulationModel::SimulationModel(const SimulationOptions& options)
    : options_(options), rng_(options.seed) {
  int slots = std::max(1, options.concurrency);
  for (int i = 0; i < slots; ++i) slots_.push(-std::numeric_limits<double>::infinity());
}

double SimulationModel::DrawFirstByteMs() {
  if (options_.jitter_sigma <= 0) return options_.first_byte_ms;
  // Box-Muller on the seeded 64-bit generator: the same sequence on every platform, which
  // std::normal_distribution does not promise.
  double z;
  if (has_spare_normal_) {
    z = spare_normal_;
    has_spare_normal_ = false;
  } else {
    double u1 = 1.0 - static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // (0, 1]
    double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;        // [0, 1)
    double r = std::sqrt(-2.0 * std::log(u1));
    z = r * std::cos(2 * std::numbers::pi * u2);
    spare_normal_ = r * std::sin(2 * std::numbers::pi * u2);
    has_spare_normal_ = true;
  }
  return options_.first_byte_ms * std::exp(options_.jitter_sigma * z);
}

SimulationModel::Slot SimulationModel::Schedule(double submit_ms, uint64_t bytes,
                                                double first_byte_ms) {
  double free = slots_.top();
  slots_.pop();
  Slot s;
  s.start_ms = std::max(submit_ms, free);
  double first_byte_at = s.start_ms + first_byte_ms;
  double b = static_cast<double>(bytes);
  // mbps is 10^6 bytes per second = 10^3 bytes per millisecond.
  s.finish_ms = first_byte_at + (options_.mbps > 0 ? b / (options_.mbps * 1e3) : 0);
  if (options_.total_mbps > 0 && bytes > 0) {
    s.finish_ms =
        std::max(s.finish_ms, ReserveLink(first_byte_at, b / (options_.total_mbps * 1e3)));
  }
  latest_submit_ms_ = std::max(latest_submit_ms_, submit_ms);
  slots_.push(s.finish_ms);
  return s;
}

double SimulationModel::ReserveLink(double from_ms, double ms) {
  // Forget what no later request can use: every first byte comes at or after its submit.
  while (!link_busy_.empty() && link_busy_.begin()->second < latest_submit_ms_) {
    link_busy_.erase(link_busy_.begin());
  }
  double t = from_ms;
  auto next = link_busy_.upper_bound(t);  // the first busy interval starting after t
  if (next != link_busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second > t) t = prev->second;  // t is inside a busy interval: wait for its end
  }
  double left = ms;
  while (true) {
    // [t, gap_end) is free.
    const double gap_end =
        next == link_busy_.end() ? std::numeric_limits<double>::infinity() : next->first;
    const double use = std::min(left, gap_end - t);
    double start = t, end = t + use;
    left -= use;
    // Mark [start, end) busy, merged with the interval ending at `start` and the next one when
    // it begins at `end`.
    if (next != link_busy_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == start) {
        start = prev->first;
        link_busy_.erase(prev);
      }
    }
    if (next != link_busy_.end() && next->first == end) {
      end = next->second;
      next = link_busy_.erase(next);
    }
    link_busy_[start] = end;
    if (left <= 0) return t + use;
    t = end;  // the gap is used up: continue after the busy interval that closed it
    next = link_busy_.upper_bound(t);
  }
}

double ModelBatchMs(const SimulationOptions& options, uint64_t n, uint64_t bytes,
                    int max_in_flight) {
  SimulationModel model(options);
  uint64_t lanes = static_cast<uint64_t>(std::max(1, max_in_flight));
  // Finish times of the batch's outstanding requests; each completion submits the next request.
  std::priority_queue<double, std::vector<double>, std::greater<double>> outstanding;
  double end = 0;
  for (uint64_t k = 0; k < n; ++k) {
    double submit = 0;
    if (k >= lanes) {
      submit = outstanding.top();
      outstanding.pop();
    }
    double fb = model.DrawFirstByteMs();
    SimulationModel::Slot s = model.Schedule(submit, bytes, fb);
    outstanding.push(s.finish_ms);
    end = std::max(end, s.finish_ms);
  }
  return end;
}

// ---------------------------------------------------------------------------------------------
// Store

class SimulatedStore::Impl {
 public:
  explicit Impl(const SimulationOptions& options)
      : model_(options), timer_(std::make_shared<Timer>()) {
    timer_->epoch = SteadyClock::now();
  }

  ~Impl() {
    {
      std::lock_guard lock(timer_->mu);
      timer_->stopping = true;
    }
    timer_->cv.notify_all();
    if (thread_.joinable()) {
      // The last reference to the store can be dropped by a callback on the timer thread itself;
      // the thread then finishes on its own, holding the timer state it shares.
      if (thread_.get_id() == std::this_thread::get_id()) {
        thread_.detach();
      } else {
        thread_.join();
      }
    }
  }

  double NowMs() const {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - timer_->epoch).count();
  }

  // Places one request in the model and returns its finish time.
  double Place(double submit_ms, uint64_t bytes) {
    std::lock_guard lock(model_mu_);
    double fb = model_.DrawFirstByteMs();
    return model_.Schedule(submit_ms, bytes, fb).finish_ms;
  }

  void SleepUntil(double ms) const { std::this_thread::sleep_until(timer_->TimeOf(ms)); }

  // Runs `fn` on the timer thread at `deadline_ms` (at once if that has passed), in deadline order.
  void At(double deadline_ms, std::function<void()> fn) {
    {
      std::lock_guard lock(timer_->mu);
      if (!thread_.joinable()) thread_ = std::thread(&Timer::Loop, timer_);
      timer_->events.push_back(Event{deadline_ms, timer_->next_seq++, std::move(fn)});
      std::push_heap(timer_->events.begin(), timer_->events.end(), Later);
    }
    timer_->cv.notify_one();
  }

 private:
  struct Event {
    double deadline_ms;
    uint64_t seq;  // ties run in submission order
    std::function<void()> fn;
  };
  static bool Later(const Event& a, const Event& b) {
    return a.deadline_ms != b.deadline_ms ? a.deadline_ms > b.deadline_ms : a.seq > b.seq;
  }

  // Shared by the store and its thread, so either may go first.
  struct Timer {
    SteadyClock::time_point epoch;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Event> events;  // a min-heap by deadline (see Later)
    uint64_t next_seq = 0;
    bool stopping = false;

    SteadyClock::time_point TimeOf(double ms) const {
      return epoch + std::chrono::duration_cast<SteadyClock::duration>(
                         std::chrono::duration<double, std::milli>(ms));
    }

    static void Loop(const std::shared_ptr<Timer>& self) {
      Timer& t = *self;
      std::unique_lock lock(t.mu);
      while (!t.stopping) {
        if (t.events.empty()) {
          t.cv.wait(lock);
          continue;
        }
        auto when = t.TimeOf(t.events.front().deadline_ms);
        if (SteadyClock::now() < when) {
          t.cv.wait_until(lock, when);
          continue;
        }
        std::pop_heap(t.events.begin(), t.events.end(), Later);
        std::function<void()> fn = std::move(t.events.back().fn);
        t.events.pop_back();
        lock.unlock();
        fn();
        fn = nullptr;  // drop what it holds before taking the lock again
        lock.lock();
      }
    }
  };

  std::mutex model_mu_;
  SimulationModel model_;
  std::shared_ptr<Timer> timer_;
  std::thread thread_;  // started by the first At(), under timer_->mu
};

namespace {

// One SubmitReads batch. The inner store reads request k when the model submits it (at the batch
// start for the first max_in_flight, then at each delivery); when the bytes arrive the model
// places the request, and the timer thread delivers it at its finish time and submits the next.
class SimulatedBatch : public std::enable_shared_from_this<SimulatedBatch> {
 public:
  SimulatedBatch(SimulatedStore::Impl* impl, ObjectStore* inner, std::vector<ReadRequest> requests,
                 ReadCallback on_done)
      : impl_(impl),
        inner_(inner),
        requests_(std::move(requests)),
        on_done_(std::move(on_done)),
        results_(requests_.size(), Result<Buffer>(Buffer())),
        inner_pending_(requests_.size()),
        delivered_flag_(requests_.size(), false) {}

  void Start(int max_in_flight, double now_ms) {
    size_t first;
    {
      std::lock_guard lock(mu_);
      first = std::min(requests_.size(), static_cast<size_t>(std::max(1, max_in_flight)));
      next_ = first;
    }
    for (size_t i = 0; i < first; ++i) Submit(i, now_ms);
  }

  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return delivered_ == requests_.size(); });
  }

 private:
  void Submit(size_t index, double submit_ms) {
    auto self = shared_from_this();
    auto pending = inner_->SubmitReads(
        {requests_[index]},
        [self, index, submit_ms](size_t, Result<Buffer> r) {
          self->InnerDone(index, submit_ms, std::move(r));
        },
        BatchOptions{1});
    // The inner read may already have been delivered; whoever comes second releases it.
    {
      std::lock_guard lock(mu_);
      if (!delivered_flag_[index]) {
        inner_pending_[index] = std::move(pending);
        return;
      }
    }
    pending.reset();
  }

  void InnerDone(size_t index, double submit_ms, Result<Buffer> result) {
    const ReadRequest& r = requests_[index];
    // A read the store rejects before sending (bad key, length-0 range) costs no round trip.
    double finish = submit_ms;
    if (ValidateKey(r.key) && r.range.Validate(r.key)) {
      finish = impl_->Place(submit_ms, result ? result->size() : 0);
    }
    results_[index] = std::move(result);
    auto self = shared_from_this();
    impl_->At(finish, [self, index, finish] { self->Deliver(index, finish); });
  }

  void Deliver(size_t index, double finish_ms) {
    std::unique_ptr<PendingReads> inner_done;
    size_t next = requests_.size();
    {
      std::lock_guard lock(mu_);
      if (next_ < requests_.size()) next = next_++;
      delivered_flag_[index] = true;
      inner_done = std::move(inner_pending_[index]);
    }
    // The freed lane starts the next request at this request's virtual finish, so the schedule
    // is the model's even if the timer thread runs a little late.
    if (next < requests_.size()) Submit(next, finish_ms);
    on_done_(index, std::move(results_[index]));
    inner_done.reset();
    std::lock_guard lock(mu_);
    if (++delivered_ == requests_.size()) cv_.notify_all();
  }

  SimulatedStore::Impl* impl_;
  ObjectStore* inner_;
  std::vector<ReadRequest> requests_;
  ReadCallback on_done_;
  std::vector<Result<Buffer>> results_;  // slot k written before its delivery is scheduled

  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;
  size_t delivered_ = 0;
  std::vector<std::unique_ptr<PendingReads>> inner_pending_;
  std::vector<bool> delivered_flag_;
};

class SimulatedReads final : public PendingReads {
 public:
  explicit SimulatedReads(std::shared_ptr<SimulatedBatch> batch) : batch_(std::move(batch)) {}
  ~SimulatedReads() override { Wait(); }
  void Wait() override { batch_->Wait(); }

 private:
  std::shared_ptr<SimulatedBatch> batch_;
};

}  // namespace

SimulatedStore::SimulatedStore(StorePtr inner, SimulationOptions options)
    : inner_(std::move(inner)), options_(options), impl_(std::make_unique<Impl>(options)) {}

SimulatedStore::~SimulatedStore() = default;

template <typename Op, typename Bytes>
auto SimulatedStore::Blocking(Op op, Bytes payload_bytes) {
  double submit = impl_->NowMs();
  auto result = op();
  double finish = impl_->Place(submit, payload_bytes(result));
  impl_->SleepUntil(finish);
  return result;
}

Result<ObjectInfo> SimulatedStore::Head(std::string_view key) {
  if (!ValidateKey(key)) return inner_->Head(key);  // rejected before any request
  return Blocking([&] { return inner_->Head(key); }, [](const auto&) { return uint64_t{0}; });
}

Result<Buffer> SimulatedStore::Get(std::string_view key, Range range) {
  if (!ValidateKey(key) || !range.Validate(key)) return inner_->Get(key, range);
  return Blocking([&] { return inner_->Get(key, range); },
                  [](const Result<Buffer>& r) { return r ? uint64_t{r->size()} : uint64_t{0}; });
}

Result<PutInfo> SimulatedStore::Put(std::string_view key, ByteView data) {
  if (!ValidateKey(key)) return inner_->Put(key, data);
  return Blocking([&] { return inner_->Put(key, data); },
                  [&](const auto&) { return uint64_t{data.size()}; });
}

Result<PutInfo> SimulatedStore::PutIfAbsent(std::string_view key, ByteView data) {
  if (!ValidateKey(key)) return inner_->PutIfAbsent(key, data);
  return Blocking([&] { return inner_->PutIfAbsent(key, data); },
                  [&](const auto&) { return uint64_t{data.size()}; });
}

Result<ListPage> SimulatedStore::List(std::string_view prefix, std::string_view continuation_token,
                                      int max_keys) {
  if (max_keys < 1 || max_keys > 1000) return inner_->List(prefix, continuation_token, max_keys);
  return Blocking([&] { return inner_->List(prefix, continuation_token, max_keys); },
                  [](const auto&) { return uint64_t{0}; });
}

Status SimulatedStore::Delete(std::string_view key) {
  if (!ValidateKey(key)) return inner_->Delete(key);
  return Blocking([&] { return inner_->Delete(key); }, [](const auto&) { return uint64_t{0}; });
}

std::unique_ptr<PendingReads> SimulatedStore::SubmitReads(std::vector<ReadRequest> requests,
                                                          ReadCallback on_done,
                                                          BatchOptions options) {
  auto batch = std::make_shared<SimulatedBatch>(impl_.get(), inner_.get(), std::move(requests),
                                                std::move(on_done));
  batch->Start(options.max_in_flight, impl_->NowMs());
  return std::make_unique<SimulatedReads>(std::move(batch));
}

}  // namespace floe::io
