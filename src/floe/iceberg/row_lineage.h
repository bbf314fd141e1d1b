// Row lineage (format v3, spec "Row Lineage"): every row's `_row_id` and
// `_last_updated_sequence_number`. A file may hold them as columns (a rewrite wrote them); where it
// holds none, or a null, a reader takes the file's first_row_id plus the row's position and the
// file's data sequence number -- and null for both when the file has no first_row_id (it predates
// the table's upgrade to v3). A rewrite moves rows with their lineage: it reads them here and
// writes the two columns into the new files, so Spark reads the same `_row_id` before and after.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/delete_loader.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// The reserved field ids of the two lineage columns.
inline constexpr int32_t kRowIdFieldId = 2147483540;
inline constexpr int32_t kLastUpdatedSequenceNumberFieldId = 2147483539;

// `schema` with the two lineage columns after its own (optional longs, as Spark writes them).
Schema WithRowLineage(const Schema& schema);

// The rows of `task` that its deletes (loaded by `deletes`, whose tasks include it) leave, in file
// order, with the columns of WithRowLineage(table_schema) and every row's lineage filled in.
// `metrics` counts the read and the rows the deletes took out.
Result<std::vector<columnar::RecordBatch>> ReadWithRowLineage(const FileScanTask& task,
                                                              const Schema& table_schema,
                                                              const FileIO& io,
                                                              DeleteLoader& deletes,
                                                              ScanMetrics* metrics);

}  // namespace floe::iceberg
