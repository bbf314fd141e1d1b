// CREATE TABLE, CREATE TABLE AS, INSERT, ALTER TABLE and DROP TABLE through the SQL engine: the
// metadata each statement leaves (field ids, specs, sort orders, properties, snapshots), the rows
// read back across schema and spec evolution, and the errors that leave the table as it was.
#include "floe/sql/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/alter_table.h"
#include "floe/iceberg/table.h"
#include "support/answer_rows.h"
#include "support/temp_dir.h"

namespace floe::sql {
namespace {

using Strings = std::vector<std::string>;

class DdlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    iceberg::WarehouseOptions o;
    o.uri = dir_.str();
    auto w = iceberg::OpenWarehouse(o);
    ASSERT_TRUE(w) << w.error().ToString();
    catalog_ = w->catalog;
    io_ = w->io;
    engine_ = std::make_unique<Engine>(std::move(*w));
  }

  Strings Rows(const std::string& sql) {
    auto r = engine_->Execute(sql);
    EXPECT_TRUE(r) << sql << ": " << r.error().ToString();
    if (!r) return {};
    message_ = r->message;
    return testing::AnswerRows(r->batches);
  }
  std::string ErrorOf(const std::string& sql) {
    auto r = engine_->Execute(sql);
    EXPECT_FALSE(r) << sql;
    return r ? "" : r.error().message;
  }
  iceberg::Table Load(const std::string& name) {
    auto t = iceberg::LoadTable(*catalog_, *io_, catalog::TableIdentifier::Parse(name).value());
    EXPECT_TRUE(t) << name;
    return t ? *t : iceberg::Table{};
  }
  // "id:name:type[:required]" for every top-level column of the current schema.
  Strings Columns(const std::string& name) {
    Strings out;
    for (const auto& f : Load(name).metadata.CurrentSchema().fields()) {
      out.push_back(fmt::format("{}:{}:{}{}", f.id, f.name, f.type->ToString(),
                                f.required ? ":required" : ""));
    }
    return out;
  }

  testing::TempDir dir_;
  std::shared_ptr<catalog::Catalog> catalog_;
  std::shared_ptr<iceberg::FileIO> io_;
  std::unique_ptr<Engine> engine_;
  std::string message_;
};

TEST_F(DdlTest, CreateTableTakesSparkTypesPartitionsAndProperties) {
  Rows(
      "CREATE TABLE db.t (id bigint NOT NULL, name varchar(20) COMMENT 'who', amount "
      "decimal(10,2), ts timestamp_ntz, tags array<string>, pt struct<x: double, y double NOT "
      "NULL>, m map<string, int>) USING iceberg PARTITIONED BY (days(ts), bucket(4, id)) "
      "TBLPROPERTIES ('k' = 'v', 'format-version' = '3')");
  EXPECT_EQ(message_.substr(0, 12), "created db.t");
  const iceberg::Table t = Load("db.t");
  const auto& m = t.metadata;
  EXPECT_EQ(m.format_version, 3);
  // Top-level ids first, then each nested type's, struct by struct, as Iceberg assigns them.
  EXPECT_EQ(Columns("db.t"),
            (Strings{"1:id:long:required", "2:name:string", "3:amount:decimal(10, 2)",
                     "4:ts:timestamp", "5:tags:list<string>", "6:pt:struct<x: double, y: double>",
                     "7:m:map<string, int>"}));
  const iceberg::Schema& s = m.CurrentSchema();
  EXPECT_EQ(s.FindByName("tags.element")->id, 8);
  EXPECT_EQ(s.FindByName("pt.x")->id, 9);
  EXPECT_TRUE(s.FindByName("pt.y")->required);
  EXPECT_EQ(s.FindByName("m.key")->id, 11);
  EXPECT_EQ(s.FindByName("name")->doc, "who");
  EXPECT_EQ(m.last_column_id, 12);
  ASSERT_EQ(m.DefaultSpec().fields().size(), 2u);
  EXPECT_EQ(m.DefaultSpec().fields()[0].name, "ts_day");
  EXPECT_EQ(m.DefaultSpec().fields()[1].name, "id_bucket");
  EXPECT_EQ(m.properties.at("k"), "v");
  EXPECT_FALSE(m.properties.contains("format-version"));
  EXPECT_EQ(m.snapshots.size(), 0u);

  EXPECT_EQ(Rows("CREATE TABLE IF NOT EXISTS db.t (a int)"), Strings{});
  EXPECT_EQ(message_, "table db.t exists; nothing done");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a int)"), "CREATE TABLE: table 'db.t' already exists");
  EXPECT_EQ(Load("db.t").metadata_location, t.metadata_location);
}

TEST_F(DdlTest, CreateTableErrorsAreLocatedAndCreateNothing) {
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a int, b foo)"),
            "at line 1, column 29: CREATE TABLE: type 'foo': unknown Iceberg type 'foo'");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a int) USING delta"),
            "at line 1, column 38: CREATE TABLE: USING delta: floe makes Iceberg tables");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a int, A string)"),
            "the schema has two columns named 'A' and 'a'");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a int) PARTITIONED BY (bucket(4, b))"),
            "partition column 'b' is not in the table schema");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a int) AS SELECT 1"),
            "at line 1, column 30: CREATE TABLE: CREATE TABLE ... AS takes its columns from the "
            "query; drop the column list");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t AS SELECT nosuch"),
            "at line 1, column 29: column 'nosuch' not found (no FROM)");
  EXPECT_EQ(ErrorOf("CREATE TABLE db.t (a struct<b: struct<>>)"),
            "at line 1, column 22: CREATE TABLE: type 'struct<b: struct<>>': struct<> has no "
            "fields (Parquet cannot hold an empty struct)");
  EXPECT_EQ(Rows("SHOW TABLES"), Strings{});
}

TEST_F(DdlTest, InsertMatchesColumnsByPositionListOrNameAndCastsAsAssigned) {
  Rows(
      "CREATE TABLE db.t (id bigint NOT NULL, name string, amount decimal(10, 2), d date, "
      "tags array<string>)");
  EXPECT_EQ(Rows("INSERT INTO db.t VALUES (1, 'a', 1.5, DATE '2024-01-02', NULL), (2, 'b', "
                 "2.25, NULL, NULL)"),
            Strings{"2|2"});
  EXPECT_EQ(Rows("INSERT INTO db.t (name, id) SELECT 'c', 3"), Strings{"1|1"});
  EXPECT_EQ(Rows("INSERT INTO TABLE db.t BY NAME SELECT 4 AS id, 7 AS amount"), Strings{"1|1"});
  EXPECT_EQ(Rows("INSERT INTO db.t SELECT id + 10, name, amount, d, tags FROM db.t WHERE id < 3"),
            Strings{"2|2"});
  EXPECT_EQ(
      Rows("SELECT id, name, amount, d FROM db.t ORDER BY id"),
      (Strings{R"(1|"a"|"1.50"|"2024-01-02")", R"(2|"b"|"2.25"|null)", R"(3|"c"|null|null)",
               R"(4|null|"7.00"|null)", R"(11|"a"|"1.50"|"2024-01-02")", R"(12|"b"|"2.25"|null)"}));
  EXPECT_EQ(Load("db.t").metadata.snapshots.size(), 4u);  // one append per INSERT

  const std::string before = Load("db.t").metadata_location;
  EXPECT_EQ(ErrorOf("INSERT INTO db.t VALUES (1, 'a')"),
            "INSERT into 'db.t': the query gives 2 columns where 5 are expected (list the "
            "columns: INSERT INTO t (a, b) ...)");
  EXPECT_EQ(ErrorOf("INSERT INTO db.t (id, nope) SELECT 1, 2"),
            "INSERT: table 'db.t' has no column 'nope'");
  EXPECT_EQ(ErrorOf("INSERT INTO db.t (id, id) SELECT 1, 2"),
            "INSERT into 'db.t': column 'id' is given twice");
  EXPECT_EQ(ErrorOf("INSERT INTO db.t (id) SELECT 'x'"),
            "INSERT into 'db.t': column 'id': malformed integer literal 'x'");
  EXPECT_THAT(ErrorOf("INSERT INTO db.nope VALUES (1)"),
              ::testing::StartsWith("table 'db.nope' does not exist in catalog 'floe' ("));
  EXPECT_EQ(Load("db.t").metadata_location, before);
  EXPECT_EQ(Rows("INSERT INTO db.t (id) SELECT id FROM db.t WHERE id > 100"), Strings{"0|0"});
  EXPECT_EQ(message_, "INSERT INTO db.t: no rows; nothing was committed");
  EXPECT_EQ(Load("db.t").metadata_location, before);
}

TEST_F(DdlTest, CreateTableAsSelectMakesOptionalColumnsAndLaysRowsOutBySpec) {
  Rows("CREATE TABLE db.src (id bigint NOT NULL, region string)");
  Rows("INSERT INTO db.src VALUES (1, 'eu'), (2, 'us'), (3, 'eu'), (4, 'ap')");
  EXPECT_EQ(Rows("CREATE TABLE db.c PARTITIONED BY (region) TBLPROPERTIES ('k'='v') AS SELECT "
                 "region, count(*) AS n, sum(id) AS total FROM db.src GROUP BY region"),
            Strings{"3|3"});
  EXPECT_EQ(Columns("db.c"), (Strings{"1:region:string", "2:n:long", "3:total:long"}));
  const auto& m = Load("db.c").metadata;
  EXPECT_EQ(m.snapshots.size(), 1u);
  EXPECT_EQ(m.properties.at("k"), "v");
  EXPECT_EQ(Rows("SELECT count(*) FROM db.c.data_files"), Strings{"3"});  // one per region
  EXPECT_EQ(Rows("SELECT region, n, total FROM db.c ORDER BY region"),
            (Strings{R"("ap"|1|4)", R"("eu"|2|4)", R"("us"|1|2)"}));
  EXPECT_EQ(ErrorOf("CREATE TABLE db.d PARTITIONED BY (nope) AS SELECT 1 AS a"),
            "partition column 'nope' is not in the table schema");
  EXPECT_EQ(Rows("SHOW TABLES"), (Strings{R"("db"|"c")", R"("db"|"src")"}));
}

TEST_F(DdlTest, SchemaEvolutionKeepsOldRowsByFieldId) {
  Rows(
      "CREATE TABLE db.t (id int NOT NULL, name string, price float, amount decimal(9, 2), pt "
      "struct<x: int>)");
  Rows("INSERT INTO db.t VALUES (1, 'a', 1.5, 10.25, NULL), (2, 'b', 2.5, 20.5, NULL)");
  Rows("ALTER TABLE db.t ADD COLUMN score int COMMENT 'points' AFTER name");
  Rows("ALTER TABLE db.t ADD COLUMNS (first_col string FIRST, pt.y double)");
  Rows("ALTER TABLE db.t RENAME COLUMN name TO who");
  Rows("ALTER TABLE db.t ALTER COLUMN id TYPE bigint");
  Rows("ALTER TABLE db.t ALTER COLUMN price TYPE double");
  Rows("ALTER TABLE db.t ALTER COLUMN amount TYPE decimal(12, 2)");
  Rows("ALTER TABLE db.t ALTER COLUMN id DROP NOT NULL");
  Rows("ALTER TABLE db.t ALTER COLUMN who COMMENT 'the name'");
  Rows("ALTER TABLE db.t DROP COLUMN pt.x");
  EXPECT_EQ(Columns("db.t"),
            (Strings{"8:first_col:string", "1:id:long", "2:who:string", "7:score:int",
                     "3:price:double", "4:amount:decimal(12, 2)", "5:pt:struct<y: double>"}));
  EXPECT_EQ(Load("db.t").metadata.CurrentSchema().FindByName("who")->doc, "the name");
  EXPECT_EQ(Load("db.t").metadata.CurrentSchema().FindByName("score")->doc, "points");
  EXPECT_EQ(Rows("SELECT first_col, id, who, score, price, amount FROM db.t ORDER BY id"),
            (Strings{R"(null|1|"a"|null|1.5|"10.25")", R"(null|2|"b"|null|2.5|"20.50")"}));
  EXPECT_EQ(ErrorOf("INSERT INTO db.t BY NAME SELECT 3 AS id, 'c' AS name"),
            "INSERT BY NAME: table 'db.t' has no column 'name'");
}

TEST_F(DdlTest, EvolvedColumnsReadOldFilesByFieldId) {
  Rows("CREATE TABLE db.t (id int NOT NULL, name string, price float, amount decimal(9, 2))");
  Rows("INSERT INTO db.t VALUES (1, 'a', 1.5, 10.25), (2, 'b', 2.5, 20.5)");
  Rows("ALTER TABLE db.t ADD COLUMN score int");
  Rows("ALTER TABLE db.t RENAME COLUMN name TO who");
  Rows("ALTER TABLE db.t ALTER COLUMN id TYPE bigint");
  Rows("ALTER TABLE db.t ALTER COLUMN price TYPE double");
  Rows("ALTER TABLE db.t ALTER COLUMN amount TYPE decimal(12, 2)");
  Rows("ALTER TABLE db.t DROP COLUMN price");
  Rows("ALTER TABLE db.t ADD COLUMN price string");  // a new column: old files have no value
  Rows("INSERT INTO db.t VALUES (3000000000, 'c', 1234567890.12, 9, 'p')");
  EXPECT_EQ(Rows("SELECT * FROM db.t ORDER BY id"),
            (Strings{R"(1|"a"|"10.25"|null|null)", R"(2|"b"|"20.50"|null|null)",
                     R"(3000000000|"c"|"1234567890.12"|9|"p")"}));
  EXPECT_EQ(Rows("SELECT who FROM db.t WHERE who = 'b'"), Strings{R"("b")"});
  EXPECT_EQ(Columns("db.t"), (Strings{"1:id:long:required", "2:who:string",
                                      "4:amount:decimal(12, 2)", "5:score:int", "6:price:string"}));
  EXPECT_EQ(Load("db.t").metadata.last_column_id, 6);
}

TEST_F(DdlTest, AlterErrorsNameTheColumnAndChangeNothing) {
  Rows(
      "CREATE TABLE db.t (id int NOT NULL, name string, ts timestamp) PARTITIONED BY "
      "(days(ts)) TBLPROPERTIES ('k'='v')");
  Rows("INSERT INTO db.t VALUES (1, 'a', NULL)");
  Rows("ALTER TABLE db.t WRITE ORDERED BY name");
  const std::string before = Load("db.t").metadata_location;
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t ALTER COLUMN name TYPE int"),
            "table 'db.t': cannot change column 'name' from string to int: Iceberg allows int -> "
            "long, float -> double and decimal(P, S) -> decimal(P', S) with P' >= P");
  EXPECT_EQ(Rows("ALTER TABLE db.t ALTER COLUMN id TYPE int"), Strings{});  // no change, no error
  EXPECT_EQ(message_, "ALTER TABLE db.t: nothing changed");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t ADD COLUMN x int NOT NULL"),
            "table 'db.t': cannot add required column 'x': the table has rows, which have no "
            "value for it (add it as optional)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t ADD COLUMN NAME int"),
            "table 'db.t': column 'NAME' already exists");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t DROP COLUMN ts"),
            "table 'db.t': cannot drop column 'ts': the partition spec uses it (field 'ts_day'; "
            "drop the partition field first)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t DROP COLUMN name"),
            "table 'db.t': cannot drop column 'name': the sort order uses it");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t DROP COLUMN nope"), "table 'db.t': no column 'nope'");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t RENAME COLUMN id TO name"),
            "table 'db.t': cannot rename 'id' to 'name': that column exists");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t ALTER COLUMN id SET NOT NULL"),
            "at line 1, column 34: ALTER TABLE: SET NOT NULL is not allowed: rows written "
            "before may hold NULLs");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t UNSET TBLPROPERTIES ('nope')"),
            "table 'db.t': property 'nope' is not set (UNSET TBLPROPERTIES IF EXISTS skips it)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t SET TBLPROPERTIES ('format-version' = '3')"),
            "table 'db.t': format-version 2 -> 3: floe does not change a table's format version");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t SET TBLPROPERTIES ('commit.retry.num-retries' = '-1')"),
            "table 'db.t': table property commit.retry.num-retries = '-1': expected an integer "
            "from 0 to 1000");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t SET TBLPROPERTIES ('floe.layout' = 'otree(id)')"),
            "table 'db.t': table property floe.layout = 'otree(id)': an OTree lays out an "
            "unpartitioned table (its cubes are the partitioning); drop the partition spec or "
            "cluster with zorder/hilbert");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t ADD PARTITION FIELD days(ts)"),
            "table 'db.t': partition field 'ts_day' already partitions by days(ts)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t ADD PARTITION FIELD hours(ts)"),
            "table 'db.t': cannot add hours(ts): partition field 'ts_day' already partitions "
            "that column by time (drop or replace it)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t DROP PARTITION FIELD bucket(4, id)"),
            "table 'db.t': no partition field 'bucket(4, id)' (the spec has ts_day)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.t FROB"),
            "at line 1, column 18: ALTER TABLE: expected ADD, DROP, REPLACE, RENAME, ALTER, SET, "
            "UNSET or WRITE at 'FROB'");
  EXPECT_THAT(ErrorOf("ALTER TABLE db.nope ADD COLUMN x int"),
              ::testing::StartsWith("table 'db.nope' does not exist in catalog 'floe' ("));
  EXPECT_EQ(Load("db.t").metadata_location, before);
}

TEST_F(DdlTest, PartitionEvolutionKeepsEachFileInItsSpec) {
  Rows("CREATE TABLE db.t (id bigint, region string, ts timestamp) PARTITIONED BY (region)");
  Rows(
      "INSERT INTO db.t VALUES (1, 'eu', TIMESTAMP '2024-01-01 10:00:00'), (2, 'us', TIMESTAMP "
      "'2024-02-01 10:00:00')");
  Rows("ALTER TABLE db.t ADD PARTITION FIELD bucket(4, id) AS shard");
  Rows("ALTER TABLE db.t REPLACE PARTITION FIELD region WITH months(ts)");
  const auto& m = Load("db.t").metadata;
  ASSERT_EQ(m.specs.size(), 3u);
  EXPECT_EQ(m.default_spec_id, 2);
  ASSERT_EQ(m.DefaultSpec().fields().size(), 2u);
  EXPECT_EQ(m.DefaultSpec().fields()[0].name, "shard");
  EXPECT_EQ(m.DefaultSpec().fields()[0].field_id, 1001);
  EXPECT_EQ(m.DefaultSpec().fields()[1].name, "ts_month");
  EXPECT_EQ(m.DefaultSpec().fields()[1].field_id, 1002);
  Rows(
      "INSERT INTO db.t VALUES (3, 'eu', TIMESTAMP '2024-01-05 10:00:00'), (4, 'ap', TIMESTAMP "
      "'2024-03-01 10:00:00')");
  EXPECT_EQ(Rows("SELECT spec_id, count(*) FROM db.t.data_files GROUP BY spec_id ORDER BY 1"),
            (Strings{"0|2", "2|2"}));
  EXPECT_EQ(Rows("SELECT id FROM db.t WHERE region = 'eu' ORDER BY id"), (Strings{"1", "3"}));
  EXPECT_EQ(Rows("SELECT id FROM db.t WHERE ts < TIMESTAMP '2024-02-15 00:00:00' ORDER BY id"),
            (Strings{"1", "2", "3"}));
  // Adding back a field an earlier spec had gives it its id again; back to spec 0's fields is
  // spec 0 again.
  Rows("ALTER TABLE db.t DROP PARTITION FIELD shard");
  Rows("ALTER TABLE db.t DROP PARTITION FIELD months(ts)");
  Rows("ALTER TABLE db.t ADD PARTITION FIELD region");
  EXPECT_EQ(Load("db.t").metadata.default_spec_id, 0);
  EXPECT_EQ(Load("db.t").metadata.specs.size(), 5u);  // {ts_month} and {} on the way
  EXPECT_EQ(Load("db.t").metadata.last_partition_id, 1002);
}

TEST_F(DdlTest, WriteOrderSetsTheSortOrderAndDistributionModeAsSpark) {
  Rows("CREATE TABLE db.t (id bigint, name string)");
  Rows("ALTER TABLE db.t WRITE ORDERED BY name DESC, id");
  auto m = Load("db.t").metadata;
  EXPECT_EQ(m.DefaultSortOrder().ToString(m.CurrentSchema()),
            "name DESC NULLS LAST, id ASC NULLS FIRST");
  EXPECT_EQ(m.properties.at("write.distribution-mode"), "range");
  Rows("INSERT INTO db.t VALUES (1, 'a'), (2, 'c'), (3, 'b')");
  // One file, sorted as declared: its rows in file order.
  EXPECT_EQ(Rows("SELECT id FROM db.t"), (Strings{"2", "3", "1"}));
  Rows("ALTER TABLE db.t WRITE LOCALLY ORDERED BY id");
  m = Load("db.t").metadata;
  EXPECT_EQ(m.properties.at("write.distribution-mode"), "none");
  EXPECT_EQ(m.default_sort_order_id, 2);
  Rows("ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION");
  m = Load("db.t").metadata;
  EXPECT_EQ(m.properties.at("write.distribution-mode"), "hash");
  EXPECT_TRUE(m.DefaultSortOrder().unsorted());
  Rows("ALTER TABLE db.t WRITE ORDERED BY name DESC, id");
  EXPECT_EQ(Load("db.t").metadata.default_sort_order_id, 1);  // the same order, reused
  EXPECT_EQ(Load("db.t").metadata.sort_orders.size(), 3u);
  Rows("ALTER TABLE db.t WRITE UNORDERED");
  EXPECT_TRUE(Load("db.t").metadata.DefaultSortOrder().unsorted());
}

TEST_F(DdlTest, PropertiesSetAndUnset) {
  Rows("CREATE TABLE db.t (id bigint) TBLPROPERTIES ('a'='1', 'b'='2')");
  Rows(
      "ALTER TABLE db.t SET TBLPROPERTIES ('a' = '10', 'write.target-file-size-bytes' = 1000, "
      "'write.parquet.row-group-size-bytes' = '65536', my.key = 'x')");
  auto props = Load("db.t").metadata.properties;
  EXPECT_EQ(props.at("a"), "10");
  EXPECT_EQ(props.at("b"), "2");
  EXPECT_EQ(props.at("write.target-file-size-bytes"), "1000");
  EXPECT_EQ(props.at("write.parquet.row-group-size-bytes"), "65536");
  EXPECT_EQ(props.at("my.key"), "x");
  Rows("ALTER TABLE db.t UNSET TBLPROPERTIES ('a', 'b')");
  Rows("ALTER TABLE db.t UNSET TBLPROPERTIES IF EXISTS ('a', 'write.target-file-size-bytes')");
  props = Load("db.t").metadata.properties;
  EXPECT_FALSE(props.contains("a"));
  EXPECT_FALSE(props.contains("b"));
  EXPECT_FALSE(props.contains("write.target-file-size-bytes"));
  const std::string before = Load("db.t").metadata_location;
  Rows("ALTER TABLE db.t SET TBLPROPERTIES ('write.parquet.row-group-size-bytes' = '65536')");
  EXPECT_EQ(message_, "ALTER TABLE db.t: nothing changed");
  EXPECT_EQ(Load("db.t").metadata_location, before);
}

TEST_F(DdlTest, DropAndRenameTables) {
  Rows("CREATE TABLE db.t (id bigint)");
  Rows("INSERT INTO db.t VALUES (1)");
  Rows("ALTER TABLE db.t RENAME TO u");
  EXPECT_EQ(message_, "renamed db.t to db.u");
  EXPECT_EQ(Rows("SELECT * FROM db.u"), Strings{"1"});
  Rows("CREATE TABLE db.v (id bigint)");
  EXPECT_EQ(ErrorOf("ALTER TABLE db.u RENAME TO db.v"),
            "ALTER TABLE db.u RENAME TO db.v: that table exists");
  const std::string location = Load("db.u").metadata.location;
  Rows("DROP TABLE db.u PURGE");
  EXPECT_EQ(message_, "dropped db.u and deleted its files");
  EXPECT_FALSE(std::filesystem::exists(location.substr(7)));
  EXPECT_EQ(ErrorOf("DROP TABLE db.u"), "table 'db.u' does not exist");
  Rows("DROP TABLE IF EXISTS db.u");
  EXPECT_EQ(message_, "no table db.u; nothing done");
  const std::string kept = Load("db.v").metadata_location;
  Rows("DROP TABLE db.v");
  EXPECT_TRUE(std::filesystem::exists(kept.substr(7)));  // without PURGE the files stay
  EXPECT_EQ(ErrorOf("DROP TABLE db.v extra"),
            "at line 1, column 17: DROP TABLE: unexpected 'extra'");
}

TEST_F(DdlTest, InformationSchemaListsTablesAndColumnsAsAQuerySource) {
  Rows("CREATE TABLE db.b (id bigint NOT NULL COMMENT 'key', tags array<string>) COMMENT 'bees'");
  Rows("CREATE TABLE shop.a (x int)");
  EXPECT_EQ(Rows("SELECT * FROM information_schema.schemata"),
            (Strings{R"("floe"|"db")", R"("floe"|"shop")"}));
  EXPECT_EQ(Rows("SELECT table_schema, table_name, table_type, table_comment FROM "
                 "information_schema.tables ORDER BY table_name"),
            (Strings{R"("shop"|"a"|"BASE TABLE"|"")", R"("db"|"b"|"BASE TABLE"|"bees")"}));
  EXPECT_EQ(Rows("SELECT table_name, column_name, ordinal_position, column_default, is_nullable, "
                 "data_type, field_id, column_comment FROM information_schema.columns WHERE "
                 "table_schema = 'db' ORDER BY ordinal_position"),
            (Strings{R"("b"|"id"|1|null|"NO"|"long"|1|"key")",
                     R"("b"|"tags"|2|null|"YES"|"list<string>"|2|"")"}));
  // A view like any relation: joined, counted, grouped.
  EXPECT_EQ(Rows("SELECT t.table_name, count(*) FROM INFORMATION_SCHEMA.TABLES t JOIN "
                 "information_schema.columns c USING (table_schema, table_name) GROUP BY 1 "
                 "ORDER BY 1"),
            (Strings{R"("a"|1)", R"("b"|2)"}));
  EXPECT_EQ(ErrorOf("SELECT * FROM information_schema.views"),
            "at line 1, column 15: information_schema.views does not exist (there are tables, "
            "columns, schemata)");
  EXPECT_EQ(ErrorOf("DELETE FROM information_schema.tables"),
            "at line 1, column 13: DELETE needs an Iceberg table; a metadata table or table "
            "function cannot be changed");
}

}  // namespace
}  // namespace floe::sql
