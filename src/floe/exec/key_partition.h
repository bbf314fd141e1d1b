// Key partitioning for operators that spill: rows (or a hash aggregate's groups) assigned to one
// of `parts` partitions by a seeded hash of their key values, so that equal keys -- as GROUP BY
// and an equi-join compare them (exec/value.h's AppendKeyBytes: -0.0 is 0.0, NaN is NaN; NULL
// is one key) -- always land in the same partition, and a different seed splits a partition
// again. Pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/value.h"

namespace floe::exec {

// The partition of every row of `keys` (columns `rows` long).
Result<std::vector<uint32_t>> PartitionRows(const std::vector<columnar::ColumnPtr>& keys,
                                            int64_t rows, uint64_t seed, uint32_t parts);
// The partition of one key tuple (the same as PartitionRows gives a row of these values).
uint32_t PartitionOfKey(const std::vector<Value>& key, uint64_t seed, uint32_t parts);

// The rows of `batch` split by `part_of_row`: one batch per partition (empty ones with no rows);
// null columns stay null.
Result<std::vector<columnar::RecordBatch>> SplitRows(const columnar::RecordBatch& batch,
                                                     const std::vector<uint32_t>& part_of_row,
                                                     uint32_t parts);

}  // namespace floe::exec
