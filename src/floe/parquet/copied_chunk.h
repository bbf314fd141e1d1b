// CopiedChunk: one column chunk of a Parquet file, taken to be placed in another file as it is --
// its pages' bytes unchanged, its footer metadata, page index and Bloom filter with it. A
// rewrite that changes some columns of a file (a copy-on-write UPDATE of a few columns) encodes
// those and copies the others (ParquetWriter::WriteRowGroupWithCopies), so the columns it does
// not change cost a copy of their bytes, not a decode, an encode and a compression.
#pragma once

#include <cstddef>
#include <optional>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/bloom_filter.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/page_index.h"

namespace floe::parquet {

struct CopiedChunk {
  Buffer bytes;       // the chunk: from its first page (dictionary or data) to its last byte
  ColumnChunk chunk;  // as the source file's footer has it, offsets in that file
  std::optional<ColumnIndex> column_index;
  std::optional<OffsetIndex> offset_index;  // page offsets in the source file
  std::optional<BloomFilter> bloom_filter;
};

// Row group `row_group`'s chunk of leaf `leaf` from `file`, a whole Parquet file whose footer is
// `metadata`. Every range the footer names is checked against the file: a footer pointing
// outside it, an encrypted or external chunk, or an index that does not parse is an error.
Result<CopiedChunk> CopyChunk(const Buffer& file, const FileMetaData& metadata, size_t row_group,
                              size_t leaf);

}  // namespace floe::parquet
