// Joins, subqueries in FROM and CTEs through the engine, on two small tables whose answers are
// worked out by hand below; and the files a join's keys let the scans skip.
#include <gtest/gtest.h>

#include <regex>

#include "floe/exec/value.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/sql/engine.h"
#include "support/answer_rows.h"
#include "support/temp_dir.h"

namespace floe::sql {
namespace {

using exec::Value;
using exec::ValueColumnBuilder;
using Strings = std::vector<std::string>;
using iceberg::Primitive;
using iceberg::TypeId;

// db.events: ids 0..99 over 4 days (25 a day, partitioned by day, two appends of two days);
// customer c{i % 5} for i = id % 25, NULL at i = 7; amount 1.5 * i. So per day c0, c1, c3 and c4
// have 5 rows, c2 has 4 and NULL 1.
// db.customers: c0 north 1, c1 south 2, c2 north 3, c3 east NULL, c9 west 1, NULL nowhere 2.
// db.days: one row, 2024-01-05 'friday'.
class JoinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    iceberg::WarehouseOptions o;
    o.uri = dir_.str();
    auto w = iceberg::OpenWarehouse(o);
    ASSERT_TRUE(w) << w.error().ToString();
    wh_ = std::make_unique<iceberg::Warehouse>(std::move(*w));

    iceberg::Schema events(0, {{1, "id", true, Primitive(TypeId::kLong)},
                               {2, "day", false, Primitive(TypeId::kDate)},
                               {3, "customer", false, Primitive(TypeId::kString)},
                               {4, "amount", false, Primitive(TypeId::kDouble)}});
    for (int half = 0; half < 2; ++half) {
      ValueColumnBuilder ids(columnar::Int64()), days(columnar::Date32()),
          customers(columnar::String()), amounts(columnar::Float64());
      for (int d = half * 2; d < half * 2 + 2; ++d) {
        for (int i = 0; i < 25; ++i) {
          ASSERT_TRUE(ids.Append(Value::Int(d * 25 + i)));
          ASSERT_TRUE(days.Append(Value::Int(19725 + d)));  // 2024-01-03 ..
          if (i == 7) {
            customers.AppendNull();
          } else {
            ASSERT_TRUE(customers.Append(Value::Str(fmt::format("c{}", i % 5))));
          }
          ASSERT_TRUE(amounts.Append(Value::Double(static_cast<double>(i) * 1.5)));
        }
      }
      Append("db.events", events, "day", 50,
             {ids.Finish(), days.Finish(), customers.Finish(), amounts.Finish()});
    }

    iceberg::Schema customers(0, {{1, "name", false, Primitive(TypeId::kString)},
                                  {2, "region", false, Primitive(TypeId::kString)},
                                  {3, "tier", false, Primitive(TypeId::kLong)}});
    ValueColumnBuilder names(columnar::String()), regions(columnar::String()),
        tiers(columnar::Int64());
    const std::vector<std::tuple<const char*, const char*, int>> rows = {
        {"c0", "north", 1}, {"c1", "south", 2}, {"c2", "north", 3},
        {"c3", "east", 0},  {"c9", "west", 1},  {nullptr, "nowhere", 2}};
    for (const auto& [n, r, t] : rows) {
      if (n == nullptr) {
        names.AppendNull();
      } else {
        ASSERT_TRUE(names.Append(Value::Str(n)));
      }
      ASSERT_TRUE(regions.Append(Value::Str(r)));
      if (t == 0) {
        tiers.AppendNull();
      } else {
        ASSERT_TRUE(tiers.Append(Value::Int(t)));
      }
    }
    Append("db.customers", customers, "", 6, {names.Finish(), regions.Finish(), tiers.Finish()});

    iceberg::Schema days(0, {{1, "day", false, Primitive(TypeId::kDate)},
                             {2, "label", false, Primitive(TypeId::kString)}});
    ValueColumnBuilder day(columnar::Date32()), label(columnar::String());
    ASSERT_TRUE(day.Append(Value::Int(19727)));  // 2024-01-05
    ASSERT_TRUE(label.Append(Value::Str("friday")));
    Append("db.days", days, "", 1, {day.Finish(), label.Finish()});

    engine_ = std::make_unique<Engine>(std::move(*wh_));
  }

  void Append(const std::string& name, const iceberg::Schema& schema, const std::string& spec,
              int64_t rows, std::vector<columnar::ColumnPtr> columns) {
    auto id = catalog::TableIdentifier::Parse(name).value();
    if (!iceberg::LoadTable(*wh_->catalog, *wh_->io, id)) {
      auto s = iceberg::PartitionSpec::Parse(spec, schema).value();
      auto t = iceberg::CreateTable(*wh_->catalog, *wh_->io, id, {schema, s, {}, {}, ""});
      ASSERT_TRUE(t) << t.error().ToString();
    }
    iceberg::TableDataWriter writer(iceberg::LoadTable(*wh_->catalog, *wh_->io, id).value(),
                                    *wh_->io);
    columnar::RecordBatch b;
    auto fields = std::make_shared<columnar::Schema>();
    for (size_t i = 0; i < columns.size(); ++i) {
      const auto& f = schema.fields()[i];
      fields->fields.push_back({f.name, columns[i]->type, !f.required, f.id});
    }
    b.schema = fields;
    b.columns = std::move(columns);
    b.num_rows = rows;
    ASSERT_TRUE(writer.Write(b));
    auto files = writer.Finish();
    ASSERT_TRUE(files) << files.error().ToString();
    ASSERT_TRUE(iceberg::AppendFiles(*wh_->catalog, *wh_->io, id, *files));
  }

  // db.grid: keys 0..9999 (the events' ids crossed); db.picks: 70 of them spread over 7..6907.
  void MakeGridAndPicks() {
    ASSERT_TRUE(
        engine_->Execute("create table db.grid as select a.id * 100 + b.id as k "
                         "from db.events a cross join db.events b",
                         options_));
    ASSERT_TRUE(engine_->Execute(
        "create table db.picks as select id * 100 + 7 as k from db.events where id < 70",
        options_));
  }
  std::vector<std::string> Rows(const std::string& sql) {
    auto r = engine_->Execute(sql, options_);
    EXPECT_TRUE(r) << sql << ": " << r.error().ToString();
    if (!r) return {};
    last_ = *r;
    return testing::AnswerRows(r->batches);
  }
  // The "Join order" line of an EXPLAIN, after its label.
  std::string JoinOrder(const std::string& sql) {
    const std::string label = "Join order (streamed join built, estimated rows): ";
    for (const std::string& line : Rows(sql)) {
      const size_t at = line.find(label);
      if (at == std::string::npos) continue;
      std::string order = line.substr(at + label.size());
      if (order.ends_with('"')) order.pop_back();  // a string answer comes quoted
      return order;
    }
    return "(no join order in the plan)";
  }
  std::string ErrorOf(const std::string& sql) {
    auto r = engine_->Execute(sql, options_);
    EXPECT_FALSE(r) << sql;
    return r ? "" : r.error().ToString();
  }

  testing::TempDir dir_;
  std::unique_ptr<iceberg::Warehouse> wh_;
  std::unique_ptr<Engine> engine_;
  QueryOptions options_;
  QueryResult last_;
};

TEST_F(JoinTest, InnerJoinsWrittenEveryWay) {
  const Strings want = {R"("east"|20)", R"("north"|36)", R"("south"|20)"};
  EXPECT_EQ(Rows("select c.region, count(*) from db.events e join db.customers c "
                 "on e.customer = c.name group by c.region order by 1"),
            want);
  EXPECT_EQ(Rows("select c.region, count(*) from db.customers c, db.events e "
                 "where c.name = e.customer group by 1 order by 1"),
            want);
  EXPECT_EQ(Rows("select region, count(*) from db.events e inner join db.customers c "
                 "on c.name = e.customer group by region order by region"),
            want);
  // A residual beside the key, and a condition on one side (pushed into its scan).
  EXPECT_EQ(Rows("select count(*) from db.events e join db.customers c on e.customer = c.name "
                 "and e.amount > c.tier * 10 where c.region = 'north'"),
            // north: c0 (tier 1, amount > 10: i in 10, 15, 20) and c2 (tier 3, > 30: i = 22)
            (Strings{"16"}));
  // No equi-key: a cross product with a condition.
  EXPECT_EQ(Rows("select count(*) from db.customers a join db.customers b on a.tier < b.tier"),
            // tiers 1, 2, 3, NULL, 1, 2: pairs with a < b: 1<2 (2*2), 1<3 (2), 2<3 (2)
            (Strings{"8"}));
  EXPECT_EQ(Rows("select count(*) from db.customers a cross join db.days"), (Strings{"6"}));
}

TEST_F(JoinTest, OuterJoins) {
  EXPECT_EQ(Rows("select count(*), count(c.name) from db.events e left join db.customers c "
                 "on e.customer = c.name"),
            (Strings{"100|76"}));
  // The ON's condition on the right side decides matches, not rows.
  EXPECT_EQ(Rows("select count(*), count(c.name) from db.events e left join db.customers c "
                 "on e.customer = c.name and c.tier > 1"),
            (Strings{"100|36"}));
  // WHERE on the side the join fills with NULLs: after the join (unmatched 24 + c3's 20).
  EXPECT_EQ(Rows("select count(*) from db.events e left join db.customers c "
                 "on e.customer = c.name where c.tier is null"),
            (Strings{"44"}));
  EXPECT_EQ(
      Rows("select c.name, count(e.id) from db.events e right join db.customers c "
           "on e.customer = c.name group by c.name order by 1 nulls last"),
      (Strings{R"("c0"|20)", R"("c1"|20)", R"("c2"|16)", R"("c3"|20)", R"("c9"|0)", "null|0"}));
  // 76 matched, 24 events without a customer, c9 and the NULL-named customer.
  EXPECT_EQ(Rows("select count(*), count(e.id), count(c.region) from db.events e "
                 "full join db.customers c on e.customer = c.name"),
            (Strings{"102|100|78"}));
}

TEST_F(JoinTest, UsingNaturalAndStar) {
  EXPECT_EQ(Rows("select * from db.customers a join db.customers b using (name) "
                 "where a.tier = 3"),
            (Strings{R"("c2"|"north"|3|"north"|3)"}));
  std::vector<std::string> names;
  for (const auto& f : last_.schema->fields) names.push_back(f.name);
  EXPECT_EQ(names, (Strings{"name", "region", "tier", "region", "tier"}));
  EXPECT_EQ(Rows("select name, b.* from db.customers a natural join db.customers b "
                 "order by 1"),
            // NATURAL: name, region and tier all equal (c3's NULL tier and the NULL name never do)
            (Strings{R"("c0"|"c0"|"north"|1)", R"("c1"|"c1"|"south"|2)", R"("c2"|"c2"|"north"|3)",
                     R"("c9"|"c9"|"west"|1)"}));
  // FULL JOIN USING: the merged column is the first that is not NULL.
  EXPECT_EQ(Rows("select day, label from db.days full join "
                 "(select distinct day from db.events) e using (day) order by day"),
            (Strings{R"("2024-01-03"|null)", R"("2024-01-04"|null)", R"("2024-01-05"|"friday")",
                     R"("2024-01-06"|null)"}));
}

TEST_F(JoinTest, AConditionInEveryArmOfAnOrIsAJoinKey) {
  // (key AND a) OR (key AND b) is key AND (a OR b): a hash join, not a filtered cross product.
  EXPECT_EQ(Rows("select count(*) from db.events e, db.customers c where "
                 "(e.customer = c.name and c.tier = 1) or (e.customer = c.name and "
                 "c.region = 'south')"),
            (Strings{"40"}));  // c0 (tier 1) and c1 (south)
  // An arm that is the common part alone makes the OR true.
  EXPECT_EQ(Rows("select count(*) from db.events e, db.customers c where "
                 "(e.customer = c.name) or (e.customer = c.name and c.tier = 1)"),
            (Strings{"76"}));
}

TEST_F(JoinTest, ThreeWayJoin) {
  // a.tier = b.tier: 9 pairs; then b.region's customers: 12 rows (worked out in the header).
  EXPECT_EQ(Rows("select count(*) from db.customers a join db.customers b on a.tier = b.tier "
                 "join db.customers c on b.region = c.region"),
            (Strings{"12"}));
  EXPECT_EQ(Rows("select count(*) from db.events e, db.customers c, db.days d "
                 "where e.customer = c.name and e.day = d.day and c.region = 'north'"),
            (Strings{"9"}));  // 2024-01-05: c0 5 + c2 4
}

TEST_F(JoinTest, SubqueriesAndCtes) {
  EXPECT_EQ(Rows("with totals as (select customer, sum(amount) as s from db.events "
                 "group by customer) select t.customer, t.s, c.region from totals t "
                 "join db.customers c on t.customer = c.name order by 1"),
            (Strings{R"("c0"|300.0|"north")", R"("c1"|330.0|"south")", R"("c2"|318.0|"north")",
                     R"("c3"|390.0|"east")"}));
  EXPECT_EQ(Rows("select x.n from (select count(*) as n from db.events where day = "
                 "'2024-01-04') x"),
            (Strings{"25"}));
  EXPECT_EQ(Rows("with r (who, area) as (select name, region from db.customers) "
                 "select area from r where who = 'c3'"),
            (Strings{R"("east")"}));
  // A CTE named twice is computed once: the events' 4 files are opened once.
  EXPECT_EQ(Rows("with d as (select distinct day from db.events) "
                 "select count(*) from d a join d b on a.day < b.day"),
            (Strings{"6"}));
  EXPECT_EQ(last_.stats.data_files_opened, 4);
}

TEST_F(JoinTest, BuildKeysPruneTheProbedScan) {
  // db.days holds one day: the events' scan gets day IN ('2024-01-05') and opens that
  // partition's file only, the three others skipped for the join.
  EXPECT_EQ(Rows("select count(*), sum(e.amount) from db.events e join db.days d "
                 "on e.day = d.day"),
            (Strings{"25|450.0"}));
  EXPECT_EQ(last_.stats.data_files_opened, 2);  // the day's events file and db.days's
  EXPECT_EQ(last_.stats.data_files_skipped_join, 3);
  // An empty build side: nothing can match, the events are never read.
  EXPECT_EQ(Rows("select count(*) from db.events e join db.days d on e.day = d.day "
                 "where d.label = 'monday'"),
            (Strings{"0"}));
  EXPECT_EQ(last_.stats.data_files_opened, 0);
  // A LEFT join keeps every event: no pruning.
  EXPECT_EQ(Rows("select count(*) from db.events e left join db.days d on e.day = d.day"),
            (Strings{"100"}));
  EXPECT_EQ(last_.stats.data_files_opened, 5);
  EXPECT_EQ(last_.stats.data_files_skipped_join, 0);
}

TEST_F(JoinTest, ManyIntegerBuildKeysFilterTheProbedScanByTheKeysThemselves) {
  // db.grid: keys 0..9999; db.picks: 70 of them spread over 7..6907 -- more than a handful, but
  // under a tenth of the grid's keys, so the grid's scan tests each row against the 70 keys and
  // gives only their rows (their range would let 6901 through).
  MakeGridAndPicks();
  EXPECT_EQ(Rows("select count(*), sum(g.k) from db.grid g join db.picks p on g.k = p.k"),
            (Strings{"70|241990"}));
  EXPECT_EQ(last_.stats.rows, 140);  // the picks' 70 and the grid's 70
  // Half the grid's keys (5000 distinct in 5070 rows): too many for a list, their range
  // (0..9949) prunes the grid's scan and a test of each row against the keys (a bitmap over
  // that range) keeps the grid's 5000 rows that match before they reach the join.
  ASSERT_TRUE(engine_->Execute(
      "insert into db.picks select a.id * 100 + b.id from db.events a cross join db.events b "
      "where b.id < 50",
      options_));
  EXPECT_EQ(Rows("select count(*) from db.grid g join db.picks p on g.k = p.k"), (Strings{"5070"}));
  EXPECT_EQ(last_.stats.rows, 5000 + 5070);
  // The keys of every grid row but one: no test (most rows would pass it), the range alone.
  ASSERT_TRUE(
      engine_->Execute("insert into db.picks select k from db.grid where k <> 5", options_));
  EXPECT_EQ(Rows("select count(*) from db.grid g join db.picks p on g.k = p.k"),
            (Strings{"15069"}));
  EXPECT_EQ(last_.stats.rows, 10000 + 15069);
}

TEST_F(JoinTest, AnInSubqueryOfJoinsIsBuiltAndPrunesTheKeptSidesScan) {
  // The subquery (picks joined to events: 70 keys) has no estimate; it is built as an IN's
  // subquery always is, and its keys filter the grid's scan to their 70 rows -- rather than the
  // grid's 10,000 rows being built into a hash table for the subquery's rows to mark.
  MakeGridAndPicks();
  EXPECT_EQ(Rows("select count(*), sum(g.k) from db.grid g where g.k in "
                 "(select p.k from db.picks p join db.events e on p.k = e.id * 100 + 7)"),
            (Strings{"70|241990"}));
  EXPECT_EQ(last_.stats.rows, 70 + 70 + 100);  // the grid's, the picks', the events'
  EXPECT_EQ(Rows("select count(*) from db.grid g where g.k not in "
                 "(select p.k from db.picks p join db.events e on p.k = e.id * 100 + 7)"),
            (Strings{"9930"}));
}

// A semi or anti join whose kept side is far smaller than the other (TPC-H Q04's shape) builds the
// kept rows and streams the other side through them: that side's scan is filtered by the kept
// keys, as an inner join's probe side is, since its rows without a kept match decide nothing.
// db.grid: keys 0..9999; db.picks: 70 of them (7, 107, ..., 6907).
TEST_F(JoinTest, ASemiJoinBuiltOnItsKeptSidePrunesTheOtherSidesScan) {
  MakeGridAndPicks();
  EXPECT_EQ(Rows("select count(*), sum(p.k) from db.picks p where exists "
                 "(select 1 from db.grid g where g.k = p.k)"),
            (Strings{"70|241990"}));
  EXPECT_EQ(last_.stats.rows, 70 + 70);  // the picks', then the grid's rows with a pick's key
  // NOT EXISTS: the picks from 5007 up have no grid row at k + 5000 (20 of them); the grid is
  // read for the 50 keys below 10,000.
  EXPECT_EQ(Rows("select count(*), min(p.k) from db.picks p where not exists "
                 "(select 1 from db.grid g where g.k = p.k + 5000)"),
            (Strings{"20|5007"}));
  EXPECT_EQ(last_.stats.rows, 70 + 50);
  // A residual still decides each pair: grid rows k = pick, and k > 3000 -- the 40 picks from 3007.
  EXPECT_EQ(Rows("select count(*) from db.picks p where exists "
                 "(select 1 from db.grid g where g.k = p.k and g.k > 3000 + p.k - p.k)"),
            (Strings{"40"}));
}

// A LEFT join whose kept side is far smaller than the other (TPC-H Q13's customers and orders)
// builds the kept side and streams the other through it -- a right join of the sides swapped --,
// that side's scan filtered by the kept keys; the kept rows no pair took come out NULL-extended.
// db.picks: 70 keys 7, 107, ..., 6907; db.grid: keys 0..9999.
TEST_F(JoinTest, ALeftJoinBuiltOnItsSmallKeptSide) {
  MakeGridAndPicks();
  const std::string sql =
      "select count(*), count(g.k), sum(p.k) from db.picks p left join db.grid g "
      "on g.k = p.k + 5000";
  EXPECT_EQ(JoinOrder("explain " + sql), "(g ~10000 right join p ~70) ~70");
  // Picks up to 4907 meet grid rows (50 of them), the 20 from 5007 do not.
  EXPECT_EQ(Rows(sql), (Strings{"70|50|241990"}));
  EXPECT_EQ(last_.stats.rows, 70 + 50);  // the picks, then the grid rows with a pick's key
  // A residual in ON decides each pair: k > 3000 leaves the picks from 3007 (40) matched.
  EXPECT_EQ(Rows("select count(*), count(g.k) from db.picks p left join db.grid g "
                 "on g.k = p.k and g.k > 3000"),
            (Strings{"70|40"}));
  // Several rows for one kept row: each pick meets the 100 grid rows of its hundred.
  EXPECT_EQ(Rows("select count(*), count(distinct p.k) from db.picks p left join db.grid g "
                 "on g.k - g.k % 100 = p.k - 7"),
            (Strings{"7000|70"}));
  // Kept rows and pairs in order under ORDER BY, NULLs where nothing matched.
  EXPECT_EQ(Rows("select p.k, g.k from db.picks p left join db.grid g on g.k = p.k + 3100 "
                 "order by p.k desc limit 3"),
            (Strings{"6907|null", "6807|9907", "6707|9807"}));
}

// A correlated scalar subquery over a join (TPC-H Q02's shape) is computed for the outer rows'
// keys alone, as DuckDB's delim join does: the outer rows first, then the subquery's groups with
// the scan its key column comes from filtered by their keys -- 70 of the grid's 10,000 rows,
// each side of its join. db.grid: keys 0..9999; db.picks: 70 of them.
TEST_F(JoinTest, ACorrelatedSubqueryOverAJoinIsComputedForTheOuterKeysAlone) {
  MakeGridAndPicks();
  EXPECT_EQ(Rows("select count(*), sum(p.k) from db.picks p where p.k = (select min(g.k) from "
                 "db.grid g join db.grid h on h.k = g.k where g.k = p.k)"),
            (Strings{"70|241990"}));
  EXPECT_EQ(last_.stats.rows, 70 + 70 + 70);
  // Under a LEFT join inside the subquery the keys are not pushed (only through inner joins): the
  // same answer, every grid row read.
  EXPECT_EQ(Rows("select count(*) from db.picks p where p.k = (select min(g.k) from db.grid g "
                 "left join db.picks q on q.k = g.k + 1 where g.k = p.k)"),
            (Strings{"70"}));
  EXPECT_EQ(last_.stats.rows, 10000 + 70 + 70);
}

TEST_F(JoinTest, AFilteredDimensionReachesTheFactTableThroughTheDimensionItHangsOff) {
  // db.calendar gives each of the events' four days a kind; db.kinds names the kinds. The filter
  // on db.kinds keeps one kind, held by one day: calendar joined to kinds first is that day
  // alone, and as the events' build side it prunes their scan to the day's file. Joined in the
  // order the events meet them, calendar's four days would be built alone (kinds' keys cannot
  // prune its scan: its side of the condition is not a column) and prune nothing.
  for (const char* sql :
       {"create table db.calendar (day date, kind string)",
        "insert into db.calendar values (date '2024-01-03', 'workday'), "
        "(date '2024-01-04', 'workday'), (date '2024-01-05', 'HOLIDAY'), "
        "(date '2024-01-06', 'Workday')",
        "create table db.kinds (kind string, name string)",
        "insert into db.kinds values ('holiday', 'a holiday'), ('workday', 'a workday')"}) {
    ASSERT_TRUE(engine_->Execute(sql, options_)) << sql;
  }
  EXPECT_EQ(
      Rows("select count(*), sum(e.amount) from db.events e join db.calendar c "
           "on e.day = c.day join db.kinds k on lower(c.kind) = k.kind where k.name = 'a holiday'"),
      (Strings{"25|450.0"}));
  EXPECT_EQ(last_.stats.data_files_opened, 3);  // the day's events file, calendar's, kinds'
  EXPECT_EQ(last_.stats.data_files_skipped_join, 3);
  // Written the other way round, the same plan.
  EXPECT_EQ(Rows("select count(*) from db.kinds k, db.calendar c, db.events e "
                 "where k.name = 'a workday' and lower(c.kind) = k.kind and e.day = c.day"),
            (Strings{"75"}));
  EXPECT_EQ(last_.stats.data_files_opened, 5);
  EXPECT_EQ(last_.stats.data_files_skipped_join, 1);
  // EXPLAIN shows the order: kinds' one row of four (an equality on a column of two values keeps
  // half), joined to calendar's 4 days, keeps an estimated day; the events' 100 rows stream.
  EXPECT_EQ(JoinOrder("explain select count(*) from db.events e join db.calendar c "
                      "on e.day = c.day join db.kinds k on lower(c.kind) = k.kind "
                      "where k.name = 'a holiday'"),
            "(e ~100 join (c ~4 join k ~1) ~1) ~25");
}

// Build keys too many to list (20,000 of the probe's 100,000 values) are tested row by row in
// the probe's scan; their range then prunes only: the probe table's ten row groups of 10,000
// keys each, six of them outside 40,000..79,998, are skipped, and the rows of the four read
// reach the join only where the test passes them (the range is not also evaluated on each row).
TEST_F(JoinTest, TestedBuildKeysPruneRowGroupsByTheirRange) {
  for (const char* sql :
       {"create table db.probe (k bigint) tblproperties "
        "('write.parquet.row-group-row-limit' = '10000')",
        "insert into db.probe select a.id * 1000 + b.id * 10 + c.id as k from db.events a "
        "cross join db.events b cross join db.events c where c.id < 10 order by k",
        "create table db.picked as select k from db.probe where k >= 40000 and k < 80000 "
        "and k % 2 = 0"}) {
    ASSERT_TRUE(engine_->Execute(sql, options_)) << sql;
  }
  EXPECT_EQ(Rows("select count(*), sum(g.k) from db.probe g join db.picked p on g.k = p.k"),
            (Strings{"20000|1199980000"}));
  EXPECT_EQ(last_.stats.row_groups_skipped, 6);
  EXPECT_EQ(last_.stats.rows, 20000 + 20000);  // the picked keys, and the probe's rows holding them
  // Keys below and above every probe row's prune the whole table (no row group is read).
  ASSERT_TRUE(engine_->Execute(
      "insert into db.picked select k + 1000000 from db.picked union all select k - 1000000 "
      "from db.picked",
      options_));
  EXPECT_EQ(Rows("select count(*) from db.probe g join db.picked p on g.k = p.k and p.k < 0"),
            (Strings{"0"}));
  EXPECT_EQ(last_.stats.data_files_skipped_join, 1);
  EXPECT_EQ(last_.stats.data_files_opened, 1);  // db.picked's
}

TEST_F(JoinTest, RowsJoinedSoFarFewerThanTheNextInputAreBuiltAndTheInputStreams) {
  // db.visits: the events' ids and days twice (200 rows, one file). Joined to db.days first
  // (its one day keeps 50 visits), the visits are fewer than the events: they are built, and
  // the events stream through them, their scan pruned to the ids the visits hold -- the day's
  // file. Built instead, the events would be read whole.
  ASSERT_TRUE(
      engine_->Execute("create table db.visits as select id, day from db.events "
                       "union all select id, day from db.events",
                       options_));
  EXPECT_EQ(Rows("select count(*), count(distinct e.id) from db.visits v join db.days d "
                 "on v.day = d.day join db.events e on e.id = v.id"),
            (Strings{"50|25"}));
  EXPECT_EQ(last_.stats.data_files_opened, 3);  // visits', days', the day's events file
  EXPECT_EQ(last_.stats.data_files_skipped_join, 3);
  EXPECT_EQ(JoinOrder("explain select count(*) from db.visits v join db.days d "
                      "on v.day = d.day join db.events e on e.id = v.id"),
            "(e ~100 join (v ~200 join d ~1) ~50) ~50");
}

TEST_F(JoinTest, ARangesTwoBoundsOnOneColumnKeepTheShareBetweenThem) {
  // a.id in [20, 30): the filter keeps the files of ids 0..24 and 25..49 (50 rows, ids 0..49);
  // of that range the bounds keep a fifth (10 rows) -- not 60% of 60% (18), as if the two bounds
  // were independent. A third bound on the same column narrows it again, and bounds that cannot
  // meet keep nothing (shown as the one row an estimate is never below).
  EXPECT_EQ(JoinOrder("explain select count(*) from db.events a join db.events b on a.id = b.id "
                      "where a.id >= 20 and a.id < 30"),
            "(b ~100 join a ~10) ~10");
  EXPECT_EQ(JoinOrder("explain select count(*) from db.events a join db.events b on a.id = b.id "
                      "where a.id >= 20 and a.id < 30 and a.id < 25"),
            "(b ~100 join a ~5) ~5");
  EXPECT_EQ(JoinOrder("explain select count(*) from db.events a join db.events b on a.id = b.id "
                      "where a.id >= 20 and a.id < 30 and a.id > 40"),
            "(b ~100 join a ~1) ~1");
}

TEST_F(JoinTest, AStringEqualityKeepsOneOfTheDistinctValuesItsStoredBitsAllow) {
  // db.pairs: the events times the customers, 600 rows; region has 5 distinct values, stored in
  // a few bits each. Estimated as one of a handful of values (about 1/5 of the rows), not as
  // the 0.5% an equality is guessed to keep without statistics (3 rows); its unique ids stay
  // unique.
  ASSERT_TRUE(
      engine_->Execute("create table db.pairs as select e.id, c.region, "
                       "concat(c.region, '/', e.id) as tag from db.events e "
                       "cross join db.customers c",
                       options_));
  const std::string order = JoinOrder(
      "explain select count(*) from db.pairs p join db.events e on p.id = e.id "
      "where p.region = 'south'");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(order, m, std::regex("p ~([0-9]+)"))) << order;
  EXPECT_GE(std::stoi(m[1]), 60) << order;
  EXPECT_LE(std::stoi(m[1]), 300) << order;
  EXPECT_EQ(JoinOrder("explain select count(*) from db.pairs p join db.events e on p.id = e.id "
                      "where p.tag = 'south/7'"),
            "(e ~100 join p ~1) ~1");
}

TEST_F(JoinTest, ACorrelatedSubqueryIsComputedForTheOuterRowsKeysAlone) {
  // Two days asked about, one with events (its file of four) and one without: the subquery's
  // groups are computed for those days only -- the events' scan filtered by the two days opens
  // one file -- and the day without events gets the empty group's answer.
  ASSERT_TRUE(engine_->Execute("create table db.asked (day date, note string)", options_));
  ASSERT_TRUE(engine_->Execute(
      "insert into db.asked values (date '2024-01-05', 'a'), (date '2024-02-01', 'b')", options_));
  EXPECT_EQ(Rows("select a.note, (select count(*) from db.events e where e.day = a.day) as n, "
                 "(select sum(e.amount) from db.events e where e.day = a.day) as total "
                 "from db.asked a order by a.note"),
            (Strings{"\"a\"|25|450.0", "\"b\"|0|null"}));
  EXPECT_EQ(last_.stats.data_files_opened, 3);  // asked's, then the day's events file for each
  // As a filter (TPC-H Q17's shape): the events above their day's average amount.
  EXPECT_EQ(Rows("select count(*) from db.asked a, db.events e where e.day = a.day and "
                 "e.amount > (select avg(x.amount) from db.events x where x.day = e.day)"),
            (Strings{"12"}));
}

TEST_F(JoinTest, SubqueriesInExpressionsRunAsJoins) {
  // IN: the events of north customers (c0 20 + c2 16).
  EXPECT_EQ(Rows("select count(*) from db.events where customer in "
                 "(select name from db.customers where region = 'north')"),
            (Strings{"36"}));
  // NOT IN over a set holding NULL (the NULL-named customer) is never true...
  EXPECT_EQ(Rows("select count(*) from db.events where customer not in "
                 "(select name from db.customers)"),
            (Strings{"0"}));
  // ... without it, the NULL customer's 4 events are unknown, so out: c4's 20 stay.
  EXPECT_EQ(Rows("select count(*) from db.events where customer not in "
                 "(select name from db.customers where name is not null)"),
            (Strings{"20"}));
  // NOT IN an empty set keeps every row, NULLs too.
  EXPECT_EQ(Rows("select count(*) from db.events where customer not in "
                 "(select name from db.customers where tier > 5)"),
            (Strings{"100"}));
  // Correlated EXISTS with a residual: customers with an event worth more than 10 * tier.
  EXPECT_EQ(Rows("select c.name from db.customers c where exists (select 1 from db.events e "
                 "where e.customer = c.name and e.amount > 10 * c.tier) order by 1"),
            (Strings{R"("c0")", R"("c1")", R"("c2")"}));  // c3's tier is NULL, c9 has none
  EXPECT_EQ(Rows("select c.name from db.customers c where not exists (select 1 from db.events e "
                 "where e.customer = c.name) order by 1 nulls last"),
            (Strings{R"("c9")", "null"}));
  // The kept side (6 customers) is far smaller than the events: built, the events stream through
  // it; a residual decides each pair (c0's largest amount is 30.0, the others' above it).
  EXPECT_EQ(Rows("select c.name from db.customers c where not exists (select 1 from db.events e "
                 "where e.customer = c.name and e.amount > 30) order by 1 nulls last"),
            (Strings{R"("c0")", R"("c9")", "null"}));
  EXPECT_EQ(Rows("select c.name from db.customers c where exists (select 1 from db.events e "
                 "where e.customer = c.name and e.amount > 30 and e.day > date '2024-01-04') "
                 "order by 1"),
            (Strings{R"("c1")", R"("c2")", R"("c3")"}));
  // Scalar, uncorrelated (in WHERE and, as one value for every group, in HAVING).
  EXPECT_EQ(Rows("select count(*) from db.events where amount > (select avg(amount) "
                 "from db.events)"),
            (Strings{"48"}));  // avg 18.0: i = 13..24, 12 a day
  EXPECT_EQ(Rows("select customer, count(*) from db.events group by customer having count(*) "
                 "< (select max(tier) * 6 from db.customers) order by 1 nulls first"),
            (Strings{"null|4", R"("c2"|16)"}));
  // Scalar, correlated: grouped by the correlated key and joined; COUNT of nothing is 0.
  EXPECT_EQ(Rows("select c.name, (select count(*) from db.events e where e.customer = c.name) "
                 "as n, (select max(e.amount) from db.events e where e.customer = c.name) as m "
                 "from db.customers c order by 1 nulls last"),
            (Strings{R"("c0"|20|30.0)", R"("c1"|20|31.5)", R"("c2"|16|33.0)", R"("c3"|20|34.5)",
                     R"("c9"|0|null)", "null|0|null"}));
  // The subquery's key prunes the scan it is IN: one day's file of four.
  EXPECT_EQ(Rows("select count(*) from db.events where day in (select day from db.days)"),
            (Strings{"25"}));
  EXPECT_EQ(last_.stats.data_files_skipped_join, 3);
}

// EXISTS and IN inside an expression (an OR, the select list, an aggregate's argument) are mark
// joins: every outer row stays, with whether it has a match -- or, for IN, NULL where SQL says
// the answer is unknown. Every expected row here is DuckDB's answer over the same rows.
TEST_F(JoinTest, ExistsAndInInsideExpressionsMarkEachRow) {
  EXPECT_EQ(Rows("select c.name from db.customers c where c.region = 'west' or exists (select 1 "
                 "from db.events e where e.customer = c.name and e.amount > 33) order by 1"),
            (Strings{R"("c3")", R"("c9")"}));
  // Uncorrelated: the NULL name's IN is unknown against a set that is not empty.
  EXPECT_EQ(Rows("select name, name in (select customer from db.events where amount > 33) "
                 "from db.customers order by 1 nulls last"),
            (Strings{R"("c0"|false)", R"("c1"|false)", R"("c2"|false)", R"("c3"|true)",
                     R"("c9"|false)", "null|null"}));
  // A NULL in the set makes every miss unknown; NOT IN an empty set is true, NULL included.
  EXPECT_EQ(Rows("select name, name in (select customer from db.events where amount between 9 "
                 "and 11), name not in (select customer from db.events where amount > 100) "
                 "from db.customers order by 1 nulls last"),
            (Strings{R"("c0"|null|true)", R"("c1"|true|true)", R"("c2"|null|true)",
                     R"("c3"|null|true)", R"("c9"|null|true)", "null|null|true"}));
  // Correlated: each row's set is its customer's events (c3's tier is NULL: unknown against a
  // set that is not empty; c9 and the NULL name have no events: false).
  EXPECT_EQ(Rows("select c.name, c.tier in (select e.id % 4 from db.events e where e.customer = "
                 "c.name and e.amount > 30) from db.customers c order by 1 nulls last"),
            (Strings{R"("c0"|false)", R"("c1"|true)", R"("c2"|true)", R"("c3"|null)",
                     R"("c9"|false)", "null|false"}));
  // ... and a NULL in a row's own set (amounts up to 30) makes its miss unknown (c0).
  EXPECT_EQ(Rows("select c.name, c.tier in (select case when e.amount > 30 then e.id % 4 end "
                 "from db.events e where e.customer = c.name) from db.customers c order by 1 "
                 "nulls last"),
            (Strings{R"("c0"|null)", R"("c1"|true)", R"("c2"|true)", R"("c3"|null)",
                     R"("c9"|false)", "null|false"}));
  EXPECT_EQ(Rows("select count(*), count_if(exists (select 1 from db.customers c where c.name = "
                 "e.customer and c.tier = 2)) from db.events e"),
            (Strings{"100|20"}));
}

// A WHERE of several conjuncts the joins leave, two of them subqueries (one correlated): each is
// bound with the value its subquery was joined for (TPC-DS Q06).
TEST_F(JoinTest, SeveralSubqueriesInWhereEachKeepTheirValue) {
  EXPECT_EQ(Rows("select c.name from db.customers c where c.tier >= (select min(tier) from "
                 "db.customers) and c.tier * 12 > (select max(e.amount) from db.events e where "
                 "e.customer = c.name) and c.region <> 'x' order by 1"),
            (Strings{R"("c2")"}));  // c2: 36 > 33.0; c0 12 and c1 24 are under 30.0 and 31.5
  // A correlation repeated in every arm of an OR is the subquery's join key (TPC-DS Q41).
  EXPECT_EQ(Rows("select c.name, (select count(*) from db.events e where (e.customer = c.name "
                 "and e.amount < 3) or (e.customer = c.name and e.amount > 34)) from "
                 "db.customers c order by 1 nulls last"),
            (Strings{R"("c0"|4)", R"("c1"|4)", R"("c2"|0)", R"("c3"|4)", R"("c9"|0)", "null|0"}));
}

// Window functions in a derived table are computed before the outer query reads its rows.
TEST_F(JoinTest, AWindowInADerivedTableIsComputedBeforeTheOuterQueryReadsIt) {
  EXPECT_EQ(Rows("select count(*), max(m) from (select customer, row_number() over (partition "
                 "by customer order by id) m from db.events) y"),
            (Strings{"100|20"}));
  EXPECT_EQ(Rows("select * from (select id, sum(amount) over (order by id) s from db.events "
                 "where id < 3) y where s > 0 order by id"),
            (Strings{"1|1.5", "2|4.5"}));
}

// An OR over two relations whose every arm restricts each of them: each gets the OR of its
// restrictions as a filter of its own (the events' days prune two of four files), and the OR
// still decides the pairs. Under an outer join nothing is derived: a dropped row would come back
// NULL-extended and could meet an arm that tests IS NULL.
TEST_F(JoinTest, AnOrOverTwoRelationsFiltersEachOfThem) {
  EXPECT_EQ(Rows("select count(*) from db.events e, db.customers c where e.customer = c.name and "
                 "((c.region = 'north' and e.day = date '2024-01-03') or "
                 "(c.region = 'south' and e.day = date '2024-01-04'))"),
            (Strings{"14"}));  // c0 5 + c2 4 on the 3rd, c1 5 on the 4th
  EXPECT_EQ(last_.stats.data_files_skipped_partition, 2);
  EXPECT_EQ(Rows("select c.name, count(*) from db.customers c left join db.events e on "
                 "e.customer = c.name where (c.tier = 1 and e.day is null) or "
                 "(c.tier = 2 and e.day = date '2024-01-04') group by 1 order by 1"),
            (Strings{R"("c1"|5)", R"("c9"|1)"}));
}

TEST_F(JoinTest, SubqueryErrors) {
  EXPECT_EQ(ErrorOf("select (select name from db.customers)"),
            "invalid input: a subquery used as a value gave 6 rows, not at most one");
  EXPECT_EQ(ErrorOf("select 1 from db.days where day in (select day, label from db.days)"),
            "invalid input: at line 1, column 33: the subquery gives 2 columns where one value "
            "is needed");
  EXPECT_EQ(ErrorOf("select c.name, c.tier in (select e.id from db.events e where e.amount > "
                    "c.tier) from db.customers c"),
            "unsupported: an IN (subquery) inside an expression whose correlation is not a "
            "column equality");
  EXPECT_EQ(ErrorOf("select 1 from db.customers c where c.tier > (select e.amount from "
                    "db.events e where e.customer = c.name)"),
            "unsupported: at line 1, column 45: floe does not support a correlated scalar "
            "subquery that is not one aggregate without GROUP BY (write it as a join)");
  EXPECT_EQ(ErrorOf("select 1 from db.days where day > all (select day from db.days)"),
            "unsupported: at line 1, column 33: floe does not support ALL (subquery)");
}

TEST_F(JoinTest, SetOperationsAndValues) {
  // Tier-1 customers, and who had an event over 35 (i = 24: c4).
  EXPECT_EQ(Rows("select name from db.customers where tier = 1 union "
                 "select customer from db.events where amount > 35 order by 1"),
            (Strings{R"("c0")", R"("c4")", R"("c9")"}));
  EXPECT_EQ(Rows("select count(*) from (select region from db.customers union all "
                 "select region from db.customers) x"),
            (Strings{"12"}));
  EXPECT_EQ(Rows("select count(*) from (select region from db.customers union "
                 "select region from db.customers) x"),
            (Strings{"5"}));
  // NULLs are equal in set operations.
  EXPECT_EQ(Rows("select name from db.customers intersect select customer from db.events "
                 "order by 1 nulls last"),
            (Strings{R"("c0")", R"("c1")", R"("c2")", R"("c3")", "null"}));
  EXPECT_EQ(Rows("select name from db.customers except select customer from db.events"),
            (Strings{R"("c9")"}));
  // north twice on both sides, south, west and nowhere once.
  EXPECT_EQ(Rows("select count(*) from (select region from db.customers intersect all "
                 "select region from db.customers where tier >= 1) x"),
            (Strings{"5"}));
  // Minus one north and the west: north, south, east, nowhere.
  EXPECT_EQ(Rows("select region from db.customers except all select region from db.customers "
                 "where tier = 1 order by 1"),
            (Strings{R"("east")", R"("north")", R"("nowhere")", R"("south")"}));
  EXPECT_EQ(Rows("select * from (values (1, 'a'), (2, null)) v(x, y) order by x"),
            (Strings{R"(1|"a")", "2|null"}));
  EXPECT_EQ(Rows("values (1, 2.5), (3, 4)"), (Strings{"1|2.5", "3|4.0"}));
  EXPECT_EQ(last_.schema->fields[0].name, "col0");
  EXPECT_EQ(Rows("select c.region, v.label from db.customers c join (values (1, 'gold'), "
                 "(3, 'platinum')) v(tier, label) on c.tier = v.tier order by 1, 2"),
            (Strings{R"("north"|"gold")", R"("north"|"platinum")", R"("west"|"gold")"}));
  EXPECT_EQ(ErrorOf("select name, tier from db.customers union select name from db.customers"),
            "invalid input: at line 1, column 50: each side of UNION must give the same number "
            "of columns (2 and 1)");
  EXPECT_EQ(ErrorOf("values (1, 2), (3)"),
            "invalid input: at line 1, column 17: VALUES rows must all have 2 values, not 1");
}

TEST_F(JoinTest, ErrorsNameWhatAndWhere) {
  EXPECT_EQ(ErrorOf("select name from db.customers a join db.customers b on a.tier = b.tier"),
            "invalid input: at line 1, column 8: column reference 'name' is ambiguous: qualify "
            "it (a.name or b.name)");
  EXPECT_EQ(ErrorOf("select 1 from db.customers a join db.days d on a.tier"),
            "invalid input: at line 1, column 48: type mismatch: a join's ON must be boolean, "
            "got int64");
  EXPECT_EQ(ErrorOf("select 1 from db.days join db.days on true"),
            "invalid input: at line 1, column 28: the name 'days' is given to two relations in "
            "FROM: give one an alias");
  EXPECT_EQ(ErrorOf("select 1 from db.days a join db.days b on a.day = z.day"),
            "not found: at line 1, column 51: 'z' names no relation here (FROM)");
  EXPECT_EQ(ErrorOf("select 1 from db.days a join db.nope b on true"),
            "not found: at line 1, column 30: table db.nope not found");
  EXPECT_EQ(ErrorOf("select 1 from db.days a join lateral (select 1) b on true"),
            "unsupported: at line 1, column 38: floe does not support LATERAL");
  EXPECT_EQ(ErrorOf("with a as (select 1), a as (select 2) select * from a"),
            "invalid input: at line 1, column 23: WITH query name 'a' is given more than once");
  EXPECT_EQ(ErrorOf("select a.day from db.days a join db.days b on a.day = b.day and "
                    "count(*) > 0"),
            "invalid input: at line 1, column 74: aggregate functions are not allowed in a "
            "join's ON");
}

}  // namespace
}  // namespace floe::sql
