// HashAggregate: GROUP BY keys with the aggregate functions of AggFn, a column at a time. Each key
// column's values are interned to dense codes (KeyDict), a row's group is found from its codes,
// and the aggregates update from the argument columns' raw values with one loop per aggregate (a
// Value per row for COUNT(DISTINCT), MIN/MAX of non-integer types and the functions that keep
// values: quantiles, string_agg, arg_min/arg_max). Partial aggregates built on different threads
// merge into one (Merge), so a scan's workers each aggregate their own batches. Not thread-safe.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "floe/base/int_set.h"
#include "floe/base/pod_vector.h"
#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/exec/hyperloglog.h"

namespace floe::exec {

// DuckDB's semantics throughout: NULL arguments are skipped (kFirst keeps them), and a group
// with nothing to aggregate gives NULL (COUNT gives 0; COUNT_IF, as DuckDB's, NULL).
enum class AggFn {
  kCountStar,
  kCount,
  kSum,
  kAvg,
  kMin,
  kMax,
  kCountIf,              // rows whose (boolean) argument is true
  kBoolAnd,              // every non-null argument true
  kBoolOr,               // some argument true
  kAnyValue,             // some non-null argument
  kFirst,                // the argument of some row, NULL included (Spark's and DuckDB's first)
  kArgMin,               // arg of the row of least `arg2` (rows where either is NULL skipped)
  kArgMax,               // arg of the row of greatest `arg2`
  kVarSamp,              // sample variance (NULL below two values)
  kVarPop,               // population variance
  kStddevSamp,           // sqrt(kVarSamp)
  kStddevPop,            // sqrt(kVarPop)
  kQuantileCont,         // interpolated quantile `fraction` (median: 0.5)
  kQuantileDisc,         // the value at quantile `fraction`: index max(ceil(n * fraction) - 1, 0)
  kStringAgg,            // the values joined by `separator`, in `order` when given
  kApproxCountDistinct,  // HyperLogLog's estimate (exact up to 1,024 distinct values)
  kGrouping,  // GROUPING(keys): a bit per key named (the first highest), 1 where the grouping set
              // being aggregated leaves that key out (SetAbsentKeys); no argument is read
};

std::string_view AggFnName(AggFn fn);

struct Aggregate {
  AggFn fn = AggFn::kCountStar;
  ExprPtr arg;   // null for COUNT(*)
  ExprPtr arg2;  // kArgMin/kArgMax: the value compared
  bool distinct = false;
  ExprPtr filter;  // FILTER (WHERE filter): only the rows where it is true count; null: all
  // kStringAgg's ORDER BY: its keys, ascending unless descending (NULLs last either way).
  std::vector<ExprPtr> order;
  std::vector<bool> order_descending;
  double fraction = 0.5;           // the quantiles'
  std::string separator = ",";     // kStringAgg's
  std::vector<int> grouping_keys;  // kGrouping: indexes into the query's GROUP BY keys
  DataType type;                   // the result type (AggregateType)
};

// The result type of `fn` over `arg`, or a type-mismatch error (SUM of a string).
Result<DataType> AggregateType(AggFn fn, const DataType& arg);

// Interns the values of one key column to dense codes: 0 is NULL, then 1, 2, ... in first-seen
// order. Integer-valued columns (int64, date, timestamp, time) are coded through an array indexed
// by the value while their range is dense, else hashed from their raw values, as strings are;
// other types through their Value's key bytes.
class KeyDict {
 public:
  explicit KeyDict(const DataType& type);

  // codes[r] for every row of `c` (a column of the dictionary's type).
  Status Intern(const columnar::Column& c, std::vector<uint32_t>* codes);
  uint32_t InternValue(const Value& v);
  // This dictionary's code for `other`'s code `code` (a dictionary of the same type), interned
  // from its stored integer or bytes rather than through a Value (merging partial aggregates).
  uint32_t InternCodeOf(const KeyDict& other, uint32_t code);
  Value value(uint32_t code) const {
    if (IsInt()) return code == 0 ? Value{} : Value::Int(ints_[code]);
    if (kind_ == Kind::kBytes) return code == 0 ? Value{} : Value::Str(std::string(Bytes(code)));
    return values_[code];
  }
  size_t size() const { return IsInt() ? ints_.size() : ends_.size(); }
  // A column of `type` (the dictionary's) holding the values of codes[g * stride + offset] for
  // g < n (code 0: NULL).
  Result<columnar::ColumnPtr> Values(const DataType& type, std::span<const uint32_t> codes,
                                     size_t n, size_t stride, size_t offset) const;
  size_t EstimatedBytes() const;

 private:
  enum class Kind { kInt64, kInt32, kBytes, kGeneric };
  bool IsInt() const { return kind_ == Kind::kInt64 || kind_ == Kind::kInt32; }
  uint32_t InternInt(int64_t x);
  // A new code for integer x (not interned yet): ints_ and the range of values grow; the caller
  // puts it in the direct array or the hash table.
  uint32_t NewInt(int64_t x);
  // Widens the direct array to hold [lo, hi] (the values of `rows` rows), unless the values'
  // range would pass kDirectPerValue entries per value and row seen: then the integers move to
  // the hash table (until Grow finds them dense again), and false.
  bool CoverDirect(int64_t lo, int64_t hi, int64_t rows);
  void ToHashed();
  // Back from the hash table to direct codes over [least_, least_ + span).
  void ToDirect(size_t span);
  // Intern's codes of an integer column `values` by direct lookup; false (nothing done, the
  // dictionary now hashed) when the column's range is too wide for it. A range that its values
  // turn out too few for (more than twice kDirectPerValue entries per value) moves them to the
  // hash table after the batch.
  template <typename T>
  bool InternDirect(const columnar::Column& c, const T* values, uint32_t* out);
  // The code of byte string `b` whose hash is `h`; `v` its value for kGeneric.
  uint32_t InternBytes(std::string_view b, uint64_t h, const Value* v);
  uint32_t InternBytes(std::string_view b, const Value* v);
  std::string_view Bytes(uint32_t code) const {
    const uint64_t begin = code == 0 ? 0 : ends_[code - 1];
    return {arena_.data() + begin, static_cast<size_t>(ends_[code] - begin)};
  }
  void Grow();

  Kind kind_;
  // Integers, first coded by direct lookup: direct_[x - direct_base_] is x's code (0: not seen),
  // while the values span a range at most a few times the values and rows seen (keys such as
  // l_orderkey and c_custkey): no hashing, and rows in key order touch the array in order. A
  // value that would stretch it further moves them to the hash table (direct_ empty, hashed_),
  // and back when the table must grow and the values seen have made the range dense since.
  PodVector<uint32_t> direct_;
  int64_t direct_base_ = 0;
  bool hashed_ = false;
  // Direct codes while the values' range takes at most this many entries (64 bytes) per value
  // and row seen -- a hash table's four 16-byte slots per value just after it grows -- the array
  // at most twice that per value (its room to grow), or 256 KiB. Half of a key of density 1/4
  // (l_orderkey) in each of two partial aggregates is 1/8: within it.
  static constexpr int kDirectPerValue = 16;
  int64_t least_ = std::numeric_limits<int64_t>::max();  // of the integers coded
  int64_t greatest_ = std::numeric_limits<int64_t>::min();
  // Integers once hashed_: open addressing by value, the value beside its code (code 0, all zero
  // bytes = empty).
  struct IntSlot {
    int64_t value = 0;
    uint32_t code = 0;
  };
  PodVector<IntSlot> int_slots_;
  PodVector<int64_t> ints_;  // kInt*: the value of each code
  // Others: open addressing by the hash of the key bytes; a slot keeps its code (0 = empty; NULL
  // is never hashed) and the hash's high half, so a probe compares bytes only on a likely match.
  struct BytesSlot {
    uint32_t code = 0;
    uint32_t tag = 0;
  };
  PodVector<BytesSlot> slots_;
  std::vector<char> arena_;       // every code's hashed bytes, one after another
  std::vector<uint64_t> ends_;    // where each code's bytes end in arena_ (ends_[0] = 0: NULL)
  std::vector<uint64_t> hashes_;  // each code's hash, for Grow
  std::vector<Value> values_;     // kGeneric: every code's value (values_[0] is NULL)
  std::vector<uint64_t> hash_scratch_;  // a batch's row hashes (Intern)
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
  // Roughly the bytes the groups' keys and states hold (a memory budget's estimate).
  int64_t EstimatedBytes() const;
  // Moves every group to the aggregate `part_of` its key values picks among `parts` (empty
  // aggregates of the same keys and aggregates), as Merge would; this one is spent after.
  void SplitInto(const std::function<uint32_t(const std::vector<Value>&)>& part_of,
                 std::vector<std::unique_ptr<HashAggregate>>* parts);
  // For one set of GROUP BY GROUPING SETS / ROLLUP / CUBE: which of the query's keys (by index)
  // this aggregate's keys leave out, for GROUPING().
  void SetAbsentKeys(std::vector<bool> absent) { absent_keys_ = std::move(absent); }

 private:
  // What a group's aggregate keeps beyond counts and sums, allocated when first needed: a State
  // stays small (groups are many, and most aggregates are counts, sums and integer MIN/MAX).
  struct Kept {
    Value best;               // MIN/MAX of a non-integer argument; any_value, first; arg_min's key
    double mean = 0, m2 = 0;  // variances: Welford's running mean and sum of squared deviations
    std::unordered_set<std::string> distinct;  // DISTINCT: the key bytes of the values seen
    IntSet distinct_ints;                      // ... or an integer-valued argument's values
    std::vector<Value> values;                 // quantiles, string_agg
    std::vector<std::vector<Value>> orders;    // string_agg's ORDER BY keys, one per value
    Value payload;                             // arg_min/arg_max: the argument at `best`
    HyperLogLog sketch;                        // approx_count_distinct
    size_t slot = 0;                           // where kept_ of the aggregate owning it holds it
  };
  // Trivially copyable, so that the states grow in place (PodVector): a group's Kept is owned by
  // the aggregate's kept_, the state points at it.
  struct State {
    __int128 isum = 0;  // first: no padding before it, 48 bytes in all
    int64_t count = 0;
    // MIN/MAX of an integer-valued argument (valid when count > 0); bool_and/or's answer;
    // count_if's count of non-null arguments.
    int64_t ibest = 0;
    double dsum = 0;
    Kept* kept = nullptr;

    const Value& Best() const {
      static const Value kNone;
      return kept ? kept->best : kNone;
    }
  };
  // s's Kept, made (and owned by this aggregate) when it has none.
  Kept& K(State& s);
  // s takes o's Kept (o, a state of `from`, is left without one), which this aggregate then owns.
  void Adopt(HashAggregate& from, State& s, State& o);
  // The group of each code tuple (codes_ holds keys_.size() codes per group), creating new ones.
  void GroupsOf(const std::vector<std::vector<uint32_t>>& codes, int64_t rows,
                std::vector<int32_t>* groups);
  int32_t GroupOfCodes(const uint32_t* codes);
  void GrowTable();
  State& state(int32_t g, size_t a) {
    return states_[static_cast<size_t>(g) * aggregates_.size() + a];
  }
  // The columns one aggregate reads from a batch.
  struct Inputs {
    ColumnPtr arg, arg2;
    std::vector<ColumnPtr> order;
    std::vector<uint8_t> keep;  // FILTER: 1 where the row counts; empty when no filter
  };
  Status Update(State& s, const Aggregate& a, const Value& v);
  // The functions after kMax, row `r` of `in`.
  Status UpdateKept(State& s, const Aggregate& a, const Inputs& in, int64_t r);
  Status UpdateColumn(size_t a, const Inputs& in, const std::vector<int32_t>& groups, int64_t rows);
  // With few groups (Q01's four), a batch's rows of each group, listed once for all aggregates:
  // group g's rows are few_rows_[few_offsets_[g], few_offsets_[g + 1]), ascending. Empty when
  // the batch has more groups or rows than that pays for.
  void PartitionFew(const std::vector<int32_t>& groups, int64_t rows);
  // UpdateColumn's sums and counts over PartitionFew's lists: each group's sum in a register,
  // its count the list's length. False (nothing changed) where that does not apply.
  bool UpdateFew(size_t a, const Inputs& in);
  // Folds o, a state of `from`, into s.
  void MergeState(const Aggregate& a, State& s, State& o, HashAggregate& from);
  // Folds group `og` of `other` into this one's group of the same keys (`tuple`: scratch).
  void MergeGroup(HashAggregate& other, int64_t og, std::vector<uint32_t>* tuple);
  Result<Value> FinishKept(const Aggregate& a, State& s) const;

  std::vector<ExprPtr> keys_;
  std::vector<Aggregate> aggregates_;
  std::vector<KeyDict> dicts_;    // one per key
  PodVector<uint32_t> codes_;     // per group, per key
  PodVector<int32_t> by_code_;    // one key: the group of each code plus one, 0 = none yet
  std::vector<int32_t> table_;    // several keys: open addressing, group + 1, 0 = empty
  std::vector<uint64_t> packed_;  // two keys: each group's codes as one integer
  // Two keys of few distinct values: the group of codes (a, b) at a * dense_stride_ + b, -1 none.
  std::vector<int32_t> dense_;
  size_t dense_rows_ = 0, dense_stride_ = 0;
  // Per-batch scratch, kept to spare the allocations.
  std::vector<std::vector<uint32_t>> batch_codes_;
  std::vector<int32_t> batch_groups_;
  // Subexpressions the aggregates' arguments share (Q01's l_extendedprice * (1 - l_discount),
  // summed alone and inside another sum), planned at the first batch (ShareSubexpressions): each
  // computed once per batch onto its end, the arguments rewritten to read them there.
  void ShareSubexpressions(int batch_columns);
  int shared_base_ = -1;              // the batch's columns they were planned for; -1: not yet
  std::vector<ExprPtr> shared_;       // computed in order, each over the batch and those before
  std::vector<ExprPtr> shared_args_;  // per aggregate: its argument over the extended batch
  std::vector<int32_t> few_rows_;     // PartitionFew
  std::vector<int64_t> few_offsets_;  // PartitionFew: groups + 1 when made, else empty
  int64_t groups_ = 0;
  PodVector<State> states_;                  // per group, per aggregate
  std::vector<std::unique_ptr<Kept>> kept_;  // what the states' `kept` point at (null: adopted)
  std::vector<bool> absent_keys_;
};

}  // namespace floe::exec
