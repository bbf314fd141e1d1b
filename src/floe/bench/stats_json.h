// The stats object of one statement -- data files opened and skipped (by partition, bounds, an
// OTree's cubes, a sample, a join's keys), row groups, pages, delete files, requests by kind and
// bytes fetched (metadata included), wall time -- in the one JSON form docs/cli.md gives it, so
// `floe query`, `floe table scan` and `floe bench --json` print the same object. Pure.
#pragma once

#include <string>

#include "floe/base/scan_metrics.h"
#include "floe/io/counting_store.h"

namespace floe::bench {

std::string StatsJson(const ScanMetrics& scan, const io::RequestCounts& requests, double wall_ms);

}  // namespace floe::bench
