#include "floe/iceberg/transform_column.h"

#include <vector>

#include "floe/iceberg/arrow_schema.h"

namespace floe::iceberg {

Result<columnar::ColumnPtr> TransformColumn(const Transform& transform,
                                            const columnar::ColumnPtr& source,
                                            const Type& source_type) {
  if (transform.kind == TransformKind::kIdentity) return source;
  FLOE_ASSIGN_OR_RETURN(TypePtr result, transform.ResultType(source_type));
  std::vector<Literal> values;
  values.reserve(static_cast<size_t>(source->length));
  for (int64_t r = 0; r < source->length; ++r) {
    FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(*source, r, source_type));
    FLOE_ASSIGN_OR_RETURN(Literal t, transform.Apply(v));
    values.push_back(std::move(t));
  }
  return LiteralColumn(values, *result);
}

}  // namespace floe::iceberg
