// Row order for a sort order: a SortOrder's fields resolved to key columns of a batch (conformed
// to the table schema) -- each field's transform applied to its source column -- and sorted by
// layout/row_order.h, the one strict weak ordering every writer of sorted data shares:
// directions and null orders as Iceberg defines them, -NaN < -inf < ... < -0.0 < 0.0 < ... < inf
// < NaN. Stable: equal keys keep their input order. And the row order of a clustering
// (layout/clustering.h: zorder(a, b), hilbert(a, b)): its column names resolved against a table's
// schema and partition spec. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/layout/clustering.h"
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

// The columns a write orders its rows by, which it works the order out on: a clustering's (an
// OTree's, a Z-order's, a Hilbert curve's) when there is one, else `order`'s source columns.
std::vector<std::string> OrderColumnNames(const layout::ClusterSpec* cluster,
                                          const SortOrder& order, const Schema& schema);

// Indices of `batch`'s rows in `order`.
Result<std::vector<int64_t>> SortIndices(const columnar::RecordBatch& batch, const Schema& schema,
                                         const SortOrder& order);

// The table property that declares a table's write-time layout: "zorder(a, b)", "hilbert(a, b)".
inline constexpr std::string_view kLayoutProperty = "floe.layout";

// A clustering's columns resolved against a table: each name a top-level column of a primitive
// type (the exact name, else its only case-insensitive match), written back as the schema spells
// it. Columns that are identity partition sources are dropped -- constant within a partition, as
// Iceberg's Spark action drops them -- and a spec left with none is an error, as there.
Result<layout::ClusterSpec> ResolveClusterSpec(const layout::ClusterSpec& spec,
                                               const Schema& schema,
                                               const PartitionSpec& partitions);

// Orders `rows` (indices into `batch`, conformed to `schema`) by a resolved clustering, on
// `pool` too when given.
Status ClusterRows(const columnar::RecordBatch& batch, const layout::ClusterSpec& spec,
                   std::vector<int64_t>* rows, ThreadPool* pool = nullptr);

}  // namespace floe::iceberg
