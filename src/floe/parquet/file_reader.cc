#include "floe/parquet/file_reader.h"

#include <fmt/format.h>

#include "floe/parquet/column_chunk_reader.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/record_assembler.h"

namespace floe::parquet {

struct FileReader::Impl {
  std::string path;
  uint64_t file_length = 0;
  uint64_t data_end = 0;
  FileMetaData metadata;
  ParquetSchema schema;

  PlanInput Input() const {
    PlanInput in;
    in.path = path;
    in.file_length = file_length;
    in.data_end = data_end;
    in.metadata = &metadata;
    in.schema = &schema;
    return in;
  }
};

Result<FileReader::Opened> FileReader::Open(std::string path, uint64_t file_length, ByteView tail) {
  FLOE_ASSIGN_OR_RETURN(FooterTail footer, ParseFooter(path, file_length, tail));
  Opened out;
  out.tail_length_needed = footer.tail_length_needed;
  if (!footer.metadata) return out;
  FLOE_ASSIGN_OR_RETURN(
      FileReader reader,
      Make(std::move(path), file_length, std::move(*footer.metadata), footer.metadata_offset));
  out.reader = std::move(reader);
  return out;
}

Result<FileReader> FileReader::Make(std::string path, uint64_t file_length, FileMetaData metadata,
                                    uint64_t data_end) {
  auto impl = std::make_shared<Impl>();
  impl->path = std::move(path);
  impl->file_length = file_length;
  impl->data_end =
      data_end > 0 ? data_end
                   : (file_length >= kFooterTrailerLength ? file_length - kFooterTrailerLength : 0);
  impl->metadata = std::move(metadata);
  auto schema = ParquetSchema::Make(impl->metadata);
  if (!schema) {
    Error e = std::move(schema).error();
    e.message = fmt::format("parquet file '{}': {}", impl->path, e.message);
    return std::unexpected(std::move(e));
  }
  impl->schema = std::move(*schema);
  return FileReader(std::move(impl));
}

const std::string& FileReader::path() const { return impl_->path; }
uint64_t FileReader::file_length() const { return impl_->file_length; }
const FileMetaData& FileReader::metadata() const { return impl_->metadata; }
const ParquetSchema& FileReader::schema() const { return impl_->schema; }

Result<ReadPlan> FileReader::Plan(const ReadOptions& options) const {
  return MakeReadPlan(impl_->Input(), options);
}

Status FileReader::ApplyPageIndex(const FetchedBytes& index_bytes, ReadPlan* plan) const {
  return parquet::ApplyPageIndex(impl_->Input(), index_bytes, plan);
}

Result<bool> FileReader::ReplanIfIndexDisagrees(const ReadOptions& options,
                                                const FetchedBytes& bytes, ReadPlan* plan) const {
  Status st = VerifyPageIndex(impl_->Input(), bytes, *plan);
  if (st) return false;
  if (st.error().kind != ErrorKind::kCorrupt) return std::unexpected(std::move(st).error());
  ReadOptions without = options;
  without.use_page_index = false;
  FLOE_ASSIGN_OR_RETURN(ReadPlan replanned, Plan(without));
  replanned.counts.metadata_rejected += plan->counts.metadata_rejected + 1;
  replanned.first_rejection =
      !plan->first_rejection.empty()
          ? plan->first_rejection
          : fmt::format("{}; the file was read without its page index", st.error().message);
  *plan = std::move(replanned);
  return true;
}

Status FileReader::CheckPageHeaders(const FetchedBytes& bytes, ReadPlan* plan) const {
  for (RowGroupPlan& rg : plan->row_groups) {
    const RowGroup& meta_rg = impl_->metadata.row_groups[static_cast<size_t>(rg.row_group)];
    for (ColumnChunkPlan& c : rg.columns) {
      if (c.paged || c.headers_checked) continue;
      const ColumnMetaData& meta = *meta_rg.columns[static_cast<size_t>(c.column)].meta_data;
      auto chunk = bytes.Find(c.chunk);
      if (!chunk) chunk = bytes.Find(ByteRange{meta.chunk_start(), meta.total_compressed_size});
      if (!chunk) continue;  // decoding reports the missing bytes
      if (auto st = parquet::CheckPageHeaders(chunk->view(), c.chunk.offset, meta.num_values);
          !st) {
        Error e = std::move(st).error();
        e.message = fmt::format("parquet file '{}': column '{}' of row group {}: {}", impl_->path,
                                impl_->schema.leaves()[static_cast<size_t>(c.column)].path,
                                rg.row_group, e.message);
        return std::unexpected(std::move(e));
      }
      c.headers_checked = true;
    }
  }
  return {};
}

struct BatchReader::State {
  std::shared_ptr<const FileReader::Impl> file;
  ReadPlan plan;
  FetchedBytes bytes;
  size_t next_rg = 0;  // index into plan.row_groups of the row group to open next
  const RowGroupPlan* rg = nullptr;
  std::vector<ColumnChunkReader> readers;        // parallel to rg->columns
  size_t range = 0;                              // current entry of rg->rows
  int64_t cursor = 0;                            // next row within it
  std::vector<ColumnDescriptor> matched_leaves;  // the schema's, with plan.matchers' as uint8

  std::unexpected<Error> InColumn(int column, Error e) const {
    e.message = fmt::format("parquet file '{}': column '{}' of row group {}: {}", file->path,
                            file->schema.leaves()[column].path, rg ? rg->row_group : -1, e.message);
    return std::unexpected(std::move(e));
  }

  Status OpenRowGroup(const RowGroupPlan& next) {
    rg = &next;
    readers.clear();
    range = 0;
    cursor = next.rows.empty() ? 0 : next.rows[0].begin;
    const RowGroup& meta_rg = file->metadata.row_groups[static_cast<size_t>(next.row_group)];
    for (const ColumnChunkPlan& c : next.columns) {
      ChunkReaderOptions options;
      options.verify_checksums = plan.verify_checksums;
      if (auto m = plan.matchers.find(c.column); m != plan.matchers.end()) {
        options.matcher = &m->second;
      }
      const ColumnDescriptor& leaf = file->schema.leaves()[c.column];
      const ColumnMetaData& meta = *meta_rg.columns[static_cast<size_t>(c.column)].meta_data;
      ChunkSource src;
      if (!c.paged) {
        // A widened range may pass the bytes a caller fetched for the declared one.
        ByteRange declared{meta.chunk_start(), meta.total_compressed_size};
        auto chunk = bytes.Find(c.chunk);
        if (!chunk) chunk = bytes.Find(declared);
        if (!chunk) {
          return InColumn(c.column, Error{ErrorKind::kInvalidInput,
                                          fmt::format("the bytes {} of the column chunk were "
                                                      "not supplied",
                                                      c.chunk.ToString())});
        }
        src.chunk = std::move(*chunk);
        src.chunk_offset = c.chunk.offset;
        src.headers_checked = c.headers_checked;
      } else {
        src.paged = true;
        if (c.dictionary) {
          auto d = bytes.Get(*c.dictionary, "the dictionary page");
          if (!d) return InColumn(c.column, std::move(d).error());
          src.dictionary = std::move(*d);
          src.dictionary_offset = c.dictionary->offset;
        }
        for (const PagePlan& p : c.pages) {
          auto b = bytes.Get(p.range, "a data page");
          if (!b) return InColumn(c.column, std::move(b).error());
          src.pages.push_back({std::move(*b), p.range.offset, p.first_row, p.num_rows});
        }
      }
      auto reader = ColumnChunkReader::Make(leaf, meta, next.num_rows, std::move(src), options);
      if (!reader) return InColumn(c.column, std::move(reader).error());
      readers.push_back(std::move(*reader));
    }
    return {};
  }

  Result<std::optional<columnar::RecordBatch>> Next() {
    while (rg == nullptr || range >= rg->rows.size()) {
      if (next_rg >= plan.row_groups.size()) return std::nullopt;
      FLOE_RETURN_IF_ERROR(OpenRowGroup(plan.row_groups[next_rg++]));
    }
    const size_t n_leaves = file->schema.leaves().size();
    std::vector<LeafBatch> batches(rg->columns.size());
    std::vector<LeafBatch*> by_leaf(n_leaves, nullptr);
    for (size_t i = 0; i < rg->columns.size(); ++i) by_leaf[rg->columns[i].column] = &batches[i];
    // The batch's rows, over as many of the row group's ranges as it takes: every column is
    // sized for them once, not copied as it grows range by range (a filtered read's ranges may
    // be a page or a few rows each).
    int64_t planned = std::min(plan.batch_rows, rg->rows[range].end - cursor);
    for (size_t x = range + 1; x < rg->rows.size() && planned < plan.batch_rows; ++x) {
      planned = std::min(plan.batch_rows, planned + rg->rows[x].end - rg->rows[x].begin);
    }
    if (range + 1 < rg->rows.size()) {
      for (size_t i = 0; i < readers.size(); ++i) readers[i].ReserveRows(planned, &batches[i]);
    }
    int64_t rows = 0;
    while (rows < plan.batch_rows && range < rg->rows.size()) {
      const RowRange& r = rg->rows[range];
      const int64_t k = std::min(plan.batch_rows - rows, r.end - cursor);
      for (size_t i = 0; i < readers.size(); ++i) {
        const int column = rg->columns[i].column;
        if (auto st = readers[i].SkipTo(cursor); !st)
          return InColumn(column, std::move(st).error());
        auto got = readers[i].ReadRows(k, &batches[i]);
        if (!got) return InColumn(column, std::move(got).error());
        if (*got != k) {
          return InColumn(column, Error{ErrorKind::kCorrupt,
                                        fmt::format("the chunk ends at row {}; the row group has "
                                                    "{} rows",
                                                    cursor + *got, rg->num_rows)});
        }
      }
      rows += k;
      cursor += k;
      if (cursor == r.end) {
        ++range;
        if (range < rg->rows.size()) cursor = rg->rows[range].begin;
      }
    }
    columnar::RecordBatch batch;
    batch.schema = plan.schema;
    batch.num_rows = rows;
    if (!plan.matchers.empty() && matched_leaves.empty()) {
      // Matched leaves come out as uint8 flags, copied through as fixed-width bytes.
      matched_leaves = file->schema.leaves();
      for (const auto& [leaf, m] : plan.matchers) {
        matched_leaves[static_cast<size_t>(leaf)].type = columnar::UInt8();
        matched_leaves[static_cast<size_t>(leaf)].conversion = ReadConversion::kCopy;
      }
    }
    const std::vector<ColumnDescriptor>& leaves =
        plan.matchers.empty() ? file->schema.leaves() : matched_leaves;
    for (const FieldNode& field : plan.fields) {
      auto column = AssembleColumn(field, leaves, by_leaf);
      if (!column) return InColumn(field.leaf, std::move(column).error());
      if ((*column)->length != rows) {
        return InColumn(field.leaf, Error{ErrorKind::kCorrupt,
                                          fmt::format("field '{}' has {} values for {} rows",
                                                      field.path, (*column)->length, rows)});
      }
      batch.columns.push_back(std::move(*column));
    }
    return batch;
  }
};

BatchReader::BatchReader(std::unique_ptr<State> state) : s_(std::move(state)) {}
BatchReader::BatchReader(BatchReader&&) noexcept = default;
BatchReader& BatchReader::operator=(BatchReader&&) noexcept = default;
BatchReader::~BatchReader() = default;

Result<std::optional<columnar::RecordBatch>> BatchReader::Next() { return s_->Next(); }

Result<BatchReader> FileReader::Decode(ReadPlan plan, FetchedBytes bytes) const {
  if (plan.index_pending) {
    return InvalidInput("parquet file '{}': the plan's page index step was not applied",
                        impl_->path);
  }
  auto state = std::make_unique<BatchReader::State>();
  state->file = impl_;
  state->plan = std::move(plan);
  state->bytes = std::move(bytes);
  return BatchReader(std::move(state));
}

Result<std::vector<columnar::RecordBatch>> FileReader::ReadAll(ReadPlan plan,
                                                               FetchedBytes bytes) const {
  FLOE_ASSIGN_OR_RETURN(BatchReader reader, Decode(std::move(plan), std::move(bytes)));
  std::vector<columnar::RecordBatch> out;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(auto batch, reader.Next());
    if (!batch) break;
    out.push_back(std::move(*batch));
  }
  return out;
}

}  // namespace floe::parquet
