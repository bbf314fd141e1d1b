#include "floe/exec/hash_aggregate.h"

#include <cmath>
#include <cstring>

namespace floe::exec {

std::string_view AggFnName(AggFn fn) {
  static constexpr std::string_view kNames[] = {"count(*)", "count", "sum", "avg", "min", "max"};
  return kNames[static_cast<int>(fn)];
}

Result<DataType> AggregateType(AggFn fn, const DataType& arg) {
  switch (fn) {
    case AggFn::kCountStar:
    case AggFn::kCount:
      return columnar::Int64();
    case AggFn::kSum:
      if (arg.id == TypeId::kInt64 || arg.id == TypeId::kNull) return columnar::Int64();
      if (arg.id == TypeId::kFloat64) return columnar::Float64();
      // Exact, as DuckDB: decimal(38, s); a sum past 38 digits is an overflow error.
      if (arg.id == TypeId::kDecimal128) return columnar::Decimal128(38, arg.scale);
      break;
    case AggFn::kAvg:
      if (IsNumericType(arg) || arg.id == TypeId::kNull) return columnar::Float64();
      break;
    case AggFn::kMin:
    case AggFn::kMax:
      if (!arg.IsNested()) return arg;
      break;
  }
  return InvalidInput("type mismatch: {} of {} is not defined", AggFnName(fn), arg.ToString());
}

HashAggregate::HashAggregate(std::vector<ExprPtr> keys, std::vector<Aggregate> aggregates)
    : keys_(std::move(keys)), aggregates_(std::move(aggregates)) {
  if (keys_.empty()) GroupOf("", {});
}

int32_t HashAggregate::GroupOf(const std::string& key, const std::vector<Value>& values) {
  auto [it, inserted] = index_.try_emplace(key, static_cast<int32_t>(key_values_.size()));
  if (inserted) {
    key_values_.push_back(values);
    states_.emplace_back(aggregates_.size());
  }
  return it->second;
}

Status HashAggregate::Update(State& s, const Aggregate& a, const Value& v) {
  if (a.fn == AggFn::kCountStar) {
    ++s.count;
    return {};
  }
  if (v.is_null()) return {};
  if (a.distinct) {
    std::string k;
    AppendKeyBytes(v, &k);
    if (!s.distinct.insert(std::move(k)).second) return {};
  }
  ++s.count;
  switch (a.fn) {
    case AggFn::kSum:
    case AggFn::kAvg:
      if (v.v.index() == 2) {
        s.isum += v.i();
        s.dsum += static_cast<double>(v.i());
      } else if (v.v.index() == 5) {
        // Unscaled decimals: |value| < 10^38, so 2^127 / 10^38 (about 1.7 million) of them fit
        // before the accumulator could wrap; Finish rejects a sum past 38 digits.
        s.isum += v.dec();
      } else {
        s.dsum += v.d();
      }
      break;
    case AggFn::kMin:
      if (s.best.is_null() || CompareValues(v, s.best) < 0) s.best = v;
      break;
    case AggFn::kMax:
      if (s.best.is_null() || CompareValues(v, s.best) > 0) s.best = v;
      break;
    default:
      break;
  }
  return {};
}

Status HashAggregate::Consume(const columnar::RecordBatch& batch) {
  std::vector<ColumnPtr> key_cols, arg_cols;
  for (const auto& k : keys_) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*k, batch));
    key_cols.push_back(std::move(c));
  }
  for (const auto& a : aggregates_) {
    if (a.arg) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*a.arg, batch));
      arg_cols.push_back(std::move(c));
    } else {
      arg_cols.push_back(nullptr);
    }
  }
  std::string key;
  std::vector<Value> values(keys_.size());
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    key.clear();
    for (size_t k = 0; k < key_cols.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(values[k], ValueAt(*key_cols[k], r));
      AppendKeyBytes(values[k], &key);
    }
    int32_t g = keys_.empty() ? 0 : GroupOf(key, values);
    auto& states = states_[g];
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      Value v;
      if (arg_cols[a]) {
        FLOE_ASSIGN_OR_RETURN(v, ValueAt(*arg_cols[a], r));
      }
      FLOE_RETURN_IF_ERROR(Update(states[a], aggregates_[a], v));
    }
  }
  return {};
}

Status HashAggregate::Merge(HashAggregate&& other) {
  for (size_t og = 0; og < other.key_values_.size(); ++og) {
    std::string key;
    for (const auto& v : other.key_values_[og]) AppendKeyBytes(v, &key);
    int32_t g = keys_.empty() ? 0 : GroupOf(key, other.key_values_[og]);
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      State& s = states_[g][a];
      State& o = other.states_[og][a];
      const Aggregate& agg = aggregates_[a];
      if (agg.distinct) {
        // Re-count from the union of the sets; sums of distinct values are recomputed at Finish.
        for (auto& k : o.distinct) s.distinct.insert(k);
        s.count = static_cast<int64_t>(s.distinct.size());
        continue;
      }
      s.count += o.count;
      s.isum += o.isum;
      s.dsum += o.dsum;
      if (!o.best.is_null()) {
        int c = s.best.is_null() ? 0 : CompareValues(o.best, s.best);
        if (s.best.is_null() || (agg.fn == AggFn::kMin && c < 0) ||
            (agg.fn == AggFn::kMax && c > 0)) {
          s.best = o.best;
        }
      }
    }
  }
  return {};
}

namespace {

// 10^38: decimal(38, s) holds unscaled values of at most 38 digits.
constexpr __int128 kDecimalLimit = static_cast<__int128>(10'000'000'000'000'000'000ULL) *
                                   static_cast<__int128>(10'000'000'000'000'000'000ULL);

// Decodes a COUNT(DISTINCT)/SUM(DISTINCT) set key back to a value (see AppendKeyBytes).
Value DecodeKey(const std::string& k) {
  switch (k[0]) {
    case 2: {
      int64_t x;
      std::memcpy(&x, k.data() + 1, 8);
      return Value::Int(x);
    }
    case 3: {
      double x;
      std::memcpy(&x, k.data() + 1, 8);
      return Value::Double(x);
    }
    case 5: {
      Value v;
      __int128 x;
      std::memcpy(&x, k.data() + 1, 16);
      v.v = x;
      return v;
    }
    default:
      return Value{};
  }
}

}  // namespace

Result<columnar::RecordBatch> HashAggregate::Finish() {
  auto schema = std::make_shared<columnar::Schema>();
  columnar::RecordBatch out;
  int64_t n = static_cast<int64_t>(key_values_.size());
  for (size_t k = 0; k < keys_.size(); ++k) {
    ValueColumnBuilder b(keys_[k]->type);
    for (int64_t g = 0; g < n; ++g) {
      FLOE_RETURN_IF_ERROR(b.Append(key_values_[g][k]));
    }
    out.columns.push_back(b.Finish());
    schema->fields.push_back({fmt::format("k{}", k), keys_[k]->type});
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    const Aggregate& agg = aggregates_[a];
    ValueColumnBuilder b(agg.type);
    for (int64_t g = 0; g < n; ++g) {
      State& s = states_[g][a];
      if (agg.distinct && (agg.fn == AggFn::kSum || agg.fn == AggFn::kAvg)) {
        s.isum = 0;
        s.dsum = 0;
        for (const auto& key : s.distinct) {
          Value v = DecodeKey(key);
          if (v.v.index() == 2) {
            s.isum += v.i();
            s.dsum += static_cast<double>(v.i());
          } else if (v.v.index() == 5) {
            s.isum += v.dec();
          } else if (v.v.index() == 3) {
            s.dsum += v.d();
          }
        }
      }
      Value v;
      switch (agg.fn) {
        case AggFn::kCountStar:
        case AggFn::kCount:
          v = Value::Int(s.count);
          break;
        case AggFn::kSum:
          if (s.count == 0) break;
          if (agg.type.id == TypeId::kInt64) {
            if (s.isum > INT64_MAX || s.isum < INT64_MIN) {
              return InvalidInput("integer overflow in sum");
            }
            v = Value::Int(static_cast<int64_t>(s.isum));
          } else if (agg.type.id == TypeId::kDecimal128) {
            if (s.isum >= kDecimalLimit || s.isum <= -kDecimalLimit) {
              return InvalidInput("decimal overflow in sum: the result has more than 38 digits");
            }
            v.v = s.isum;
          } else {
            v = Value::Double(s.dsum);
          }
          break;
        case AggFn::kAvg:
          if (s.count == 0) break;
          if (agg.arg->type.id == TypeId::kDecimal128) {
            // From the exact sum: one rounding, not one per row.
            v = Value::Double(static_cast<double>(s.isum) / std::pow(10.0, agg.arg->type.scale) /
                              static_cast<double>(s.count));
          } else {
            v = Value::Double(agg.arg->type.id == TypeId::kInt64
                                  ? static_cast<double>(s.isum) / static_cast<double>(s.count)
                                  : s.dsum / static_cast<double>(s.count));
          }
          break;
        case AggFn::kMin:
        case AggFn::kMax:
          v = s.best;
          break;
      }
      FLOE_RETURN_IF_ERROR(b.Append(v));
    }
    out.columns.push_back(b.Finish());
    schema->fields.push_back({fmt::format("a{}", a), agg.type});
  }
  out.num_rows = n;
  out.schema = schema;
  return out;
}

}  // namespace floe::exec
