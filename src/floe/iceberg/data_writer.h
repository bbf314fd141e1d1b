// TableDataWriter: turns rows into a table's data files -- rows conformed to the table schema (by
// column name, with safe widening; schema_conform.h), split by the partition spec and sorted by the
// table's sort order within this write (the layout module's partition split and row order),
// written as Parquet under the table's write.* properties and cut at write.target-file-size-bytes
// by the layout module's file cutter, or laid out as an OTree's cubes (otree_index.h) -- and
// returns the DataFiles with metrics from the Parquet writer itself (no second pass). The
// partitions encode at once on the runtime's decode pool, the files the same as one at a time.
// Buffers the whole write in memory. Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/thread_pool.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/iceberg/table.h"
#include "floe/parquet/writer.h"

namespace floe::iceberg {

// The Parquet writer options a table's properties ask for (codec, sizes, bloom filters, ...).
// The comma-separated columns whose chunks floe writes co-located behind the row groups
// (parquet::WriterOptions::colocated_columns); floe's own property, ignored by other engines.
inline constexpr char kColocatedColumnsProperty[] = "floe.write.parquet.colocated-columns";

Result<parquet::WriterOptions> ParquetOptionsFor(const TableMetadata& metadata);

// How many rows make a data file of the table's target size (write.target-file-size-bytes): the
// target over the bytes a row takes in Parquet, measured by writing an evenly spread sample of
// `rows` (conformed to the table schema) under the table's options. An OTree revision's cube size
// when the table names none.
Result<int64_t> RowsPerFileAtTarget(const TableMetadata& m, const columnar::RecordBatch& rows,
                                    ThreadPool* pool = nullptr);
// The same over the rows of `parts` (one schema) one after the other.
Result<int64_t> RowsPerFileAtTarget(const TableMetadata& m,
                                    const std::vector<columnar::RecordBatch>& parts,
                                    ThreadPool* pool = nullptr);

class TableDataWriter {
 public:
  TableDataWriter(Table table, const FileIO& io);

  Status Write(const columnar::RecordBatch& batch);
  // Rows known to lie in one partition of the table (`partition` of spec `spec_id`): a copy-on-
  // write rewrite's rows of one data file. When that spec is the table's current one and no
  // clustering layout is declared, they skip the partition split and, in a table without a sort
  // order, are encoded as they come (no copy); otherwise as Write. With `rows` (ascending), only
  // those rows of the batch: taken while the partition encodes, a file's worth at a time, so the
  // copy runs on the encoding threads and its memory is reused file after file.
  Status WriteInPartition(const columnar::RecordBatch& batch, int32_t spec_id,
                          const std::vector<Literal>& partition,
                          std::optional<std::vector<int64_t>> rows = std::nullopt);
  Result<std::vector<DataFile>> Finish();
  int64_t rows() const { return rows_; }
  // Called by Finish after each data file is written (its bytes), for progress.
  void set_on_file_written(std::function<void(int64_t bytes)> f) {
    on_file_written_ = std::move(f);
  }
  // For an OTree table (otree_index.h): lay the rows out under a new revision, as a rewrite of
  // every row of the table does (floe table optimize), not add them to the current cubes.
  void set_otree_reindex(bool reindex) { otree_reindex_ = reindex; }
  // The data files a rewrite replaces with these rows: their rows no longer count in the cubes.
  void set_otree_replacing(std::vector<std::string> paths) { otree_replacing_ = std::move(paths); }
  // One task of a planned write (write_plan.h): its files are named by the write and the task,
  // "<task:05d>-<n:05d>-<write_id>.parquet", and an OTree table's rows go to the plan's cubes
  // (LayOutPlannedOTree) instead of the table's index as it is now.
  struct TaskNaming {
    std::string write_id;
    int64_t task = 0;
  };
  void set_task(TaskNaming naming, std::shared_ptr<const PlannedOTree> otree) {
    task_ = std::move(naming);
    planned_otree_ = std::move(otree);
  }

 private:
  Table table_;
  const FileIO& io_;
  std::vector<columnar::RecordBatch> batches_;
  // WriteInPartition's rows, by partition path: batches, each with the rows of it written.
  struct BatchRows {
    columnar::RecordBatch batch;
    std::optional<std::vector<int64_t>> rows;  // ascending; none: every row
    int64_t size() const { return rows ? static_cast<int64_t>(rows->size()) : batch.num_rows; }
  };
  struct InPartition {
    std::vector<Literal> values;
    std::vector<BatchRows> batches;
  };
  std::map<std::string, InPartition> in_partition_;
  int64_t rows_ = 0;
  std::function<void(int64_t)> on_file_written_;
  bool otree_reindex_ = false;
  std::vector<std::string> otree_replacing_;
  std::optional<TaskNaming> task_;
  std::shared_ptr<const PlannedOTree> planned_otree_;
};

}  // namespace floe::iceberg
