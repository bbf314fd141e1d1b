// The compaction schedule on figures worked by hand: a copy-on-write design (no deletes) priced
// as it is, a merge-on-read design priced at every compaction interval with its reads growing
// linearly between compactions, and the recommendation naming the cheaper.
#include "floe/bench/schedule.h"

#include <gtest/gtest.h>

namespace floe::bench {
namespace {

BenchResult TwoDesigns() {
  BenchResult r;
  r.sheet.designs = {Design{}, Design{}};
  r.sheet.designs[0].name = "cow";
  r.sheet.designs[1].name = "mor";
  r.sheet.questions = {Question{"q", "SELECT 1", 10}};
  r.sheet.changes = ChangeSpec{};
  r.sheet.changes->daily = 2;
  r.sheet.changes->rounds = 4;  // with the warm-up, reads were measured 5 changes after compaction
  r.changes.resize(2);
  r.changes[0].latency.median = 100;
  r.changes[0].counts.get = 5;
  r.changes[0].counts.put = 5;
  r.changes[1].latency.median = 50;
  r.changes[1].counts.get = 3;
  r.changes[1].counts.put = 3;
  r.changes[1].after_changes.delete_files = 5;
  r.changes[1].compaction_ms = 320;
  r.changes[1].compaction_counts.get = 20;
  Measurement cow, mor_after, mor_compacted;
  cow.latency.median = 20;
  cow.counts.get = 8;
  mor_after.latency.median = 70;
  mor_after.counts.get = 48;
  mor_compacted.latency.median = 20;
  mor_compacted.counts.get = 8;
  r.results = {{cow, mor_after}};
  r.compacted = {{cow, mor_compacted}};
  return r;
}

TEST(Schedule, CopyOnWriteAsItIsMergeOnReadAtEveryInterval) {
  const BenchResult r = TwoDesigns();
  const auto curves = ScheduleCurves(r, Prices{});
  ASSERT_EQ(curves.size(), 2u);
  // copy-on-write: 2 changes of 0.1 s and 10 reads of 0.02 s a day.
  ASSERT_EQ(curves[0].points.size(), 1u);
  EXPECT_FALSE(curves[0].compacts);
  EXPECT_DOUBLE_EQ(curves[0].points[0].seconds_per_day, 0.4);
  EXPECT_DOUBLE_EQ(curves[0].points[0].requests_per_day, 2 * 10 + 10 * 8);
  // merge-on-read every k: 2 x 0.05 + (2 / k) x 0.32 + 10 x (0.02 + 0.01 x (k - 1) / 2), the read
  // growing (70 - 20) / 5 = 10 ms a change: 0.94 at k = 1, 0.61 at k = 4 (the least), 0.628 at 5.
  ASSERT_EQ(curves[1].points.size(), static_cast<size_t>(kMaxEvery));
  EXPECT_TRUE(curves[1].compacts);
  EXPECT_NEAR(curves[1].points[0].seconds_per_day, 0.94, 1e-9);
  EXPECT_NEAR(curves[1].points[3].seconds_per_day, 0.61, 1e-9);
  EXPECT_NEAR(curves[1].points[4].seconds_per_day, 0.628, 1e-9);
  EXPECT_EQ(curves[1].best, 3);
  EXPECT_EQ(curves[1].points[3].every, 4);
  // Requests at k = 4: 2 x 6 + 0.5 x 20 + 10 x (8 + 8 x 1.5) = 222.
  EXPECT_NEAR(curves[1].points[3].requests_per_day, 222, 1e-9);
  // $ a month at k = 4: GETs 2 x 3 + 0.5 x 20 + 10 x (8 + 8 x 1.5) = 216, PUTs 2 x 3 = 6.
  EXPECT_NEAR(curves[1].points[3].usd_per_month, 30 * (216 * 0.0004 / 1000 + 6 * 0.005 / 1000),
              1e-12);
}

TEST(Schedule, TheRecommendationNamesTheCheapestAndTheOthers) {
  const std::string s = RecommendSchedule(TwoDesigns(), Prices{});
  EXPECT_EQ(s.find("At 2 changes a day and the questions' daily reads, the cheapest schedule is "
                   "'cow' as it is (its changes leave no deletes): 0.4 s"),
            0u)
      << s;
  EXPECT_NE(s.find("against 'mor' compacted every 4 changes: 0.6 s"), std::string::npos) << s;
}

TEST(Schedule, ADesignThatFailedItsChangesHasNoCurve) {
  BenchResult r = TwoDesigns();
  r.changes[1].error = "conflict";
  const auto curves = ScheduleCurves(r, Prices{});
  EXPECT_TRUE(curves[1].points.empty());
  EXPECT_EQ(curves[1].best, -1);
}

}  // namespace
}  // namespace floe::bench
