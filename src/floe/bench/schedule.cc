#include "floe/bench/schedule.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace floe::bench {

namespace {

// A day of one design compacted every `k` changes (0: never), in time, requests and dollars.
SchedulePoint Day(const BenchResult& r, size_t d, int k, const Prices& p) {
  const ChangeSpec& c = *r.sheet.changes;
  const ChangesOutcome& ch = r.changes[d];
  const double changes_per_day = c.daily;
  const double grown = static_cast<double>(c.rounds + 1);  // changes before the first reads
  auto usd = [&](const io::RequestCounts& n, double times) {
    return times * (static_cast<double>(n.get + n.head) * p.get_per_1000 / 1000 +
                    static_cast<double>(n.put + n.post + n.list) * p.put_per_1000 / 1000);
  };
  SchedulePoint out;
  out.every = k;
  double usd_day = 0;
  out.seconds_per_day += changes_per_day * ch.latency.median / 1000;
  out.requests_per_day += changes_per_day * static_cast<double>(ch.counts.total());
  usd_day += usd(ch.counts, changes_per_day);
  if (k > 0) {
    const double compactions = changes_per_day / k;
    out.seconds_per_day += compactions * ch.compaction_ms / 1000;
    out.requests_per_day += compactions * static_cast<double>(ch.compaction_counts.total());
    usd_day += usd(ch.compaction_counts, compactions);
  }
  for (size_t q = 0; q < r.sheet.questions.size(); ++q) {
    const double reads = r.sheet.questions[q].daily;
    const Measurement& after = r.results[q][d];
    if (k == 0) {
      out.seconds_per_day += reads * after.latency.median / 1000;
      out.requests_per_day += reads * static_cast<double>(after.counts.total());
      usd_day += usd(after.counts, reads);
      continue;
    }
    const Measurement& base = r.compacted[q][d];
    // Per change since the last compaction; a cycle of k changes averages (k - 1) / 2.
    const double ms_slope = std::max(0.0, (after.latency.median - base.latency.median) / grown);
    const double req_slope = std::max(0.0, (static_cast<double>(after.counts.total()) -
                                            static_cast<double>(base.counts.total())) /
                                               grown);
    const double get_slope =
        std::max(0.0, (static_cast<double>(after.counts.get + after.counts.head) -
                       static_cast<double>(base.counts.get + base.counts.head)) /
                          grown);
    const double mid = (k - 1) / 2.0;
    out.seconds_per_day += reads * (base.latency.median + ms_slope * mid) / 1000;
    out.requests_per_day += reads * (static_cast<double>(base.counts.total()) + req_slope * mid);
    usd_day += usd(base.counts, reads) + reads * get_slope * mid * p.get_per_1000 / 1000;
  }
  out.usd_per_month = usd_day * p.days_per_month;
  return out;
}

}  // namespace

std::vector<DesignSchedule> ScheduleCurves(const BenchResult& r, const Prices& p) {
  std::vector<DesignSchedule> out;
  if (!r.sheet.changes || r.changes.size() != r.sheet.designs.size()) return out;
  for (size_t d = 0; d < r.changes.size(); ++d) {
    DesignSchedule s;
    bool complete = r.changes[d].error.empty();
    for (size_t q = 0; q < r.sheet.questions.size() && complete; ++q) {
      complete = q < r.results.size() && q < r.compacted.size() && r.results[q][d].error.empty() &&
                 r.compacted[q][d].error.empty();
    }
    if (complete) {
      s.compacts = r.changes[d].after_changes.delete_files > 0;
      if (s.compacts) {
        for (int k = 1; k <= kMaxEvery; ++k) s.points.push_back(Day(r, d, k, p));
      } else {
        s.points.push_back(Day(r, d, 0, p));
      }
      for (size_t i = 0; i < s.points.size(); ++i) {
        if (s.best < 0 || s.points[i].seconds_per_day < s.points[s.best].seconds_per_day) {
          s.best = static_cast<int>(i);
        }
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string RecommendSchedule(const BenchResult& r, const Prices& p) {
  const std::vector<DesignSchedule> curves = ScheduleCurves(r, p);
  int best = -1;
  for (size_t d = 0; d < curves.size(); ++d) {
    if (curves[d].best < 0) continue;
    const double t = curves[d].points[curves[d].best].seconds_per_day;
    if (best < 0 || t < curves[best].points[curves[best].best].seconds_per_day) {
      best = static_cast<int>(d);
    }
  }
  if (best < 0) return "No design completed the changes and the questions; no schedule to give.";
  const auto& names = r.sheet.designs;
  auto describe = [&](size_t d) {
    const SchedulePoint& pt = curves[d].points[curves[d].best];
    const std::string how = pt.every == 0   ? std::string("as it is (its changes leave no deletes)")
                            : pt.every == 1 ? std::string("compacted after every change")
                                            : fmt::format("compacted every {} changes", pt.every);
    return fmt::format("'{}' {}: {:.1f} s, {:.0f} requests a day, ${:.4f} a month", names[d].name,
                       how, pt.seconds_per_day, pt.requests_per_day, pt.usd_per_month);
  };
  std::string out = fmt::format(
      "At {} change{} a day and the questions' daily reads, the cheapest schedule is {}",
      r.sheet.changes->daily, r.sheet.changes->daily == 1 ? "" : "s", describe(best));
  for (size_t d = 0; d < curves.size(); ++d) {
    if (static_cast<int>(d) == best || curves[d].best < 0) continue;
    out += fmt::format("; against {}", describe(d));
  }
  out +=
      ". Reads between compactions are modelled as growing linearly with the changes since "
      "the last one (measured after compaction and after the rounds).";
  return out;
}

}  // namespace floe::bench
