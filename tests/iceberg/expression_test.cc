#include "floe/iceberg/expression.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

ExprPtr Eq(const std::string& column, int64_t v) {
  return Predicate(Op::kEq, column, {Literal::Long(v)});
}

std::vector<std::string> Columns(const std::vector<ExprPtr>& terms) {
  std::vector<std::string> out;
  for (const ExprPtr& t : terms) out.push_back(t->op == Op::kOr ? "or" : t->column);
  return out;
}

TEST(ExpressionTest, ConjunctsFlattenNestedAndsLeftToRight) {
  // ((a AND (b AND c)) AND (d OR e)) AND f
  ExprPtr e = And(And(And(Eq("a", 1), And(Eq("b", 2), Eq("c", 3))), Or(Eq("d", 4), Eq("e", 5))),
                  Eq("f", 6));
  EXPECT_EQ(Columns(Conjuncts(e)), (std::vector<std::string>{"a", "b", "c", "or", "f"}));
  // An OR is one term, not split.
  EXPECT_EQ(Conjuncts(Or(Eq("a", 1), Eq("b", 2))).size(), 1u);
  // No AND: the expression itself.
  ExprPtr one = Eq("a", 1);
  ASSERT_EQ(Conjuncts(one).size(), 1u);
  EXPECT_EQ(Conjuncts(one)[0], one);
}

}  // namespace
}  // namespace floe::iceberg
