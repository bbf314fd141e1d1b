// GraceHashJoin: an equi-join whose build side passed the memory budget (memory_budget.h), run
// from disk. Both sides' rows are partitioned by a hash of their join keys (key_partition.h) into
// spill files (spill_file.h); then each partition is joined on its own with the in-memory
// JoinHashTable -- a partition still too big is partitioned again with another seed, and one that
// stays too big (one key holding most rows) is joined a budget-sized chunk of its build rows at a
// time. Inner, left, full, semi and anti joins (NOT IN's null-aware one too), with a residual on
// each matching pair, give the rows the in-memory join gives (in another order). Rows are in the
// join runner's slot layout: one column per slot of the query, null where a side fills none.
// AddBuild and AddProbe may be called from several threads; Finish from one, after them.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/exec/memory_budget.h"
#include "floe/exec/spill_file.h"

namespace floe::exec {

// kRight: the build side's rows are kept (NULL-extended where nothing matched them), the probe
// side's only in pairs -- a LEFT join whose kept side is the smaller one, built.
enum class JoinType { kInner, kLeft, kFull, kSemi, kAnti, kRight };

struct GraceJoinSpec {
  JoinType type = JoinType::kInner;
  bool null_aware = false;  // an anti join of NOT IN: a NULL on either side excludes
  std::vector<ExprPtr> probe_keys, build_keys;  // at least one; pairwise of one type
  ExprPtr residual;                             // on each key-matching pair; null: none
  std::vector<columnar::DataType> slot_types;
  std::vector<bool> probe_slots, build_slots;  // the slots each side's rows fill
};

class GraceHashJoin {
 public:
  using Emit = std::function<Status(columnar::RecordBatch)>;

  GraceHashJoin(GraceJoinSpec spec, MemoryBudget* budget, SpillDirectory* dir);

  Status AddBuild(const columnar::RecordBatch& batch);
  Status AddProbe(const columnar::RecordBatch& batch);
  // Joins the partitions, handing the joined rows to `emit`.
  Status Finish(const Emit& emit);

  int64_t partitions() const { return partitions_made_; }

 private:
  struct Side {
    std::vector<std::unique_ptr<SpillFile>> files;
  };
  Status Partition(const columnar::RecordBatch& batch, const std::vector<ExprPtr>& keys,
                   uint64_t seed, Side* side, const char* what);
  Status OpenSide(Side* side, uint32_t parts, const char* what);
  Status JoinPartition(SpillFile& build, SpillFile& probe, int depth, const Emit& emit);
  Status JoinChunks(SpillFile& build, SpillFile& probe, const Emit& emit);
  // Bytes the build rows of a file take in memory with their hash table.
  int64_t TableBytes(const SpillFile& build) const;
  int64_t Limit() const;

  GraceJoinSpec spec_;
  MemoryBudget* budget_;
  SpillDirectory* dir_;
  std::mutex mu_;
  uint32_t parts_;
  Side build_, probe_;
  bool build_null_key_ = false;  // some build key is NULL (NOT IN then keeps nothing)
  int64_t partitions_made_ = 0;
};

}  // namespace floe::exec
