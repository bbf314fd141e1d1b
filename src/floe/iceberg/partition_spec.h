// PartitionSpec: how a table's rows map to partitions (source column + transform per field), with
// its metadata JSON, the default field names Iceberg gives, the partition tuple's struct type, the
// human-readable partition path, and the CLI's `day(ts), bucket(8, id)` syntax. Plain data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

constexpr int32_t kFirstPartitionFieldId = 1000;

struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  Transform transform;

  friend bool operator==(const PartitionField&, const PartitionField&) = default;
};

class PartitionSpec {
 public:
  PartitionSpec() = default;
  PartitionSpec(int32_t spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}

  int32_t spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }
  bool unpartitioned() const;
  int32_t LastFieldId() const;  // kFirstPartitionFieldId - 1 when empty

  // The partition tuple's type: one optional field per partition field, ids and names as given.
  Result<TypePtr> PartitionType(const Schema& schema) const;
  // Checks sources exist, transforms apply, names are unique and don't shadow other columns.
  Status Validate(const Schema& schema) const;

  // "ts_day=2024-01-03/id_bucket=3" with values escaped as in URLs; empty when unpartitioned.
  std::string PartitionPath(const std::vector<Literal>& values) const;

  nlohmann::json ToJson() const;
  // Any JSON: a value of the wrong shape is an invalid-input error naming the field by its path
  // below `path` (where this sits in its document, e.g. "partition-specs[1]").
  static Result<PartitionSpec> FromJson(const nlohmann::json& j, std::string_view path = "");

  // Parses the CLI form "day(ts), bucket(8, order_id), truncate(4, name), region" against a
  // schema, assigning field ids from `first_field_id`.
  static Result<PartitionSpec> Parse(std::string_view text, const Schema& schema,
                                     int32_t spec_id = 0,
                                     int32_t first_field_id = kFirstPartitionFieldId);

  friend bool operator==(const PartitionSpec&, const PartitionSpec&) = default;

 private:
  int32_t spec_id_ = 0;
  std::vector<PartitionField> fields_;
};

// Iceberg's default partition field name: "ts_day", "id_bucket", "name_trunc", "region".
std::string DefaultPartitionName(std::string_view source_name, const Transform& t);
// A partition value as Iceberg prints it in paths: day -> 2024-01-03, hour -> 2024-01-03-10,
// month -> 2024-01, year -> 2024, others as the value.
std::string HumanPartitionValue(const Transform& t, const Literal& value);

}  // namespace floe::iceberg
