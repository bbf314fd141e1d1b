// Take: a new column (or batch) holding the rows of another at the given indices, in that order.
// Used to regroup rows by partition and to apply a sort. Nested columns (struct, list, map) are
// taken and concatenated whole, children included.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/thread_pool.h"
#include "floe/columnar/column.h"

namespace floe::columnar {

// Rows [from, from + length) of a column or batch.
struct RowRun {
  int64_t from = 0;
  int64_t length = 0;
};

Result<ColumnPtr> Take(const Column& column, const std::vector<int64_t>& indices);
// Columns of one length (null entries stay null) taken at the same indices: the indices' runs
// worked out once for all of them (a join's slots).
Result<std::vector<ColumnPtr>> TakeColumns(const std::vector<ColumnPtr>& columns,
                                           const std::vector<int64_t>& indices);
// With a pool, the columns of a scattered selection are taken at once on it (safe from within
// the pool's own tasks: the caller takes columns too).
Result<RecordBatch> Take(const RecordBatch& batch, const std::vector<int64_t>& indices,
                         ThreadPool* pool = nullptr);

// The rows of `runs`, in order: a selection that drops a few rows (a delete mask) copies each
// run's bytes at once, without listing its rows.
Result<RecordBatch> TakeRuns(const RecordBatch& batch, const std::vector<RowRun>& runs);

// The batch with row r of `batch` at row dest[r] (`dest` a permutation of its rows). `batch` is
// read in order and each row written where it goes: when the rows go to a few hundred places, in
// order within each (a clustering's files), every column is read once and written in runs, where a
// Take of the same rows reads the batch at random. Each column of `batch` is released once moved
// (freed when `batch` held it last); with a pool, columns move at once on it.
Result<RecordBatch> Scatter(RecordBatch batch, const std::vector<int64_t>& dest,
                            ThreadPool* pool = nullptr);

// The same, the rows being those of `batches` (one schema) one after the other: the batches are
// read in place, where concatenating them first would copy every column once more.
Result<RecordBatch> Scatter(std::vector<RecordBatch> batches, const std::vector<int64_t>& dest,
                            ThreadPool* pool = nullptr);

// The rows of `batches` (one schema, their rows numbered one after the other) in the order of
// `perm`, a permutation of them: Concatenate then Take, without the concatenated copy when the
// rows are many (moved in two passes, as Take moves a large permutation).
Result<RecordBatch> Permute(std::vector<RecordBatch> batches, const std::vector<int64_t>& perm,
                            ThreadPool* pool = nullptr);

// One batch holding every row of `batches` (same schema), in order; with a pool, the columns are
// copied at once on it.
Result<RecordBatch> Concatenate(const std::vector<RecordBatch>& batches,
                                ThreadPool* pool = nullptr);

// The named columns of `batches` (one schema) as one batch, in that order (a name given twice
// once, a name they lack left out): the columns a write orders its rows by, without the others.
Result<RecordBatch> ConcatenateNamed(const std::vector<RecordBatch>& batches,
                                     const std::vector<std::string>& names,
                                     ThreadPool* pool = nullptr);

}  // namespace floe::columnar
