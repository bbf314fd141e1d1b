#include "floe/iceberg/partition_spec.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "floe/iceberg/json_field_internal.h"

namespace floe::iceberg {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> SplitTopLevel(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      parts.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return parts;
}

std::string UrlEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '*') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace

std::string DefaultPartitionName(std::string_view source, const Transform& t) {
  switch (t.kind) {
    case TransformKind::kIdentity:
      return std::string(source);
    case TransformKind::kBucket:
      return fmt::format("{}_bucket", source);
    case TransformKind::kTruncate:
      return fmt::format("{}_trunc", source);
    case TransformKind::kYear:
      return fmt::format("{}_year", source);
    case TransformKind::kMonth:
      return fmt::format("{}_month", source);
    case TransformKind::kDay:
      return fmt::format("{}_day", source);
    case TransformKind::kHour:
      return fmt::format("{}_hour", source);
    case TransformKind::kVoid:
      return fmt::format("{}_null", source);
  }
  return std::string(source);
}

std::string HumanPartitionValue(const Transform& t, const Literal& v) {
  if (v.is_null()) return "null";
  switch (t.kind) {
    case TransformKind::kYear:
      return fmt::format("{:04d}", 1970 + v.AsInt());
    case TransformKind::kMonth: {
      int64_t y = 1970 + FloorDiv(v.AsInt(), 12);
      int64_t m = v.AsInt() - FloorDiv(v.AsInt(), 12) * 12 + 1;
      return fmt::format("{:04d}-{:02d}", y, m);
    }
    case TransformKind::kHour: {
      int32_t day = static_cast<int32_t>(FloorDiv(v.AsInt(), 24));
      return fmt::format("{}-{:02d}", FormatDate(day), v.AsInt() - day * 24);
    }
    default:
      return v.ToString();
  }
}

bool PartitionSpec::unpartitioned() const {
  return std::all_of(fields_.begin(), fields_.end(), [](const PartitionField& f) {
    return f.transform.kind == TransformKind::kVoid;
  });
}

int32_t PartitionSpec::LastFieldId() const {
  int32_t last = kFirstPartitionFieldId - 1;
  for (const auto& f : fields_) last = std::max(last, f.field_id);
  return last;
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<NestedField> out;
  for (const auto& f : fields_) {
    const NestedField* src = schema.FindById(f.source_id);
    if (src == nullptr) {
      return InvalidInput("partition field '{}' has source id {} not in the schema", f.name,
                          f.source_id);
    }
    FLOE_ASSIGN_OR_RETURN(TypePtr t, f.transform.ResultType(*src->type));
    out.push_back(NestedField{f.field_id, f.name, false, std::move(t)});
  }
  return StructOf(std::move(out));
}

Status PartitionSpec::Validate(const Schema& schema) const {
  FLOE_RETURN_IF_ERROR(PartitionType(schema));
  std::set<std::string> names;
  for (const auto& f : fields_) {
    if (!names.insert(f.name).second) {
      return InvalidInput("partition field name '{}' is used twice", f.name);
    }
    const NestedField* other = schema.FindByName(f.name);
    if (other != nullptr &&
        !(f.transform.kind == TransformKind::kIdentity && other->id == f.source_id)) {
      return InvalidInput("partition field name '{}' conflicts with a column", f.name);
    }
  }
  return {};
}

std::string PartitionSpec::PartitionPath(const std::vector<Literal>& values) const {
  std::string path;
  for (size_t i = 0; i < fields_.size() && i < values.size(); ++i) {
    if (i) path += "/";
    path += UrlEscape(fields_[i].name) + "=" +
            UrlEscape(HumanPartitionValue(fields_[i].transform, values[i]));
  }
  return path;
}

nlohmann::json PartitionSpec::ToJson() const {
  nlohmann::json fields = nlohmann::json::array();
  for (const auto& f : fields_) {
    fields.push_back({{"name", f.name},
                      {"transform", f.transform.ToString()},
                      {"source-id", f.source_id},
                      {"field-id", f.field_id}});
  }
  return {{"spec-id", spec_id_}, {"fields", fields}};
}

Result<PartitionSpec> PartitionSpec::FromJson(const nlohmann::json& j, std::string_view path) {
  namespace in = internal;
  FLOE_ASSIGN_OR_RETURN(const nlohmann::json* list, in::JsonArrayField(j, "fields", path));
  if (list == nullptr) {
    if (path.empty())
      return InvalidInput("partition spec JSON needs 'fields': {}", j.dump().substr(0, 200));
    return InvalidInput("field '{}' is missing", in::JsonPath(path, "fields"));
  }
  const std::string list_path = in::JsonPath(path, "fields");
  std::vector<PartitionField> fields;
  int32_t next_id = kFirstPartitionFieldId;  // v1 specs may omit field ids
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& f = (*list)[i];
    const std::string at = in::JsonPath(list_path, i);
    PartitionField pf;
    FLOE_ASSIGN_OR_RETURN(pf.name, in::JsonRequired<std::string>(f, "name", at));
    FLOE_ASSIGN_OR_RETURN(std::string transform, in::JsonRequired<std::string>(f, "transform", at));
    FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> source,
                          in::JsonOptional<int32_t>(f, "source-id", at));
    if (source) {
      pf.source_id = *source;
    } else {
      FLOE_ASSIGN_OR_RETURN(const nlohmann::json* ids, in::JsonArrayField(f, "source-ids", at));
      if (ids == nullptr)
        return InvalidInput("field '{}' is missing", in::JsonPath(at, "source-id"));
      if (ids->size() != 1)
        return Unsupported("partition field '{}' with several source columns", pf.name);
      FLOE_ASSIGN_OR_RETURN(
          pf.source_id,
          in::JsonAs<int32_t>((*ids)[0], in::JsonPath(in::JsonPath(at, "source-ids"), 0)));
    }
    FLOE_ASSIGN_OR_RETURN(pf.field_id, in::JsonOr<int32_t>(f, "field-id", at, next_id));
    if (pf.field_id == std::numeric_limits<int32_t>::max())
      return InvalidInput("field '{}' = {} is out of range", in::JsonPath(at, "field-id"),
                          pf.field_id);
    next_id = std::max(next_id, pf.field_id) + 1;
    auto t = Transform::Parse(transform);
    if (!t) return InvalidInput("field '{}': {}", in::JsonPath(at, "transform"), t.error().message);
    pf.transform = *t;
    fields.push_back(std::move(pf));
  }
  FLOE_ASSIGN_OR_RETURN(int32_t spec_id, in::JsonOr<int32_t>(j, "spec-id", path, 0));
  return PartitionSpec(spec_id, std::move(fields));
}

Result<PartitionSpec> PartitionSpec::Parse(std::string_view text, const Schema& schema,
                                           int32_t spec_id, int32_t first_field_id) {
  std::vector<PartitionField> fields;
  int32_t next_id = first_field_id;
  if (Trim(text).empty()) return PartitionSpec(spec_id, {});
  for (std::string_view part : SplitTopLevel(text)) {
    if (part.empty()) return InvalidInput("empty partition field in '{}'", text);
    Transform t = Transform::Identity();
    std::string_view column = part;
    auto open = part.find('(');
    if (open != std::string_view::npos) {
      if (part.back() != ')') return InvalidInput("partition field '{}' lacks a closing ')'", part);
      std::string name = Lower(Trim(part.substr(0, open)));
      std::vector<std::string_view> args =
          SplitTopLevel(part.substr(open + 1, part.size() - open - 2));
      auto number = [&](std::string_view s, int32_t* out) {
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
        return ec == std::errc() && p == s.data() + s.size() && *out > 0;
      };
      int32_t n = 0;
      if ((name == "bucket" || name == "truncate") && args.size() == 2) {
        // Spark's bucket(8, col); also accept bucket(col, 8).
        std::string_view num = args[0], col = args[1];
        if (!number(num, &n)) std::swap(num, col);
        if (!number(num, &n)) {
          return InvalidInput("partition field '{}': {} needs a positive width", part, name);
        }
        t = name == "bucket" ? Transform::Bucket(n) : Transform::Truncate(n);
        column = col;
      } else if (args.size() == 1 &&
                 (name == "year" || name == "years" || name == "month" || name == "months" ||
                  name == "day" || name == "days" || name == "date" || name == "hour" ||
                  name == "hours" || name == "identity" || name == "void")) {
        t = name.starts_with("year")                    ? Transform::Year()
            : name.starts_with("month")                 ? Transform::Month()
            : name.starts_with("day") || name == "date" ? Transform::Day()
            : name.starts_with("hour")                  ? Transform::Hour()
            : name == "void"                            ? Transform::Void()
                                                        : Transform::Identity();
        column = args[0];
      } else {
        return InvalidInput(
            "partition field '{}': unknown transform (use identity, bucket(N, col), "
            "truncate(W, col), year, month, day, hour, void)",
            part);
      }
    }
    column = Trim(column);
    const NestedField* src = schema.FindByName(column);
    if (src == nullptr)
      return InvalidInput("partition column '{}' is not in the table schema", column);
    if (!t.CanApply(*src->type)) {
      return InvalidInput("partition field '{}': {} cannot apply to column '{}' of type {}", part,
                          t.ToString(), column, src->type->ToString());
    }
    fields.push_back(PartitionField{src->id, next_id++, DefaultPartitionName(column, t), t});
  }
  PartitionSpec spec(spec_id, std::move(fields));
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  return spec;
}

}  // namespace floe::iceberg
