// The measurement protocol of the chapter: pre-warm every arm, interleave the arms A, B, A, B for N
// rounds, report each arm's median and min-max, and call two arms indistinguishable when their
// spreads overlap. Pure logic over caller-supplied runs, so it is tested on synthetic timings.
// Not thread-safe; arms run one at a time, in the order given.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "floe/base/result.h"

namespace floe::bench {

struct ProtocolOptions {
  int warmup = 2;  // unmeasured runs of each arm before the first measured one
  int rounds = 7;  // measured runs of each arm, interleaved
};

// Median and spread of a set of samples (ms).
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
  int n = 0;
};

// The median (mean of the middle two for an even count) and the extremes; n = 0 when empty.
Spread Summarize(std::vector<double> samples);

// True when the [min, max] intervals of `a` and `b` overlap: the protocol cannot rank them.
bool Indistinguishable(const Spread& a, const Spread& b);

// One run of an arm: returns its latency in ms (the caller's clock) or an error.
using ArmRun = std::function<Result<double>()>;

struct ArmResult {
  std::vector<double> samples;  // measured runs in the order they ran
  Spread spread;
};

// Runs `warmup` runs of every arm (arm by arm, A A B B), then `rounds` rounds of A, B, A, B...
// The first error stops the protocol and is returned, naming the arm index and round.
Result<std::vector<ArmResult>> RunProtocol(const std::vector<ArmRun>& arms,
                                           const ProtocolOptions& options,
                                           const std::function<void()>& on_run = {});

// For a set of arms: which arms are tied with the best (smallest median) arm. verdict[i] is
// "best", "~best" (spread overlaps the best's: indistinguishable), or "" (distinguishably slower).
std::vector<std::string> Verdicts(const std::vector<Spread>& spreads);

// "82 ms (75-91)" / "0.41 ms (0.38-0.47)".
std::string FormatSpread(const Spread& s);

}  // namespace floe::bench
