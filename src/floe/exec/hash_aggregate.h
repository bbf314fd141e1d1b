// HashAggregate: GROUP BY keys with COUNT(*), COUNT, COUNT(DISTINCT), SUM, AVG, MIN, MAX, one hash
// table of groups keyed by the keys' encoded values. Partial aggregates built on different threads
// merge into one (Merge), so a scan's workers each aggregate their own batches. Not thread-safe.
#pragma once

#include <string>
#include <unordered_map>
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

class HashAggregate {
 public:
  HashAggregate(std::vector<ExprPtr> keys, std::vector<Aggregate> aggregates);

  Status Consume(const columnar::RecordBatch& batch);
  // Folds another partial aggregate of the same keys and aggregates into this one.
  Status Merge(HashAggregate&& other);
  // One row per group: the keys, then the aggregates. Without keys there is exactly one row.
  Result<columnar::RecordBatch> Finish();
  int64_t groups() const { return static_cast<int64_t>(key_values_.size()); }

 private:
  struct State {
    int64_t count = 0;
    __int128 isum = 0;
    double dsum = 0;
    Value best;  // MIN/MAX
    std::unordered_set<std::string> distinct;
  };
  int32_t GroupOf(const std::string& key, const std::vector<Value>& values);
  Status Update(State& s, const Aggregate& a, const Value& v);

  std::vector<ExprPtr> keys_;
  std::vector<Aggregate> aggregates_;
  std::unordered_map<std::string, int32_t> index_;
  std::vector<std::vector<Value>> key_values_;  // per group
  std::vector<std::vector<State>> states_;      // per group, per aggregate
};

}  // namespace floe::exec
