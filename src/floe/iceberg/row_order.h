// Row order for a sort order: the permutation that sorts a batch (conformed to the table schema)
// by a SortOrder's fields -- transforms, directions and null orders as Iceberg defines them, NaN
// after every number. Keys are extracted once per row (not per comparison), with fast paths for
// integer, floating-point and string columns, so sorting a million rows costs a sort, not a
// million Literal constructions. Stable: equal keys keep their input order. Thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {

// Indices of `batch`'s rows in `order`. Sort fields must name top-level columns of `schema`,
// which `batch` carries by name.
Result<std::vector<int64_t>> SortIndices(const columnar::RecordBatch& batch, const Schema& schema,
                                         const SortOrder& order);

}  // namespace floe::iceberg
