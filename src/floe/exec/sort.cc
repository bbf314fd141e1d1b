#include "floe/exec/sort.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "floe/columnar/take.h"

namespace floe::exec {

int64_t RowsToKeep(int64_t limit, int64_t offset) {
  if (limit < 0) return -1;
  int64_t sum;
  if (__builtin_add_overflow(limit, offset, &sum)) return INT64_MAX;
  return sum;
}

namespace {

template <typename T>
int Order(T x, T y) {
  return x < y ? -1 : x > y ? 1 : 0;
}

// As CompareValues orders doubles: NaN above every number.
int OrderDoubles(double x, double y) {
  const bool xn = std::isnan(x), yn = std::isnan(y);
  if (xn || yn) return xn == yn ? 0 : xn ? 1 : -1;
  return Order(x, y);
}

// Whether KeyColumn compares a column of `t` in its own type.
bool TypedKey(TypeId t) {
  switch (t) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<KeyColumn> KeyColumn::Of(ColumnPtr column, const SortKey& key) {
  KeyColumn k;
  k.descending_ = key.descending;
  k.nulls_first_ = key.nulls_first;
  if (!TypedKey(column->type.id)) {
    // The rest as values (a type ValueAt cannot give is an error, as it always was).
    k.values_.reserve(static_cast<size_t>(column->length));
    for (int64_t r = 0; r < column->length; ++r) {
      FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(*column, r));
      k.values_.push_back(std::move(v));
    }
  }
  k.column_ = std::move(column);
  return k;
}

int KeyColumn::Compare(int64_t a, int64_t b) const {
  const columnar::Column& c = *column_;
  if (c.null_count > 0) {
    const bool an = c.IsNull(a), bn = c.IsNull(b);
    if (an || bn) {
      if (an == bn) return 0;
      return an == nulls_first_ ? -1 : 1;  // wherever the key puts NULLs, either direction
    }
  }
  int r = 0;
  switch (c.type.id) {
    case TypeId::kBool:
      r = Order<int>(c.BoolAt(a), c.BoolAt(b));
      break;
    case TypeId::kInt8:
      r = Order(c.Value<int8_t>(a), c.Value<int8_t>(b));
      break;
    case TypeId::kInt16:
      r = Order(c.Value<int16_t>(a), c.Value<int16_t>(b));
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      r = Order(c.Value<int32_t>(a), c.Value<int32_t>(b));
      break;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      r = Order(c.Value<int64_t>(a), c.Value<int64_t>(b));
      break;
    case TypeId::kUInt8:
      r = Order(c.Value<uint8_t>(a), c.Value<uint8_t>(b));
      break;
    case TypeId::kUInt16:
      r = Order(c.Value<uint16_t>(a), c.Value<uint16_t>(b));
      break;
    case TypeId::kUInt32:
      r = Order(c.Value<uint32_t>(a), c.Value<uint32_t>(b));
      break;
    case TypeId::kFloat32:
      r = OrderDoubles(c.Value<float>(a), c.Value<float>(b));
      break;
    case TypeId::kFloat64:
      r = OrderDoubles(c.Value<double>(a), c.Value<double>(b));
      break;
    case TypeId::kDecimal128:
      r = Order(c.Value<__int128>(a), c.Value<__int128>(b));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      r = c.BytesAt(a).compare(c.BytesAt(b));  // bytes as unsigned, as CompareValues
      r = r < 0 ? -1 : r > 0 ? 1 : 0;
      break;
    default:
      r = CompareValues(values_[static_cast<size_t>(a)], values_[static_cast<size_t>(b)]);
      break;
  }
  return descending_ ? -r : r;
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
  std::vector<KeyColumn> cols;
  cols.reserve(keys_.size());
  for (const SortKey& key : keys_) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*key.expr, all));
    FLOE_ASSIGN_OR_RETURN(KeyColumn k, KeyColumn::Of(std::move(c), key));
    cols.push_back(std::move(k));
  }
  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  auto less = [&](int64_t a, int64_t b) {
    for (const KeyColumn& k : cols) {
      const int c = k.Compare(a, b);
      if (c != 0) return c < 0;
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
