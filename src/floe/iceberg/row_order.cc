#include "floe/iceberg/row_order.h"

#include <algorithm>
#include <cctype>

#include "floe/iceberg/transform_column.h"
#include "floe/layout/row_order.h"

namespace floe::iceberg {

std::vector<std::string> OrderColumnNames(const layout::ClusterSpec* cluster,
                                          const SortOrder& order, const Schema& schema) {
  if (cluster != nullptr) return cluster->columns;
  std::vector<std::string> names;
  for (const auto& f : order.fields()) names.push_back(schema.NameOf(f.source_id));
  return names;
}

Result<std::vector<int64_t>> SortIndices(const columnar::RecordBatch& batch, const Schema& schema,
                                         const SortOrder& order) {
  FLOE_ASSIGN_OR_RETURN(SortKeyColumns keys, SortKeysOf(batch, schema, order));
  return layout::SortIndices(keys.View(), batch.num_rows);
}

Result<SortKeyColumns> SortKeysOf(const columnar::RecordBatch& batch, const Schema& schema,
                                  const SortOrder& order) {
  SortKeyColumns out;
  for (const auto& f : order.fields()) {
    const NestedField* field = schema.FindById(f.source_id);
    if (field == nullptr) return InvalidInput("sort field id {} is not in the schema", f.source_id);
    const std::string name = schema.NameOf(f.source_id);
    auto idx = batch.schema->IndexOf(name);
    if (!idx) return Unsupported("sort column '{}' is not a top-level column", name);
    FLOE_ASSIGN_OR_RETURN(columnar::ColumnPtr key,
                          TransformColumn(f.transform, batch.columns[*idx], *field->type));
    out.columns.push_back(std::move(key));
    out.fields.push_back(f);
  }
  return out;
}

std::vector<layout::SortColumn> SortKeyColumns::View() const {
  std::vector<layout::SortColumn> v;
  for (size_t i = 0; i < columns.size(); ++i) {
    v.push_back({columns[i].get(), fields[i].direction == SortDirection::kDesc,
                 fields[i].null_order == NullOrder::kNullsFirst});
  }
  return v;
}

Result<layout::ClusterSpec> ResolveClusterSpec(const layout::ClusterSpec& spec,
                                               const Schema& schema,
                                               const PartitionSpec& partitions) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  layout::ClusterSpec out = spec;
  out.columns.clear();
  for (const std::string& name : spec.columns) {
    const NestedField* field = nullptr;
    for (const NestedField& f : schema.fields()) {
      if (f.name == name) field = &f;
    }
    if (field == nullptr) {
      for (const NestedField& f : schema.fields()) {
        if (lower(f.name) != lower(name)) continue;
        if (field != nullptr) {
          return InvalidInput("{}: column '{}' matches both '{}' and '{}'", spec.ToString(), name,
                              field->name, f.name);
        }
        field = &f;
      }
    }
    if (field == nullptr) {
      return InvalidInput("{}: no column '{}' in the table's schema", spec.ToString(), name);
    }
    if (!field->type->IsPrimitive()) {
      return InvalidInput("{}: column '{}' is a {}, not a primitive type", spec.ToString(), name,
                          field->type->ToString());
    }
    const bool identity_source = std::any_of(
        partitions.fields().begin(), partitions.fields().end(), [&](const PartitionField& pf) {
          return pf.source_id == field->id && pf.transform.kind == TransformKind::kIdentity;
        });
    if (identity_source) continue;  // constant within each partition
    if (std::find(out.columns.begin(), out.columns.end(), field->name) != out.columns.end()) {
      return InvalidInput("{}: column '{}' twice", spec.ToString(), field->name);
    }
    out.columns.push_back(field->name);
  }
  if (out.columns.empty()) {
    return InvalidInput(
        "{}: every column is an identity partition column, constant within a "
        "partition; cluster by others",
        spec.ToString());
  }
  return out;
}

Status ClusterRows(const columnar::RecordBatch& batch, const layout::ClusterSpec& spec,
                   std::vector<int64_t>* rows, ThreadPool* pool) {
  std::vector<const columnar::Column*> keys;
  for (const std::string& name : spec.columns) {
    auto idx = batch.schema->IndexOf(name);
    if (!idx) return Internal("clustering column '{}' is not in the rows written", name);
    keys.push_back(batch.columns[*idx].get());
  }
  return layout::ClusterRows(spec, keys, rows, pool);
}

}  // namespace floe::iceberg
