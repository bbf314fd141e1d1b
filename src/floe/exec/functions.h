// The scalar function registry: each SQL function called by name (lower, substring, date_trunc,
// ...) is one entry -- its names, arity, type rule and batch kernel -- so a new function is added
// in one place (functions.cc). The binder finds names here, MakeCall checks a call through its
// entry, Evaluate hands a batch to its kernel once. Operators (+, =, AND, LIKE, IN, CASE, CAST)
// are exec::Fn values (expression.h); `||` is an entry called as an operator. Entries are
// constants with static lifetime; lookups are thread-safe.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/exec/expression.h"

namespace floe::exec {

struct ScalarFunction {
  static constexpr size_t kVariadic = std::numeric_limits<size_t>::max();

  std::string_view name;                  // in messages and fingerprints: "substring"
  std::vector<std::string_view> aliases;  // other names SQL calls it by: "substr"
  // Names that call it with their own name as the unit: year(ts) is date_part('year', ts).
  std::vector<std::string_view> unit_aliases;
  // Called as an operator (`a || b`), never by name.
  bool is_operator = false;
  // SQL passes a unit (or field) as a constant string before the arguments; the call keeps it in
  // its `text`: date_trunc('day', ts) is date_trunc(ts) with text "day".
  bool unit_argument = false;
  // With unit_argument: the entry a call without the unit (one argument fewer) is instead --
  // Spark's datediff(end, start) and date_sub(date, days) beside DuckDB's date_diff('day', a, b).
  std::string_view without_unit;
  // The arguments a call takes (the unit not counted); checked before `check`, with the message
  // "<name> takes N arguments, got M". kVariadic: any number (`check` decides).
  size_t min_args = 0;
  size_t max_args = kVariadic;
  // Checks the argument types, converting them where SQL does (a string constant to a timestamp),
  // and returns the call's result type. Errors say what was wrong ("type mismatch: lower expects a
  // string, got integer").
  Result<DataType> (*check)(const ScalarFunction& self, std::vector<ExprPtr>& args,
                            const std::string& text) = nullptr;
  // The call over a batch: the result column (`rows` long) from the argument columns. Called once
  // per batch; a kernel loops over the rows itself.
  Result<ColumnPtr> (*kernel)(const Expr& call, const std::vector<ColumnPtr>& args,
                              int64_t rows) = nullptr;
};

struct FunctionLookup {
  const ScalarFunction* function = nullptr;  // null: no function of that name
  std::string_view unit;                     // set when the name is a unit alias (year)
};

// The function SQL calls `name` (lower case), by its name, an alias or a unit alias; operator
// entries are not found by name.
FunctionLookup FindFunction(std::string_view name);
// The entry implementing operator `symbol` ("||"), or null.
const ScalarFunction* FindOperator(std::string_view symbol);
// Every entry, in registration order (for listings and tests).
const std::vector<ScalarFunction>& Functions();

// Whether `e` is a call of the registry function named `name` (its canonical name).
bool IsFunctionCall(const Expr& e, std::string_view name);

}  // namespace floe::exec
