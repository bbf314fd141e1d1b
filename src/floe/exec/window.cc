#include "floe/exec/window.h"

#include <algorithm>
#include <numeric>

#include "floe/exec/value.h"

namespace floe::exec {

namespace {

using columnar::RecordBatch;
using WFn = WindowCall::Fn;

// Every row's value of `e` (NULL as an empty Value).
Result<std::vector<Value>> RowValues(const Expr& e, const RecordBatch& b) {
  FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(e, b));
  std::vector<Value> out(static_cast<size_t>(b.num_rows));
  if (c->type.id == TypeId::kNull) return out;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    if (c->IsNull(r)) continue;
    FLOE_ASSIGN_OR_RETURN(out[static_cast<size_t>(r)], ValueAt(*c, r));
  }
  return out;
}

int Compare(const Value& a, const Value& b, bool descending, bool nulls_first) {
  if (a.is_null() || b.is_null()) {
    if (a.is_null() && b.is_null()) return 0;
    return a.is_null() == nulls_first ? -1 : 1;
  }
  const int c = CompareValues(a, b);
  return descending ? -c : c;
}

// `key` moved by `offset` (same representation: integers and dates, doubles, decimals), `sign`
// +1 or -1; integers saturate rather than wrap.
Value Shift(const Value& key, const Value& offset, int sign) {
  switch (key.v.index()) {
    case 2: {
      const __int128 moved =
          static_cast<__int128>(key.i()) + sign * static_cast<__int128>(offset.i());
      return Value::Int(static_cast<int64_t>(std::clamp<__int128>(moved, INT64_MIN, INT64_MAX)));
    }
    case 3:
      return Value::Double(key.d() + sign * offset.d());
    default: {
      Value out;
      out.v = key.dec() + sign * offset.dec();
      return out;
    }
  }
}

// 10^n as a double, for a decimal's scale.
double Scale(int32_t n) {
  double p = 1;
  for (int32_t i = 0; i < n; ++i) p *= 10;
  return p;
}

// A running aggregate of a frame's values.
struct Accumulator {
  int64_t rows = 0, count = 0;
  __int128 exact = 0;  // integers and decimals (unscaled)
  double real = 0;     // doubles
  Value min, max;

  void Add(const Value& v) {
    ++rows;
    if (v.is_null()) return;
    ++count;
    switch (v.v.index()) {
      case 2:
        exact += v.i();
        break;
      case 3:
        real += v.d();
        break;
      case 5:
        exact += v.dec();
        break;
      default:
        break;
    }
    if (min.is_null() || CompareValues(v, min) < 0) min = v;
    if (max.is_null() || CompareValues(v, max) > 0) max = v;
  }

  Result<Value> Finish(AggFn fn, const DataType& arg, const DataType& type) const {
    switch (fn) {
      case AggFn::kCountStar:
        return Value::Int(rows);
      case AggFn::kCount:
        return Value::Int(count);
      case AggFn::kMin:
        return min;
      case AggFn::kMax:
        return max;
      default:
        break;
    }
    if (count == 0) return Value{};
    if (fn == AggFn::kAvg) {
      const double n = static_cast<double>(count);
      if (arg.id == TypeId::kFloat64) return Value::Double(real / n);
      const double sum = static_cast<double>(exact);
      return Value::Double(arg.id == TypeId::kDecimal128 ? sum / Scale(arg.scale) / n : sum / n);
    }
    // kSum
    if (type.id == TypeId::kFloat64) return Value::Double(real);
    if (type.id == TypeId::kInt64) {
      if (exact > INT64_MAX || exact < INT64_MIN) return InvalidInput("integer overflow in sum");
      return Value::Int(static_cast<int64_t>(exact));
    }
    Value out;
    out.v = exact;
    return out;
  }
};

Status Compute(const WindowCall& w, RecordBatch* batch) {
  const auto n = static_cast<size_t>(batch->num_rows);
  std::vector<std::vector<Value>> part, order, args;
  for (const auto& e : w.partition) {
    FLOE_ASSIGN_OR_RETURN(auto v, RowValues(*e, *batch));
    part.push_back(std::move(v));
  }
  for (const auto& k : w.order) {
    FLOE_ASSIGN_OR_RETURN(auto v, RowValues(*k.expr, *batch));
    order.push_back(std::move(v));
  }
  for (const auto& e : w.args) {
    FLOE_ASSIGN_OR_RETURN(auto v, RowValues(*e, *batch));
    args.push_back(std::move(v));
  }
  auto same_part = [&](size_t a, size_t b) {
    for (const auto& p : part) {
      if (Compare(p[a], p[b], false, true) != 0) return false;
    }
    return true;
  };
  auto peers = [&](size_t a, size_t b) {
    for (const auto& o : order) {
      if (Compare(o[a], o[b], false, true) != 0) return false;
    }
    return true;
  };
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    for (const auto& p : part) {
      const int c = Compare(p[a], p[b], false, true);
      if (c != 0) return c < 0;
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const int c =
          Compare(order[k][a], order[k][b], w.order[k].descending, w.order[k].nulls_first);
      if (c != 0) return c < 0;
    }
    return false;
  });
  const DataType arg_type = w.args.empty() ? columnar::Int64() : w.args[0]->type;
  std::vector<Value> out(n);
  std::vector<size_t> peer_start(n), peer_end(n);
  for (size_t b = 0; b < n;) {
    size_t e = b + 1;
    while (e < n && same_part(idx[b], idx[e])) ++e;
    // Peer groups: positions with equal ORDER BY values.
    for (size_t g = b; g < e;) {
      size_t h = g + 1;
      while (h < e && peers(idx[g], idx[h])) ++h;
      for (size_t p = g; p < h; ++p) {
        peer_start[p] = g;
        peer_end[p] = h;
      }
      g = h;
    }
    // RANGE with an offset: the partition's positions whose one ORDER BY key is not NULL.
    size_t nb = b, ne = e;
    if (!order.empty()) {
      while (nb < ne && order[0][idx[nb]].is_null()) ++nb;
      while (ne > nb && order[0][idx[ne - 1]].is_null()) --ne;
    }
    const auto size = static_cast<int64_t>(e - b);
    int64_t dense = 0;
    Accumulator running;
    size_t running_end = b;
    for (size_t p = b; p < e; ++p) {
      const size_t row = idx[p];
      const auto rel = static_cast<int64_t>(p - b);
      if (peer_start[p] == p) ++dense;
      // A RANGE offset's end of the frame: the key `f.range_offset` before (PRECEDING) or after
      // the row's in the ORDER BY direction; the frame starts at the first row not before it and
      // ends after the last row not past it. A NULL key's frame is its peers.
      auto range_bound = [&](const FrameBound& f, bool is_end) -> size_t {
        const Value& key = order[0][row];
        if (key.is_null()) return is_end ? peer_end[p] : peer_start[p];
        const bool descending = w.order[0].descending;
        const int toward = (f.kind == FrameBound::Kind::kPreceding) == descending ? 1 : -1;
        const Value target = Shift(key, f.range_offset, toward);
        // Keys in the ORDER BY direction against the target: non-decreasing over [nb, ne).
        auto cmp = [&](size_t q) {
          const int c = CompareValues(order[0][idx[q]], target);
          return descending ? -c : c;
        };
        size_t lo = nb, hi = ne;
        while (lo < hi) {
          const size_t mid = lo + (hi - lo) / 2;
          if (is_end ? cmp(mid) <= 0 : cmp(mid) < 0) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        return lo;
      };
      // The frame [fs, fe).
      auto bound = [&](const FrameBound& f, bool is_end) -> size_t {
        const auto pos = static_cast<int64_t>(p);
        int64_t at = 0;
        switch (f.kind) {
          case FrameBound::Kind::kUnboundedPreceding:
            return b;
          case FrameBound::Kind::kUnboundedFollowing:
            return e;
          case FrameBound::Kind::kCurrentRow:
            if (w.rows) return is_end ? p + 1 : p;
            return is_end ? peer_end[p] : peer_start[p];
          case FrameBound::Kind::kPreceding:
          case FrameBound::Kind::kFollowing:
            if (!w.rows) return range_bound(f, is_end);
            at = pos + (f.kind == FrameBound::Kind::kPreceding ? -f.offset : f.offset) +
                 (is_end ? 1 : 0);
            break;
        }
        return static_cast<size_t>(
            std::clamp<int64_t>(at, static_cast<int64_t>(b), static_cast<int64_t>(e)));
      };
      const size_t fs = bound(w.start, false);
      const size_t fe = std::max(fs, bound(w.end, true));
      Value& v = out[row];
      switch (w.fn) {
        case WFn::kRowNumber:
          v = Value::Int(rel + 1);
          break;
        case WFn::kRank:
          v = Value::Int(static_cast<int64_t>(peer_start[p] - b) + 1);
          break;
        case WFn::kDenseRank:
          v = Value::Int(dense);
          break;
        case WFn::kPercentRank:
          v = Value::Double(size == 1 ? 0.0
                                      : static_cast<double>(peer_start[p] - b) /
                                            static_cast<double>(size - 1));
          break;
        case WFn::kCumeDist:
          v = Value::Double(static_cast<double>(peer_end[p] - b) / static_cast<double>(size));
          break;
        case WFn::kNtile: {
          const Value& k = args[0][row];
          if (k.is_null()) break;
          if (k.i() <= 0) return InvalidInput("ntile's argument must be positive, not {}", k.i());
          const int64_t buckets = k.i(), small = size / buckets, big = size % buckets;
          // The first `big` buckets hold one row more.
          v = Value::Int(small == 0                ? rel + 1
                         : rel < big * (small + 1) ? rel / (small + 1) + 1
                                                   : (rel - big) / small + 1);
          break;
        }
        case WFn::kLag:
        case WFn::kLead: {
          int64_t offset = 1;
          if (args.size() > 1) {
            if (args[1][row].is_null()) break;
            offset = args[1][row].i();
          }
          const int64_t at = w.fn == WFn::kLag ? static_cast<int64_t>(p) - offset
                                               : static_cast<int64_t>(p) + offset;
          if (at >= static_cast<int64_t>(b) && at < static_cast<int64_t>(e)) {
            v = args[0][idx[static_cast<size_t>(at)]];
          } else if (args.size() > 2) {
            v = args[2][row];
          }
          break;
        }
        case WFn::kFirstValue:
          if (fs < fe) v = args[0][idx[fs]];
          break;
        case WFn::kLastValue:
          if (fs < fe) v = args[0][idx[fe - 1]];
          break;
        case WFn::kNthValue: {
          const Value& k = args[1][row];
          if (k.is_null()) break;
          if (k.i() <= 0) {
            return InvalidInput("nth_value's position must be positive, not {}", k.i());
          }
          if (fs + static_cast<size_t>(k.i()) - 1 < fe) {
            v = args[0][idx[fs + static_cast<size_t>(k.i()) - 1]];
          }
          break;
        }
        case WFn::kAggregate: {
          auto value_at = [&](size_t q) {
            return w.args.empty() ? Value::Int(1) : args[0][idx[q]];
          };
          if (w.start.kind == FrameBound::Kind::kUnboundedPreceding) {
            // Frames that only grow: one running aggregate.
            while (running_end < fe) running.Add(value_at(running_end++));
            FLOE_ASSIGN_OR_RETURN(v, running.Finish(w.aggregate, arg_type, w.type));
          } else {
            Accumulator frame;
            for (size_t q = fs; q < fe; ++q) frame.Add(value_at(q));
            FLOE_ASSIGN_OR_RETURN(v, frame.Finish(w.aggregate, arg_type, w.type));
          }
          break;
        }
      }
    }
    b = e;
  }
  ValueColumnBuilder column(w.type);
  for (const Value& v : out) {
    if (v.is_null()) {
      column.AppendNull();
      continue;
    }
    FLOE_RETURN_IF_ERROR(column.Append(v));
  }
  batch->columns.push_back(column.Finish());
  if (batch->schema) {
    auto schema = std::make_shared<columnar::Schema>(*batch->schema);
    schema->fields.push_back({fmt::format("w{}", schema->fields.size()), w.type});
    batch->schema = schema;
  }
  return {};
}

}  // namespace

Result<DataType> WindowType(WindowCall::Fn fn, AggFn aggregate, const std::vector<DataType>& args) {
  switch (fn) {
    case WFn::kRowNumber:
    case WFn::kRank:
    case WFn::kDenseRank:
    case WFn::kNtile:
      return columnar::Int64();
    case WFn::kPercentRank:
    case WFn::kCumeDist:
      return columnar::Float64();
    case WFn::kLag:
    case WFn::kLead:
    case WFn::kFirstValue:
    case WFn::kLastValue:
    case WFn::kNthValue:
      return args[0].id == TypeId::kNull ? columnar::Int64() : args[0];
    case WFn::kAggregate:
      if (aggregate == AggFn::kMin || aggregate == AggFn::kMax) {
        return args[0].id == TypeId::kNull ? columnar::Int64() : args[0];
      }
      return AggregateType(aggregate, args.empty() ? columnar::Int64() : args[0]);
  }
  return Internal("window function {}", static_cast<int>(fn));
}

Status ComputeWindows(const std::vector<WindowCall>& calls, columnar::RecordBatch* batch) {
  for (const auto& w : calls) FLOE_RETURN_IF_ERROR(Compute(w, batch));
  return {};
}

}  // namespace floe::exec
