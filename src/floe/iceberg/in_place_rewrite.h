// In-place rewrite: copy-on-write of a data file whose changed rows keep their places. The rows
// at some positions become new values (a MERGE's or UPDATE's updated rows); every other row
// stays. The new file keeps the old one's row groups and row order; the columns whose values
// changed are encoded anew and the others' column chunks are copied as they are (pages, page
// index, Bloom filters: parquet/copied_chunk.h), so the rewrite costs the changed columns, not
// the whole file. A file that cannot be rewritten so (its layout depends on a changed column, it
// was written under another schema, it has deletes) is left to the usual rewrite of its rows, as
// are small files the statement rewrites beside others of their partition (row_level_change.cc:
// the usual rewrite merges them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

struct InPlaceChange {
  // Every row of the file in position order, as a write takes them (the table schema's columns
  // in order, or those of `columns`), then `_pos` (int64): the rows the statement's scan read.
  std::vector<columnar::RecordBatch> rows;
  // Positions (ascending, distinct) and, row for row, what they become (the columns of `rows`).
  std::vector<int64_t> positions;
  columnar::RecordBatch replacements;
  // The top-level field ids of the columns `rows` and `replacements` hold, when not every
  // column: the others are unchanged.
  std::vector<int32_t> columns;
};

// `column` (values of a file's rows, their positions `row_positions`) with the rows at
// `positions` (ascending) holding `replacement`'s value for that position (row k for
// positions[k]) instead.
Result<columnar::ColumnPtr> WithReplacements(const columnar::ColumnPtr& column,
                                             const columnar::Column& row_positions,
                                             const std::vector<int64_t>& positions,
                                             const columnar::ColumnPtr& replacement);

// Writes `task`'s file with `change` applied at `location` and returns it, its metrics those of
// the new file (a copied column's bounds are the old file's). nullopt when the file cannot be
// rewritten in place: the table is format 3 (row lineage), the file has deletes or another spec
// than the table's current one, the table declares a layout (floe.layout), a changed column is
// a partition source or a sort key, the file's Parquet schema is not what the table's current
// schema writes, or `change.rows` are not the file's rows in order.
// Without `change.rows` the changed columns' old values are decoded from the file, which counts
// in `metrics` (may be null) as a data file opened, as a rewrite's second read of it does.
Result<std::optional<DataFile>> RewriteInPlace(const Table& table, const FileIO& io,
                                               const FileScanTask& task,
                                               const InPlaceChange& change,
                                               const std::string& location,
                                               ScanMetrics* metrics = nullptr);

}  // namespace floe::iceberg
