// Bar charts, line charts and text blocks as SVG, laid out from estimated text boxes.
#include "floe/bench/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace floe::bench {
namespace {

constexpr double kFont = 12;       // names, values, ticks
constexpr double kSmallFont = 11;  // the reference's labels
constexpr double kTitleFont = 13;  // a chart's title (bold)
constexpr double kPad = 4;         // around every chart
constexpr double kAscent = 0.95;   // a text box's top above its baseline, in ems
constexpr double kDescent = 0.3;   // its bottom below it
constexpr const char* kGrid = "#e3e3e3";
constexpr const char* kAxis = "#888";

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The UTF-8 characters of `s`, each as its bytes.
std::vector<std::string_view> Chars(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    while (j < s.size() && IsContinuation(static_cast<unsigned char>(s[j]))) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// A character's width in ems, at or above DejaVu Sans's advance for it.
double CharEm(std::string_view ch) {
  if (ch.size() > 1) return 1.0;
  const char c = ch[0];
  if (c == 'M' || c == 'W' || c == 'm' || c == 'w' || c == '@' || c == '%') return 1.0;
  if (c >= 'A' && c <= 'Z') return 0.8;
  if (std::strchr(" .,:;'|!ijl`", c) != nullptr) return 0.36;
  if (std::strchr("()[]{}frt-\"", c) != nullptr) return 0.45;
  return 0.66;
}

double Finite(double v) { return std::isfinite(v) ? v : 0; }

// An SVG text element (its content escaped) and the box it occupies.
struct Text {
  std::string svg;
  PlacedText box;
};

enum class Anchor { kStart, kMiddle, kEnd };

Text MakeText(std::string_view text, double x, double baseline, double size, Anchor anchor,
              std::string_view attrs = "", bool bold = false, bool mono = false) {
  const double w =
      mono ? 0.62 * size * static_cast<double>(Chars(text).size()) : TextWidth(text, size, bold);
  const double left = anchor == Anchor::kStart ? x : anchor == Anchor::kMiddle ? x - w / 2 : x - w;
  Text t;
  t.box = {std::string(text), left, baseline - kAscent * size, w, (kAscent + kDescent) * size};
  t.svg = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}{}{}{}>{}</text>\n", x, baseline,
                      size == kFont ? "" : fmt::format(" font-size=\"{:g}\"", size),
                      anchor == Anchor::kMiddle ? " text-anchor=\"middle\""
                      : anchor == Anchor::kEnd  ? " text-anchor=\"end\""
                                                : "",
                      bold ? " font-weight=\"bold\"" : "",
                      attrs.empty() ? "" : " " + std::string(attrs), XmlEscape(text));
  return t;
}

void Add(ChartLayout& c, Text t) {
  c.body += t.svg;
  c.texts.push_back(std::move(t.box));
}

// A text that may be cut: the full text as the tooltip of a group around the cut one.
void AddCut(ChartLayout& c, const std::string& full, Text t) {
  if (t.box.text == full) return Add(c, std::move(t));
  c.body += fmt::format("<g><title>{}</title>{}</g>\n", XmlEscape(full), t.svg);
  c.texts.push_back(std::move(t.box));
}

double Right(const ChartLayout& c) {
  double r = 0;
  for (const auto& t : c.texts) r = std::max(r, t.x + t.width);
  return r;
}

// Decimals enough to tell ticks `step` apart, in the unit divided by `scale`.
int Decimals(double step, double scale) {
  const double s = step / scale;
  for (int d = 0; d < 6; ++d) {
    const double m = s * std::pow(10.0, d);
    if (std::abs(m - std::round(m)) < 1e-6 * std::max(1.0, m)) return d;
  }
  return 6;
}

// Ticks whose labels fit between them along `length` pixels.
std::vector<double> FittingTicks(double max, double length, ChartUnit unit) {
  const bool integer = unit == ChartUnit::kCount;
  for (int n = 6; n > 2; --n) {
    std::vector<double> ticks = AxisTicks(max, n, integer);
    const auto labels = FormatTicks(ticks, unit);
    double widest = 0;
    for (const auto& l : labels) widest = std::max(widest, TextWidth(l, kFont));
    if (length / static_cast<double>(ticks.size() - 1) >= widest + 8) return ticks;
  }
  return AxisTicks(max, 2, integer);
}

}  // namespace

double TextWidth(std::string_view text, double font_size, bool bold) {
  double em = 0;
  for (std::string_view ch : Chars(text)) em += CharEm(ch);
  return em * font_size * (bold ? 1.12 : 1.0);
}

std::string Truncate(std::string_view text, size_t max_chars) {
  const auto chars = Chars(text);
  if (chars.size() <= max_chars) return std::string(text);
  std::string out;
  for (size_t i = 0; i + 1 < max_chars; ++i) out += chars[i];
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\u2026";
}

std::vector<std::string> WrapText(std::string_view text, size_t max_chars) {
  max_chars = std::max<size_t>(max_chars, 1);
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  std::vector<std::string> lines;
  std::string line;
  size_t line_chars = 0;
  for (const auto& w : words) {
    auto chars = Chars(w);
    if (line_chars > 0 && line_chars + 1 + chars.size() <= max_chars) {
      line += " " + w;
      line_chars += 1 + chars.size();
      continue;
    }
    if (line_chars > 0) lines.push_back(std::move(line));
    line.clear();
    line_chars = 0;
    // A word longer than a line goes over several.
    size_t i = 0;
    while (chars.size() - i > max_chars) {
      std::string piece;
      for (size_t k = i; k < i + max_chars; ++k) piece += chars[k];
      lines.push_back(std::move(piece));
      i += max_chars;
    }
    for (size_t k = i; k < chars.size(); ++k) line += chars[k];
    line_chars = chars.size() - i;
  }
  if (line_chars > 0) lines.push_back(std::move(line));
  return lines;
}

std::string XmlEscape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        // XML 1.0 admits no other control character: a page or SVG holding one does not parse.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r')
          o.push_back(ch);
    }
  }
  return o;
}

std::vector<double> AxisTicks(double max, int max_ticks, bool integer) {
  max = Finite(max);
  max_ticks = std::max(max_ticks, 2);
  if (max <= 0) return {0, 1};
  const double rough = max / (max_ticks - 1);
  double scale = std::pow(10.0, std::floor(std::log10(rough)) - 1);
  for (;; scale *= 10) {
    for (double m : {1.0, 2.0, 2.5, 5.0}) {
      const double step = m * scale;
      if (integer && (step < 1 || step != std::floor(step))) continue;
      const double n = std::ceil(max / step - 1e-9) + 1;
      if (n > max_ticks) continue;
      std::vector<double> ticks;
      ticks.reserve(static_cast<size_t>(n) + 1);
      for (int i = 0; i < static_cast<int>(n); ++i) ticks.push_back(i * step);
      if (ticks.size() < 2) ticks.push_back(step);
      return ticks;
    }
  }
}

std::string FormatChartValue(double v, ChartUnit unit) {
  v = Finite(v);
  const double a = std::abs(v);
  switch (unit) {
    case ChartUnit::kCount:
      if (a >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
      if (a >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
      if (a >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
      if (a >= 10 || std::abs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
      return fmt::format("{:.1f}", v);
    case ChartUnit::kBytes:
      if (a < 1e3) return fmt::format("{:.0f} B", v);
      if (a < 1e6) return fmt::format("{:.1f} KB", v / 1e3);
      if (a < 1e9) return fmt::format("{:.2f} MB", v / 1e6);
      return fmt::format("{:.2f} GB", v / 1e9);
    case ChartUnit::kMillis:
      if (a >= 100 || a == 0) return fmt::format("{:.0f} ms", v);
      if (a >= 10) return fmt::format("{:.1f} ms", v);
      return fmt::format("{:.2f} ms", v);
    case ChartUnit::kSeconds:
      if (a >= 100 || a == 0) return fmt::format("{:.0f} s", v);
      if (a >= 10) return fmt::format("{:.1f} s", v);
      return fmt::format("{:.2f} s", v);
    case ChartUnit::kDollars: {
      if (a >= 100) return fmt::format("${:.0f}", v);
      if (a >= 1) return fmt::format("${:.2f}", v);
      if (a == 0) return "$0";
      // Two significant digits, never in exponent notation.
      const int decimals = std::min(12, 1 - static_cast<int>(std::floor(std::log10(a))));
      return fmt::format("${:.{}f}", v, decimals);
    }
  }
  return fmt::format("{:g}", v);
}

std::vector<std::string> FormatTicks(const std::vector<double>& ticks, ChartUnit unit) {
  double top = 0;
  for (double t : ticks) top = std::max(top, std::abs(Finite(t)));
  const double step = ticks.size() > 1 ? std::abs(ticks[1] - ticks[0]) : std::max(top, 1.0);
  double scale = 1;
  std::string prefix, suffix;
  switch (unit) {
    case ChartUnit::kCount:
      if (top >= 1e9)
        scale = 1e9, suffix = "G";
      else if (top >= 1e6)
        scale = 1e6, suffix = "M";
      else if (top >= 1e4)
        scale = 1e3, suffix = "k";
      break;
    case ChartUnit::kBytes:
      if (top >= 1e9)
        scale = 1e9, suffix = " GB";
      else if (top >= 1e6)
        scale = 1e6, suffix = " MB";
      else if (top >= 1e3)
        scale = 1e3, suffix = " KB";
      else
        suffix = " B";
      break;
    case ChartUnit::kMillis:
      suffix = " ms";
      break;
    case ChartUnit::kSeconds:
      suffix = " s";
      break;
    case ChartUnit::kDollars:
      prefix = "$";
      break;
  }
  const int decimals = Decimals(step, scale);
  std::vector<std::string> out;
  for (double t : ticks) {
    if (t == 0) {
      out.emplace_back("0");
      continue;
    }
    out.push_back(fmt::format("{}{:.{}f}{}", prefix, Finite(t) / scale, decimals, suffix));
  }
  return out;
}

ChartLayout LayoutBarChart(const BarChart& chart) {
  ChartLayout c;
  Add(c, MakeText(chart.title, kPad, kPad + kAscent * kTitleFont, kTitleFont, Anchor::kStart, "",
                  true));
  bool with_reference = false;
  double max = 0;
  std::vector<std::string> names;
  double name_w = 0;
  for (const Bar& b : chart.bars) {
    names.push_back(Truncate(b.name, chart.max_name_chars));
    name_w = std::max(name_w, TextWidth(names.back(), kFont, b.emphasis));
    if (b.error) continue;
    max = std::max({max, Finite(b.value), Finite(b.high.value_or(0))});
    if (b.reference) {
      with_reference = true;
      max = std::max(max, Finite(*b.reference));
    }
  }
  const double plot_w = std::max(chart.plot_width, 60.0);
  const std::vector<double> ticks = FittingTicks(max, plot_w, chart.unit);
  const double axis_max = ticks.back() > 0 ? ticks.back() : 1;
  const double x0 = kPad + name_w + 8;
  auto x_of = [&](double v) {
    return x0 + std::clamp(Finite(v), 0.0, axis_max) / axis_max * plot_w;
  };
  const double top = kPad + (kAscent + kDescent) * kTitleFont + 8;
  const double row_h = with_reference ? 38 : 22;
  const double bars_bottom = top + row_h * static_cast<double>(chart.bars.size());
  // Grid lines behind the bars.
  for (double t : ticks) {
    c.body += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n",
        x_of(t), top - 2, bars_bottom + 2, t == 0 ? kAxis : kGrid);
  }
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const double y = top + row_h * static_cast<double>(i) + 3;
    const double bar_h = 14, mid = y + bar_h / 2, baseline = mid + 0.35 * kFont;
    AddCut(c, b.name, MakeText(names[i], x0 - 8, baseline, kFont, Anchor::kEnd, "", b.emphasis));
    if (b.error) {
      Add(c, MakeText("error", x0 + 4, baseline, kFont, Anchor::kStart, "fill=\"#b00\""));
      continue;
    }
    const double end = x_of(b.value);
    c.body += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", x0, y,
        std::max(end - x0, b.value > 0 ? 1.0 : 0.0), bar_h, XmlEscape(b.color));
    double label_x = end;
    if (b.low && b.high && *b.high > *b.low) {
      const double lo = x_of(*b.low), hi = x_of(*b.high);
      c.body += fmt::format(
          "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}M{0:.1f} {3:.1f}H{4:.1f}M{4:.1f} {1:.1f}V{2:.1f}\" "
          "stroke=\"#222\" fill=\"none\"/>\n",
          lo, mid - 4, mid + 4, mid, hi);
      label_x = std::max(label_x, hi);
    }
    Add(c, MakeText(FormatChartValue(b.value, chart.unit), label_x + 5, baseline, kFont,
                    Anchor::kStart));
    if (b.reference) {
      const double ry = y + bar_h + 4, rh = 11, rend = x_of(*b.reference);
      c.body += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
          "stroke=\"{}\" stroke-dasharray=\"3 2\"/>\n",
          x0 + 0.5, ry + 0.5, std::max(rend - x0 - 1, 1.0), rh - 1, XmlEscape(b.color));
      Add(c, MakeText(chart.reference_label + ": " + FormatChartValue(*b.reference, chart.unit),
                      rend + 5, ry + rh / 2 + 0.35 * kSmallFont, kSmallFont, Anchor::kStart,
                      "fill=\"#555\""));
    }
  }
  // The axis and its ticks.
  const double axis_y = bars_bottom + 4;
  c.body +=
      fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n",
                  x0, axis_y, x0 + plot_w, axis_y, kAxis);
  const auto labels = FormatTicks(ticks, chart.unit);
  for (size_t i = 0; i < ticks.size(); ++i) {
    const double x = x_of(ticks[i]);
    c.body += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n", x,
        axis_y, axis_y + 4, kAxis);
    Add(c, MakeText(labels[i], x, axis_y + 5 + kAscent * kFont, kFont, Anchor::kMiddle,
                    "fill=\"#444\""));
  }
  c.width = std::ceil(std::max(Right(c), x0 + plot_w) + kPad);
  c.height = std::ceil(axis_y + 5 + (kAscent + kDescent) * kFont + kPad);
  return c;
}

ChartLayout LayoutLineChart(const LineChart& chart) {
  ChartLayout c;
  Add(c, MakeText(chart.title, kPad, kPad + kAscent * kTitleFont, kTitleFont, Anchor::kStart, "",
                  true));
  double ymax = 0;
  for (const auto& s : chart.series)
    for (const auto& [x, y] : s.points) ymax = std::max(ymax, Finite(y));
  const std::vector<double> yticks = AxisTicks(ymax, 6);
  const auto ylabels = FormatTicks(yticks, chart.y_unit);
  double ylabel_w = 0;
  for (const auto& l : ylabels) ylabel_w = std::max(ylabel_w, TextWidth(l, kFont));
  const double x0 = kPad + ylabel_w + 8;
  const double top = kPad + (kAscent + kDescent) * kTitleFont + 12;
  const double bottom = top + chart.plot_height, pw = chart.plot_width;
  const double xmin = chart.x_ticks.empty() ? 0 : chart.x_ticks.front();
  const double xmax = chart.x_ticks.size() < 2 ? xmin + 1 : chart.x_ticks.back();
  const double ytop = yticks.back() > 0 ? yticks.back() : 1;
  auto x_of = [&](double x) { return x0 + (Finite(x) - xmin) / (xmax - xmin) * pw; };
  auto y_of = [&](double y) {
    return bottom - std::clamp(Finite(y), 0.0, ytop) / ytop * chart.plot_height;
  };
  for (size_t i = 0; i < yticks.size(); ++i) {
    const double y = y_of(yticks[i]);
    c.body += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n", x0, y,
        x0 + pw, y, i == 0 ? kAxis : kGrid);
    Add(c, MakeText(ylabels[i], x0 - 6, y + 0.35 * kFont, kFont, Anchor::kEnd, "fill=\"#444\""));
  }
  c.body += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n", x0,
      top, bottom, kAxis);
  for (double t : chart.x_ticks) {
    const double x = x_of(t);
    c.body += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n", x,
        bottom, bottom + 4, kAxis);
    Add(c, MakeText(fmt::format("{:g}", t), x, bottom + 5 + kAscent * kFont, kFont, Anchor::kMiddle,
                    "fill=\"#444\""));
  }
  const double xlabel_y = bottom + 5 + (kAscent + kDescent) * kFont + 4 + kAscent * kFont;
  Add(c, MakeText(chart.x_label, x0 + pw / 2, xlabel_y, kFont, Anchor::kMiddle));
  for (const auto& s : chart.series) {
    if (s.points.empty()) continue;
    const std::string dash = s.dashed ? " stroke-dasharray=\"6 4\"" : "";
    if (s.points.size() == 1) {
      const double y = y_of(s.points[0].second);
      c.body += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"2\"{}/>\n",
          x0, y, x0 + pw, y, XmlEscape(s.color), dash);
    } else {
      std::string pts;
      for (const auto& [x, y] : s.points) pts += fmt::format("{:.1f},{:.1f} ", x_of(x), y_of(y));
      c.body += fmt::format(
          "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", pts,
          XmlEscape(s.color), dash);
    }
    if (s.marker && *s.marker < s.points.size()) {
      const auto& [x, y] = s.points[*s.marker];
      c.body += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"white\"/>\n",
          s.points.size() == 1 ? x0 + pw : x_of(x), y_of(y), XmlEscape(s.color));
    }
  }
  // The legend under the axis label, one series a line: never beside the lines it names.
  double ly = xlabel_y + kDescent * kFont + 10;
  for (const auto& s : chart.series) {
    c.body += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"2\"{}/>\n",
        x0, ly + 7, x0 + 24, ly + 7, XmlEscape(s.color),
        s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    Add(c, MakeText(s.name, x0 + 30, ly + 7 + 0.35 * kFont, kFont, Anchor::kStart));
    ly += 19;
  }
  c.width = std::ceil(std::max(Right(c), x0 + pw + 20) + kPad);
  c.height = std::ceil(ly + kPad);
  return c;
}

ChartLayout LayoutText(const std::vector<std::string>& lines, double size, bool bold, bool mono,
                       const std::string& color) {
  ChartLayout c;
  const double lh = size * 1.35;
  const std::string attrs = fmt::format("fill=\"{}\"{}", XmlEscape(color),
                                        mono ? " font-family=\"DejaVu Sans Mono,monospace\"" : "");
  for (size_t i = 0; i < lines.size(); ++i) {
    Add(c, MakeText(lines[i], kPad, kPad + lh * static_cast<double>(i) + kAscent * size, size,
                    Anchor::kStart, attrs, bold, mono));
  }
  c.width = std::ceil(Right(c) + kPad);
  c.height = std::ceil(kPad * 2 + lh * static_cast<double>(lines.size()));
  return c;
}

namespace {

void Place(ChartLayout& into, const ChartLayout& part, double dx, double dy) {
  into.body += fmt::format("<g transform=\"translate({:g},{:g})\">\n{}</g>\n", dx, dy, part.body);
  for (PlacedText t : part.texts) {
    t.x += dx;
    t.y += dy;
    into.texts.push_back(std::move(t));
  }
}

}  // namespace

ChartLayout Stack(const std::vector<ChartLayout>& parts, double gap) { return Grid(parts, 1, gap); }

ChartLayout Grid(const std::vector<ChartLayout>& parts, size_t columns, double gap) {
  ChartLayout c;
  columns = std::max<size_t>(columns, 1);
  std::vector<double> col_w(columns, 0);
  for (size_t i = 0; i < parts.size(); ++i)
    col_w[i % columns] = std::max(col_w[i % columns], parts[i].width);
  double y = 0;
  for (size_t row = 0; row * columns < parts.size(); ++row) {
    double x = 0, row_h = 0;
    for (size_t k = 0; k < columns && row * columns + k < parts.size(); ++k) {
      const ChartLayout& p = parts[row * columns + k];
      Place(c, p, x, y);
      row_h = std::max(row_h, p.height);
      x += col_w[k] + gap;
    }
    c.width = std::max(c.width, x - gap);
    y += row_h + gap;
  }
  c.height = parts.empty() ? 0 : y - gap;
  return c;
}

ChartLayout Pad(const ChartLayout& chart, double margin) {
  ChartLayout c;
  Place(c, chart, margin, margin);
  c.width = chart.width + 2 * margin;
  c.height = chart.height + 2 * margin;
  return c;
}

std::string SvgDocument(const ChartLayout& chart, bool standalone) {
  return fmt::format(
      "<svg{} width=\"{:g}\" height=\"{:g}\" viewBox=\"0 0 {:g} {:g}\" "
      "font-family=\"DejaVu Sans,Verdana,Helvetica,Arial,sans-serif\" font-size=\"{:g}\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
      standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", chart.width, chart.height,
      chart.width, chart.height, kFont, chart.body);
}

}  // namespace floe::bench
