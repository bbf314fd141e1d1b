// The cost model at REFERENCE.md's S3 prices.
#include "floe/bench/cost_model.h"

#include <gtest/gtest.h>

namespace floe::bench {
namespace {

TEST(CostModel, RequestsAndStorage) {
  // 1000 lookups a day of 2 GETs, 10 scans a day of 100 GETs and 1 LIST.
  std::vector<QuestionLoad> loads = {
      {.daily = 1000, .get_requests = 2, .other_requests = 0, .bytes = 1000, .latency_ms = 50},
      {.daily = 10, .get_requests = 100, .other_requests = 1, .bytes = 10'000, .latency_ms = 200},
  };
  MonthlyCost c = Monthly(loads, 2'000'000'000);
  EXPECT_DOUBLE_EQ(c.requests_per_day, 3010);
  EXPECT_DOUBLE_EQ(c.bytes_per_day, 1'100'000);
  EXPECT_DOUBLE_EQ(c.latency_ms_per_day, 52'000);
  // (3000 GET * 0.0004 + 10 LIST * 0.005) / 1000 per day, 30 days.
  EXPECT_NEAR(c.requests_usd, (3000 * 0.0004 + 10 * 0.005) / 1000 * 30, 1e-12);
  EXPECT_NEAR(c.storage_usd, 2 * 0.023, 1e-12);
  EXPECT_NEAR(c.total_usd(), c.requests_usd + c.storage_usd, 1e-12);
}

TEST(CostModel, NothingCostsNothing) {
  MonthlyCost c = Monthly({}, 0);
  EXPECT_EQ(c.total_usd(), 0);
}

}  // namespace
}  // namespace floe::bench
