// SortOrder: the table's declared sort (transform of a source column, direction, null order per
// field), its metadata JSON, and the CLI's "col [ASC|DESC] [NULLS FIRST|LAST], ..." syntax.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

enum class SortDirection { kAsc, kDesc };
enum class NullOrder { kNullsFirst, kNullsLast };

struct SortField {
  int32_t source_id = 0;
  Transform transform;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  friend bool operator==(const SortField&, const SortField&) = default;
};

class SortOrder {
 public:
  SortOrder() = default;  // order id 0: unsorted
  SortOrder(int32_t order_id, std::vector<SortField> fields)
      : order_id_(order_id), fields_(std::move(fields)) {}

  int32_t order_id() const { return order_id_; }
  const std::vector<SortField>& fields() const { return fields_; }
  bool unsorted() const { return fields_.empty(); }

  // "id ASC NULLS FIRST, ts DESC NULLS LAST" with column names from the schema.
  std::string ToString(const Schema& schema) const;
  nlohmann::json ToJson() const;
  // Any JSON: a value of the wrong shape is an invalid-input error naming the field by its path
  // below `path` (where this sits in its document, e.g. "partition-specs[1]").
  static Result<SortOrder> FromJson(const nlohmann::json& j, std::string_view path = "");
  // ASC defaults to NULLS FIRST and DESC to NULLS LAST, as in Iceberg and Spark.
  static Result<SortOrder> Parse(std::string_view text, const Schema& schema, int32_t order_id = 1);

  friend bool operator==(const SortOrder&, const SortOrder&) = default;

 private:
  int32_t order_id_ = 0;
  std::vector<SortField> fields_;
};

}  // namespace floe::iceberg
