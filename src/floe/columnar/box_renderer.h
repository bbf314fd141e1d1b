// The box a result prints as on a terminal, after DuckDB's: column names and types in a header,
// numbers right-aligned, a row limit (the first and the last rows, the middle marked by a column of
// dots), and a width limit met by narrowing the widest columns first (cells cut with "…") and then,
// when every column is at its narrowest, by leaving out columns from the middle (one "…" column in
// their place). A footer line gives the rows and, when some were left out, the columns shown.
// Cells are one line each: a newline, tab or other control character shows as its escape ("\n").
// Widths are terminal cells: East Asian wide characters and emoji take two, combining marks none
// (Unicode's East Asian Width in its main ranges, not the whole table). Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floe::columnar {

struct BoxColumn {
  std::string name;
  std::string type;  // shown under the name; empty: no type line
  bool right_aligned = false;
};

struct BoxRows {
  std::vector<std::vector<std::string>> head;  // the first rows, in order
  std::vector<std::vector<std::string>> tail;  // the last rows, in order, after a gap if any
  int64_t total = 0;                           // rows in the answer
};

// Columns are never cut below this many cells (unless the whole width is narrower).
inline constexpr size_t kBoxMinColumnWidth = 8;

// The box, ending in a newline; `max_width` 0 means no limit.
std::string RenderBox(const std::vector<BoxColumn>& columns, const BoxRows& rows, size_t max_width);

// Terminal cells `utf8` takes (a byte that is not UTF-8 counts one).
size_t DisplayWidth(std::string_view utf8);

// `text` cut to at most `width` cells, its last cell "…" when cut (a wide character that would
// straddle the cut is left out).
std::string FitToWidth(std::string_view text, size_t width);

// `text` on one line: "\n", "\r", "\t" and other control bytes written as escapes ("\x1b").
std::string OneLine(std::string_view text);

}  // namespace floe::columnar
