// Typed reads of parsed metadata JSON for the iceberg decoders (table metadata, schemas, partition
// specs, sort orders, snapshots, refs): each checks the value's JSON type and range and fails with
// an invalid-input error naming the field by its path ("snapshots[1].timestamp-ms"), so JSON of any
// shape gives an error and never makes nlohmann throw. Internal to the iceberg module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"

namespace floe::iceberg::internal {

using Json = nlohmann::json;

// "parent.key" and "parent[index]" ("key" alone at the top): the paths the messages name.
std::string JsonPath(std::string_view parent, std::string_view key);
std::string JsonPath(std::string_view parent, size_t index);

// "a string", "an integer", "an object", "null", ...
std::string_view JsonKind(const Json& v);

// `v` as T -- bool, int32_t, int64_t or std::string -- or an error naming `path` when `v` has
// another JSON type ("field 'a.b' must be an integer, not a string") or does not fit T.
template <typename T>
Result<T> JsonAs(const Json& v, std::string_view path);

// Field `key` of the object `obj` at `path`: an error when it is missing ("lacks field 'a.b'").
template <typename T>
Result<T> JsonRequired(const Json& obj, std::string_view key, std::string_view path);
// ... or nullopt when missing or null.
template <typename T>
Result<std::optional<T>> JsonOptional(const Json& obj, std::string_view key, std::string_view path);
// ... or `fallback` when missing or null.
template <typename T>
Result<T> JsonOr(const Json& obj, std::string_view key, std::string_view path, T fallback) {
  FLOE_ASSIGN_OR_RETURN(std::optional<T> v, JsonOptional<T>(obj, key, path));
  return v ? std::move(*v) : std::move(fallback);
}

// Checks that `v` is an object (or an array); the error names `path`.
Status JsonExpectObject(const Json& v, std::string_view path);
Status JsonExpectArray(const Json& v, std::string_view path);

// The array (object) at obj[key], nullptr when missing or null, an error when of another type.
Result<const Json*> JsonArrayField(const Json& obj, std::string_view key, std::string_view path);
Result<const Json*> JsonObjectField(const Json& obj, std::string_view key, std::string_view path);

}  // namespace floe::iceberg::internal
