// Report: a BenchResult as the chapter's tables (design x question: files opened, requests, bytes,
// median (spread)), as JSON with every figure, and as a report folder (Markdown plus one SVG chart
// per question with the four numbers per design). Pure formatting; writing files is WriteReport's.
#pragma once

#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/bench/runner.h"

namespace floe::bench {

// Chapter figures to set beside floe's (design, question) -> text; optional.
struct ChapterFigure {
  std::string design;
  std::string question;
  std::string figure;  // e.g. "12 req, 7.2 MB, 209 ms"
};

// The plain-text tables and the recommendation, for the terminal.
std::string FormatTables(const BenchResult& result);
// Every figure as JSON (one object).
std::string FormatJson(const BenchResult& result);
// One SVG: four panels (files opened, requests, bytes, median latency with its min-max) with one
// bar per design, for question `q`.
std::string QuestionSvg(const BenchResult& result, size_t q);
// With changes: seconds a day against the compaction interval, one line per design (schedule.h).
std::string ScheduleSvg(const BenchResult& result);

// The Markdown report; charts referenced as `<prefix>q<N>.svg` (and `<prefix>schedule.svg`).
std::string FormatMarkdown(const BenchResult& result, const std::string& chart_prefix,
                           const std::vector<ChapterFigure>& chapter = {});

// Writes <dir>/<name>.md and <dir>/<name>-q<N>.svg; returns the Markdown path.
Result<std::string> WriteReport(const BenchResult& result, const std::string& dir,
                                const std::string& name,
                                const std::vector<ChapterFigure>& chapter = {});

}  // namespace floe::bench
