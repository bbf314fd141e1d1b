// The cells the report's tables share between their Markdown, terminal and HTML forms: one
// measurement's figures as text, and a question's rows on every engine. Only report*.cc use it.
#pragma once

#include <string>
#include <vector>

#include "floe/bench/runner.h"

namespace floe::bench::report_internal {

// A measurement's figure as text: 0 files opened, 1 requests, 2 bytes, 3 "median (min-max)" with
// the verdict's mark (* best, ~ indistinguishable), 4 the cold run's "requests, bytes". An error
// gives "error" for files and "-" for the rest.
std::string Cell(const Measurement& m, int what);

// A question's rows on each engine: floe's and each other engine's, design by design.
struct EngineRow {
  std::string engine;
  size_t design;
  const Measurement* m;
};
std::vector<EngineRow> EngineRows(const BenchResult& result, size_t q);

// "GET/HEAD/other" of a measured run.
std::string RequestKinds(const io::RequestCounts& c);

}  // namespace floe::bench::report_internal
