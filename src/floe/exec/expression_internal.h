// Type-checking helpers expression.cc and the function registry (functions.cc) share. Internal to
// exec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/exec/expression.h"

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

}  // namespace floe::exec::internal
