#include "floe/iceberg/evaluator.h"

#include <cmath>

#include <gtest/gtest.h>

#include "floe/iceberg/projection.h"

namespace floe::iceberg {
namespace {

Schema FloatSchema() { return Schema(0, {NestedField{1, "f", false, Primitive(TypeId::kDouble)}}); }

// A data file of one double column with bounds [lo, hi] and `nans` NaNs (nullopt: not recorded).
DataFile FloatFile(double lo, double hi, std::optional<int64_t> nans) {
  DataFile f;
  f.record_count = 10;
  f.value_counts = {{1, 10}};
  f.null_value_counts = {{1, 0}};
  if (nans) f.nan_value_counts = {{1, *nans}};
  f.lower_bounds = {{1, SerializeBound(Literal::Double(lo))}};
  f.upper_bounds = {{1, SerializeBound(Literal::Double(hi))}};
  return f;
}

bool Might(Op op, double v, const DataFile& f) {
  ExprPtr e = Bind(Predicate(op, "f", {Literal::Double(v)}), FloatSchema()).value();
  return MetricsMightMatch(e, FloatSchema(), f);
}

// Iceberg's bounds order -0.0 below 0.0, but SQL (DuckDB, Spark) compares them equal: a file of
// only -0.0 holds rows for f = 0. NaN is never a bound and sorts above every number: f > 5 may
// match any file whose NaN count is not known to be 0.
TEST(Evaluator, FloatBoundsFollowSqlSemantics) {
  DataFile neg_zero = FloatFile(-0.0, -0.0, 0);
  EXPECT_TRUE(Might(Op::kEq, 0.0, neg_zero));
  EXPECT_TRUE(Might(Op::kGtEq, 0.0, neg_zero));
  EXPECT_FALSE(Might(Op::kGt, 0.0, neg_zero));
  EXPECT_FALSE(Might(Op::kLt, 0.0, neg_zero));
  EXPECT_TRUE(Might(Op::kLtEq, -0.0, FloatFile(0.0, 1.0, 0)));

  EXPECT_FALSE(Might(Op::kGt, 5.0, FloatFile(0.0, 1.0, 0)));
  EXPECT_TRUE(Might(Op::kGt, 5.0, FloatFile(0.0, 1.0, 2)));
  EXPECT_TRUE(Might(Op::kGtEq, 5.0, FloatFile(0.0, 1.0, std::nullopt)));
  EXPECT_FALSE(Might(Op::kLt, -5.0, FloatFile(0.0, 1.0, 2)));  // NaN is never below
  EXPECT_FALSE(Might(Op::kEq, 5.0, FloatFile(0.0, 1.0, 2)));
  EXPECT_TRUE(Might(Op::kNotEq, 0.5, FloatFile(0.5, 0.5, 1)));
  EXPECT_FALSE(Might(Op::kNotEq, 0.5, FloatFile(0.5, 0.5, 0)));
  // A writer that put NaN into a bound gave no bound on that side.
  EXPECT_TRUE(Might(Op::kLt, -5.0, FloatFile(std::nan(""), 1.0, 1)));
}

// An identity partition on a double column holds the values themselves.
TEST(Evaluator, FloatPartitionValuesFollowSqlSemantics) {
  Schema s = FloatSchema();
  PartitionSpec spec = PartitionSpec::Parse("f", s).value();
  auto ptype = spec.PartitionType(s).value();
  auto matches = [&](Op op, double v, double partition) {
    ExprPtr bound = Bind(Predicate(op, "f", {Literal::Double(v)}), s).value();
    return MatchesPartition(ProjectInclusive(bound, spec, s), *ptype, {Literal::Double(partition)});
  };
  const double nan = std::nan("");
  EXPECT_TRUE(matches(Op::kEq, 0.0, -0.0));
  EXPECT_TRUE(matches(Op::kGt, 5.0, nan));
  EXPECT_TRUE(matches(Op::kGtEq, 0.0, nan));
  EXPECT_FALSE(matches(Op::kLt, 5.0, nan));
  EXPECT_FALSE(matches(Op::kEq, 5.0, nan));
  EXPECT_TRUE(matches(Op::kNotEq, 5.0, nan));

  // Manifest summaries: contains_nan unknown (absent) or true keeps a summary for f > 5.
  FieldSummary sum;
  sum.contains_null = false;
  sum.lower_bound = SerializeBound(Literal::Double(0.0));
  sum.upper_bound = SerializeBound(Literal::Double(1.0));
  ExprPtr gt5 =
      ProjectInclusive(Bind(Predicate(Op::kGt, "f", {Literal::Double(5.0)}), s).value(), spec, s);
  sum.contains_nan = false;
  EXPECT_FALSE(SummariesMightMatch(gt5, *ptype, {sum}));
  sum.contains_nan = true;
  EXPECT_TRUE(SummariesMightMatch(gt5, *ptype, {sum}));
  sum.contains_nan.reset();
  EXPECT_TRUE(SummariesMightMatch(gt5, *ptype, {sum}));
}

}  // namespace
}  // namespace floe::iceberg
