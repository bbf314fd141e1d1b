// Bound scalar expressions over record batches: column references (by index into the input
// batch), typed constants and calls -- operators (arithmetic, comparison, boolean logic, LIKE, IN,
// CASE, CAST) named by Fn, and the SQL functions called by name (lower, substring, date_trunc,
// ...), which are entries of the function registry (functions.h). MakeCall checks argument types
// and fixes the result type, so a tree that was built evaluates without type errors; Evaluate
// computes a whole column per call. Immutable and shared; evaluation is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/value.h"

namespace floe::exec {

enum class Fn {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kNeg,
  kEq,
  kNotEq,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kIn,  // args[0] IN (args[1..])
  kLike,
  kILike,
  kCase,         // when1, then1, ..., else
  kCast,         // to the call's type
  kTryCast,      // to the call's type; NULL where a value does not convert (TRY_CAST)
  kStructField,  // args[0]'s field named `text` (NULL where the struct is)
  kFunction,     // the registry's `function` (functions.h)
};

// An operator's name in messages; kFunction: "function" (CallName names the entry).
std::string_view FnName(Fn fn);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;
struct ScalarFunction;
struct IntegerSet;

struct Expr {
  enum class Kind { kColumn, kLiteral, kCall };
  Kind kind = Kind::kLiteral;
  DataType type;
  int column = -1;   // kColumn: index in the input batch
  std::string name;  // kColumn: the column's name, for messages and fingerprints
  Value value;       // kLiteral
  Fn fn = Fn::kAdd;  // kCall
  const ScalarFunction* function = nullptr;  // kCall with fn == kFunction: the registry's entry
  std::string text;  // kCall: date_trunc unit / date_part field / struct field
  std::vector<ExprPtr> args;
  // kCall of IN whose values are integer constants: them, made ready for lookups once (a join's
  // keys pushed into a scan are thousands, and the call is evaluated batch after batch).
  std::shared_ptr<const IntegerSet> integer_set;

  // A canonical form: equal strings mean equal expressions (used to match GROUP BY keys).
  std::string ToString() const;
};

// The name a call shows in messages and fingerprints: FnName, or the function's name.
std::string_view CallName(const Expr& call);

ExprPtr ColumnRef(int index, DataType type, std::string name);
ExprPtr Constant(Value value, DataType type);
// Type-checks `args` for `fn` and returns the call; string constants compared with dates,
// timestamps or numbers are converted to that type first (a malformed one is an error naming it).
// Errors name the function and the offending types ("cannot compare string with integer").
Result<ExprPtr> MakeCall(Fn fn, std::vector<ExprPtr> args, std::string text = {});
// A call of a registry function: its arity, then its type rule.
Result<ExprPtr> MakeCall(const ScalarFunction& function, std::vector<ExprPtr> args,
                         std::string text = {});
// CAST, or with `null_on_failure` TRY_CAST: a value that does not convert is NULL, not an error
// (a cast between types that never convert is an error either way).
Result<ExprPtr> MakeCast(ExprPtr arg, const DataType& to, bool null_on_failure = false);

// The common type two branches (CASE, COALESCE, IN) meet in, or an error.
Result<DataType> CommonType(const DataType& a, const DataType& b);

// Evaluates `expr` over every row of `batch`. Runtime errors (division by zero, a malformed string
// cast) name the value.
Result<ColumnPtr> Evaluate(const Expr& expr, const columnar::RecordBatch& batch);
// Evaluates an expression without column references (constant folding, LIMIT, literals).
Result<Value> EvaluateConstant(const Expr& expr);

// SQL LIKE with % and _ (and `\` escaping), byte-wise.
bool LikeMatch(std::string_view s, std::string_view pattern);

}  // namespace floe::exec
