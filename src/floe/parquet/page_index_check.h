// The rules a chunk's page index must keep before a reader lets it prune pages or choose rows: an
// offset index that locates pages inside the chunk in file and row order, a column index that
// agrees with it, with itself and with the chunk's statistics, and page headers where the offset
// index points that agree with it. Each check names the rule broken. The index only ever saves
// work, so a reader that gets an error reads the chunk without it. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/byte_range.h"
#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/page_index.h"
#include "floe/parquet/schema.h"

namespace floe::parquet {

// The chunk a page index describes.
struct PageIndexContext {
  const ColumnDescriptor* leaf = nullptr;
  const FileMetaData* metadata = nullptr;
  const ColumnMetaData* meta = nullptr;
  ByteRange chunk;  // the chunk's bytes as the plan reads them
  int64_t row_group_rows = 0;
};

// At least one page; the first at row 0 and no earlier than the chunk's first data page; first
// rows strictly increasing and below the row group's row count; every page non-empty, inside the
// chunk and after the end of the one before.
Status CheckOffsetIndex(const OffsetIndex& index, const PageIndexContext& context);

// `offsets` passed CheckOffsetIndex. One entry per page; null pages without bounds and, in a flat
// column, with as many nulls as rows; no nulls in a required column; null and NaN counts within
// the page's rows; each page's bounds consistent (BoundsContradiction), inside the chunk's
// statistics (where bounds are never truncated) and in the boundary order claimed.
Status CheckColumnIndex(const ColumnIndex& index, const OffsetIndex& offsets,
                        const PageIndexContext& context);

// Why no values can have these bounds -- a negative null count, more nulls than values, a min
// above the max -- or nullopt when they can.
std::optional<std::string> BoundsContradiction(const ValueBounds& bounds);

// `page` holds the bytes the offset index locates at `location`, which it says hold `rows` rows:
// they must open with a data page header whose page fills them exactly and whose value (and, in
// v2, row) counts agree with `rows`.
Status CheckPageAgainstIndex(ByteView page, const PageLocation& location, int64_t rows,
                             const ColumnDescriptor& leaf);

}  // namespace floe::parquet
