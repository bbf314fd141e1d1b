// Partition split: rows grouped by the values of key columns (a partition spec's transformed
// values, computed by the caller), so that each group becomes the files of one partition. Groups
// come in the order their first row appears; NULL is a value of its own, and so is each NaN bit
// pattern (-0.0 and 0.0 are different keys, as Iceberg's identity partitions keep them). Pure
// functions, thread safe.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::layout {

struct RowGroupOfKey {
  int64_t first_row = 0;      // a row holding the group's key values
  std::vector<int64_t> rows;  // in input order
};

// Every row 0..n-1 of the key columns in exactly one group; no keys: one group of all rows.
// Unsupported key types (nested) are an error naming the type.
Result<std::vector<RowGroupOfKey>> SplitByKeys(const std::vector<const columnar::Column*>& keys,
                                               int64_t n);

}  // namespace floe::layout
