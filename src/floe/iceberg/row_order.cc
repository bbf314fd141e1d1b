#include "floe/iceberg/row_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "floe/iceberg/data_writer.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

// One sort field's keys for every row, in the cheapest representation that orders correctly.
struct Keys {
  enum Kind { kInt, kFloat, kBytes, kLiteral } kind = kLiteral;
  bool descending = false;
  bool nulls_first = true;
  std::vector<uint8_t> null;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string_view> bytes;  // point into the batch's buffers
  std::vector<Literal> literals;

  // <0, 0, >0 for rows a and b, direction and null order applied.
  int CompareRows(int64_t a, int64_t b) const {
    bool na = null[a], nb = null[b];
    if (na || nb) {
      if (na == nb) return 0;
      return (na == nulls_first) ? -1 : 1;
    }
    int r = 0;
    switch (kind) {
      case kInt:
        r = ints[a] < ints[b] ? -1 : ints[a] > ints[b] ? 1 : 0;
        break;
      case kFloat: {
        double x = floats[a], y = floats[b];
        bool xn = std::isnan(x), yn = std::isnan(y);
        if (xn || yn) {
          r = xn == yn ? 0 : xn ? 1 : -1;  // NaN sorts above every number
        } else if (x == 0 && y == 0) {
          r = std::signbit(x) == std::signbit(y) ? 0 : std::signbit(x) ? -1 : 1;
        } else {
          r = x < y ? -1 : x > y ? 1 : 0;
        }
        break;
      }
      case kBytes: {
        int cmp = bytes[a].compare(bytes[b]);  // char_traits<char> compares as unsigned bytes
        r = cmp < 0 ? -1 : cmp > 0 ? 1 : 0;
        break;
      }
      case kLiteral: {
        auto cmp = Compare(literals[a], literals[b]);
        r = cmp == std::partial_ordering::less ? -1 : cmp == std::partial_ordering::greater ? 1 : 0;
        break;
      }
    }
    return descending ? -r : r;
  }
};

bool IsIntegral(TypeId t) {
  switch (t) {
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return true;
    default:
      return false;
  }
}

Result<Keys> Extract(const c::Column& col, const Type& type, const SortField& f) {
  Keys k;
  k.descending = f.direction == SortDirection::kDesc;
  k.nulls_first = f.null_order == NullOrder::kNullsFirst;
  const int64_t n = col.length;
  k.null.resize(n);
  for (int64_t i = 0; i < n; ++i) k.null[i] = col.IsNull(i);
  const bool identity = f.transform.kind == TransformKind::kIdentity;
  if (identity && IsIntegral(type.id)) {
    k.kind = Keys::kInt;
    k.ints.resize(n);
    const bool narrow = col.type.FixedWidth() == 4;
    for (int64_t i = 0; i < n; ++i)
      k.ints[i] = narrow ? col.Value<int32_t>(i) : col.Value<int64_t>(i);
    return k;
  }
  if (identity && (type.id == TypeId::kFloat || type.id == TypeId::kDouble)) {
    k.kind = Keys::kFloat;
    k.floats.resize(n);
    for (int64_t i = 0; i < n; ++i)
      k.floats[i] = type.id == TypeId::kFloat ? col.Value<float>(i) : col.Value<double>(i);
    return k;
  }
  if (identity && (type.id == TypeId::kString || type.id == TypeId::kBinary ||
                   type.id == TypeId::kFixed || type.id == TypeId::kUuid)) {
    k.kind = Keys::kBytes;
    k.bytes.resize(n);
    for (int64_t i = 0; i < n; ++i)
      if (!k.null[i]) k.bytes[i] = col.BytesAt(i);
    return k;
  }
  k.kind = Keys::kLiteral;
  k.literals.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    if (k.null[i]) continue;
    FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(col, i, type));
    if (!identity) {
      FLOE_ASSIGN_OR_RETURN(v, f.transform.Apply(v));
      if (v.is_null()) k.null[i] = 1;
    }
    k.literals[i] = std::move(v);
  }
  return k;
}

}  // namespace

Result<std::vector<int64_t>> SortIndices(const c::RecordBatch& batch, const Schema& schema,
                                         const SortOrder& order) {
  std::vector<Keys> keys;
  for (const auto& f : order.fields()) {
    const NestedField* field = schema.FindById(f.source_id);
    std::string name = schema.NameOf(f.source_id);
    auto idx = batch.schema->IndexOf(name);
    if (field == nullptr) return InvalidInput("sort field id {} is not in the schema", f.source_id);
    if (!idx) return Unsupported("sort column '{}' is not a top-level column", name);
    FLOE_ASSIGN_OR_RETURN(Keys k, Extract(*batch.columns[*idx], *field->type, f));
    keys.push_back(std::move(k));
  }
  std::vector<int64_t> rows(batch.num_rows);
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int64_t a, int64_t b) {
    for (const auto& k : keys) {
      int r = k.CompareRows(a, b);
      if (r != 0) return r < 0;
    }
    return false;
  });
  return rows;
}

}  // namespace floe::iceberg
