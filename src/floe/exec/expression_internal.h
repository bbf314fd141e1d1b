// Type-checking helpers expression.cc and the function registry (functions.cc, date_functions.cc,
// regexp_functions.cc) share, and the registry's per-row kernel. Internal to exec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/exec/expression.h"
#include "floe/exec/functions.h"
#include "floe/exec/value.h"

namespace floe::exec {

// The integer constants of an IN (Expr::integer_set), sorted, with a bit per value of their range
// when there are many over a range of at most 2^23.
struct IntegerSet {
  std::vector<int64_t> sorted;
  bool has_null = false;  // the list holds a NULL
  uint64_t lo = 0, span = 0;
  std::vector<uint64_t> bits;  // empty: search `sorted`
  // Of IN call `in`: nullptr unless its values are all integer (or NULL) constants of its first
  // argument's type, a date or an integer type.
  static std::shared_ptr<const IntegerSet> Of(const Expr& in);
};

}  // namespace floe::exec

namespace floe::exec::internal {

// A type as messages name it: "integer", "string", "date", ...
std::string TypeWord(const DataType& t);
bool IsNull(const DataType& t);
bool IsStringLiteral(const ExprPtr& e);
// `e` as type `to`: unchanged when it already is (or is NULL), a NULL constant of `to`, or a cast.
Result<ExprPtr> CastTo(ExprPtr e, const DataType& to);
// "type mismatch: <fn> expects <wanted>, got <type>" unless `ok` or `e` is NULL.
Status ExpectType(const ExprPtr& e, bool ok, std::string_view fn, std::string_view wanted);
ExprPtr MakeNode(Fn fn, DataType type, std::vector<ExprPtr> args, std::string text = {});

// A kernel from a per-row rule: the rule (a function, a template argument, so it is inlined into
// the loop -- no call through a pointer per row) maps the row's argument values to its value.
template <Result<Value> (*Row)(const Expr&, const std::vector<Value>&)>
Result<ColumnPtr> RowKernel(const Expr& e, const std::vector<ColumnPtr>& cols, int64_t rows) {
  ValueColumnBuilder out(e.type);
  std::vector<Value> vals(cols.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < cols.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(vals[i], ValueAt(*cols[i], r));
    }
    FLOE_ASSIGN_OR_RETURN(Value v, Row(e, vals));
    FLOE_RETURN_IF_ERROR(out.Append(v));
  }
  return out.Finish();
}

// Evaluate's typed loops (expression_kernels.cc). A comparison, IN, LIKE or ILIKE whose arguments
// past the first are literals (the first not) is TakesConstantArgs: ConstantArgsKernel evaluates it
// from its first argument's column alone. TypedKernel evaluates NOT, CASE, numeric casts and
// decimal comparisons from their arguments' columns. Both give a null ColumnPtr where they do not
// apply.
bool TakesConstantArgs(const Expr& e);
// Whether a comparison's sign (CompareValues': -1, 0, 1) satisfies comparison `fn`.
bool CompareResult(Fn fn, int sign);
Result<ColumnPtr> ConstantArgsKernel(const Expr& e, const columnar::Column& first);
Result<ColumnPtr> TypedKernel(const Expr& e, const std::vector<ColumnPtr>& cols);
// The type a cast node converts to: its own, or the narrower integer named in its text.
DataType CastTarget(const Expr& e);

// The registry's dates and times (date_functions.cc): date_trunc, date_part and its unit names,
// date_diff, date_add/date_sub, make_date, strftime/strptime, epoch, ...
void AddDateFunctions(std::vector<ScalarFunction>* registry);
// Regular expressions (regexp_functions.cc, RE2): regexp_matches, regexp_full_match,
// regexp_replace, regexp_extract.
void AddRegexpFunctions(std::vector<ScalarFunction>* registry);

}  // namespace floe::exec::internal
