// ColumnChunkReader: walks the pages of one in-memory column chunk (whole, or the pages a plan
// kept plus the dictionary) and hands out the levels and Arrow-form values of the next N rows,
// skipping rows it is told to. Bad bytes are `corrupt`, never UB. One reader per chunk, one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/parquet/compression.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/schema.h"

namespace floe::parquet {

// Non-null values of a leaf in its Arrow layout: fixed-width values back to back (booleans one
// byte each, 0 or 1), or binary values as int32 offsets (count + 1, from 0) and data.
struct DenseValues {
  int width = 0;  // bytes per value; 0 for binary
  int64_t count = 0;
  ByteVector data;                  // grows without zero-filling: every byte is written after
  std::vector<int32_t> offsets{0};  // binary only
  // Binary values gathered from one small dictionary: each value's entry in it (the reader's
  // dictionary as a column). Cleared, and `codes_complete` false, once a value came otherwise.
  std::vector<int32_t, DefaultInitAllocator<int32_t>> codes;
  std::shared_ptr<const columnar::Column> code_dictionary;
  bool codes_complete = true;

  // Appends values [begin, begin + n) of `src` (same layout).
  Status AppendRange(const DenseValues& src, int64_t begin, int64_t n);
  void Clear();
};

// The levels and values of consecutive rows of one leaf.
struct LeafBatch {
  // One per level; empty when every level's definition level is `def_when_empty` (the leaf's
  // max_def: always so when that is 0, and elided by the reader while no value is missing).
  std::vector<int16_t> def;
  int16_t def_when_empty = 0;
  std::vector<int16_t> rep;  // one per level; empty when the leaf's max_rep is 0
  int64_t num_levels = 0;
  int64_t num_rows = 0;
  DenseValues values;
};

// The bytes of a chunk as a read plan fetched them.
struct ChunkSource {
  // Whole-chunk mode: the pages back to back, from the chunk's first byte at `chunk_offset`. May
  // run past the chunk's last page (widened ranges); reading stops at the chunk's value count.
  Buffer chunk;
  int64_t chunk_offset = 0;

  // Page mode (`paged`): the dictionary page (header included; empty when there is none) and the
  // data pages kept, in file order, each with its rows from the offset index.
  bool paged = false;
  Buffer dictionary;
  int64_t dictionary_offset = 0;
  struct Page {
    Buffer bytes;  // page header + page
    int64_t offset = 0;
    int64_t first_row = 0;
    int64_t num_rows = 0;
  };
  std::vector<Page> pages;

  // Whole-chunk mode: CheckPageHeaders already passed over `chunk` (FileReader does it once per
  // fetched file), so the reader need not walk the headers again.
  bool headers_checked = false;
};

// Whole-chunk mode, before any page is decoded: the data pages' headers, each inside `chunk`, add
// up to the chunk's value count. A count flipped in one header is then an error even when the
// rows read end before that page (the pages after it would otherwise shift silently). Parses
// headers only; nothing is decompressed.
Status CheckPageHeaders(ByteView chunk, int64_t chunk_offset, int64_t num_values);

// Whether each of some non-null values of a leaf (in their Arrow layout) satisfies a filter: one
// byte per value, 1 or 0.
using ValueMatcher = std::function<Result<std::vector<uint8_t>>(DenseValues values)>;

struct ChunkReaderOptions {
  bool verify_checksums = true;  // check each page's CRC-32 when the writer stored one
  // When set, ReadRows hands out for each non-null value whether it matches (width 1) instead of
  // the value. A dictionary page is matched once, and its pages' indices look the answers up:
  // the values themselves are never gathered.
  const ValueMatcher* matcher = nullptr;
};

class ColumnChunkReader {
 public:
  // `leaf` and `meta` describe the chunk; `row_group_rows` is its row group's row count.
  static Result<ColumnChunkReader> Make(const ColumnDescriptor& leaf, const ColumnMetaData& meta,
                                        int64_t row_group_rows, ChunkSource source,
                                        const ChunkReaderOptions& options = {});

  ColumnChunkReader(ColumnChunkReader&&) noexcept;
  ColumnChunkReader& operator=(ColumnChunkReader&&) noexcept;
  ~ColumnChunkReader();

  // Index (within the row group) of the next row ReadRows returns.
  int64_t next_row() const;

  // Passes over rows until next_row() == row (row >= next_row()). Pages wholly before `row` are
  // not decompressed when their row count is known without decoding them.
  Status SkipTo(int64_t row);

  // Appends the next `n` rows to `out`; returns how many it appended (fewer only at the end of
  // the chunk).
  Result<int64_t> ReadRows(int64_t n, LeafBatch* out);
  // Makes room in `out` for `n` more rows of a flat leaf (a batch read in several row ranges,
  // sized once instead of copied as it grows range by range); nothing for a repeated leaf.
  void ReserveRows(int64_t n, LeafBatch* out) const;

 private:
  struct State;
  explicit ColumnChunkReader(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace floe::parquet
