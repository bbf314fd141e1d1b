#include "floe/exec/hash_aggregate.h"

#include <gtest/gtest.h>

#include "floe/exec/sort.h"

#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "floe/base/calendar.h"
#include "floe/columnar/take.h"

namespace floe::exec {
namespace {

// k: 0,1,2,0,1,2,...; v: 0..n-1 with every 5th NULL.
columnar::RecordBatch Batch(int64_t from, int64_t n) {
  ValueColumnBuilder k(columnar::String());
  ValueColumnBuilder v(columnar::Int64());
  for (int64_t i = from; i < from + n; ++i) {
    EXPECT_TRUE(k.Append(Value::Str(std::string(1, static_cast<char>('a' + i % 3)))));
    if (i % 5 == 4) {
      v.AppendNull();
    } else {
      EXPECT_TRUE(v.Append(Value::Int(i)));
    }
  }
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(
      columnar::Schema{{{"k", columnar::String()}, {"v", columnar::Int64()}}});
  b.columns = {k.Finish(), v.Finish()};
  b.num_rows = n;
  return b;
}

Aggregate Agg(AggFn fn, bool distinct = false) {
  Aggregate a;
  a.fn = fn;
  if (fn != AggFn::kCountStar) a.arg = ColumnRef(1, columnar::Int64(), "v");
  a.distinct = distinct;
  a.type = AggregateType(fn, columnar::Int64()).value();
  return a;
}

std::string Row(const columnar::RecordBatch& b, int64_t r) {
  std::string out;
  for (int c = 0; c < b.num_columns(); ++c) {
    out += (c ? "," : "") + ValueToText(ValueAt(*b.columns[c], r).value(), b.columns[c]->type);
  }
  return out;
}

TEST(HashAggregate, GroupsCountSumAvgMinMax) {
  HashAggregate agg({ColumnRef(0, columnar::String(), "k")},
                    {Agg(AggFn::kCountStar), Agg(AggFn::kCount), Agg(AggFn::kSum), Agg(AggFn::kAvg),
                     Agg(AggFn::kMin), Agg(AggFn::kMax)});
  ASSERT_TRUE(agg.Consume(Batch(0, 10)));
  auto out = agg.Finish().value();
  ASSERT_EQ(out.num_rows, 3);
  // a: rows 0,3,6,9 (9 is NULL) -> count 4, count(v) 3, sum 9, avg 3, min 0, max 6.
  EXPECT_EQ(Row(out, 0), "a,4,3,9,3.0,0,6");
  EXPECT_EQ(Row(out, 1), "b,3,2,8,4.0,1,7");
  EXPECT_EQ(Row(out, 2), "c,3,3,15,5.0,2,8");
}

// Integer keys in runs (a table sorted by them), broken by NULLs and by other keys, across two
// batches: a row repeating its predecessor's key joins that key's group, a NULL its own.
TEST(HashAggregate, IntegerKeysInRunsGroupAsTheirValues) {
  HashAggregate agg({ColumnRef(0, columnar::Int64(), "k")}, {Agg(AggFn::kCountStar)});
  for (const std::vector<std::optional<int64_t>>& keys :
       {std::vector<std::optional<int64_t>>{7, 7, std::nullopt, 7, 0, 0, 7},
        std::vector<std::optional<int64_t>>{7, 0, std::nullopt, std::nullopt, 5}}) {
    ValueColumnBuilder k(columnar::Int64()), v(columnar::Int64());
    for (const auto& x : keys) {
      if (x) {
        ASSERT_TRUE(k.Append(Value::Int(*x)));
      } else {
        k.AppendNull();
      }
      ASSERT_TRUE(v.Append(Value::Int(1)));
    }
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(
        columnar::Schema{{{"k", columnar::Int64()}, {"v", columnar::Int64()}}});
    b.columns = {k.Finish(), v.Finish()};
    b.num_rows = static_cast<int64_t>(keys.size());
    ASSERT_TRUE(agg.Consume(b));
  }
  auto out = agg.Finish().value();
  std::set<std::string> rows;
  for (int64_t r = 0; r < out.num_rows; ++r) rows.insert(Row(out, r));
  EXPECT_EQ(rows, (std::set<std::string>{"7,5", "NULL,3", "0,3", "5,1"}));
}

// Sums of integers and decimals without nulls over few groups (added in lanes) and over more
// groups than the lanes hold: the exact per-group sums, counts and averages either way, across
// batches -- decimals within 64 bits (lanes) and ones that need the high half (the loop).
TEST(HashAggregate, SumsOverFewGroupsAndManyGroupsAreExact) {
  const columnar::DataType dec = columnar::Decimal128(38, 2);
  for (int64_t groups : {4, 40}) {
    auto batch = [&](int64_t from, int64_t n) {
      ValueColumnBuilder k(columnar::Int64()), v(columnar::Int64()), d(dec), small(dec);
      for (int64_t i = from; i < from + n; ++i) {
        EXPECT_TRUE(k.Append(Value::Int((i * 7 + i / 3) % groups)));
        EXPECT_TRUE(v.Append(Value::Int(i * 1000003 - 77)));
        EXPECT_TRUE(d.Append(Value{(static_cast<__int128>(i) << 70) + i}));
        EXPECT_TRUE(small.Append(Value{static_cast<__int128>(5000 - i * 7)}));
      }
      columnar::RecordBatch b;
      b.schema = std::make_shared<columnar::Schema>(columnar::Schema{
          {{"k", columnar::Int64()}, {"v", columnar::Int64()}, {"d", dec}, {"small", dec}}});
      b.columns = {k.Finish(), v.Finish(), d.Finish(), small.Finish()};
      b.num_rows = n;
      return b;
    };
    auto agg = [&](AggFn fn, int column, const columnar::DataType& t) {
      Aggregate a;
      a.fn = fn;
      a.arg = ColumnRef(column, t, column == 1 ? "v" : column == 2 ? "d" : "small");
      a.type = AggregateType(fn, t).value();
      return a;
    };
    HashAggregate h({ColumnRef(0, columnar::Int64(), "k")},
                    {agg(AggFn::kSum, 1, columnar::Int64()), agg(AggFn::kSum, 2, dec),
                     agg(AggFn::kCount, 2, dec), agg(AggFn::kAvg, 1, columnar::Int64()),
                     agg(AggFn::kSum, 3, dec)});
    ASSERT_TRUE(h.Consume(batch(0, 3001)));
    ASSERT_TRUE(h.Consume(batch(3001, 2002)));
    auto out = h.Finish().value();
    ASSERT_EQ(out.num_rows, groups);
    // By key: sum v, sum d, count, sum small.
    std::map<int64_t, std::tuple<__int128, __int128, int64_t, __int128>> want;
    for (int64_t i = 0; i < 5003; ++i) {
      auto& [sv, sd, n, ss] = want[(i * 7 + i / 3) % groups];
      sv += i * 1000003 - 77;
      sd += (static_cast<__int128>(i) << 70) + i;
      ++n;
      ss += 5000 - i * 7;
    }
    for (int64_t r = 0; r < out.num_rows; ++r) {
      const int64_t key = ValueAt(*out.columns[0], r).value().i();
      const auto& [sv, sd, n, ss] = want.at(key);
      EXPECT_TRUE(ValueAt(*out.columns[5], r).value().dec() == ss) << key;
      EXPECT_EQ(ValueAt(*out.columns[1], r).value().i(), static_cast<int64_t>(sv)) << key;
      EXPECT_TRUE(ValueAt(*out.columns[2], r).value().dec() == sd) << key;
      EXPECT_EQ(ValueAt(*out.columns[3], r).value().i(), n) << key;
      EXPECT_DOUBLE_EQ(ValueAt(*out.columns[4], r).value().d(),
                       static_cast<double>(sv) / static_cast<double>(n))
          << key;
    }
  }
}

// With few groups each batch's rows are listed per group once for all aggregates: sums of
// doubles still add each group's rows in row order onto its running sum (the same bits as row by
// row), COUNT(*) counts the lists, and a column with NULLs (or a batch bringing a new group) takes
// the row-by-row loop -- the answers agree with sums made here row by row.
TEST(HashAggregate, FewGroupsSumDoublesInRowOrderAndCountAroundNulls) {
  auto batch = [](int64_t from, int64_t n, int64_t groups, bool with_nulls) {
    ValueColumnBuilder k(columnar::Int64()), x(columnar::Float64()), y(columnar::Int64());
    for (int64_t i = from; i < from + n; ++i) {
      EXPECT_TRUE(k.Append(Value::Int(i % groups)));
      // Large and small alternating: any other order of the adds gives other bits.
      EXPECT_TRUE(x.Append(Value::Double(i % 2 ? 1e16 + static_cast<double>(i) : 0.1 * i)));
      if (with_nulls && i % 5 == 0) {
        y.AppendNull();
      } else {
        EXPECT_TRUE(y.Append(Value::Int(i)));
      }
    }
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(columnar::Schema{
        {{"k", columnar::Int64()}, {"x", columnar::Float64()}, {"y", columnar::Int64()}}});
    b.columns = {k.Finish(), x.Finish(), y.Finish()};
    b.num_rows = n;
    return b;
  };
  auto agg = [](AggFn fn, int column, const columnar::DataType& t) {
    Aggregate a;
    a.fn = fn;
    if (fn != AggFn::kCountStar) a.arg = ColumnRef(column, t, column == 1 ? "x" : "y");
    a.type = AggregateType(fn, t).value();
    return a;
  };
  HashAggregate h(
      {ColumnRef(0, columnar::Int64(), "k")},
      {agg(AggFn::kSum, 1, columnar::Float64()), agg(AggFn::kCountStar, 0, {}),
       agg(AggFn::kCount, 2, columnar::Int64()), agg(AggFn::kSum, 2, columnar::Int64())});
  ASSERT_TRUE(h.Consume(batch(0, 1000, 3, false)));
  ASSERT_TRUE(h.Consume(batch(1000, 1000, 3, true)));
  ASSERT_TRUE(h.Consume(batch(2000, 999, 4, false)));  // group 3 first appears here
  auto out = h.Finish().value();
  ASSERT_EQ(out.num_rows, 4);
  std::map<int64_t, std::tuple<double, int64_t, int64_t, int64_t>> want;
  for (int64_t i = 0; i < 2999; ++i) {
    auto& [sx, rows, ny, sy] = want[i < 2000 ? i % 3 : i % 4];
    sx += i % 2 ? 1e16 + static_cast<double>(i) : 0.1 * i;
    ++rows;
    if (!(i >= 1000 && i < 2000 && i % 5 == 0)) {
      ++ny;
      sy += i;
    }
  }
  for (int64_t r = 0; r < out.num_rows; ++r) {
    const int64_t key = ValueAt(*out.columns[0], r).value().i();
    const auto& [sx, rows, ny, sy] = want.at(key);
    EXPECT_EQ(ValueAt(*out.columns[1], r).value().d(), sx) << key;  // to the bit
    EXPECT_EQ(ValueAt(*out.columns[2], r).value().i(), rows) << key;
    EXPECT_EQ(ValueAt(*out.columns[3], r).value().i(), ny) << key;
    EXPECT_EQ(ValueAt(*out.columns[4], r).value().i(), sy) << key;
  }
  // Keys alone (SELECT DISTINCT): no aggregate to list rows for.
  HashAggregate keys_only({ColumnRef(0, columnar::Int64(), "k")}, {});
  ASSERT_TRUE(keys_only.Consume(batch(0, 100, 3, false)));
  EXPECT_EQ(keys_only.Finish().value().num_rows, 3);
}

// Arguments sharing a subexpression (Q01's price * (1 - discount), summed alone and times
// (1 + tax)) compute it once per batch; the answers are those of each argument on its own. A
// division guarded by CASE is not taken out of it: where w = 0 it is never computed.
TEST(HashAggregate, ArgumentsSharingASubexpressionAgreeWithTheirOwnAnswers) {
  ValueColumnBuilder k(columnar::Int64()), v(columnar::Int64()), w(columnar::Int64());
  for (int64_t i = 0; i < 300; ++i) {
    EXPECT_TRUE(k.Append(Value::Int(i % 3)));
    EXPECT_TRUE(v.Append(Value::Int(i * 7 - 50)));
    EXPECT_TRUE(w.Append(Value::Int(i % 4)));
  }
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(columnar::Schema{
      {{"k", columnar::Int64()}, {"v", columnar::Int64()}, {"w", columnar::Int64()}}});
  b.columns = {k.Finish(), v.Finish(), w.Finish()};
  b.num_rows = 300;
  const ExprPtr vc = ColumnRef(1, columnar::Int64(), "v"),
                wc = ColumnRef(2, columnar::Int64(), "w");
  auto lit = [](int64_t x) { return Constant(Value::Int(x), columnar::Int64()); };
  const ExprPtr net = MakeCall(Fn::kMul, {vc, MakeCall(Fn::kSub, {lit(1), wc}).value()}).value();
  const ExprPtr gross = MakeCall(Fn::kMul, {net, MakeCall(Fn::kAdd, {lit(1), wc}).value()}).value();
  const ExprPtr guarded = MakeCall(Fn::kCase, {MakeCall(Fn::kNotEq, {wc, lit(0)}).value(),
                                               MakeCall(Fn::kDiv, {lit(12), wc}).value(),
                                               Constant(Value{}, columnar::Float64())})
                              .value();
  auto sum = [](const ExprPtr& arg) {
    Aggregate a;
    a.fn = AggFn::kSum;
    a.arg = arg;
    a.type = AggregateType(AggFn::kSum, arg->type).value();
    return a;
  };
  HashAggregate h({ColumnRef(0, columnar::Int64(), "k")},
                  {sum(net), sum(gross), sum(net), sum(guarded), sum(guarded)});
  ASSERT_TRUE(h.Consume(b));
  ASSERT_TRUE(h.Consume(b));
  auto out = h.Finish();
  ASSERT_TRUE(out) << out.error().ToString();
  std::map<int64_t, std::tuple<int64_t, int64_t, double>> want;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t i = 0; i < 300; ++i) {
      auto& [n, g, q] = want[i % 3];
      const int64_t x = i * 7 - 50, y = i % 4;
      n += x * (1 - y);
      g += x * (1 - y) * (1 + y);
      if (y != 0) q += 12.0 / static_cast<double>(y);
    }
  }
  ASSERT_EQ(out->num_rows, 3);
  for (int64_t r = 0; r < 3; ++r) {
    const int64_t key = ValueAt(*out->columns[0], r).value().i();
    const auto& [n, g, q] = want.at(key);
    EXPECT_EQ(ValueAt(*out->columns[1], r).value().i(), n) << key;
    EXPECT_EQ(ValueAt(*out->columns[2], r).value().i(), g) << key;
    EXPECT_EQ(ValueAt(*out->columns[3], r).value().i(), n) << key;
    EXPECT_DOUBLE_EQ(ValueAt(*out->columns[4], r).value().d(), q) << key;
    EXPECT_DOUBLE_EQ(ValueAt(*out->columns[5], r).value().d(), q) << key;
  }
}

TEST(HashAggregate, PartialAggregatesMergeToTheSameAnswer) {
  HashAggregate one({ColumnRef(0, columnar::String(), "k")},
                    {Agg(AggFn::kSum), Agg(AggFn::kCount, true), Agg(AggFn::kMax)});
  ASSERT_TRUE(one.Consume(Batch(0, 50)));
  HashAggregate a({ColumnRef(0, columnar::String(), "k")},
                  {Agg(AggFn::kSum), Agg(AggFn::kCount, true), Agg(AggFn::kMax)});
  HashAggregate b({ColumnRef(0, columnar::String(), "k")},
                  {Agg(AggFn::kSum), Agg(AggFn::kCount, true), Agg(AggFn::kMax)});
  ASSERT_TRUE(a.Consume(Batch(0, 20)));
  ASSERT_TRUE(b.Consume(Batch(20, 30)));
  ASSERT_TRUE(a.Merge(std::move(b)));
  auto x = one.Finish().value();
  auto y = a.Finish().value();
  ASSERT_EQ(x.num_rows, y.num_rows);
  for (int64_t r = 0; r < x.num_rows; ++r) EXPECT_EQ(Row(x, r), Row(y, r));
}

// COUNT, SUM and AVG(DISTINCT) of an integer column with repeats and NULLs, over two partials
// merged: each group's distinct values once, whichever partial saw them.
TEST(HashAggregate, DistinctIntegersCountOnceAcrossPartials) {
  auto batch = [](const std::vector<std::pair<std::string, std::optional<int64_t>>>& rows) {
    ValueColumnBuilder k(columnar::String()), v(columnar::Int64());
    for (const auto& [key, x] : rows) {
      EXPECT_TRUE(k.Append(Value::Str(key)));
      if (x) {
        EXPECT_TRUE(v.Append(Value::Int(*x)));
      } else {
        v.AppendNull();
      }
    }
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(
        columnar::Schema{{{"k", columnar::String()}, {"v", columnar::Int64()}}});
    b.columns = {k.Finish(), v.Finish()};
    b.num_rows = static_cast<int64_t>(rows.size());
    return b;
  };
  auto aggregates = [] {
    return std::vector<Aggregate>{Agg(AggFn::kCount, true), Agg(AggFn::kSum, true),
                                  Agg(AggFn::kAvg, true), Agg(AggFn::kCount)};
  };
  HashAggregate a({ColumnRef(0, columnar::String(), "k")}, aggregates());
  HashAggregate b({ColumnRef(0, columnar::String(), "k")}, aggregates());
  ASSERT_TRUE(a.Consume(batch({{"x", 3}, {"x", 3}, {"x", std::nullopt}, {"y", -2}, {"x", 5}})));
  ASSERT_TRUE(b.Consume(batch({{"x", 5}, {"y", -2}, {"y", 4}, {"x", 3}, {"y", std::nullopt}})));
  ASSERT_TRUE(a.Merge(std::move(b)));
  auto out = a.Finish().value();
  std::set<std::string> rows;
  for (int64_t r = 0; r < out.num_rows; ++r) rows.insert(Row(out, r));
  // x: 3, 3, 5, 5, 3 -> {3, 5}; y: -2, -2, 4 -> {-2, 4}.
  EXPECT_EQ(rows, (std::set<std::string>{"x,2,8,4.0,5", "y,2,2,1.0,3"}));
}

// The aggregates that keep values or running moments: partials merged give one pass's answer.
TEST(HashAggregate, KeptValuesAndMomentsMergeToTheSameAnswer) {
  auto aggregates = [] {
    Aggregate var = Agg(AggFn::kVarSamp), cont = Agg(AggFn::kQuantileCont),
              disc = Agg(AggFn::kQuantileDisc), arg_max = Agg(AggFn::kArgMax);
    Aggregate joined;
    joined.fn = AggFn::kStringAgg;
    joined.arg = MakeCast(ColumnRef(1, columnar::Int64(), "v"), columnar::String()).value();
    joined.order = {ColumnRef(1, columnar::Int64(), "v")};
    joined.order_descending = {true};
    joined.separator = ";";
    joined.type = columnar::String();
    arg_max.arg2 = ColumnRef(1, columnar::Int64(), "v");
    return std::vector<Aggregate>{var, cont, disc, arg_max, joined};
  };
  HashAggregate one({ColumnRef(0, columnar::String(), "k")}, aggregates());
  ASSERT_TRUE(one.Consume(Batch(0, 50)));
  HashAggregate a({ColumnRef(0, columnar::String(), "k")}, aggregates());
  HashAggregate b({ColumnRef(0, columnar::String(), "k")}, aggregates());
  ASSERT_TRUE(a.Consume(Batch(0, 20)));
  ASSERT_TRUE(b.Consume(Batch(20, 30)));
  ASSERT_TRUE(a.Merge(std::move(b)));
  auto x = one.Finish().value();
  auto y = a.Finish().value();
  ASSERT_EQ(x.num_rows, 3);
  ASSERT_EQ(y.num_rows, 3);
  // Group a: v = 0 3 6 12 15 18 21 27 30 33 36 42 45 48 (9, 24 and 39 are NULL): the median
  // interpolates 21 and 27; the discrete one is the 7th of 14.
  EXPECT_EQ(ValueToText(ValueAt(*y.columns[2], 0).value(), columnar::Float64()), "24.0");
  EXPECT_EQ(ValueAt(*y.columns[3], 0).value().i(), 21);
  EXPECT_EQ(ValueAt(*y.columns[4], 0).value().i(), 48);
  EXPECT_EQ(ValueAt(*y.columns[5], 0).value().s(), "48;45;42;36;33;30;27;21;18;15;12;6;3;0");
  for (int64_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(ValueAt(*x.columns[1], r).value().d(), ValueAt(*y.columns[1], r).value().d(), 1e-9);
    for (int c = 2; c < 6; ++c) {
      EXPECT_EQ(ValueToText(ValueAt(*x.columns[c], r).value(), x.columns[c]->type),
                ValueToText(ValueAt(*y.columns[c], r).value(), y.columns[c]->type));
    }
  }
  // Sample variance of group a's 14 values: mean 24, squared deviations summed 3222, over 13.
  EXPECT_NEAR(ValueAt(*y.columns[1], 0).value().d(), 3222.0 / 13, 1e-9);
}

TEST(HashAggregate, NoKeysGivesOneRowEvenWithoutInput) {
  HashAggregate agg({}, {Agg(AggFn::kCountStar), Agg(AggFn::kSum)});
  auto out = agg.Finish().value();
  ASSERT_EQ(out.num_rows, 1);
  EXPECT_EQ(Row(out, 0), "0,NULL");
}

// Without keys every row is in the one group, also when a batch is shorter than one before it.
TEST(HashAggregate, NoKeysOverBatchesOfFallingSize) {
  HashAggregate agg({}, {Agg(AggFn::kCountStar), Agg(AggFn::kCount), Agg(AggFn::kSum),
                         Agg(AggFn::kMin), Agg(AggFn::kMax)});
  ASSERT_TRUE(agg.Consume(Batch(0, 20)));
  ASSERT_TRUE(agg.Consume(Batch(20, 7)));
  ASSERT_TRUE(agg.Consume(Batch(27, 3)));
  auto out = agg.Finish().value();
  ASSERT_EQ(out.num_rows, 1);
  // Rows 0..29, NULL at 4, 9, .., 29: 30 rows, 24 values summing to 435 - (4+9+...+29) = 336.
  EXPECT_EQ(Row(out, 0), "30,24,336,0,28");
}

TEST(HashAggregate, SumOfStringIsATypeMismatch) {
  auto t = AggregateType(AggFn::kSum, columnar::String());
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("type mismatch"), std::string::npos);
}

// Decimal(10, 2) amounts: 0.10 x 10 and 0.20 x 10 in doubles would give 2.9999999999999996;
// the exact sum is decimal(38, 2) 3.00, DISTINCT sums 0.30, AVG is computed from the exact sum.
TEST(HashAggregate, DecimalSumsAreExact) {
  const columnar::DataType dec = columnar::Decimal128(10, 2);
  ValueColumnBuilder v(dec);
  for (int i = 0; i < 20; ++i) {
    Value x;
    x.v = static_cast<__int128>(i < 10 ? 10 : 20);  // 0.10, then 0.20
    ASSERT_TRUE(v.Append(x));
  }
  v.AppendNull();
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"v", dec}}});
  b.columns = {v.Finish()};
  b.num_rows = 21;
  auto agg = [&](AggFn fn, bool distinct) {
    Aggregate a;
    a.fn = fn;
    a.arg = ColumnRef(0, dec, "v");
    a.distinct = distinct;
    a.type = AggregateType(fn, dec).value();
    return a;
  };
  EXPECT_EQ(AggregateType(AggFn::kSum, dec)->ToString(), "decimal(38, 2)");
  HashAggregate h({}, {agg(AggFn::kSum, false), agg(AggFn::kSum, true), agg(AggFn::kAvg, false)});
  ASSERT_TRUE(h.Consume(b));
  auto out = h.Finish().value();
  EXPECT_EQ(Row(out, 0), "3.00,0.30,0.15");

  // Past 38 digits: an error, not a wrapped or rounded number.
  ValueColumnBuilder big(columnar::Decimal128(38, 0));
  Value huge;
  huge.v = static_cast<__int128>(6'000'000'000'000'000'000ULL) * 10'000'000'000'000'000'000ULL;
  // 6 x 10^37, twice: 1.2 x 10^38, past 38 digits (and within __int128).
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(big.Append(huge));
  columnar::RecordBatch hb;
  hb.schema =
      std::make_shared<columnar::Schema>(columnar::Schema{{{"v", columnar::Decimal128(38, 0)}}});
  hb.columns = {big.Finish()};
  hb.num_rows = 2;
  Aggregate s;
  s.fn = AggFn::kSum;
  s.arg = ColumnRef(0, columnar::Decimal128(38, 0), "v");
  s.type = AggregateType(AggFn::kSum, s.arg->type).value();
  HashAggregate o({}, {s});
  ASSERT_TRUE(o.Consume(hb));
  auto r = o.Finish();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "decimal overflow in sum: the result has more than 38 digits");
}

// Keys of three kinds (a date, a string with NULLs, an integer) in one, two and three columns,
// split over two partial aggregates: every group's COUNT(*), MIN/MAX of a date and of a string,
// and MIN/MAX(DISTINCT), against a std::map built row by row in the test.
TEST(HashAggregate, KeysOfEveryKindAndPartialsAgreeWithARowByRowReference) {
  const int64_t n = 5000;
  ValueColumnBuilder day(columnar::Date32()), name(columnar::String()), num(columnar::Int64());
  struct Row3 {
    int64_t day;
    std::optional<std::string> name;
    int64_t num;
  };
  std::vector<Row3> rows;
  for (int64_t i = 0; i < n; ++i) {
    // The second half's days and numbers lie above the first's, so a merge must pick sides.
    Row3 r{19000 + (i * 7) % 11 + (i < n / 2 ? 0 : 20), std::nullopt,
           (i * 13) % 5 - (i < n / 2 ? 2 : 0)};
    if (i % 9 != 0) r.name = std::string(1 + i % 3, static_cast<char>('p' + (i * 5) % 4));
    rows.push_back(r);
    ASSERT_TRUE(day.Append(Value::Int(r.day)));
    if (r.name) {
      ASSERT_TRUE(name.Append(Value::Str(*r.name)));
    } else {
      name.AppendNull();
    }
    ASSERT_TRUE(num.Append(Value::Int(r.num)));
  }
  columnar::RecordBatch all;
  all.schema = std::make_shared<columnar::Schema>(columnar::Schema{
      {{"day", columnar::Date32()}, {"name", columnar::String()}, {"num", columnar::Int64()}}});
  all.columns = {day.Finish(), name.Finish(), num.Finish()};
  all.num_rows = n;
  auto keyref = [](int c) {
    static const columnar::DataType types[] = {columnar::Date32(), columnar::String(),
                                               columnar::Int64()};
    return ColumnRef(c, types[c], std::string("c") + std::to_string(c));
  };
  auto agg = [&](AggFn fn, int col, bool distinct) {
    Aggregate a;
    a.fn = fn;
    if (col >= 0) a.arg = keyref(col);
    a.distinct = distinct;
    a.type = AggregateType(fn, col >= 0 ? a.arg->type : columnar::Int64()).value();
    return a;
  };
  std::vector<Aggregate> aggs = {agg(AggFn::kCountStar, -1, false), agg(AggFn::kMin, 0, false),
                                 agg(AggFn::kMax, 1, false), agg(AggFn::kMin, 2, true),
                                 agg(AggFn::kMax, 0, true)};
  for (const std::vector<int>& key_cols : std::vector<std::vector<int>>{{1}, {0, 1}, {2, 1, 0}}) {
    std::vector<ExprPtr> keys;
    for (int c : key_cols) keys.push_back(keyref(c));
    // Two partials over halves of the rows, merged.
    HashAggregate a(keys, aggs), b(keys, aggs);
    std::vector<int64_t> first, second;
    for (int64_t i = 0; i < n; ++i) (i < n / 2 ? second : first).push_back(i);
    ASSERT_TRUE(a.Consume(columnar::Take(all, first).value()));
    ASSERT_TRUE(b.Consume(columnar::Take(all, second).value()));
    ASSERT_TRUE(a.Merge(std::move(b)));
    auto out = a.Finish().value();

    // The reference: key text -> count, min day, max name, min num, max day.
    struct Ref {
      int64_t count = 0, min_day = INT64_MAX, min_num = INT64_MAX, max_day = INT64_MIN;
      std::optional<std::string> max_name;
    };
    std::map<std::string, Ref> ref;
    for (const Row3& r : rows) {
      std::string k;
      for (int c : key_cols) {
        k += c == 0   ? FormatDate(static_cast<int32_t>(r.day))
             : c == 1 ? (r.name ? *r.name : "NULL")
                      : std::to_string(r.num);
        k += ",";
      }
      Ref& x = ref[k];
      ++x.count;
      x.min_day = std::min(x.min_day, r.day);
      x.max_day = std::max(x.max_day, r.day);
      x.min_num = std::min(x.min_num, r.num);
      if (r.name && (!x.max_name || *r.name > *x.max_name)) x.max_name = r.name;
    }
    ASSERT_EQ(out.num_rows, static_cast<int64_t>(ref.size()));
    std::set<std::string> got;
    for (int64_t r = 0; r < out.num_rows; ++r) got.insert(Row(out, r));
    for (const auto& [k, x] : ref) {
      std::string want = k + std::to_string(x.count) + "," +
                         FormatDate(static_cast<int32_t>(x.min_day)) + "," +
                         (x.max_name ? *x.max_name : "NULL") + "," + std::to_string(x.min_num) +
                         "," + FormatDate(static_cast<int32_t>(x.max_day));
      EXPECT_TRUE(got.count(want)) << want;
    }
  }
}

// Integer keys coded by direct lookup while their range stays dense, then by hashing: ranges
// growing upward and downward across batches, NULLs and all-NULL batches, a batch whose extremes
// (INT64_MIN/MAX) move the keys already coded to the hash table, 32-bit dates below zero, and
// partials merged a value at a time -- every group's count and sum equal to a row-by-row map.
TEST(HashAggregate, IntegerKeysDenseThenSparseGroupAsTheirValues) {
  using Keys = std::vector<std::optional<int64_t>>;
  auto run = [](const columnar::DataType& type, const std::vector<Keys>& part_a,
                const std::vector<Keys>& part_b) {
    Aggregate count = Agg(AggFn::kCountStar), sum = Agg(AggFn::kSum);
    HashAggregate a({ColumnRef(0, type, "k")}, {count, sum});
    HashAggregate b({ColumnRef(0, type, "k")}, {count, sum});
    std::map<std::optional<int64_t>, std::pair<int64_t, int64_t>> want;
    int64_t row = 0;
    for (int side = 0; side < 2; ++side) {
      for (const Keys& keys : side == 0 ? part_a : part_b) {
        ValueColumnBuilder k(type), v(columnar::Int64());
        for (const auto& x : keys) {
          if (x) {
            EXPECT_TRUE(k.Append(Value::Int(*x)));
          } else {
            k.AppendNull();
          }
          EXPECT_TRUE(v.Append(Value::Int(row)));
          auto& [c, s] = want[x];
          ++c;
          s += row++;
        }
        columnar::RecordBatch batch;
        batch.schema = std::make_shared<columnar::Schema>(
            columnar::Schema{{{"k", type}, {"v", columnar::Int64()}}});
        batch.columns = {k.Finish(), v.Finish()};
        batch.num_rows = static_cast<int64_t>(keys.size());
        EXPECT_TRUE((side == 0 ? a : b).Consume(batch));
      }
    }
    EXPECT_TRUE(a.Merge(std::move(b)));
    const int64_t bytes = a.EstimatedBytes();
    auto out = a.Finish().value();
    std::map<std::optional<int64_t>, std::pair<int64_t, int64_t>> got;
    for (int64_t r = 0; r < out.num_rows; ++r) {
      const Value key = ValueAt(*out.columns[0], r).value();
      std::optional<int64_t> k;
      if (!key.is_null()) k = key.i();
      EXPECT_FALSE(got.count(k)) << "two groups of one key";
      got[k] = {ValueAt(*out.columns[1], r).value().i(), ValueAt(*out.columns[2], r).value().i()};
    }
    EXPECT_EQ(got, want);
    return bytes;
  };
  auto range = [](int64_t from, int64_t to, int64_t step) {
    Keys k;
    for (int64_t x = from; step > 0 ? x < to : x > to; x += step) k.push_back(x);
    return k;
  };
  // Dense keys in order, each batch above the last (and a run of NULLs, an all-NULL batch).
  Keys with_nulls = range(30000, 40000, 1);
  for (size_t i = 0; i < with_nulls.size(); i += 7) with_nulls[i] = std::nullopt;
  const int64_t dense = run(columnar::Int64(),
                            {range(0, 10000, 1), Keys(50, std::nullopt), range(10000, 30000, 2),
                             with_nulls, range(0, 40000, 3)},
                            {range(39999, -1, -5)});
  // The same groups with keys spread out: hashed, their 40,000 values in a table of 131,072
  // 16-byte slots (2 MiB) where the dense keys took 160 KiB of direct codes.
  auto spread = [](std::vector<Keys> batches) {
    for (Keys& keys : batches) {
      for (auto& x : keys) {
        if (x) *x *= 1000003;
      }
    }
    return batches;
  };
  const int64_t sparse = run(columnar::Int64(),
                             spread({range(0, 10000, 1), Keys(50, std::nullopt),
                                     range(10000, 30000, 2), with_nulls, range(0, 40000, 3)}),
                             spread({range(39999, -1, -5)}));
  EXPECT_GT(sparse - dense, 1 << 20);
  // Falling keys widen the range downward, batch after batch.
  run(columnar::Int64(), {range(100000, 90000, -1), range(90000, 50000, -1), range(60000, 0, -3)},
      {range(-5, 5, 1)});
  // Dense keys, then a batch with both extremes: the codes so far move to the hash table, and
  // the next batch finds their groups there.
  Keys extremes = range(0, 100, 1);
  extremes.push_back(std::numeric_limits<int64_t>::min());
  extremes.push_back(std::numeric_limits<int64_t>::max());
  run(columnar::Int64(), {range(0, 5000, 1), extremes, range(4000, 6000, 1)},
      {range(1000000000000, 1000000005000, 1)});
  // A first batch too wide for its two values (hashed), then the range filled in: the values
  // move back to direct codes, which later keys below and above the range widen.
  run(columnar::Int64(), {{0, 100000}, range(0, 100001, 1), range(-70000, 0, 1)},
      {range(100000, 400000, 3), {-70000, std::nullopt}});
  // A batch of many rows but two keys far apart: the rows allowed a wide direct array, but its
  // two values do not -- hashed after the batch, not 4 MB held for two groups.
  Keys two_far;
  for (int i = 0; i < 65536; ++i) two_far.push_back(i % 2 == 0 ? 0 : 1000000);
  EXPECT_LT(run(columnar::Int64(), {two_far}, {{1000000, 5}}), 1 << 20);
  // Keys falling at density 1/16 widen the array downward, geometrically.
  run(columnar::Int64(), {range(0, -400000, -16), range(-400000, -800000, -16)},
      {range(-800000, 0, 160)});
  // One partial's keys far from the other's: merged a value at a time.
  run(columnar::Int64(), {range(0, 3000, 1)}, {range(-1000000000, -999997000, 1), {0, 1, 2}});
  // Dates (32-bit), some before 1970.
  run(columnar::Date32(), {range(-400, 400, 1), {std::nullopt, -400}},
      {range(20000, 19000, -1), range(-2147483647, -2147480000, 1000)});
}

// A key column that carries dictionary codes groups as its values do: two batches over different
// dictionaries (entries in another order), and a row whose code is out of the dictionary's range
// falls back to its bytes.
TEST(HashAggregate, DictionaryCodedKeysGroupAsTheirValues) {
  auto coded = [](std::vector<std::string> dict, std::vector<int32_t> codes) {
    ValueColumnBuilder d(columnar::String()), v(columnar::String());
    for (const auto& e : dict) EXPECT_TRUE(d.Append(Value::Str(e)));
    for (int32_t c : codes) {
      EXPECT_TRUE(v.Append(Value::Str(c < static_cast<int32_t>(dict.size()) ? dict[c] : "z")));
    }
    auto col = std::make_shared<columnar::Column>(*v.Finish());
    col->dictionary = d.Finish();
    std::vector<uint8_t> bytes(codes.size() * 4);
    std::memcpy(bytes.data(), codes.data(), bytes.size());
    col->codes = Buffer(std::move(bytes));
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"k", columnar::String()}}});
    b.columns = {col};
    b.num_rows = static_cast<int64_t>(codes.size());
    return b;
  };
  HashAggregate agg({ColumnRef(0, columnar::String(), "k")}, {Agg(AggFn::kCountStar)});
  ASSERT_TRUE(agg.Consume(coded({"x", "y"}, {0, 1, 1, 0, 1})));
  ASSERT_TRUE(agg.Consume(coded({"y", "x"}, {0, 0, 1, 7})));  // 7: outside, value "z"
  auto out = agg.Finish().value();
  std::set<std::string> got;
  for (int64_t r = 0; r < out.num_rows; ++r) got.insert(Row(out, r));
  EXPECT_EQ(got, (std::set<std::string>{"x,3", "y,5", "z,1"}));
}

// MIN/MAX of strings compare bytes (a byte above 0x7f after every ASCII one, a prefix before
// its extensions). Batches coded by different dictionaries (the same code naming other strings;
// a code outside its dictionary, whose row holds its own value), plain batches and NULLs, with
// one group, three, and more groups than the per-entry bits allow: every group's answer against
// a row-by-row reference over the rows' values.
TEST(HashAggregate, MinMaxOfStringsOverDictionaryCodedBatchesAgreeWithARowByRowReference) {
  const std::vector<std::string> words = {"pear",
                                          "pea",
                                          "apple",
                                          "\xc3\xa9"
                                          "clair",
                                          "",
                                          "zebra",
                                          "ap"};
  auto batch = [&](int64_t from, int64_t n, int mode) {
    // mode 0: plain; 1: coded by `words`; 2: coded by `words` reversed, one code out of range.
    ValueColumnBuilder k(columnar::Int64()), v(columnar::String()), d(columnar::String());
    std::vector<int32_t> codes;
    for (int64_t i = from; i < from + n; ++i) {
      EXPECT_TRUE(k.Append(Value::Int(i % 7)));
      const auto w = static_cast<int32_t>((i * 5 + i / 3) % 7);
      const int32_t code = mode == 2 ? 6 - w : w;
      if (i % 11 == 3) {
        v.AppendNull();
        codes.push_back(0);
      } else if (mode == 2 && i % 13 == 0) {
        EXPECT_TRUE(v.Append(Value::Str("zz" + std::to_string(i))));
        codes.push_back(1000);
      } else {
        EXPECT_TRUE(v.Append(Value::Str(words[static_cast<size_t>(w)])));
        codes.push_back(code);
      }
    }
    auto col = std::make_shared<columnar::Column>(*v.Finish());
    if (mode != 0) {
      for (size_t e = 0; e < words.size(); ++e) {
        EXPECT_TRUE(d.Append(Value::Str(words[mode == 2 ? words.size() - 1 - e : e])));
      }
      col->dictionary = d.Finish();
      std::vector<uint8_t> bytes(codes.size() * 4);
      std::memcpy(bytes.data(), codes.data(), bytes.size());
      col->codes = Buffer(std::move(bytes));
    }
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(
        columnar::Schema{{{"k", columnar::Int64()}, {"v", columnar::String()}}});
    b.columns = {k.Finish(), col};
    b.num_rows = n;
    return b;
  };
  auto agg_of = [](AggFn fn) {
    Aggregate a;
    a.fn = fn;
    a.arg = ColumnRef(1, columnar::String(), "v");
    a.type = AggregateType(fn, columnar::String()).value();
    return a;
  };
  // Keys: none, k (seven groups), the row itself -- groups enough that groups times entries
  // pass the bits kept per batch.
  for (int keys = 0; keys < 3; ++keys) {
    std::vector<ExprPtr> by;
    if (keys > 0) by.push_back(ColumnRef(0, columnar::Int64(), "k"));
    HashAggregate agg(by, {agg_of(AggFn::kMin), agg_of(AggFn::kMax)});
    std::map<int64_t, std::optional<std::pair<std::string, std::string>>> want;  // NULL: none
    int64_t row = 0;
    for (int b = 0; b < 12; ++b) {
      const int64_t n = 1 + (b * 3779) % 40'000;
      columnar::RecordBatch in = batch(row, n, b % 3);
      if (keys == 2) {
        ValueColumnBuilder k(columnar::Int64());
        for (int64_t i = row; i < row + n; ++i) {
          EXPECT_TRUE(k.Append(Value::Int(i)));
        }
        in.columns[0] = k.Finish();
      }
      const columnar::Column& keyc = *in.columns[0];
      const columnar::Column& v = *in.columns[1];
      for (int64_t r = 0; r < n; ++r) {
        auto& w = want[keys == 0 ? 0 : keyc.Value<int64_t>(r)];
        if (v.IsNull(r)) continue;
        const std::string x(v.BytesAt(r));
        if (!w) w.emplace(x, x);
        w->first = std::min(w->first, x);
        w->second = std::max(w->second, x);
      }
      ASSERT_TRUE(agg.Consume(in));
      row += n;
    }
    auto out = agg.Finish().value();
    ASSERT_EQ(out.num_rows, static_cast<int64_t>(want.size())) << keys;
    if (keys == 2) EXPECT_GT(out.num_rows * static_cast<int64_t>(words.size()), 1 << 20);
    for (int64_t r = 0; r < out.num_rows; ++r) {
      const int c = keys == 0 ? 0 : 1;
      const int64_t g = keys == 0 ? 0 : out.columns[0]->Value<int64_t>(r);
      ASSERT_TRUE(want.count(g)) << g;
      const auto& w = want[g];
      ASSERT_EQ(out.columns[c]->IsNull(r), !w) << keys << " " << g;
      ASSERT_EQ(out.columns[c + 1]->IsNull(r), !w) << keys << " " << g;
      if (!w) continue;
      EXPECT_EQ(out.columns[c]->BytesAt(r), w->first) << keys << " " << g;
      EXPECT_EQ(out.columns[c + 1]->BytesAt(r), w->second) << keys << " " << g;
    }
  }
}

TEST(Sort, TopNKeepsTheBestRowsAcrossBatchesWithNullsLast) {
  Sort sort({{ColumnRef(1, columnar::Int64(), "v"), /*descending=*/true, false}}, 3, 1);
  for (int64_t from = 0; from < 200000; from += 50000)
    ASSERT_TRUE(sort.Consume(Batch(from, 50000)));
  auto out = sort.Finish(Batch(0, 1).schema).value();
  ASSERT_EQ(out.num_rows, 3);
  // Largest non-null v is 199998 (199999 % 5 == 4 is NULL); offset 1 skips it.
  EXPECT_EQ(Row(out, 0), "c,199997");
  EXPECT_EQ(Row(out, 1), "b,199996");
  EXPECT_EQ(Row(out, 2), "a,199995");
}

TEST(Sort, AscendingNullsFirstWhenAsked) {
  Sort sort({{ColumnRef(1, columnar::Int64(), "v"), false, /*nulls_first=*/true}}, -1, 0);
  ASSERT_TRUE(sort.Consume(Batch(0, 10)));
  auto out = sort.Finish(Batch(0, 1).schema).value();
  ASSERT_EQ(out.num_rows, 10);
  EXPECT_EQ(Row(out, 0), "b,NULL");
  EXPECT_EQ(Row(out, 1), "a,NULL");
  EXPECT_EQ(Row(out, 2), "a,0");
  EXPECT_EQ(Row(out, 9), "c,8");
}

}  // namespace
}  // namespace floe::exec
