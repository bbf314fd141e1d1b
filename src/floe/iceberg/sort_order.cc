#include "floe/iceberg/sort_order.h"

#include <cctype>

#include <fmt/format.h>

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

Result<SortOrder> SortOrder::FromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("fields") || !j["fields"].is_array()) {
    return InvalidInput("sort order JSON needs 'fields': {}", j.dump().substr(0, 200));
  }
  std::vector<SortField> fields;
  for (const auto& f : j["fields"]) {
    SortField sf;
    if (!f.contains("source-id") || !f.contains("transform")) {
      return InvalidInput("sort field JSON needs 'source-id' and 'transform': {}", f.dump());
    }
    sf.source_id = f["source-id"].get<int32_t>();
    FLOE_ASSIGN_OR_RETURN(sf.transform, Transform::Parse(f["transform"].get<std::string>()));
    sf.direction =
        f.value("direction", "asc") == "desc" ? SortDirection::kDesc : SortDirection::kAsc;
    sf.null_order = f.value("null-order", "nulls-first") == "nulls-last" ? NullOrder::kNullsLast
                                                                         : NullOrder::kNullsFirst;
    fields.push_back(sf);
  }
  return SortOrder(j.value("order-id", 0), std::move(fields));
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
