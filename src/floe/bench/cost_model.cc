// The monthly cost of a design's workload.
#include "floe/bench/cost_model.h"

namespace floe::bench {

MonthlyCost Monthly(const std::vector<QuestionLoad>& loads, uint64_t stored_bytes,
                    const Prices& p) {
  MonthlyCost c;
  double usd_per_day = 0;
  for (const auto& q : loads) {
    usd_per_day += q.daily * (static_cast<double>(q.get_requests) * p.get_per_1000 / 1000 +
                              static_cast<double>(q.other_requests) * p.put_per_1000 / 1000);
    c.requests_per_day += q.daily * static_cast<double>(q.get_requests + q.other_requests);
    c.bytes_per_day += q.daily * static_cast<double>(q.bytes);
    c.latency_ms_per_day += q.daily * q.latency_ms;
  }
  c.requests_usd = usd_per_day * p.days_per_month;
  c.storage_usd = static_cast<double>(stored_bytes) / 1e9 * p.storage_gb_month;
  return c;
}

}  // namespace floe::bench
