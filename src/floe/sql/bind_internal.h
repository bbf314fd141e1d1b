// Helpers the SQL transform (transform.cc) and the binder (binder.cc) share. Internal to sql.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include "floe/base/result.h"
#include "floe/sql/parser.h"

namespace floe::sql::internal {

inline std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The aggregate functions floe computes: count, sum, avg, min, max.
inline bool IsAggregateName(std::string_view name) {
  return name == "count" || name == "sum" || name == "avg" || name == "min" || name == "max";
}

// An error at byte offset `loc` of `text`.
inline std::unexpected<Error> FailAt(std::string_view text, int loc, ErrorKind kind,
                                     std::string msg) {
  return std::unexpected(ErrorAt(kind, text, loc, std::move(msg)));
}
inline std::unexpected<Error> UnsupportedAt(std::string_view text, int loc,
                                            const std::string& what) {
  return FailAt(text, loc, ErrorKind::kUnsupported, "floe does not support " + what);
}

}  // namespace floe::sql::internal
