// ParquetWriter: streams columnar RecordBatches into one Parquet file on an OutputSink and, at
// Close, hands back the file's metrics (sizes, counts, exact bounds, split offsets) so Iceberg
// manifests need no re-read. Not thread safe; the caller owns the sink.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/parquet/column_writer.h"
#include "floe/parquet/compression.h"
#include "floe/parquet/copied_chunk.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/write_schema.h"

namespace floe {
class ThreadPool;
}  // namespace floe

namespace floe::parquet {

// "floe version 0.1.0 (build 1a2b3c4d5e6f)": the created_by string of floe's files.
std::string DefaultCreatedBy();

struct BloomFilterColumn {
  std::string path;            // column name ("a" -- dotted for nested columns)
  double fpp = 0.01;           // Iceberg's write.parquet.bloom-filter-fpp default
  std::optional<int64_t> ndv;  // absent: sized from each chunk's own distinct count
};

// Defaults are Iceberg's write.parquet.* defaults where Iceberg has one.
struct WriterOptions {
  int64_t row_group_size_bytes = int64_t{128} << 20;  // write.parquet.row-group-size-bytes
  std::optional<int64_t> row_group_row_limit;         // none by default (Iceberg has none)
  int64_t page_size_bytes = int64_t{1} << 20;         // write.parquet.page-size-bytes
  int64_t page_row_limit = 20'000;                    // write.parquet.page-row-limit
  int64_t dictionary_size_limit = int64_t{2} << 20;   // write.parquet.dict-size-bytes
  bool enable_dictionary = true;
  // Non-dictionary INT32/INT64 pages use DELTA_BINARY_PACKED when it is smaller than PLAIN.
  bool delta_binary_packed_for_integers = true;
  CompressionCodec codec = CompressionCodec::kZstd;  // write.parquet.compression-codec
  std::optional<int> compression_level;              // write.parquet.compression-level
  // BYTE_ARRAY min/max in the footer statistics are cut to this many bytes (0: never), the
  // upper bound incremented. Iceberg's own metrics truncation (truncate(16)) is separate: the
  // caller gets untruncated bounds in WrittenFile.
  int32_t statistics_truncate_length = 16;
  // The same for the ColumnIndex (parquet-mr's parquet.columnindex.truncate.length).
  int32_t column_index_truncate_length = 64;
  bool write_page_index = true;               // ColumnIndex + OffsetIndex for every column chunk
  bool write_page_header_statistics = false;  // page headers repeat the ColumnIndex entry
  // CRC-32 of the stored bytes in every page header: readers verify it, and it makes a flipped
  // page byte an error instead of a different value.
  bool write_page_checksums = true;
  // CRC-32s of the footer and of each column and offset index in the footer's key-value
  // metadata (metadata_checksum.h), which floe's reader checks: statistics and page indexes
  // decide which rows are read, and Parquet protects neither.
  bool write_metadata_checksums = true;
  DataPageVersion data_page_version = DataPageVersion::kV1;
  std::vector<BloomFilterColumn> bloom_filter_columns;  // bloom filters are off by default
  int64_t bloom_filter_max_bytes = int64_t{1} << 20;    // write.parquet.bloom-filter-max-bytes
  // Leaves (dotted paths, or a top-level name for all its leaves) whose column chunks are written
  // together behind the row groups, interleaved by row group ([a_0, b_0, a_1, b_1, ...]), instead
  // of inside each row group. A scan of only these columns then reads one contiguous range over
  // many small row groups, while a lookup of one row group reads its other columns as one range
  // and these as a second. Chunk offsets say where every chunk is, so any Parquet reader reads
  // the file; only the physical order differs. Empty: the usual row-group-major layout.
  std::vector<std::string> colocated_columns;
  // fixed_size_binary(16) fields with these ids are annotated UUID.
  std::vector<int32_t> uuid_field_ids;
  std::vector<KeyValue> key_value_metadata;
  // Per leaf, from an earlier file's writer (ParquetWriter::Calibration): how written bytes
  // compare with estimates, so MeasureFileSize is right from the first row. Empty: learnt.
  std::vector<SizeCalibration> size_calibration;
  // Bytes behind the data (page index, Bloom filters, footer) per column chunk, from an earlier
  // file (ParquetWriter::tail_bytes_per_chunk); 0: estimated.
  double tail_bytes_per_chunk = 0;
  std::string created_by = DefaultCreatedBy();
  // Encodes the leaves at once on this pool (each leaf's chunk writer is independent; the file's
  // bytes are the same as on one thread); nullptr: on the caller's thread. Not owned.
  ThreadPool* pool = nullptr;
};

// What the Iceberg layer needs of one leaf column, over the whole file.
struct ColumnMetrics {
  std::vector<std::string> path;
  int32_t field_id = -1;
  int16_t max_repetition_level = 0;  // > 0: under a list or map
  PhysicalType physical_type = PhysicalType::kInt64;
  std::optional<LogicalType> logical_type;
  int64_t compressed_size = 0;  // all chunks, page headers included (Iceberg column_sizes)
  int64_t num_values = 0;       // nulls included (value_counts); level entries for a nested leaf
  int64_t null_count = 0;       // nested: entries below the maximum definition level
  std::optional<int64_t> nan_count;  // FLOAT/DOUBLE only
  // Exact bounds, NaN excluded, as PLAIN bytes of the physical type (no length prefix; INT32
  // decimals 4 bytes little-endian, FIXED decimals big-endian); absent when all null/NaN.
  std::optional<std::string> min;
  std::optional<std::string> max;
  // What the footer carries after statistics truncation (max absent when it could not be
  // incremented).
  std::optional<std::string> min_truncated;
  std::optional<std::string> max_truncated;
  // Some of the leaf's chunks were copied from another file (WriteRowGroupWithCopies): the
  // counts and size above are whole, but there are no bounds and no NaN count -- that file's
  // footer may hold truncated ones; the caller has its own metrics of it.
  bool copied = false;
};

struct WrittenFile {
  int64_t file_size = 0;
  int64_t num_rows = 0;
  std::vector<int64_t> split_offsets;  // file offset of each row group's first column chunk
  std::vector<int64_t> row_group_rows;
  std::vector<ColumnMetrics> columns;  // one per leaf, in schema order
  FileMetaData metadata;               // the footer as written
};

class ParquetWriter {
 public:
  // Writes the leading magic to `sink` (which must outlive the writer).
  static Result<std::unique_ptr<ParquetWriter>> Open(const columnar::SchemaPtr& schema,
                                                     OutputSink* sink, WriterOptions options = {});
  ~ParquetWriter();

  // Appends the batch's rows; its columns must have the writer's types, and required columns no
  // nulls. A batch failing those checks leaves the writer as it was; an error while encoding
  // (a decimal past its precision, a sink failure) abandons the file: later calls fail.
  Status Write(const columnar::RecordBatch& batch);
  // Rows [offset, offset + length) of the batch, as Write of a copy of them would (no copy).
  Status Write(const columnar::RecordBatch& batch, int64_t offset, int64_t length);
  // Ends the open row group, then writes one row group of `num_rows` rows whose leaf i is
  // `copied[i]` when that is set -- a chunk of another file's row group of as many rows, placed
  // as it is (copied_chunk.h) -- and otherwise encoded from rows [offset, offset + num_rows) of
  // `columns`, the writer's top-level columns (one whose leaves are all copied may be null).
  // A rewrite that changes a few columns of a file keeps its row groups and copies the rest.
  Status WriteRowGroupWithCopies(const std::vector<columnar::ColumnPtr>& columns, int64_t offset,
                                 int64_t num_rows, std::vector<std::optional<CopiedChunk>> copied);
  // Ends the open row group now (no-op when it is empty).
  Status FlushRowGroup();
  // Ends the last row group, writes Bloom filters, page index and footer; the writer is done.
  Result<WrittenFile> Close();

  int64_t num_rows() const { return rows_written_ + row_group_rows_; }
  // Bytes written plus bytes buffered for the open row group, as buffered (values roughly
  // encoded, uncompressed): an upper bound of what the file would be now.
  int64_t estimated_file_size() const;
  // What the file would be if closed now, for cutting files at a target size: bytes written,
  // finished pages as written, the open pages and dictionaries scaled by the bytes finished pages
  // took per estimated byte, and the page index and footer. A column that has finished no page
  // (and was given no calibration) finishes its open page first, to measure it.
  Result<int64_t> MeasureFileSize();
  // Per leaf, what this writer learnt, for the next file's WriterOptions::size_calibration.
  std::vector<SizeCalibration> Calibration() const;
  // After Close: the bytes behind the data per column chunk, for the next file's options.
  double tail_bytes_per_chunk() const { return tail_bytes_per_chunk_; }
  const WriteSchema& write_schema() const { return schema_; }

 private:
  ParquetWriter() = default;
  Status CheckBatch(const columnar::RecordBatch& batch) const;
  // Ends the open row group: its leaves' chunks as encoded, or copied[i] in place of leaf i's
  // when `copied` is given and that is set.
  Status EndRowGroup(std::vector<std::optional<CopiedChunk>>* copied);
  // Writes `c` at the end of leaf `leaf`'s sink; its metadata and page index, moved there.
  Result<ColumnChunkResult> PlaceCopy(CopiedChunk c, size_t leaf);
  int64_t BufferedBytes() const;
  // Close: writes the co-located chunks at the current position and makes their offsets absolute.
  Status PlaceColocatedChunks();
  // fn(leaf) for every leaf, at once on options_.pool when there is one and `concurrent`; the
  // first error (in leaf order) marks the writer failed.
  Status ForEachLeaf(bool concurrent, const std::function<Status(size_t)>& fn);

  columnar::SchemaPtr columnar_schema_;
  OutputSink* sink_ = nullptr;
  WriterOptions options_;
  WriteSchema schema_;
  std::unique_ptr<Codec> codec_;
  std::vector<ColumnWriterOptions> column_options_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> writers_;
  int64_t row_group_rows_ = 0;
  int64_t rows_written_ = 0;
  double last_bytes_per_row_ = 0;  // of the last row group written, to size the next's slices
  double tail_bytes_per_chunk_ = 0;
  bool closed_ = false;
  bool failed_ = false;

  FileMetaData metadata_;
  // Per row group, per leaf: kept until Close writes them behind the data.
  std::vector<std::vector<std::optional<BloomFilter>>> bloom_filters_;
  std::vector<std::vector<std::optional<ColumnIndex>>> column_indexes_;
  std::vector<std::vector<std::optional<OffsetIndex>>> offset_indexes_;
  std::vector<StatisticsBuilder> file_statistics_;  // per leaf
  std::vector<int64_t> column_sizes_;
  // Per leaf, the levels and nulls of its copied chunks, and whether it has any.
  std::vector<int64_t> copied_values_, copied_nulls_;
  std::vector<bool> copied_;
  // colocated_columns: which leaves, and their chunks so far (offsets relative to the buffer
  // until Close writes it behind the row groups and shifts them).
  std::vector<bool> colocated_;
  MemorySink colocated_sink_;
  ShreddedLeaf shredded_;  // scratch
  bool nested_ = false;    // a leaf under a list, map or struct: written one leaf at a time
};

}  // namespace floe::parquet
