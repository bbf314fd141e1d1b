// The built-in worksheets: those of `floe demo` -- the chapter's events table (A vs B), its orders
// (copy-on-write against merge-on-read) and its 60-column customer dimension (unsorted, sorted per
// write, sort-rewritten to one file, sort-rewritten at a 2 MB target, and floe's own design), each
// with the chapter's figures to set beside floe's -- and `clustering` (Qbeast's write-path
// experiment on TPC-DS store_sales, with the read side), run as `floe bench clustering`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/bench/report.h"

namespace floe::bench {

struct BuiltinWorksheet {
  std::string name;  // "events", "dimension"
  std::string yaml;  // a worksheet, as `floe bench` reads it
  std::vector<ChapterFigure> chapter;
  bool in_demo = true;  // run by `floe demo`; every one runs as `floe bench NAME`
};

const std::vector<BuiltinWorksheet>& BuiltinWorksheets();
// The built-in worksheet of that name, or nullptr.
const BuiltinWorksheet* FindBuiltinWorksheet(std::string_view name);

}  // namespace floe::bench
