// Report: a BenchResult as the chapter's tables (design x question: files opened, requests, bytes,
// median (spread)), as JSON with every figure, and as a report folder (Markdown plus one SVG chart
// per question with the four numbers per design, and one self-contained HTML page with the same
// figures and charts). Pure formatting; writing files is WriteReport's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/bench/runner.h"

namespace floe::bench {

// A chapter figure's numbers, those it gives, for the charts to draw beside floe's.
struct ChapterNumbers {
  std::optional<double> files_opened, requests, bytes, median_ms;
};

// Chapter figures to set beside floe's (design, question) -> text; optional.
struct ChapterFigure {
  std::string design;
  std::string question;
  std::string figure;  // e.g. "12 req, 7.2 MB, 209 ms"
  ChapterNumbers numbers;
};

// The plain-text tables and the recommendation, for the terminal.
std::string FormatTables(const BenchResult& result);
// Every figure as JSON (one object).
std::string FormatJson(const BenchResult& result);

// The Markdown report; charts referenced as `<prefix>q<N>.svg` (and `<prefix>schedule.svg`).
std::string FormatMarkdown(const BenchResult& result, const std::string& chart_prefix,
                           const std::vector<ChapterFigure>& chapter = {});

// What the HTML report says about the run beyond the result itself.
struct ReportFacts {
  std::string worksheet;  // the worksheet's file, or the built-in worksheet's name
  std::string date;       // when it ran (UTC); empty: WriteReport's clock
  int warmup = -1;        // the protocol's runs; -1: not given
  int rounds = -1;
  std::string store;  // where the tables were measured; empty: from BenchResult::simulated
};

struct ReportFiles {
  std::string markdown;
  std::string html;
};

// Writes <dir>/<name>.md, <dir>/<name>.html and the SVG charts the Markdown shows
// (<name>-q<N>.svg, <name>-write.svg, <name>-schedule.svg).
Result<ReportFiles> WriteReport(const BenchResult& result, const std::string& dir,
                                const std::string& name,
                                const std::vector<ChapterFigure>& chapter = {},
                                ReportFacts facts = {});

}  // namespace floe::bench
