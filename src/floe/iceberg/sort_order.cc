#include "floe/iceberg/sort_order.h"

#include <cctype>

#include <fmt/format.h>

#include "floe/iceberg/json_field_internal.h"

namespace floe::iceberg {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string SortOrder::ToString(const Schema& schema) const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& f = fields_[i];
    std::string col = schema.NameOf(f.source_id);
    if (f.transform.kind != TransformKind::kIdentity) {
      col = fmt::format("{}({})", f.transform.ToString(), col);
    }
    out += fmt::format("{}{} {} {}", i ? ", " : "", col,
                       f.direction == SortDirection::kAsc ? "ASC" : "DESC",
                       f.null_order == NullOrder::kNullsFirst ? "NULLS FIRST" : "NULLS LAST");
  }
  return out;
}

nlohmann::json SortOrder::ToJson() const {
  nlohmann::json fields = nlohmann::json::array();
  for (const auto& f : fields_) {
    fields.push_back(
        {{"transform", f.transform.ToString()},
         {"source-id", f.source_id},
         {"direction", f.direction == SortDirection::kAsc ? "asc" : "desc"},
         {"null-order", f.null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last"}});
  }
  return {{"order-id", order_id_}, {"fields", fields}};
}

Result<SortOrder> SortOrder::FromJson(const nlohmann::json& j, std::string_view path) {
  namespace in = internal;
  FLOE_ASSIGN_OR_RETURN(const nlohmann::json* list, in::JsonArrayField(j, "fields", path));
  if (list == nullptr) {
    if (path.empty())
      return InvalidInput("sort order JSON needs 'fields': {}", j.dump().substr(0, 200));
    return InvalidInput("field '{}' is missing", in::JsonPath(path, "fields"));
  }
  const std::string list_path = in::JsonPath(path, "fields");
  std::vector<SortField> fields;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& f = (*list)[i];
    const std::string at = in::JsonPath(list_path, i);
    SortField sf;
    FLOE_ASSIGN_OR_RETURN(sf.source_id, in::JsonRequired<int32_t>(f, "source-id", at));
    FLOE_ASSIGN_OR_RETURN(std::string transform, in::JsonRequired<std::string>(f, "transform", at));
    auto t = Transform::Parse(transform);
    if (!t) return InvalidInput("field '{}': {}", in::JsonPath(at, "transform"), t.error().message);
    sf.transform = *t;
    FLOE_ASSIGN_OR_RETURN(std::string direction,
                          in::JsonOr<std::string>(f, "direction", at, "asc"));
    FLOE_ASSIGN_OR_RETURN(std::string nulls,
                          in::JsonOr<std::string>(f, "null-order", at, "nulls-first"));
    if (direction != "asc" && direction != "desc")
      return InvalidInput("field '{}' is '{}', not asc or desc", in::JsonPath(at, "direction"),
                          direction);
    if (nulls != "nulls-first" && nulls != "nulls-last")
      return InvalidInput("field '{}' is '{}', not nulls-first or nulls-last",
                          in::JsonPath(at, "null-order"), nulls);
    sf.direction = direction == "desc" ? SortDirection::kDesc : SortDirection::kAsc;
    sf.null_order = nulls == "nulls-last" ? NullOrder::kNullsLast : NullOrder::kNullsFirst;
    fields.push_back(sf);
  }
  FLOE_ASSIGN_OR_RETURN(int32_t order_id, in::JsonOr<int32_t>(j, "order-id", path, 0));
  return SortOrder(order_id, std::move(fields));
}

Result<SortOrder> SortOrder::Parse(std::string_view text, const Schema& schema, int32_t order_id) {
  std::vector<SortField> fields;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = Trim(text.substr(start, comma - start));
    start = comma + 1;
    if (part.empty()) return InvalidInput("empty sort field in '{}'", text);
    std::vector<std::string> w = Words(part);
    SortField f;
    const NestedField* src = schema.FindByName(w[0]);
    if (src == nullptr) return InvalidInput("sort column '{}' is not in the table schema", w[0]);
    if (!src->type->IsPrimitive()) {
      return InvalidInput("sort column '{}' has type {}, which cannot be sorted", w[0],
                          src->type->ToString());
    }
    f.source_id = src->id;
    size_t i = 1;
    bool explicit_nulls = false;
    if (i < w.size() && (Upper(w[i]) == "ASC" || Upper(w[i]) == "DESC")) {
      f.direction = Upper(w[i]) == "ASC" ? SortDirection::kAsc : SortDirection::kDesc;
      ++i;
    }
    if (i + 1 < w.size() && Upper(w[i]) == "NULLS" &&
        (Upper(w[i + 1]) == "FIRST" || Upper(w[i + 1]) == "LAST")) {
      f.null_order = Upper(w[i + 1]) == "FIRST" ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
      explicit_nulls = true;
      i += 2;
    }
    if (i != w.size()) {
      return InvalidInput("sort field '{}': expected 'col [ASC|DESC] [NULLS FIRST|LAST]'", part);
    }
    if (!explicit_nulls) {
      f.null_order =
          f.direction == SortDirection::kAsc ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
    }
    fields.push_back(f);
    if (comma == text.size()) break;
  }
  return SortOrder(order_id, std::move(fields));
}

}  // namespace floe::iceberg
