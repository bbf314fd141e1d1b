// SimulatedStore: a decorator that gives any store S3's timing shape -- first-byte latency with
// jitter, per-connection and aggregate bandwidth, a concurrency limit -- so that measurements on
// one machine rank designs the way S3 would. The inner store does the IO at once; the model decides
// in virtual time when each request would have finished, and the caller sees the result then
// (blocking calls sleep; SubmitReads delivers from one timer thread, so 64 simulated requests in
// flight cost no 64 threads). Thread-safe. Defaults and their sources: SimulationHelp().
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/object_store.h"

namespace floe::io {

struct SimulationOptions {
  double first_byte_ms = 25;   // median time to first byte of any request
  double jitter_sigma = 0.37;  // sigma of the lognormal first-byte latency (0: none)
  double mbps = 90;            // megabytes (10^6 B) per second per request; 0: unlimited
  double total_mbps = 1250;    // megabytes per second over all requests (10 Gbit/s); 0: unlimited
  int concurrency = 64;        // requests served at once; more queue
  uint64_t seed = 1;           // jitter is a deterministic sequence from this seed

  friend bool operator==(const SimulationOptions&, const SimulationOptions&) = default;
};

// Parses "first_byte_ms=25,mbps=90,concurrency=64,jitter=0.37,total_mbps=1250,seed=1"; any subset,
// in any order, over the defaults ("" = all defaults). An unknown key or a bad value is an
// invalid-input error naming it.
Result<SimulationOptions> ParseSimulationOptions(std::string_view spec);
// The canonical spec string of `options` (parses back to the same options).
std::string FormatSimulationOptions(const SimulationOptions& options);
// Each setting, its default and where the default comes from; for --help.
std::string SimulationHelp();

// The virtual-time model, separate from the store so it can be driven with injected times.
// Times are milliseconds on any monotonic axis. Not thread-safe: SimulatedStore guards it.
//   start   = max(submit, earliest free concurrency slot)
//   finish  = start + first_byte + bytes / per-request bandwidth, and not before the shared link
//             can have carried the bytes: the link carries one transfer at a time at the total
//             bandwidth, so a transfer takes bytes / total bandwidth of link time in the earliest
//             gaps the link has from its first byte on; finish = max(finish, end of that time).
// The slot is busy until `finish`. A request whose first byte is late holds up no other one: a
// transfer goes into the link's free time wherever it lies, not behind every earlier request.
// (Link time before the latest submit is forgotten; requests are submitted in time order.)
class SimulationModel {
 public:
  struct Slot {
    double start_ms = 0;
    double finish_ms = 0;
  };

  explicit SimulationModel(const SimulationOptions& options);

  // The next first-byte latency: first_byte_ms * exp(jitter_sigma * z), z ~ N(0, 1) from the
  // seeded sequence (the median is first_byte_ms).
  double DrawFirstByteMs();
  // Schedules one request submitted at `submit_ms` that moves `bytes` of payload.
  Slot Schedule(double submit_ms, uint64_t bytes, double first_byte_ms);

  const SimulationOptions& options() const { return options_; }

 private:
  SimulationOptions options_;
  std::mt19937_64 rng_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
  // Free times of the concurrency slots, earliest on top.
  std::priority_queue<double, std::vector<double>, std::greater<double>> slots_;
  // Reserves `ms` of link time in the gaps from `from_ms` on; returns when the last of it ends.
  double ReserveLink(double from_ms, double ms);

  // The link's busy intervals, start -> end: disjoint, touching ones merged.
  std::map<double, double> link_busy_;
  double latest_submit_ms_ = -std::numeric_limits<double>::infinity();
};

// The model's time for a batch of `n` reads of `bytes` each, submitted together to an idle store
// with at most `max_in_flight` outstanding (each completion submits the next), as SubmitReads runs
// it. Jitter comes from `options` (its seed); with jitter_sigma = 0 this is the jitter-free ideal.
double ModelBatchMs(const SimulationOptions& options, uint64_t n, uint64_t bytes,
                    int max_in_flight);

class SimulatedStore final : public ObjectStore {
 public:
  explicit SimulatedStore(StorePtr inner, SimulationOptions options = {});
  ~SimulatedStore() override;

  Result<ObjectInfo> Head(std::string_view key) override;
  Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) override;
  Result<PutInfo> Put(std::string_view key, ByteView data) override;
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override;
  Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                        int max_keys = 1000) override;
  Status Delete(std::string_view key) override;
  std::unique_ptr<PendingReads> SubmitReads(std::vector<ReadRequest> requests, ReadCallback on_done,
                                            BatchOptions options = {}) override;
  std::string Uri() const override { return inner_->Uri(); }
  Result<std::vector<ObjectInfo>> ListAbandonedWrites(std::string_view prefix) override {
    return inner_->ListAbandonedWrites(prefix);
  }
  Status DeleteAbandonedWrite(std::string_view key) override {
    return inner_->DeleteAbandonedWrite(key);
  }

  const SimulationOptions& options() const { return options_; }
  const StorePtr& inner() const { return inner_; }

  class Impl;

 private:
  // Runs a blocking request: `op` now, then sleeps until the model's finish time.
  template <typename Op, typename Bytes>
  auto Blocking(Op op, Bytes payload_bytes);

  StorePtr inner_;
  SimulationOptions options_;
  std::unique_ptr<Impl> impl_;  // the clock, the model and the timer thread
};

}  // namespace floe::io
