// The bench report's charts, laid out by svg_chart: per question the four numbers as small
// multiples (a bar per design, named, the chapter's figure as a hollow bar where it gives one), the
// summary across designs from the cost model, the write time of each design, and the compaction
// schedule. The same layouts go into the standalone .svg files and, inline, into the HTML report.
#pragma once

#include <string>
#include <vector>

#include "floe/bench/report.h"
#include "floe/bench/runner.h"
#include "floe/bench/svg_chart.h"

namespace floe::bench {

// Question q's panels (data files opened, requests, bytes fetched, median latency with its
// min-max), two by two; `with_header` puts the question's name, daily count and SQL (wrapped, in
// full) above them, as the standalone SVG needs.
ChartLayout QuestionChart(const BenchResult& result, size_t q,
                          const std::vector<ChapterFigure>& chapter, bool with_header);
// Requests a day, bytes a day, query seconds a day and $ a month per design (the cost model), the
// recommended design's name in bold.
ChartLayout SummaryChart(const BenchResult& result);
// The build time of each design: the median with its min-max over the build rounds.
ChartLayout WriteTimeChart(const BenchResult& result);
// Seconds a day against the compaction interval, one line per design, legend below.
ChartLayout ScheduleChart(const BenchResult& result);

// The standalone SVG files of the report folder.
std::string QuestionSvg(const BenchResult& result, size_t q,
                        const std::vector<ChapterFigure>& chapter = {});
std::string WriteTimeSvg(const BenchResult& result);
std::string ScheduleSvg(const BenchResult& result);

}  // namespace floe::bench
