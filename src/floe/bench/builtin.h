// The built-in worksheets of `floe demo`: the chapter's events table (A vs B) and its 60-column
// customer dimension (unsorted, sorted per write, sort-rewritten to one file, sort-rewritten at a
// 2 MB target, and floe's own design), each with the chapter's figures to set beside floe's.
#pragma once

#include <string>
#include <vector>

#include "floe/bench/report.h"

namespace floe::bench {

struct BuiltinWorksheet {
  std::string name;  // "events", "dimension"
  std::string yaml;  // a worksheet, as `floe bench` reads it
  std::vector<ChapterFigure> chapter;
};

const std::vector<BuiltinWorksheet>& BuiltinWorksheets();

}  // namespace floe::bench
