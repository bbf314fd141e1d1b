// Row order for a sort order: a SortOrder's fields resolved to key columns of a batch (conformed
// to the table schema) -- each field's transform applied to its source column -- and sorted by
// layout/row_order.h, the one strict weak ordering every writer of sorted data shares:
// directions and null orders as Iceberg defines them, -NaN < -inf < ... < -0.0 < 0.0 < ... < inf
// < NaN. Stable: equal keys keep their input order. Thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/layout/row_order.h"

namespace floe::iceberg {

// The key columns of a sort order over one batch (they keep the batch's buffers alive).
struct SortKeyColumns {
  std::vector<columnar::ColumnPtr> columns;
  std::vector<SortField> fields;
  std::vector<layout::SortColumn> View() const;
};

// Sort fields must name top-level columns of `schema`, which `batch` carries by name.
Result<SortKeyColumns> SortKeysOf(const columnar::RecordBatch& batch, const Schema& schema,
                                  const SortOrder& order);

// Indices of `batch`'s rows in `order`.
Result<std::vector<int64_t>> SortIndices(const columnar::RecordBatch& batch, const Schema& schema,
                                         const SortOrder& order);

}  // namespace floe::iceberg
