#include "floe/iceberg/delete_writer.h"

#include <algorithm>

#include "floe/base/clock.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/delete_index.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/puffin.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/writer.h"

namespace floe::iceberg {
namespace {

Result<parquet::WrittenFile> WriteParquet(const FileIO& io, const std::string& location,
                                          const columnar::RecordBatch& batch) {
  parquet::MemorySink sink;
  parquet::WriterOptions options;
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(batch.schema, &sink, options));
  FLOE_RETURN_IF_ERROR(writer->Write(batch));
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
  const Buffer bytes = sink.ToBuffer();
  FLOE_RETURN_IF_ERROR(io.Write(location, bytes.view()));
  written.file_size = static_cast<int64_t>(bytes.size());
  return written;
}

// The manifest entry's file of a Parquet delete file of `rows` rows written at `location`.
DataFile ParquetDeleteFile(FileContent content, const std::string& location,
                           const parquet::WrittenFile& written, int64_t written_at_ms, int64_t rows,
                           std::vector<Literal> partition) {
  DataFile f;
  f.content = content;
  f.file_path = location;
  f.partition = std::move(partition);
  f.record_count = rows;
  f.file_size_in_bytes = written.file_size;
  f.split_offsets = written.split_offsets;
  f.written_at_ms = written_at_ms;
  return f;
}

}  // namespace

Result<DataFile> WritePositionDeleteFile(const FileIO& io, const std::string& location,
                                         std::vector<std::pair<std::string, int64_t>> deletes,
                                         std::vector<Literal> partition) {
  std::sort(deletes.begin(), deletes.end());
  deletes.erase(std::unique(deletes.begin(), deletes.end()), deletes.end());
  if (deletes.empty()) return InvalidInput("a position delete file needs at least one position");
  auto schema = std::make_shared<columnar::Schema>();
  schema->fields.push_back({"file_path", columnar::String(), false, kDeleteFilePathFieldId});
  schema->fields.push_back({"pos", columnar::Int64(), false, kDeletePosFieldId});
  columnar::BinaryBuilder paths;
  columnar::FixedWidthBuilder<int64_t> pos(columnar::Int64());
  for (const auto& [path, p] : deletes) {
    if (p < 0) return InvalidInput("position {} of '{}' is negative", p, path);
    FLOE_RETURN_IF_ERROR(paths.Append(path));
    pos.Append(p);
  }
  columnar::RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(deletes.size());
  batch.columns = {paths.Finish(), pos.Finish()};
  const int64_t written_at_ms = UnixMillisNow();  // before the put: orphan removal's age floor
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, WriteParquet(io, location, batch));

  DataFile f = ParquetDeleteFile(FileContent::kPositionDeletes, location, written, written_at_ms,
                                 batch.num_rows, std::move(partition));
  for (int32_t id : {kDeleteFilePathFieldId, kDeletePosFieldId}) {
    f.value_counts[id] = batch.num_rows;
    f.null_value_counts[id] = 0;
  }
  f.lower_bounds[kDeleteFilePathFieldId] = deletes.front().first;
  f.upper_bounds[kDeleteFilePathFieldId] = deletes.back().first;
  int64_t lo = deletes.front().second, hi = lo;
  for (const auto& d : deletes) {
    lo = std::min(lo, d.second);
    hi = std::max(hi, d.second);
  }
  f.lower_bounds[kDeletePosFieldId] = SerializeBound(Literal::Long(lo));
  f.upper_bounds[kDeletePosFieldId] = SerializeBound(Literal::Long(hi));
  if (deletes.front().first == deletes.back().first) f.referenced_data_file = deletes.front().first;
  return f;
}

Result<std::vector<DataFile>> WriteDeletionVectors(
    const FileIO& io, const std::string& location,
    const std::map<std::string, std::vector<int64_t>>& positions,
    const std::map<std::string, std::vector<Literal>>& partitions) {
  PuffinWriter puffin;
  std::vector<DataFile> out;
  for (const auto& [data_file, rows] : positions) {
    auto partition = partitions.find(data_file);
    if (partition == partitions.end()) {
      return InvalidInput("no partition given for the deletion vector of '{}'", data_file);
    }
    std::vector<int64_t> sorted = rows;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (sorted.empty()) return InvalidInput("the deletion vector of '{}' is empty", data_file);
    FLOE_ASSIGN_OR_RETURN(std::string blob, EncodeDeletionVector(sorted));
    const PuffinBlob b = puffin.Add(
        kDeletionVectorBlobType, {kRowPositionFieldId}, AsBytes(blob),
        {{"referenced-data-file", data_file}, {"cardinality", std::to_string(sorted.size())}});
    DataFile f;
    f.content = FileContent::kPositionDeletes;
    f.file_format = "PUFFIN";
    f.file_path = location;
    f.partition = partition->second;
    f.record_count = static_cast<int64_t>(sorted.size());
    f.referenced_data_file = data_file;
    f.content_offset = b.offset;
    f.content_size_in_bytes = b.length;
    out.push_back(std::move(f));
  }
  const std::string bytes = puffin.Finish();
  const int64_t written_at_ms = UnixMillisNow();
  FLOE_RETURN_IF_ERROR(io.Write(location, AsBytes(bytes)));
  for (DataFile& f : out) {
    f.file_size_in_bytes = static_cast<int64_t>(bytes.size());
    f.written_at_ms = written_at_ms;
  }
  return out;
}

Result<DataFile> WriteEqualityDeleteFile(const FileIO& io, const std::string& location,
                                         const Schema& table_schema,
                                         const std::vector<int32_t>& equality_ids,
                                         const columnar::RecordBatch& rows,
                                         std::vector<Literal> partition) {
  std::vector<NestedField> fields;
  for (int32_t id : equality_ids) {
    const NestedField* f = table_schema.FindById(id);
    if (f == nullptr) return InvalidInput("the table schema has no field id {}", id);
    NestedField optional = *f;
    optional.required = false;
    fields.push_back(std::move(optional));
  }
  const Schema columns(table_schema.schema_id(), fields);
  FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed, ConformToSchema(rows, columns));
  const int64_t written_at_ms = UnixMillisNow();
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, WriteParquet(io, location, conformed));
  DataFile f = ParquetDeleteFile(FileContent::kEqualityDeletes, location, written, written_at_ms,
                                 rows.num_rows, std::move(partition));
  f.equality_ids = equality_ids;
  return f;
}

}  // namespace floe::iceberg
