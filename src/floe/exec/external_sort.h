// ExternalSort: ORDER BY without a LIMIT under a memory budget (memory_budget.h). Rows are held
// while they fit; past the budget the held rows are sorted (exec::Sort) and written to disk as a
// sorted run (spill_file.h), and Finish merges the runs k ways, a batch of each at a time, so the
// sort holds about one budget of rows whatever the input. The order is Sort's, ties in input
// order (a run's rows precede a later run's). Without spilling it is Sort. Not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "floe/base/result.h"
#include "floe/exec/memory_budget.h"
#include "floe/exec/sort.h"
#include "floe/exec/spill_file.h"

namespace floe::exec {

class ExternalSort {
 public:
  // `budget` and `dir` may be null: never spill.
  ExternalSort(std::vector<SortKey> keys, int64_t offset, MemoryBudget* budget,
               SpillDirectory* dir);

  Status Consume(const columnar::RecordBatch& batch);
  // The sorted rows after `offset`, in order, a batch at a time (`schema` for an empty answer:
  // then one batch of no rows).
  Status Finish(const columnar::SchemaPtr& schema,
                const std::function<Status(columnar::RecordBatch)>& out);

  bool spilled() const { return !runs_.empty(); }
  int64_t runs() const { return static_cast<int64_t>(runs_.size()); }

 private:
  Status SpillRun();

  std::vector<SortKey> keys_;
  int64_t offset_;
  SpillDirectory* dir_;
  MemoryReservation held_;
  std::vector<columnar::RecordBatch> pending_;
  int64_t pending_rows_ = 0;
  columnar::SchemaPtr schema_;
  std::vector<columnar::DataType> types_;
  std::vector<std::unique_ptr<SpillFile>> runs_;
};

}  // namespace floe::exec
