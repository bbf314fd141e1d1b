// Charts for the bench report as SVG text: horizontal bar charts (a name beside every bar, its
// value at the bar's end, min-max whiskers, a reference figure such as the chapter's as a hollow
// bar), line charts with a legend, and blocks of wrapped text, composed into grids. There are no
// font metrics: every text's box is estimated from its characters at a generous width (DejaVu
// Sans, the widest common sans-serif), and the layout guarantees that no two estimated boxes meet
// and that each lies inside the viewBox; a name longer than its column is cut with "…" and keeps
// its full text in a <title>. Pure functions over plain data; the placed texts are returned too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::bench {

enum class ChartUnit { kCount, kBytes, kMillis, kSeconds, kDollars };

// Estimated width in pixels of `text` at `font_size` (UTF-8; a non-ASCII character counts as a
// full em), never narrower than DejaVu Sans draws it.
double TextWidth(std::string_view text, double font_size, bool bold = false);

// `text` cut to at most `max_chars` characters, the last of them "…" when it was cut.
std::string Truncate(std::string_view text, size_t max_chars);

// `text` (whitespace runs collapsed) broken into lines of at most `max_chars`, at spaces when
// a line has one, else mid-word.
std::vector<std::string> WrapText(std::string_view text, size_t max_chars);

// Text for SVG or HTML: & < > " ' as entities; control characters other than tab and line breaks
// (which XML forbids) dropped.
std::string XmlEscape(std::string_view text);

// Axis ticks from 0 to the first tick at or above `max`, in steps of 1, 2, 2.5 or 5 times a
// power of ten, at most `max_ticks` of them (at least 2); `integer`: whole steps only (counts).
// max <= 0 gives {0, 1}.
std::vector<double> AxisTicks(double max, int max_ticks = 6, bool integer = false);

// A value as a bar's label: "12", "12.3k", "6.10 MB", "82 ms", "1.4 s", "$0.0123".
std::string FormatChartValue(double value, ChartUnit unit);
// The tick labels of an axis, all in one unit chosen by the largest ("0", "2 MB", "4 MB").
std::vector<std::string> FormatTicks(const std::vector<double>& ticks, ChartUnit unit);

// A text the layout placed: its box (x, y of the top-left corner) in the chart's coordinates.
struct PlacedText {
  std::string text;
  double x = 0, y = 0, width = 0, height = 0;
};

// A laid-out chart: `body` is SVG content in a width x height box at the origin.
struct ChartLayout {
  double width = 0, height = 0;
  std::string body;
  std::vector<PlacedText> texts;
};

struct Bar {
  std::string name;                 // drawn left of the bar
  double value = 0;                 // the bar's length
  std::optional<double> low, high;  // a whisker from low to high
  std::optional<double> reference;  // drawn as a hollow bar under this one
  std::string color = "#4e79a7";
  bool error = false;     // no figure: "error" instead of the bar
  bool emphasis = false;  // the name in bold (the recommended design)
};

struct BarChart {
  std::string title;
  ChartUnit unit = ChartUnit::kCount;
  std::vector<Bar> bars;
  std::string reference_label = "chapter";  // the hollow bar's value is labelled "<label>: v"
  double plot_width = 240;                  // the axis's length in pixels
  size_t max_name_chars = 32;               // longer names are cut with "…"
};

ChartLayout LayoutBarChart(const BarChart& chart);

struct LineSeries {
  std::string name;  // the legend's text
  std::string color = "#4e79a7";
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
  bool dashed = false;
  std::optional<size_t> marker;  // the index of a point drawn as a dot
};

struct LineChart {
  std::string title;
  std::string x_label;
  ChartUnit y_unit = ChartUnit::kSeconds;
  std::vector<double> x_ticks;  // the x axis spans their first to their last
  std::vector<LineSeries> series;
  double plot_width = 520, plot_height = 240;
};

ChartLayout LayoutLineChart(const LineChart& chart);

// Lines of text, one under the other; `monospace` for code.
ChartLayout LayoutText(const std::vector<std::string>& lines, double font_size, bool bold = false,
                       bool monospace = false, const std::string& color = "#222");

// Charts one under the other, or in rows of `columns` (each row as tall as its tallest).
ChartLayout Stack(const std::vector<ChartLayout>& parts, double gap = 12);
ChartLayout Grid(const std::vector<ChartLayout>& parts, size_t columns, double gap = 24);
// A margin around a chart.
ChartLayout Pad(const ChartLayout& chart, double margin);

// The chart as an <svg> element with its viewBox; `standalone` adds the XML namespace a .svg file
// needs (HTML's inline SVG needs none).
std::string SvgDocument(const ChartLayout& chart, bool standalone);

}  // namespace floe::bench
