// Cost model: what a design's workload costs per month on S3 Standard -- requests by kind at the
// prices in REFERENCE.md, plus storage -- from the exact counts of one run of each question and
// the question's daily count. Plain functions over plain data.
#pragma once

#include <cstdint>
#include <vector>

namespace floe::bench {

struct Prices {
  double get_per_1000 = 0.0004;     // GET/HEAD, S3 Standard us-east-1 (REFERENCE.md)
  double put_per_1000 = 0.005;      // PUT/COPY/POST/LIST (REFERENCE.md)
  double storage_gb_month = 0.023;  // S3 Standard first 50 TB, us-east-1 (AWS price list)
  double days_per_month = 30;
};

// One question's exact counts for one run, and how often it runs.
struct QuestionLoad {
  double daily = 1;
  uint64_t get_requests = 0;    // GET + HEAD
  uint64_t other_requests = 0;  // PUT, POST, LIST, DELETE (DELETE is free on S3; counted here
                                // only when a caller chooses to)
  uint64_t bytes = 0;
  double latency_ms = 0;  // median
};

struct MonthlyCost {
  double requests_usd = 0;
  double storage_usd = 0;
  double total_usd() const { return requests_usd + storage_usd; }
  double requests_per_day = 0;  // weighted by daily counts
  double bytes_per_day = 0;
  double latency_ms_per_day = 0;  // summed median latency of a day's questions
};

MonthlyCost Monthly(const std::vector<QuestionLoad>& loads, uint64_t stored_bytes,
                    const Prices& prices = {});

}  // namespace floe::bench
