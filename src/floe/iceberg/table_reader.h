// Reading one planned task whole: its data file read through the table's FileIO (ReadScan) with
// the length from the manifest (no HEAD, no probe), its columns matched to the table schema by
// field id (so renamed, added and widened columns read right). The residual is not applied here
// (that is the executor's, through ReadScan's evaluator): a task whose residual is not true is an
// error. Its delete files are applied (`schema`, the table's, types the columns equality deletes
// compare); `metrics` counts the rows they took out.
#pragma once

#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/scan.h"

namespace floe::iceberg {

Result<std::vector<columnar::RecordBatch>> ReadTask(const FileScanTask& task, const Schema& schema,
                                                    const FileIO& io,
                                                    ScanMetrics* metrics = nullptr);

}  // namespace floe::iceberg
