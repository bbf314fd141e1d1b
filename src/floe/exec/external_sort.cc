#include "floe/exec/external_sort.h"

#include <queue>

#include "floe/columnar/take.h"

namespace floe::exec {

namespace {

// Rows per batch of a run on disk and of the merged output.
constexpr int64_t kRunBatchRows = 4096;

// A run being merged: its current batch and that batch's sort keys.
struct Cursor {
  SpillFile* file = nullptr;
  columnar::RecordBatch batch;
  std::vector<std::vector<Value>> keys;  // per key, per row
  int64_t row = 0;
  bool done = false;
};

}  // namespace

ExternalSort::ExternalSort(std::vector<SortKey> keys, int64_t offset, MemoryBudget* budget,
                           SpillDirectory* dir)
    : keys_(std::move(keys)), offset_(offset), dir_(dir), held_(budget) {}

Status ExternalSort::Consume(const columnar::RecordBatch& batch) {
  if (batch.num_rows == 0) return {};
  if (!schema_) {
    schema_ = batch.schema;
    for (const auto& c : batch.columns) types_.push_back(c->type);
  }
  pending_.push_back(batch);
  pending_rows_ += batch.num_rows;
  // The rows, and the key values the sort makes of them.
  held_.Grow(BatchBytes(batch) +
             batch.num_rows * static_cast<int64_t>((keys_.size() + 1) * sizeof(Value)));
  if (dir_ != nullptr && held_.Exceeded()) return SpillRun();
  return {};
}

Status ExternalSort::SpillRun() {
  if (pending_.empty()) return {};
  columnar::RecordBatch sorted;
  {
    Sort sort(keys_, -1, 0);
    for (const auto& b : pending_) FLOE_RETURN_IF_ERROR(sort.Consume(b));
    pending_.clear();
    pending_rows_ = 0;
    FLOE_ASSIGN_OR_RETURN(sorted, sort.Finish(schema_));
  }
  FLOE_ASSIGN_OR_RETURN(auto run, SpillFile::Create(*dir_, "sort-run"));
  std::vector<int64_t> idx;
  for (int64_t from = 0; from < sorted.num_rows; from += kRunBatchRows) {
    idx.clear();
    for (int64_t r = from; r < std::min(sorted.num_rows, from + kRunBatchRows); ++r) {
      idx.push_back(r);
    }
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch part, columnar::Take(sorted, idx));
    FLOE_RETURN_IF_ERROR(run->Append(part));
  }
  runs_.push_back(std::move(run));
  held_.Set(0);
  return {};
}

Status ExternalSort::Finish(const columnar::SchemaPtr& schema,
                            const std::function<Status(columnar::RecordBatch)>& out) {
  if (runs_.empty()) {
    Sort sort(keys_, -1, offset_);
    for (const auto& b : pending_) FLOE_RETURN_IF_ERROR(sort.Consume(b));
    pending_.clear();
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch all, sort.Finish(schema));
    held_.Set(0);
    return out(std::move(all));
  }
  FLOE_RETURN_IF_ERROR(SpillRun());
  std::vector<Cursor> cursors(runs_.size());
  auto load = [&](Cursor& c) -> Status {
    c.row = 0;
    FLOE_ASSIGN_OR_RETURN(auto b, c.file->Next(types_));
    if (!b) {
      c.done = true;
      c.batch = {};
      c.keys.clear();
      return {};
    }
    c.batch = std::move(*b);
    c.batch.schema = schema_;
    c.keys.assign(keys_.size(), {});
    for (size_t k = 0; k < keys_.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr col, Evaluate(*keys_[k].expr, c.batch));
      c.keys[k].reserve(static_cast<size_t>(c.batch.num_rows));
      for (int64_t r = 0; r < c.batch.num_rows; ++r) {
        FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(*col, r));
        c.keys[k].push_back(std::move(v));
      }
    }
    return {};
  };
  for (size_t i = 0; i < runs_.size(); ++i) {
    cursors[i].file = runs_[i].get();
    FLOE_RETURN_IF_ERROR(runs_[i]->Rewind());
    FLOE_RETURN_IF_ERROR(load(cursors[i]));
  }
  // Run a before run b when its current row sorts first; ties to the earlier run.
  auto after = [&](size_t a, size_t b) {
    const Cursor& x = cursors[a];
    const Cursor& y = cursors[b];
    for (size_t k = 0; k < keys_.size(); ++k) {
      const Value& u = x.keys[k][static_cast<size_t>(x.row)];
      const Value& v = y.keys[k][static_cast<size_t>(y.row)];
      const bool un = u.is_null(), vn = v.is_null();
      if (un || vn) {
        if (un == vn) continue;
        return un != keys_[k].nulls_first;
      }
      const int c = CompareValues(u, v);
      if (c != 0) return keys_[k].descending ? c < 0 : c > 0;
    }
    return a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(after)> heap(after);
  for (size_t i = 0; i < cursors.size(); ++i) {
    if (!cursors[i].done) heap.push(i);
  }
  // The chosen rows (run, row) not yet handed out; they all lie in the runs' current batches.
  std::vector<std::pair<size_t, int64_t>> chosen;
  int64_t to_skip = offset_;
  bool any = false;
  auto flush = [&]() -> Status {
    if (chosen.empty()) return {};
    std::vector<std::vector<int64_t>> rows(cursors.size());
    std::vector<int64_t> position(chosen.size());
    for (size_t i = 0; i < chosen.size(); ++i) {
      position[i] = static_cast<int64_t>(rows[chosen[i].first].size());
      rows[chosen[i].first].push_back(chosen[i].second);
    }
    std::vector<int64_t> start(cursors.size(), 0);
    std::vector<columnar::RecordBatch> parts;
    int64_t at = 0;
    for (size_t r = 0; r < cursors.size(); ++r) {
      start[r] = at;
      if (rows[r].empty()) continue;
      FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch part, columnar::Take(cursors[r].batch, rows[r]));
      at += part.num_rows;
      parts.push_back(std::move(part));
    }
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch all, columnar::Concatenate(parts));
    std::vector<int64_t> order(chosen.size());
    for (size_t i = 0; i < chosen.size(); ++i) order[i] = start[chosen[i].first] + position[i];
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch merged, columnar::Take(all, order));
    merged.schema = schema_;
    chosen.clear();
    any = true;
    return out(std::move(merged));
  };
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Cursor& c = cursors[i];
    if (to_skip > 0) {
      --to_skip;
    } else {
      chosen.emplace_back(i, c.row);
    }
    if (static_cast<int64_t>(chosen.size()) >= kRunBatchRows) FLOE_RETURN_IF_ERROR(flush());
    if (++c.row >= c.batch.num_rows) {
      FLOE_RETURN_IF_ERROR(flush());  // before the batch its rows are taken from goes
      FLOE_RETURN_IF_ERROR(load(c));
    }
    if (!c.done) heap.push(i);
  }
  FLOE_RETURN_IF_ERROR(flush());
  runs_.clear();
  if (!any) {
    Sort empty(keys_, -1, 0);
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch none, empty.Finish(schema));
    return out(std::move(none));
  }
  return {};
}

}  // namespace floe::exec
