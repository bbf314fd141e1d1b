// Record assembly: definition/repetition levels and dense values of a field's leaves -> one
// Arrow-layout column (bitmaps only with nulls, int32 offsets, struct children). Levels that
// contradict each other are `corrupt`, never out-of-bounds reads. Stateless; thread safe.
#pragma once

#include <span>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/parquet/column_chunk_reader.h"
#include "floe/parquet/schema.h"

namespace floe::parquet {

// Builds the column of `node` from `batches`, indexed by leaf column (only the leaves below
// `node` are used; each must hold the same rows). The leaves' values are moved into the column;
// their levels are left as they were.
Result<columnar::ColumnPtr> AssembleColumn(const FieldNode& node,
                                           const std::vector<ColumnDescriptor>& leaves,
                                           std::span<LeafBatch* const> batches);

// The non-null `values` of a flat leaf as a column of its Arrow type, without nulls.
Result<columnar::ColumnPtr> ValuesAsColumn(const ColumnDescriptor& leaf, DenseValues values);

}  // namespace floe::parquet
