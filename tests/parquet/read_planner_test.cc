// The request planner's objective (read.objective): the store model's arithmetic, checked against
// values worked by hand, and the plans each objective picks for the shapes that motivated it --
// the chapter's point lookup in one sorted 5.85 MB file, whose pages lie one or two per column
// across the whole file (111 ranges, 118 KB wanted).
#include "floe/parquet/read_planner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace floe::parquet {
namespace {

io::SimulationOptions NoJitter() {
  io::SimulationOptions m;
  m.jitter_sigma = 0;
  return m;
}

TEST(ModelRequestsMsTest, FirstByteAndTransfer) {
  const io::SimulationOptions m = NoJitter();
  EXPECT_EQ(ModelRequestsMs(m, {}, 64), 0);
  // 90,000 bytes at 90 MB/s: 1 ms after a 25 ms first byte.
  EXPECT_DOUBLE_EQ(ModelRequestsMs(m, {90'000}, 64), 26);
  // Parallel requests share the wave's first byte; the longest sets the transfer.
  EXPECT_DOUBLE_EQ(ModelRequestsMs(m, {90'000, 180'000, 9'000}, 64), 27);
  // Three requests through two lanes: two waves.
  EXPECT_DOUBLE_EQ(ModelRequestsMs(m, {0, 0, 0}, 2), 50);
  // The store's pool bounds the lanes as the batch's width does.
  io::SimulationOptions narrow = m;
  narrow.concurrency = 1;
  EXPECT_DOUBLE_EQ(ModelRequestsMs(narrow, {0, 0, 0}, 64), 75);
  // 100 requests of 1.25 MB: 1,250 MB/s over all of them binds (100 ms), not 90 MB/s each;
  // the pool of 64 makes two waves.
  std::vector<int64_t> many(100, 1'250'000);
  EXPECT_DOUBLE_EQ(ModelRequestsMs(m, many, 100), 2 * 25 + 100);
}

TEST(ModelRequestsMsTest, JitterCostsTheSlowestOfAWave) {
  io::SimulationOptions m;  // sigma 0.37
  // One request: the median.
  EXPECT_NEAR(ModelRequestsMs(m, {0}, 64), 25, 1e-6);
  // Two: the expected maximum of two standard normals is 1/sqrt(pi).
  EXPECT_NEAR(ModelRequestsMs(m, {0, 0}, 64), 25 * std::exp(0.37 / std::sqrt(std::acos(-1.0))),
              1e-3);
  // Three: 3 / (2 sqrt(pi)).
  EXPECT_NEAR(ModelRequestsMs(m, {0, 0, 0}, 64),
              25 * std::exp(0.37 * 1.5 / std::sqrt(std::acos(-1.0))), 1e-3);
  // Wider waves wait longer: 64 at once is slower than 4.
  EXPECT_GT(ModelRequestsMs(m, std::vector<int64_t>(64, 0), 64),
            ModelRequestsMs(m, std::vector<int64_t>(4, 0), 64));
}

// 111 ranges of about 1 KB spread evenly over a 5.85 MB file, as the sorted dimension's lookup
// wants them.
std::vector<ByteRange> LookupRanges() {
  std::vector<ByteRange> r;
  for (int i = 0; i < 111; ++i) r.push_back({int64_t{i} * 52'700, 1'063});
  return r;
}

int64_t Covered(const std::vector<ByteRange>& wanted, const std::vector<ByteRange>& requests) {
  int64_t n = 0;
  for (const ByteRange& w : wanted) {
    for (const ByteRange& q : requests) {
      if (q.offset <= w.offset && w.end() <= q.end()) {
        ++n;
        break;
      }
    }
  }
  return n;
}

TEST(PlanRequestsTest, LatencyObjectiveTakesAFewParallelRequests) {
  const ReadPlannerOptions p;  // latency, SimulatedStore's model
  const std::vector<ByteRange> wanted = LookupRanges();
  const RequestPlan plan = PlanRequests(wanted, p, 64);
  // Every range separate (what the waste guard did) costs two waves of 64.
  std::vector<int64_t> separate(wanted.size(), 1'063);
  const double before = ModelRequestsMs(p.store_model, separate, 64);
  EXPECT_LE(plan.requests.size(), 4u);
  EXPECT_LT(plan.modelled_ms, before);
  EXPECT_EQ(Covered(wanted, plan.requests), 111);
  // The fewest requests within 10% of the fastest candidate: one request (5.85 MB, 90 ms) is
  // not among them, the fastest's width is.
  EXPECT_GT(plan.requests.size(), 1u);
  EXPECT_EQ(plan.modelled_ms, ModelRequestsMs(
                                  p.store_model,
                                  [&] {
                                    std::vector<int64_t> s;
                                    for (const ByteRange& r : plan.requests) s.push_back(r.length);
                                    return s;
                                  }(),
                                  64));
}

TEST(PlanRequestsTest, WithoutJitterNarrowRequestsWin) {
  ReadPlannerOptions p;
  p.store_model = NoJitter();
  const std::vector<ByteRange> wanted = LookupRanges();
  const RequestPlan plan = PlanRequests(wanted, p, 64);
  // A wave's first byte costs the same however wide: many small requests in one wave.
  EXPECT_GT(plan.requests.size(), 4u);
  EXPECT_LE(plan.requests.size(), 64u);
  // One wave: within the 10% slack of one first byte plus the file's span at the NIC's 1,250 MB/s.
  EXPECT_LE(plan.modelled_ms, 1.1 * (25 + (110 * 52'700 + 1'063) / 1.25e6));
  EXPECT_EQ(Covered(wanted, plan.requests), 111);
}

TEST(PlanRequestsTest, RequestsAndCostObjectivesTakeOneRequestWithinTheCap) {
  for (ReadObjective o : {ReadObjective::kRequests, ReadObjective::kCost}) {
    ReadPlannerOptions p;
    p.objective = o;
    const RequestPlan plan = PlanRequests(LookupRanges(), p, 64);
    ASSERT_EQ(plan.requests.size(), 1u) << ReadObjectiveName(o);
    EXPECT_EQ(plan.requests[0], (ByteRange{0, 110 * 52'700 + 1'063}));
    EXPECT_DOUBLE_EQ(plan.dollars, 0.0004 / 1000);
  }
  // Past the 8 MiB cap, two requests.
  ReadPlannerOptions p;
  p.objective = ReadObjective::kRequests;
  const RequestPlan plan = PlanRequests({{0, 100}, {9'000'000, 100}}, p, 64);
  EXPECT_EQ(plan.requests, (std::vector<ByteRange>{{0, 100}, {9'000'000, 100}}));
}

TEST(PlanRequestsTest, CostWeighsBytesWhenTransferHasAPrice) {
  ReadPlannerOptions p;
  p.objective = ReadObjective::kCost;
  p.transfer_price_per_gb = 0.09;  // internet egress
  // Reading through 5 MB costs $0.00045; a second GET $0.0000004: two requests.
  const RequestPlan plan = PlanRequests({{0, 100}, {5'000'100, 100}}, p, 64);
  EXPECT_EQ(plan.requests, (std::vector<ByteRange>{{0, 100}, {5'000'100, 100}}));
  EXPECT_DOUBLE_EQ(plan.dollars, 2 * 0.0004 / 1000 + 200 * 0.09 / 1e9);
}

TEST(PlanRequestsTest, MergesOverlapsAndKeepsLongRangesWhole) {
  const ReadPlannerOptions p;
  // Overlapping and touching ranges are one request whatever the objective.
  RequestPlan plan = PlanRequests({{0, 100}, {50, 100}, {150, 10}, {60, 10}}, p, 64);
  EXPECT_EQ(plan.requests, (std::vector<ByteRange>{{0, 160}}));
  EXPECT_EQ(plan.bytes, 160);
  // A range longer than the request cap stays one request.
  plan = PlanRequests({{0, 20'000'000}}, p, 64);
  EXPECT_EQ(plan.requests, (std::vector<ByteRange>{{0, 20'000'000}}));
  EXPECT_TRUE(PlanRequests({}, p, 64).requests.empty());
  EXPECT_TRUE(PlanRequests({{10, 0}}, p, 64).requests.empty());
}

TEST(ReadObjectiveTest, NamesRoundTrip) {
  for (ReadObjective o : {ReadObjective::kLatency, ReadObjective::kRequests, ReadObjective::kCost})
    EXPECT_EQ(ParseReadObjective(ReadObjectiveName(o)), o);
  EXPECT_FALSE(ParseReadObjective("fast"));
  EXPECT_FALSE(ParseReadObjective(""));
}

}  // namespace
}  // namespace floe::parquet
