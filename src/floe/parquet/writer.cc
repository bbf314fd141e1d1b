#include "floe/parquet/writer.h"

#include <algorithm>
#include <cstring>

#include "floe/base/parallel_for.h"
#include "floe/parquet/build_id.h"  // generated at build time (scripts/build_id.cmake)
#include "floe/parquet/footer.h"
#include "floe/parquet/metadata_checksum.h"
#include "floe/parquet/page_index.h"

namespace floe::parquet {

std::string DefaultCreatedBy() {
  return fmt::format("floe version {} (build {})", FLOE_VERSION, FLOE_BUILD_ID);
}

ParquetWriter::~ParquetWriter() = default;

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(const columnar::SchemaPtr& schema,
                                                           OutputSink* sink,
                                                           WriterOptions options) {
  if (!schema) return InvalidInput("Parquet writer: no schema");
  if (sink == nullptr) return InvalidInput("Parquet writer: no output sink");
  if (options.row_group_size_bytes <= 0) {
    return InvalidInput("Parquet writer: row group size must be positive, not {}",
                        options.row_group_size_bytes);
  }
  if (options.row_group_row_limit && *options.row_group_row_limit <= 0) {
    return InvalidInput("Parquet writer: row group row limit must be positive, not {}",
                        *options.row_group_row_limit);
  }
  if (options.dictionary_size_limit < 0 || options.statistics_truncate_length < 0 ||
      options.column_index_truncate_length < 0 || options.bloom_filter_max_bytes < 0) {
    return InvalidInput(
        "Parquet writer: dictionary size limit, truncation lengths and Bloom filter size must "
        "not be negative");
  }
  std::unique_ptr<ParquetWriter> w(new ParquetWriter());
  w->columnar_schema_ = schema;
  w->sink_ = sink;
  w->options_ = std::move(options);
  const WriterOptions& o = w->options_;
  FLOE_ASSIGN_OR_RETURN(w->schema_, MakeWriteSchema(*schema, o.uuid_field_ids));

  CodecOptions codec_options;
  if (o.compression_level) {
    codec_options.zstd_level = *o.compression_level;
    codec_options.gzip_level = *o.compression_level;
    codec_options.brotli_quality = *o.compression_level;
  }
  FLOE_ASSIGN_OR_RETURN(w->codec_, MakeCodec(o.codec, codec_options));
  if (o.codec == CompressionCodec::kLz4 || o.codec == CompressionCodec::kLzo) {
    return Unsupported("Parquet writer: codec {} (write LZ4_RAW instead of LZ4)",
                       CompressionCodecName(o.codec));
  }

  for (const BloomFilterColumn& b : o.bloom_filter_columns) {
    bool found = std::any_of(w->schema_.leaves.begin(), w->schema_.leaves.end(),
                             [&](const LeafColumn& l) { return l.dotted_path() == b.path; });
    if (!found) return InvalidInput("Parquet writer: Bloom filter for unknown column '{}'", b.path);
    if (!(b.fpp > 0 && b.fpp < 1)) {
      return InvalidInput("Parquet writer: Bloom filter fpp for '{}' must be in (0, 1), not {}",
                          b.path, b.fpp);
    }
  }

  w->colocated_.assign(w->schema_.leaves.size(), false);
  for (const std::string& name : o.colocated_columns) {
    bool found = false;
    for (size_t i = 0; i < w->schema_.leaves.size(); ++i) {
      const LeafColumn& l = w->schema_.leaves[i];
      if (l.dotted_path() == name || l.path.front() == name) {
        w->colocated_[i] = true;
        found = true;
      }
    }
    if (!found)
      return InvalidInput("Parquet writer: co-located column '{}' is not in the schema", name);
  }

  for (const LeafColumn& leaf : w->schema_.leaves) {
    ColumnWriterOptions c;
    c.page_size_bytes = o.page_size_bytes;
    c.page_row_limit = o.page_row_limit;
    c.dictionary_size_limit = o.dictionary_size_limit;
    c.enable_dictionary = o.enable_dictionary;
    c.delta_binary_packed_for_integers = o.delta_binary_packed_for_integers;
    c.page_version = o.data_page_version;
    c.codec = w->codec_.get();
    c.statistics_truncate_length = o.statistics_truncate_length;
    c.column_index_truncate_length = o.column_index_truncate_length;
    c.write_page_index = o.write_page_index;
    c.write_page_header_statistics = o.write_page_header_statistics;
    c.write_page_checksums = o.write_page_checksums;
    c.bloom_filter_max_bytes = o.bloom_filter_max_bytes;
    for (const BloomFilterColumn& b : o.bloom_filter_columns) {
      if (b.path != leaf.dotted_path()) continue;
      c.bloom_filter = true;
      c.bloom_filter_fpp = b.fpp;
      c.bloom_filter_ndv = b.ndv;
    }
    const size_t leaf_index = w->column_options_.size();
    if (leaf_index < o.size_calibration.size()) {
      c.page_size_ratio = o.size_calibration[leaf_index].page_ratio;
      c.dictionary_size_ratio = o.size_calibration[leaf_index].dictionary_ratio;
    }
    w->column_options_.push_back(c);
  }
  // Column writers point at their options, so create them once the vector is complete.
  for (size_t i = 0; i < w->schema_.leaves.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(auto cw,
                          ColumnChunkWriter::Make(w->schema_.leaves[i], w->column_options_[i]));
    w->writers_.push_back(std::move(cw));
    w->file_statistics_.emplace_back(ValueOrder::For(w->schema_.leaves[i].element));
  }
  w->column_sizes_.assign(w->schema_.leaves.size(), 0);
  w->copied_values_.assign(w->schema_.leaves.size(), 0);
  w->copied_nulls_.assign(w->schema_.leaves.size(), 0);
  w->copied_.assign(w->schema_.leaves.size(), false);
  for (const LeafColumn& leaf : w->schema_.leaves) w->nested_ = w->nested_ || leaf.nested();

  w->metadata_.version = 1;
  w->metadata_.schema = w->schema_.elements;
  w->metadata_.key_value_metadata = o.key_value_metadata;
  w->metadata_.created_by = o.created_by;
  w->metadata_.column_orders.assign(w->schema_.leaves.size(), ColumnOrder::kTypeDefinedOrder);

  FLOE_RETURN_IF_ERROR(sink->Write(AsBytes(kParquetMagic)));
  return w;
}

Status ParquetWriter::CheckBatch(const columnar::RecordBatch& batch) const {
  const columnar::Schema& want = *columnar_schema_;
  if (batch.num_columns() != want.num_fields()) {
    return InvalidInput("Parquet writer: batch has {} columns, the file's schema {}",
                        batch.num_columns(), want.num_fields());
  }
  for (int i = 0; i < want.num_fields(); ++i) {
    const columnar::Field& f = want.fields[static_cast<size_t>(i)];
    const columnar::ColumnPtr& c = batch.column(i);
    if (!c) return InvalidInput("Parquet writer: column '{}' of the batch is missing", f.name);
    if (!(c->type == f.type)) {
      return InvalidInput("Parquet writer: column '{}' is {} in the batch, {} in the file", f.name,
                          c->type.ToString(), f.type.ToString());
    }
    if (c->length != batch.num_rows) {
      return InvalidInput("Parquet writer: column '{}' has {} rows, the batch {}", f.name,
                          c->length, batch.num_rows);
    }
    if (!f.nullable && c->null_count > 0) {
      return InvalidInput("Parquet writer: required column '{}' holds {} nulls", f.name,
                          c->null_count);
    }
  }
  return {};
}

int64_t ParquetWriter::BufferedBytes() const {
  int64_t total = 0;
  for (const auto& w : writers_) total += w->buffered_bytes();
  return total;
}

int64_t ParquetWriter::estimated_file_size() const {
  return sink_->position() + colocated_sink_.position() + BufferedBytes();
}

Status ParquetWriter::ForEachLeaf(bool concurrent, const std::function<Status(size_t)>& fn) {
  std::vector<Status> status(writers_.size());
  if (concurrent && options_.pool != nullptr && writers_.size() > 1) {
    ParallelFor(*options_.pool, writers_.size(), [&](size_t i) { status[i] = fn(i); });
  } else {
    for (size_t i = 0; i < writers_.size() && status[i].has_value(); ++i) {
      status[i] = fn(i);
      if (!status[i]) break;
    }
  }
  for (Status& s : status) {
    if (!s) {
      failed_ = true;
      return s;
    }
  }
  return {};
}

Result<int64_t> ParquetWriter::MeasureFileSize() {
  int64_t bytes = sink_->position() + colocated_sink_.position();
  int64_t pages = 0;
  FLOE_RETURN_IF_ERROR(ForEachLeaf(true, [this](size_t i) -> Status {
    return writers_[i]->calibrated() ? Status{} : writers_[i]->ClosePage();
  }));
  for (auto& w : writers_) {
    bytes += w->measured_bytes();
    pages += w->pages();
  }
  // Behind the data: what an earlier file of these columns took per chunk (page index, Bloom
  // filters, footer), or an estimate -- a page index entry per page (offset ~12 bytes, bounds at
  // most twice the truncation length), a footer entry per chunk (~100 bytes, path and bounds
  // besides), Bloom filters at their size.
  const int64_t leaves = static_cast<int64_t>(writers_.size());
  const int64_t row_groups = static_cast<int64_t>(metadata_.row_groups.size()) + 1;
  if (options_.tail_bytes_per_chunk > 0) {
    return bytes + static_cast<int64_t>(options_.tail_bytes_per_chunk *
                                        static_cast<double>(row_groups * leaves));
  }
  int64_t paths = 0;
  for (const LeafColumn& l : schema_.leaves) paths += static_cast<int64_t>(l.dotted_path().size());
  if (options_.write_page_index) bytes += pages * (16 + options_.statistics_truncate_length);
  bytes += row_groups * (leaves * (100 + 2 * options_.statistics_truncate_length) + paths);
  for (const auto& per_group : bloom_filters_) {
    for (const auto& b : per_group) {
      if (b) bytes += b->num_bytes();
    }
  }
  for (const ColumnWriterOptions& c : column_options_) {
    if (c.bloom_filter) bytes += c.bloom_filter_max_bytes / 4;  // the open chunk's, roughly
  }
  return bytes;
}

std::vector<SizeCalibration> ParquetWriter::Calibration() const {
  std::vector<SizeCalibration> out;
  out.reserve(writers_.size());
  for (const auto& w : writers_) out.push_back(w->calibration());
  return out;
}

Status ParquetWriter::Write(const columnar::RecordBatch& batch) {
  return Write(batch, 0, batch.num_rows);
}

Status ParquetWriter::Write(const columnar::RecordBatch& batch, int64_t offset, int64_t length) {
  if (closed_) return InvalidInput("Parquet writer: Write after Close");
  if (failed_) return InvalidInput("Parquet writer: Write after a failed write");
  FLOE_RETURN_IF_ERROR(CheckBatch(batch));
  if (offset < 0 || length < 0 || offset + length > batch.num_rows) {
    return InvalidInput("Parquet writer: rows [{}, {}) of a batch of {}", offset, offset + length,
                        batch.num_rows);
  }
  const int64_t end = offset + length;
  int64_t done = offset;
  while (done < end) {
    // Slices sized so a row group overshoots its byte target by little: the rows that still fit
    // at the bytes per row seen so far (this row group's, else the last one's), within
    // [512, 65536]; 1024 rows while nothing is known.
    int64_t n = end - done;
    if (options_.row_group_row_limit) {
      n = std::min(n, *options_.row_group_row_limit - row_group_rows_);
    }
    int64_t slice = 1024;
    const int64_t buffered = BufferedBytes();
    const double per_row = row_group_rows_ > 0
                               ? static_cast<double>(std::max<int64_t>(buffered, 1)) /
                                     static_cast<double>(row_group_rows_)
                               : last_bytes_per_row_;
    if (per_row > 0) {
      const double fit = static_cast<double>(options_.row_group_size_bytes - buffered) / per_row;
      slice = std::clamp<int64_t>(static_cast<int64_t>(fit), 512, 65536);
    }
    n = std::min(n, slice);
    // Nested leaves share the shredding scratch: a table with any is written leaf by leaf.
    FLOE_RETURN_IF_ERROR(ForEachLeaf(!nested_, [&](size_t i) -> Status {
      const LeafColumn& leaf = schema_.leaves[i];
      const columnar::Column& column = *batch.column(leaf.top_level_index);
      if (!leaf.nested()) return writers_[i]->WriteFlat(column, done, n);
      FLOE_RETURN_IF_ERROR(
          ShredLeaf(leaf, columnar_schema_->fields[static_cast<size_t>(leaf.top_level_index)],
                    column, done, n, &shredded_));
      return writers_[i]->WriteShredded(shredded_);
    }));
    row_group_rows_ += n;
    done += n;
    if ((options_.row_group_row_limit && row_group_rows_ >= *options_.row_group_row_limit) ||
        BufferedBytes() >= options_.row_group_size_bytes) {
      FLOE_RETURN_IF_ERROR(FlushRowGroup());
    }
  }
  return {};
}

Status ParquetWriter::WriteRowGroupWithCopies(const std::vector<columnar::ColumnPtr>& columns,
                                              int64_t offset, int64_t num_rows,
                                              std::vector<std::optional<CopiedChunk>> copied) {
  if (closed_) return InvalidInput("Parquet writer: WriteRowGroupWithCopies after Close");
  if (failed_) return InvalidInput("Parquet writer: WriteRowGroupWithCopies after a failed write");
  const columnar::Schema& want = *columnar_schema_;
  if (copied.size() != schema_.leaves.size() ||
      columns.size() != static_cast<size_t>(want.num_fields())) {
    return InvalidInput(
        "Parquet writer: a row group with copies needs {} chunks and {} columns, "
        "not {} and {}",
        schema_.leaves.size(), want.num_fields(), copied.size(), columns.size());
  }
  if (num_rows <= 0 || offset < 0) {
    return InvalidInput("Parquet writer: a row group with copies of {} rows from row {}", num_rows,
                        offset);
  }
  for (size_t i = 0; i < schema_.leaves.size(); ++i) {
    const LeafColumn& leaf = schema_.leaves[i];
    const auto top = static_cast<size_t>(leaf.top_level_index);
    const columnar::Field& f = want.fields[top];
    if (copied[i]) {
      const ColumnChunk& chunk = copied[i]->chunk;
      if (!chunk.meta_data || chunk.meta_data->type != leaf.physical_type() ||
          chunk.meta_data->path_in_schema != leaf.path) {
        return InvalidInput("Parquet writer: the chunk copied for column '{}' is of another column",
                            leaf.dotted_path());
      }
      const ColumnMetaData& md = *chunk.meta_data;
      if (static_cast<int64_t>(copied[i]->bytes.size()) != md.total_compressed_size ||
          (!leaf.nested() && md.num_values != num_rows) || !md.statistics ||
          !md.statistics->null_count) {
        return InvalidInput(
            "Parquet writer: the chunk copied for column '{}' does not hold {} "
            "rows with their null count",
            leaf.dotted_path(), num_rows);
      }
      continue;
    }
    const columnar::ColumnPtr& c = columns[top];
    if (!c || !(c->type == f.type) || c->length < offset + num_rows) {
      return InvalidInput("Parquet writer: column '{}' is not given as {} with {} rows from row {}",
                          f.name, f.type.ToString(), num_rows, offset);
    }
    if (!f.nullable && c->null_count > 0) {
      return InvalidInput("Parquet writer: required column '{}' holds {} nulls", f.name,
                          c->null_count);
    }
  }
  FLOE_RETURN_IF_ERROR(FlushRowGroup());
  FLOE_RETURN_IF_ERROR(ForEachLeaf(!nested_, [&](size_t i) -> Status {
    if (copied[i]) return {};
    const LeafColumn& leaf = schema_.leaves[i];
    const columnar::Column& column = *columns[static_cast<size_t>(leaf.top_level_index)];
    if (!leaf.nested()) return writers_[i]->WriteFlat(column, offset, num_rows);
    FLOE_RETURN_IF_ERROR(
        ShredLeaf(leaf, columnar_schema_->fields[static_cast<size_t>(leaf.top_level_index)], column,
                  offset, num_rows, &shredded_));
    return writers_[i]->WriteShredded(shredded_);
  }));
  row_group_rows_ = num_rows;
  return EndRowGroup(&copied);
}

Result<ColumnChunkResult> ParquetWriter::PlaceCopy(CopiedChunk c, size_t leaf) {
  OutputSink* sink = colocated_[leaf] ? &colocated_sink_ : sink_;
  ColumnChunk chunk = std::move(c.chunk);
  ColumnMetaData& md = *chunk.meta_data;
  const int64_t delta = sink->position() - md.chunk_start();
  FLOE_RETURN_IF_ERROR(sink->Write(c.bytes.view()));
  const bool has_dictionary = md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
                              *md.dictionary_page_offset < md.data_page_offset;
  if (has_dictionary) {
    *md.dictionary_page_offset += delta;
  } else {
    md.dictionary_page_offset.reset();
  }
  md.data_page_offset += delta;
  if (md.index_page_offset) *md.index_page_offset += delta;
  // Placed again, with this file's offsets, by Close.
  md.bloom_filter_offset.reset();
  md.bloom_filter_length.reset();
  chunk.column_index_offset.reset();
  chunk.column_index_length.reset();
  chunk.offset_index_offset.reset();
  chunk.offset_index_length.reset();
  chunk.file_offset = md.chunk_start();
  if (c.offset_index) {
    for (PageLocation& p : c.offset_index->page_locations) p.offset += delta;
  }
  copied_[leaf] = true;
  copied_values_[leaf] += md.num_values;
  copied_nulls_[leaf] += *md.statistics->null_count;
  ColumnChunkResult out{.chunk = std::move(chunk),
                        .column_index = std::move(c.column_index),
                        .offset_index = std::move(c.offset_index),
                        .bloom_filter = std::move(c.bloom_filter),
                        .statistics = StatisticsBuilder(file_statistics_[leaf].order())};
  return out;
}

Status ParquetWriter::FlushRowGroup() {
  if (closed_) return InvalidInput("Parquet writer: FlushRowGroup after Close");
  return EndRowGroup(nullptr);
}

Status ParquetWriter::EndRowGroup(std::vector<std::optional<CopiedChunk>>* copied) {
  if (row_group_rows_ == 0) return {};
  auto is_copy = [copied](size_t i) { return copied != nullptr && (*copied)[i].has_value(); };
  RowGroup rg;
  rg.num_rows = row_group_rows_;
  if (metadata_.row_groups.size() <= INT16_MAX) {
    rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  }
  std::vector<std::optional<BloomFilter>> blooms;
  std::vector<std::optional<ColumnIndex>> column_indexes;
  std::vector<std::optional<OffsetIndex>> offset_indexes;
  int64_t compressed = 0;
  // Each chunk's last page is encoded and compressed at once; the chunks then land in order.
  FLOE_RETURN_IF_ERROR(ForEachLeaf(
      true, [&](size_t i) -> Status { return is_copy(i) ? Status{} : writers_[i]->ClosePage(); }));
  // The chunks, then (when this is the last row group) the page index and footer: room for them
  // at once.
  int64_t chunks = BufferedBytes();
  for (size_t i = 0; i < writers_.size(); ++i) {
    if (is_copy(i)) chunks += static_cast<int64_t>((*copied)[i]->bytes.size());
  }
  sink_->Reserve(sink_->position() + chunks + chunks / 64 + (int64_t{16} << 10));
  for (size_t i = 0; i < writers_.size(); ++i) {
    auto result = is_copy(i) ? PlaceCopy(std::move(*(*copied)[i]), i)
                             : writers_[i]->Flush(colocated_[i] ? &colocated_sink_ : sink_);
    if (!result) {
      failed_ = true;
      return std::unexpected(result.error());
    }
    const ColumnMetaData& md = *result->chunk.meta_data;
    if (!colocated_[i] && !rg.file_offset) rg.file_offset = md.chunk_start();
    rg.total_byte_size += md.total_uncompressed_size;
    compressed += md.total_compressed_size;
    column_sizes_[i] += md.total_compressed_size;
    file_statistics_[i].Merge(result->statistics);
    rg.columns.push_back(std::move(result->chunk));
    blooms.push_back(std::move(result->bloom_filter));
    column_indexes.push_back(std::move(result->column_index));
    offset_indexes.push_back(std::move(result->offset_index));
  }
  rg.total_compressed_size = compressed;
  last_bytes_per_row_ = static_cast<double>(compressed) / static_cast<double>(row_group_rows_);
  metadata_.row_groups.push_back(std::move(rg));
  bloom_filters_.push_back(std::move(blooms));
  column_indexes_.push_back(std::move(column_indexes));
  offset_indexes_.push_back(std::move(offset_indexes));
  rows_written_ += row_group_rows_;
  row_group_rows_ = 0;
  return {};
}

Status ParquetWriter::PlaceColocatedChunks() {
  if (colocated_sink_.position() == 0) return {};
  const int64_t base = sink_->position();
  FLOE_RETURN_IF_ERROR(sink_->Write(colocated_sink_.bytes()));
  auto shift = [base](std::optional<int64_t>& offset) {
    if (offset) *offset += base;
  };
  for (size_t r = 0; r < metadata_.row_groups.size(); ++r) {
    RowGroup& rg = metadata_.row_groups[r];
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      if (!colocated_[c]) continue;
      ColumnChunk& chunk = rg.columns[c];
      ColumnMetaData& md = *chunk.meta_data;
      md.data_page_offset += base;
      shift(md.dictionary_page_offset);
      shift(md.index_page_offset);
      chunk.file_offset += base;
      if (offset_indexes_[r][c]) {
        for (PageLocation& p : offset_indexes_[r][c]->page_locations) p.offset += base;
      }
    }
    // A row group of only co-located columns starts where its first chunk now is.
    if (!rg.file_offset) rg.file_offset = rg.columns.front().meta_data->chunk_start();
  }
  colocated_sink_ = MemorySink();
  return {};
}

Result<WrittenFile> ParquetWriter::Close() {
  if (closed_) return InvalidInput("Parquet writer: Close called twice");
  if (failed_) return InvalidInput("Parquet writer: Close after a failed write");
  FLOE_RETURN_IF_ERROR(FlushRowGroup());
  closed_ = true;
  FLOE_RETURN_IF_ERROR(PlaceColocatedChunks());

  const int64_t data_end = sink_->position();
  // Bloom filters, then column indexes, then offset indexes, each in row group order: behind
  // all data, in front of the footer, where a reader fetches them with the footer's tail.
  for (size_t r = 0; r < metadata_.row_groups.size(); ++r) {
    for (size_t c = 0; c < writers_.size(); ++c) {
      if (!bloom_filters_[r][c]) continue;
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, bloom_filters_[r][c]->Serialize());
      ColumnMetaData& md = *metadata_.row_groups[r].columns[c].meta_data;
      md.bloom_filter_offset = sink_->position();
      md.bloom_filter_length = static_cast<int32_t>(bytes.size());
      FLOE_RETURN_IF_ERROR(sink_->Write(bytes));
    }
  }
  // Their CRCs, per chunk: metadata_checksum.h.
  std::vector<std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>>> crcs(
      metadata_.row_groups.size(),
      std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>>(writers_.size()));
  bool any_index = false;
  for (size_t r = 0; r < metadata_.row_groups.size(); ++r) {
    for (size_t c = 0; c < writers_.size(); ++c) {
      if (!column_indexes_[r][c]) continue;
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                            SerializeColumnIndex(*column_indexes_[r][c]));
      crcs[r][c].first = Crc32(bytes);
      any_index = true;
      ColumnChunk& chunk = metadata_.row_groups[r].columns[c];
      chunk.column_index_offset = sink_->position();
      chunk.column_index_length = static_cast<int32_t>(bytes.size());
      FLOE_RETURN_IF_ERROR(sink_->Write(bytes));
    }
  }
  for (size_t r = 0; r < metadata_.row_groups.size(); ++r) {
    for (size_t c = 0; c < writers_.size(); ++c) {
      if (!offset_indexes_[r][c]) continue;
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                            SerializeOffsetIndex(*offset_indexes_[r][c]));
      crcs[r][c].second = Crc32(bytes);
      any_index = true;
      ColumnChunk& chunk = metadata_.row_groups[r].columns[c];
      chunk.offset_index_offset = sink_->position();
      chunk.offset_index_length = static_cast<int32_t>(bytes.size());
      FLOE_RETURN_IF_ERROR(sink_->Write(bytes));
    }
  }
  metadata_.num_rows = rows_written_;
  if (options_.write_metadata_checksums) {
    if (any_index)
      metadata_.key_value_metadata.push_back(
          {std::string(kPageIndexCrcKey), PageIndexCrcValue(crcs)});
    metadata_.key_value_metadata.push_back({std::string(kFooterCrcKey), "00000000"});
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> footer, SerializeFileMetaData(metadata_));
  if (options_.write_metadata_checksums) {
    FLOE_ASSIGN_OR_RETURN(metadata_.key_value_metadata.back().value, SealFooter(&footer));
  }
  FLOE_RETURN_IF_ERROR(sink_->Write(footer));
  const uint32_t footer_len = static_cast<uint32_t>(footer.size());
  uint8_t trailer[8];
  std::memcpy(trailer, &footer_len, 4);
  std::memcpy(trailer + 4, kParquetMagic.data(), 4);
  FLOE_RETURN_IF_ERROR(sink_->Write(ByteView(trailer, 8)));
  FLOE_RETURN_IF_ERROR(sink_->Close());
  const int64_t chunks = static_cast<int64_t>(metadata_.row_groups.size() * writers_.size());
  if (chunks > 0) {
    tail_bytes_per_chunk_ =
        static_cast<double>(sink_->position() - data_end) / static_cast<double>(chunks);
  }

  WrittenFile out;
  out.file_size = sink_->position();
  out.num_rows = rows_written_;
  for (const RowGroup& rg : metadata_.row_groups) {
    out.split_offsets.push_back(rg.file_offset.value_or(0));
    out.row_group_rows.push_back(rg.num_rows);
  }
  for (size_t c = 0; c < schema_.leaves.size(); ++c) {
    const LeafColumn& leaf = schema_.leaves[c];
    const StatisticsBuilder& s = file_statistics_[c];
    ColumnMetrics m;
    m.path = leaf.path;
    m.field_id = leaf.field_id;
    m.max_repetition_level = leaf.max_repetition_level;
    m.physical_type = leaf.physical_type();
    m.logical_type = leaf.element.logical_type;
    m.compressed_size = column_sizes_[c];
    m.num_values = s.null_count() + s.non_null_count() + copied_values_[c];
    m.null_count = s.null_count() + copied_nulls_[c];
    m.copied = copied_[c];
    if (!m.copied) {
      if (s.order().kind == ValueOrder::Kind::kFloat) m.nan_count = s.nan_count();
      if (s.has_min_max()) {
        m.min = s.EncodeMin();
        m.max = s.EncodeMax();
      }
      Statistics truncated = s.ToStatistics(options_.statistics_truncate_length);
      m.min_truncated = truncated.min_value;
      m.max_truncated = truncated.max_value;
    }
    out.columns.push_back(std::move(m));
  }
  out.metadata = metadata_;
  return out;
}

}  // namespace floe::parquet
