// The self-contained HTML page of a bench report.
#include "floe/bench/html_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/bench/report_charts.h"
#include "floe/bench/report_internal.h"
#include "floe/bench/svg_chart.h"

namespace floe::bench {
namespace {

using report_internal::Cell;
using report_internal::EngineRow;
using report_internal::EngineRows;
using report_internal::RequestKinds;

std::string H(std::string_view s) { return XmlEscape(s); }

// A table row of escaped cells; `numeric[i]` right-aligns cell i.
std::string Row(const std::vector<std::string>& cells, std::string_view numeric = "") {
  std::string out = "<tr>";
  for (size_t i = 0; i < cells.size(); ++i) {
    const bool n = i < numeric.size() && numeric[i] == 'n';
    out += fmt::format("<td{}>{}</td>", n ? " class=\"n\"" : "", H(cells[i]));
  }
  return out + "</tr>\n";
}

std::string Head(const std::vector<std::string>& cells, std::string_view numeric = "") {
  std::string out = "<thead><tr>";
  for (size_t i = 0; i < cells.size(); ++i) {
    const bool n = i < numeric.size() && numeric[i] == 'n';
    out += fmt::format("<th{}>{}</th>", n ? " class=\"n\"" : "", H(cells[i]));
  }
  return out + "</tr></thead>\n";
}

std::string Figure(const ChartLayout& chart, std::string_view caption = "") {
  return fmt::format("<figure>{}{}</figure>\n", SvgDocument(chart, false),
                     caption.empty() ? "" : fmt::format("<figcaption>{}</figcaption>", H(caption)));
}

std::string ChapterText(const std::vector<ChapterFigure>& chapter, const std::string& question,
                        const std::string& design) {
  for (const auto& c : chapter) {
    if (c.question == question && c.design == design) return c.figure;
  }
  return "";
}

bool HasChapter(const std::vector<ChapterFigure>& chapter, const std::string& question) {
  for (const auto& c : chapter) {
    if (c.question == question) return true;
  }
  return false;
}

std::string Facts(const BenchResult& r, const ReportFacts& f) {
  const auto& s = r.sheet;
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back("worksheet", f.worksheet.empty() ? s.name : f.worksheet);
  if (!s.source.table.empty()) {
    rows.emplace_back(
        "source",
        fmt::format(
            "table {}{}", s.source.table,
            s.source.snapshot_id ? fmt::format(" at snapshot {}", *s.source.snapshot_id) : ""));
  } else if (!s.source.generator.empty()) {
    rows.emplace_back("source", fmt::format("generator {}", s.source.generator));
  } else if (!s.source.parquet.empty()) {
    rows.emplace_back("source", fmt::format("Parquet {}", fmt::join(s.source.parquet, ", ")));
  }
  if (!r.builds.empty()) rows.emplace_back("rows", fmt::format("{}", r.builds[0].rows));
  if (!f.date.empty()) rows.emplace_back("ran", f.date);
  rows.emplace_back("store", !f.store.empty() ? f.store
                             : r.simulated ? "a local directory behind the simulated-S3 decorator"
                                           : "the store as it is (no simulation)");
  std::string protocol = "pre-warmed, designs interleaved; latency as median (min-max)";
  if (f.rounds > 0) {
    protocol = fmt::format("{} warm-up run{} then {} interleaved round{} per design; {}", f.warmup,
                           f.warmup == 1 ? "" : "s", f.rounds, f.rounds == 1 ? "" : "s",
                           "latency as median (min-max)");
  }
  rows.emplace_back("protocol", protocol);
  rows.emplace_back("floe", "version " FLOE_VERSION);
  std::string out = "<dl class=\"facts\">\n";
  for (const auto& [k, v] : rows) out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", H(k), H(v));
  return out + "</dl>\n";
}

std::string Summary(const BenchResult& r) {
  const auto& s = r.sheet;
  std::string out = "<h3>Summary: a day of this workload on each design</h3>\n";
  if (!r.costs.empty()) {
    out +=
        "<p>From each question's exact counts on one run times its runs a day (the cost model); "
        "dollars are S3 Standard requests and storage. The recommended design's name is in "
        "bold.</p>\n";
    out += Figure(SummaryChart(r));
  }
  if (!r.recommendation.empty()) {
    out += fmt::format("<p class=\"recommendation\"><strong>Recommendation.</strong> {}</p>\n",
                       H(r.recommendation));
  }
  if (r.costs.empty()) return out;
  out += "<table>\n" + Head({"design", "requests/day", "bytes/day", "query s/day",
                             "$/month (requests + storage)"},
                            "snnnn");
  for (size_t d = 0; d < s.designs.size() && d < r.costs.size(); ++d) {
    const MonthlyCost& c = r.costs[d];
    out += Row(
        {s.designs[d].name + (static_cast<int>(d) == r.best_design ? " (recommended)" : ""),
         fmt::format("{:.0f}", c.requests_per_day), FormatBytes(c.bytes_per_day),
         fmt::format("{:.1f}", c.latency_ms_per_day / 1000), fmt::format("{:.4f}", c.total_usd())},
        "snnnn");
  }
  return out + "</table>\n";
}

std::string Designs(const BenchResult& r) {
  const auto& s = r.sheet;
  std::string out = "<h3>Designs</h3>\n<table>\n" +
                    Head({"design", "layout", "data files", "size", "write time"}, "ssnnn");
  for (size_t d = 0; d < s.designs.size() && d < r.builds.size(); ++d) {
    const DesignBuild& b = r.builds[d];
    std::string layout = s.designs[d].description;
    for (const auto& n : b.notes) layout += (layout.empty() ? "" : "; ") + n;
    const Spread& w = b.write_seconds;
    out += Row({s.designs[d].name, layout, fmt::format("{}", b.data_files),
                FormatBytes(static_cast<double>(b.bytes)),
                fmt::format("{:.2f} s{}", b.seconds,
                            w.n > 1 ? fmt::format(" ({:.2f}-{:.2f})", w.min, w.max) : "")},
               "ssnnn");
  }
  out += "</table>\n";
  if (s.build_rounds > 1) out += Figure(WriteTimeChart(r));
  return out;
}

std::string Changes(const BenchResult& r, const std::vector<ChapterFigure>& chapter) {
  const auto& s = r.sheet;
  if (!s.changes || r.changes.size() != s.designs.size()) return "";
  std::string out = fmt::format(
      "<h3>Changes: {} rounds of {:g}% after a warm-up round, designs interleaved</h3>\n"
      "<pre class=\"sql\">{}</pre>\n<table>\n",
      s.changes->rounds, s.changes->fraction * 100, H(s.changes->sql));
  out += Head({"design", "change: median (min-max)", "requests", "bytes written",
               "then: data files", "delete files", "deleted positions", "chapter"},
              "snnnnnns");
  for (size_t d = 0; d < s.designs.size(); ++d) {
    const ChangesOutcome& c = r.changes[d];
    if (!c.error.empty()) {
      out += Row({s.designs[d].name, c.error, "", "", "", "", "", ""});
      continue;
    }
    out += Row(
        {s.designs[d].name, FormatSpread(c.latency),
         c.counted ? std::to_string(c.counts.total()) : "-",
         c.counted ? FormatBytes(static_cast<double>(c.counts.bytes_written)) : "-",
         std::to_string(c.after_changes.data_files), std::to_string(c.after_changes.delete_files),
         std::to_string(c.after_changes.deleted_positions),
         ChapterText(chapter, "(changes)", s.designs[d].name)},
        "snnnnnns");
  }
  out +=
      "</table>\n<p>Compaction after the rounds (its steps timed together), and the table it "
      "leaves:</p>\n<table>\n" +
      Head({"design", "steps", "time", "requests", "then: data files", "delete files"}, "ssnnnn");
  for (size_t d = 0; d < s.designs.size(); ++d) {
    const ChangesOutcome& c = r.changes[d];
    if (!c.error.empty()) continue;
    std::string steps;
    for (const auto& n : c.compaction_notes) steps += (steps.empty() ? "" : "; ") + n;
    out += Row({s.designs[d].name, steps, fmt::format("{:.0f} ms", c.compaction_ms),
                c.compaction_counted ? std::to_string(c.compaction_counts.total()) : "-",
                std::to_string(c.after_compaction.data_files),
                std::to_string(c.after_compaction.delete_files)},
               "ssnnnn");
  }
  return out + "</table>\n";
}

std::string QuestionHtml(const BenchResult& r, size_t q,
                         const std::vector<ChapterFigure>& chapter) {
  const auto& s = r.sheet;
  const Question& question = s.questions[q];
  std::string out =
      fmt::format("<h3>{}</h3>\n<p class=\"daily\">{:g} a day{}</p>\n<pre class=\"sql\">{}</pre>\n",
                  H(question.name), question.daily, s.changes ? "; measured after the changes" : "",
                  H(question.sql));
  out += Figure(QuestionChart(r, q, chapter, false),
                "Requests and bytes of a measured run (footer and metadata caches as the warm-up "
                "left them); latency the median with its min-max whisker.");
  const bool with_chapter = HasChapter(chapter, question.name);
  std::vector<std::string> head = {"design", "files opened",     "requests",
                                   "bytes",  "median (min-max)", "cold: requests, bytes"};
  if (with_chapter) head.emplace_back("chapter");
  out += "<table>\n" + Head(head, "snnnnns");
  for (size_t d = 0; d < s.designs.size() && d < r.results[q].size(); ++d) {
    const Measurement& m = r.results[q][d];
    std::vector<std::string> row = {s.designs[d].name,
                                    Cell(m, 0),
                                    Cell(m, 1),
                                    Cell(m, 2),
                                    m.error.empty() ? Cell(m, 3) : m.error,
                                    m.error.empty() ? Cell(m, 4) : ""};
    if (with_chapter) row.push_back(ChapterText(chapter, question.name, s.designs[d].name));
    out += Row(row, "snnnnns");
  }
  out += "</table>\n";
  if (r.engines.empty()) return out;
  out +=
      "<p>On each engine, the same tables (requests and bytes counted by the proxy; floe's with "
      "the footer and metadata caches its warm-up filled, the other engines keep none between "
      "questions; * fastest, ~ indistinguishable, among one engine's designs):</p>\n<table>\n" +
      Head({"engine", "design", "files opened", "GET/HEAD/other", "bytes", "median (min-max)",
            "answer"},
           "ssnnnns");
  for (const EngineRow& e : EngineRows(r, q)) {
    const Measurement& m = *e.m;
    out += Row({e.engine, s.designs[e.design].name, Cell(m, 0),
                m.error.empty() ? RequestKinds(m.counts) : "-", Cell(m, 2),
                m.error.empty() ? Cell(m, 3) : m.error,
                !m.error.empty()              ? ""
                : m.differs_from_floe.empty() ? "as floe's"
                                              : "differs (floe: " + m.differs_from_floe + ")"},
               "ssnnnns");
  }
  return out + "</table>\n";
}

std::string Compacted(const BenchResult& r, const std::vector<ChapterFigure>& chapter) {
  const auto& s = r.sheet;
  std::string out;
  for (size_t q = 0; q < s.questions.size() && q < r.compacted.size(); ++q) {
    const std::string key = s.questions[q].name + " (after compaction)";
    out += fmt::format("<h3>{}, after compaction</h3>\n<table>\n", H(s.questions[q].name));
    out += Head({"design", "files opened", "requests", "bytes", "median (min-max)", "chapter"},
                "snnnns");
    for (size_t d = 0; d < s.designs.size() && d < r.compacted[q].size(); ++d) {
      const Measurement& m = r.compacted[q][d];
      out += Row(
          {s.designs[d].name, Cell(m, 0), Cell(m, 1), Cell(m, 2),
           m.error.empty() ? Cell(m, 3) : m.error, ChapterText(chapter, key, s.designs[d].name)},
          "snnnns");
    }
    out += "</table>\n";
  }
  return out;
}

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Verdana, Helvetica, Arial, sans-serif; font-size: 14px;
       color: #222; margin: 24px auto; max-width: 1180px; padding: 0 16px; line-height: 1.4; }
h1 { font-size: 24px; } h2 { font-size: 20px; border-bottom: 2px solid #4e79a7; margin-top: 36px; }
h3 { font-size: 16px; margin-top: 28px; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; }
dl.facts dt { color: #555; } dl.facts dd { margin: 0; }
pre.sql { font-family: "DejaVu Sans Mono", monospace; font-size: 13px; background: #f5f5f5;
          padding: 8px 10px; white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 12px 0; overflow-x: auto; } figure svg { display: block; }
figcaption { color: #555; font-size: 12px; }
table { border-collapse: collapse; margin: 10px 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; vertical-align: top; text-align: left; }
th { background: #f0f3f7; } td.n, th.n { text-align: right; white-space: nowrap; }
p.recommendation { background: #eef4ea; padding: 8px 10px; border-left: 4px solid #59a14f; }
p.note { color: #555; font-size: 12px; }
)";

}  // namespace

std::string HtmlSection(const BenchResult& r, const std::vector<ChapterFigure>& chapter,
                        const ReportFacts& facts) {
  const auto& s = r.sheet;
  std::string out = fmt::format("<section>\n<h2>{}</h2>\n", H(s.name.empty() ? s.table : s.name));
  if (!s.description.empty()) out += fmt::format("<p>{}</p>\n", H(s.description));
  out += Facts(r, facts);
  out += Summary(r);
  out += Designs(r);
  out += Changes(r, chapter);
  for (size_t q = 0; q < s.questions.size() && q < r.results.size(); ++q)
    out += QuestionHtml(r, q, chapter);
  out += Compacted(r, chapter);
  if (!r.schedule.empty()) {
    out += "<h3>The schedule, not the mode</h3>\n" + Figure(ScheduleChart(r)) +
           fmt::format("<p>{}</p>\n", H(r.schedule));
  }
  out +=
      "<p class=\"note\">* fastest median; ~ its spread overlaps the fastest's: "
      "indistinguishable. Requests and bytes are those of a measured run, with the footer and "
      "metadata caches the warm-up filled; cold: the first run, both caches empty.</p>\n";
  return out + "</section>\n";
}

std::string HtmlPage(std::string_view title, std::string_view intro,
                     const std::vector<std::string>& sections) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>{0}</title>\n<style>{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n",
      H(title), kStyle);
  if (!intro.empty()) out += fmt::format("<p>{}</p>\n", H(intro));
  for (const auto& s : sections) out += s;
  return out + "</body>\n</html>\n";
}

std::string FormatHtml(const BenchResult& r, const std::vector<ChapterFigure>& chapter,
                       const ReportFacts& facts) {
  return HtmlPage(
      "floe bench: " + (r.sheet.name.empty() ? r.sheet.table : r.sheet.name),
      "Every design of the worksheet built and measured under the protocol: files opened, "
      "requests and bytes are exact counts; latency is measured last.",
      {HtmlSection(r, chapter, facts)});
}

}  // namespace floe::bench
