// ShredLeaf: the Dremel striping of one leaf of a nested column -- the inverse of
// record_assembler.h. For rows of a top-level list/struct/map column it yields the leaf's
// repetition and definition levels (one entry per value, null or empty list) and its defined
// values as a dense column. Stateless; called by the Parquet writer per leaf and slice.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/parquet/write_schema.h"

namespace floe::parquet {

struct ShreddedLeaf {
  std::vector<int16_t> definition_levels;
  std::vector<int16_t> repetition_levels;  // rows start where the level is 0
  // The values whose definition level is the leaf's maximum, in order, without nulls; null
  // when there are none.
  columnar::ColumnPtr values;
  int64_t num_rows = 0;
};

// Rows [offset, offset + length) of `column` (the leaf's top-level column, of type field.type).
// A null below a required field is an error naming the field.
Status ShredLeaf(const LeafColumn& leaf, const columnar::Field& field,
                 const columnar::Column& column, int64_t offset, int64_t length, ShreddedLeaf* out);

}  // namespace floe::parquet
