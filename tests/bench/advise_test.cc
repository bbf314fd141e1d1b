// floe advise: filter counting from a query log and the worksheet it derives (which must parse).
#include "floe/bench/advise.h"

#include <gtest/gtest.h>

#include "floe/bench/worksheet.h"

namespace floe::bench {
namespace {

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

}  // namespace
}  // namespace floe::bench
