// The read planner's decisions for the `floe` strategy, made before a byte is fetched: whole file
// or tail, how long a tail (learned from earlier files of the same scan), and how planned ranges
// become requests (coalesce gaps cheaper than a new request, cap request size). Pure functions
// plus one thread-safe estimator shared by the files of a scan.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "floe/io/simulated_store.h"
#include "floe/parquet/byte_range.h"
#include "floe/parquet/file_metadata.h"

namespace floe::parquet {

// What the planner minimises when it turns a file's wanted byte ranges into requests.
//  latency   the modelled time of the batch under the store model; among plans within
//            `latency_slack` of the fastest, the fewest requests (then the faster).
//  requests  the fewest requests (no request past max_request_bytes); then the faster.
//  cost      the dollars of the batch: requests at get_price_per_1000, bytes at
//            transfer_price_per_gb (0: S3 to a reader in its region); then the faster.
enum class ReadObjective { kLatency, kRequests, kCost };

std::string_view ReadObjectiveName(ReadObjective objective);
// "latency", "requests" or "cost"; nullopt otherwise.
std::optional<ReadObjective> ParseReadObjective(std::string_view name);

struct ReadPlannerOptions {
  // Gap (bytes) worth reading through rather than paying another request: first-byte latency x
  // per-request bandwidth. The default is SimulatedStore's defaults, 25 ms x 90 MB/s = 2.25 MB.
  int64_t coalesce_gap = 2'250'000;
  // Files at most this long are fetched whole in one GET. 2 MiB: below the break-even of the
  // gap above (a second request costs 25 ms, during which 2.25 MB would have arrived), so a
  // whole-file GET is never slower than tail + data; bench/read_path measures the effect.
  int64_t whole_file_bytes = int64_t{2} << 20;
  // Requests are not coalesced past this size (S3's 8-16 MB guidance); a whole-file GET is only
  // chosen for a larger file when it is at most this long.
  int64_t max_request_bytes = int64_t{8} << 20;
  // The first tail read when the scan has not yet seen a file: Arrow C++'s kDefaultFooterReadSize.
  int64_t initial_tail_bytes = 64 << 10;
  // A learned tail is the largest tail seen times this, rounded up to 4 KiB.
  double tail_headroom = 1.25;

  ReadObjective objective = ReadObjective::kLatency;
  // The store the latency objective models: SimulatedStore's defaults, themselves S3's measured
  // first-byte latency, per-connection and NIC bandwidth, and the S3 store's connection pool.
  io::SimulationOptions store_model;
  // Modelled times within this fraction of the fastest plan count as a tie (the model's own
  // error is larger), broken by fewer requests.
  double latency_slack = 0.10;
  // REFERENCE.md's S3 Standard GET price, and the transfer price (0 in-region).
  double get_price_per_1000 = 0.0004;
  double transfer_price_per_gb = 0;

  // Derives the gap from a first-byte latency and a per-request bandwidth.
  static int64_t GapFor(double first_byte_ms, double megabytes_per_second) {
    return static_cast<int64_t>(first_byte_ms * megabytes_per_second * 1000.0);
  }
};

// The tail length to request first, learned from the files of one scan: how many bytes from the
// end held the footer (and, when the scan uses it, the page index). Thread-safe, lock-free.
class TailEstimator {
 public:
  explicit TailEstimator(const ReadPlannerOptions& options) : options_(options) {}

  // Bytes to request from the end of a file of `file_length` bytes.
  int64_t Estimate(int64_t file_length, bool with_page_index) const;
  // Records that a file needed its last `tail_bytes` bytes.
  void Observe(int64_t tail_bytes, bool with_page_index);

 private:
  ReadPlannerOptions options_;
  std::atomic<int64_t> footer_max_{0};
  std::atomic<int64_t> index_max_{0};
};

// What the planner fetches first from a file whose length is known.
struct FirstRead {
  bool whole_file = false;
  int64_t tail_bytes = 0;  // when !whole_file
};

// `projected_bytes`: bytes of the projected columns estimated from the manifest's column_sizes
// (-1: unknown). Whole file when it is small, or when what the read needs (projection + tail)
// leaves less unread than a request costs and the file fits one request.
FirstRead PlanFirstRead(const ReadPlannerOptions& options, int64_t file_length,
                        int64_t projected_bytes, int64_t tail_estimate);

// Merges ranges whose gaps are at most `gap`, never growing a request past `max_bytes` (a single
// range longer than that stays one request) nor its gap bytes past `max_waste_ratio` x its wanted
// bytes (when > 0). Sorted; overlapping input ranges are merged.
std::vector<ByteRange> CoalesceCapped(std::vector<ByteRange> ranges, int64_t gap, int64_t max_bytes,
                                      double max_waste_ratio = 0);

// One candidate grouping of wanted ranges into requests, with what the objective weighs.
struct RequestPlan {
  std::vector<ByteRange> requests;
  int64_t bytes = 0;       // fetched, gaps read through included
  double modelled_ms = 0;  // ModelRequestsMs
  double dollars = 0;      // requests and bytes at the options' prices
};

// The modelled time of one batch of requests of `sizes` bytes on an idle store with at most
// `max_in_flight` outstanding: per wave of concurrent requests the expected slowest first byte
// (the median scaled by the lognormal jitter's expected maximum over the wave), plus the
// transfer: the longest request at per-request bandwidth, or all bytes at the total bandwidth,
// or the waves' share of per-request time, whichever binds.
double ModelRequestsMs(const io::SimulationOptions& model, const std::vector<int64_t>& sizes,
                       int max_in_flight);

// Groups `ranges` (any order; overlapping ones merge) into the requests that best meet the
// options' objective, with at most `max_in_flight` outstanding. Candidates: every gap threshold
// (all distinct gaps, or 16 quantiles of them) crossed with request-size caps that split the span
// into 1..max_in_flight parts, each capped at max_request_bytes; a single range longer than the
// cap stays one request.
RequestPlan PlanRequests(std::vector<ByteRange> ranges, const ReadPlannerOptions& options,
                         int max_in_flight);

// The lowest file offset of any column or offset index; -1 when the file has none.
int64_t PageIndexStart(const FileMetaData& metadata);

}  // namespace floe::parquet
