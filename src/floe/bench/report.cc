// Tables, JSON, Markdown and SVG charts of a bench result.
#include "floe/bench/report.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/bench/html_report.h"
#include "floe/bench/report_charts.h"
#include "floe/bench/report_internal.h"
#include "floe/bench/schedule.h"
#include "floe/bench/stats_json.h"
#include "floe/bench/svg_chart.h"

namespace floe::bench {
namespace {

// "2026-12-06 01:50 UTC".
std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

nlohmann::json SpreadJson(const Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"runs", s.n}};
}

// A measurement's figures (or its error) as the JSON report gives them.
nlohmann::json MeasurementJson(const Measurement& m) {
  using nlohmann::json;
  if (!m.error.empty()) return {{"error", m.error}};
  json j = {{"data_files_opened", m.data_files_opened},
            {"requests", json::parse(m.counts.ToJson())},
            {"requests_total", m.counts.total()},
            {"bytes_fetched", m.counts.bytes_read},
            {"cold",
             {{"requests", json::parse(m.cold_counts.ToJson())},
              {"requests_total", m.cold_counts.total()},
              {"bytes_fetched", m.cold_counts.bytes_read}}},
            {"rows", m.rows},
            {"first_value", m.first_value},
            {"latency_ms", SpreadJson(m.latency)},
            {"verdict", m.verdict}};
  if (!m.differs_from_floe.empty()) j["differs_from_floe"] = m.differs_from_floe;
  // floe's own: the last measured run's stats, the object `floe query --stats` prints.
  if (m.scan) j["stats"] = json::parse(StatsJson(*m.scan, m.counts, m.last_ms));
  return j;
}

}  // namespace

namespace report_internal {

std::string Cell(const Measurement& m, int what) {
  if (!m.error.empty()) return what == 0 ? "error" : "-";
  switch (what) {
    case 0:
      return std::to_string(m.data_files_opened);
    case 1:
      return std::to_string(m.counts.total());
    case 2:
      return FormatBytes(static_cast<double>(m.counts.bytes_read));
    case 4:
      return fmt::format("{}, {}", m.cold_counts.total(),
                         FormatBytes(static_cast<double>(m.cold_counts.bytes_read)));
    default: {
      std::string s = FormatSpread(m.latency);
      if (m.verdict == "best") s += " *";
      if (m.verdict == "~best") s += " ~";
      return s;
    }
  }
}

std::vector<EngineRow> EngineRows(const BenchResult& r, size_t q) {
  std::vector<EngineRow> rows;
  for (size_t d = 0; d < r.sheet.designs.size(); ++d) {
    if (q < r.results.size()) rows.push_back({"floe", d, &r.results[q][d]});
    for (size_t e = 0; e < r.engines.size() && e < r.engine_results.size(); ++e) {
      if (q < r.engine_results[e].size())
        rows.push_back({r.engines[e], d, &r.engine_results[e][q][d]});
    }
  }
  return rows;
}

std::string RequestKinds(const io::RequestCounts& c) {
  return fmt::format("{}/{}/{}", c.get, c.head, c.total() - c.get - c.head);
}

}  // namespace report_internal

using report_internal::Cell;
using report_internal::EngineRow;
using report_internal::EngineRows;
using report_internal::RequestKinds;

std::string FormatTables(const BenchResult& r) {
  const auto& s = r.sheet;
  std::string out;
  out += fmt::format("\n== {}{}\n", s.name.empty() ? s.table : s.name,
                     s.description.empty() ? "" : " -- " + s.description);
  out += fmt::format("{:<28} {:>6} {:>10} {:>10}  {}\n", "design", "files", "bytes", "build",
                     "layout");
  for (size_t d = 0; d < s.designs.size() && d < r.builds.size(); ++d) {
    const auto& b = r.builds[d];
    std::string layout = s.designs[d].description;
    for (const auto& n : b.notes) layout += (layout.empty() ? "" : "; ") + n;
    if (b.write_seconds.n > 1) {
      layout = fmt::format("[{} builds: {:.1f}-{:.1f}s] {}", b.write_seconds.n, b.write_seconds.min,
                           b.write_seconds.max, layout);
    }
    out += fmt::format("{:<28} {:>6} {:>10} {:>9.1f}s  {}\n", s.designs[d].name, b.data_files,
                       FormatBytes(static_cast<double>(b.bytes)), b.seconds, layout);
  }
  for (size_t q = 0; q < s.questions.size() && q < r.results.size(); ++q) {
    out += fmt::format("\n-- {} ({}/day)\n   {}\n", s.questions[q].name, s.questions[q].daily,
                       s.questions[q].sql);
    out += fmt::format("{:<28} {:>12} {:>9} {:>10}  {:<22} {:>18}\n", "design", "files opened",
                       "requests", "bytes", "median (min-max)", "cold: req, bytes");
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const auto& m = r.results[q][d];
      out +=
          fmt::format("{:<28} {:>12} {:>9} {:>10}  {:<22} {:>18}\n", s.designs[d].name, Cell(m, 0),
                      Cell(m, 1), Cell(m, 2), Cell(m, 3), m.error.empty() ? Cell(m, 4) : "");
      if (!m.error.empty()) out += fmt::format("{:<28} {}\n", "", m.error);
    }
    if (r.engines.empty()) continue;
    out += fmt::format(
        "   on each engine (requests through the proxy; floe's with the caches its warm-up filled, "
        "the others keep none between questions; * ~ among one engine's designs)\n");
    out += fmt::format("   {:<10} {:<24} {:>6} {:>14} {:>10}  {:<22}\n", "engine", "design",
                       "files", "GET/HEAD/other", "bytes", "median (min-max)");
    for (const EngineRow& e : EngineRows(r, q)) {
      const Measurement& m = *e.m;
      if (!m.error.empty()) {
        out += fmt::format("   {:<10} {:<24} {}\n", e.engine, s.designs[e.design].name, m.error);
        continue;
      }
      out += fmt::format(
          "   {:<10} {:<24} {:>6} {:>14} {:>10}  {:<22}{}\n", e.engine, s.designs[e.design].name,
          m.data_files_opened, RequestKinds(m.counts),
          FormatBytes(static_cast<double>(m.counts.bytes_read)), Cell(m, 3),
          m.differs_from_floe.empty() ? "" : "  answer differs; floe's: " + m.differs_from_floe);
    }
  }
  out +=
      "\n(* fastest median; ~ its spread overlaps the fastest's: indistinguishable. Requests and "
      "bytes are those of a measured run, with the footer and metadata caches the warm-up filled; "
      "cold: the first run, both caches empty)\n";
  if (!r.costs.empty()) {
    out += fmt::format("\n{:<28} {:>14} {:>12} {:>14} {:>12}\n", "design", "requests/day",
                       "bytes/day", "query s/day", "$/month");
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const auto& c = r.costs[d];
      out += fmt::format("{:<28} {:>14.0f} {:>12} {:>14.1f} {:>12.4f}{}\n", s.designs[d].name,
                         c.requests_per_day, FormatBytes(c.bytes_per_day),
                         c.latency_ms_per_day / 1000, c.total_usd(),
                         static_cast<int>(d) == r.best_design ? "  <- recommended" : "");
    }
  }
  out += "\nrecommendation: " + r.recommendation + "\n";
  if (s.changes && r.changes.size() == s.designs.size()) {
    out += fmt::format("\n-- changes: {} rounds of {:g}% (after a warm-up round)\n   {}\n",
                       s.changes->rounds, s.changes->fraction * 100, s.changes->sql);
    out += fmt::format("{:<28} {:<22} {:>9} {:>22} {:>26}\n", "design", "median (min-max)",
                       "requests", "then: data/delete files", "after compaction: ms, files");
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const ChangesOutcome& c = r.changes[d];
      if (!c.error.empty()) {
        out += fmt::format("{:<28} {}\n", s.designs[d].name, c.error);
        continue;
      }
      out += fmt::format(
          "{:<28} {:<22} {:>9} {:>22} {:>26}\n", s.designs[d].name, FormatSpread(c.latency),
          c.counted ? std::to_string(c.counts.total()) : std::string("-"),
          fmt::format("{} / {} ({} positions)", c.after_changes.data_files,
                      c.after_changes.delete_files, c.after_changes.deleted_positions),
          fmt::format("{:.0f} ms, {} / {}", c.compaction_ms, c.after_compaction.data_files,
                      c.after_compaction.delete_files));
    }
    for (size_t q = 0; q < s.questions.size() && q < r.compacted.size(); ++q) {
      out += fmt::format("\n-- {}, after compaction\n", s.questions[q].name);
      for (size_t d = 0; d < s.designs.size(); ++d) {
        const auto& m = r.compacted[q][d];
        out += fmt::format("{:<28} {:>12} {:>9} {:>10}  {:<22}\n", s.designs[d].name, Cell(m, 0),
                           Cell(m, 1), Cell(m, 2), Cell(m, 3));
      }
    }
    out += "\nschedule: " + r.schedule + "\n";
  }
  return out;
}

std::string FormatJson(const BenchResult& r) {
  using nlohmann::json;
  const auto& s = r.sheet;
  json designs = json::array();
  for (size_t d = 0; d < s.designs.size(); ++d) {
    json j = {{"name", s.designs[d].name},
              {"description", s.designs[d].description},
              {"partition_by", s.designs[d].partition_by},
              {"sort_by", s.designs[d].sort_by}};
    if (d < r.builds.size()) {
      const auto& b = r.builds[d];
      j["table"] = b.table;
      j["data_files"] = b.data_files;
      j["bytes"] = b.bytes;
      j["rows"] = b.rows;
      j["build_seconds"] = b.seconds;
      j["build_seconds_min"] = b.write_seconds.min;
      j["build_seconds_max"] = b.write_seconds.max;
      j["notes"] = b.notes;
    }
    if (d < r.costs.size()) {
      const auto& c = r.costs[d];
      j["per_day"] = {{"requests", c.requests_per_day},
                      {"bytes", c.bytes_per_day},
                      {"query_ms", c.latency_ms_per_day}};
      j["monthly_usd"] = {
          {"requests", c.requests_usd}, {"storage", c.storage_usd}, {"total", c.total_usd()}};
    }
    designs.push_back(j);
  }
  json questions = json::array();
  for (size_t q = 0; q < s.questions.size() && q < r.results.size(); ++q) {
    json per = json::array();
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const auto& m = r.results[q][d];
      json j = MeasurementJson(m);
      j["design"] = s.designs[d].name;
      per.push_back(j);
    }
    questions.push_back({{"name", s.questions[q].name},
                         {"sql", s.questions[q].sql},
                         {"daily", s.questions[q].daily},
                         {"results", per}});
  }
  json changes = json::array();
  for (size_t d = 0; d < r.changes.size() && d < s.designs.size(); ++d) {
    const ChangesOutcome& c = r.changes[d];
    auto state = [](const TableState& t) {
      return json{{"data_files", t.data_files},
                  {"delete_files", t.delete_files},
                  {"deleted_positions", t.deleted_positions},
                  {"bytes", t.bytes}};
    };
    json j = {{"design", s.designs[d].name}};
    if (!c.error.empty()) {
      j["error"] = c.error;
    } else {
      j["latency_ms"] = SpreadJson(c.latency);
      j["requests"] = json::parse(c.counts.ToJson());
      j["after_changes"] = state(c.after_changes);
      j["compaction"] = {{"ms", c.compaction_ms},
                         {"requests", json::parse(c.compaction_counts.ToJson())},
                         {"notes", c.compaction_notes}};
      j["after_compaction"] = state(c.after_compaction);
    }
    changes.push_back(j);
  }
  json compacted = json::array();
  for (size_t q = 0; q < s.questions.size() && q < r.compacted.size(); ++q) {
    json per = json::array();
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const auto& m = r.compacted[q][d];
      json j = {{"design", s.designs[d].name}};
      if (!m.error.empty()) {
        j["error"] = m.error;
      } else {
        j["data_files_opened"] = m.data_files_opened;
        j["requests_total"] = m.counts.total();
        j["bytes_fetched"] = m.counts.bytes_read;
        j["latency_ms"] = SpreadJson(m.latency);
      }
      per.push_back(j);
    }
    compacted.push_back({{"name", s.questions[q].name}, {"results", per}});
  }
  json engines = json::array();
  for (size_t q = 0; q < s.questions.size() && !r.engines.empty(); ++q) {
    for (const EngineRow& e : EngineRows(r, q)) {
      const Measurement& m = *e.m;
      json j = MeasurementJson(m);
      j["question"] = s.questions[q].name;
      j["engine"] = e.engine;
      j["design"] = s.designs[e.design].name;
      engines.push_back(j);
    }
  }
  json doc = {{"worksheet", s.name},
              {"table", s.table},
              {"simulated_s3", r.simulated},
              {"designs", designs},
              {"questions", questions},
              {"recommended", r.best_design >= 0 ? json(s.designs[r.best_design].name) : json()},
              {"recommendation", r.recommendation}};
  if (!s.source.table.empty()) {
    doc["source"] = {{"table", s.source.table},
                     {"snapshot_id", s.source.snapshot_id ? json(*s.source.snapshot_id) : json()}};
  }
  if (!r.engines.empty()) doc["engines"] = engines;
  if (s.changes) {
    doc["changes"] = changes;
    doc["questions_after_compaction"] = compacted;
    doc["schedule"] = r.schedule;
  }
  return doc.dump(2);
}

std::string FormatMarkdown(const BenchResult& r, const std::string& prefix,
                           const std::vector<ChapterFigure>& chapter) {
  const auto& s = r.sheet;
  std::string md = fmt::format("## {}\n\n", s.name.empty() ? s.table : s.name);
  if (!s.description.empty()) md += s.description + "\n\n";
  if (!s.source.table.empty()) {
    md += fmt::format("Source: table `{}`{}.\n\n", s.source.table,
                      s.source.snapshot_id ? fmt::format(" at snapshot {}", *s.source.snapshot_id)
                                           : std::string());
  }
  md += fmt::format("Store: local directory{}. Latency: {} protocol (pre-warmed, interleaved).\n\n",
                    r.simulated ? " behind the simulated-S3 decorator" : " (no simulation)",
                    "median (min-max) of the");
  md += "| design | layout | data files | size | write time |\n|---|---|---:|---:|---:|\n";
  for (size_t d = 0; d < s.designs.size() && d < r.builds.size(); ++d) {
    std::string layout = s.designs[d].description;
    for (const auto& n : r.builds[d].notes) layout += (layout.empty() ? "" : "; ") + n;
    const Spread& w = r.builds[d].write_seconds;
    md += fmt::format("| {} | {} | {} | {} | {:.2f} s{} |\n", s.designs[d].name, layout,
                      r.builds[d].data_files, FormatBytes(static_cast<double>(r.builds[d].bytes)),
                      w.median, w.n > 1 ? fmt::format(" ({:.2f}-{:.2f})", w.min, w.max) : "");
  }
  if (s.build_rounds > 1) md += fmt::format("\n![write time by design]({}write.svg)\n", prefix);
  auto chapter_figure = [&](const std::string& key, const std::string& design) {
    for (const auto& c : chapter) {
      if (c.question == key && c.design == design) return c.figure;
    }
    return std::string();
  };
  if (s.changes && r.changes.size() == s.designs.size()) {
    md += fmt::format(
        "\n### Changes: {} rounds of {:g}% after a warm-up round, designs interleaved\n\n`{}`\n\n",
        s.changes->rounds, s.changes->fraction * 100, s.changes->sql);
    md +=
        "| design | change: median (min-max) | requests | bytes written | then: data files | "
        "delete files | deleted positions | chapter |\n|---|---|---:|---:|---:|---:|---:|---|\n";
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const ChangesOutcome& c = r.changes[d];
      if (!c.error.empty()) {
        md += fmt::format("| {} | {} | | | | | | |\n", s.designs[d].name, XmlEscape(c.error));
        continue;
      }
      md += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} |\n", s.designs[d].name, FormatSpread(c.latency),
          c.counted ? std::to_string(c.counts.total()) : std::string("-"),
          c.counted ? FormatBytes(static_cast<double>(c.counts.bytes_written)) : std::string("-"),
          c.after_changes.data_files, c.after_changes.delete_files,
          c.after_changes.deleted_positions, chapter_figure("(changes)", s.designs[d].name));
    }
    md +=
        "\nCompaction after the rounds (its steps timed together), and the table it leaves:\n\n"
        "| design | steps | time | requests | then: data files | delete files |\n"
        "|---|---|---:|---:|---:|---:|\n";
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const ChangesOutcome& c = r.changes[d];
      if (!c.error.empty()) continue;
      std::string steps;
      for (const auto& n : c.compaction_notes) steps += (steps.empty() ? "" : "; ") + n;
      md += fmt::format(
          "| {} | {} | {:.0f} ms | {} | {} | {} |\n", s.designs[d].name, steps, c.compaction_ms,
          c.compaction_counted ? std::to_string(c.compaction_counts.total()) : std::string("-"),
          c.after_compaction.data_files, c.after_compaction.delete_files);
    }
  }
  for (size_t q = 0; q < s.questions.size() && q < r.results.size(); ++q) {
    if (s.changes) md += "\n_After the changes:_\n";
    md += fmt::format("\n### {} ({}/day)\n\n`{}`\n\n![{}]({}q{}.svg)\n\n", s.questions[q].name,
                      s.questions[q].daily, s.questions[q].sql, s.questions[q].name, prefix, q + 1);
    bool with_chapter = false;
    for (const auto& c : chapter) with_chapter |= c.question == s.questions[q].name;
    md += "| design | files opened | requests | bytes | median (min-max) | cold: requests, bytes |";
    md += with_chapter ? " chapter |\n|---|---:|---:|---:|---|---:|---|\n"
                       : "\n|---|---:|---:|---:|---|---:|\n";
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const auto& m = r.results[q][d];
      md += fmt::format("| {} | {} | {} | {} | {} | {} |", s.designs[d].name, Cell(m, 0),
                        Cell(m, 1), Cell(m, 2), m.error.empty() ? Cell(m, 3) : XmlEscape(m.error),
                        m.error.empty() ? Cell(m, 4) : "");
      if (with_chapter) {
        std::string fig = "";
        for (const auto& c : chapter)
          if (c.question == s.questions[q].name && c.design == s.designs[d].name) fig = c.figure;
        md += fmt::format(" {} |", fig);
      }
      md += "\n";
    }
    if (r.engines.empty()) continue;
    md +=
        "\nOn each engine, the same tables (requests and bytes counted by the proxy; floe's with "
        "the footer and metadata caches its warm-up filled, the other engines keep none between "
        "questions; * fastest, ~ indistinguishable, among one engine's designs):\n\n"
        "| engine | design | files opened | GET/HEAD/other | bytes | median (min-max) | answer |\n"
        "|---|---|---:|---:|---:|---|---|\n";
    for (const EngineRow& e : EngineRows(r, q)) {
      const Measurement& m = *e.m;
      md += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} |\n", e.engine, s.designs[e.design].name, Cell(m, 0),
          m.error.empty() ? RequestKinds(m.counts) : "-", Cell(m, 2),
          m.error.empty() ? Cell(m, 3) : XmlEscape(m.error),
          !m.error.empty()              ? ""
          : m.differs_from_floe.empty() ? "as floe's"
                                        : "differs (floe: " + XmlEscape(m.differs_from_floe) + ")");
    }
  }
  for (size_t q = 0; q < s.questions.size() && q < r.compacted.size(); ++q) {
    md += fmt::format("\n### {}, after compaction\n\n", s.questions[q].name);
    md +=
        "| design | files opened | requests | bytes | median (min-max) | chapter |\n"
        "|---|---:|---:|---:|---|---|\n";
    for (size_t d = 0; d < s.designs.size(); ++d) {
      const auto& m = r.compacted[q][d];
      md += fmt::format(
          "| {} | {} | {} | {} | {} | {} |\n", s.designs[d].name, Cell(m, 0), Cell(m, 1),
          Cell(m, 2), m.error.empty() ? Cell(m, 3) : XmlEscape(m.error),
          chapter_figure(s.questions[q].name + " (after compaction)", s.designs[d].name));
    }
  }
  if (!r.schedule.empty()) {
    md += fmt::format("\n### The schedule, not the mode\n\n![schedule]({}schedule.svg)\n\n{}\n",
                      prefix, r.schedule);
  }
  md += "\n| design | requests/day | bytes/day | query s/day | $/month (requests + storage) |\n";
  md += "|---|---:|---:|---:|---:|\n";
  for (size_t d = 0; d < s.designs.size() && d < r.costs.size(); ++d) {
    const auto& c = r.costs[d];
    md += fmt::format("| {}{} | {:.0f} | {} | {:.1f} | {:.4f} |\n", s.designs[d].name,
                      static_cast<int>(d) == r.best_design ? " (recommended)" : "",
                      c.requests_per_day, FormatBytes(c.bytes_per_day), c.latency_ms_per_day / 1000,
                      c.total_usd());
  }
  md += "\n**Recommendation.** " + r.recommendation + "\n";
  return md;
}

Result<ReportFiles> WriteReport(const BenchResult& r, const std::string& dir,
                                const std::string& name, const std::vector<ChapterFigure>& chapter,
                                ReportFacts facts) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IOError("cannot create report folder '{}': {}", dir, ec.message());
  auto write = [&](const std::string& path, const std::string& text) -> Status {
    std::ofstream out(path);
    out << text;
    if (!out) return IOError("cannot write '{}'", path);
    return {};
  };
  for (size_t q = 0; q < r.sheet.questions.size() && q < r.results.size(); ++q) {
    FLOE_RETURN_IF_ERROR(
        write(fmt::format("{}/{}-q{}.svg", dir, name, q + 1), QuestionSvg(r, q, chapter)));
  }
  if (!r.schedule.empty()) {
    FLOE_RETURN_IF_ERROR(write(fmt::format("{}/{}-schedule.svg", dir, name), ScheduleSvg(r)));
  }
  if (r.sheet.build_rounds > 1) {
    FLOE_RETURN_IF_ERROR(write(fmt::format("{}/{}-write.svg", dir, name), WriteTimeSvg(r)));
  }
  ReportFiles files{fmt::format("{}/{}.md", dir, name), fmt::format("{}/{}.html", dir, name)};
  FLOE_RETURN_IF_ERROR(write(files.markdown, FormatMarkdown(r, name + "-", chapter)));
  if (facts.date.empty()) facts.date = UtcNow();
  FLOE_RETURN_IF_ERROR(write(files.html, FormatHtml(r, chapter, facts)));
  return files;
}

}  // namespace floe::bench
