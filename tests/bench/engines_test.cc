// Other engines as arms of the bench runner (BenchOptions::engines): their runs interleave with
// floe's under the protocol, their counts and times are the ones they report, their answers are
// checked against floe's, and their verdicts are among their own designs. The engines here are
// fakes that record the order of calls; the real ones (Spark, DuckDB, pyiceberg behind the
// counting proxy) are tests/interop/bench_engines.py's.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "floe/bench/report.h"
#include "floe/bench/runner.h"
#include "support/temp_dir.h"

namespace floe {
namespace {

constexpr const char* kSheet = R"(name: two
table: b.ev
source: {generator: events, rows: 2000, seed: 1, writes: 1}
designs:
  - name: A
  - name: B
    sort_by: customer_id
questions:
  - name: q
    sql: SELECT count(*) FROM {table} WHERE customer_id = 7
    daily: 1
)";

struct Calls {
  std::vector<std::string> log;  // "engine:table" per call, in order
};

// An engine whose answer is `rows` rows with first cell `first`, that takes `ms` on design A and
// 10x that on B, and reports `gets` GETs per call.
bench::QuestionFnFactory Fake(const std::string& name, Calls* calls, int64_t rows,
                              std::string first, double ms, uint64_t gets) {
  return [=](const iceberg::Warehouse&) -> Result<bench::QuestionFn> {
    return bench::QuestionFn([=](const std::string& sql) -> Result<bench::QuestionOutcome> {
      const bool b = sql.find("_b ") != std::string::npos || sql.find("_b\n") != std::string::npos;
      calls->log.push_back(name + (b ? ":B" : ":A"));
      bench::QuestionOutcome out;
      out.rows = rows;
      out.first_value = first;
      out.data_files_opened = 1;
      if (name != "floe") {
        io::RequestCounts c;
        c.get = gets;
        c.head = 1;
        c.bytes_read = 100 * gets;
        out.counts = c;
        out.engine_ms = b ? ms * 10 : ms;
      }
      return out;
    });
  };
}

TEST(BenchEngines, ArmsInterleaveAndReportTheirOwnCounts) {
  testing::TempDir dir;
  auto sheet = bench::ParseWorksheet(kSheet, "two").value();
  Calls calls;
  bench::BenchOptions o;
  o.warehouse = dir.str();
  o.protocol.rounds = 2;
  o.protocol.warmup = 1;
  o.progress = false;
  o.engines.push_back({"x", Fake("x", &calls, 1, "12", 5, 3)});
  // "y" answers 12.0000000001 on every design: the same number; "z" answers 13: not floe's.
  o.engines.push_back({"y", Fake("y", &calls, 1, "12.0000000000001", 7, 4)});
  o.engines.push_back({"z", Fake("z", &calls, 1, "13", 9, 5)});
  auto r = bench::RunBench(sheet, o, Fake("floe", &calls, 1, "12", 0, 0));
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const std::string a = r->builds[0].table, b = r->builds[1].table;
  ASSERT_EQ(a.substr(a.size() - 2), "_a") << a;

  // Per design: floe's cold run then each engine's first run; then the protocol over the eight
  // arms (floe A, x A, y A, z A, floe B, ...): one warm-up each, then two interleaved rounds.
  std::vector<std::string> arms = {"floe:A", "x:A", "y:A", "z:A", "floe:B", "x:B", "y:B", "z:B"};
  std::vector<std::string> want = arms;                                           // first runs
  want.insert(want.end(), arms.begin(), arms.end());                              // warm-up
  for (int i = 0; i < 2; ++i) want.insert(want.end(), arms.begin(), arms.end());  // rounds
  EXPECT_EQ(calls.log, want);

  ASSERT_EQ(r->engines, (std::vector<std::string>{"x", "y", "z"}));
  ASSERT_EQ(r->engine_results.size(), 3u);
  for (size_t e = 0; e < 3; ++e) {
    ASSERT_EQ(r->engine_results[e].size(), 1u);     // one question
    ASSERT_EQ(r->engine_results[e][0].size(), 2u);  // two designs
    for (size_t d = 0; d < 2; ++d) {
      const bench::Measurement& m = r->engine_results[e][0][d];
      EXPECT_EQ(m.error, "");
      EXPECT_EQ(m.counts.get, 3 + e);
      EXPECT_EQ(m.counts.head, 1u);
      EXPECT_EQ(m.cold_counts.get, 3 + e);
      EXPECT_EQ(m.latency.n, 2);
      // The engine's own clock: 5, 7, 9 ms on A and ten times that on B.
      EXPECT_EQ(m.latency.median, (5.0 + 2 * e) * (d == 0 ? 1 : 10));
      EXPECT_EQ(m.verdict, d == 0 ? "best" : "");
      EXPECT_EQ(m.differs_from_floe, e == 2 ? "rows 1, first 12" : "");
    }
  }
  // floe's own measurements are where they always were.
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_EQ(r->results[0][0].latency.n, 2);

  const std::string tables = bench::FormatTables(*r);
  EXPECT_NE(tables.find("answer differs; floe's: rows 1, first 12"), std::string::npos) << tables;
  const std::string json = bench::FormatJson(*r);
  EXPECT_NE(json.find("\"engine\": \"z\""), std::string::npos);
  EXPECT_NE(json.find("\"differs_from_floe\": \"rows 1, first 12\""), std::string::npos);
  const std::string md = bench::FormatMarkdown(*r, "two-");
  EXPECT_NE(md.find("| y | A | 1 | 4/1/0 | 400 B |"), std::string::npos) << md;
}

TEST(BenchEngines, AnEngineThatFailsIsAnErrorOfItsOwnRowOnly) {
  testing::TempDir dir;
  auto sheet = bench::ParseWorksheet(kSheet, "two").value();
  Calls calls;
  bench::BenchOptions o;
  o.warehouse = dir.str();
  o.protocol.rounds = 1;
  o.protocol.warmup = 0;
  o.progress = false;
  o.engines.push_back({"broken", [](const iceberg::Warehouse&) -> Result<bench::QuestionFn> {
                         return bench::QuestionFn(
                             [](const std::string&) -> Result<bench::QuestionOutcome> {
                               return InvalidInput("no such function: date_trunc");
                             });
                       }});
  auto r = bench::RunBench(sheet, o, Fake("floe", &calls, 1, "12", 0, 0));
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->results[0][0].error, "");
  EXPECT_EQ(r->results[0][0].latency.n, 1);
  EXPECT_NE(r->engine_results[0][0][0].error.find("no such function: date_trunc"),
            std::string::npos);
}

// A design built by another engine: the runner hands its writer the source as one Parquet file per
// write (still there while it builds), once per such design, from one writer made once; a failed
// build is an error naming the design and the engine; an engine the run cannot start is one too.
TEST(BenchEngines, DesignsBuiltByAnotherEngineGoToItsWriter) {
  testing::TempDir dir;
  std::string yaml = kSheet;
  yaml.insert(yaml.find("questions:"),
              "  - name: C\n    built_by: spark\n  - name: D\n    built_by: spark\n");
  auto sheet = bench::ParseWorksheet(yaml, "two").value();
  Calls calls;
  int made = 0;
  std::vector<std::pair<std::string, size_t>> builds;
  bench::BenchOptions o;
  o.warehouse = dir.str();
  o.progress = false;
  o.writers["spark"] = [&]() -> Result<bench::EngineWriter> {
    ++made;
    bench::EngineWriter w;
    w.build = [&](const bench::Design& d, const std::string& table,
                  const std::vector<std::string>& writes) -> Result<std::vector<std::string>> {
      size_t present = 0;
      for (const auto& f : writes) present += std::filesystem::exists(f) ? 1 : 0;
      builds.emplace_back(d.name + " " + table, present);
      if (d.name == "D") return InvalidInput("CREATE TABLE failed: no such catalog");
      return InvalidInput("C is not built either");
    };
    return w;
  };
  auto r = bench::RunBench(sheet, o, Fake("floe", &calls, 1, "12", 0, 0));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(made, 1);
  ASSERT_EQ(builds.size(), 1u);  // C failed: the run stops there
  EXPECT_EQ(builds[0], (std::pair<std::string, size_t>{"C b.ev_c", 1}));
  EXPECT_NE(r.error().message.find("design 'C' (built by spark): C is not built either"),
            std::string::npos)
      << r.error().message;

  o.writers.clear();
  r = bench::RunBench(sheet, o, Fake("floe", &calls, 1, "12", 0, 0));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("design 'C' is built by spark, which this run cannot start"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace floe
