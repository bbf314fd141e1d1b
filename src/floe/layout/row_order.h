// Row order: the permutation that sorts rows by key columns, as one strict weak ordering shared
// by every writer of sorted data (the data writer's sort within a write, sort rewrites, and the
// clustering layouts to come). Keys are columns already computed by the caller (a sort field's
// transform applied), compared in Iceberg's sort-order semantics: nulls first or last per key;
// floating point -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN; strings and binary as unsigned
// bytes. Stable: equal keys keep their input order. Pure functions, thread safe.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::layout {

struct SortColumn {
  const columnar::Column* column = nullptr;  // booleans, integers, dates, times, timestamps,
                                             // floats, decimals, strings, binary, fixed
  bool descending = false;
  bool nulls_first = true;  // Iceberg's default for ASC
};

// Sorts `rows` (indices into the key columns) in place; unsupported key types (nested) are an
// error naming the type.
Status SortRows(const std::vector<SortColumn>& keys, std::vector<int64_t>* rows);

// All rows 0..n-1 of the key columns, sorted.
Result<std::vector<int64_t>> SortIndices(const std::vector<SortColumn>& keys, int64_t n);

}  // namespace floe::layout
