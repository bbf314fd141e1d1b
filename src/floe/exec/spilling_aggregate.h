// SpillingAggregate: GROUP BY under a memory budget (memory_budget.h), as a layer around
// HashAggregate. Each scan worker aggregates its batches into its own partial aggregate while the
// partials' estimated state fits the budget; past it, later rows are no longer aggregated but
// partitioned by a hash of their group keys (key_partition.h) into spill files. Finish merges the
// partials, splits their groups by the same hash, and aggregates one partition at a time: its
// in-memory groups, then its spilled rows folded in (a partition still too big is split again with
// another seed). Every aggregate function -- DISTINCT and the value-keeping ones included -- gives
// what the in-memory aggregate gives, since each group is finished once, whole. Consume may be
// called from the workers concurrently (each worker one call at a time); Finish from one thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "floe/base/result.h"
#include "floe/exec/hash_aggregate.h"
#include "floe/exec/memory_budget.h"
#include "floe/exec/spill_file.h"

namespace floe::exec {

class SpillingAggregate {
 public:
  // `budget` and `dir` may be null: never spill.
  SpillingAggregate(std::vector<ExprPtr> keys, std::vector<Aggregate> aggregates, int workers,
                    MemoryBudget* budget, SpillDirectory* dir);

  Status Consume(int worker, const columnar::RecordBatch& batch);
  // One row per group: the keys, then the aggregates (HashAggregate::Finish's layout).
  Result<columnar::RecordBatch> Finish();

  bool spilled() const { return spilling_.load(); }
  int64_t partitions() const { return partitions_; }

 private:
  // When to estimate an aggregate's state again: soon when the rows so far, at the bytes a row
  // has cost, could use much of what the budget has left; rarely when far from it.
  struct Check {
    int64_t rows = 0;     // consumed in all
    int64_t since = 0;    // since the last estimate
    int64_t next = 4096;  // rows until the next one
  };
  struct Worker {
    std::unique_ptr<HashAggregate> aggregate;
    std::unique_ptr<MemoryReservation> held;
    Check check;
  };
  std::unique_ptr<HashAggregate> NewAggregate() const;
  // Counts `rows` more into `a` (besides `other`, null or another aggregate `held` covers) and,
  // when due, re-estimates their state into `held`; true when the budget is passed.
  bool OverBudget(const HashAggregate& a, const HashAggregate* other, MemoryReservation& held,
                  Check* check, int64_t rows, int sharers);
  Status Spill(const columnar::RecordBatch& batch);
  // The groups of `memory` and of the rows in `file`, together.
  Status FinishPartition(std::unique_ptr<HashAggregate> memory, SpillFile* file, int depth,
                         std::vector<columnar::RecordBatch>* out);
  int64_t Limit() const;

  std::vector<ExprPtr> keys_;
  std::vector<Aggregate> aggregates_;
  MemoryBudget* budget_;
  SpillDirectory* dir_;
  std::vector<Worker> workers_;
  std::atomic<bool> spilling_{false};
  std::mutex mu_;  // the spill files
  std::vector<std::unique_ptr<SpillFile>> files_;
  std::vector<columnar::DataType> types_;  // of the spilled rows' columns
  int64_t partitions_ = 0;
};

}  // namespace floe::exec
