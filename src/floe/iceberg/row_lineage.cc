#include "floe/iceberg/row_lineage.h"

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/iceberg/table_reader.h"

namespace floe::iceberg {

Schema WithRowLineage(const Schema& schema) {
  std::vector<NestedField> fields = schema.fields();
  fields.push_back({kRowIdFieldId, "_row_id", false, Primitive(TypeId::kLong)});
  fields.push_back({kLastUpdatedSequenceNumberFieldId, "_last_updated_sequence_number", false,
                    Primitive(TypeId::kLong)});
  return Schema(schema.schema_id(), std::move(fields));
}

Result<std::vector<columnar::RecordBatch>> ReadWithRowLineage(const FileScanTask& task,
                                                              const Schema& table_schema,
                                                              const FileIO& io,
                                                              DeleteLoader& deletes,
                                                              ScanMetrics* metrics) {
  const Schema schema = WithRowLineage(table_schema);
  const size_t row_id_column = schema.fields().size() - 2;
  const size_t sequence_column = schema.fields().size() - 1;
  // Every row, so that a row's index in the file is its position; the deletes are applied below.
  FileScanTask all = task;
  all.deletes.clear();
  all.residual = True();
  FLOE_ASSIGN_OR_RETURN(std::vector<columnar::RecordBatch> batches, ReadTask(all, schema, io));
  std::vector<parquet::RowRange> mask;
  if (DeleteLoader::HasPositionDeletes(task)) {
    FLOE_ASSIGN_OR_RETURN(mask, deletes.PositionMask(task));
  }
  std::vector<std::shared_ptr<const EqualityDeleteSet>> sets;
  if (DeleteLoader::HasEqualityDeletes(task)) {
    FLOE_ASSIGN_OR_RETURN(sets, deletes.EqualityDeletes(task));
  }
  const std::optional<int64_t> first_row_id = task.file.first_row_id;
  std::vector<columnar::RecordBatch> out;
  int64_t position = 0, deleted = 0, read = 0;
  size_t next_range = 0;
  for (columnar::RecordBatch& b : batches) {
    const auto n = static_cast<size_t>(b.num_rows);
    std::vector<uint8_t> gone(n, 0);
    for (size_t r = 0; r < n; ++r) {
      const int64_t p = position + static_cast<int64_t>(r);
      while (next_range < mask.size() && mask[next_range].end <= p) ++next_range;
      if (next_range < mask.size() && mask[next_range].begin <= p) gone[r] = 1;
    }
    for (const auto& set : sets) {
      FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch keys,
                            ConformToSchema(b, set->columns(), /*by_field_id=*/true));
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> hit, set->Deleted(keys));
      for (size_t r = 0; r < n; ++r) gone[r] |= hit[r];
    }
    const columnar::Column& row_ids = *b.columns[row_id_column];
    const columnar::Column& sequences = *b.columns[sequence_column];
    columnar::FixedWidthBuilder<int64_t> ids(columnar::Int64()), seqs(columnar::Int64());
    std::vector<int64_t> keep;
    keep.reserve(n);
    for (size_t r = 0; r < n; ++r) {
      if (gone[r]) continue;
      const auto i = static_cast<int64_t>(r);
      keep.push_back(i);
      if (!row_ids.IsNull(i)) {
        ids.Append(row_ids.Value<int64_t>(i));
      } else if (first_row_id) {
        ids.Append(*first_row_id + position + i);
      } else {
        ids.AppendNull();
      }
      if (!sequences.IsNull(i)) {
        seqs.Append(sequences.Value<int64_t>(i));
      } else if (first_row_id) {
        seqs.Append(task.data_sequence_number);
      } else {
        seqs.AppendNull();
      }
    }
    position += b.num_rows;
    read += b.num_rows;
    deleted += b.num_rows - static_cast<int64_t>(keep.size());
    if (keep.empty()) continue;
    if (keep.size() != n) {
      FLOE_ASSIGN_OR_RETURN(b, columnar::Take(b, keep));
    }
    b.columns[row_id_column] = ids.Finish();
    b.columns[sequence_column] = seqs.Finish();
    out.push_back(std::move(b));
  }
  if (read != task.file.record_count) {
    return Corrupt("data file '{}' holds {} rows; its manifest entry says {}", task.file.file_path,
                   read, task.file.record_count);
  }
  if (metrics) metrics->rows_deleted += deleted;
  return out;
}

}  // namespace floe::iceberg
