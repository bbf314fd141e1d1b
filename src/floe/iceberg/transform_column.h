// A transform applied to every row of a column: the partition values and sort keys a table's
// spec and sort order ask for, as columns the layout module splits and orders rows by. Pure
// functions, thread safe.
#pragma once

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

// `source` holds values of `source_type` (in ToColumnarType's layout); the result holds
// transform.ResultType(source_type) values, nulls where the transform gives null. Identity returns
// `source` itself.
Result<columnar::ColumnPtr> TransformColumn(const Transform& transform,
                                            const columnar::ColumnPtr& source,
                                            const Type& source_type);

}  // namespace floe::iceberg
