// The bench report as one HTML page that needs nothing beside it: inline CSS, the charts as inline
// SVG, no script, no font and no URL to fetch. The summary across designs (the cost model's day and
// month, and the recommendation) comes first, then the designs, the changes and compaction, each
// question (its SQL in full, its charts and its figures beside the chapter's) and the schedule.
// Every string from a worksheet or a result is escaped. Pure formatting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/bench/report.h"
#include "floe/bench/runner.h"

namespace floe::bench {

// One worksheet's report as a <section> (its name an <h2>), for a page of one or several.
std::string HtmlSection(const BenchResult& result, const std::vector<ChapterFigure>& chapter,
                        const ReportFacts& facts);

// A page around sections: `title` as its <h1>, `intro` (plain text) under it.
std::string HtmlPage(std::string_view title, std::string_view intro,
                     const std::vector<std::string>& sections);

// The page of one worksheet.
std::string FormatHtml(const BenchResult& result, const std::vector<ChapterFigure>& chapter,
                       const ReportFacts& facts);

}  // namespace floe::bench
