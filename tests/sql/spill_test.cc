// SET memory_limit through the engine: a join, a GROUP BY and an ORDER BY whose in-memory state
// is several times the limit complete, spill (spilled_bytes > 0) and answer exactly the rows they
// answer without a limit (where nothing spills); the settings and their one-line errors.
#include <gtest/gtest.h>

#include <algorithm>

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

constexpr int kDim = 60000;
constexpr int kFacts = 80000;

// db.dim (kDim rows): even rows have key 7 (a skewed key: half the build side), every 50th odd
// row a NULL key, the others key = row; a padded name; w = row % 1000.
// db.facts (kFacts rows): key NULL where row % 5 == 2, 7 for rows 1 and 3, else an odd key
// (row % 20000) * 2 + 1 (in db.dim's range; every 25th a key db.dim holds only as NULL); s a padded
// string of row % 30011; v = row % 997. The join's build side (db.dim, the smaller) holds about 6.5
// MB in memory, the aggregates' groups and the sort's rows as much or more: the 1.5 MiB limit below
// is a quarter of it or less.
class SpillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    iceberg::WarehouseOptions o;
    o.uri = dir_.str();
    auto w = iceberg::OpenWarehouse(o);
    ASSERT_TRUE(w) << w.error().ToString();
    wh_ = std::make_unique<iceberg::Warehouse>(std::move(*w));

    iceberg::Schema dim(0, {{1, "k", false, Primitive(TypeId::kLong)},
                            {2, "name", false, Primitive(TypeId::kString)},
                            {3, "w", false, Primitive(TypeId::kLong)}});
    ValueColumnBuilder dk(columnar::Int64()), dn(columnar::String()), dw(columnar::Int64());
    for (int i = 0; i < kDim; ++i) {
      if (i % 2 == 0) {
        ASSERT_TRUE(dk.Append(Value::Int(7)));
      } else if (i % 50 == 1) {
        dk.AppendNull();
      } else {
        ASSERT_TRUE(dk.Append(Value::Int(i)));
      }
      ASSERT_TRUE(dn.Append(Value::Str(fmt::format("name-{:08d}-padding", i))));
      ASSERT_TRUE(dw.Append(Value::Int(i % 1000)));
    }
    Append("db.dim", dim, kDim, {dk.Finish(), dn.Finish(), dw.Finish()});

    iceberg::Schema facts(0, {{1, "id", false, Primitive(TypeId::kLong)},
                              {2, "k", false, Primitive(TypeId::kLong)},
                              {3, "s", false, Primitive(TypeId::kString)},
                              {4, "v", false, Primitive(TypeId::kDouble)}});
    ValueColumnBuilder fi(columnar::Int64()), fk(columnar::Int64()), fs(columnar::String()),
        fv(columnar::Float64());
    for (int i = 0; i < kFacts; ++i) {
      ASSERT_TRUE(fi.Append(Value::Int(i)));
      if (i % 5 == 2) {
        fk.AppendNull();
      } else if (i <= 3) {
        ASSERT_TRUE(fk.Append(Value::Int(7)));
      } else {
        ASSERT_TRUE(fk.Append(Value::Int((i % 20000) * 2 + 1)));
      }
      ASSERT_TRUE(fs.Append(Value::Str(fmt::format("string-{:06d}-of-facts", i % 30011))));
      ASSERT_TRUE(fv.Append(Value::Double(static_cast<double>(i % 997))));
    }
    Append("db.facts", facts, kFacts, {fi.Finish(), fk.Finish(), fs.Finish(), fv.Finish()});
    engine_ = std::make_unique<Engine>(std::move(*wh_));
  }

  void Append(const std::string& name, const iceberg::Schema& schema, int64_t rows,
              std::vector<columnar::ColumnPtr> columns) {
    auto id = catalog::TableIdentifier::Parse(name).value();
    auto s = iceberg::PartitionSpec::Parse("", schema).value();
    auto t = iceberg::CreateTable(*wh_->catalog, *wh_->io, id, {schema, s, {}, {}, ""});
    ASSERT_TRUE(t) << t.error().ToString();
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

  // The rows of `sql` (sorted unless `ordered`), and the bytes it spilled.
  Strings Rows(const std::string& sql, int64_t* spilled, bool ordered = false) {
    auto r = engine_->Execute(sql);
    EXPECT_TRUE(r) << sql << ": " << r.error().ToString();
    if (!r) return {};
    *spilled = r->stats.spilled_bytes;
    Strings rows = testing::AnswerRows(r->batches);
    if (!ordered) std::sort(rows.begin(), rows.end());
    return rows;
  }
  void Set(const std::string& statement) {
    auto r = engine_->Execute(statement);
    ASSERT_TRUE(r) << statement << ": " << r.error().ToString();
  }

  // Runs `sql` without a limit (nothing spills) and with 1.5 MiB (it spills): the same rows.
  void Same(const std::string& sql, bool ordered = false) {
    SCOPED_TRACE(sql);
    Set("RESET memory_limit");
    int64_t spilled = -1;
    const Strings want = Rows(sql, &spilled, ordered);
    EXPECT_EQ(spilled, 0);
    EXPECT_FALSE(want.empty());
    Set("SET memory_limit = '1536KiB'");
    const Strings got = Rows(sql, &spilled, ordered);
    EXPECT_GT(spilled, 0);
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want);
    Set("RESET memory_limit");
  }

  testing::TempDir dir_;
  std::unique_ptr<iceberg::Warehouse> wh_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(SpillTest, InnerJoinWithSkewedKey) {
  // Key 7: 30,000 build rows times 2 probe rows, one partition no hash splits.
  const std::string sql = "select f.id, d.name from db.facts f join db.dim d on f.k = d.k";
  Same(sql);
  // 32 partitions of each side, and that one's build and probe rows split again, to no avail
  // (then joined a chunk of build rows at a time).
  Set("SET memory_limit = '1536KiB'");
  auto r = engine_->Execute(sql);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_GT(r->stats.spill_partitions, 64);
}

TEST_F(SpillTest, OuterJoinsWithNullKeys) {
  Same("select f.id, d.name, d.w from db.facts f left join db.dim d on f.k = d.k");
  Same("select f.id, d.name from db.facts f full join db.dim d on f.k = d.k");
  Same("select f.id, d.name from db.dim d right join db.facts f on f.k = d.k");
}

// A LEFT join whose kept side (db.dim's rows with w < 300, estimated 18,000) is far smaller than
// the other (db.facts, 80,000) builds the kept side; past the limit it is a grace join keeping
// the build rows no probe row matched (NULL keys among them).
TEST_F(SpillTest, LeftJoinBuiltOnItsKeptSide) {
  Same("select d.name, f.id from db.dim d left join db.facts f on f.k = d.k where d.w < 300");
  Same(
      "select d.name, f.id from db.dim d left join db.facts f on f.k = d.k and f.v < d.w "
      "where d.w < 300");
}

TEST_F(SpillTest, JoinWithResidual) {
  Same("select f.id, d.w from db.facts f left join db.dim d on f.k = d.k and f.v < d.w");
  Same("select f.id, d.w from db.facts f join db.dim d on f.k = d.k and f.v + 100 > d.w");
}

TEST_F(SpillTest, SemiAndAntiJoins) {
  Same("select id from db.facts where k in (select k from db.dim)");
  Same("select id from db.facts f where not exists (select 1 from db.dim d where d.k = f.k)");
  Same("select id from db.facts where k not in (select k from db.dim where k is not null)");
  // With a residual on each matching pair.
  Same(
      "select id from db.facts f where exists (select 1 from db.dim d where d.k = f.k and "
      "d.w > f.v)");
  Same(
      "select id from db.facts f where not exists (select 1 from db.dim d where d.k = f.k and "
      "d.w > f.v + 500)");
  // NOT IN a set holding NULL: never true, spilled or not.
  Set("SET memory_limit = '1536KiB'");
  int64_t spilled = 0;
  EXPECT_EQ(Rows("select count(*) from db.facts where k not in (select k from db.dim)", &spilled),
            Strings{"0"});
}

TEST_F(SpillTest, GroupByWithValueKeepingAggregates) {
  Same(
      "select id % 25000 as g, count(*), count(distinct s), sum(v), min(s), max(v), avg(v), "
      "median(v), string_agg(s, ',' order by s) from db.facts group by g");
  // NULL is a group of its own.
  Same("select k, count(*), count(distinct v), quantile_disc(v, 0.25) from db.facts group by k");
}

TEST_F(SpillTest, GroupByWhosePartitionsAreSplitAgain) {
  // 80,000 groups, each with its own distinct set and kept values: a 64th of them is still past
  // the limit, so each partition is split again by another hash.
  const std::string sql =
      "select id, count(distinct s), median(v), string_agg(s, '-'), max(k) from db.facts "
      "group by id";
  Same(sql);
  Set("SET memory_limit = '1536KiB'");
  auto r = engine_->Execute(sql);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_GT(r->stats.spill_partitions, 64);
}

TEST_F(SpillTest, GroupByOverAJoin) {
  Same(
      "select d.w, count(*), count(distinct f.s) from db.facts f join db.dim d on f.k = d.k "
      "group by d.w");
}

TEST_F(SpillTest, OrderByWithoutLimit) {
  Same("select id, s, v from db.facts order by v desc, s, id", true);
  Same("select id, k from db.facts order by k nulls first, id offset 10", true);
}

TEST_F(SpillTest, Settings) {
  Set("SET memory_limit = '4GB'");
  int64_t spilled = 0;
  EXPECT_EQ(Rows("select value from floe_settings() where name = 'memory_limit'", &spilled),
            Strings{R"("4000000000")"});
  EXPECT_EQ(Rows("select current_setting('memory_limit')", &spilled), Strings{R"("4000000000")"});
  Set("SET memory_limit = '512MiB'");
  EXPECT_EQ(Rows("select value from floe_settings() where name = 'memory_limit'", &spilled),
            Strings{R"("536870912")"});
  Set("SET memory_limit = '50%'");
  Set("RESET memory_limit");
  auto bad = engine_->Execute("SET memory_limit = 'lots'");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("memory_limit"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("'lots'"), std::string::npos) << bad.error().message;
  auto unknown = engine_->Execute("select current_setting('memory_limits')");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown setting 'memory_limits'"), std::string::npos)
      << unknown.error().message;
  auto pct = engine_->Execute("SET memory_limit = '300%'");
  ASSERT_FALSE(pct);
  EXPECT_NE(pct.error().message.find("'300%'"), std::string::npos) << pct.error().message;
}

TEST_F(SpillTest, TempDirectoryThatCannotBeWritten) {
  Set("SET memory_limit = '1536KiB'");
  Set("SET temp_directory = '/proc/floe-no-such-dir'");
  auto r = engine_->Execute("select f.id, d.name from db.facts f join db.dim d on f.k = d.k");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("temp_directory '/proc/floe-no-such-dir'"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

TEST_F(SpillTest, TempDirectoryIsEmptiedAfterTheStatement) {
  testing::TempDir tmp;
  Set("SET memory_limit = '1536KiB'");
  Set(fmt::format("SET temp_directory = '{}'", tmp.str()));
  int64_t spilled = 0;
  Rows("select id, s from db.facts order by s, id", &spilled, true);
  EXPECT_GT(spilled, 0);
  EXPECT_TRUE(std::filesystem::is_empty(tmp.str()));
}

}  // namespace
}  // namespace floe::sql
