#include "floe/exec/spilling_aggregate.h"

#include <algorithm>

#include "floe/columnar/take.h"
#include "floe/exec/key_partition.h"

namespace floe::exec {

namespace {

constexpr uint32_t kPartitions = 32;
// A partition split again gets this many parts; splitting stops at kMaxDepth.
constexpr uint32_t kSubPartitions = 16;
constexpr int kMaxDepth = 3;
// The state is re-estimated after at least this many rows (and as many as it has groups, so
// that estimating stays a small share of the work).
constexpr int64_t kCheckRows = 65536;
// Merging the workers' partials and splitting the total by partition briefly hold a partial's
// groups twice (COUNT(DISTINCT) sets are copied): a partial counts double.
constexpr int64_t kMergeFactor = 2;

}  // namespace

SpillingAggregate::SpillingAggregate(std::vector<ExprPtr> keys, std::vector<Aggregate> aggregates,
                                     int workers, MemoryBudget* budget, SpillDirectory* dir)
    : keys_(std::move(keys)), aggregates_(std::move(aggregates)), budget_(budget), dir_(dir) {
  workers_.resize(static_cast<size_t>(std::max(1, workers)));
  for (auto& w : workers_) {
    w.aggregate = NewAggregate();
    w.held = std::make_unique<MemoryReservation>(budget_);
  }
}

std::unique_ptr<HashAggregate> SpillingAggregate::NewAggregate() const {
  return std::make_unique<HashAggregate>(keys_, aggregates_);
}

int64_t SpillingAggregate::Limit() const {
  return budget_ != nullptr && budget_->limit() > 0 ? budget_->limit() : INT64_MAX / 4;
}

bool SpillingAggregate::OverBudget(HashAggregate& a, MemoryReservation& held, int64_t* rows_since,
                                   int64_t rows) {
  *rows_since += rows;
  if (*rows_since < std::max(kCheckRows, a.groups())) return false;
  *rows_since = 0;
  held.Set(kMergeFactor * a.EstimatedBytes());
  return held.Exceeded();
}

Status SpillingAggregate::Consume(int worker, const columnar::RecordBatch& batch) {
  if (batch.num_rows == 0) return {};
  Worker& w = workers_[static_cast<size_t>(worker)];
  if (!spilling_.load()) {
    FLOE_RETURN_IF_ERROR(w.aggregate->Consume(batch));
    // Without keys there is one group: nothing to partition.
    if (dir_ != nullptr && !keys_.empty() &&
        OverBudget(*w.aggregate, *w.held, &w.rows_since_check, batch.num_rows)) {
      spilling_ = true;
    }
    return {};
  }
  return Spill(batch);
}

Status SpillingAggregate::Spill(const columnar::RecordBatch& batch) {
  std::vector<ColumnPtr> keys;
  for (const auto& k : keys_) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*k, batch));
    keys.push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint32_t> part,
                        PartitionRows(keys, batch.num_rows, 0, kPartitions));
  FLOE_ASSIGN_OR_RETURN(std::vector<columnar::RecordBatch> split,
                        SplitRows(batch, part, kPartitions));
  std::lock_guard lock(mu_);
  if (files_.empty()) {
    for (const auto& c : batch.columns) types_.push_back(c->type);
    for (uint32_t p = 0; p < kPartitions; ++p) {
      FLOE_ASSIGN_OR_RETURN(auto f, SpillFile::Create(*dir_, "aggregate"));
      files_.push_back(std::move(f));
    }
    partitions_ += kPartitions;
  }
  if (batch.columns.size() != types_.size()) {
    return Internal("aggregate spill: a batch of {} columns after {}", batch.columns.size(),
                    types_.size());
  }
  for (uint32_t p = 0; p < kPartitions; ++p) {
    if (split[p].num_rows > 0) FLOE_RETURN_IF_ERROR(files_[p]->Append(split[p]));
  }
  return {};
}

Result<columnar::RecordBatch> SpillingAggregate::Finish() {
  std::unique_ptr<HashAggregate> total = std::move(workers_[0].aggregate);
  for (size_t i = 1; i < workers_.size(); ++i) {
    FLOE_RETURN_IF_ERROR(total->Merge(std::move(*workers_[i].aggregate)));
    workers_[i].aggregate.reset();
    workers_[i].held->Set(0);
  }
  if (files_.empty()) return total->Finish();
  // Each partition's groups: those held in memory, then the rows spilled for it.
  std::vector<std::unique_ptr<HashAggregate>> parts;
  for (uint32_t p = 0; p < kPartitions; ++p) parts.push_back(NewAggregate());
  total->SplitInto([](const std::vector<Value>& k) { return PartitionOfKey(k, 0, kPartitions); },
                   &parts);
  total.reset();
  workers_[0].held->Set(0);
  std::vector<columnar::RecordBatch> out;
  for (uint32_t p = 0; p < kPartitions; ++p) {
    FLOE_RETURN_IF_ERROR(FinishPartition(std::move(parts[p]), files_[p].get(), 0, &out));
    files_[p].reset();
  }
  std::vector<columnar::RecordBatch> nonempty;
  for (auto& b : out) {
    if (b.num_rows > 0) nonempty.push_back(std::move(b));
  }
  if (nonempty.empty()) return std::move(out[0]);
  return columnar::Concatenate(nonempty);
}

Status SpillingAggregate::FinishPartition(std::unique_ptr<HashAggregate> memory, SpillFile* file,
                                          int depth, std::vector<columnar::RecordBatch>* out) {
  auto rows = NewAggregate();
  MemoryReservation held(budget_);
  held.Set(kMergeFactor * memory->EstimatedBytes());
  bool split = false;
  int64_t since = 0;
  FLOE_RETURN_IF_ERROR(file->Rewind());
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto b, file->Next(types_));
    if (!b) break;
    FLOE_RETURN_IF_ERROR(rows->Consume(*b));
    since += b->num_rows;
    if (depth < kMaxDepth && since >= std::max(kCheckRows, rows->groups())) {
      since = 0;
      held.Set(kMergeFactor * (memory->EstimatedBytes() + rows->EstimatedBytes()));
      if (held.Exceeded()) {
        split = true;
        break;
      }
    }
  }
  if (!split) {
    // The rows in memory came first: fold the spilled ones after them.
    FLOE_RETURN_IF_ERROR(memory->Merge(std::move(*rows)));
    rows.reset();
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch b, memory->Finish());
    out->push_back(std::move(b));
    return {};
  }
  // Too big still: split the partition's rows and groups again, by another hash.
  rows.reset();
  const uint64_t seed = static_cast<uint64_t>(depth) + 1;
  std::vector<std::unique_ptr<SpillFile>> files;
  for (uint32_t p = 0; p < kSubPartitions; ++p) {
    FLOE_ASSIGN_OR_RETURN(auto f, SpillFile::Create(*dir_, "aggregate"));
    files.push_back(std::move(f));
  }
  partitions_ += kSubPartitions;
  FLOE_RETURN_IF_ERROR(file->Rewind());
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto b, file->Next(types_));
    if (!b) break;
    std::vector<ColumnPtr> keys;
    for (const auto& k : keys_) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*k, *b));
      keys.push_back(std::move(c));
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<uint32_t> part,
                          PartitionRows(keys, b->num_rows, seed, kSubPartitions));
    FLOE_ASSIGN_OR_RETURN(std::vector<columnar::RecordBatch> parts,
                          SplitRows(*b, part, kSubPartitions));
    for (uint32_t p = 0; p < kSubPartitions; ++p) {
      if (parts[p].num_rows > 0) FLOE_RETURN_IF_ERROR(files[p]->Append(parts[p]));
    }
  }
  std::vector<std::unique_ptr<HashAggregate>> groups;
  for (uint32_t p = 0; p < kSubPartitions; ++p) groups.push_back(NewAggregate());
  memory->SplitInto(
      [seed](const std::vector<Value>& k) { return PartitionOfKey(k, seed, kSubPartitions); },
      &groups);
  memory.reset();
  held.Set(0);
  for (uint32_t p = 0; p < kSubPartitions; ++p) {
    FLOE_RETURN_IF_ERROR(FinishPartition(std::move(groups[p]), files[p].get(), depth + 1, out));
    files[p].reset();
  }
  return {};
}

}  // namespace floe::exec
