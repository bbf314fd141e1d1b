// Statistics as the footer and page headers carry them (min/max, null and NaN counts, size
// histograms, geospatial boxes). Plain data: min/max stay PLAIN bytes (no length prefix), to be
// read with the column's type and column order by whoever compares them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace floe::parquet {

struct Statistics {
  // Deprecated bounds in signed byte-wise order, from writers that predate column orders.
  std::optional<std::string> max;
  std::optional<std::string> min;
  std::optional<int64_t> null_count;  // absent is not zero
  std::optional<int64_t> distinct_count;
  // Bounds in the column's order (FileMetaData::column_orders); may be truncated, see *_exact.
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
  std::optional<int64_t> nan_count;  // FLOAT, DOUBLE, FLOAT16 only; absent means "maybe NaNs"

  friend bool operator==(const Statistics&, const Statistics&) = default;
};

// Sizes for estimating memory and level-based pruning; histograms are empty when absent.
struct SizeStatistics {
  std::optional<int64_t> unencoded_byte_array_data_bytes;
  std::vector<int64_t> repetition_level_histogram;  // max_repetition_level + 1 entries
  std::vector<int64_t> definition_level_histogram;  // max_definition_level + 1 entries

  friend bool operator==(const SizeStatistics&, const SizeStatistics&) = default;
};

struct BoundingBox {
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  std::optional<double> zmin, zmax, mmin, mmax;

  friend bool operator==(const BoundingBox&, const BoundingBox&) = default;
};

// GEOMETRY / GEOGRAPHY columns only.
struct GeospatialStatistics {
  std::optional<BoundingBox> bbox;
  std::vector<int32_t> geospatial_types;  // WKB type codes; empty when unknown

  friend bool operator==(const GeospatialStatistics&, const GeospatialStatistics&) = default;
};

}  // namespace floe::parquet
