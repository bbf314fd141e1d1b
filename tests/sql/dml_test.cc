// DELETE and UPDATE through the SQL engine, in every write mode: copy-on-write (v2 and v3),
// merge-on-read v2 at file and at partition granularity, merge-on-read v3 (deletion vectors). Each
// test checks the answers after the statement and the exact table state it leaves (data files,
// delete files, deleted positions), so a mode that writes the wrong files fails here.
#include "floe/sql/engine.h"

#include <gtest/gtest.h>

#include <fstream>

#include "floe/exec/value.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/parquet/footer.h"
#include "support/answer_rows.h"
#include "support/temp_dir.h"

namespace floe::sql {
namespace {

using exec::Value;
using exec::ValueColumnBuilder;
using Strings = std::vector<std::string>;

struct Mode {
  const char* name;
  int format_version;
  std::map<std::string, std::string> properties;
};

// db.orders: 100 orders over 4 days (partitioned by day), appended as two snapshots (days 1-2,
// then 3-4): four data files of 25 rows. qty is an int column (narrower than exec's int64).
class DmlTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    iceberg::WarehouseOptions o;
    o.uri = dir_.str();
    auto w = iceberg::OpenWarehouse(o);
    ASSERT_TRUE(w) << w.error().ToString();
    iceberg::Schema schema(0, {{1, "id", true, iceberg::Primitive(iceberg::TypeId::kLong)},
                               {2, "day", false, iceberg::Primitive(iceberg::TypeId::kDate)},
                               {3, "status", false, iceberg::Primitive(iceberg::TypeId::kString)},
                               {4, "amount", false, iceberg::Primitive(iceberg::TypeId::kDouble)},
                               {5, "qty", false, iceberg::Primitive(iceberg::TypeId::kInt)}});
    auto id = catalog::TableIdentifier::Parse("db.orders").value();
    auto spec = iceberg::PartitionSpec::Parse("day", schema).value();
    iceberg::CreateTableOptions create{schema, spec, {}, GetParam().properties, ""};
    create.format_version = GetParam().format_version;
    auto t = iceberg::CreateTable(*w->catalog, *w->io, id, create);
    ASSERT_TRUE(t) << t.error().ToString();
    for (int half = 0; half < 2; ++half) {
      iceberg::TableDataWriter writer(iceberg::LoadTable(*w->catalog, *w->io, id).value(), *w->io);
      ValueColumnBuilder ids(columnar::Int64()), days(columnar::Date32()),
          statuses(columnar::String()), amounts(columnar::Float64());
      columnar::FixedWidthBuilder<int32_t> qty(columnar::Int32());
      for (int d = half * 2; d < half * 2 + 2; ++d) {
        for (int i = 0; i < 25; ++i) {
          const int64_t row = d * 25 + i;
          ASSERT_TRUE(ids.Append(Value::Int(row)));
          ASSERT_TRUE(days.Append(Value::Int(19725 + d)));  // 2024-01-03 ..
          ASSERT_TRUE(statuses.Append(Value::Str(i % 3 == 0 ? "open" : "shipped")));
          ASSERT_TRUE(amounts.Append(Value::Double(static_cast<double>(row))));
          qty.Append(static_cast<int32_t>(i));
        }
      }
      columnar::RecordBatch b;
      b.schema = std::make_shared<columnar::Schema>(
          columnar::Schema{{{"id", columnar::Int64(), false, 1},
                            {"day", columnar::Date32(), true, 2},
                            {"status", columnar::String(), true, 3},
                            {"amount", columnar::Float64(), true, 4},
                            {"qty", columnar::Int32(), true, 5}}});
      b.columns = {ids.Finish(), days.Finish(), statuses.Finish(), amounts.Finish(), qty.Finish()};
      b.num_rows = 50;
      ASSERT_TRUE(writer.Write(b));
      auto files = writer.Finish();
      ASSERT_TRUE(files) << files.error().ToString();
      ASSERT_TRUE(iceberg::AppendFiles(*w->catalog, *w->io, id, *files));
    }
    engine_ = std::make_unique<Engine>(std::move(*w));
  }

  Strings Rows(const std::string& sql) {
    auto r = engine_->Execute(sql);
    EXPECT_TRUE(r) << sql << ": " << r.error().ToString();
    if (!r) return {};
    last_ = *r;
    return testing::AnswerRows(r->batches);
  }
  std::string ErrorOf(const std::string& sql) {
    auto r = engine_->Execute(sql);
    EXPECT_FALSE(r) << sql;
    return r ? "" : r.error().ToString();
  }
  std::string One(const std::string& sql) {
    Strings r = Rows(sql);
    return r.size() == 1 ? r[0] : "rows: " + std::to_string(r.size());
  }
  // "data files|delete files|deleted positions" of the current snapshot.
  std::string State() {
    return One("select count(*) from db.orders.data_files") + "|" +
           One("select count(*) from db.orders.delete_files") + "|" +
           One("select count(*) from db.orders.position_deletes");
  }
  std::string Snapshot() { return One("select max(snapshot_id) from db.orders.snapshots"); }

  bool CopyOnWrite() const {
    for (const auto& [k, v] : GetParam().properties) {
      if (v == "merge-on-read") return false;
    }
    return true;
  }
  bool PartitionScoped() const {
    return GetParam().properties.contains("write.delete.granularity");
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  QueryResult last_;
};

TEST_P(DmlTest, DeleteRemovesExactlyTheMatchingRows) {
  EXPECT_EQ(Rows("delete from db.orders where id % 10 = 0"), (Strings{"10|10|0|0"}));
  EXPECT_EQ(One("select count(*), sum(id), min(id) from db.orders"), "90|4500|1");
  EXPECT_EQ(One("select count(*) from db.orders where id % 10 = 0"), "0");
  // Each of the four files held matches: copy-on-write rewrote them all; merge-on-read wrote one
  // delete file (or vector) per data file.
  EXPECT_EQ(State(), CopyOnWrite() ? "4|0|0" : "4|4|10");
  // A second DELETE: file-scoped deletes and vectors are merged with the file's earlier ones (the
  // old ones removed in the same commit); partition-scoped ones are added beside.
  EXPECT_EQ(Rows("delete from db.orders where id % 10 = 1"), (Strings{"10|10|0|0"}));
  EXPECT_EQ(One("select count(*), sum(id) from db.orders"), "80|4040");
  EXPECT_EQ(State(), CopyOnWrite() ? "4|0|0" : PartitionScoped() ? "4|8|20" : "4|4|20");
  const std::string op =
      One("select operation from db.orders.snapshots order by committed_at "
          "desc limit 1");
  EXPECT_EQ(op, CopyOnWrite() ? "\"overwrite\"" : "\"delete\"");
}

TEST_P(DmlTest, DeletePrunesByPartitionAndTouchesOnlyFilesWithMatches) {
  EXPECT_EQ(Rows("delete from db.orders where day = '2024-01-04' and id = 30"),
            (Strings{"1|1|0|0"}));
  EXPECT_EQ(last_.stats.data_files_skipped_partition, 3);
  EXPECT_EQ(One("select count(*) from db.orders"), "99");
  EXPECT_EQ(State(), CopyOnWrite() ? "4|0|0" : "4|1|1");
  // Copy-on-write rewrote only that day's file: 24 rows in it now.
  EXPECT_EQ(One("select count(*) from db.orders.data_files where record_count = 24"),
            CopyOnWrite() ? "1" : "0");
}

TEST_P(DmlTest, DeleteOfEveryRowOfAFile) {
  EXPECT_EQ(Rows("delete from db.orders where day = '2024-01-03'"), (Strings{"25|25|0|0"}));
  EXPECT_EQ(One("select count(*), min(id) from db.orders"), "75|25");
  EXPECT_EQ(State(), CopyOnWrite() ? "3|0|0" : "4|1|25");
}

TEST_P(DmlTest, DeleteMatchingNothingCommitsNothing) {
  const std::string before = Snapshot();
  EXPECT_EQ(Rows("delete from db.orders where id > 1000"), (Strings{"0|0|0|0"}));
  EXPECT_EQ(last_.message, "DELETE: no rows matched; nothing was committed");
  EXPECT_EQ(Snapshot(), before);
}

TEST_P(DmlTest, DeleteWithoutWhereEmptiesTheTable) {
  EXPECT_EQ(Rows("delete from db.orders"), (Strings{"100|100|0|0"}));
  EXPECT_EQ(One("select count(*) from db.orders"), "0");
}

TEST_P(DmlTest, UpdateWritesNewValuesAndKeepsTheOthers) {
  // 18 open orders among ids 0-49 (every third of each day's 25); their ids sum to 441.
  EXPECT_EQ(Rows("update db.orders set status = 'paid', amount = amount * 2, qty = qty + 100 "
                 "where status = 'open' and id < 50"),
            (Strings{"18|0|18|0"}));
  EXPECT_EQ(One("select count(*), sum(id), sum(amount), sum(qty) from db.orders"),
            "100|4950|5391.0|3000");
  EXPECT_EQ(One("select count(*) from db.orders where status = 'paid'"), "18");
  EXPECT_EQ(One("select count(*) from db.orders where status = 'open'"), "18");
  EXPECT_EQ(Rows("select id, status, amount, qty from db.orders where id in (3, 4) order by id"),
            (Strings{"3|\"paid\"|6.0|103", "4|\"shipped\"|4.0|4"}));
  // Merge-on-read: the two files of days 1-2 got deletes, and the 18 new rows one file per day.
  EXPECT_EQ(State(), CopyOnWrite() ? "4|0|0" : "6|2|18");
}

TEST_P(DmlTest, CopyOnWriteUpdatesRewriteTheirFilesInPlace) {
  // ids 30-32 of day 2024-01-04 (ids 25-49, qty = id - 25).
  EXPECT_EQ(Rows("update db.orders set amount = amount + qty where id between 30 and 32"),
            (Strings{"3|0|3|0"}));
  // The scan read the file, and the rewrite its amount column (or all of it).
  EXPECT_EQ(last_.stats.data_files_opened, CopyOnWrite() ? 2 : 1);
  if (CopyOnWrite() && GetParam().format_version == 2) {
    EXPECT_NE(last_.message.find("1 data files added (1 rewritten in place"), std::string::npos)
        << last_.message;
    EXPECT_EQ(One("select string_agg(cast(id as string), ',' order by _pos) from db.orders "
                  "where day = '2024-01-04' and id < 35"),
              "\"25,26,27,28,29,30,31,32,33,34\"");
  }
  EXPECT_EQ(Rows("select id, status, amount, qty from db.orders where id between 29 and 33 "
                 "order by id"),
            (Strings{R"(29|"shipped"|29.0|4)", R"(30|"shipped"|35.0|5)", R"(31|"open"|37.0|6)",
                     R"(32|"shipped"|39.0|7)", R"(33|"shipped"|33.0|8)"}));
  EXPECT_EQ(One("select count(*), sum(id), sum(amount), sum(qty) from db.orders"),
            "100|4950|4968.0|1200");
  // Two small files of one partition are merged into one, as Spark's rewrite does.
  Rows("insert into db.orders values (500, date '2024-01-04', 'open', 9.0, 1)");
  EXPECT_EQ(Rows("update db.orders set qty = qty + 1 where id in (26, 500)"), (Strings{"2|0|2|0"}));
  if (CopyOnWrite()) {
    EXPECT_NE(last_.message.find("1 data files added, 2 removed"), std::string::npos)
        << last_.message;
  }
  EXPECT_EQ(Rows("select id, day, status, amount, qty from db.orders where id in (26, 30, 500) "
                 "order by id"),
            (Strings{R"(26|"2024-01-04"|"shipped"|26.0|2)", R"(30|"2024-01-04"|"shipped"|35.0|5)",
                     R"(500|"2024-01-04"|"open"|9.0|2)"}));
  EXPECT_EQ(One("select count(*), sum(amount), sum(qty) from db.orders"), "101|4977.0|1203");
}

TEST_P(DmlTest, UpdateOfThePartitionColumnMovesTheRow) {
  EXPECT_EQ(Rows("update db.orders set day = '2024-01-10' where id = 7"), (Strings{"1|0|1|0"}));
  EXPECT_EQ(One("select day, status from db.orders where id = 7"), "\"2024-01-10\"|\"shipped\"");
  EXPECT_EQ(One("select count(*) from db.orders where day = '2024-01-03'"), "24");
  EXPECT_EQ(One("select count(*) from db.orders.partitions"), "5");
}

TEST_P(DmlTest, UpdateErrorsNameWhatAndWhereAndChangeNothing) {
  const std::string before = Snapshot();
  EXPECT_EQ(ErrorOf("update db.orders set nope = 1"),
            "not found: at line 1, column 22: column 'nope' not found in db.orders");
  EXPECT_EQ(ErrorOf("update db.orders set qty = 1, qty = 2"),
            "invalid input: at line 1, column 31: column 'qty' is assigned more than once");
  EXPECT_EQ(ErrorOf("update db.orders set qty = 3000000000 where id = 1"),
            "invalid input: at line 1, column 22: column 'qty' is int: value 3000000000 is out of "
            "range for int32");
  EXPECT_EQ(ErrorOf("update db.orders set day = true"),
            "invalid input: at line 1, column 22: column 'day' is date: type mismatch: cannot cast "
            "boolean to date");
  EXPECT_EQ(ErrorOf("update db.orders set qty = 1 where nope = 2"),
            "not found: at line 1, column 36: column 'nope' not found in db.orders (columns: id, "
            "day, status, amount, qty)");
  EXPECT_EQ(ErrorOf("delete from db.orders where"),
            "invalid input: at line 1, column 28: syntax "
            "error at end of input");
  EXPECT_EQ(ErrorOf("delete from db.nope"),
            "not found: at line 1, column 13: table db.nope not found");
  EXPECT_EQ(ErrorOf("delete from db.orders.snapshots"),
            "invalid input: at line 1, column 13: DELETE needs an Iceberg table; a metadata table "
            "or table function cannot be changed");
  EXPECT_EQ(ErrorOf("update db.orders set qty = 1 returning id"),
            "unsupported: at line 1, column 40: floe does not support UPDATE ... RETURNING");
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(One("select count(*), sum(qty) from db.orders"), "100|1200");
}

TEST_P(DmlTest, MetadataColumnsNameEachRowsFileAndPosition) {
  // Day 2024-01-04's file holds ids 25-49 in that order.
  EXPECT_EQ(Rows("select id, _pos, _spec_id from db.orders where id in (3, 30) order by id"),
            (Strings{"3|3|0", "30|5|0"}));
  EXPECT_EQ(One("select count(distinct _file), min(_pos), max(_pos) from db.orders"), "4|0|24");
  EXPECT_EQ(One("select count(*) from db.orders where _file like '%day=2024-01-05%'"), "25");
  Rows("select * from db.orders limit 1");
  EXPECT_EQ(last_.schema->fields.size(), 5u);  // `*` leaves the metadata columns out
  if (GetParam().format_version < 3) return;
  // Row lineage: every row has an id; an updated row keeps it and takes the update's sequence
  // number, in either mode; the others keep theirs.
  EXPECT_EQ(One("select count(distinct _row_id), min(_row_id), max(_row_id) from db.orders"),
            "100|0|99");
  const std::string id3 =
      One("select _row_id, _last_updated_sequence_number from db.orders "
          "where id = 3");
  const std::string id4 =
      One("select _row_id, _last_updated_sequence_number from db.orders "
          "where id = 4");
  Rows("update db.orders set qty = 0 where id = 3");
  const std::string seq = One("select max(sequence_number) from db.orders.snapshots");
  EXPECT_EQ(One("select _row_id, _last_updated_sequence_number from db.orders where id = 3"),
            id3.substr(0, id3.find('|')) + "|" + seq);
  EXPECT_EQ(One("select _row_id, _last_updated_sequence_number from db.orders where id = 4"), id4);
  EXPECT_EQ(One("select count(distinct _row_id) from db.orders"), "100");
}

// MERGE INTO, its source a CSV file (read_csv) or a subquery.
class MergeTest : public DmlTest {
 protected:
  // A CSV source: id, status, amount, and optionally day and qty.
  std::string Source(const std::string& name, const std::string& csv) {
    const std::string path = dir_.str() + "/" + name;
    std::ofstream(path) << csv;
    return path;
  }
};

TEST_P(MergeTest, MatchedRowsAreUpdatedOrDeletedAndTheRestInserted) {
  const std::string src = Source("src.csv",
                                 "id,status,amount\n"
                                 "3,paid,300.5\n"
                                 "4,gone,0\n"
                                 "200,new,2.5\n"
                                 "201,new,3.5\n");
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src +
                 "') s ON t.id = s.id "
                 "WHEN MATCHED AND s.status = 'gone' THEN DELETE "
                 "WHEN MATCHED THEN UPDATE SET status = s.status, amount = s.amount "
                 "WHEN NOT MATCHED THEN INSERT (id, day, status, amount, qty) "
                 "VALUES (s.id, DATE '2024-01-05', s.status, s.amount, 1)"),
            (Strings{"4|1|1|2"}));
  EXPECT_EQ(Rows("select id, day, status, amount, qty from db.orders where id in (3, 4, 200, 201) "
                 "order by id"),
            (Strings{"3|\"2024-01-03\"|\"paid\"|300.5|3", "200|\"2024-01-05\"|\"new\"|2.5|1",
                     "201|\"2024-01-05\"|\"new\"|3.5|1"}));
  EXPECT_EQ(One("select count(*), sum(id) from db.orders"), "101|5347");
  // Only the file of day 2024-01-03 held matches; the inserts went to one new file.
  EXPECT_EQ(State(), CopyOnWrite() ? "5|0|0" : "6|1|2");
}

TEST_P(MergeTest, ATargetRowMatchedByTwoSourceRowsIsAnErrorAndChangesNothing) {
  const std::string before = Snapshot();
  const std::string src = Source("dup.csv", "id,status,amount\n5,a,1\n5,b,2\n");
  const std::string quoted = One("select distinct _file from db.orders where id = 5");
  const std::string file = quoted.substr(1, quoted.size() - 2);
  EXPECT_EQ(ErrorOf("MERGE INTO db.orders t USING read_csv('" + src +
                    "') s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET status = s.status"),
            "invalid input: MERGE: the ON condition matched one row of the target (position 5 of "
            "'" +
                file +
                "') with several rows of the source; a target row may be changed by one source "
                "row only (Spark's MERGE_CARDINALITY_VIOLATION); nothing was changed");
  EXPECT_EQ(Snapshot(), before);
  // An unconditional DELETE as the only matched clause may see a row matched twice (Spark's rule).
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src +
                 "') s ON t.id = s.id "
                 "WHEN MATCHED THEN DELETE"),
            (Strings{"1|1|0|0"}));
}

TEST_P(MergeTest, NotMatchedBySourceChangesTheTargetRowsNoSourceRowMatched) {
  const std::string src = Source("keep.csv", "id,status,amount\n0,x,0\n1,x,0\n");
  // Of day 2024-01-03's 25 rows, 0 and 1 are in the source: the other 23 go.
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src +
                 "') s ON t.id = s.id "
                 "WHEN NOT MATCHED BY SOURCE AND t.day = '2024-01-03' THEN DELETE "
                 "WHEN NOT MATCHED BY SOURCE AND t.id = 99 THEN UPDATE SET status = 'last'"),
            (Strings{"24|23|1|0"}));
  EXPECT_EQ(One("select count(*) from db.orders where day = '2024-01-03'"), "2");
  EXPECT_EQ(One("select status from db.orders where id = 99"), "\"last\"");
  EXPECT_EQ(One("select count(*) from db.orders"), "77");
}

TEST_P(MergeTest, UpdateSetStarAndInsertStarTakeTheSourcesColumnsByName) {
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING (SELECT id + 90 AS id, day, 'copy' AS status, "
                 "amount, qty FROM db.orders WHERE id < 20) AS s ON t.id = s.id "
                 "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
            (Strings{"20|0|10|10"}));
  EXPECT_EQ(One("select count(*), count(distinct id), max(id) from db.orders"), "110|110|109");
  EXPECT_EQ(Rows("select id, day, status, amount, qty from db.orders where id in (90, 109) "
                 "order by id"),
            (Strings{"90|\"2024-01-03\"|\"copy\"|0.0|0", "109|\"2024-01-03\"|\"copy\"|19.0|19"}));
}

TEST_P(MergeTest, TheSourcesKeyRangePrunesTheTargetScan) {
  const std::string src = Source("day2.csv", "id,status,amount\n30,x,1\n31,x,2\n");
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src +
                 "') s ON t.id = s.id "
                 "WHEN MATCHED THEN UPDATE SET status = s.status"),
            (Strings{"2|0|2|0"}));
  // ids 30 and 31 lie in day 2024-01-04's file alone: the others are skipped by their bounds.
  EXPECT_EQ(last_.stats.data_files_skipped_bounds, 3);
  EXPECT_EQ(One("select count(*) from db.orders where status = 'x'"), "2");
}

TEST_P(MergeTest, CopyOnWriteRewritesAFileFromTheRowsItsScanRead) {
  const std::string src = Source("day2.csv", "id,status,amount\n30,x,1\n31,x,2\n");
  const std::string merge = "MERGE INTO db.orders t USING read_csv('" + src +
                            "') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status";
  EXPECT_EQ(Rows(merge), (Strings{"2|0|2|0"}));
  // Copy-on-write in v2 rewrites the one file ids 30 and 31 lie in from the rows its scan read:
  // all 25 of them, the 23 outside the source's key range [30, 31] too (the range prunes files,
  // not rows, there). In v3 the rewrite keeps row lineage and reads the file again; merge-on-read
  // only reads it.
  const bool v2 = GetParam().format_version == 2;
  EXPECT_EQ(last_.stats.data_files_opened, CopyOnWrite() && !v2 ? 2 : 1);
  EXPECT_EQ(last_.stats.data_files_skipped_bounds, 3);
  EXPECT_EQ(One("select count(*), sum(id), count_if(status = 'x'), sum(qty) from db.orders "
                "where day = '2024-01-04'"),
            "25|925|2|300");
  EXPECT_EQ(One("select count(*), sum(id) from db.orders"), "100|4950");
  // A file with deletes is read again (its record count is not its rows).
  if (CopyOnWrite() && v2) {
    Rows("ALTER TABLE db.orders SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')");
    Rows("DELETE FROM db.orders WHERE id = 55");
    const std::string src2 = Source("day3.csv", "id,status,amount\n60,y,1\n");
    EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src2 +
                   "') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status"),
              (Strings{"1|0|1|0"}));
    EXPECT_EQ(last_.stats.data_files_opened, 2);
    EXPECT_EQ(One("select count(*), sum(id), count_if(status = 'y') from db.orders "
                  "where day = '2024-01-05'"),
              "24|1495|1");
    // The rewritten file's position delete file stays, dangling, until compaction (as Spark).
    EXPECT_EQ(State(), "4|1|1");
  }
}

TEST_P(MergeTest, CopyOnWriteUpdatesRewriteAFileInPlaceCopyingItsUnchangedColumns) {
  if (!CopyOnWrite() || GetParam().format_version != 2) GTEST_SKIP() << "copy-on-write v2 only";
  auto file_of_day = [&](const std::string& day) {
    std::string path =
        One("select file_path from db.orders.files where file_path like '%/day=" + day + "/%'");
    return path.size() > 1 && path.front() == '"' ? path.substr(1, path.size() - 2) : path;
  };
  const std::string old_file = file_of_day("2024-01-04");
  // The lower bounds all stay ('open' is still status's); of the upper bounds only status's
  // changes, from 'shipped' to 'x'.
  auto bounds = [&](const std::string& file) {
    return One("select lower_bounds, upper_bounds from db.orders.files where file_path = '" + file +
               "'");
  };
  const std::string bounds_before = bounds(old_file);
  const std::string order_before =
      One("select string_agg(cast(id as string), ',' order by _pos) from db.orders "
          "where day = '2024-01-04'");
  const std::string src = Source("inplace.csv", "id,status,amount\n30,x,1\n31,x,2\n");
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src +
                 "') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status"),
            (Strings{"2|0|2|0"}));
  EXPECT_NE(last_.message.find("1 data files added (1 rewritten in place, their unchanged "
                               "columns copied), 1 removed"),
            std::string::npos)
      << last_.message;
  // The rows keep their places; only status changed.
  EXPECT_EQ(One("select string_agg(cast(id as string), ',' order by _pos) from db.orders "
                "where day = '2024-01-04'"),
            order_before);
  EXPECT_EQ(One("select count(*), sum(id), count_if(status = 'x'), sum(qty), sum(amount) from "
                "db.orders where day = '2024-01-04'"),
            "25|925|2|300|925.0");
  // The new file's chunks of the columns the MERGE did not change are the old file's bytes; its
  // status chunk is new.
  const std::string new_file = file_of_day("2024-01-04");
  ASSERT_NE(new_file, old_file);
  auto chunks = [](const std::string& uri) {
    const size_t scheme = uri.find("://");
    const std::string path = scheme == std::string::npos ? uri : uri.substr(scheme + 3);
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> out;
    auto tail = parquet::ParseFooter(path, bytes.size(), AsBytes(bytes));
    EXPECT_TRUE(tail && tail->metadata) << uri;
    if (!tail || !tail->metadata) return out;
    for (const parquet::ColumnChunk& c : tail->metadata->row_groups.at(0).columns) {
      const parquet::ColumnMetaData& md = *c.meta_data;
      out.push_back(bytes.substr(static_cast<size_t>(md.chunk_start()),
                                 static_cast<size_t>(md.total_compressed_size)));
    }
    return out;
  };
  const std::vector<std::string> before = chunks(old_file), after = chunks(new_file);
  ASSERT_EQ(after.size(), 5u);
  for (size_t c : {0u, 1u, 3u, 4u}) EXPECT_TRUE(after[c] == before[c]) << "column " << c;
  EXPECT_FALSE(after[2] == before[2]);
  // Its metrics: the copied columns' bounds are the old file's; status's are the new values'.
  std::string want = bounds_before;
  const size_t at = want.rfind("shipped");
  ASSERT_NE(at, std::string::npos) << want;
  want.replace(at, 7, "x");
  EXPECT_EQ(bounds(new_file), want);

  // A MERGE that also deletes rows of a file rewrites it from its rows, as before.
  const std::string src2 = Source("mixed.csv", "id,status,amount\n50,y,1\n51,gone,2\n");
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src2 +
                 "') s ON t.id = s.id WHEN MATCHED AND s.status = 'gone' THEN DELETE "
                 "WHEN MATCHED THEN UPDATE SET status = s.status"),
            (Strings{"2|1|1|0"}));
  EXPECT_EQ(last_.message.find("in place"), std::string::npos) << last_.message;
  EXPECT_EQ(One("select count(*), sum(id), count_if(status = 'y') from db.orders "
                "where day = '2024-01-05'"),
            "24|1499|1");  // ids 50-74 but 51

  // Two small files of one partition, both updated: merged into one file as Spark's rewrite
  // does, not each kept in place.
  Rows("INSERT INTO db.orders VALUES (500, DATE '2024-01-04', 'open', 9.0, 1)");
  auto files_of_day = [&] {
    return One("select count(*) from db.orders.files where file_path like '%/day=2024-01-04/%'");
  };
  ASSERT_EQ(files_of_day(), "2");
  const std::string src3 = Source("two.csv", "id,status,amount\n32,z,1\n500,z,2\n");
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src3 +
                 "') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status"),
            (Strings{"2|0|2|0"}));
  EXPECT_NE(last_.message.find("1 data files added, 2 removed"), std::string::npos)
      << last_.message;
  EXPECT_EQ(files_of_day(), "1");
  // The rows keep the columns the MERGE does not set (its scan read id and status only).
  EXPECT_EQ(One("select count(*), sum(id), count_if(status = 'z'), sum(qty), sum(amount) from "
                "db.orders where day = '2024-01-04'"),
            "26|1425|2|301|934.0");
}

TEST_P(MergeTest, UpdatesOfSomeColumnsKeepTheOthersAndReadWhatTheirClausesName) {
  // Conditions and values name target columns the MERGE does not set (qty, status).
  const std::string src = Source("some.csv", "id,status,amount\n30,a,1\n31,b,2\n55,c,3\n56,d,4\n");
  EXPECT_EQ(Rows("MERGE INTO db.orders t USING read_csv('" + src +
                 "') s ON t.id = s.id WHEN MATCHED AND t.qty > 5 THEN UPDATE SET status = "
                 "t.status || '-' || s.status, amount = t.qty + s.amount "
                 "WHEN MATCHED THEN UPDATE SET amount = -1"),
            (Strings{"4|0|4|0"}));
  if (CopyOnWrite() && GetParam().format_version == 2) {
    EXPECT_NE(last_.message.find("2 data files added (2 rewritten in place"), std::string::npos)
        << last_.message;
  }
  EXPECT_EQ(Rows("select id, day, status, amount, qty from db.orders where id in (30, 31, 55, 56) "
                 "order by id"),
            (Strings{R"(30|"2024-01-04"|"shipped"|-1.0|5)", R"(31|"2024-01-04"|"open-b"|8.0|6)",
                     R"(55|"2024-01-05"|"shipped"|-1.0|5)", R"(56|"2024-01-05"|"open-d"|10.0|6)"}));
  EXPECT_EQ(One("select count(*), sum(id), sum(qty), sum(amount), count_if(status = 'open') "
                "from db.orders"),
            "100|4950|1200|4794.0|34");
  // Rewritten in place, the files keep their rows in order.
  if (CopyOnWrite() && GetParam().format_version == 2) {
    EXPECT_EQ(One("select string_agg(cast(id as string), ',' order by _pos) from db.orders "
                  "where day = '2024-01-04' and id between 29 and 32"),
              "\"29,30,31,32\"");
  }
}

TEST_P(MergeTest, CopyOnWriteReadsAFileAgainWhenItsRowsPassHalfTheMemoryLimit) {
  // 40,000 rows in one file of day 2024-01-07: more than the 512 KiB half of a 1 MiB limit.
  std::string csv = "id,status,amount\n";
  for (int i = 0; i < 40000; ++i)
    csv += std::to_string(1000 + i) + ",bulk," + std::to_string(i) + "\n";
  Rows("INSERT INTO db.orders SELECT id, DATE '2024-01-07', status, amount, 1 FROM read_csv('" +
       Source("bulk.csv", csv) + "')");
  const std::string src = Source("one.csv", "id,status,amount\n1000,x,1\n41000,x,1\n");
  const std::string merge = "MERGE INTO db.orders t USING read_csv('" + src +
                            "') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status";
  EXPECT_EQ(Rows(merge), (Strings{"1|0|1|0"}));
  // Copy-on-write v2 rewrites the file from its scan's rows (v3 reads it again).
  EXPECT_EQ(last_.stats.data_files_opened, CopyOnWrite() && GetParam().format_version == 3 ? 2 : 1);
  // Under a 1 MiB limit copy-on-write keeps none of them and reads the file again; merge-on-read
  // now scans the file and the one its first MERGE wrote.
  Rows("SET memory_limit = '1MiB'");
  EXPECT_EQ(Rows(merge), (Strings{"1|0|1|0"}));
  EXPECT_EQ(last_.stats.data_files_opened, 2);
  EXPECT_EQ(One("select count(*), sum(id), count_if(status = 'x'), sum(qty), sum(amount) from "
                "db.orders where day = '2024-01-07'"),
            "40000|839980000|1|40000|799980000.0");
  EXPECT_EQ(One("select count(*) from db.orders"), "40100");
}

TEST_P(MergeTest, ErrorsNameWhatAndWhereAndChangeNothing) {
  const std::string before = Snapshot();
  const std::string src = Source("e.csv", "id,status,amount\n1,a,1\n");
  const std::string using_src = "MERGE INTO db.orders t USING read_csv('" + src + "') s ";
  EXPECT_EQ(ErrorOf(using_src + "ON id = id WHEN MATCHED THEN DELETE"),
            "invalid input: at line 1, column " + std::to_string(using_src.size() + 4) +
                ": column reference 'id' is ambiguous: qualify it (t.id or s.id)");
  EXPECT_EQ(ErrorOf(using_src + "ON t.id = s.nope WHEN MATCHED THEN DELETE"),
            "not found: at line 1, column " + std::to_string(using_src.size() + 11) +
                ": column 's.nope' not found in the MERGE's target and source (columns: s.id, "
                "s.status, s.amount)");
  EXPECT_EQ(ErrorOf(using_src + "ON t.id > s.id WHEN MATCHED THEN DELETE"),
            "unsupported: at line 1, column " + std::to_string(using_src.size() + 4) +
                ": MERGE needs ON to equate a target column with a source value (t.id = s.id)");
  EXPECT_EQ(ErrorOf(using_src + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT *"),
            "not found: at line 1, column " + std::to_string(using_src.size() + 16) +
                ": INSERT *: the source has no column 'day'");
  EXPECT_EQ(ErrorOf(using_src + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (status) VALUES "
                                "(s.status)"),
            "invalid input: at line 1, column " + std::to_string(using_src.size() + 16) +
                ": INSERT gives no value for column 'id', which is required");
  EXPECT_EQ(ErrorOf("MERGE INTO db.orders t USING read_csv('" + dir_.str() +
                    "/missing.csv') s ON t.id = s.id WHEN MATCHED THEN DELETE"),
            "not found: at line 1, column 30: read_csv('" + dir_.str() +
                "/missing.csv'): object 'missing.csv' not "
                "found in file://" +
                dir_.str());
  EXPECT_EQ(Snapshot(), before);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, MergeTest,
    ::testing::Values(Mode{"CopyOnWriteV2", 2, {}}, Mode{"CopyOnWriteV3", 3, {}},
                      Mode{"MergeOnReadV2", 2, {{"write.merge.mode", "merge-on-read"}}},
                      Mode{"MergeOnReadV2Partition",
                           2,
                           {{"write.merge.mode", "merge-on-read"},
                            {"write.delete.granularity", "partition"}}},
                      Mode{"MergeOnReadV3", 3, {{"write.merge.mode", "merge-on-read"}}}),
    [](const ::testing::TestParamInfo<Mode>& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    Modes, DmlTest,
    ::testing::Values(
        Mode{"CopyOnWriteV2", 2, {}}, Mode{"CopyOnWriteV3", 3, {}},
        Mode{"MergeOnReadV2",
             2,
             {{"write.delete.mode", "merge-on-read"}, {"write.update.mode", "merge-on-read"}}},
        Mode{"MergeOnReadV2Partition",
             2,
             {{"write.delete.mode", "merge-on-read"},
              {"write.update.mode", "merge-on-read"},
              {"write.delete.granularity", "partition"}}},
        Mode{"MergeOnReadV3",
             3,
             {{"write.delete.mode", "merge-on-read"}, {"write.update.mode", "merge-on-read"}}}),
    [](const ::testing::TestParamInfo<Mode>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace floe::sql
