// Reading a planned scan: each task's data file is read through the table's FileIO with the
// length from the manifest (no HEAD, no probe), its columns matched to the table schema by field
// id (so renamed, added and widened columns read right), and the task's residual filter applied to
// the rows. Delete files are not applied yet: a task that has them is an unsupported error.
#pragma once

#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/scan.h"

namespace floe::iceberg {

struct TaskReadStats {
  int64_t requests = 0;
  int64_t bytes_fetched = 0;
  int64_t row_groups_read = 0;
  int64_t row_groups_skipped = 0;
};

Result<std::vector<columnar::RecordBatch>> ReadTask(const FileScanTask& task, const Schema& schema,
                                                    const FileIO& io,
                                                    TaskReadStats* stats = nullptr);

// One byte per row of `batch` (conformed to `schema`): whether it satisfies `filter` (bound to
// `schema`; SQL semantics, unknown is false).
Result<std::vector<uint8_t>> MatchRows(const columnar::RecordBatch& batch, const ExprPtr& filter,
                                       const Schema& schema);
// The rows of `batch` (conformed to `schema`) that satisfy `filter` (bound to `schema`).
Result<columnar::RecordBatch> FilterRows(const columnar::RecordBatch& batch, const ExprPtr& filter,
                                         const Schema& schema);

}  // namespace floe::iceberg
