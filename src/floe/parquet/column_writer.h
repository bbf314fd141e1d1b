// ColumnChunkWriter: one leaf column's values -> the pages of its column chunks (levels, values,
// compression) with statistics, page index entries and Bloom filter. Pages stay in memory until
// the row group is flushed, so the dictionary page can lead. Not thread safe; one per leaf.
//
// Encoding rule, per column chunk (booleans excepted: always PLAIN in v1 pages, RLE in v2):
//  1. Start dictionary-encoded (RLE_DICTIONARY pages, PLAIN dictionary page).
//  2. When the first page is cut, keep the dictionary only if the page's indices plus the
//     dictionary are smaller than the page's PLAIN values; otherwise the chunk never uses one.
//  3. When the dictionary passes dictionary_size_limit, the open page is cut (still
//     dictionary-encoded) and every later page of the chunk is not (as parquet-mr does).
//  4. A page that is not dictionary-encoded is PLAIN, except INT32/INT64 pages, which are
//     DELTA_BINARY_PACKED when that encodes them in fewer bytes than PLAIN (decided per page by
//     encoding both ways).
// Every row group starts again at 1.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/parquet/bloom_filter.h"
#include "floe/parquet/compression.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/page_index.h"
#include "floe/parquet/record_shredder.h"
#include "floe/parquet/statistics_builder.h"
#include "floe/parquet/write_schema.h"

namespace floe::parquet {

enum class DataPageVersion { kV1, kV2 };

struct ColumnWriterOptions {
  int64_t page_size_bytes = int64_t{1} << 20;  // cut a page once its encoded values reach this
  int64_t page_row_limit = 20'000;
  int64_t dictionary_size_limit = int64_t{2} << 20;  // PLAIN bytes of the dictionary page
  bool enable_dictionary = true;
  bool delta_binary_packed_for_integers = true;  // rule 4 above; false: PLAIN only
  DataPageVersion page_version = DataPageVersion::kV1;
  const Codec* codec = nullptr;  // shared, stateless; required
  int32_t statistics_truncate_length = 16;
  int32_t column_index_truncate_length = 64;
  bool write_page_index = true;
  bool write_page_header_statistics = false;
  bool write_page_checksums = true;
  // Bloom filter: off unless bloom_filter is set.
  bool bloom_filter = false;
  double bloom_filter_fpp = 0.01;
  std::optional<int64_t> bloom_filter_ndv;  // absent: the chunk's own distinct count
  int64_t bloom_filter_max_bytes = int64_t{1} << 20;
  // Bytes a page takes as written per byte its open page was estimated at, from an earlier
  // file's writer (SizeCalibration); 0 when unknown.
  double page_size_ratio = 0;
  double dictionary_size_ratio = 0;
};

// How the bytes a column's pages and dictionary take when written compare with the estimates
// of their open state (values encoded roughly, before compression): measured on finished pages,
// carried to the next file's writer so that it measures right from its first row.
struct SizeCalibration {
  double page_ratio = 0;        // stored bytes / estimated bytes; 0 when nothing finished yet
  double dictionary_ratio = 0;  // the same for dictionary pages
};

// One finished column chunk, its offsets already absolute in the file.
struct ColumnChunkResult {
  ColumnChunk chunk;
  std::optional<ColumnIndex> column_index;  // absent when disabled or a page is all NaN
  std::optional<OffsetIndex> offset_index;
  std::optional<BloomFilter> bloom_filter;
  StatisticsBuilder statistics;  // exact (untruncated) chunk statistics
};

class ColumnChunkWriter {
 public:
  virtual ~ColumnChunkWriter() = default;

  static Result<std::unique_ptr<ColumnChunkWriter>> Make(const LeafColumn& leaf,
                                                         const ColumnWriterOptions& options);

  // Appends rows [offset, offset + length) of `column`, the leaf's flat column (its type is the
  // leaf's source type; a required leaf's column has no nulls -- the caller checks both).
  virtual Status WriteFlat(const columnar::Column& column, int64_t offset, int64_t length) = 0;
  // Appends the rows of a nested leaf, shredded (record_shredder.h). Pages are cut only where a
  // row starts (repetition level 0): page row limits and the offset index count rows, a page's
  // num_values its level entries.
  virtual Status WriteShredded(const ShreddedLeaf& shredded) = 0;

  // Bytes held for the open chunk: finished pages (compressed), the open page, the dictionary.
  virtual int64_t buffered_bytes() const = 0;

  // The bytes the open chunk will take in the file: finished pages as written, the open page and
  // the dictionary at their estimates scaled by the calibration; without one, the estimates.
  virtual int64_t measured_bytes() const = 0;
  virtual SizeCalibration calibration() const = 0;
  // Whether measured_bytes can scale the open page (a page was finished, or a ratio was given).
  virtual bool calibrated() const = 0;
  // Ends the open page now (no-op when it holds no rows), so its bytes are known exactly.
  virtual Status ClosePage() = 0;
  // Pages of the open chunk, the open one included (for the page index's size).
  virtual int64_t pages() const = 0;

  // Ends the chunk, writes it to `sink` at sink->position() and starts an empty one.
  virtual Result<ColumnChunkResult> Flush(OutputSink* sink) = 0;
};

}  // namespace floe::parquet
