// Helpers the SQL transform (transform.cc), the binder (binder.cc) and the query log's reader
// (query_log.cc) share. Internal to sql.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/sql/parser.h"

namespace floe::sql::internal {

inline std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A libpg_query node {"Type": {...}} as its type name and body (an empty name for anything else).
inline std::pair<std::string, const nlohmann::json*> Unwrap(const nlohmann::json& node) {
  if (!node.is_object() || node.empty()) return {"", &node};
  return {node.begin().key(), &node.begin().value()};
}

// body[key], or null when `body` is not an object or lacks it: a reference into the tree.
inline const nlohmann::json& NodeField(const nlohmann::json& body, const char* key) {
  static const nlohmann::json kNull;
  if (!body.is_object()) return kNull;
  auto it = body.find(key);
  return it == body.end() ? kNull : *it;
}

// The last of a qualified name's parts (a list of {"String": {"sval": ...}}), or "".
inline std::string LastName(const nlohmann::json& names) {
  if (!names.is_array() || names.empty()) return "";
  const nlohmann::json& str = NodeField(names.back(), "String");
  return str.is_object() ? str.value("sval", "") : "";
}

// Whether `name` is one of the aggregate functions floe computes (binder.cc's table of them).
bool IsAggregateName(std::string_view name);

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
