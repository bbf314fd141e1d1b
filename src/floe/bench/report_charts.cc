// The report's charts from a BenchResult.
#include "floe/bench/report_charts.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/bench/schedule.h"

namespace floe::bench {
namespace {

const char* const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string ColorOf(size_t d) { return kColors[d % 10]; }

const ChapterNumbers* ChapterOf(const std::vector<ChapterFigure>& chapter,
                                const std::string& question, const std::string& design) {
  for (const auto& c : chapter) {
    if (c.question == question && c.design == design) return &c.numbers;
  }
  return nullptr;
}

// The hollow bar's label: the chapter measured on Spark-built tables.
constexpr const char* kChapterLabel = "chapter (Spark)";

ChartLayout Panel(BarChart chart, double plot_width) {
  chart.plot_width = plot_width;
  chart.reference_label = kChapterLabel;
  return LayoutBarChart(chart);
}

}  // namespace

ChartLayout QuestionChart(const BenchResult& r, size_t q, const std::vector<ChapterFigure>& chapter,
                          bool with_header) {
  const auto& s = r.sheet;
  const size_t nd = std::min(s.designs.size(), q < r.results.size() ? r.results[q].size() : 0);
  BarChart files{.title = "data files opened", .unit = ChartUnit::kCount};
  BarChart requests{.title = "requests", .unit = ChartUnit::kCount};
  BarChart bytes{.title = "bytes fetched", .unit = ChartUnit::kBytes};
  BarChart latency{.title = "median latency, min-max", .unit = ChartUnit::kMillis};
  bool any_chapter = false;
  for (size_t d = 0; d < nd; ++d) {
    const Measurement& m = r.results[q][d];
    const ChapterNumbers* c = ChapterOf(chapter, s.questions[q].name, s.designs[d].name);
    any_chapter |= c != nullptr && (c->files_opened || c->requests || c->bytes || c->median_ms);
    Bar bar{.name = s.designs[d].name, .color = ColorOf(d), .error = !m.error.empty()};
    Bar b = bar;
    b.value = static_cast<double>(m.data_files_opened);
    if (c) b.reference = c->files_opened;
    files.bars.push_back(b);
    b = bar;
    b.value = static_cast<double>(m.counts.total());
    if (c) b.reference = c->requests;
    requests.bars.push_back(b);
    b = bar;
    b.value = static_cast<double>(m.counts.bytes_read);
    if (c) b.reference = c->bytes;
    bytes.bars.push_back(b);
    b = bar;
    b.value = m.latency.median;
    b.low = m.latency.min;
    b.high = m.latency.max;
    if (c) b.reference = c->median_ms;
    latency.bars.push_back(b);
  }
  std::vector<ChartLayout> parts;
  if (with_header) {
    const Question& question = s.questions[q];
    parts.push_back(LayoutText({question.name}, 16, true));
    parts.push_back(LayoutText(
        {fmt::format("{:g} a day. Requests and bytes of a measured run; latency the median of the "
                     "rounds, its whisker their min-max.",
                     question.daily)},
        12, false, false, "#555"));
    parts.push_back(LayoutText(WrapText(question.sql, 96), 12, false, true));
  }
  parts.push_back(Grid(
      {Panel(files, 200), Panel(requests, 200), Panel(bytes, 200), Panel(latency, 200)}, 2, 28));
  if (any_chapter) {
    parts.push_back(LayoutText({"dashed hollow bars: the chapter's figure for that design "
                                "(measured on Spark-built tables), where it gives one"},
                               11, false, false, "#555"));
  }
  return Stack(parts, 8);
}

ChartLayout SummaryChart(const BenchResult& r) {
  const auto& s = r.sheet;
  BarChart req{.title = "requests a day", .unit = ChartUnit::kCount};
  BarChart bytes{.title = "bytes fetched a day", .unit = ChartUnit::kBytes};
  BarChart secs{.title = "query seconds a day", .unit = ChartUnit::kSeconds};
  BarChart usd{.title = "$ a month (requests + storage)", .unit = ChartUnit::kDollars};
  for (size_t d = 0; d < s.designs.size() && d < r.costs.size(); ++d) {
    const MonthlyCost& c = r.costs[d];
    Bar b{.name = s.designs[d].name,
          .color = ColorOf(d),
          .emphasis = static_cast<int>(d) == r.best_design};
    b.value = c.requests_per_day;
    req.bars.push_back(b);
    b.value = c.bytes_per_day;
    bytes.bars.push_back(b);
    b.value = c.latency_ms_per_day / 1000;
    secs.bars.push_back(b);
    b.value = c.total_usd();
    usd.bars.push_back(b);
  }
  return Grid({Panel(req, 200), Panel(bytes, 200), Panel(secs, 200), Panel(usd, 200)}, 2, 28);
}

ChartLayout WriteTimeChart(const BenchResult& r) {
  const auto& s = r.sheet;
  BarChart chart{.title = fmt::format("write time: median of {} build{}, min-max", s.build_rounds,
                                      s.build_rounds == 1 ? "" : "s"),
                 .unit = ChartUnit::kSeconds};
  for (size_t d = 0; d < s.designs.size() && d < r.builds.size(); ++d) {
    const Spread& w = r.builds[d].write_seconds;
    chart.bars.push_back({.name = s.designs[d].name,
                          .value = w.median,
                          .low = w.min,
                          .high = w.max,
                          .color = ColorOf(d)});
  }
  return Panel(chart, 360);
}

ChartLayout ScheduleChart(const BenchResult& r) {
  const std::vector<DesignSchedule> curves = ScheduleCurves(r, r.prices);
  LineChart chart{.title = "seconds a day against the compaction interval",
                  .x_label = "compact every k changes",
                  .y_unit = ChartUnit::kSeconds,
                  .x_ticks = {1, 5, 10, 15, 20, 25, 30}};
  chart.x_ticks.back() = kMaxEvery;
  for (size_t d = 0; d < curves.size() && d < r.sheet.designs.size(); ++d) {
    const DesignSchedule& c = curves[d];
    LineSeries line{.name = r.sheet.designs[d].name, .color = ColorOf(d)};
    if (c.points.empty()) {
      line.name += ": no schedule (its changes failed)";
    } else if (!c.compacts) {
      line.points = {{1, c.points[0].seconds_per_day}};
      line.dashed = true;
      line.name += fmt::format(": leaves no delete files, {} a day",
                               FormatChartValue(c.points[0].seconds_per_day, ChartUnit::kSeconds));
    } else {
      for (const auto& p : c.points) line.points.emplace_back(p.every, p.seconds_per_day);
      if (c.best >= 0) {
        line.marker = static_cast<size_t>(c.best);
        const SchedulePoint& b = c.points[c.best];
        line.name += fmt::format(
            ": cheapest compacting after {}, {} a day (dot)",
            b.every == 1 ? std::string("every change") : fmt::format("every {} changes", b.every),
            FormatChartValue(b.seconds_per_day, ChartUnit::kSeconds));
      }
    }
    chart.series.push_back(std::move(line));
  }
  return LayoutLineChart(chart);
}

std::string QuestionSvg(const BenchResult& r, size_t q, const std::vector<ChapterFigure>& chapter) {
  return SvgDocument(Pad(QuestionChart(r, q, chapter, true), 10), true);
}

std::string WriteTimeSvg(const BenchResult& r) {
  return SvgDocument(Pad(WriteTimeChart(r), 10), true);
}

std::string ScheduleSvg(const BenchResult& r) {
  return SvgDocument(Pad(ScheduleChart(r), 10), true);
}

}  // namespace floe::bench
