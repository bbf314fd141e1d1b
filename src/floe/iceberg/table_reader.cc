#include "floe/iceberg/table_reader.h"

#include "floe/iceberg/scan_reader.h"

namespace floe::iceberg {

Result<std::vector<columnar::RecordBatch>> ReadTask(const FileScanTask& task, const Schema& schema,
                                                    const FileIO& io, ScanMetrics* metrics) {
  ScanReadOptions options;
  options.preserve_order = true;
  options.use_footer_cache = false;
  std::vector<columnar::RecordBatch> out;
  FLOE_RETURN_IF_ERROR(ReadScan(
      {task}, schema, io, options, ScanHooks{{}, {}, &schema},
      [&](columnar::RecordBatch b) -> Status {
        out.push_back(std::move(b));
        return {};
      },
      metrics));
  return out;
}

}  // namespace floe::iceberg
