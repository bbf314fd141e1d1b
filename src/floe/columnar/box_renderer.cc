#include "floe/columnar/box_renderer.h"

#include <algorithm>

#include <fmt/format.h>

namespace floe::columnar {
namespace {

bool Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Bytes of the code point that starts at `s[i]` (1 for a byte that does not start one).
size_t CodePointLength(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k) {
    if (!Continuation(static_cast<unsigned char>(s[i + k]))) return 1;
  }
  return n;
}

// The code point of the `n` bytes at `s[i]` (a byte that starts none: itself).
char32_t Decode(std::string_view s, size_t i, size_t n) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (n == 1) return c;
  char32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

// Terminal cells of a code point: 0 for combining marks and zero-width characters, 2 for East
// Asian wide and full-width characters and emoji, 1 for the rest (Unicode's East Asian Width,
// in the main ranges).
size_t Cells(char32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
      (cp >= 0x20D0 && cp <= 0x20FF)) {
    return 0;
  }
  const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
                    (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                    (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
                    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                    (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                    (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
  return wide ? 2 : 1;
}

std::string Repeat(std::string_view piece, size_t n) {
  std::string s;
  s.reserve(piece.size() * n);
  for (size_t i = 0; i < n; ++i) s += piece;
  return s;
}

// `text` (at most `width` cells) padded to `width`: left, right or centred.
enum class Align { kLeft, kRight, kCenter };
std::string Pad(const std::string& text, size_t width, Align align) {
  const size_t used = DisplayWidth(text);
  const size_t room = used >= width ? 0 : width - used;
  size_t left = align == Align::kRight ? room : align == Align::kCenter ? room / 2 : 0;
  return std::string(left, ' ') + text + std::string(room - left, ' ');
}

}  // namespace

size_t DisplayWidth(std::string_view utf8) {
  size_t cells = 0;
  for (size_t i = 0; i < utf8.size();) {
    const size_t n = CodePointLength(utf8, i);
    cells += Cells(Decode(utf8, i, n));
    i += n;
  }
  return cells;
}

std::string FitToWidth(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  std::string out;
  size_t cells = 0;  // of `out`; "…" takes the last one
  for (size_t i = 0; i < text.size();) {
    const size_t n = CodePointLength(text, i);
    const size_t w = Cells(Decode(text, i, n));
    if (cells + w + 1 > width) break;
    out.append(text.substr(i, n));
    cells += w;
    i += n;
  }
  return out + "…";
}

std::string OneLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7F) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderBox(const std::vector<BoxColumn>& columns, const BoxRows& rows,
                      size_t max_width) {
  const size_t n = columns.size();
  auto one_line = [](const std::vector<std::vector<std::string>>& in) {
    std::vector<std::vector<std::string>> out;
    out.reserve(in.size());
    for (const auto& row : in) {
      std::vector<std::string> cells;
      cells.reserve(row.size());
      for (const auto& cell : row) cells.push_back(OneLine(cell));
      out.push_back(std::move(cells));
    }
    return out;
  };
  const auto head = one_line(rows.head);
  const auto tail = one_line(rows.tail);
  const bool has_types =
      std::ranges::any_of(columns, [](const auto& c) { return !c.type.empty(); });

  std::vector<size_t> natural(n);
  for (size_t i = 0; i < n; ++i) {
    natural[i] = std::max(DisplayWidth(OneLine(columns[i].name)), DisplayWidth(columns[i].type));
    for (const auto* part : {&head, &tail}) {
      for (const auto& row : *part) {
        if (i < row.size()) natural[i] = std::max(natural[i], DisplayWidth(row[i]));
      }
    }
    natural[i] = std::max<size_t>(natural[i], 1);
  }

  // Which columns show, and the widest any may be (`cap`), so that the box fits `max_width`.
  std::vector<size_t> shown(n);
  for (size_t i = 0; i < n; ++i) shown[i] = i;
  bool gap = false;
  size_t left_count = n;  // shown columns before the gap
  size_t cap = n == 0 ? 1 : *std::ranges::max_element(natural);
  auto total = [&](const std::vector<size_t>& idx, size_t c, bool with_gap) {
    size_t t = 1 + (with_gap ? 4 : 0);
    for (size_t i : idx) t += std::min(natural[i], c) + 3;
    return t;
  };
  if (max_width > 0 && n > 0 && total(shown, cap, false) > max_width) {
    if (n > 1 && total(shown, kBoxMinColumnWidth, false) > max_width) {
      // Leave columns out from the middle: the first half and the last half of k columns.
      gap = true;
      size_t k = n - 1;
      for (; k > 1; --k) {
        std::vector<size_t> pick;
        for (size_t i = 0; i < (k + 1) / 2; ++i) pick.push_back(i);
        for (size_t i = n - k / 2; i < n; ++i) pick.push_back(i);
        if (total(pick, kBoxMinColumnWidth, true) <= max_width) break;
      }
      shown.clear();
      left_count = (k + 1) / 2;
      for (size_t i = 0; i < left_count; ++i) shown.push_back(i);
      for (size_t i = n - k / 2; i < n; ++i) shown.push_back(i);
    }
    // The largest cap that fits, at least the narrowest a column is cut to (or what is left).
    size_t lo = std::min(kBoxMinColumnWidth, max_width > 8 ? max_width - 8 : size_t{1});
    size_t hi = cap;
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      if (total(shown, mid, gap) <= max_width) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    cap = lo;
  }
  std::vector<size_t> width;
  width.reserve(shown.size());
  for (size_t i : shown) width.push_back(std::min(natural[i], cap));

  // One line of the box: `cell(k)` the text of the k-th shown column, padded; the gap's cell
  // after the columns of the left half.
  auto line = [&](std::string_view left, std::string_view mid, std::string_view right,
                  const auto& cell, const std::string& gap_cell) {
    std::vector<std::string> parts;
    for (size_t k = 0; k < shown.size(); ++k) {
      if (gap && k == left_count) parts.push_back(gap_cell);
      parts.push_back(cell(k));
    }
    if (gap && left_count == shown.size()) parts.push_back(gap_cell);
    std::string s(left);
    for (size_t k = 0; k < parts.size(); ++k) {
      if (k) s += mid;
      s += parts[k];
    }
    return s + std::string(right) + "\n";
  };
  auto rule = [&](std::string_view left, std::string_view mid, std::string_view right) {
    return line(
        left, mid, right, [&](size_t k) { return Repeat("─", width[k] + 2); }, Repeat("─", 3));
  };
  auto text_line = [&](const auto& text_of, Align align_of_text, bool numbers_right) {
    return line(
        "│", "│", "│",
        [&](size_t k) {
          const size_t i = shown[k];
          const Align a = numbers_right && columns[i].right_aligned ? Align::kRight : align_of_text;
          return " " + Pad(FitToWidth(text_of(i), width[k]), width[k], a) + " ";
        },
        " … ");
  };

  std::string out;
  if (n > 0) {
    out += rule("┌", "┬", "┐");
    out += text_line([&](size_t i) { return OneLine(columns[i].name); }, Align::kCenter, false);
    if (has_types) {
      out += text_line([&](size_t i) { return columns[i].type; }, Align::kCenter, false);
    }
    out += rule("├", "┼", "┤");
    auto body = [&](const std::vector<std::string>& row) {
      out += text_line([&](size_t i) { return i < row.size() ? row[i] : std::string(); },
                       Align::kLeft, true);
    };
    for (const auto& row : head) body(row);
    const int64_t printed = static_cast<int64_t>(head.size() + tail.size());
    if (printed < rows.total) {
      for (int dots = 0; dots < 3; ++dots) {
        out += text_line([](size_t) { return std::string("·"); }, Align::kCenter, false);
      }
    }
    for (const auto& row : tail) body(row);
    out += rule("└", "┴", "┘");
  }
  const int64_t printed = static_cast<int64_t>(head.size() + tail.size());
  out += fmt::format("{} row{}", rows.total, rows.total == 1 ? "" : "s");
  if (printed < rows.total) out += fmt::format(" ({} shown)", printed);
  if (shown.size() < n) out += fmt::format(", {} columns ({} shown)", n, shown.size());
  return out + "\n";
}

}  // namespace floe::columnar
