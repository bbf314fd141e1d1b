// Row filters for scan planning: predicates on columns combined with AND/OR/NOT, first by column
// name (unbound, as a user writes them) then bound to field ids and the columns' types, which is
// what pruning evaluates. Immutable trees shared through ExprPtr.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

enum class Op {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kEq,
  kNotEq,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kIn,
  kNotIn,
  kStartsWith,
  kNotStartsWith,
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  Op op = Op::kTrue;
  std::string column;             // predicates: the column's name as written
  int32_t field_id = -1;          // predicates, once bound
  TypePtr type;                   // predicates, once bound: the column's type
  std::vector<Literal> literals;  // comparison: 1; IN / NOT IN: the set
  std::vector<ExprPtr> children;  // AND, OR: 2; NOT: 1

  bool is_predicate() const { return op >= Op::kIsNull; }
  bool bound() const { return field_id >= 0; }
  std::string ToString() const;
};

ExprPtr True();
ExprPtr False();
ExprPtr And(ExprPtr a, ExprPtr b);
ExprPtr Or(ExprPtr a, ExprPtr b);
ExprPtr Not(ExprPtr a);
ExprPtr Predicate(Op op, std::string column, std::vector<Literal> literals = {});

// Resolves column names against `schema` (a "." path for nested fields) and converts literals to
// the column's type (int <-> long, date/timestamp from ISO strings, decimals at the column's
// scale). Unknown columns are a not-found error naming them; literals that cannot become the
// column's type are an invalid-input error.
Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema);

// Converts a literal to `type` as a comparison against a column of that type requires.
Result<Literal> CastLiteral(const Literal& value, const Type& type);

// Pushes NOT down to the predicates (NOT a < 5 -> a >= 5), so projections see no NOT.
ExprPtr RewriteNot(const ExprPtr& expr);
// AND/OR with TRUE/FALSE children folded away.
ExprPtr Simplify(const ExprPtr& expr);
// The terms of a conjunction, nested ANDs flattened, left to right: {expr} when it is no AND.
std::vector<ExprPtr> Conjuncts(const ExprPtr& expr);

}  // namespace floe::iceberg
