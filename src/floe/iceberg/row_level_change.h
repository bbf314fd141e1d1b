// Row-level changes: what DELETE, UPDATE and MERGE INTO do to a table once they know which rows
// they change -- the positions of the deleted (or replaced) rows in each data file they read, and
// the new rows (updated and inserted). Committed in the mode the table's properties choose for the
// operation (write.delete.mode, write.update.mode, write.merge.mode; copy-on-write by default, as
// Iceberg):
//   - copy-on-write: every data file with a changed row is rewritten without it (its deletes
//     applied), the new rows written with the survivors, in the table's spec and sort order; one
//     overwrite commit that removes the old files (and, in v3, their deletion vectors);
//   - merge-on-read, format v2: a position delete file per data file touched (file granularity, as
//     Spark writes since Iceberg 1.8), merged with the file-scoped position deletes that file
//     already had, which the same commit removes; or one per partition
//     (write.delete.granularity=partition), left beside the older ones;
//   - merge-on-read, format v3: one deletion vector per data file touched, in one Puffin file,
//     merged with the file's previous vector and position deletes; the old vector (and file-scoped
//     position delete files) removed in the same commit.
// The new rows go to new data files in every mode. The commit checks Iceberg's validations for the
// operation and write.<op>.isolation-level (serializable by default, or snapshot; commit.h:
// CommitValidation): a conflicting concurrent commit fails it cleanly -- nothing committed, the
// files it wrote removed. Called by the SQL engine; not thread-safe per call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

enum class RowLevelOperation { kDelete, kUpdate, kMerge };
enum class RowLevelMode { kCopyOnWrite, kMergeOnRead };
enum class IsolationLevel { kSerializable, kSnapshot };

// How a table wants an operation written, from its properties.
struct RowLevelPolicy {
  RowLevelMode mode = RowLevelMode::kCopyOnWrite;
  IsolationLevel isolation = IsolationLevel::kSerializable;
  bool partition_granularity = false;  // write.delete.granularity=partition (v2 merge-on-read)
};

// The policy of `operation` on a table with `metadata`. Merge-on-read on a format-version 1 table
// is an invalid-input error naming the property.
Result<RowLevelPolicy> PolicyFor(const TableMetadata& metadata, const std::string& table,
                                 RowLevelOperation operation);

// "DELETE", "UPDATE", "MERGE"; and the property prefix "delete", "update", "merge".
const char* OperationName(RowLevelOperation operation);

struct RowLevelChange {
  RowLevelOperation operation = RowLevelOperation::kDelete;
  // The snapshot the statement read (nullopt: the table was empty) and the Iceberg filter it
  // pushed into that scan (unbound; null: none): the data files are found again by it, and it is
  // the commit's conflict-detection filter.
  std::optional<int64_t> snapshot_id;
  ExprPtr filter;
  // Data file path -> the positions of its rows the statement deletes or replaces (any order).
  std::map<std::string, std::vector<int64_t>> deleted;
  // Rows to add (updated and inserted), with the table schema's columns by name; in a v3 table
  // they may carry `_row_id` (an updated row keeps its id; null for an inserted one).
  std::vector<columnar::RecordBatch> new_rows;
  // Optional: rows the statement already read, by data file -- the table schema's columns in
  // order, as a write takes them, then `_pos` (int64). Copy-on-write rewrites a file from these
  // instead of reading it again when they are all of its rows (the file has no deletes and they
  // reach its record count); else the file is read again.
  std::map<std::string, std::vector<columnar::RecordBatch>> read_rows;
  // Optional: rows that take the places of rows they change (an UPDATE's), by data file -- their
  // positions (also in `deleted`) and, row for row, the new rows (as `new_rows`). Copy-on-write
  // rewrites a file whose deleted positions are all replaced in place (in_place_rewrite.h): its
  // unchanged columns' chunks are copied; the changed ones' old values come from `read_rows`, or
  // are decoded from the file. Else, and in merge-on-read, these rows are added as `new_rows`
  // are.
  struct Replaced {
    std::vector<int64_t> positions;
    std::vector<columnar::RecordBatch> rows;
  };
  std::map<std::string, Replaced> replaced;
  // Optional, with `replaced`: the top-level field ids of the only columns `read_rows` and the
  // replaced rows hold (in the table schema's order) -- a statement that only updates rows and
  // read just the columns it reads or sets. Every deleted position is then a replaced one. A file
  // not rewritten in place is read again, whole, and written with its replaced rows' columns
  // set. Empty: whole rows.
  std::vector<int32_t> partial_columns;
};

struct RowLevelResult {
  RowLevelMode mode = RowLevelMode::kCopyOnWrite;
  std::optional<int64_t> snapshot_id;    // the commit; none when nothing changed
  int64_t rows_removed = 0;              // positions deleted (rows deleted plus rows updated)
  int64_t rows_added = 0;                // rows written (updated plus inserted)
  int64_t rows_copied = 0;               // copy-on-write: unchanged rows rewritten
  int64_t files_rewritten_in_place = 0;  // copy-on-write: files whose unchanged columns were copied
  int64_t data_files_added = 0;
  int64_t data_files_removed = 0;  // copy-on-write: files rewritten
  int64_t delete_files_added = 0;
  int64_t delete_files_removed = 0;  // merged into the new ones, or dropped with their data file
  int64_t bytes_written = 0;
};

// Writes and commits `change` to table `id` as it was read (`table`). `metrics` (may be null)
// counts the reads it makes (copy-on-write reads the files it rewrites; merge-on-read the deletes
// it merges). Nothing changed (no positions, no rows) commits nothing.
Result<RowLevelResult> CommitRowLevelChange(catalog::Catalog& catalog, const FileIO& io,
                                            const Table& table, const RowLevelChange& change,
                                            ScanMetrics* metrics);

}  // namespace floe::iceberg
