// The page index of a column chunk -- ColumnIndex (per-page min/max and null counts) and
// OffsetIndex (page offsets and first rows) -- as plain floe data with parsers and serialisers.
// A parsed index has lists of matching lengths and no negative offsets, sizes or rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

struct ColumnIndex {
  std::vector<bool> null_pages;         // true: the page holds only nulls, its min/max are empty
  std::vector<std::string> min_values;  // PLAIN bytes, no length prefix; may be truncated
  std::vector<std::string> max_values;
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;
  std::optional<std::vector<int64_t>> null_counts;   // absent is not zero
  std::vector<int64_t> repetition_level_histograms;  // pages x (max_rep + 1), or empty
  std::vector<int64_t> definition_level_histograms;  // pages x (max_def + 1), or empty
  std::optional<std::vector<int64_t>> nan_counts;

  size_t num_pages() const { return null_pages.size(); }

  friend bool operator==(const ColumnIndex&, const ColumnIndex&) = default;
};

struct PageLocation {
  int64_t offset = 0;                // file offset of the page header
  int32_t compressed_page_size = 0;  // header included
  int64_t first_row_index = 0;       // within the row group

  friend bool operator==(const PageLocation&, const PageLocation&) = default;
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;              // data pages only, in file order
  std::vector<int64_t> unencoded_byte_array_data_bytes;  // per page, or empty

  // Rows of page `i`: up to the next page's first row, or the row group's end.
  int64_t PageRows(size_t i, int64_t row_group_rows) const {
    return (i + 1 < page_locations.size() ? page_locations[i + 1].first_row_index
                                          : row_group_rows) -
           page_locations[i].first_row_index;
  }

  friend bool operator==(const OffsetIndex&, const OffsetIndex&) = default;
};

Result<ColumnIndex> ParseColumnIndex(ByteView bytes);
Result<std::vector<uint8_t>> SerializeColumnIndex(const ColumnIndex& index);

Result<OffsetIndex> ParseOffsetIndex(ByteView bytes);
Result<std::vector<uint8_t>> SerializeOffsetIndex(const OffsetIndex& index);

}  // namespace floe::parquet
