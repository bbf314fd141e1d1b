#include "floe/iceberg/json_field_internal.h"

#include <limits>

#include <fmt/format.h>

namespace floe::iceberg::internal {
namespace {

template <typename T>
constexpr std::string_view Wanted() {
  if constexpr (std::is_same_v<T, bool>) {
    return "a boolean";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "a string";
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return "a 32-bit integer";
  } else {
    return "an integer";
  }
}

std::unexpected<Error> WrongKind(const Json& v, std::string_view path, std::string_view wanted) {
  return InvalidInput("field '{}' must be {}, not {}", path, wanted, JsonKind(v));
}

}  // namespace

std::string JsonPath(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

std::string JsonPath(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string_view JsonKind(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a fractional number";
    case Json::value_t::binary:
      return "binary data";
    case Json::value_t::discarded:
      break;
  }
  return "invalid JSON";
}

template <typename T>
Result<T> JsonAs(const Json& v, std::string_view path) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return WrongKind(v, path, Wanted<T>());
    return v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return WrongKind(v, path, Wanted<T>());
    return v.get<std::string>();
  } else {
    if (!v.is_number_integer()) return WrongKind(v, path, Wanted<T>());
    // Read through the widest type of the value's sign, then check that it fits T.
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        return InvalidInput("field '{}' = {} is out of range for {}", path, u, Wanted<T>());
      return static_cast<T>(u);
    }
    int64_t i = v.get<int64_t>();
    if (i < std::numeric_limits<T>::min() || i > std::numeric_limits<T>::max())
      return InvalidInput("field '{}' = {} is out of range for {}", path, i, Wanted<T>());
    return static_cast<T>(i);
  }
}

template <typename T>
Result<std::optional<T>> JsonOptional(const Json& obj, std::string_view key,
                                      std::string_view path) {
  FLOE_RETURN_IF_ERROR(JsonExpectObject(obj, path));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<T>();
  FLOE_ASSIGN_OR_RETURN(T v, JsonAs<T>(*it, JsonPath(path, key)));
  return std::optional<T>(std::move(v));
}

template <typename T>
Result<T> JsonRequired(const Json& obj, std::string_view key, std::string_view path) {
  FLOE_ASSIGN_OR_RETURN(std::optional<T> v, JsonOptional<T>(obj, key, path));
  if (!v) return InvalidInput("field '{}' is missing", JsonPath(path, key));
  return std::move(*v);
}

Status JsonExpectObject(const Json& v, std::string_view path) {
  if (v.is_object()) return {};
  if (path.empty()) return InvalidInput("expected a JSON object, not {}", JsonKind(v));
  return WrongKind(v, path, "an object");
}

Status JsonExpectArray(const Json& v, std::string_view path) {
  if (v.is_array()) return {};
  return WrongKind(v, path, "an array");
}

Result<const Json*> JsonArrayField(const Json& obj, std::string_view key, std::string_view path) {
  FLOE_RETURN_IF_ERROR(JsonExpectObject(obj, path));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  FLOE_RETURN_IF_ERROR(JsonExpectArray(*it, JsonPath(path, key)));
  return &*it;
}

Result<const Json*> JsonObjectField(const Json& obj, std::string_view key, std::string_view path) {
  FLOE_RETURN_IF_ERROR(JsonExpectObject(obj, path));
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  FLOE_RETURN_IF_ERROR(JsonExpectObject(*it, JsonPath(path, key)));
  return &*it;
}

// T is a type in template arguments, where parentheses are not allowed.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FLOE_JSON_INSTANTIATE_(T)                                                      \
  template Result<T> JsonAs<T>(const Json&, std::string_view);                         \
  template Result<T> JsonRequired<T>(const Json&, std::string_view, std::string_view); \
  template Result<std::optional<T>> JsonOptional<T>(const Json&, std::string_view,     \
                                                    std::string_view);
// NOLINTEND(bugprone-macro-parentheses)
FLOE_JSON_INSTANTIATE_(bool)
FLOE_JSON_INSTANTIATE_(int32_t)
FLOE_JSON_INSTANTIATE_(int64_t)
FLOE_JSON_INSTANTIATE_(std::string)
#undef FLOE_JSON_INSTANTIATE_

}  // namespace floe::iceberg::internal
