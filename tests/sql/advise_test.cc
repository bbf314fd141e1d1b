// floe advise: filter counting from a query log (parsed by the SQL parser) and the worksheet it
// derives (which must parse).
#include "floe/sql/query_log.h"

#include <gtest/gtest.h>

#include "floe/bench/worksheet.h"

namespace floe::sql {
namespace {

using bench::AdviseWorksheet;
using bench::ColumnUse;
using bench::ParseWorksheet;
using bench::QueryLogAnalysis;

constexpr const char* kLog = R"(
-- dashboard
SELECT sum(amount) FROM shop.events WHERE event_ts >= '2024-01-05' AND event_ts < '2024-01-06';
SELECT sum(amount) FROM shop.events WHERE event_ts >= '2024-01-05' AND event_ts < '2024-01-06';
SELECT * FROM shop.events WHERE customer_id = 42;
SELECT * FROM shop.events WHERE customer_id = 42;
SELECT * FROM shop.events WHERE customer_id IN (1, 2, 3);
SELECT count(*) FROM shop.events e WHERE date(e.event_ts) BETWEEN '2024-01-01' AND '2024-01-03'
  AND e.event_type = 'refund' GROUP BY 1;
/* not ours */ SELECT * FROM other.t WHERE x = 1;
SELECT 'a;b' FROM shop.events
)";

const ColumnUse* Find(const QueryLogAnalysis& a, const std::string& c) {
  for (const auto& u : a.columns)
    if (u.column == c) return &u;
  return nullptr;
}

TEST(Advise, CountsFiltersByKind) {
  auto a = AnalyzeQueryLog(kLog, "shop.events");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->statements, 7);  // other.t left out; the quoted ';' does not split
  const ColumnUse* ts = Find(*a, "event_ts");
  ASSERT_NE(ts, nullptr);
  EXPECT_EQ(ts->range, 5);  // 2 x 2 comparisons + 1 BETWEEN
  EXPECT_TRUE(ts->temporal);
  const ColumnUse* cust = Find(*a, "customer_id");
  ASSERT_NE(cust, nullptr);
  EXPECT_EQ(cust->equality, 2);
  EXPECT_EQ(cust->in_list, 1);
  EXPECT_FALSE(cust->temporal);
  const ColumnUse* type = Find(*a, "event_type");
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(type->equality, 1);
  EXPECT_EQ(a->columns.front().column, "event_ts");  // most used first
  // Identical statements fold together with a count.
  EXPECT_EQ(a->queries.front().count, 2);
}

TEST(Advise, WorksheetPartitionsByTimeAndSortsByTheNextFilter) {
  auto a = AnalyzeQueryLog(kLog, "shop.events");
  ASSERT_TRUE(a.has_value());
  std::string yaml = AdviseWorksheet(*a, "shop.events");
  EXPECT_NE(yaml.find("partition_by: day(event_ts)"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("sort_by: customer_id"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("FROM {table} WHERE customer_id = 42"), std::string::npos) << yaml;
  auto w = ParseWorksheet(yaml, "advised");
  ASSERT_TRUE(w.has_value()) << w.error().ToString() << "\n" << yaml;
  EXPECT_EQ(w->designs.size(), 4u);
  EXPECT_EQ(w->table, "shop.events");
  double total = 0;
  for (const auto& q : w->questions) total += q.daily;
  EXPECT_EQ(total, 7);
}

TEST(Advise, EmptyLogIsAnError) {
  auto a = AnalyzeQueryLog("  ;\n-- nothing\n", "shop.events");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("no statement"), std::string::npos);
}

TEST(Advise, NoFiltersGivesOnlyTheBaseline) {
  auto a = AnalyzeQueryLog("SELECT count(*) FROM s.t;", "s.t");
  ASSERT_TRUE(a.has_value());
  auto w = ParseWorksheet(AdviseWorksheet(*a, "s.t"));
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->designs.size(), 1u);
}

// The parser reads the condition, not the text: a literal that looks like a filter counts for
// nothing, a constant on the left is still a filter of its column, DATE '...' makes it temporal,
// a statement the parser rejects is skipped, and a table named only in a string is not read.
TEST(Advise, CountsTheParsedConditionNotTheText) {
  auto a = AnalyzeQueryLog(
      "SELECT 'where fake = 1' FROM s.t WHERE 42 = id AND note = 'a = b';\n"
      "SELECT * FROM s.t WHERE DATE '2024-01-01' <= day_key;\n"
      "SELEKT nonsense FROM s.t WHERE id = 1;\n"
      "SELECT * FROM s.other WHERE id = 7 AND label = 's.t'",
      "s.t");
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  EXPECT_EQ(a->statements, 2);
  EXPECT_EQ(Find(*a, "fake"), nullptr);
  ASSERT_NE(Find(*a, "id"), nullptr);
  EXPECT_EQ(Find(*a, "id")->equality, 1);
  ASSERT_NE(Find(*a, "note"), nullptr);
  EXPECT_EQ(Find(*a, "note")->equality, 1);
  const ColumnUse* day = Find(*a, "day_key");
  ASSERT_NE(day, nullptr);
  EXPECT_EQ(day->range, 1);
  EXPECT_TRUE(day->temporal);
  EXPECT_TRUE(a->queries[0].point);
  EXPECT_FALSE(a->queries[1].point);
}

// Statements that differ only in their literals are one question, asked as often as they were
// logged together: a lookup of another id, a range of other days, an IN list of another length.
TEST(Advise, SameShapeStatementsMergeWithTheirCount) {
  auto a = AnalyzeQueryLog(
      "SELECT * FROM s.t WHERE id = 7;\n"
      "SELECT * FROM s.t WHERE id = 9;\n"
      "SELECT * FROM s.t WHERE id IN (1, 2, 3);\n"
      "SELECT * FROM s.t WHERE id IN (4);\n"
      "SELECT * FROM s.t WHERE name = 'it''s';\n"
      "SELECT * FROM s.t WHERE name = 'b';\n"
      "SELECT * FROM s.t WHERE id = 7 AND name = 'b';\n"
      "SELECT * FROM s.t2 WHERE id = 7;\n",
      "s.t");
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  EXPECT_EQ(a->statements, 7);
  std::vector<std::pair<std::string, int>> got;
  for (const auto& q : a->queries) got.emplace_back(q.sql, q.count);
  const std::vector<std::pair<std::string, int>> want = {
      {"SELECT * FROM s.t WHERE id = 7", 2},
      {"SELECT * FROM s.t WHERE id IN (1, 2, 3)", 2},
      {"SELECT * FROM s.t WHERE name = 'it''s'", 2},
      {"SELECT * FROM s.t WHERE id = 7 AND name = 'b'", 1}};
  EXPECT_EQ(got, want);
  // Every statement's filters still count.
  EXPECT_EQ(Find(*a, "id")->equality, 3);
  EXPECT_EQ(Find(*a, "id")->in_list, 2);
  auto w = ParseWorksheet(AdviseWorksheet(*a, "s.t"));
  ASSERT_TRUE(w.has_value()) << w.error().ToString();
  ASSERT_EQ(w->questions.size(), 4u);
  EXPECT_EQ(w->questions[0].daily, 2);
}

// What a worksheet cannot ask is listed in a comment, not kept as a question: a statement that
// is not a SELECT, and one that also reads another table (a CTE's name is not one).
TEST(Advise, StatementsTheWorksheetCannotAskAreCommentedOut) {
  auto a = AnalyzeQueryLog(
      "SELECT count(*) FROM s.t WHERE id = 1;\n"
      "SELECT * FROM s.t JOIN s.dim d ON s.t.k = d.k WHERE d.name = 'x';\n"
      "DELETE FROM s.t WHERE id = 3;\n"
      "WITH recent AS (SELECT * FROM s.t WHERE id > 5) SELECT count(*) FROM recent;\n",
      "s.t");
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ASSERT_EQ(a->queries.size(), 4u);
  EXPECT_EQ(a->queries[0].cannot_run, "");
  EXPECT_NE(a->queries[1].cannot_run.find("also reads s.dim"), std::string::npos);
  EXPECT_NE(a->queries[2].cannot_run.find("not a SELECT"), std::string::npos);
  EXPECT_EQ(a->queries[3].cannot_run, "");
  const std::string yaml = AdviseWorksheet(*a, "s.t", {.snapshot = 42});
  EXPECT_NE(yaml.find("source:\n  table: s.t\n  snapshot: 42\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("#   1x DELETE FROM s.t WHERE id = 3\n#      -> not a SELECT"),
            std::string::npos)
      << yaml;
  auto w = ParseWorksheet(yaml);
  ASSERT_TRUE(w.has_value()) << w.error().ToString() << "\n" << yaml;
  ASSERT_EQ(w->questions.size(), 2u);
  EXPECT_EQ(w->questions[0].sql, "SELECT count(*) FROM {table} WHERE id = 1");
  EXPECT_EQ(w->questions[1].name, "q2");
}

// A question's SQL reads back from the worksheet as it was logged: a newline inside a literal, a
// backslash and a quote survive the YAML; a comment line stays one line.
TEST(Advise, QuestionsReadBackAsLogged) {
  auto a = AnalyzeQueryLog(
      "SELECT * FROM s.t WHERE note = 'line1\nline2' AND re = '\\d+\"';\n"
      "DELETE FROM s.t WHERE note = 'a\nb';\n",
      "s.t");
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  const std::string yaml = AdviseWorksheet(*a, "s.t");
  auto w = ParseWorksheet(yaml);
  ASSERT_TRUE(w.has_value()) << w.error().ToString() << "\n" << yaml;
  ASSERT_EQ(w->questions.size(), 1u);
  EXPECT_EQ(w->questions[0].sql,
            "SELECT * FROM {table} WHERE note = 'line1\nline2' AND re = '\\d+\"'");
  EXPECT_NE(yaml.find("#   1x DELETE FROM s.t WHERE note = 'a\\nb'\n"), std::string::npos) << yaml;
}

// Shapes fold literals only: quoted identifiers, ordinals after BY and the arguments of a call
// keep questions apart; an IN list of any length is one.
TEST(Advise, ShapesKeepDifferentQuestionsApart) {
  auto a = AnalyzeQueryLog(
      "SELECT * FROM s.t WHERE \"sales 2023\" = 1;\n"
      "SELECT * FROM s.t WHERE \"sales 2024\" = 1;\n"
      "SELECT * FROM s.t WHERE \"o'x\" = 1 AND s = 'q';\n"
      "SELECT * FROM s.t WHERE s = 'q';\n"
      "SELECT substr(s, 1, 2) FROM s.t;\n"
      "SELECT substr(s, 3) FROM s.t;\n"
      "SELECT a, count(*) FROM s.t GROUP BY 1 ORDER BY 2;\n"
      "SELECT a, count(*) FROM s.t GROUP BY 1 ORDER BY 1;\n"
      "SELECT * FROM s.t WHERE id IN (1, 2) LIMIT 5;\n"
      "SELECT * FROM s.t WHERE id IN (7) LIMIT 10;\n",
      "s.t");
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  EXPECT_EQ(a->statements, 10);
  EXPECT_EQ(a->queries.size(), 9u);
  EXPECT_EQ(a->queries.front().count, 2);
  EXPECT_EQ(a->queries.front().sql, "SELECT * FROM s.t WHERE id IN (1, 2) LIMIT 5");
}

}  // namespace
}  // namespace floe::sql
