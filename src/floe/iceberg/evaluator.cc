#include "floe/iceberg/evaluator.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>

namespace floe::iceberg {
namespace {

using std::partial_ordering;

bool IsFloating(const Literal& v) {
  return !v.is_null() && (v.type() == TypeId::kFloat || v.type() == TypeId::kDouble);
}
double AsDouble(const Literal& v) {
  return v.type() == TypeId::kFloat ? std::get<float>(v.storage()) : std::get<double>(v.storage());
}

bool IsNaN(const Literal& v) { return IsFloating(v) && std::isnan(AsDouble(v)); }

// Comparison under the SQL semantics floe evaluates with (DuckDB's, which Spark shares): -0.0
// equals 0.0, and NaN equals NaN and sorts above every number. Iceberg orders bounds by a total
// order in which -0.0 < 0.0; everywhere else the two agree.
partial_ordering SqlCompare(const Literal& a, const Literal& b) {
  if (IsFloating(a) && IsFloating(b) && a.type() == b.type()) {
    const double x = AsDouble(a), y = AsDouble(b);
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) {
      if (xn && yn) return partial_ordering::equivalent;
      return xn ? partial_ordering::greater : partial_ordering::less;
    }
    return x <=> y;  // IEEE: -0.0 == 0.0
  }
  return Compare(a, b);
}

bool Less(const Literal& a, const Literal& b) { return SqlCompare(a, b) == partial_ordering::less; }
bool Greater(const Literal& a, const Literal& b) {
  return SqlCompare(a, b) == partial_ordering::greater;
}

// Whether NaN satisfies the predicate: it sorts above every number and equals itself.
bool NaNSatisfies(const Expr& p) {
  switch (p.op) {
    case Op::kGt:
    case Op::kGtEq:
      return true;
    case Op::kNotEq:
    case Op::kNotIn:
      return std::none_of(p.literals.begin(), p.literals.end(), IsNaN);
    case Op::kEq:
    case Op::kIn:
      return std::any_of(p.literals.begin(), p.literals.end(), IsNaN);
    default:
      return false;
  }
}

// Evaluates AND/OR/NOT over leaves decided by `leaf`.
template <typename Leaf>
bool Walk(const ExprPtr& e, Leaf&& leaf) {
  switch (e->op) {
    case Op::kTrue:
      return true;
    case Op::kFalse:
      return false;
    case Op::kAnd:
      return Walk(e->children[0], leaf) && Walk(e->children[1], leaf);
    case Op::kOr:
      return Walk(e->children[0], leaf) || Walk(e->children[1], leaf);
    case Op::kNot:
      return true;  // conservative: callers rewrite NOT away before pruning
    default:
      return leaf(*e);
  }
}

std::optional<size_t> PartitionIndex(const Type& ptype, int32_t field_id) {
  for (size_t i = 0; i < ptype.fields.size(); ++i) {
    if (ptype.fields[i].id == field_id) return i;
  }
  return std::nullopt;
}

// Might any value in [lower, upper] -- plus NaN when `may_hold_nan`: bounds never include it --
// satisfy the comparison? Missing bounds: yes.
bool RangeMightMatch(const Expr& p, std::optional<Literal> lower, std::optional<Literal> upper,
                     bool may_hold_nan) {
  if (may_hold_nan && NaNSatisfies(p)) return true;
  // NaN is never a bound (spec); a writer that wrote one gave no bound.
  if (lower && IsNaN(*lower)) lower.reset();
  if (upper && IsNaN(*upper)) upper.reset();
  switch (p.op) {
    case Op::kLt:
      return !lower || Less(*lower, p.literals[0]);
    case Op::kLtEq:
      return !lower || !Greater(*lower, p.literals[0]);
    case Op::kGt:
      return !upper || Greater(*upper, p.literals[0]);
    case Op::kGtEq:
      return !upper || !Less(*upper, p.literals[0]);
    case Op::kEq:
    case Op::kIn:
      return std::any_of(p.literals.begin(), p.literals.end(), [&](const Literal& v) {
        if (v.is_null()) return true;
        if (IsNaN(v)) return may_hold_nan;
        return !(lower && Less(v, *lower)) && !(upper && Greater(v, *upper));
      });
    case Op::kStartsWith: {
      const std::string& prefix = p.literals[0].AsString();
      if (lower && lower->type() == TypeId::kString &&
          lower->AsString().substr(0, prefix.size()) > prefix) {
        return false;
      }
      if (upper && upper->type() == TypeId::kString &&
          upper->AsString().substr(0, prefix.size()) < prefix) {
        return false;
      }
      return true;
    }
    case Op::kNotEq:
    case Op::kNotIn:
      // Only a single-valued range equal to every excluded value is ruled out.
      if (lower && upper && SqlCompare(*lower, *upper) == partial_ordering::equivalent) {
        return std::none_of(p.literals.begin(), p.literals.end(), [&](const Literal& v) {
          return SqlCompare(v, *lower) == partial_ordering::equivalent;
        });
      }
      return true;
    case Op::kNotStartsWith: {
      const std::string& prefix = p.literals[0].AsString();
      if (lower && upper && lower->type() == TypeId::kString &&
          lower->AsString().starts_with(prefix) && upper->AsString().starts_with(prefix)) {
        return false;
      }
      return true;
    }
    default:
      return true;
  }
}

}  // namespace

bool EvalPredicate(const Expr& p, const Literal& v) {
  if (p.op == Op::kIsNull) return v.is_null();
  if (p.op == Op::kNotNull) return !v.is_null();
  if (v.is_null()) return false;
  switch (p.op) {
    case Op::kEq:
      return SqlCompare(v, p.literals[0]) == partial_ordering::equivalent;
    case Op::kNotEq:
      return SqlCompare(v, p.literals[0]) != partial_ordering::equivalent;
    case Op::kLt:
      return Less(v, p.literals[0]);
    case Op::kLtEq: {
      auto c = SqlCompare(v, p.literals[0]);
      return c == partial_ordering::less || c == partial_ordering::equivalent;
    }
    case Op::kGt:
      return Greater(v, p.literals[0]);
    case Op::kGtEq: {
      auto c = SqlCompare(v, p.literals[0]);
      return c == partial_ordering::greater || c == partial_ordering::equivalent;
    }
    case Op::kIn:
      return std::any_of(p.literals.begin(), p.literals.end(), [&](const Literal& x) {
        return SqlCompare(v, x) == partial_ordering::equivalent;
      });
    case Op::kNotIn:
      return std::none_of(p.literals.begin(), p.literals.end(), [&](const Literal& x) {
        return SqlCompare(v, x) == partial_ordering::equivalent;
      });
    case Op::kStartsWith:
      return v.type() == TypeId::kString && v.AsString().starts_with(p.literals[0].AsString());
    case Op::kNotStartsWith:
      return v.type() == TypeId::kString && !v.AsString().starts_with(p.literals[0].AsString());
    default:
      return true;
  }
}

bool MatchesPartition(const ExprPtr& expr, const Type& ptype,
                      const std::vector<Literal>& partition) {
  return Walk(expr, [&](const Expr& p) {
    auto i = PartitionIndex(ptype, p.field_id);
    if (!i || *i >= partition.size()) return true;
    return EvalPredicate(p, partition[*i]);
  });
}

bool SummariesMightMatch(const ExprPtr& expr, const Type& ptype,
                         const std::vector<FieldSummary>& summaries) {
  return Walk(expr, [&](const Expr& p) {
    auto i = PartitionIndex(ptype, p.field_id);
    if (!i || *i >= summaries.size()) return true;
    const FieldSummary& s = summaries[*i];
    const Type& t = *ptype.fields[*i].type;
    std::optional<Literal> lower, upper;
    if (s.lower_bound) {
      if (auto l = DeserializeBound(t, *s.lower_bound)) lower = *l;
    }
    if (s.upper_bound) {
      if (auto u = DeserializeBound(t, *s.upper_bound)) upper = *u;
    }
    bool has_values = lower.has_value() || upper.has_value() || s.contains_nan.value_or(false);
    if (p.op == Op::kIsNull) return s.contains_null;
    if (p.op == Op::kNotNull) return has_values || !s.contains_null;
    if (!has_values && s.contains_null) return false;  // only nulls: no comparison can match
    // contains_nan is optional: unknown means a float field may hold NaN.
    const bool floating = t.id == TypeId::kFloat || t.id == TypeId::kDouble;
    return RangeMightMatch(p, lower, upper, floating && s.contains_nan.value_or(true));
  });
}

namespace {

// The metrics test over any store of a file's metrics: `find_count(kind, id)` gives the value,
// null or NaN count of column `id` (kind 0, 1, 2), `find_bound(upper, id)` its serialised bound.
template <typename FindCount, typename FindBound>
bool MetricsTest(const ExprPtr& rewritten, const Schema& schema, FindCount&& find_count,
                 FindBound&& find_bound) {
  return Walk(rewritten, [&](const Expr& p) {
    const NestedField* field = schema.FindById(p.field_id);
    if (field == nullptr) return true;
    std::optional<int64_t> values = find_count(0, p.field_id), nulls = find_count(1, p.field_id),
                           nans = find_count(2, p.field_id);
    if (p.op == Op::kIsNull) return !(nulls && *nulls == 0);
    bool all_null = values && nulls && *values == *nulls;
    if (p.op == Op::kNotNull) return !all_null;
    if (all_null) return false;
    std::optional<Literal> lower, upper;
    if (std::optional<std::string_view> b = find_bound(false, p.field_id)) {
      if (auto l = DeserializeBound(*field->type, *b)) lower = *l;
    }
    if (std::optional<std::string_view> b = find_bound(true, p.field_id)) {
      if (auto u = DeserializeBound(*field->type, *b)) upper = *u;
    }
    // Bounds of float columns exclude NaN: without a NaN count of 0 the file may hold NaNs,
    // which satisfy > and >= (NaN sorts above every number).
    const bool floating = field->type->id == TypeId::kFloat || field->type->id == TypeId::kDouble;
    return RangeMightMatch(p, lower, upper, floating && !(nans && *nans == 0));
  });
}

// The last pair of `id` (a manifest map's later duplicate wins, as std::map assignment does).
template <typename V>
const V* FindLast(std::span<const std::pair<int32_t, V>> pairs, int32_t id) {
  for (size_t i = pairs.size(); i-- > 0;) {
    if (pairs[i].first == id) return &pairs[i].second;
  }
  return nullptr;
}

}  // namespace

bool MetricsMightMatch(const ExprPtr& bound, const Schema& schema, const DataFile& f) {
  auto find_count = [&](int kind, int32_t id) -> std::optional<int64_t> {
    const std::map<int32_t, int64_t>& m = kind == 0   ? f.value_counts
                                          : kind == 1 ? f.null_value_counts
                                                      : f.nan_value_counts;
    auto it = m.find(id);
    return it == m.end() ? std::nullopt : std::optional<int64_t>(it->second);
  };
  auto find_bound = [&](bool upper, int32_t id) -> std::optional<std::string_view> {
    const std::map<int32_t, std::string>& m = upper ? f.upper_bounds : f.lower_bounds;
    auto it = m.find(id);
    return it == m.end() ? std::nullopt : std::optional<std::string_view>(it->second);
  };
  return MetricsTest(RewriteNot(bound), schema, find_count, find_bound);
}

bool MetricsMightMatch(const ExprPtr& rewritten, const Schema& schema, const MetricsView& f) {
  auto find_count = [&](int kind, int32_t id) -> std::optional<int64_t> {
    const int64_t* v = FindLast(kind == 0   ? f.value_counts
                                : kind == 1 ? f.null_value_counts
                                            : f.nan_value_counts,
                                id);
    return v ? std::optional<int64_t>(*v) : std::nullopt;
  };
  auto find_bound = [&](bool upper, int32_t id) -> std::optional<std::string_view> {
    const std::string_view* v = FindLast(upper ? f.upper_bounds : f.lower_bounds, id);
    return v ? std::optional<std::string_view>(*v) : std::nullopt;
  };
  return MetricsTest(rewritten, schema, find_count, find_bound);
}

}  // namespace floe::iceberg
