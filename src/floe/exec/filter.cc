#include "floe/exec/filter.h"

#include "floe/columnar/take.h"

namespace floe::exec {

Result<columnar::RecordBatch> Filter(const columnar::RecordBatch& batch, const Expr& predicate) {
  FLOE_ASSIGN_OR_RETURN(ColumnPtr mask, Evaluate(predicate, batch));
  if (mask->type.id != TypeId::kBool && mask->type.id != TypeId::kNull) {
    return InvalidInput("type mismatch: a filter must be boolean, got {}", mask->type.ToString());
  }
  std::vector<int64_t> keep;
  keep.reserve(batch.num_rows);
  if (mask->type.id == TypeId::kBool) {
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (mask->IsValid(r) && mask->BoolAt(r)) keep.push_back(r);
    }
  }
  if (static_cast<int64_t>(keep.size()) == batch.num_rows) return batch;
  if (keep.empty()) {
    columnar::RecordBatch out;
    out.schema = batch.schema;
    for (const auto& c : batch.columns) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr e, columnar::Take(*c, {}));
      out.columns.push_back(std::move(e));
    }
    return out;
  }
  return columnar::Take(batch, keep);
}

Result<columnar::RecordBatch> Project(const columnar::RecordBatch& batch,
                                      const std::vector<ExprPtr>& exprs,
                                      const std::vector<std::string>& names) {
  columnar::RecordBatch out;
  auto schema = std::make_shared<columnar::Schema>();
  out.num_rows = batch.num_rows;
  for (size_t i = 0; i < exprs.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*exprs[i], batch));
    schema->fields.push_back({i < names.size() ? names[i] : fmt::format("col{}", i), c->type});
    out.columns.push_back(std::move(c));
  }
  out.schema = schema;
  return out;
}

}  // namespace floe::exec
