#include "floe/parquet/copied_chunk.h"

#include "floe/base/result.h"

namespace floe::parquet {

namespace {

// [offset, offset + length) of `file`, or an error naming `what` when it is not inside it.
Result<Buffer> Range(const Buffer& file, int64_t offset, int64_t length, const char* what,
                     size_t row_group, size_t leaf) {
  const auto size = static_cast<int64_t>(file.size());
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Corrupt(
        "Parquet file: row group {} column {}: the {} at {} ({} bytes) is outside the "
        "file ({} bytes)",
        row_group, leaf, what, offset, length, size);
  }
  return file.Slice(static_cast<size_t>(offset), static_cast<size_t>(length));
}

}  // namespace

Result<CopiedChunk> CopyChunk(const Buffer& file, const FileMetaData& metadata, size_t row_group,
                              size_t leaf) {
  if (row_group >= metadata.row_groups.size() ||
      leaf >= metadata.row_groups[row_group].columns.size()) {
    return InvalidInput("Parquet file: no column {} in row group {}", leaf, row_group);
  }
  CopiedChunk out;
  out.chunk = metadata.row_groups[row_group].columns[leaf];
  const ColumnChunk& c = out.chunk;
  if (c.encrypted || !c.meta_data || c.file_path) {
    return Unsupported("Parquet file: row group {} column {} is {}: it cannot be copied", row_group,
                       leaf, c.file_path ? "in another file" : "encrypted");
  }
  const ColumnMetaData& md = *c.meta_data;
  FLOE_ASSIGN_OR_RETURN(out.bytes, Range(file, md.chunk_start(), md.total_compressed_size,
                                         "column chunk", row_group, leaf));
  if (c.column_index_offset && c.column_index_length) {
    FLOE_ASSIGN_OR_RETURN(Buffer b, Range(file, *c.column_index_offset, *c.column_index_length,
                                          "column index", row_group, leaf));
    FLOE_ASSIGN_OR_RETURN(out.column_index, ParseColumnIndex(b.view()));
  }
  if (c.offset_index_offset && c.offset_index_length) {
    FLOE_ASSIGN_OR_RETURN(Buffer b, Range(file, *c.offset_index_offset, *c.offset_index_length,
                                          "offset index", row_group, leaf));
    FLOE_ASSIGN_OR_RETURN(out.offset_index, ParseOffsetIndex(b.view()));
    for (const PageLocation& p : out.offset_index->page_locations) {
      if (p.offset < md.chunk_start() ||
          p.offset - md.chunk_start() + p.compressed_page_size > md.total_compressed_size) {
        return Corrupt(
            "Parquet file: row group {} column {}: the offset index names a page at "
            "{} outside the chunk",
            row_group, leaf, p.offset);
      }
    }
  }
  if (md.bloom_filter_offset) {
    const int64_t length = md.bloom_filter_length
                               ? *md.bloom_filter_length
                               : static_cast<int64_t>(file.size()) - *md.bloom_filter_offset;
    FLOE_ASSIGN_OR_RETURN(
        Buffer b, Range(file, *md.bloom_filter_offset, length, "Bloom filter", row_group, leaf));
    FLOE_ASSIGN_OR_RETURN(out.bloom_filter, BloomFilter::Parse(b.view()));
  }
  return out;
}

}  // namespace floe::parquet
