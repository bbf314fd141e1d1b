// The HTML report and the report's charts on a hand-made result: one page that fetches nothing
// (no URL, no script), every design and question on it, the SQL in full, user strings escaped, the
// chapter's figures drawn beside floe's; and the question chart's SVG with the SQL wrapped in full
// and no two text boxes meeting. WriteReport writes the page beside the Markdown.
#include "floe/bench/html_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "floe/bench/report.h"
#include "floe/bench/report_charts.h"
#include "floe/bench/svg_chart.h"
#include "support/temp_dir.h"

namespace floe::bench {
namespace {

const std::string kLongName =
    "sorted by customer_id & event_ts <2 MB files> with \"bloom\" filters";
const std::string kSql =
    "SELECT customer_id, sum(amount) AS revenue, count(*) AS n FROM {table} WHERE event_ts >= "
    "TIMESTAMP '2024-01-05 00:00:00' AND event_ts < TIMESTAMP '2024-01-06 00:00:00' AND "
    "customer_id BETWEEN 100 AND 200 AND amount > 0 GROUP BY customer_id HAVING count(*) > 1 "
    "ORDER BY revenue DESC LIMIT 10";

Measurement M(int64_t files, uint64_t gets, uint64_t bytes, double ms) {
  Measurement m;
  m.data_files_opened = files;
  m.counts.get = gets;
  m.counts.bytes_read = bytes;
  m.cold_counts = m.counts;
  m.latency = {.median = ms, .min = ms * 0.9, .max = ms * 1.2, .n = 7};
  return m;
}

BenchResult Result3() {
  BenchResult r;
  r.sheet.name = "events";
  r.sheet.description = "a day's <events>";
  r.sheet.table = "bench.ev";
  r.sheet.source.generator = "events";
  for (const std::string& n : {std::string("A"), std::string("B"), kLongName}) {
    Design d;
    d.name = n;
    r.sheet.designs.push_back(d);
    DesignBuild b;
    b.data_files = 4;
    b.bytes = 9400000;
    b.rows = 1000;
    b.seconds = 1.5;
    b.write_seconds = {.median = 1.5, .min = 1.5, .max = 1.5, .n = 1};
    r.builds.push_back(b);
    MonthlyCost c;
    c.requests_per_day = 1000;
    c.bytes_per_day = 6e9;
    c.latency_ms_per_day = 12000;
    c.requests_usd = 0.012;
    c.storage_usd = 0.0002;
    r.costs.push_back(c);
  }
  r.sheet.questions = {{.name = "one day's revenue", .sql = kSql, .daily = 24},
                       {.name = "one customer's events",
                        .sql = "SELECT * FROM {table} WHERE customer_id = 123",
                        .daily = 2000}};
  r.results = {{M(4, 12, 6100000, 209), M(12, 12, 5990000, 208), M(4, 12, 6050000, 207)},
               {M(4, 16, 7700000, 154), M(4, 36, 1100000, 119), M(1, 3, 100, 50)}};
  r.results[1][2].error = "design failed: <bad>";
  r.best_design = 1;
  r.recommendation = "B: half the requests & bytes";
  r.simulated = true;
  return r;
}

std::vector<ChapterFigure> Chapter() {
  return {{"A",
           "one day's revenue",
           "12 req, 7.2 MB, 209 ms",
           {.requests = 12, .bytes = 7.2e6, .median_ms = 209}}};
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HtmlReport, OnePageThatFetchesNothing) {
  const std::string html = FormatHtml(
      Result3(), Chapter(),
      {.worksheet = "events.yaml", .date = "2026-12-06 01:50 UTC", .warmup = 2, .rounds = 7});
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  // The summary (4 panels in one svg), then one chart per question.
  EXPECT_EQ(Count(html, "<svg"), 3u);
  EXPECT_LT(html.find("Summary"), html.find("<h3>Designs</h3>"));
  EXPECT_LT(html.find("<h3>Designs</h3>"), html.find("<h3>one day&#39;s revenue</h3>"));
  // The run's facts.
  EXPECT_NE(html.find("<dt>worksheet</dt><dd>events.yaml</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dt>ran</dt><dd>2026-12-06 01:50 UTC</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dd>a local directory behind the simulated-S3 decorator</dd>"),
            std::string::npos);
  EXPECT_NE(html.find("<dd>2 warm-up runs then 7 interleaved rounds per design; latency as "
                      "median (min-max)</dd>"),
            std::string::npos);
  EXPECT_NE(html.find("<dd>version " FLOE_VERSION "</dd>"), std::string::npos);
  EXPECT_NE(html.find("<strong>Recommendation.</strong> B: half the requests &amp; bytes"),
            std::string::npos);
}

TEST(HtmlReport, EveryDesignAndQuestionEscapedTheSqlInFull) {
  const std::string html = FormatHtml(Result3(), Chapter(), {});
  const std::string name = XmlEscape(kLongName);
  EXPECT_EQ(name,
            "sorted by customer_id &amp; event_ts &lt;2 MB files&gt; with &quot;bloom&quot; "
            "filters");
  EXPECT_EQ(html.find(kLongName), std::string::npos);
  // In the designs table, the cost table and each question's table.
  EXPECT_GE(Count(html, "<td>" + name + "</td>"), 4u);
  EXPECT_NE(html.find("<td>B (recommended)</td>"), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"sql\">" + XmlEscape(kSql) + "</pre>"), std::string::npos);
  EXPECT_NE(html.find("<h3>one customer&#39;s events</h3>"), std::string::npos);
  EXPECT_NE(html.find("<p>a day&#39;s &lt;events&gt;</p>"), std::string::npos);
  EXPECT_NE(html.find(">design failed: &lt;bad&gt;</td>"), std::string::npos);
  // The chapter's figure in the table and drawn beside floe's bars.
  EXPECT_NE(html.find("<td>12 req, 7.2 MB, 209 ms</td>"), std::string::npos);
  EXPECT_NE(html.find(">chapter (Spark): 7.20 MB</text>"), std::string::npos);
  EXPECT_NE(html.find(">chapter (Spark): 209 ms</text>"), std::string::npos);
  EXPECT_NE(html.find(">chapter (Spark): 12</text>"), std::string::npos);
  // Near-equal values each with their own label.
  EXPECT_NE(html.find(">6.10 MB</text>"), std::string::npos);
  EXPECT_NE(html.find(">5.99 MB</text>"), std::string::npos);
  EXPECT_NE(html.find(">6.05 MB</text>"), std::string::npos);
  // The summary's small multiples, the recommended design's name in bold.
  for (const char* t :
       {">requests a day</text>", ">bytes fetched a day</text>", ">query seconds a day</text>",
        ">$ a month (requests + storage)</text>", " font-weight=\"bold\">B</text>",
        ">6.00 GB</text>", ">12.0 s</text>", ">$0.012</text>"}) {
    EXPECT_NE(html.find(t), std::string::npos) << t;
  }
}

TEST(HtmlReport, QuestionSvgShowsTheSqlWrappedInFullAndNoTextMeets) {
  const BenchResult r = Result3();
  const ChartLayout c = QuestionChart(r, 0, Chapter(), true);
  std::string sql;
  for (const auto& t : c.texts) {
    if (t.text.starts_with("SELECT") || !sql.empty()) {
      if (t.text.starts_with("dashed") || t.text == "data files opened") break;
      sql += (sql.empty() ? "" : " ") + t.text;
    }
  }
  EXPECT_EQ(sql, kSql);
  for (size_t i = 0; i < c.texts.size(); ++i) {
    for (size_t j = i + 1; j < c.texts.size(); ++j) {
      const PlacedText &a = c.texts[i], &b = c.texts[j];
      const bool apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y ||
                         b.y + b.height <= a.y;
      EXPECT_TRUE(apart) << "'" << a.text << "' overlaps '" << b.text << "'";
    }
    EXPECT_LE(c.texts[i].x + c.texts[i].width, c.width) << c.texts[i].text;
    EXPECT_LE(c.texts[i].y + c.texts[i].height, c.height) << c.texts[i].text;
  }
  const std::string svg = QuestionSvg(r, 0, Chapter());
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* t : {">data files opened</text>", ">requests</text>", ">bytes fetched</text>",
                        ">median latency, min-max</text>", ">A</text>", ">B</text>"}) {
    EXPECT_NE(svg.find(t), std::string::npos) << t;
  }
}

TEST(HtmlReport, WriteReportPutsThePageBesideTheMarkdown) {
  testing::TempDir dir;
  auto files = WriteReport(Result3(), dir.str() + "/out", "events", Chapter(),
                           {.date = "2026-12-06 01:50 UTC"});
  ASSERT_TRUE(files.has_value()) << files.error().ToString();
  EXPECT_EQ(files->markdown, dir.str() + "/out/events.md");
  EXPECT_EQ(files->html, dir.str() + "/out/events.html");
  for (const char* f : {"events.md", "events.html", "events-q1.svg", "events-q2.svg"})
    EXPECT_TRUE(std::filesystem::exists(dir.str() + "/out/" + f)) << f;
  std::ifstream in(files->html);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), FormatHtml(Result3(), Chapter(), {.date = "2026-12-06 01:50 UTC"}));
}

}  // namespace
}  // namespace floe::bench
