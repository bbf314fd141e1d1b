// HashAggregate: GROUP BY keys with COUNT(*), COUNT, COUNT(DISTINCT), SUM, AVG, MIN, MAX, a column
// at a time. Each key column's values are interned to dense codes (KeyDict), a row's group is
// found from its codes, and the aggregates update from the argument columns' raw values with one
// loop per aggregate (a Value per row only for COUNT(DISTINCT) and MIN/MAX of non-integer types).
// Partial aggregates built on different threads merge into one (Merge), so a scan's workers each
// aggregate their own batches. Not thread-safe.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"

namespace floe::exec {

enum class AggFn { kCountStar, kCount, kSum, kAvg, kMin, kMax };

std::string_view AggFnName(AggFn fn);

struct Aggregate {
  AggFn fn = AggFn::kCountStar;
  ExprPtr arg;  // null for COUNT(*)
  bool distinct = false;
  DataType type;  // the result type (AggregateType)
};

// The result type of `fn` over `arg`, or a type-mismatch error (SUM of a string).
Result<DataType> AggregateType(AggFn fn, const DataType& arg);

// Interns the values of one key column to dense codes: 0 is NULL, then 1, 2, ... in first-seen
// order. Integer-valued columns (int64, date, timestamp, time) and strings are hashed from their
// raw values; other types through their Value's key bytes.
class KeyDict {
 public:
  explicit KeyDict(const DataType& type);

  // codes[r] for every row of `c` (a column of the dictionary's type).
  Status Intern(const columnar::Column& c, std::vector<uint32_t>* codes);
  uint32_t InternValue(const Value& v);
  const Value& value(uint32_t code) const { return values_[code]; }
  size_t size() const { return values_.size(); }

 private:
  enum class Kind { kInt64, kInt32, kBytes, kGeneric };
  uint32_t InternInt(int64_t x);
  uint32_t InternBytes(std::string_view b, const Value* v);
  void Grow();

  Kind kind_;
  std::vector<uint32_t> slots_;     // open addressing: code, 0 = empty (NULL is never hashed)
  std::vector<int64_t> ints_;       // kInt*: the value of each code
  std::vector<std::string> bytes_;  // kBytes, kGeneric: the hashed bytes of each code
  std::vector<Value> values_;       // every code's value (values_[0] is NULL)
  // The last column dictionary seen (Column::dictionary) and the code of each of its entries.
  columnar::ColumnPtr last_dictionary_;
  std::vector<uint32_t> dictionary_codes_;
};

class HashAggregate {
 public:
  HashAggregate(std::vector<ExprPtr> keys, std::vector<Aggregate> aggregates);

  Status Consume(const columnar::RecordBatch& batch);
  // Folds another partial aggregate of the same keys and aggregates into this one.
  Status Merge(HashAggregate&& other);
  // One row per group: the keys, then the aggregates. Without keys there is exactly one row.
  Result<columnar::RecordBatch> Finish();
  int64_t groups() const { return groups_; }

 private:
  struct State {
    int64_t count = 0;
    __int128 isum = 0;
    double dsum = 0;
    int64_t ibest = 0;  // MIN/MAX of an integer-valued argument (valid when count > 0)
    Value best;         // MIN/MAX of any other argument
    std::unordered_set<std::string> distinct;
  };
  // The group of each code tuple (codes_ holds keys_.size() codes per group), creating new ones.
  void GroupsOf(const std::vector<std::vector<uint32_t>>& codes, int64_t rows,
                std::vector<int32_t>* groups);
  int32_t GroupOfCodes(const uint32_t* codes);
  void GrowTable();
  State& state(int32_t g, size_t a) {
    return states_[static_cast<size_t>(g) * aggregates_.size() + a];
  }
  Status Update(State& s, const Aggregate& a, const Value& v);
  Status UpdateColumn(size_t a, const columnar::Column* arg, const std::vector<int32_t>& groups,
                      int64_t rows);

  std::vector<ExprPtr> keys_;
  std::vector<Aggregate> aggregates_;
  std::vector<KeyDict> dicts_;    // one per key
  std::vector<uint32_t> codes_;   // per group, per key
  std::vector<int32_t> by_code_;  // one key: the group of each code, -1 = none yet
  std::vector<int32_t> table_;    // several keys: open addressing, group + 1, 0 = empty
  std::vector<uint64_t> packed_;  // two keys: each group's codes as one integer
  // Two keys of few distinct values: the group of codes (a, b) at a * dense_stride_ + b, -1 none.
  std::vector<int32_t> dense_;
  size_t dense_rows_ = 0, dense_stride_ = 0;
  // Per-batch scratch, kept to spare the allocations.
  std::vector<std::vector<uint32_t>> batch_codes_;
  std::vector<int32_t> batch_groups_;
  int64_t groups_ = 0;
  std::vector<State> states_;  // per group, per aggregate
};

}  // namespace floe::exec
