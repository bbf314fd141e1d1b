#include "floe/exec/spilling_aggregate.h"

#include <algorithm>

#include "floe/columnar/take.h"
#include "floe/exec/key_partition.h"

namespace floe::exec {

namespace {

constexpr uint32_t kPartitions = 64;
// A partition split again gets this many parts; splitting stops at kMaxDepth.
constexpr uint32_t kSubPartitions = 16;
constexpr int kMaxDepth = 3;
// The state is re-estimated after at least this many rows (and as many as it has groups, so
// that estimating stays a small share of the work).
constexpr int64_t kCheckRows = 65536;
constexpr int64_t kMinCheckRows = 1024;
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

bool SpillingAggregate::OverBudget(const HashAggregate& a, const HashAggregate* other,
                                   MemoryReservation& held, Check* check, int64_t rows,
                                   int sharers) {
  check->rows += rows;
  check->since += rows;
  if (check->since < check->next) return false;
  check->since = 0;
  int64_t bytes = a.EstimatedBytes();
  if (other != nullptr) bytes += other->EstimatedBytes();
  held.Set(kMergeFactor * bytes);
  if (held.Exceeded()) return true;
  // Next when the rows, at what a row has cost so far, could take an eighth of what is left to
  // the `sharers` growing at once -- never sooner than kMinCheckRows (estimating visits every
  // group), never later than kCheckRows or as many rows as there are groups.
  const int64_t per_row = std::max<int64_t>(1, held.held() / std::max<int64_t>(1, check->rows));
  const int64_t left = std::max<int64_t>(0, Limit() - (budget_ ? budget_->used() : 0));
  const int64_t soon = left / (8 * per_row * std::max(1, sharers));
  check->next = std::clamp<int64_t>(soon, kMinCheckRows, std::max(kCheckRows, a.groups()));
  return false;
}

namespace {

// Rows [from, from + n) of a batch.
Result<columnar::RecordBatch> Slice(const columnar::RecordBatch& b, int64_t from, int64_t n) {
  if (from == 0 && n == b.num_rows) return b;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = from + i;
  return columnar::Take(b, idx);
}

}  // namespace

Status SpillingAggregate::Consume(int worker, const columnar::RecordBatch& batch) {
  if (batch.num_rows == 0) return {};
  Worker& w = workers_[static_cast<size_t>(worker)];
  // Without keys there is one group: nothing to partition.
  if (dir_ == nullptr || keys_.empty()) return w.aggregate->Consume(batch);
  // A batch bigger than the rows until the next estimate goes in slices, so that a batch of new
  // groups cannot overshoot the budget by much before it is noticed.
  int64_t from = 0;
  while (from < batch.num_rows && !spilling_.load()) {
    const int64_t n =
        std::min(batch.num_rows - from, std::max(kMinCheckRows, w.check.next - w.check.since));
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch part, Slice(batch, from, n));
    FLOE_RETURN_IF_ERROR(w.aggregate->Consume(part));
    from += n;
    if (OverBudget(*w.aggregate, nullptr, *w.held, &w.check, n,
                   static_cast<int>(workers_.size()))) {
      spilling_ = true;
    }
  }
  if (from == batch.num_rows) return {};
  FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch rest, Slice(batch, from, batch.num_rows - from));
  return Spill(rest);
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
  Check check;
  check.next = kMinCheckRows;  // the partition's groups held in memory count from the start
  FLOE_RETURN_IF_ERROR(file->Rewind());
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto b, file->Next(types_));
    if (!b) break;
    FLOE_RETURN_IF_ERROR(rows->Consume(*b));
    if (depth < kMaxDepth && OverBudget(*rows, memory.get(), held, &check, b->num_rows, 1)) {
      split = true;
      break;
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
