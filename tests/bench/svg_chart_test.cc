// The report's chart layout: axis ticks at round values, value labels and units, names cut with
// "…" and a tooltip, SQL wrapped in full, and no two estimated text boxes meeting or leaving the
// viewBox for long names and near-equal values (the rendered boxes are checked by
// tests/bench/report_render_test.py in Chromium).
#include "floe/bench/svg_chart.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace floe::bench {
namespace {

void ExpectTicks(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << "tick " << i;
}

TEST(SvgChart, AxisTicksAreRoundAndCoverTheMaximum) {
  ExpectTicks(AxisTicks(7.2), {0, 2, 4, 6, 8});
  ExpectTicks(AxisTicks(100), {0, 20, 40, 60, 80, 100});
  ExpectTicks(AxisTicks(6.1e6), {0, 2e6, 4e6, 6e6, 8e6});
  ExpectTicks(AxisTicks(0.9), {0, 0.2, 0.4, 0.6, 0.8, 1.0});
  ExpectTicks(AxisTicks(12), {0, 2.5, 5, 7.5, 10, 12.5});
  ExpectTicks(AxisTicks(209, 3), {0, 200, 400});
  // Counts step by whole numbers.
  ExpectTicks(AxisTicks(12, 6, true), {0, 5, 10, 15});
  ExpectTicks(AxisTicks(3, 6, true), {0, 1, 2, 3});
  ExpectTicks(AxisTicks(1, 6, true), {0, 1});
  ExpectTicks(AxisTicks(0), {0, 1});
  ExpectTicks(AxisTicks(-5), {0, 1});
}

TEST(SvgChart, TickLabelsShareOneUnitChosenByTheLargest) {
  EXPECT_EQ(FormatTicks({0, 2e6, 4e6, 6e6, 8e6}, ChartUnit::kBytes),
            (std::vector<std::string>{"0", "2 MB", "4 MB", "6 MB", "8 MB"}));
  EXPECT_EQ(FormatTicks({0, 250, 500, 750, 1000}, ChartUnit::kBytes),
            (std::vector<std::string>{"0", "0.25 KB", "0.50 KB", "0.75 KB", "1.00 KB"}));
  EXPECT_EQ(FormatTicks({0, 200, 400}, ChartUnit::kBytes),
            (std::vector<std::string>{"0", "200 B", "400 B"}));
  EXPECT_EQ(FormatTicks({0, 50, 100}, ChartUnit::kMillis),
            (std::vector<std::string>{"0", "50 ms", "100 ms"}));
  EXPECT_EQ(FormatTicks({0, 0.5, 1, 1.5}, ChartUnit::kSeconds),
            (std::vector<std::string>{"0", "0.5 s", "1.0 s", "1.5 s"}));
  EXPECT_EQ(FormatTicks({0, 0.005, 0.01}, ChartUnit::kDollars),
            (std::vector<std::string>{"0", "$0.005", "$0.010"}));
  EXPECT_EQ(FormatTicks({0, 20000, 40000}, ChartUnit::kCount),
            (std::vector<std::string>{"0", "20k", "40k"}));
}

TEST(SvgChart, ValuesCarryTheirUnits) {
  EXPECT_EQ(FormatChartValue(6.10e6, ChartUnit::kBytes), "6.10 MB");
  EXPECT_EQ(FormatChartValue(5.99e6, ChartUnit::kBytes), "5.99 MB");
  EXPECT_EQ(FormatChartValue(1234, ChartUnit::kBytes), "1.2 KB");
  EXPECT_EQ(FormatChartValue(512, ChartUnit::kBytes), "512 B");
  EXPECT_EQ(FormatChartValue(3, ChartUnit::kCount), "3");
  EXPECT_EQ(FormatChartValue(2.5, ChartUnit::kCount), "2.5");
  EXPECT_EQ(FormatChartValue(12345, ChartUnit::kCount), "12.3k");
  EXPECT_EQ(FormatChartValue(2.5e6, ChartUnit::kCount), "2.50M");
  EXPECT_EQ(FormatChartValue(209, ChartUnit::kMillis), "209 ms");
  EXPECT_EQ(FormatChartValue(82.04, ChartUnit::kMillis), "82.0 ms");
  EXPECT_EQ(FormatChartValue(0.412, ChartUnit::kMillis), "0.41 ms");
  EXPECT_EQ(FormatChartValue(1.4, ChartUnit::kSeconds), "1.40 s");
  EXPECT_EQ(FormatChartValue(0.0123, ChartUnit::kDollars), "$0.012");
  EXPECT_EQ(FormatChartValue(0.000123, ChartUnit::kDollars), "$0.00012");
  EXPECT_EQ(FormatChartValue(4.5, ChartUnit::kDollars), "$4.50");
  EXPECT_EQ(FormatChartValue(0, ChartUnit::kDollars), "$0");
}

TEST(SvgChart, TruncateCutsWithAnEllipsisOnCharacters) {
  EXPECT_EQ(Truncate("short", 10), "short");
  EXPECT_EQ(Truncate("sort-rewritten at a 106 KB target", 12), "sort-rewrit\u2026");
  EXPECT_EQ(Truncate("one two three", 5), "one\u2026");  // no space before the ellipsis
  EXPECT_EQ(Truncate("\u00e9\u00e9\u00e9\u00e9\u00e9", 3), "\u00e9\u00e9\u2026");
}

TEST(SvgChart, WrapTextBreaksAtSpacesAndSplitsLongWords) {
  EXPECT_EQ(WrapText("SELECT  a,\n b FROM t WHERE x = 1", 10),
            (std::vector<std::string>{"SELECT a,", "b FROM t", "WHERE x =", "1"}));
  EXPECT_EQ(WrapText("abcdefghij", 4), (std::vector<std::string>{"abcd", "efgh", "ij"}));
  EXPECT_EQ(WrapText("", 4), std::vector<std::string>{});
}

TEST(SvgChart, XmlEscapeEscapesMarkupAndQuotes) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(XmlEscape("x\x01y\x1b\tz\n\u00e9"), "xy\tz\n\u00e9");
}

TEST(SvgChart, TextWidthIsGenerous) {
  // DejaVu Sans advances (units per em 2048): M 1767, W 2025, i 569, digits 1303.
  EXPECT_GE(TextWidth("MW", 10), (1767 + 2025) / 2048.0 * 10);
  EXPECT_GE(TextWidth("0123456789", 12), 10 * 1303 / 2048.0 * 12);
  EXPECT_GT(TextWidth("ab", 12, true), TextWidth("ab", 12));
  EXPECT_DOUBLE_EQ(TextWidth("\u00e9", 10), 10);  // a non-ASCII character: a full em
}

// No two boxes intersect (touching edges allowed) and every one lies inside the chart.
void ExpectClean(const ChartLayout& c) {
  for (size_t i = 0; i < c.texts.size(); ++i) {
    const PlacedText& a = c.texts[i];
    EXPECT_GE(a.x, 0) << a.text;
    EXPECT_GE(a.y, 0) << a.text;
    EXPECT_LE(a.x + a.width, c.width) << a.text;
    EXPECT_LE(a.y + a.height, c.height) << a.text;
    for (size_t j = i + 1; j < c.texts.size(); ++j) {
      const PlacedText& b = c.texts[j];
      const bool apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y ||
                         b.y + b.height <= a.y;
      EXPECT_TRUE(apart) << "'" << a.text << "' overlaps '" << b.text << "'";
    }
  }
}

const PlacedText* Find(const ChartLayout& c, const std::string& text) {
  for (const auto& t : c.texts) {
    if (t.text == text) return &t;
  }
  return nullptr;
}

TEST(SvgChart, NearEqualValuesAndLongNamesDoNotCollide) {
  const std::string long_name =
      "sorted by customer_id then event_ts, rewritten to 128 MB files with bloom filters";
  BarChart chart{.title = "bytes fetched", .unit = ChartUnit::kBytes};
  chart.bars.push_back({.name = "A", .value = 6.10e6});
  chart.bars.push_back({.name = "B", .value = 5.99e6, .reference = 7.2e6});
  chart.bars.push_back({.name = long_name, .value = 6.05e6});
  chart.bars.push_back({.name = "broken", .error = true});
  const ChartLayout c = LayoutBarChart(chart);
  ExpectClean(c);
  const PlacedText* a = Find(c, "6.10 MB");
  const PlacedText* b = Find(c, "5.99 MB");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(Find(c, "chapter: 7.20 MB"), nullptr);
  ASSERT_NE(Find(c, "error"), nullptr);
  // Each value sits on its own bar's line, right of the names.
  const PlacedText* name_a = Find(c, "A");
  ASSERT_NE(name_a, nullptr);
  EXPECT_EQ(a->y, name_a->y);
  EXPECT_GT(a->x, name_a->x + name_a->width);
  EXPECT_GE(b->y, a->y + a->height);
  // The long name is cut to 32 characters; its whole text is the tooltip.
  const std::string cut = Truncate(long_name, 32);
  EXPECT_EQ(cut, "sorted by customer_id then even\u2026");
  ASSERT_NE(Find(c, cut), nullptr);
  EXPECT_NE(c.body.find("<title>" + long_name + "</title>"), std::string::npos);
  // The axis: ticks at 0, 2, 4, 6, 8 MB.
  for (const char* t : {"0", "2 MB", "4 MB", "6 MB", "8 MB"}) EXPECT_NE(Find(c, t), nullptr) << t;
}

TEST(SvgChart, ManyTicksThinOutOnANarrowAxis) {
  BarChart chart{.title = "t", .unit = ChartUnit::kBytes, .plot_width = 120};
  chart.bars.push_back({.name = "x", .value = 987654321});
  const ChartLayout c = LayoutBarChart(chart);
  ExpectClean(c);
  // Six or five ticks' labels would not fit 120 px; three do.
  std::vector<std::string> ticks;
  for (const auto& t : c.texts) {
    if (t.text == "0" || t.text.ends_with(" GB")) ticks.push_back(t.text);
  }
  EXPECT_EQ(ticks, (std::vector<std::string>{"0", "0.5 GB", "1.0 GB"}));
  ASSERT_NE(Find(c, "987.65 MB"), nullptr);
}

TEST(SvgChart, NamesAndValuesAreEscaped) {
  BarChart chart{.title = "<b>&", .unit = ChartUnit::kCount};
  chart.bars.push_back({.name = "a<script>", .value = 1});
  const ChartLayout c = LayoutBarChart(chart);
  EXPECT_EQ(c.body.find("<script>"), std::string::npos);
  EXPECT_NE(c.body.find("a&lt;script&gt;"), std::string::npos);
  EXPECT_NE(c.body.find("&lt;b&gt;&amp;"), std::string::npos);
}

TEST(SvgChart, LineChartLegendStaysInside) {
  LineChart chart{.title = "seconds a day",
                  .x_label = "compact every k changes",
                  .x_ticks = {1, 5, 10, 15, 20, 25, 30}};
  LineSeries a{.name = "merge-on-read: cheapest compacting every 7 changes, 12.3 s a day",
               .color = "#f28e2b",
               .marker = 6};
  for (int k = 1; k <= 30; ++k) a.points.push_back({k, 10 + 30.0 / k + k * 0.2});
  LineSeries b{.name = "copy-on-write: leaves no delete files, 14.0 s a day", .dashed = true};
  b.points = {{1, 14}};
  chart.series = {a, b};
  const ChartLayout c = LayoutLineChart(chart);
  ExpectClean(c);
  ASSERT_NE(Find(c, a.name), nullptr);
  ASSERT_NE(Find(c, b.name), nullptr);
  ASSERT_NE(Find(c, "compact every k changes"), nullptr);
  ASSERT_NE(Find(c, "30"), nullptr);
}

TEST(SvgChart, GridKeepsEveryPartInside) {
  BarChart chart{.title = "requests", .unit = ChartUnit::kCount};
  chart.bars.push_back({.name = "a fairly long design name", .value = 12});
  chart.bars.push_back({.name = "b", .value = 11});
  const ChartLayout one = LayoutBarChart(chart);
  const ChartLayout grid = Grid({one, one, one}, 2, 20);
  EXPECT_DOUBLE_EQ(grid.width, 2 * one.width + 20);
  EXPECT_DOUBLE_EQ(grid.height, 2 * one.height + 20);
  ExpectClean(grid);
  const ChartLayout text = LayoutText(WrapText(std::string(300, 'x'), 96), 12, false, true);
  EXPECT_EQ(text.texts.size(), 4u);
  ExpectClean(Stack({text, grid}));
}

TEST(SvgChart, OnlyAStandaloneDocumentNamesTheNamespace) {
  const ChartLayout c = LayoutText({"hi"}, 12);
  EXPECT_NE(SvgDocument(c, true).find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(SvgDocument(c, false).find("http"), std::string::npos);
  // "hi" at 12 px: 4 + (0.66 + 0.36) * 12 + 4, rounded up; two pads and a 1.35 line.
  EXPECT_NE(SvgDocument(c, false).find("viewBox=\"0 0 21 25\""), std::string::npos);
}

}  // namespace
}  // namespace floe::bench
