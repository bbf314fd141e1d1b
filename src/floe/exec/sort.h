// Sort: ORDER BY over the rows of many batches, and top-N when a LIMIT bounds the output -- then
// only the best `offset + limit` rows are kept as batches arrive, so memory follows N, not the
// input. NULLs sort last unless a key says otherwise (DuckDB's default). Not thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/exec/value.h"

namespace floe::exec {

struct SortKey {
  ExprPtr expr;
  bool descending = false;
  bool nulls_first = false;
};

// One ORDER BY key's column, its rows compared one against another in the column's own type
// (no Value made per row), as CompareValues orders values: NaN above every number, strings and
// binaries byte by byte; NULLs first or last as the key says, whichever its direction. Types
// without a typed comparison (nested ones) are compared as values.
class KeyColumn {
 public:
  static Result<KeyColumn> Of(ColumnPtr column, const SortKey& key);
  // Negative, zero or positive as row `a` sorts before, with or after row `b`.
  int Compare(int64_t a, int64_t b) const;

 private:
  ColumnPtr column_;
  bool descending_ = false;
  bool nulls_first_ = false;
  std::vector<Value> values_;  // the rows as values, for a type without a typed comparison
};

// How many rows a LIMIT after an OFFSET needs from its input: `limit + offset`, saturating at
// INT64_MAX (LIMIT 9223372036854775807 OFFSET 1 must not wrap to nothing); -1 when there is no
// limit.
int64_t RowsToKeep(int64_t limit, int64_t offset);

class Sort {
 public:
  // `limit` < 0: all rows.
  Sort(std::vector<SortKey> keys, int64_t limit, int64_t offset);

  Status Consume(const columnar::RecordBatch& batch);
  // The sorted rows after `offset`, at most `limit` of them; `schema` when there were none.
  Result<columnar::RecordBatch> Finish(const columnar::SchemaPtr& schema);
  // How many times the held rows were sorted down to the top-N (work is linear in the input while
  // each compaction sorts at most four times what it keeps).
  int64_t compactions() const { return compactions_; }

 private:
  Status Compact(int64_t keep);

  std::vector<SortKey> keys_;
  int64_t limit_;
  int64_t offset_;
  int64_t keep_;  // RowsToKeep(limit_, offset_)
  std::vector<columnar::RecordBatch> pending_;
  int64_t pending_rows_ = 0;
  int64_t compactions_ = 0;
};

}  // namespace floe::exec
