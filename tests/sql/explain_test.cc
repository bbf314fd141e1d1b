// EXPLAIN and EXPLAIN ANALYZE through the SQL engine: the operators of the plan in order, each
// table scan planned from the manifests (files kept and skipped, the requests a cold read sends),
// what a run did, and the statements EXPLAIN refuses -- on a table whose layout fixes every number.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/table.h"
#include "floe/sql/engine.h"
#include "support/temp_dir.h"

namespace floe::sql {
namespace {

using Strings = std::vector<std::string>;

class ExplainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    iceberg::WarehouseOptions o;
    o.uri = dir_.str();
    auto w = iceberg::OpenWarehouse(o);
    ASSERT_TRUE(w) << w.error().ToString();
    engine_ = std::make_unique<Engine>(std::move(*w));
    // Three days, one INSERT (one manifest, one file) each.
    Run("CREATE TABLE db.t (id bigint NOT NULL, day date, v double) PARTITIONED BY (day)");
    Run("INSERT INTO db.t VALUES (1, DATE '2024-01-01', 1.5), (2, DATE '2024-01-01', 2.5)");
    Run("INSERT INTO db.t VALUES (3, DATE '2024-01-02', 3.5)");
    Run("INSERT INTO db.t VALUES (4, DATE '2024-01-03', 4.5), (5, DATE '2024-01-03', 5.5)");
  }
  QueryResult Run(const std::string& sql) {
    auto r = engine_->Execute(sql);
    EXPECT_TRUE(r) << sql << ": " << r.error().ToString();
    return r ? *r : QueryResult{};
  }
  Strings Plan(const std::string& sql) {
    QueryResult r = Run(sql);
    Strings out;
    for (const auto& b : r.batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) out.emplace_back(b.columns[0]->BytesAt(i));
    }
    return out;
  }
  int64_t Snapshot() {
    auto t = iceberg::LoadTable(*engine_->warehouse().catalog, *engine_->warehouse().io,
                                catalog::TableIdentifier::Parse("db.t").value());
    return t ? t->metadata.CurrentSnapshot()->snapshot_id : 0;
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(ExplainTest, OperatorsInOrderAndTheScanPlannedFromTheManifests) {
  Strings lines = Plan(
      "EXPLAIN SELECT day, count(*) AS n, sum(v) FROM db.t WHERE day >= '2024-01-02' AND v * 2 > 1 "
      "GROUP BY day HAVING count(*) > 0 ORDER BY n DESC LIMIT 10");
  ASSERT_EQ(lines.size(), 11u) << ::testing::PrintToString(lines);
  EXPECT_EQ(Strings(lines.begin(), lines.begin() + 9),
            (Strings{"Limit 10", "Order by n DESC", "Project day, count(*) AS n, sum(v) AS sum",
                     "Having (count(*) > 0)", "Hash aggregate by day: count(*), sum(v)",
                     "Filter ((v * 2.0) > 1.0)", "  Table scan db.t", "    columns: day, v",
                     "    pushed filter: day >= 2024-01-02"}));
  EXPECT_THAT(
      lines[9],
      ::testing::StartsWith(fmt::format(
          "    snapshot {}: 2 of 3 data files (skipped: 1 by partition); 3 rows, ", Snapshot())));
  // The manifest of the skipped day is ruled out by its partition summary: two are read.
  EXPECT_EQ(lines[10],
            "    expected requests, cold: 4 metadata (table metadata, manifest list, 2 manifests); "
            "2 data (2 files whole)");
}

TEST_F(ExplainTest, AnalyzeAddsWhatTheRunDid) {
  Strings lines = Plan("EXPLAIN ANALYZE SELECT sum(v) FROM db.t WHERE day = '2024-01-03'");
  ASSERT_EQ(lines.size(), 11u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0], "Project sum(v) AS sum");
  EXPECT_EQ(lines[6],
            "    expected requests, cold: 3 metadata (table metadata, manifest list, 1 manifest); "
            "1 data (1 file whole)");
  EXPECT_EQ(lines[7], "Ran:");
  EXPECT_EQ(lines[8],
            "  data files: 1 opened of 1 planned; row groups: 1 read, 0 skipped; pages skipped: 0");
  // As expected: the one file, whole, in one request.
  EXPECT_THAT(lines[9], ::testing::StartsWith("  data requests: 1 (0 HEAD), "));
  EXPECT_THAT(lines[10],
              ::testing::StartsWith("  rows: 2 decoded, 2 from the scans, 1 in the answer; "));
}

TEST_F(ExplainTest, JoinsShowTheirRelationsAndEveryScan) {
  Strings lines =
      Plan("EXPLAIN SELECT a.id FROM db.t a JOIN db.t b ON a.id = b.v WHERE b.day = '2024-01-01'");
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "Project id");
  EXPECT_EQ(lines[1], "  Inner join on (CAST(id AS double) = v)");
  EXPECT_EQ(lines[2], "    Relation a");
  int scans = 0;
  for (const auto& l : lines) scans += l.find("Table scan db.t") != std::string::npos;
  EXPECT_EQ(scans, 2);
}

TEST_F(ExplainTest, WhatItRefuses) {
  auto del = engine_->Execute("EXPLAIN DELETE FROM db.t WHERE id = 1");
  ASSERT_FALSE(del);
  EXPECT_EQ(del.error().ToString(),
            "unsupported: at line 1, column 1: EXPLAIN of DELETE: floe explains SELECT");
  // Errors in the query point where the user typed them.
  auto bad = engine_->Execute("EXPLAIN SELECT nope FROM db.t");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, ::testing::StartsWith("at line 1, column 16: column 'nope'"));
}

}  // namespace
}  // namespace floe::sql
