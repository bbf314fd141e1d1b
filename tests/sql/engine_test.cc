#include "floe/sql/engine.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "floe/exec/value.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/io/counting_store.h"
#include "floe/sql/result_stream.h"
#include "support/answer_rows.h"
#include "support/temp_dir.h"

namespace floe::sql {
namespace {

using exec::Value;
using exec::ValueColumnBuilder;

// db.events: 4 days x 25 rows, partitioned by day, appended as two snapshots (days 1-2, 3-4).
class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    iceberg::WarehouseOptions o;
    o.uri = dir_.str();
    o.decorate = [this](io::StorePtr s) -> Result<io::StorePtr> {
      counter_ = std::make_shared<io::CountingStore>(std::move(s));
      return counter_;
    };
    auto w = iceberg::OpenWarehouse(o);
    ASSERT_TRUE(w) << w.error().ToString();
    iceberg::Schema schema(0, {{1, "id", true, iceberg::Primitive(iceberg::TypeId::kLong)},
                               {2, "day", false, iceberg::Primitive(iceberg::TypeId::kDate)},
                               {3, "customer", false, iceberg::Primitive(iceberg::TypeId::kString)},
                               {4, "amount", false, iceberg::Primitive(iceberg::TypeId::kDouble)}});
    auto id = catalog::TableIdentifier::Parse("db.events").value();
    auto spec = iceberg::PartitionSpec::Parse("day", schema).value();
    auto t = iceberg::CreateTable(*w->catalog, *w->io, id, {schema, spec, {}, {}, ""});
    ASSERT_TRUE(t) << t.error().ToString();
    for (int half = 0; half < 2; ++half) {
      iceberg::TableDataWriter writer(iceberg::LoadTable(*w->catalog, *w->io, id).value(), *w->io);
      ValueColumnBuilder ids(columnar::Int64()), days(columnar::Date32()),
          customers(columnar::String()), amounts(columnar::Float64());
      for (int d = half * 2; d < half * 2 + 2; ++d) {
        for (int i = 0; i < 25; ++i) {
          int64_t row = d * 25 + i;
          ASSERT_TRUE(ids.Append(Value::Int(row)));
          ASSERT_TRUE(days.Append(Value::Int(19725 + d)));  // 2024-01-03 ..
          if (i == 7) {
            customers.AppendNull();
          } else {
            ASSERT_TRUE(customers.Append(Value::Str(fmt::format("c{}", i % 5))));
          }
          ASSERT_TRUE(amounts.Append(Value::Double(static_cast<double>(i) * 1.5)));
        }
      }
      columnar::RecordBatch b;
      b.schema = std::make_shared<columnar::Schema>(
          columnar::Schema{{{"id", columnar::Int64(), false, 1},
                            {"day", columnar::Date32(), true, 2},
                            {"customer", columnar::String(), true, 3},
                            {"amount", columnar::Float64(), true, 4}}});
      b.columns = {ids.Finish(), days.Finish(), customers.Finish(), amounts.Finish()};
      b.num_rows = 50;
      ASSERT_TRUE(writer.Write(b));
      auto files = writer.Finish();
      ASSERT_TRUE(files) << files.error().ToString();
      auto committed = iceberg::AppendFiles(*w->catalog, *w->io, id, *files);
      ASSERT_TRUE(committed) << committed.error().ToString();
      snapshots_.push_back(committed->metadata.current_snapshot_id.value());
    }
    engine_ = std::make_unique<Engine>(std::move(*w));
  }

  // Table `name` of 4,000 rows: id 0..3999 and `column` (of Iceberg type `type`, exec type
  // `values_type`) `value(id)`, in one file of four 1,000-row row groups of 100-row pages.
  void PagedIdTable(const std::string& name, const std::string& column, iceberg::TypePtr type,
                    const columnar::DataType& values_type,
                    const std::function<Value(int64_t)>& value) {
    iceberg::Warehouse& w = engine_->warehouse();
    iceberg::Schema schema(0, {{1, "id", true, iceberg::Primitive(iceberg::TypeId::kLong)},
                               {2, column, false, std::move(type)}});
    auto id = catalog::TableIdentifier::Parse(name).value();
    auto t = iceberg::CreateTable(
        *w.catalog, *w.io, id,
        {schema,
         {},
         {},
         {{"write.parquet.row-group-row-limit", "1000"}, {"write.parquet.page-row-limit", "100"}},
         ""});
    ASSERT_TRUE(t) << t.error().ToString();
    iceberg::TableDataWriter writer(iceberg::LoadTable(*w.catalog, *w.io, id).value(), *w.io);
    ValueColumnBuilder ids(columnar::Int64()), values(values_type);
    for (int64_t i = 0; i < 4000; ++i) {
      ASSERT_TRUE(ids.Append(Value::Int(i)));
      ASSERT_TRUE(values.Append(value(i)));
    }
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(
        columnar::Schema{{{"id", columnar::Int64(), false, 1}, {column, values_type, true, 2}}});
    b.columns = {ids.Finish(), values.Finish()};
    b.num_rows = 4000;
    ASSERT_TRUE(writer.Write(b));
    auto files = writer.Finish();
    ASSERT_TRUE(files) << files.error().ToString();
    ASSERT_TRUE(iceberg::AppendFiles(*w.catalog, *w.io, id, *files));
  }

  // Every row as "v1|v2|..." in JSON value form.
  std::vector<std::string> Rows(const std::string& sql) {
    auto r = engine_->Execute(sql, options_);
    EXPECT_TRUE(r) << sql << ": " << r.error().ToString();
    if (!r) return {};
    last_ = *r;
    return testing::AnswerRows(r->batches);
  }
  std::string ErrorOf(const std::string& sql) {
    auto r = engine_->Execute(sql, options_);
    EXPECT_FALSE(r) << sql;
    return r ? "" : r.error().ToString();
  }

  testing::TempDir dir_;
  std::shared_ptr<io::CountingStore> counter_;
  std::unique_ptr<Engine> engine_;
  std::vector<int64_t> snapshots_;
  QueryOptions options_;
  QueryResult last_;
};

using Strings = std::vector<std::string>;

TEST_F(EngineTest, FilterProjectAndPartitionPruning) {
  EXPECT_EQ(Rows("select id, amount * 2 as twice from db.events where day = '2024-01-04' and "
                 "id % 10 = 0 order by id"),
            (Strings{"30|15.0", "40|45.0"}));
  EXPECT_EQ(last_.schema->fields[1].name, "twice");
  EXPECT_EQ(last_.stats.data_files_opened, 1) << last_.stats.data_files_skipped_partition;
  EXPECT_EQ(last_.stats.data_files_skipped_partition, 3);
}

TEST_F(EngineTest, GroupByHavingOrderByLimit) {
  EXPECT_EQ(Rows("select customer, count(*) as n, sum(amount), min(id), max(day) from db.events "
                 "group by customer having count(*) > 16 order by customer nulls first"),
            (Strings{"\"c0\"|20|300.0|0|\"2024-01-06\"", "\"c1\"|20|330.0|1|\"2024-01-06\"",
                     "\"c3\"|20|390.0|3|\"2024-01-06\"", "\"c4\"|20|420.0|4|\"2024-01-06\""}));
  EXPECT_EQ(Rows("select count(*), count(customer), count(distinct customer), avg(id) from "
                 "db.events"),
            (Strings{"100|96|5|49.5"}));
  EXPECT_EQ(Rows("select id from db.events order by amount desc, id limit 3 offset 1"),
            (Strings{"49", "74", "99"}));
  EXPECT_EQ(Rows("select day, count(*) from db.events group by 1 order by 2 desc, 1 limit 2"),
            (Strings{"\"2024-01-03\"|25", "\"2024-01-04\"|25"}));
}

TEST_F(EngineTest, FunctionsInSelectAndWhere) {
  EXPECT_EQ(
      Rows("select upper(customer), length(customer), substring(customer, 2), "
           "coalesce(customer, 'none'), case when id < 3 then 'low' else 'high' end, "
           "cast(id as varchar), year(day), extract(day from day), "
           "date_trunc('month', day) from db.events where id in (1, 7) order by id"),
      (Strings{"\"C1\"|2|\"1\"|\"c1\"|\"low\"|\"1\"|2024|3|\"2024-01-01T00:00:00.000000\"",
               "null|null|null|\"none\"|\"high\"|\"7\"|2024|3|\"2024-01-01T00:00:00.000000\""}));
  EXPECT_EQ(Rows("select count(*) from db.events where customer like 'c%' and customer not like "
                 "'%4' and starts_with(customer, 'c') and id between 10 and 59 and "
                 "customer is not null"),
            (Strings{"38"}));
}

TEST_F(EngineTest, TimeTravelAndSnapshots) {
  EXPECT_EQ(Rows(fmt::format("select count(*) from db.events for version as of {}", snapshots_[0])),
            (Strings{"50"}));
  EXPECT_EQ(Rows("select count(*) from db.events"), (Strings{"100"}));
  EXPECT_EQ(last_.stats.data_files_opened, 0);  // answered from the manifests' record counts
  EXPECT_NE(ErrorOf("select * from db.events for version as of 1").find("has no snapshot 1"),
            std::string::npos);
}

// db.events is no OTree: TABLESAMPLE takes whole files (4, one per day), the same ones each time.
TEST_F(EngineTest, TableSampleOfAPlainTableTakesWholeFiles) {
  EXPECT_EQ(Rows("select count(*) from db.events tablesample (100 percent)"), (Strings{"100"}));
  EXPECT_EQ(last_.stats.data_files_opened, 4);  // read, not answered from the manifests
  const Strings half = Rows("select id from db.events tablesample 50% order by id");
  const int64_t opened = last_.stats.data_files_opened;
  EXPECT_EQ(static_cast<int64_t>(half.size()), 25 * opened);
  EXPECT_EQ(opened + last_.stats.data_files_skipped_sample, 4);
  EXPECT_EQ(Rows("select id from db.events using sample 50 percent order by id"), half);
  EXPECT_EQ(Rows("select count(*) from db.events e tablesample (50 percent) join db.events f "
                 "on e.id = f.id"),
            (Strings{std::to_string(half.size())}));
  EXPECT_EQ(ErrorOf("select 1 tablesample (5 percent)"),
            "invalid input: at line 1, column 10: TABLESAMPLE needs a table to sample");
  EXPECT_EQ(ErrorOf("select * from db.events.files tablesample (5 percent)"),
            "unsupported: at line 1, column 31: floe does not support TABLESAMPLE of a metadata "
            "table");
}

TEST_F(EngineTest, MetadataTables) {
  auto rows = Rows("select count(*) from db.events.snapshots");
  EXPECT_EQ(rows, (Strings{"2"}));
  EXPECT_EQ(Rows("select count(*) from db.events.files"), (Strings{"4"}));
}

TEST_F(EngineTest, ErrorsNameWhatAndWhere) {
  EXPECT_EQ(ErrorOf("select nope from db.events"),
            "not found: at line 1, column 8: column 'nope' not found in db.events (columns: id, "
            "day, customer, amount)");
  EXPECT_EQ(ErrorOf("select 1 from db.missing"),
            "not found: at line 1, column 15: table db.missing not found");
  EXPECT_EQ(ErrorOf("select id from db.events where customer = 3"),
            "invalid input: at line 1, column 41: type mismatch: cannot compare string with "
            "integer");
  EXPECT_EQ(ErrorOf("select id / 0 from db.events"), "invalid input: division by zero");
  EXPECT_EQ(ErrorOf("select 1 / 0"), "invalid input: at line 1, column 10: division by zero");
  // A CASE branch runs only for the rows that take it: no error from the rows it guards against
  // (events 0..2 have amounts 0.0, 1.5, 3.0), but one where a taken branch divides by zero.
  EXPECT_EQ(Rows("select id, case when amount = 0 then -1 when 3 / amount > 1 then 1 else 3 / "
                 "id end from db.events where id < 3 order by id"),
            (Strings{"0|-1.0", "1|1.0", "2|1.5"}));
  EXPECT_EQ(ErrorOf("select case when amount > 0 then 1 / (id - 1) end from db.events"),
            "invalid input: division by zero");
  EXPECT_EQ(ErrorOf("select id from db.events where day > date '2024-02-30'"),
            "invalid input: at line 1, column 38: malformed date literal '2024-02-30'");
  EXPECT_EQ(ErrorOf("select id from db.events for update"),
            "unsupported: at line 1, column 1: floe does not support FOR UPDATE / FOR SHARE");
  EXPECT_EQ(ErrorOf("select id, count(*) from db.events"),
            "invalid input: at line 1, column 8: column 'id' must appear in GROUP BY or be used "
            "in an aggregate");
  EXPECT_EQ(ErrorOf("grant select on db.events to bob"),
            "unsupported: at line 1, column 1: GRANT statements are not supported (floe runs "
            "SELECT, INSERT, DELETE, UPDATE, MERGE, CREATE/ALTER/DROP TABLE)");
  EXPECT_EQ(ErrorOf("call system.rollback_to_snapshot('db.events', 1)"),
            "unsupported: CALL system.rollback_to_snapshot: unknown procedure (floe has "
            "rewrite_data_files, rewrite_position_delete_files, rewrite_manifests, "
            "expire_snapshots, remove_orphan_files, add_files)");
  EXPECT_EQ(ErrorOf("call system.expire_snapshots(table => 'db.events', older_than => 'soon')"),
            "invalid input: older_than 'soon': expected an age (30s, 15m, 12h, 3d), an ISO date "
            "or timestamp, or Unix ms");
  EXPECT_EQ(ErrorOf("select * from db.events where id > any (select 1)"),
            "unsupported: at line 1, column 34: floe does not support ANY / SOME (subquery)");
}

// Functions are found in exec's registry by name, alias or unit alias; errors name the function.
TEST_F(EngineTest, FunctionCallsAndTheirErrors) {
  EXPECT_EQ(Rows("select char_length('h\u00e9llo'), extract(month from day), month(day), "
                 "customer || id from db.events where id = 1"),
            (Strings{"5|1|1|\"c11\""}));
  EXPECT_EQ(ErrorOf("select substr(customer) from db.events"),
            "invalid input: at line 1, column 8: substring takes 2 to 3 arguments, got 1");
  EXPECT_EQ(ErrorOf("select lower(id) from db.events"),
            "invalid input: at line 1, column 8: type mismatch: lower expects a string, got "
            "integer");
  EXPECT_EQ(ErrorOf("select year(day, day) from db.events"),
            "invalid input: at line 1, column 8: year takes 1 argument");
  EXPECT_EQ(ErrorOf("select date_trunc(day) from db.events"),
            "invalid input: at line 1, column 8: date_trunc takes 2 arguments");
  EXPECT_EQ(ErrorOf("select nosuch(id) from db.events"),
            "unsupported: at line 1, column 8: floe does not support function nosuch()");
  EXPECT_EQ(ErrorOf("select \"||\"(customer, customer) from db.events"),
            "unsupported: at line 1, column 8: floe does not support function ||()");
}

// The everyday functions keep DuckDB's types: a decimal rounds to a decimal of the digits asked
// for (a varying count of digits computes in double), floor and ceil of a decimal are decimals of
// scale 0; a logarithm of zero or the root of a negative number is an error naming the value.
TEST_F(EngineTest, WindowFunctions) {
  EXPECT_EQ(Rows("select id, row_number() over (order by id), lag(id) over (order by id), "
                 "lead(id, 2, -1) over (order by id) from db.events where id < 4 order by id"),
            (Strings{"0|1|null|2", "1|2|0|3", "2|3|1|-1", "3|4|2|-1"}));
  // Day one's first ten rows by customer: NULL, c0 c0, c1 c1, c2, c3 c3, c4 c4.
  EXPECT_EQ(Rows("select customer, rank() over (order by customer nulls first), "
                 "dense_rank() over (order by customer nulls first), "
                 "count(*) over (partition by customer) from db.events where id < 10 "
                 "order by customer nulls first, id"),
            (Strings{"null|1|1|1", R"("c0"|2|2|2)", R"("c0"|2|2|2)", R"("c1"|4|3|2)",
                     R"("c1"|4|3|2)", R"("c2"|6|4|1)", R"("c3"|7|5|2)", R"("c3"|7|5|2)",
                     R"("c4"|9|6|2)", R"("c4"|9|6|2)"}));
  EXPECT_EQ(Rows("select id, ntile(3) over (order by id), percent_rank() over (order by id), "
                 "cume_dist() over (order by id) from db.events where id < 4 order by id"),
            (Strings{"0|1|0.0|0.25", "1|1|0.3333333333333333|0.5", "2|2|0.6666666666666666|0.75",
                     "3|3|1.0|1.0"}));
  // Frames: ROWS around the row; by default from the partition's start to the row's last peer.
  EXPECT_EQ(Rows("select id, sum(amount) over (order by id rows between 1 preceding and current "
                 "row), first_value(id) over (order by id rows between 1 preceding and 1 "
                 "following), last_value(id) over (order by id rows between 1 preceding and 1 "
                 "following), nth_value(id, 2) over (order by id) from db.events where id < 3 "
                 "order by id"),
            (Strings{"0|0.0|0|1|null", "1|1.5|0|2|1", "2|4.5|1|2|1"}));
  // Over an aggregate's rows.
  EXPECT_EQ(Rows("select day, count(*), sum(count(*)) over (order by day) from db.events "
                 "group by day order by day"),
            (Strings{R"("2024-01-03"|25|25)", R"("2024-01-04"|25|50)", R"("2024-01-05"|25|75)",
                     R"("2024-01-06"|25|100)"}));
  EXPECT_EQ(ErrorOf("select id from db.events where row_number() over () > 1"),
            "invalid input: at line 1, column 32: window functions are only allowed in the "
            "select list and ORDER BY");
  EXPECT_EQ(ErrorOf("select median(amount) over () from db.events"),
            "unsupported: at line 1, column 8: floe does not support median as a window "
            "function");
  EXPECT_EQ(ErrorOf("select sum(amount) over (order by id, day range between 1 preceding and "
                    "current row) from db.events"),
            "invalid input: at line 1, column 57: a RANGE frame with an offset needs exactly one "
            "ORDER BY key");
  EXPECT_EQ(ErrorOf("select sum(amount) over (order by id range between -1 preceding and "
                    "current row) from db.events"),
            "invalid input: at line 1, column 52: a frame offset must not be negative");
}

// INTERVAL constants move a date or timestamp (a timestamp results, as in DuckDB), written as
// Postgres, DuckDB, Spark and TPC-H's text write them; a date compared with the result is still a
// date filter the scan prunes by. DuckDB's answers.
TEST_F(EngineTest, IntervalsMoveDatesAndTimestamps) {
  EXPECT_EQ(Rows("select date '2024-01-31' + interval 1 month, date '2024-03-31' - interval '1' "
                 "month, interval '1 year 2 months 3 days' + date '2020-02-29', timestamp "
                 "'2024-01-01 10:00:00' - interval '90 minutes', date '1998-12-01' - interval "
                 "'90' day (3), timestamp '2024-01-01 00:00:00' + interval 3 days"),
            (Strings{R"("2024-02-29T00:00:00.000000"|"2024-02-29T00:00:00.000000"|)"
                     R"("2021-05-02T00:00:00.000000"|"2024-01-01T08:30:00.000000"|)"
                     R"("1998-09-02T00:00:00.000000"|"2024-01-04T00:00:00.000000")"}));
  // Days 2024-01-05 and -06: two of the four day partitions.
  EXPECT_EQ(Rows("select count(*) from db.events where day >= date '2024-01-04' + interval '1' "
                 "day"),
            (Strings{"50"}));
  EXPECT_EQ(last_.stats.data_files_skipped_partition, 2);
  // Not at midnight: a date is after 2024-01-04 12:00 from the 5th on.
  EXPECT_EQ(Rows("select count(*) from db.events where day > timestamp '2024-01-04 00:00:00' + "
                 "interval '12' hour"),
            (Strings{"50"}));
  EXPECT_EQ(ErrorOf("select interval '3' day"),
            "unsupported: at line 1, column 8: floe does not support an INTERVAL other than "
            "added to or subtracted from a date or timestamp");
  EXPECT_EQ(ErrorOf("select day + interval '3 fortnights' from db.events"),
            "invalid input: at line 1, column 23: interval '3 fortnights': 'fortnights' is not a "
            "unit (year, month, week, day, hour, minute, second, millisecond, microsecond)");
}

// WINDOW w AS (...): OVER w takes it whole, OVER (w ...) adds what w leaves out, and a named
// window may build on another. DuckDB's answers.
TEST_F(EngineTest, NamedWindows) {
  EXPECT_EQ(Rows("select id, sum(id) over w, rank() over (w order by id desc), count(*) over w2 "
                 "from db.events where id < 8 window w as (partition by customer), w2 as (w order "
                 "by id rows between 1 preceding and current row) order by id"),
            (Strings{"0|5|2|1", "1|7|2|1", "2|2|1|1", "3|3|1|1", "4|4|1|1", "5|5|1|2", "6|7|1|2",
                     "7|7|1|1"}));
  EXPECT_EQ(
      Rows("select customer, sum(amount) s, rank() over w from db.events group by customer "
           "window w as (order by sum(amount) desc nulls last) order by customer nulls first"),
      (Strings{"null|42.0|6", R"("c0"|300.0|5)", R"("c1"|330.0|3)", R"("c2"|318.0|4)",
               R"("c3"|390.0|2)", R"("c4"|420.0|1)"}));
  EXPECT_EQ(ErrorOf("select sum(id) over nope from db.events"),
            "invalid input: at line 1, column 21: window 'nope' is not defined");
}

// QUALIFY (which Postgres's grammar lacks: cut from the text and parsed alone) filters after the
// window functions; select-list aliases name their items in it, inside a window's ORDER BY too.
// DuckDB's answers.
TEST_F(EngineTest, QualifyFiltersTheRowsAfterTheirWindowFunctions) {
  EXPECT_EQ(Rows("select id, customer, row_number() over (partition by customer order by id desc) "
                 "r from db.events where id < 12 qualify r = 1 order by id"),
            (Strings{R"(2|"c2"|1)", "7|null|1", R"(8|"c3"|1)", R"(9|"c4"|1)", R"(10|"c0"|1)",
                     R"(11|"c1"|1)"}));
  EXPECT_EQ(Rows("select customer, count(*) n from db.events group by customer qualify rank() "
                 "over (order by n desc, customer nulls first) <= 2 order by customer"),
            (Strings{R"("c0"|20)", R"("c1"|20)"}));
  EXPECT_EQ(Rows("select customer from db.events group by customer qualify rank() over (order by "
                 "sum(amount)) = 1"),
            (Strings{"null"}));
  // A column named qualify is still a column.
  EXPECT_EQ(Rows("select qualify from (select 1 as qualify) t"), (Strings{"1"}));
  EXPECT_EQ(ErrorOf("select id from db.events qualify id > 2"),
            "invalid input: at line 1, column 37: QUALIFY needs a window function in the select "
            "list or in QUALIFY");
  EXPECT_EQ(ErrorOf("select id, row_number() over () r from db.events qualify r = 1, 2"),
            "invalid input: at line 1, column 50: QUALIFY takes one condition");
}

// RANGE frames with offsets: the rows whose one ORDER BY key lies within the offset of the
// row's (in the key's type; days for a date), in the ORDER BY's direction; DuckDB's answers.
TEST_F(EngineTest, RangeFramesWithOffsets) {
  EXPECT_EQ(Rows("select id, sum(id) over (order by amount range between 3 preceding and 1.5 "
                 "following), count(*) over (partition by customer order by id desc range "
                 "between 100 preceding and 90 preceding) from db.events where id < 10 or id > "
                 "95 order by id"),
            (Strings{"0|1|0", "1|3|1", "2|6|1", "3|10|1", "4|14|1", "5|18|0", "6|22|1", "7|26|0",
                     "8|30|1", "9|24|1", "96|193|0", "97|291|0", "98|390|0", "99|294|0"}));
  EXPECT_EQ(Rows("select id, min(id) over (order by day range between 1 preceding and current "
                 "row) from db.events where id % 25 = 0 order by id"),
            (Strings{"0|0", "25|0", "50|25", "75|50"}));
}

TEST_F(EngineTest, RoundingKeepsDecimalsExactAndMathErrorsNameTheValue) {
  // (A literal with a decimal point is a decimal of its digits, as DuckDB's: 2.5 is decimal(2, 1).)
  EXPECT_EQ(
      Rows("select round(cast(12.345 as decimal(5, 3)), 2), "
           "round(cast(-12.345 as decimal(5, 3)), 1), round(cast(12.345 as decimal(5, 3)), -1), "
           "floor(cast(-1.25 as decimal(3, 2))), ceil(cast(-1.25 as decimal(3, 2))), "
           "round(2.5), round(id, -1), round(cast(2.5 as double)) from db.events where id = 5"),
      (Strings{"\"12.35\"|\"-12.3\"|\"10\"|\"-2\"|\"-1\"|\"3\"|10|3.0"}));
  ASSERT_EQ(last_.batches.size(), 1u);
  const auto& fields = last_.batches[0].schema->fields;
  EXPECT_EQ(fields[0].type.ToString(), "decimal(5, 2)");
  EXPECT_EQ(fields[1].type.ToString(), "decimal(5, 1)");
  EXPECT_EQ(fields[2].type.ToString(), "decimal(5, 0)");
  EXPECT_EQ(fields[3].type.ToString(), "decimal(3, 0)");
  EXPECT_EQ(fields[5].type.ToString(), "decimal(2, 0)");
  EXPECT_EQ(fields[6].type.ToString(), "int64");
  EXPECT_EQ(fields[7].type.ToString(), "double");
  // Literal arithmetic is exact (TPC-H's own Q06 text: BETWEEN .06 - 0.01 AND .06 + 0.01).
  EXPECT_EQ(Rows("select .06 - 0.01, .06 + 0.01, 0.1 + 0.2, 1e1"),
            (Strings{R"("0.05"|"0.07"|"0.3"|10.0)"}));
  EXPECT_EQ(Rows("select round(cast(12.345 as decimal(5, 3)), id) from db.events where id = 1"),
            (Strings{"12.3"}));
  // +, - and * of decimals stay exact (an integer is a decimal of scale 0), as in DuckDB: the sum
  // at the larger scale, the product at the sum of the scales. Division is in doubles.
  EXPECT_EQ(Rows("select cast(0.1 as decimal(3, 1)) + cast(0.2 as decimal(3, 2)), "
                 "cast(19.99 as decimal(5, 2)) * (1 - cast(0.07 as decimal(3, 2))), "
                 "-cast(2.5 as decimal(2, 1)) - id, cast(1.5 as decimal(2, 1)) / 2 "
                 "from db.events where id = 3"),
            (Strings{R"("0.30"|"18.5907"|"-5.5"|0.75)"}));
  const auto& exact = last_.batches[0].schema->fields;
  EXPECT_EQ(exact[0].type.ToString(), "decimal(5, 2)");
  EXPECT_EQ(exact[1].type.ToString(), "decimal(27, 4)");
  EXPECT_EQ(exact[2].type.ToString(), "decimal(21, 1)");
  // The same a column at a time, NULLs kept.
  EXPECT_EQ(Rows("select id, cast(amount as decimal(6, 1)) * id - cast(nullif(id, 2) as "
                 "decimal(3, 0)) from db.events where id < 4 order by id"),
            (Strings{R"(0|"0.0")", R"(1|"0.5")", "2|null", R"(3|"10.5")"}));
  EXPECT_EQ(ErrorOf("select cast(1e37 as decimal(38, 0)) * 100 from db.events where id = 3"),
            "invalid input: at line 1, column 37: decimal overflow in *: the result needs more "
            "than 38 digits");
  EXPECT_EQ(ErrorOf("select ln(id - 5) from db.events where id = 5"),
            "invalid input: ln: cannot take the logarithm of zero");
  EXPECT_EQ(ErrorOf("select sqrt(id - 7) from db.events where id = 5"),
            "invalid input: sqrt: cannot take the square root of a negative number (-2)");
  EXPECT_EQ(ErrorOf("select round(customer) from db.events"),
            "invalid input: at line 1, column 8: type mismatch: round expects a number, got "
            "string");
  EXPECT_EQ(ErrorOf("select lpad(customer, 'x', 'y') from db.events"),
            "invalid input: at line 1, column 8: type mismatch: lpad expects an integer, got "
            "string");
}

// The aggregates beyond count/sum/avg/min/max, with DuckDB's answers for these rows worked out by
// hand: day 1 holds ids 0..24 with amount = 1.5 * id, customer c{id % 5} but NULL for id 7.
TEST_F(EngineTest, StatisticalOrderedAndFilteredAggregates) {
  EXPECT_EQ(Rows("select count_if(amount > 30), bool_and(id >= 0), bool_or(id > 98), median(id), "
                 "quantile_disc(id, 0.9), quantile_cont(id, 0.1), var_pop(id % 2), "
                 "var_samp(id % 2) from db.events where day = '2024-01-03'"),
            // DuckDB's doubles to the last bit: (25 - 1) * 0.1 is 2.4000000000000004.
            (Strings{"4|true|false|12.0|22|2.4000000000000004|0.24960000000000002|0.26"}));
  EXPECT_EQ(Rows("select string_agg(customer, ',' order by id desc) filter (where id < 9), "
                 "arg_max(customer, id), min_by(amount, id), count(*) filter (where customer is "
                 "null), percentile_cont(0.25) within group (order by amount), median(customer), "
                 "count_if(id < 0) from db.events"),
            (Strings{"\"c3,c1,c0,c4,c3,c2,c1,c0\"|\"c4\"|0.0|4|9.0|\"c2\"|0"}));
  // Over no rows: NULL, but 0 for count (DuckDB's count_if is NULL too).
  EXPECT_EQ(Rows("select count(*), count_if(id > 0), stddev(amount), median(amount), "
                 "string_agg(customer) from db.events where id < 0"),
            (Strings{"0|null|null|null|null"}));
  EXPECT_EQ(ErrorOf("select stddev(customer) from db.events"),
            "invalid input: at line 1, column 8: type mismatch: stddev of string is not defined");
  EXPECT_EQ(ErrorOf("select quantile_cont(id, 1.5) from db.events"),
            "invalid input: at line 1, column 26: quantile_cont's fraction must be a number "
            "between 0 and 1");
  EXPECT_EQ(ErrorOf("select count(*) filter (where customer) from db.events"),
            "invalid input: at line 1, column 31: FILTER takes a boolean condition, not string");
  EXPECT_EQ(ErrorOf("select string_agg(customer, customer) from db.events"),
            "invalid input: at line 1, column 29: string_agg's separator must be a constant");
}

// Dates and times with DuckDB's answers (worked out by hand) and Spark's two-argument spellings.
TEST_F(EngineTest, DateFunctionsAndTheirErrors) {
  EXPECT_EQ(Rows("select date_diff('month', date '2024-01-31', date '2024-02-01'), "
                 "date_sub('month', date '2024-01-31', date '2024-02-29'), "
                 "date_sub('month', date '2024-01-15', date '2024-03-14'), "
                 "datediff('day', date '2024-01-10', date '2024-01-01'), "
                 "datediff(date '2024-01-10', date '2024-01-01'), "
                 "date_sub(date '2024-03-01', 1), date_add(date '2024-02-28', 2), "
                 "make_date(2024, 2, 29), last_day(day), dayname(day), isodow(day), "
                 "yearweek(day) from db.events where id = 0"),
            (Strings{"1|1|1|-9|9|\"2024-02-29\"|\"2024-03-01\"|\"2024-02-29\"|\"2024-01-31\"|"
                     "\"Wednesday\"|3|202401"}));
  EXPECT_EQ(Rows("select strftime(day, '%d/%m/%Y %a %j'), "
                 "strptime('Mar 5 2024 2:07:09 PM', '%b %d %Y %I:%M:%S %p'), "
                 "epoch_ms(strptime('1970-01-01 00:00:01.2345', '%Y-%m-%d %H:%M:%S.%f')), "
                 "try_strptime('x', '%Y') from db.events where id = 0"),
            (Strings{"\"03/01/2024 Wed 003\"|\"2024-03-05T14:07:09.000000\"|1235|null"}));
  EXPECT_EQ(ErrorOf("select make_date(2024, 2, 30) from db.events"),
            "invalid input: at line 1, column 8: make_date: 2024-2-30 is not a date");
  EXPECT_EQ(ErrorOf("select strptime('2024-13-01', '%Y-%m-%d') from db.events"),
            "invalid input: at line 1, column 8: strptime: '2024-13-01' does not match the format "
            "'%Y-%m-%d'");
  EXPECT_EQ(ErrorOf("select strftime(day, '%Q') from db.events"),
            "invalid input: at line 1, column 8: strftime: unsupported format specifier '%Q' in "
            "'%Q'");
  EXPECT_EQ(ErrorOf("select date_diff('fortnight', day, day) from db.events"),
            "invalid input: at line 1, column 8: date_diff: unknown unit 'fortnight'");
}

// Regular expressions (RE2), as DuckDB reads them: `~` anywhere, SIMILAR TO the whole string.
TEST_F(EngineTest, RegularExpressionsAndTheirErrors) {
  // Per day: c1 at 1, 6, 11, 16, 21; c2 at 2, 12, 17, 22 (7 is NULL).
  EXPECT_EQ(Rows("select count(*) from db.events where customer ~ '^c[12]$'"), (Strings{"36"}));
  EXPECT_EQ(Rows("select count(*) from db.events where customer similar to 'c[12]'"),
            (Strings{"36"}));
  EXPECT_EQ(Rows("select regexp_replace(customer, '(c)(\\d)', '\\2\\1'), "
                 "regexp_extract('k=v;x=y', '(\\w)=(\\w)', 2), "
                 "regexp_replace('a1b22', '[0-9]+', '#', 'g'), 'C3' ~* 'c', "
                 "rlike(customer, 'C', 'i') from db.events where id = 3"),
            (Strings{"\"3c\"|\"v\"|\"a#b#\"|true|true"}));
  EXPECT_EQ(ErrorOf("select count(*) from db.events where customer ~ '('"),
            "invalid input: at line 1, column 47: regexp_matches: bad pattern '(': missing ): (");
  EXPECT_EQ(ErrorOf("select regexp_extract(customer, 'c', 1) from db.events"),
            "invalid input: at line 1, column 8: regexp_extract: the pattern has no group 1");
  EXPECT_EQ(ErrorOf("select regexp_matches(customer, 'c', 'x') from db.events"),
            "invalid input: at line 1, column 8: regexp_matches: unknown option 'x' (i, c, g, s, "
            "n)");
}

// TRY_CAST, which Postgres's grammar lacks: NULL where CAST fails; an impossible cast still fails.
TEST_F(EngineTest, TryCastIsNullWhereCastFails) {
  EXPECT_EQ(Rows("select try_cast(customer as integer), TRY_CAST('12' AS INT), "
                 "try_cast(id * 100000000000 as int), try_cast('2024-02-30' as date), "
                 "cast('7' as int) from db.events where id = 21"),
            (Strings{"null|12|null|null|7"}));
  EXPECT_EQ(ErrorOf("select cast(customer as integer) from db.events where id = 21"),
            "invalid input: malformed integer literal 'c1'");
  EXPECT_EQ(ErrorOf("select try_cast(day as boolean) from db.events"),
            "invalid input: at line 1, column 8: type mismatch: cannot cast date to boolean");
}

// ROLLUP, CUBE and GROUPING SETS: each set aggregated apart, the keys it leaves out NULL, and
// GROUPING() telling a left-out key from a NULL one (customer is NULL at one row in 25).
TEST_F(EngineTest, RollupCubeAndGroupingSets) {
  EXPECT_EQ(Rows("select day, count(*), grouping(day) from db.events group by rollup (day) "
                 "order by 3, 1"),
            (Strings{"\"2024-01-03\"|25|0", "\"2024-01-04\"|25|0", "\"2024-01-05\"|25|0",
                     "\"2024-01-06\"|25|0", "null|100|1"}));
  EXPECT_EQ(Rows("select customer, sum(id), grouping_id(day, customer) from db.events "
                 "where day = '2024-01-03' group by grouping sets ((customer), (day), ()) "
                 "order by 3, 1 nulls first"),
            // day 1: ids 0..24; c0 = 0+5+10+15+20, NULL = 7, c2 = 2+12+17+22, c4 = 4+9+...+24.
            (Strings{"null|300|1", "null|7|2", "\"c0\"|50|2", "\"c1\"|55|2", "\"c2\"|53|2",
                     "\"c3\"|65|2", "\"c4\"|70|2", "null|300|3"}));
  // 4 days x 6 customers (NULL among them) + 4 + 6 + 1.
  EXPECT_EQ(
      Rows("select day, customer, count(*) from db.events group by cube (day, customer)").size(),
      35u);
  EXPECT_EQ(Rows("select day, grouping_id() from db.events where id = 0 group by day"),
            (Strings{"\"2024-01-03\"|0"}));
  EXPECT_EQ(ErrorOf("select grouping(id) from db.events group by rollup (day)"),
            "invalid input: at line 1, column 17: grouping's arguments must be GROUP BY keys");
}

// DuckDB's GROUP BY ALL: the keys are the SELECT items without an aggregate, as if listed --
// expressions, in a subquery and a CTE too; a constant item is no key (`1` would be read as a
// position). Followed by keys, ALL is Postgres's set quantifier. With * it is an error naming it.
TEST_F(EngineTest, GroupByAllGroupsByEveryItemWithoutAnAggregate) {
  const std::string listed =
      "select day, upper(customer) as c, 7 as seven, count(*), sum(id) % 100 from db.events "
      "where id < 40 group by day, upper(customer) order by 1, 2";
  const Strings want = Rows(listed);
  ASSERT_EQ(want.size(), 12u);  // two days, six customers (NULL among them)
  EXPECT_EQ(Rows("select day, upper(customer) as c, 7 as seven, count(*), sum(id) % 100 "
                 "from db.events where id < 40 GROUP BY ALL order by 1, 2"),
            want);
  EXPECT_EQ(Rows("select count(*) from (select day, customer from db.events group by all) x "
                 "group by all"),
            (Strings{"24"}));
  EXPECT_EQ(Rows("with d as (select day, count(*) as n from db.events group by all) "
                 "select n, count(*) from d group by all having count(*) > 1"),
            (Strings{"25|4"}));
  EXPECT_EQ(Rows("select count(*) from db.events group by all"), (Strings{"100"}));
  EXPECT_EQ(Rows("select count(*) from db.events group by all day order by 1").size(), 4u);
  EXPECT_EQ(ErrorOf("select * from db.events group by all"),
            "unsupported: at line 1, column 8: floe does not support GROUP BY ALL with *");
}

// The catalog's statements, as DuckDB and Spark users type them.
TEST_F(EngineTest, ShowTablesNamespacesAndDescribe) {
  EXPECT_EQ(Rows("show tables"), (Strings{"\"db\"|\"events\""}));
  EXPECT_EQ(Rows("SHOW TABLES IN db;"), (Strings{"\"db\"|\"events\""}));
  EXPECT_EQ(Rows("show schemas"), (Strings{"\"db\""}));
  EXPECT_EQ(Rows("show all tables"), (Strings{"\"db\"|\"events\"|\"[id, day, customer, amount]\"|"
                                              "\"[long, date, string, double]\""}));
  EXPECT_EQ(
      Rows("describe db.events"),
      (Strings{"\"id\"|\"long\"|\"NO\"|1|\"\"", "\"day\"|\"date\"|\"YES\"|2|\"\"",
               "\"customer\"|\"string\"|\"YES\"|3|\"\"", "\"amount\"|\"double\"|\"YES\"|4|\"\""}));
  EXPECT_EQ(ErrorOf("show tables from nosuch"), "not found: namespace 'nosuch' does not exist");
  EXPECT_EQ(ErrorOf("describe db.events extra"), "invalid input: DESCRIBE: unexpected 'extra'");
  EXPECT_EQ(ErrorOf("describe select 1"), "unsupported: DESCRIBE of a query");
}

// The chapter's "one day's revenue" on a day-partitioned table: the three other days' files are
// never opened, and the requests (metadata included) are exact for this fixed layout.
TEST_F(EngineTest, OneDaysRevenueOpensOneFileWithExactRequests) {
  counter_->Reset();
  EXPECT_EQ(Rows("select sum(amount) from db.events where day = '2024-01-05'"), (Strings{"450.0"}));
  io::RequestCounts c = counter_->Snapshot();
  EXPECT_EQ(last_.stats.data_files_opened, 1);
  EXPECT_EQ(last_.stats.data_files_skipped_partition, 3);
  EXPECT_EQ(last_.stats.data_files_skipped_bounds, 0);
  // metadata.json, manifest list, the manifest whose summary matches, one GET for the small file.
  EXPECT_EQ(c.get, 4u);
  EXPECT_EQ(c.head, 0u);
  EXPECT_EQ(c.list, 0u);
}

// A timestamp range prunes by the column's statistics and page index (the literal is in Iceberg's
// microseconds, as the file's values are): db.clicks holds 4,000 rows a minute apart in one file
// of 4 row groups of 1,000 rows, pages of 100 rows. 01:40 <= ts < 03:00 is rows 100..179: only
// row group 0 (3 pruned by statistics), where the index keeps page 1 (rows 100-199) of each
// column's 10: 9 skipped in each of the 2 columns.
// Checked over the scan's own row filter alone (the WHERE is pushed whole) and against a sum of
// ids the test computes.
TEST_F(EngineTest, TimestampRangePrunesRowGroupsAndPages) {
  const int64_t base = 1704067200LL * 1'000'000;  // 2024-01-01 00:00:00
  PagedIdTable("db.clicks", "ts", iceberg::Primitive(iceberg::TypeId::kTimestamp),
               columnar::Timestamp(columnar::TimeUnit::kMicro),
               [base](int64_t i) { return Value::Int(base + i * 60'000'000); });

  int64_t want = 0;
  for (int64_t i = 100; i < 180; ++i) want += i;
  EXPECT_EQ(Rows("select sum(id), count(*) from db.clicks where ts >= timestamp '2024-01-01 "
                 "01:40:00' and ts < timestamp '2024-01-01 03:00:00'"),
            (Strings{std::to_string(want) + "|80"}));
  EXPECT_EQ(last_.stats.data_files_opened, 1);
  EXPECT_EQ(last_.stats.row_groups_read, 1);
  EXPECT_EQ(last_.stats.row_groups_skipped, 3);
  EXPECT_EQ(last_.stats.pages_skipped, 18);

  // Ranges over whole pages, which the page index proves match without the rows being filtered
  // (pages 1 and 2: rows 100-299), and a whole page plus part of the next (rows 100-249).
  for (auto [until, last] : {std::pair{"05:00:00", 300}, std::pair{"04:10:00", 250}}) {
    int64_t sum = 0;
    for (int64_t i = 100; i < last; ++i) sum += i;
    EXPECT_EQ(Rows(fmt::format("select sum(id), count(*) from db.clicks where ts >= timestamp "
                               "'2024-01-01 01:40:00' and ts < timestamp '2024-01-01 {}'",
                               until)),
              (Strings{fmt::format("{}|{}", sum, last - 100)}))
        << until;
    EXPECT_EQ(last_.stats.row_groups_read, 1);
    EXPECT_EQ(last_.stats.pages_skipped, 2 * 8);
  }
}

// A range on a decimal column is pushed into the scan exactly (the constants at the column's
// scale): row groups and pages outside it are skipped as for any ordered type, and a constant no
// decimal(15, 2) holds still answers exactly. price = id * 1.25 for ids 0..3999.
TEST_F(EngineTest, DecimalRangePrunesRowGroupsAndPages) {
  PagedIdTable("db.prices", "price", iceberg::Decimal(15, 2), columnar::Decimal128(15, 2),
               [](int64_t i) { return Value{static_cast<__int128>(i * 125)}; });

  int64_t want = 0;
  for (int64_t i = 100; i < 180; ++i) want += i;
  EXPECT_EQ(Rows("select sum(id), count(*) from db.prices where price >= 125.0 and price < 225"),
            (Strings{std::to_string(want) + "|80"}));
  EXPECT_EQ(last_.stats.data_files_opened, 1);
  EXPECT_EQ(last_.stats.row_groups_read, 1);
  EXPECT_EQ(last_.stats.row_groups_skipped, 3);
  EXPECT_EQ(last_.stats.pages_skipped, 18);
  // 4998.745 and 0.125 are not decimal(15, 2) values: the last price (4998.75) is above the one,
  // and no price equals the other.
  EXPECT_EQ(Rows("select id from db.prices where price > 4998.745"), (Strings{"3999"}));
  EXPECT_EQ(Rows("select count(*) from db.prices where price = 0.125 or price = 1.25"),
            (Strings{"1"}));
}

// Columns only a WHERE reads, when the scan decides the WHERE whole: filtered (strings through a
// matcher on their dictionary), never handed out. Counted against the fixture's rows: customer
// c<i % 5> for i in 0..24 but i = 7 (NULL), ids d * 25 + i over days d = 0..3.
TEST_F(EngineTest, WhereOnlyColumnsAreFilteredAndTheAnswersStayExact) {
  int64_t count = 0, sum = 0, both = 0;
  for (int d = 0; d < 4; ++d) {
    for (int i = 0; i < 25; ++i) {
      if (i == 7 || i % 5 != 1) continue;
      ++count;
      sum += d * 25 + i;
      both += d * 25 + i >= 40;
    }
  }
  EXPECT_EQ(Rows("select count(*) from db.events where customer = 'c1'"),
            (Strings{std::to_string(count)}));
  EXPECT_EQ(Rows("select count(*), sum(id) from db.events where customer = 'c1'"),
            (Strings{fmt::format("{}|{}", count, sum)}));
  EXPECT_EQ(Rows("select count(*) from db.events where customer = 'c1' and id >= 40"),
            (Strings{std::to_string(both)}));
  // NULL neither equals nor differs: <> 'c2' leaves out c2's rows and the NULL ones.
  int64_t not_c2 = 0;
  for (int i = 0; i < 25; ++i) not_c2 += i != 7 && i % 5 != 2;
  EXPECT_EQ(Rows("select count(*) from db.events where customer <> 'c2'"),
            (Strings{std::to_string(4 * not_c2)}));
  EXPECT_EQ(Rows("select count(*) from db.events where customer is null"), (Strings{"4"}));
}

// Timestamps are microseconds over int64's whole range: a literal past 2262 (the end of int64
// nanoseconds) compares as the instant it names, and one past 294247 is an error, not a wrap.
TEST_F(EngineTest, TimestampLiteralsSpanTheMicrosecondRange) {
  iceberg::Warehouse& w = engine_->warehouse();
  iceberg::Schema schema(0, {{1, "id", true, iceberg::Primitive(iceberg::TypeId::kLong)},
                             {2, "ts", false, iceberg::Primitive(iceberg::TypeId::kTimestampTz)}});
  auto id = catalog::TableIdentifier::Parse("db.far").value();
  ASSERT_TRUE(iceberg::CreateTable(*w.catalog, *w.io, id, {schema, {}, {}, {}, ""}));
  iceberg::TableDataWriter writer(iceberg::LoadTable(*w.catalog, *w.io, id).value(), *w.io);
  ValueColumnBuilder ids(columnar::Int64()),
      ts(columnar::Timestamp(columnar::TimeUnit::kMicro, "UTC"));
  const int64_t y2024 = 1704240000LL * 1'000'000;    // 2024-01-03
  const int64_t y9999 = 253402214400LL * 1'000'000;  // 9999-12-31
  for (auto [i, v] : {std::pair{int64_t{1}, y2024}, std::pair{int64_t{2}, y9999}}) {
    ASSERT_TRUE(ids.Append(Value::Int(i)));
    ASSERT_TRUE(ts.Append(Value::Int(v)));
  }
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(
      columnar::Schema{{{"id", columnar::Int64(), false, 1},
                        {"ts", columnar::Timestamp(columnar::TimeUnit::kMicro, "UTC"), true, 2}}});
  b.columns = {ids.Finish(), ts.Finish()};
  b.num_rows = 2;
  ASSERT_TRUE(writer.Write(b));
  ASSERT_TRUE(iceberg::AppendFiles(*w.catalog, *w.io, id, writer.Finish().value()));

  EXPECT_EQ(Rows("select id from db.far where ts < '9999-12-31'"), (Strings{"1"}));
  EXPECT_EQ(Rows("select id from db.far where ts <= '9999-12-31'"), (Strings{"1", "2"}));
  EXPECT_EQ(Rows("select count(*) from db.far where ts < '2262-04-11 23:47:17'"), (Strings{"1"}));
  EXPECT_EQ(Rows("select count(*) from db.far where ts > '2262-04-11 23:47:16'"), (Strings{"1"}));
  EXPECT_EQ(Rows("select id from db.far where ts = cast('9999-12-31' as timestamp)"),
            (Strings{"2"}));
  EXPECT_EQ(Rows("select id from db.far where ts > '99999-01-01'"), (Strings{}));
  EXPECT_EQ(ErrorOf("select id from db.far where ts > '294248-01-01'"),
            "invalid input: at line 1, column 32: timestamp literal '294248-01-01' is out of "
            "range (timestamps are microseconds: years -290308 to 294247)");
}

TEST_F(EngineTest, CastsCheckTheTargetRange) {
  EXPECT_EQ(Rows("select cast(2147483647 as int), cast(-32768 as smallint), cast(-128 as "
                 "tinyint), cast(12.35 as decimal(4,1)), cast(-12.35 as decimal(4,1))"),
            (Strings{"2147483647|-32768|-128|\"12.4\"|\"-12.4\""}));
  EXPECT_EQ(ErrorOf("select cast(2147483648 as int)"),
            "invalid input: at line 1, column 8: value 2147483648 is out of range for INTEGER");
  EXPECT_EQ(ErrorOf("select cast(123.456 as decimal(3,1))"),
            "invalid input: at line 1, column 8: value 123.456 is out of range for DECIMAL(3,1)");
  EXPECT_EQ(ErrorOf("select cast(12345 as decimal(4,0))"),
            "invalid input: at line 1, column 8: value 12345 is out of range for DECIMAL(4,0)");
  EXPECT_EQ(ErrorOf("select cast(1e30 as bigint)"),
            "invalid input: at line 1, column 8: value 1e+30 is out of range for BIGINT");
  // At run time too: ids reach 99, which TINYINT holds, but not 99 * 2.
  EXPECT_EQ(Rows("select max(cast(id as tinyint)) from db.events"), (Strings{"99"}));
  EXPECT_EQ(ErrorOf("select max(cast(id * 2 as tinyint)) from db.events where id = 65"),
            "invalid input: value 130 is out of range for TINYINT");
}

TEST_F(EngineTest, LimitAndOffsetNearInt64MaxDoNotWrap) {
  EXPECT_EQ(Rows("select id from db.events where id < 3 limit 9223372036854775807 offset 1").size(),
            2u);
  EXPECT_EQ(Rows("select id from db.events order by id limit 9223372036854775807 offset 98"),
            (Strings{"98", "99"}));
  EXPECT_EQ(Rows("select id from db.events order by id desc limit 4611686018427387904").size(),
            100u);
}

// CALL arguments are range-checked (they aborted the process through std::stoi), and older_than
// takes the ages --older-than does. libpg_query's JSON drops zero and negative integers: they are
// read back from the text.
TEST_F(EngineTest, CallArgumentsAreCheckedNotThrown) {
  const std::string call = "call system.expire_snapshots(table => 'db.events', ";
  EXPECT_EQ(ErrorOf(call + "retain_last => 'x')"),
            "invalid input: retain_last 'x' is not a whole number");
  EXPECT_EQ(ErrorOf(call + "retain_last => 2.5)"),
            "invalid input: retain_last '2.5' is not a whole number");
  EXPECT_EQ(ErrorOf(call + "retain_last => 4294967297)"),
            "invalid input: retain_last 4294967297 is out of range (1 to 2147483647)");
  EXPECT_EQ(ErrorOf(call + "retain_last => -5)"),
            "invalid input: retain_last -5 is out of range (1 to 2147483647)");
  EXPECT_EQ(ErrorOf(call + "older_than => '99999999999999999999')"),
            "invalid input: older_than '99999999999999999999': Unix milliseconds past the year 292 "
            "million");
  EXPECT_EQ(ErrorOf(call + "older_than => '99999999999999999999d')"),
            "invalid input: older_than '99999999999999999999d': an age past int64 milliseconds");
  EXPECT_EQ(Rows(call + "older_than => '3d', retain_last => 1)"), (Strings{"0|0|0|0|0"}));
  EXPECT_EQ(Rows("select -5, 0, 3 - 5"), (Strings{"-5|0|-2"}));
}

// Postgres's grammar truncates identifiers to 63 bytes; floe's names may be longer.
TEST_F(EngineTest, IdentifiersLongerThan63BytesResolve) {
  iceberg::Warehouse& w = engine_->warehouse();
  const std::string name(70, 'c'),
      col = "a_column_whose_name_runs_well_past_the_sixty_three_bytes_postgres_keeps";
  iceberg::Schema schema(0, {{1, col, true, iceberg::Primitive(iceberg::TypeId::kLong)}});
  auto id = catalog::TableIdentifier::Parse("db." + name).value();
  ASSERT_TRUE(iceberg::CreateTable(*w.catalog, *w.io, id, {schema, {}, {}, {}, ""}));
  EXPECT_EQ(Rows(fmt::format("select count({}), count(\"{}\") from db.{} where {} > -1", col, col,
                             name, col)),
            (Strings{"0|0"}));
  EXPECT_EQ(last_.schema->fields.size(), 2u);
  EXPECT_EQ(ErrorOf(fmt::format("select nosuch from db.{}", name)),
            fmt::format("not found: at line 1, column 8: column 'nosuch' not found in db.{} "
                        "(columns: {})",
                        name, col));
}

// With a sink, SELECT without aggregate or ORDER BY hands rows over as the scan makes them (one
// batch per data file here) and keeps none: memory follows a batch, not the answer. OFFSET and
// LIMIT hold across the streamed batches; other plans deliver their final rows to the sink.
TEST_F(EngineTest, ResultsStreamToASink) {
  std::vector<int64_t> sizes;
  std::multiset<int64_t> ids;
  QueryOptions o = options_;
  o.sink = [&](const columnar::RecordBatch& b) -> Status {
    sizes.push_back(b.num_rows);
    EXPECT_EQ(b.schema->fields[0].name, "x");
    for (int64_t r = 0; r < b.num_rows; ++r) ids.insert(b.columns[0]->Values<int64_t>()[r]);
    return {};
  };
  auto r = engine_->Execute("select id as x from db.events", o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->batches.empty());
  EXPECT_EQ(r->schema->fields[0].name, "x");
  EXPECT_EQ(sizes, (std::vector<int64_t>{25, 25, 25, 25}));  // four files, one batch each
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), 99);

  sizes.clear();
  ids.clear();
  o.threads = 1;
  ASSERT_TRUE(engine_->Execute("select id as x from db.events limit 30 offset 40", o));
  int64_t total = 0;
  for (int64_t n : sizes) total += n;
  EXPECT_EQ(total, 30);
  EXPECT_EQ(ids.size(), 30u);

  sizes.clear();
  ASSERT_TRUE(engine_->Execute("select count(*) as x from db.events", o));
  EXPECT_EQ(sizes, (std::vector<int64_t>{1}));

  // A sink's error stops the statement and is its error.
  o.sink = [](const columnar::RecordBatch&) -> Status { return IOError("stdout is closed"); };
  auto failed = engine_->Execute("select id as x from db.events", o);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "stdout is closed");
}

TEST_F(EngineTest, SingleThreadedGivesTheSameAnswer) {
  auto two = Rows("select customer, sum(id) from db.events group by customer order by 1");
  options_.threads = 1;
  EXPECT_EQ(Rows("select customer, sum(id) from db.events group by customer order by 1"), two);
}

int64_t RowsOf(ResultStream& s, int* batches) {
  int64_t rows = 0;
  while (true) {
    auto b = s.Next();
    EXPECT_TRUE(b) << b.error().ToString();
    if (!b || !*b) break;
    rows += (*b)->num_rows;
    ++*batches;
  }
  return rows;
}

TEST_F(EngineTest, ResultStreamsHandRowsOverAsTheyAreReadAndStopWhenLeft) {
  auto s = ResultStream::Start(std::make_unique<Engine>(*engine_),
                               "SELECT id, customer FROM db.events WHERE day >= DATE '2024-01-04'",
                               {}, /*capacity=*/1);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ((*s)->schema()->ToString(), "id: int64\ncustomer: string\n");
  int batches = 0;
  EXPECT_EQ(RowsOf(**s, &batches), 75);
  EXPECT_EQ(batches, 3);  // one a data file: the scan's batches, not one answer
  EXPECT_TRUE((*s)->done());
  EXPECT_EQ((*s)->stats().data_files_opened.value(), 3);
  EXPECT_EQ((*s)->stats().data_files_skipped_partition.value(), 1);

  // Errors of parsing and binding come from Start; the table is untouched by a copy's settings.
  auto bad =
      ResultStream::Start(std::make_unique<Engine>(*engine_), "SELECT nope FROM db.events", {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().ToString(),
            "not found: at line 1, column 8: column 'nope' not found in db.events (columns: id, "
            "day, customer, amount)");

  // Left after one batch, with the statement blocked on the full queue: it stops, and goes.
  auto left =
      ResultStream::Start(std::make_unique<Engine>(*engine_), "SELECT * FROM db.events", {}, 1);
  ASSERT_TRUE(left);
  ASSERT_TRUE((*left)->Next().value().has_value());
  EXPECT_FALSE((*left)->done());
  left->reset();

  // A statement run elsewhere to its end reads the same way.
  auto r = engine_->Execute("SELECT count(*) AS n FROM db.events", {});
  ASSERT_TRUE(r);
  auto finished = ResultStream::Finished(*r);
  EXPECT_TRUE(finished->schema()->ToString().starts_with("n: int64"));
  batches = 0;
  EXPECT_EQ(RowsOf(*finished, &batches), 1);
}

}  // namespace
}  // namespace floe::sql
