// The protocol on synthetic timings: order of runs (warm-up, then interleaved), median and spread,
// indistinguishable verdicts, and errors that name the arm and round.
#include "floe/bench/protocol.h"

#include <gtest/gtest.h>

namespace floe::bench {
namespace {

TEST(Protocol, MedianOddEvenAndEmpty) {
  Spread s = Summarize({5, 1, 3});
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.n, 3);
  EXPECT_EQ(Summarize({4, 1, 3, 2}).median, 2.5);
  EXPECT_EQ(Summarize({}).n, 0);
}

TEST(Protocol, OverlappingSpreadsAreIndistinguishable) {
  Spread a = Summarize({10, 12, 14});
  Spread b = Summarize({13, 15, 20});
  Spread c = Summarize({15, 16, 17});
  EXPECT_TRUE(Indistinguishable(a, b));
  EXPECT_TRUE(Indistinguishable(b, a));
  EXPECT_FALSE(Indistinguishable(a, c));
  EXPECT_FALSE(Indistinguishable(a, Spread{}));
  auto v = Verdicts({c, a, b});
  EXPECT_EQ(v[0], "");
  EXPECT_EQ(v[1], "best");
  EXPECT_EQ(v[2], "~best");
}

TEST(Protocol, WarmsEveryArmThenInterleaves) {
  std::string order;
  std::vector<double> a_times = {100, 100, 5, 7, 6}, b_times = {100, 100, 9, 8, 10};
  size_t ai = 0, bi = 0;
  std::vector<ArmRun> arms = {
      [&]() -> Result<double> {
        order += 'A';
        return a_times[ai++];
      },
      [&]() -> Result<double> {
        order += 'B';
        return b_times[bi++];
      },
  };
  int runs = 0;
  auto r = RunProtocol(arms, {.warmup = 2, .rounds = 3}, [&] { ++runs; });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(order, "AABBABABAB");
  EXPECT_EQ(runs, 10);
  // Warm-up runs (the 100s) are not measured.
  EXPECT_EQ((*r)[0].samples, (std::vector<double>{5, 7, 6}));
  EXPECT_EQ((*r)[0].spread.median, 6);
  EXPECT_EQ((*r)[1].spread.median, 9);
  EXPECT_FALSE(Indistinguishable((*r)[0].spread, (*r)[1].spread));
}

TEST(Protocol, ErrorNamesArmAndRound) {
  int calls = 0;
  std::vector<ArmRun> arms = {
      []() -> Result<double> { return 1.0; },
      [&]() -> Result<double> {
        if (++calls == 3) return Unsupported("boom");
        return 2.0;
      },
  };
  auto r = RunProtocol(arms, {.warmup = 1, .rounds = 5});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "arm 2 round 2: boom");
  EXPECT_FALSE(RunProtocol(arms, {.warmup = 0, .rounds = 0}));
}

TEST(Protocol, FormatSpread) {
  EXPECT_EQ(FormatSpread(Summarize({82, 75, 91})), "82 ms (75-91)");
  EXPECT_EQ(FormatSpread(Spread{}), "-");
}

}  // namespace
}  // namespace floe::bench
