#include "floe/exec/sort.h"

#include <algorithm>
#include <numeric>

#include "floe/columnar/take.h"

namespace floe::exec {

int64_t RowsToKeep(int64_t limit, int64_t offset) {
  if (limit < 0) return -1;
  int64_t sum;
  if (__builtin_add_overflow(limit, offset, &sum)) return INT64_MAX;
  return sum;
}

Sort::Sort(std::vector<SortKey> keys, int64_t limit, int64_t offset)
    : keys_(std::move(keys)), limit_(limit), offset_(offset), keep_(RowsToKeep(limit, offset)) {}

Status Sort::Consume(const columnar::RecordBatch& batch) {
  if (batch.num_rows == 0) return {};
  pending_.push_back(batch);
  pending_rows_ += batch.num_rows;
  // Compact when the rows held reach four times what the top-N keeps (at least 64 Ki): each
  // compaction then sorts at most 4x the rows it keeps, so the work stays linear in the input.
  if (keep_ >= 0 && keep_ <= INT64_MAX / 4 &&
      pending_rows_ > std::max<int64_t>(4 * keep_, int64_t{64} * 1024)) {
    return Compact(keep_);
  }
  return {};
}

Status Sort::Compact(int64_t keep) {
  if (pending_.empty()) return {};
  ++compactions_;
  FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch all, columnar::Concatenate(pending_));
  int64_t n = all.num_rows;
  std::vector<std::vector<Value>> cols(keys_.size());
  for (size_t k = 0; k < keys_.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*keys_[k].expr, all));
    cols[k].reserve(n);
    for (int64_t r = 0; r < n; ++r) {
      FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(*c, r));
      cols[k].push_back(std::move(v));
    }
  }
  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  auto less = [&](int64_t a, int64_t b) {
    for (size_t k = 0; k < keys_.size(); ++k) {
      const Value& x = cols[k][a];
      const Value& y = cols[k][b];
      bool xn = x.is_null(), yn = y.is_null();
      if (xn || yn) {
        if (xn == yn) continue;
        return xn == keys_[k].nulls_first;
      }
      int c = CompareValues(x, y);
      if (c != 0) return keys_[k].descending ? c > 0 : c < 0;
    }
    return a < b;  // stable
  };
  if (keep >= 0 && keep < n) {
    std::partial_sort(idx.begin(), idx.begin() + keep, idx.end(), less);
    idx.resize(keep);
  } else {
    std::sort(idx.begin(), idx.end(), less);
  }
  FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch sorted, columnar::Take(all, idx));
  pending_.clear();
  pending_.push_back(std::move(sorted));
  pending_rows_ = pending_.back().num_rows;
  return {};
}

Result<columnar::RecordBatch> Sort::Finish(const columnar::SchemaPtr& schema) {
  if (pending_.empty()) {
    columnar::RecordBatch empty;
    empty.schema = schema;
    for (const auto& f : schema->fields) {
      ValueColumnBuilder b(f.type);
      empty.columns.push_back(b.Finish());
    }
    return empty;
  }
  FLOE_RETURN_IF_ERROR(Compact(keep_));
  columnar::RecordBatch all = pending_.front();
  if (offset_ > 0) {
    std::vector<int64_t> idx;
    for (int64_t r = offset_; r < all.num_rows; ++r) idx.push_back(r);
    FLOE_ASSIGN_OR_RETURN(all, columnar::Take(all, idx));
  }
  return all;
}

}  // namespace floe::exec
