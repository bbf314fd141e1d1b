// TableDataWriter: turns rows into a table's data files -- rows conformed to the table schema (by
// column name, with safe widening), split by the partition spec, sorted by the table's sort order
// within this write, written as Parquet under the table's write.* properties and cut at
// write.target-file-size-bytes -- and returns the DataFiles with metrics from the Parquet writer
// itself (no second pass). Buffers the whole write in memory. Not thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/parquet/writer.h"

namespace floe::iceberg {

// The Parquet writer options a table's properties ask for (codec, sizes, bloom filters, ...).
// The comma-separated columns whose chunks floe writes co-located behind the row groups
// (parquet::WriterOptions::colocated_columns); floe's own property, ignored by other engines.
inline constexpr char kColocatedColumnsProperty[] = "floe.write.parquet.colocated-columns";

Result<parquet::WriterOptions> ParquetOptionsFor(const TableMetadata& metadata);

// `batch` with the table schema's columns, names and field ids: columns matched by name (or, with
// `by_field_id`, by the field ids a data file carries, which is how renamed columns are found),
// missing optional columns filled with nulls, int->long, float->double and timestamp units widened.
// Input columns the schema lacks are an error by name and dropped by id (a dropped column).
Result<columnar::RecordBatch> ConformToSchema(const columnar::RecordBatch& batch,
                                              const Schema& schema, bool by_field_id = false);

// The value of one row of a column as an Iceberg literal of `type`.
Result<Literal> LiteralAt(const columnar::Column& column, int64_t row, const Type& type);

class TableDataWriter {
 public:
  TableDataWriter(Table table, const FileIO& io);

  Status Write(const columnar::RecordBatch& batch);
  Result<std::vector<DataFile>> Finish();
  int64_t rows() const { return rows_; }
  // Called by Finish after each data file is written (its bytes), for progress.
  void set_on_file_written(std::function<void(int64_t bytes)> f) {
    on_file_written_ = std::move(f);
  }

 private:
  Table table_;
  const FileIO& io_;
  std::vector<columnar::RecordBatch> batches_;
  int64_t rows_ = 0;
  std::function<void(int64_t)> on_file_written_;
};

}  // namespace floe::iceberg
