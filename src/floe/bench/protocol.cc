// The protocol runner: warm-up, interleaving, median and spread.
#include "floe/bench/protocol.h"

#include <algorithm>

#include <fmt/format.h>

namespace floe::bench {

Spread Summarize(std::vector<double> samples) {
  Spread s;
  s.n = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  s.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

bool Indistinguishable(const Spread& a, const Spread& b) {
  if (a.n == 0 || b.n == 0) return false;
  return a.min <= b.max && b.min <= a.max;
}

Result<std::vector<ArmResult>> RunProtocol(const std::vector<ArmRun>& arms,
                                           const ProtocolOptions& options,
                                           const std::function<void()>& on_run) {
  if (options.warmup < 0) return InvalidInput("warmup must be >= 0, got {}", options.warmup);
  if (options.rounds < 1) return InvalidInput("rounds must be >= 1, got {}", options.rounds);
  std::vector<ArmResult> out(arms.size());
  for (size_t a = 0; a < arms.size(); ++a) {
    for (int w = 0; w < options.warmup; ++w) {
      auto r = arms[a]();
      if (!r) {
        Error e = r.error();
        e.message = fmt::format("arm {} warm-up run {}: {}", a + 1, w + 1, e.message);
        return std::unexpected(e);
      }
      if (on_run) on_run();
    }
  }
  for (int round = 0; round < options.rounds; ++round) {
    for (size_t a = 0; a < arms.size(); ++a) {
      auto r = arms[a]();
      if (!r) {
        Error e = r.error();
        e.message = fmt::format("arm {} round {}: {}", a + 1, round + 1, e.message);
        return std::unexpected(e);
      }
      out[a].samples.push_back(*r);
      if (on_run) on_run();
    }
  }
  for (auto& arm : out) arm.spread = Summarize(arm.samples);
  return out;
}

std::vector<std::string> Verdicts(const std::vector<Spread>& spreads) {
  std::vector<std::string> v(spreads.size());
  int best = -1;
  for (size_t i = 0; i < spreads.size(); ++i) {
    if (spreads[i].n == 0) continue;
    if (best < 0 || spreads[i].median < spreads[best].median) best = static_cast<int>(i);
  }
  if (best < 0) return v;
  for (size_t i = 0; i < spreads.size(); ++i) {
    if (static_cast<int>(i) == best) {
      v[i] = "best";
    } else if (Indistinguishable(spreads[i], spreads[best])) {
      v[i] = "~best";
    }
  }
  return v;
}

std::string FormatSpread(const Spread& s) {
  if (s.n == 0) return "-";
  auto num = [](double ms) {
    return ms >= 10 ? fmt::format("{:.0f}", ms) : fmt::format("{:.2g}", ms);
  };
  return fmt::format("{} ms ({}-{})", num(s.median), num(s.min), num(s.max));
}

}  // namespace floe::bench
