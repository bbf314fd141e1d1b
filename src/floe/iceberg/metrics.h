// Column metrics of a data file as Iceberg records them in manifests: the writer's exact sizes,
// counts and bounds, cut to the table's metrics mode (write.metadata.metrics.default, default
// truncate(16), and write.metadata.metrics.column.<name>): none, counts, truncate(N), full.
// Truncated upper bounds are incremented so they stay upper bounds (or dropped when they can't be).
#pragma once

#include <optional>
#include <string>

#include "floe/base/result.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/parquet/writer.h"

namespace floe::iceberg {

struct MetricsMode {
  enum class Kind { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int32_t length = 16;
};

Result<MetricsMode> ParseMetricsMode(std::string_view text);
// The mode of a column (by its dotted name) under the table's properties.
Result<MetricsMode> ColumnMetricsMode(const TableMetadata& metadata, const std::string& column);

// Lower bound of `value` cut to `length` code points (strings) or bytes (binary).
std::string TruncateLower(const std::string& value, TypeId type, int32_t length);
// Upper bound cut to `length` and incremented; nullopt when no such bound exists.
std::optional<std::string> TruncateUpper(const std::string& value, TypeId type, int32_t length);

// Fills a data file's column_sizes, value/null/nan counts and bounds from the writer's metrics.
Status ApplyMetrics(const TableMetadata& metadata, const Schema& schema,
                    const parquet::WrittenFile& written, DataFile* file);

}  // namespace floe::iceberg
