#include "floe/iceberg/table_reader.h"

#include <algorithm>

#include "floe/columnar/take.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/schema_conform.h"

namespace floe::iceberg {
namespace {

// Evaluates a bound filter on one row (SQL semantics: unknown is false).
Result<bool> RowMatches(const ExprPtr& e, const columnar::RecordBatch& b, int64_t row,
                        const Schema& schema) {
  switch (e->op) {
    case Op::kTrue:
      return true;
    case Op::kFalse:
      return false;
    case Op::kAnd: {
      FLOE_ASSIGN_OR_RETURN(bool l, RowMatches(e->children[0], b, row, schema));
      if (!l) return false;
      return RowMatches(e->children[1], b, row, schema);
    }
    case Op::kOr: {
      FLOE_ASSIGN_OR_RETURN(bool l, RowMatches(e->children[0], b, row, schema));
      if (l) return true;
      return RowMatches(e->children[1], b, row, schema);
    }
    case Op::kNot: {
      FLOE_ASSIGN_OR_RETURN(bool v, RowMatches(e->children[0], b, row, schema));
      return !v;
    }
    default:
      break;
  }
  for (int c = 0; c < b.num_columns(); ++c) {
    if (b.schema->fields[c].field_id == e->field_id) {
      FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(*b.columns[c], row, *e->type));
      return EvalPredicate(*e, v);
    }
  }
  return Unsupported("filtering on nested column '{}'", e->column);
}

// A comparison of an integer-valued column (int, date: int32; long, time, timestamps: int64) or a
// string column with its literals, a column at a time: the same answers as EvalPredicate on each
// row (NULL matches only IS NULL), without a Literal per row. False when `e` is not such a
// predicate; the caller then evaluates it row by row.
template <typename T>
void CompareFixed(const Expr& e, const columnar::Column& col, T lit, std::vector<uint8_t>* out) {
  const T* v = col.Values<T>();
  const int64_t n = col.length;
  uint8_t* m = out->data();
  switch (e.op) {
    case Op::kEq:
      for (int64_t i = 0; i < n; ++i) m[i] = v[i] == lit;
      break;
    case Op::kNotEq:
      for (int64_t i = 0; i < n; ++i) m[i] = v[i] != lit;
      break;
    case Op::kLt:
      for (int64_t i = 0; i < n; ++i) m[i] = v[i] < lit;
      break;
    case Op::kLtEq:
      for (int64_t i = 0; i < n; ++i) m[i] = v[i] <= lit;
      break;
    case Op::kGt:
      for (int64_t i = 0; i < n; ++i) m[i] = v[i] > lit;
      break;
    default:  // kGtEq
      for (int64_t i = 0; i < n; ++i) m[i] = v[i] >= lit;
      break;
  }
}

bool MatchColumn(const Expr& e, const columnar::Column& col, std::vector<uint8_t>* out) {
  const int64_t n = col.length;
  out->assign(static_cast<size_t>(n), 0);
  if (e.op == Op::kIsNull || e.op == Op::kNotNull) {
    for (int64_t i = 0; i < n; ++i) (*out)[i] = col.IsNull(i) == (e.op == Op::kIsNull);
    return true;
  }
  const bool comparison = e.op >= Op::kEq && e.op <= Op::kGtEq && e.literals.size() == 1;
  if (!comparison || e.literals[0].is_null() || col.type.IsNested()) return false;
  const auto& lit = e.literals[0].storage();
  switch (e.type->id) {
    case TypeId::kInt:
    case TypeId::kDate:
      if (!std::holds_alternative<int32_t>(lit) || col.values.size() < n * sizeof(int32_t))
        return false;
      CompareFixed<int32_t>(e, col, std::get<int32_t>(lit), out);
      break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (!std::holds_alternative<int64_t>(lit) || col.values.size() < n * sizeof(int64_t))
        return false;
      CompareFixed<int64_t>(e, col, std::get<int64_t>(lit), out);
      break;
    case TypeId::kString: {
      if ((e.op != Op::kEq && e.op != Op::kNotEq) || !std::holds_alternative<std::string>(lit))
        return false;
      const std::string& want = std::get<std::string>(lit);
      const bool eq = e.op == Op::kEq;
      if (col.dictionary && col.codes.size() >= static_cast<size_t>(n) * 4) {
        // Compared once per dictionary entry; the rows look their entry's answer up.
        const columnar::Column& d = *col.dictionary;
        std::vector<uint8_t> answer(static_cast<size_t>(d.length));
        for (int64_t k = 0; k < d.length; ++k) answer[k] = (d.BytesAt(k) == want) == eq;
        const int32_t* codes = reinterpret_cast<const int32_t*>(col.codes.data());
        for (int64_t i = 0; i < n; ++i) {
          const auto k = static_cast<size_t>(codes[i]);
          (*out)[i] = k < answer.size() ? answer[k] : (col.BytesAt(i) == want) == eq;
        }
        break;
      }
      for (int64_t i = 0; i < n; ++i) (*out)[i] = (col.BytesAt(i) == want) == eq;
      break;
    }
    default:
      return false;
  }
  if (col.null_count > 0) {
    for (int64_t i = 0; i < n; ++i) (*out)[i] &= col.IsValid(i) ? 1 : 0;
  }
  return true;
}

// One byte per row: whether the row matches `e` (same semantics as RowMatches).
Status Matches(const ExprPtr& e, const columnar::RecordBatch& b, const Schema& schema,
               std::vector<uint8_t>* out) {
  const size_t n = static_cast<size_t>(b.num_rows);
  switch (e->op) {
    case Op::kTrue:
    case Op::kFalse:
      out->assign(n, e->op == Op::kTrue);
      return {};
    case Op::kAnd:
    case Op::kOr: {
      FLOE_RETURN_IF_ERROR(Matches(e->children[0], b, schema, out));
      std::vector<uint8_t> rhs;
      FLOE_RETURN_IF_ERROR(Matches(e->children[1], b, schema, &rhs));
      if (e->op == Op::kAnd) {
        for (size_t i = 0; i < n; ++i) (*out)[i] &= rhs[i];
      } else {
        for (size_t i = 0; i < n; ++i) (*out)[i] |= rhs[i];
      }
      return {};
    }
    case Op::kNot:
      FLOE_RETURN_IF_ERROR(Matches(e->children[0], b, schema, out));
      for (size_t i = 0; i < n; ++i) (*out)[i] = !(*out)[i];
      return {};
    default:
      break;
  }
  for (int c = 0; c < b.num_columns(); ++c) {
    if (b.schema->fields[c].field_id == e->field_id && MatchColumn(*e, *b.columns[c], out)) {
      return {};
    }
  }
  out->assign(n, 0);
  for (int64_t r = 0; r < b.num_rows; ++r) {
    FLOE_ASSIGN_OR_RETURN(bool m, RowMatches(e, b, r, schema));
    (*out)[static_cast<size_t>(r)] = m;
  }
  return {};
}

}  // namespace

Result<std::vector<uint8_t>> MatchRows(const columnar::RecordBatch& batch, const ExprPtr& filter,
                                       const Schema& schema) {
  std::vector<uint8_t> match;
  if (!filter) {
    match.assign(static_cast<size_t>(batch.num_rows), 1);
    return match;
  }
  FLOE_RETURN_IF_ERROR(Matches(filter, batch, schema, &match));
  return match;
}

Result<columnar::RecordBatch> FilterRows(const columnar::RecordBatch& batch, const ExprPtr& filter,
                                         const Schema& schema) {
  if (!filter || filter->op == Op::kTrue) return batch;
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> match, MatchRows(batch, filter, schema));
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    if (match[static_cast<size_t>(r)]) keep.push_back(r);
  }
  if (static_cast<int64_t>(keep.size()) == batch.num_rows) return batch;
  return columnar::Take(batch, keep);
}

Result<std::vector<columnar::RecordBatch>> ReadTask(const FileScanTask& task, const Schema& schema,
                                                    const FileIO& io, TaskReadStats* stats) {
  ScanReadOptions options;
  options.preserve_order = true;
  options.use_footer_cache = false;
  std::vector<columnar::RecordBatch> out;
  ScanReadStats read;
  FLOE_RETURN_IF_ERROR(ReadScan(
      {task}, schema, io, options,
      [&](columnar::RecordBatch b) -> Status {
        out.push_back(std::move(b));
        return {};
      },
      &read));
  if (stats) {
    stats->requests += read.requests;
    stats->bytes_fetched += read.bytes_fetched;
    stats->row_groups_read += read.row_groups_read;
    stats->row_groups_skipped += read.row_groups_skipped;
  }
  return out;
}

}  // namespace floe::iceberg
