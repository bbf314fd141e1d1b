#include "floe/sql/parser.h"

#include <tuple>

#include <gtest/gtest.h>

#include "floe/sql/interval.h"

namespace floe::sql {
namespace {

TEST(IntervalText, UnitsAndSpellings) {
  auto months_days_micros = [](std::string_view text, std::optional<std::string_view> unit) {
    auto i = ParseInterval(text, unit);
    EXPECT_TRUE(i) << text << ": " << i.error().ToString();
    return i ? std::make_tuple(i->months, i->days, i->micros) : std::make_tuple(-1L, -1L, -1L);
  };
  EXPECT_EQ(months_days_micros("3 days", std::nullopt), std::make_tuple(0L, 3L, 0L));
  EXPECT_EQ(months_days_micros("3DAY", std::nullopt), std::make_tuple(0L, 3L, 0L));
  EXPECT_EQ(months_days_micros("1 year 2 months -1 week", std::nullopt),
            std::make_tuple(14L, -7L, 0L));
  EXPECT_EQ(months_days_micros("90", "day"), std::make_tuple(0L, 90L, 0L));
  EXPECT_EQ(months_days_micros("1 quarter", std::nullopt), std::make_tuple(3L, 0L, 0L));
  EXPECT_EQ(months_days_micros("1.5 seconds 2 ms 7 us", std::nullopt),
            std::make_tuple(0L, 0L, 1'502'007L));
  EXPECT_EQ(months_days_micros("2 hours 30 min", std::nullopt),
            std::make_tuple(0L, 0L, 9'000'000'000L));
  EXPECT_EQ(ParseInterval("", std::nullopt).error().message, "interval '' is empty");
  EXPECT_EQ(ParseInterval("3", std::nullopt).error().message,
            "interval '3' needs a unit after 3 (as in '3 days')");
  EXPECT_EQ(ParseInterval("x days", std::nullopt).error().message,
            "interval 'x days': 'x' is not a number");
}

TEST(TimeTravel, VersionClauseIsBlankedKeepingPositions) {
  std::string sql = "SELECT a FROM db.t FOR VERSION AS OF 42 WHERE a > 1";
  auto r = ExtractTimeTravel(sql).value();
  ASSERT_EQ(r.clauses.size(), 1u);
  EXPECT_EQ(r.clauses[0].snapshot_id, 42);
  EXPECT_EQ(r.clauses[0].offset, 19);
  EXPECT_EQ(r.text.size(), sql.size());
  EXPECT_EQ(r.text, "SELECT a FROM db.t " + std::string(20, ' ') + " WHERE a > 1");
}

TEST(TimeTravel, TimestampClauseAndSpellings) {
  auto r =
      ExtractTimeTravel("select * from db.t for system_time as of '2024-01-03 10:00:00'").value();
  ASSERT_EQ(r.clauses.size(), 1u);
  EXPECT_EQ(r.clauses[0].timestamp_ms, 1704276000000);
  // Inside a string or comment it is text, not a clause.
  auto s = ExtractTimeTravel("select 'for version as of 3' -- for version as of 4\n").value();
  EXPECT_TRUE(s.clauses.empty());
}

TEST(TimeTravel, MalformedClausesNameThePosition) {
  auto r = ExtractTimeTravel("select * from db.t for version as of 'x'");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "at line 1, column 38: FOR VERSION AS OF expects a snapshot id, got 'x'");
  auto t = ExtractTimeTravel("select * from db.t\nfor timestamp as of 'yesterday'");
  ASSERT_FALSE(t);
  EXPECT_TRUE(t.error().message.starts_with("at line 2, column 21:")) << t.error().message;
}

TEST(TableSample, EverySpellingIsCutOutWithItsShare) {
  for (const auto& [sql, fraction] : std::vector<std::pair<std::string, double>>{
           {"select * from t tablesample (10 percent) where a > 1", 0.1},
           {"select * from t TABLESAMPLE 2.5%", 0.025},
           {"select * from t tablesample (1%)", 0.01},
           {"select * from t using sample 50 percent", 0.5},
           {"select * from t using sample 5%", 0.05},
           {"select * from t tablesample system (20) repeatable (7)", 0.2},
           {"select * from t tablesample bernoulli (100)", 1.0}}) {
    auto r = ExtractTimeTravel(sql);
    ASSERT_TRUE(r) << sql << ": " << r.error().ToString();
    ASSERT_EQ(r->clauses.size(), 1u) << sql;
    EXPECT_EQ(r->clauses[0].sample_fraction, fraction) << sql;
    EXPECT_EQ(r->clauses[0].offset, 16) << sql;
    EXPECT_EQ(r->text.size(), sql.size());
    EXPECT_EQ(r->text.find("sample"), std::string::npos) << r->text;
    EXPECT_EQ(r->text.find("SAMPLE"), std::string::npos) << r->text;
  }
  // With time travel, in text order; inside a string it is text.
  auto both = ExtractTimeTravel(
      "select * from t for version as of 3 tablesample (5 percent) where s = 'tablesample 1%'");
  ASSERT_TRUE(both);
  ASSERT_EQ(both->clauses.size(), 2u);
  EXPECT_EQ(both->clauses[0].snapshot_id, 3);
  EXPECT_EQ(both->clauses[1].sample_fraction, 0.05);
  // JOIN ... USING (k) is no sample.
  auto join = ExtractTimeTravel("select * from a join b using (k)");
  ASSERT_TRUE(join);
  EXPECT_TRUE(join->clauses.empty());
}

TEST(TableSample, BadSamplesNameThePosition) {
  for (const auto& [sql, kind, message] :
       std::vector<std::tuple<std::string, ErrorKind, std::string>>{
           {"select * from t tablesample (0 percent)", ErrorKind::kInvalidInput,
            "at line 1, column 17: 0 percent is not in (0, 100]"},
           {"select * from t tablesample (150 percent)", ErrorKind::kInvalidInput,
            "at line 1, column 17: 150 percent is not in (0, 100]"},
           {"select * from t tablesample (ten percent)", ErrorKind::kInvalidInput,
            "at line 1, column 17: 'ten' is not a percentage"},
           {"select * from t tablesample (10)", ErrorKind::kInvalidInput,
            "at line 1, column 17: a number without PERCENT or %"},
           {"select * from t tablesample (10 percent", ErrorKind::kInvalidInput,
            "at line 1, column 17: no closing parenthesis"},
           {"select * from t tablesample (10 rows)", ErrorKind::kUnsupported,
            "at line 1, column 17: TABLESAMPLE of a number of rows"},
           {"select * from t using sample reservoir (10)", ErrorKind::kUnsupported,
            "at line 1, column 17: a reservoir sample"}}) {
    auto r = ExtractTimeTravel(sql);
    ASSERT_FALSE(r) << sql;
    EXPECT_EQ(r.error().kind, kind) << sql;
    EXPECT_TRUE(r.error().message.starts_with(message)) << r.error().message;
  }
}

TEST(Parser, SyntaxErrorsCarryLineAndColumn) {
  auto r = ParseStatement("SELECT a\nFROM db.t\nWHERE");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(r.error().message, "at line 3, column 6: syntax error at end of input");
  auto s = ParseStatement("SELEC 1");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "at line 1, column 1: syntax error at or near \"SELEC\"");
}

TEST(Parser, OneStatementAndItsKind) {
  auto r = ParseStatement("select 1;").value();
  EXPECT_EQ(r.kind, "SelectStmt");
  EXPECT_EQ(ParseStatement("call system.rewrite_data_files('db.t')").value().kind, "CallStmt");
  auto two = ParseStatement("select 1; select 2");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("one statement at a time"), std::string::npos);
}

TEST(Parser, SplitRespectsQuotesAndComments) {
  auto parts =
      SplitSql("select ';' as a; -- x; y\nselect \"b;c\" from t;;  \n-- only a comment;\n");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], "select ';' as a");
  EXPECT_EQ(parts[1], " -- x; y\nselect \"b;c\" from t");
}

}  // namespace
}  // namespace floe::sql
