#include "floe/iceberg/row_order.h"

#include "floe/iceberg/transform_column.h"
#include "floe/layout/row_order.h"

namespace floe::iceberg {

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

}  // namespace floe::iceberg
