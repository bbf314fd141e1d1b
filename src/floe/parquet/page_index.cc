#include "floe/parquet/page_index.h"

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

Result<ColumnIndex> ParseColumnIndex(ByteView bytes) {
  format::ColumnIndex in;
  FLOE_RETURN_IF_ERROR(internal::ReadThrift(bytes, &in, nullptr, "ColumnIndex"));
  size_t pages = in.null_pages.size();
  if (!in.__isset.null_pages || in.min_values.size() != pages || in.max_values.size() != pages) {
    return Corrupt(
        "ColumnIndex: null_pages, min_values and max_values have {}, {} and {} "
        "entries; they must match",
        pages, in.min_values.size(), in.max_values.size());
  }
  if (in.__isset.null_counts && in.null_counts.size() != pages) {
    return Corrupt("ColumnIndex: {} null_counts for {} pages", in.null_counts.size(), pages);
  }
  if (in.__isset.nan_counts && in.nan_counts.size() != pages) {
    return Corrupt("ColumnIndex: {} nan_counts for {} pages", in.nan_counts.size(), pages);
  }
  if ((pages == 0 &&
       (!in.repetition_level_histograms.empty() || !in.definition_level_histograms.empty())) ||
      (pages > 0 && (in.repetition_level_histograms.size() % pages != 0 ||
                     in.definition_level_histograms.size() % pages != 0))) {
    return Corrupt("ColumnIndex: level histograms are not a whole number per page ({} pages)",
                   pages);
  }
  ColumnIndex out;
  out.null_pages = in.null_pages;
  out.min_values = std::move(in.min_values);
  out.max_values = std::move(in.max_values);
  out.boundary_order = static_cast<BoundaryOrder>(in.boundary_order);
  if (in.__isset.null_counts) out.null_counts = std::move(in.null_counts);
  out.repetition_level_histograms = std::move(in.repetition_level_histograms);
  out.definition_level_histograms = std::move(in.definition_level_histograms);
  if (in.__isset.nan_counts) out.nan_counts = std::move(in.nan_counts);
  return out;
}

Result<std::vector<uint8_t>> SerializeColumnIndex(const ColumnIndex& in) {
  format::ColumnIndex out;
  out.null_pages = in.null_pages;
  out.min_values = in.min_values;
  out.max_values = in.max_values;
  out.boundary_order = static_cast<int32_t>(in.boundary_order);
  if (in.null_counts) out.__set_null_counts(*in.null_counts);
  if (!in.repetition_level_histograms.empty()) {
    out.__set_repetition_level_histograms(in.repetition_level_histograms);
  }
  if (!in.definition_level_histograms.empty()) {
    out.__set_definition_level_histograms(in.definition_level_histograms);
  }
  if (in.nan_counts) out.__set_nan_counts(*in.nan_counts);
  return internal::WriteThrift(out, "ColumnIndex");
}

Result<OffsetIndex> ParseOffsetIndex(ByteView bytes) {
  format::OffsetIndex in;
  FLOE_RETURN_IF_ERROR(internal::ReadThrift(bytes, &in, nullptr, "OffsetIndex"));
  if (!in.__isset.page_locations) return Corrupt("OffsetIndex: page_locations is missing");
  OffsetIndex out;
  out.page_locations.reserve(in.page_locations.size());
  for (size_t i = 0; i < in.page_locations.size(); ++i) {
    const auto& p = in.page_locations[i];
    if (p.offset < 0 || p.compressed_page_size < 0 || p.first_row_index < 0) {
      return Corrupt("OffsetIndex: page {} has a negative offset, size or first row ({}, {}, {})",
                     i, p.offset, p.compressed_page_size, p.first_row_index);
    }
    out.page_locations.push_back({p.offset, p.compressed_page_size, p.first_row_index});
  }
  if (in.__isset.unencoded_byte_array_data_bytes) {
    if (in.unencoded_byte_array_data_bytes.size() != in.page_locations.size()) {
      return Corrupt("OffsetIndex: {} unencoded_byte_array_data_bytes for {} pages",
                     in.unencoded_byte_array_data_bytes.size(), in.page_locations.size());
    }
    out.unencoded_byte_array_data_bytes = std::move(in.unencoded_byte_array_data_bytes);
  }
  return out;
}

Result<std::vector<uint8_t>> SerializeOffsetIndex(const OffsetIndex& in) {
  format::OffsetIndex out;
  out.page_locations.reserve(in.page_locations.size());
  for (const auto& p : in.page_locations) {
    format::PageLocation t;
    t.offset = p.offset;
    t.compressed_page_size = p.compressed_page_size;
    t.first_row_index = p.first_row_index;
    out.page_locations.push_back(t);
  }
  if (!in.unencoded_byte_array_data_bytes.empty()) {
    out.__set_unencoded_byte_array_data_bytes(in.unencoded_byte_array_data_bytes);
  }
  return internal::WriteThrift(out, "OffsetIndex");
}

}  // namespace floe::parquet
