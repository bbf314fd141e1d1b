// The compaction schedule -- the chapter's conclusion that "the design decision is a schedule, not
// a mode": from a worksheet's measured changes (each design's change statement, its questions
// after the rounds and again after compaction, and the compaction's cost) and its cadence (changes
// a day, each question's reads a day), what a day costs each design as it would be run: a design
// whose changes leave delete files (merge-on-read) compacted every k changes, k = 1..kMaxEvery; one
// whose changes leave none (copy-on-write) as it is. Between compactions a read is modelled as
// growing linearly with the changes since the last one -- measured at 0 (after compaction) and at
// rounds + 1 (after the warm-up and the rounds) -- so a cycle of k changes averages (k - 1) / 2
// changes' growth; a compaction is priced as measured. Pure functions of a BenchResult.
#pragma once

#include <string>
#include <vector>

#include "floe/bench/cost_model.h"
#include "floe/bench/runner.h"

namespace floe::bench {

inline constexpr int kMaxEvery = 30;

struct SchedulePoint {
  int every = 0;                // compact every this many changes; 0: never needed
  double seconds_per_day = 0;   // changes + compactions + reads
  double requests_per_day = 0;  // the same, requests
  double usd_per_month = 0;     // requests at the prices (storage left out: alike across designs)
};

struct DesignSchedule {
  bool compacts = false;              // its changes leave delete files
  std::vector<SchedulePoint> points;  // every = 1..kMaxEvery, or one point (every = 0)
  int best = -1;                      // the index of the cheapest point by time
};

// One per design; empty when the worksheet has no changes or a design failed them.
std::vector<DesignSchedule> ScheduleCurves(const BenchResult& result, const Prices& prices);

// The recommendation in a paragraph: the cheapest design and schedule by time a day, what it costs
// beside the best of every other design, and where the break-even lies.
std::string RecommendSchedule(const BenchResult& result, const Prices& prices);

}  // namespace floe::bench
