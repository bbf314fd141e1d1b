// A scan task's residual evaluated by exec's evaluator: each Iceberg operator on a conformed
// batch, NULL never matching a comparison, Iceberg's NOT of a two-valued child, exact
// nanosecond timestamps and decimals at their scale.
#include "floe/exec/residual.h"

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::exec {
namespace {

using iceberg::Literal;
using iceberg::Op;

iceberg::Schema TestSchema() {
  using iceberg::Primitive;
  using iceberg::TypeId;
  return iceberg::Schema(0, {iceberg::NestedField{1, "n", false, Primitive(TypeId::kLong)},
                             iceberg::NestedField{2, "s", false, Primitive(TypeId::kString)},
                             iceberg::NestedField{3, "ts", false, Primitive(TypeId::kTimestampNs)},
                             iceberg::NestedField{4, "d", false, iceberg::Decimal(9, 2)}});
}

// Rows: (5, 'apple', 1500 ns, 1.25), (NULL, NULL, NULL, NULL), (7, 'banana', 999 ns, -3.00).
columnar::RecordBatch TestBatch() {
  columnar::FixedWidthBuilder<int64_t> n(columnar::Int64());
  n.Append(5);
  n.AppendNull();
  n.Append(7);
  columnar::BinaryBuilder s(columnar::String());
  (void)s.Append("apple");
  s.AppendNull();
  (void)s.Append("banana");
  columnar::FixedWidthBuilder<int64_t> ts(columnar::Timestamp(columnar::TimeUnit::kNano));
  ts.Append(1500);
  ts.AppendNull();
  ts.Append(999);
  columnar::FixedWidthBuilder<__int128> d(columnar::Decimal128(9, 2));
  d.Append(125);
  d.AppendNull();
  d.Append(-300);
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(
      columnar::Schema{{{"n", columnar::Int64(), true, 1},
                        {"s", columnar::String(), true, 2},
                        {"ts", columnar::Timestamp(columnar::TimeUnit::kNano), true, 3},
                        {"d", columnar::Decimal128(9, 2), true, 4}}});
  b.columns = {n.Finish(), s.Finish(), ts.Finish(), d.Finish()};
  b.num_rows = 3;
  return b;
}

std::vector<uint8_t> Match(const iceberg::ExprPtr& unbound) {
  const iceberg::Schema schema = TestSchema();
  auto bound = iceberg::Bind(unbound, schema);
  EXPECT_TRUE(bound.has_value()) << bound.error().ToString();
  if (!bound) return {};
  auto m = MatchResidual(TestBatch(), *bound, schema);
  EXPECT_TRUE(m.has_value()) << m.error().ToString();
  return m ? *m : std::vector<uint8_t>{};
}

using M = std::vector<uint8_t>;

TEST(ResidualTest, ComparisonsNeverMatchNull) {
  EXPECT_EQ(Match(iceberg::Predicate(Op::kEq, "n", {Literal::Long(5)})), (M{1, 0, 0}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kNotEq, "n", {Literal::Long(5)})), (M{0, 0, 1}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kGtEq, "n", {Literal::Long(6)})), (M{0, 0, 1}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kIn, "n", {Literal::Long(7), Literal::Long(5)})),
            (M{1, 0, 1}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kNotIn, "n", {Literal::Long(7)})), (M{1, 0, 0}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kIsNull, "n")), (M{0, 1, 0}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kNotNull, "s")), (M{1, 0, 1}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kStartsWith, "s", {Literal::String("ban")})),
            (M{0, 0, 1}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kNotStartsWith, "s", {Literal::String("ban")})),
            (M{1, 0, 0}));
}

TEST(ResidualTest, AndOrAndIcebergsNot) {
  auto eq5 = iceberg::Predicate(Op::kEq, "n", {Literal::Long(5)});
  auto apple = iceberg::Predicate(Op::kEq, "s", {Literal::String("apple")});
  EXPECT_EQ(Match(iceberg::And(eq5, apple)), (M{1, 0, 0}));
  EXPECT_EQ(Match(iceberg::Or(iceberg::Predicate(Op::kEq, "n", {Literal::Long(7)}), apple)),
            (M{1, 0, 1}));
  // NOT of a comparison that is unknown on the NULL row: Iceberg's two-valued NOT keeps it.
  EXPECT_EQ(Match(iceberg::Not(eq5)), (M{0, 1, 1}));
}

TEST(ResidualTest, NanosecondsAndDecimalsAreExact) {
  // 1,500 ns and 999 ns lie in different microseconds, 1,000 ns and 1,500 ns in the same one.
  EXPECT_EQ(Match(iceberg::Predicate(Op::kGt, "ts", {Literal::TimestampNs(1000)})), (M{1, 0, 0}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kLt, "ts", {Literal::TimestampNs(1000)})), (M{0, 0, 1}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kEq, "d", {Literal::Decimal(125, 2)})), (M{1, 0, 0}));
  EXPECT_EQ(Match(iceberg::Predicate(Op::kLt, "d", {Literal::Decimal(0, 2)})), (M{0, 0, 1}));
}

TEST(ResidualTest, ATrueResidualMatchesEveryRow) {
  auto m = MatchResidual(TestBatch(), iceberg::True(), TestSchema());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, (M{1, 1, 1}));
}

}  // namespace
}  // namespace floe::exec
