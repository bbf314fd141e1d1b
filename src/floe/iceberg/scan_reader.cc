#include "floe/iceberg/scan_reader.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <variant>

#include "floe/base/thread_pool.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/delete_loader.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/parquet/read_file.h"

namespace floe::iceberg {

namespace {

// A literal in the Parquet reader's value domain; nullopt for types that prune nothing.
// Timestamps are in Iceberg's unit (micros; nanos for the _ns types) and decimals unscaled at
// the Iceberg type's scale: ResolveForFile keeps them only for files in that unit or scale.
std::optional<parquet::PredicateValue> ToPredicateValue(const Literal& v, TypeId column_type) {
  if (v.is_null()) return std::nullopt;
  switch (column_type) {
    case TypeId::kBoolean:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kString:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kDecimal:
      break;
    default:
      return std::nullopt;
  }
  return std::visit(
      [](const auto& x) -> std::optional<parquet::PredicateValue> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
          return parquet::PredicateValue(x);
        } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
          return parquet::PredicateValue(static_cast<int64_t>(x));
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return parquet::PredicateValue(static_cast<double>(x));
        } else if constexpr (std::is_same_v<T, DecimalValue>) {
          return parquet::PredicateValue(x.unscaled);
        } else {
          return std::nullopt;
        }
      },
      v.storage());
}

// The conjuncts of a bound residual that the Parquet reader can prune with. Pruning only: the
// residual is still applied to the rows.
void CollectPredicates(const ExprPtr& e, std::vector<parquet::ColumnPredicate>* out) {
  if (!e) return;
  if (e->op == Op::kAnd) {
    for (const ExprPtr& c : e->children) CollectPredicates(c, out);
    return;
  }
  if (!e->is_predicate() || !e->bound() || !e->type || !e->type->IsPrimitive()) return;
  parquet::ColumnPredicate p;
  p.column = e->column;
  p.field_id = e->field_id;
  auto lit = [&](size_t i) -> std::optional<parquet::PredicateValue> {
    if (i >= e->literals.size()) return std::nullopt;
    return ToPredicateValue(e->literals[i], e->type->id);
  };
  switch (e->op) {
    case Op::kIsNull:
      p.is_null = true;
      break;
    case Op::kNotNull:
      p.is_not_null = true;
      break;
    case Op::kEq: {
      auto v = lit(0);
      if (!v) return;
      p.in = std::vector<parquet::PredicateValue>{*v};
      break;
    }
    case Op::kLt:
    case Op::kLtEq: {
      auto v = lit(0);
      if (!v) return;
      p.max = *v;
      p.max_inclusive = e->op == Op::kLtEq;
      break;
    }
    case Op::kGt:
    case Op::kGtEq: {
      auto v = lit(0);
      if (!v) return;
      p.min = *v;
      p.min_inclusive = e->op == Op::kGtEq;
      break;
    }
    case Op::kIn: {
      std::vector<parquet::PredicateValue> values;
      for (size_t i = 0; i < e->literals.size(); ++i) {
        auto v = lit(i);
        if (!v) return;
        values.push_back(*v);
      }
      if (values.empty()) return;
      p.in = std::move(values);
      break;
    }
    default:
      return;
  }
  out->push_back(std::move(p));
}

void CollectFieldIds(const ExprPtr& e, std::set<int32_t>* out) {
  if (!e) return;
  if (e->is_predicate() && e->bound()) out->insert(e->field_id);
  for (const ExprPtr& c : e->children) CollectFieldIds(c, out);
}

// Every field id at or below `field` (column_sizes are keyed by leaf ids).
void CollectNestedIds(const NestedField& field, std::vector<int32_t>* out) {
  out->push_back(field.id);
  if (field.type) {
    for (const NestedField& c : field.type->fields) CollectNestedIds(c, out);
  }
}

struct ScanShape {
  // `projected` without the metadata columns a file does not hold (_file, _pos, _spec_id): what
  // the reader's batches are conformed to before those are added.
  Schema data_projected;
  Schema read_schema;             // data_projected + residual-only columns (top level)
  std::vector<int32_t> read_ids;  // top-level field ids of read_schema
  std::vector<int32_t> leaf_ids;  // every id below them, for the column_sizes estimate
  bool needs_projection = false;  // read_schema has columns `data_projected` lacks
  bool metadata = false;          // `projected` names a metadata column
  bool positions = false;         // the reader adds each row's position (_pos, lineage)
};

// The field the Parquet reader adds its row positions in.
columnar::Field PositionField() { return {"_pos", columnar::Int64(), false, kRowPositionFieldId}; }

Result<ScanShape> ShapeOf(const std::vector<FileScanTask>& tasks, const Schema& projected,
                          bool apply_residual, const Schema* table_schema) {
  ScanShape s;
  std::vector<NestedField> fields;
  for (const NestedField& f : projected.fields()) {
    const bool lineage = f.id == kRowIdFieldId || f.id == kLastUpdatedSequenceNumberFieldId;
    s.metadata = s.metadata || IsMetadataColumn(f.id);
    s.positions = s.positions || f.id == kRowPositionFieldId || lineage;
    // The lineage columns are read from files that hold them, derived for the others.
    if (!IsMetadataColumn(f.id) || lineage) fields.push_back(f);
  }
  s.data_projected = Schema(projected.schema_id(), fields);
  std::set<int32_t> have;
  for (const NestedField& f : fields) have.insert(f.id);
  // The columns equality deletes compare, as optional top-level fields of the table schema.
  std::map<int32_t, NestedField> compared;
  for (const FileScanTask& t : tasks) {
    for (const DataFile& d : t.deletes) {
      if (d.content != FileContent::kEqualityDeletes) continue;
      if (table_schema == nullptr) {
        return Internal("reading '{}': its equality deletes need the table schema (ScanHooks)",
                        t.file.file_path);
      }
      for (int32_t id : d.equality_ids) {
        if (have.count(id)) continue;
        for (const NestedField& f : table_schema->fields()) {
          if (f.id != id) continue;
          NestedField optional = f;
          optional.required = false;
          compared.emplace(id, std::move(optional));
        }
      }
    }
  }
  for (auto& [id, f] : compared) {
    have.insert(id);
    fields.push_back(std::move(f));
    s.needs_projection = true;
  }
  if (apply_residual) {
    // Residual columns the projection lacks, as optional top-level fields of their bound type.
    std::map<int32_t, NestedField> extra;
    std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
      if (!e) return;
      if (e->is_predicate() && e->bound() && !have.count(e->field_id) && e->type) {
        extra.emplace(e->field_id, NestedField{e->field_id, e->column, false, e->type});
      }
      for (const ExprPtr& c : e->children) walk(c);
    };
    for (const FileScanTask& t : tasks) walk(t.residual);
    for (auto& [id, f] : extra) fields.push_back(std::move(f));
    s.needs_projection = s.needs_projection || !extra.empty();
  }
  for (const NestedField& f : fields) {
    s.read_ids.push_back(f.id);
    CollectNestedIds(f, &s.leaf_ids);
  }
  s.read_schema = Schema(projected.schema_id(), std::move(fields));
  return s;
}

// The residual's conjuncts grouped by the one column each names, when every conjunct names one
// column and a NULL there fails it (no IS NULL, no NOT): then a row matches when each column's
// group holds for it, and each column can be filtered on its own. nullopt otherwise.
std::optional<std::map<int32_t, ExprPtr>> PerColumnFilters(const ExprPtr& residual) {
  std::map<int32_t, ExprPtr> out;
  for (const ExprPtr& c : Conjuncts(residual)) {
    std::set<int32_t> ids;
    bool null_rejecting = true;
    std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
      if (e->op == Op::kNot || e->op == Op::kIsNull || e->op == Op::kTrue) null_rejecting = false;
      if (e->is_predicate()) ids.insert(e->field_id);
      for (const ExprPtr& x : e->children) walk(x);
    };
    walk(c);
    if (ids.size() != 1 || !null_rejecting) return std::nullopt;
    ExprPtr& slot = out[*ids.begin()];
    slot = slot ? And(slot, c) : c;
  }
  return out;
}

int64_t ProjectedBytes(const DataFile& file, const std::vector<int32_t>& leaf_ids) {
  if (file.column_sizes.empty()) return -1;
  int64_t total = 0;
  for (int32_t id : leaf_ids) {
    auto it = file.column_sizes.find(id);
    if (it != file.column_sizes.end()) total += it->second;
  }
  return total;
}

// Keeps the fields and predicates `reader`'s file has: by field id when the file carries ids,
// else by name (files registered from tools that write none). A field the file lacks reads as
// nulls -- unless the file's manifest entry records sizes or counts for it: then the file did
// hold it, and its schema lost it (a flipped byte in a footer no CRC guards), which is an error
// rather than a column of nulls.
Result<parquet::ReadOptions> ResolveForFile(const parquet::FileReader& reader,
                                            const parquet::ReadOptions& base,
                                            const ScanShape& shape, const DataFile& file) {
  const parquet::ParquetSchema& schema = reader.schema();
  bool has_ids = false;
  for (const columnar::Field& f : reader.arrow_schema().fields) has_ids |= f.field_id >= 0;
  parquet::ReadOptions o = base;
  o.field_ids.clear();
  o.columns.clear();
  o.predicates.clear();
  for (const NestedField& f : shape.read_schema.fields()) {
    if (has_ids) {
      if (schema.FindFieldId(f.id) != nullptr) {
        o.field_ids.push_back(f.id);
        continue;
      }
      std::vector<int32_t> ids;
      CollectNestedIds(f, &ids);
      for (int32_t id : ids) {
        if (file.column_sizes.count(id) || file.value_counts.count(id)) {
          return Corrupt(
              "data file '{}' has no column with field id {} ('{}'), yet its manifest entry "
              "records values for it",
              file.file_path, id, f.name);
        }
      }
    } else if (schema.FindPath(f.name) != nullptr) {
      o.columns.push_back(f.name);
    }
  }
  // A timestamp literal is in Iceberg's unit, a decimal's at the Iceberg type's scale: it
  // compares with the file's values only when the file stores that unit or scale (Iceberg's
  // writers do; a file registered from elsewhere may not).
  auto same_unit = [&](const parquet::ColumnPredicate& p, const parquet::FieldNode* node) {
    const NestedField* f = p.field_id ? shape.read_schema.FindById(*p.field_id) : nullptr;
    if (f == nullptr || !f->type) return false;
    columnar::TimeUnit want;
    switch (f->type->id) {
      case TypeId::kDecimal:
        return node->field.type.id == columnar::TypeId::kDecimal128 &&
               node->field.type.scale == f->type->scale;
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        want = columnar::TimeUnit::kMicro;
        break;
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
        want = columnar::TimeUnit::kNano;
        break;
      default:
        return true;
    }
    return node->field.type.id == columnar::TypeId::kTimestamp && node->field.type.unit == want;
  };
  for (parquet::ColumnPredicate p : base.predicates) {
    if (has_ids) {
      const parquet::FieldNode* node = p.field_id ? schema.FindFieldId(*p.field_id) : nullptr;
      if (node != nullptr && same_unit(p, node)) o.predicates.push_back(p);
    } else {
      // Only top-level names can be trusted without ids.
      const NestedField* f = p.field_id ? shape.read_schema.FindById(*p.field_id) : nullptr;
      const parquet::FieldNode* node = f ? schema.FindPath(f->name) : nullptr;
      if (node != nullptr && same_unit(p, node)) {
        p.column = f->name;
        p.field_id.reset();
        o.predicates.push_back(std::move(p));
      }
    }
  }
  if (o.field_ids.empty() && o.columns.empty() && !schema.fields().empty()) {
    // None of the wanted columns is in this file: read its first column for the row count; the
    // conformed batches hold nulls.
    o.columns.push_back(schema.fields()[0].path);
  }
  return o;
}

// The residual as the Parquet reader's row filter: its columns, its test (conformed to the table
// schema and evaluated with SQL semantics), per column when it is a conjunction of null-rejecting
// single-column groups, and the projection as the output (residual-only columns left out).
Result<parquet::RowFilter> MakeRowFilter(const ExprPtr& residual, const Schema& read_schema,
                                         const Schema& projected,
                                         const ResidualEvaluator& evaluate) {
  parquet::RowFilter filter;
  std::set<int32_t> ids;
  CollectFieldIds(residual, &ids);
  std::vector<NestedField> fields;
  for (int32_t id : ids) {
    const NestedField* f = read_schema.FindById(id);
    if (f == nullptr) continue;
    fields.push_back(*f);
    filter.fields.push_back({f->id, f->name});
  }
  auto has_ids = [](const columnar::RecordBatch& b) {
    return std::any_of(b.schema->fields.begin(), b.schema->fields.end(),
                       [](const columnar::Field& f) { return f.field_id >= 0; });
  };
  const Schema filter_schema(read_schema.schema_id(), fields);
  FLOE_ASSIGN_OR_RETURN(BatchMatcher match, evaluate(residual, filter_schema));
  filter.evaluate = [filter_schema, has_ids,
                     match](const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed,
                          ConformToSchema(b, filter_schema, has_ids(b)));
    return match(conformed);
  };
  if (auto per_column = PerColumnFilters(residual);
      per_column && per_column->size() == fields.size()) {
    for (const NestedField& f : fields) {
      auto it = per_column->find(f.id);
      if (it == per_column->end()) {
        filter.per_field.clear();
        break;
      }
      const Schema one(read_schema.schema_id(), std::vector<NestedField>{f});
      FLOE_ASSIGN_OR_RETURN(BatchMatcher match_one, evaluate(it->second, one));
      filter.per_field.emplace_back([one, has_ids, match_one](const columnar::RecordBatch& b)
                                        -> Result<std::vector<uint8_t>> {
        FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed, ConformToSchema(b, one, has_ids(b)));
        return match_one(conformed);
      });
    }
  }
  std::vector<parquet::ColumnPredicate> collected;
  CollectPredicates(residual, &collected);
  const size_t conjuncts = Conjuncts(residual).size();
  filter.predicates_are_filter = conjuncts > 0 && collected.size() == conjuncts;
  std::vector<parquet::FieldKey> output;
  for (const NestedField& f : projected.fields()) output.push_back({f.id, f.name});
  filter.output = std::move(output);
  return filter;
}

// The columns of `b` that `keys` name, in that order (a key the batch lacks is left out).
columnar::RecordBatch ColumnsFor(const columnar::RecordBatch& b,
                                 const std::vector<parquet::FieldKey>& keys) {
  columnar::RecordBatch out;
  auto schema = std::make_shared<columnar::Schema>();
  for (const parquet::FieldKey& k : keys) {
    for (size_t c = 0; c < b.schema->fields.size(); ++c) {
      if (!k.Matches(b.schema->fields[c])) continue;
      schema->fields.push_back(b.schema->fields[c]);
      out.columns.push_back(b.columns[c]);
      break;
    }
  }
  out.schema = std::move(schema);
  out.num_rows = b.num_rows;
  return out;
}

// `filter` (or, without one, a filter that keeps every row and outputs `projected`) whose rows
// must also pass `tests` (on fields `read_schema` has; nullopt when there is neither). A test's
// field is decoded with the filter's, and tested alone where the filter tests field by field.
std::optional<parquet::RowFilter> WithColumnTests(std::optional<parquet::RowFilter> filter,
                                                  const std::vector<ColumnTest>& tests,
                                                  const Schema& read_schema,
                                                  const Schema& projected) {
  struct Bound {
    parquet::FieldKey key;
    Schema one;  // the field alone, its table type
    std::function<std::vector<uint8_t>(const columnar::Column&)> test;
  };
  std::vector<Bound> bound;
  for (const ColumnTest& t : tests) {
    const NestedField* f = read_schema.FindById(t.field_id);
    if (f == nullptr || !t.test) continue;
    bound.push_back({{f->id, f->name}, Schema(read_schema.schema_id(), {*f}), t.test});
  }
  if (bound.empty()) return filter;
  parquet::RowFilter out;
  if (filter) {
    out = std::move(*filter);
  } else {
    std::vector<parquet::FieldKey> output;
    for (const NestedField& f : projected.fields()) output.push_back({f.id, f.name});
    out.output = std::move(output);
  }
  // Rows the statistics prove match the filter are tested too.
  out.predicates_are_filter = false;
  // Row r of `b`'s column of the test's field passes it (a batch without the field: every row).
  auto run = [](const Bound& t, const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
    columnar::RecordBatch one = ColumnsFor(b, {t.key});
    if (one.columns.empty()) return std::vector<uint8_t>(static_cast<size_t>(b.num_rows), 1);
    const bool has_ids = one.schema->fields[0].field_id >= 0;
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed, ConformToSchema(one, t.one, has_ids));
    return t.test(*conformed.columns[0]);
  };
  const bool per_field = out.per_field.size() == out.fields.size();
  const std::vector<parquet::FieldKey> residual_fields = out.fields;
  const parquet::BatchPredicate residual = out.evaluate;
  for (const Bound& t : bound) {
    auto at = std::find_if(out.fields.begin(), out.fields.end(), [&](const parquet::FieldKey& k) {
      return k.field_id == t.key.field_id;
    });
    parquet::BatchPredicate mine = [t, run](const columnar::RecordBatch& b) { return run(t, b); };
    if (at == out.fields.end()) {
      out.fields.push_back(t.key);
      if (per_field) out.per_field.push_back(std::move(mine));
      continue;
    }
    if (!per_field) continue;
    parquet::BatchPredicate& both = out.per_field[static_cast<size_t>(at - out.fields.begin())];
    both = [first = both, mine](const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> keep, first(b));
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> also, mine(b));
      for (size_t r = 0; r < keep.size() && r < also.size(); ++r) keep[r] &= also[r];
      return keep;
    };
  }
  if (!per_field) out.per_field.clear();
  out.evaluate = [residual_fields, residual, bound = std::move(bound),
                  run](const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
    std::vector<uint8_t> keep(static_cast<size_t>(b.num_rows), 1);
    if (residual) {
      FLOE_ASSIGN_OR_RETURN(keep, residual(ColumnsFor(b, residual_fields)));
    }
    for (const Bound& t : bound) {
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> also, run(t, b));
      for (size_t r = 0; r < keep.size() && r < also.size(); ++r) keep[r] &= also[r];
    }
    return keep;
  };
  return out;
}

// Whether `task`'s position deletes may take out half of its file's rows: their record counts
// (exact for deletion vectors and file-scoped files, an upper bound for a partition's).
bool MayDeleteHalf(const FileScanTask& task) {
  int64_t positions = 0;
  for (const DataFile& d : task.deletes) {
    if (d.content == FileContent::kPositionDeletes) positions += d.record_count;
  }
  return positions > 0 && 2 * positions >= task.file.record_count;
}

// `filter` (or, without one, a filter that keeps every row and outputs `projected`) that also
// drops the rows any of `deletes` holds: the delete columns are decoded with the filter's, so
// late materialisation leaves deleted rows undecoded too.
parquet::RowFilter WithEqualityDeletes(
    std::optional<parquet::RowFilter> filter,
    const std::vector<std::shared_ptr<const EqualityDeleteSet>>& deletes, const Schema& read_schema,
    const Schema& projected, ScanMetrics* metrics) {
  parquet::RowFilter out;
  std::vector<parquet::FieldKey> residual_fields;
  parquet::BatchPredicate residual;
  if (filter) {
    residual_fields = filter->fields;
    residual = filter->evaluate;
    out.fields = filter->fields;
    out.output = filter->output;
  } else {
    std::vector<parquet::FieldKey> output;
    for (const NestedField& f : projected.fields()) output.push_back({f.id, f.name});
    out.output = std::move(output);
  }
  struct Probe {
    std::shared_ptr<const EqualityDeleteSet> set;
    std::vector<parquet::FieldKey> keys;
  };
  std::vector<Probe> probes;
  for (const auto& d : deletes) {
    Probe p{d, {}};
    for (int32_t id : d->ids()) {
      const NestedField* f = read_schema.FindById(id);
      parquet::FieldKey key{id, f ? f->name : std::string()};
      p.keys.push_back(key);
      if (std::none_of(out.fields.begin(), out.fields.end(),
                       [&](const parquet::FieldKey& k) { return k.field_id == id; })) {
        out.fields.push_back(key);
      }
    }
    probes.push_back(std::move(p));
  }
  out.evaluate = [residual_fields, residual, probes = std::move(probes),
                  metrics](const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
    std::vector<uint8_t> keep(static_cast<size_t>(b.num_rows), 1);
    if (residual) {
      FLOE_ASSIGN_OR_RETURN(keep, residual(ColumnsFor(b, residual_fields)));
    }
    int64_t deleted = 0;
    for (const Probe& p : probes) {
      const columnar::RecordBatch columns = ColumnsFor(b, p.keys);
      const bool has_ids = std::any_of(columns.schema->fields.begin(), columns.schema->fields.end(),
                                       [](const columnar::Field& f) { return f.field_id >= 0; });
      FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed,
                            ConformToSchema(columns, p.set->columns(), has_ids));
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> gone, p.set->Deleted(conformed));
      for (size_t r = 0; r < keep.size(); ++r) {
        if (keep[r] && gone[r]) {
          keep[r] = 0;
          ++deleted;
        }
      }
    }
    if (metrics) metrics->rows_deleted += deleted;
    return keep;
  };
  out.evaluate_once = true;
  return out;
}

// Takes the last column out of `b` (the reader's row positions).
columnar::ColumnPtr DetachLastColumn(columnar::RecordBatch* b) {
  columnar::ColumnPtr last = b->columns.back();
  b->columns.pop_back();
  auto schema = std::make_shared<columnar::Schema>(*b->schema);
  schema->fields.pop_back();
  b->schema = std::move(schema);
  return last;
}

// A column of `n` copies of one value.
template <typename T>
columnar::ColumnPtr Repeated(columnar::DataType type, T value, int64_t n) {
  columnar::FixedWidthBuilder<T> b(std::move(type));
  b.Reserve(n);
  for (int64_t i = 0; i < n; ++i) b.Append(value);
  return b.Finish();
}

// The lineage column `stored` (the file's own values, null where it holds none) with its nulls
// filled: `first_row_id` + position for _row_id, the data sequence number for the other -- both
// only when the file has a first_row_id (else it predates the table's v3 and they stay null).
Result<columnar::ColumnPtr> FillLineage(const columnar::ColumnPtr& stored, bool row_id,
                                        const FileScanTask& task,
                                        const columnar::ColumnPtr& positions) {
  if (stored->null_count == 0 || !task.file.first_row_id) return stored;
  columnar::FixedWidthBuilder<int64_t> b(columnar::Int64());
  b.Reserve(stored->length);
  for (int64_t i = 0; i < stored->length; ++i) {
    if (!stored->IsNull(i)) {
      b.Append(stored->Value<int64_t>(i));
    } else if (row_id) {
      b.Append(*task.file.first_row_id + positions->Value<int64_t>(i));
    } else {
      b.Append(task.data_sequence_number);
    }
  }
  return b.Finish();
}

// `data` (conformed to the projection without its metadata columns) with the metadata columns
// `projected` names put in their places: the task's file path and spec id, the reader's positions,
// and the lineage columns filled in.
// The spec's column projection for identity partitions: a top-level column `conformed` holds that
// the file (`read`, the batch as decoded) lacks takes the task's identity partition value, rather
// than the NULL conforming filled it with.
Result<columnar::RecordBatch> WithIdentityValues(columnar::RecordBatch conformed,
                                                 const columnar::RecordBatch& read,
                                                 const Schema& schema, const FileScanTask& task,
                                                 bool by_field_id) {
  if (task.identity_values.empty()) return conformed;
  auto in_file = [&](const columnar::Field& f) {
    return std::any_of(read.schema->fields.begin(), read.schema->fields.end(),
                       [&](const columnar::Field& r) {
                         return by_field_id ? r.field_id == f.field_id : r.name == f.name;
                       });
  };
  for (size_t k = 0; k < conformed.columns.size(); ++k) {
    const columnar::Field& f = conformed.schema->fields[k];
    auto value = task.identity_values.find(f.field_id);
    if (value == task.identity_values.end() || in_file(f)) continue;
    const NestedField* field = schema.FindById(f.field_id);
    if (field == nullptr) continue;
    FLOE_ASSIGN_OR_RETURN(
        conformed.columns[k],
        LiteralColumn(std::vector<Literal>(static_cast<size_t>(conformed.num_rows), value->second),
                      *field->type));
  }
  return conformed;
}

// A file's `_file` column: every batch of the file gets slices of one column of its path repeated
// (grown as batches need), not a copy of the path per row each (a hundred bytes a row, as much as
// the data itself). Thread-safe: a file's batches may be decoded on several threads.
class RepeatedPath {
 public:
  explicit RepeatedPath(std::string_view path) : path_(path) {}

  Result<columnar::ColumnPtr> Rows(int64_t n) {
    std::lock_guard lock(mu_);
    if (whole_ == nullptr || whole_->length < n) {
      const int64_t grown = whole_ == nullptr ? n : std::max(n, 2 * whole_->length);
      FLOE_ASSIGN_OR_RETURN(whole_, columnar::RepeatedBinary(columnar::String(), path_, grown));
    }
    auto c = std::make_shared<columnar::Column>(*whole_);
    c->length = n;
    c->values = whole_->values.Slice(0, static_cast<size_t>(n) * path_.size());
    c->offsets = whole_->offsets.Slice(0, static_cast<size_t>(n + 1) * 4);
    c->codes = whole_->codes.Slice(0, static_cast<size_t>(n) * 4);
    return columnar::ColumnPtr(std::move(c));
  }

 private:
  std::mutex mu_;
  std::string path_;
  columnar::ColumnPtr whole_;
};

Result<columnar::RecordBatch> WithMetadata(columnar::RecordBatch data, const Schema& projected,
                                           const FileScanTask& task,
                                           const columnar::ColumnPtr& positions,
                                           RepeatedPath& path) {
  columnar::RecordBatch out;
  out.num_rows = data.num_rows;
  auto schema = std::make_shared<columnar::Schema>();
  size_t next = 0;
  for (const NestedField& f : projected.fields()) {
    columnar::ColumnPtr c;
    if (f.id == kFilePathFieldId) {
      FLOE_ASSIGN_OR_RETURN(c, path.Rows(data.num_rows));
    } else if (f.id == kRowPositionFieldId) {
      c = positions;
    } else if (f.id == kSpecIdFieldId) {
      c = Repeated<int32_t>(columnar::Int32(), task.file.spec_id, data.num_rows);
    } else {
      c = data.columns[next++];
      if (f.id == kRowIdFieldId || f.id == kLastUpdatedSequenceNumberFieldId) {
        FLOE_ASSIGN_OR_RETURN(c, FillLineage(c, f.id == kRowIdFieldId, task, positions));
      }
    }
    FLOE_ASSIGN_OR_RETURN(columnar::DataType t, ToColumnarType(*f.type));
    schema->fields.push_back({f.name, t, !f.required, f.id});
    out.columns.push_back(std::move(c));
  }
  out.schema = std::move(schema);
  return out;
}

Error NameFile(Error e, const FileScanTask& task) {
  if (e.message.find(task.file.file_path) == std::string::npos) {
    e.message = "reading '" + task.file.file_path + "': " + e.message;
  }
  return e;
}

}  // namespace

Status ReadScan(const std::vector<FileScanTask>& tasks, const Schema& projected, const FileIO& io,
                const ScanReadOptions& options, const ScanHooks& hooks, const BatchSink& sink,
                ScanMetrics* metrics) {
  ScanMetrics local;
  if (metrics == nullptr) metrics = &local;
  for (const FileScanTask& t : tasks) {
    for (const DataFile& d : t.deletes) {
      if (d.content == FileContent::kData) {
        return Internal("data file '{}' is listed as a delete file of '{}'", d.file_path,
                        t.file.file_path);
      }
    }
    if (t.file.file_format != "PARQUET" && t.file.file_format != "parquet") {
      return Unsupported("data file '{}' is {}; floe reads Parquet", t.file.file_path,
                         t.file.file_format);
    }
  }
  if (tasks.empty()) return {};
  if (options.apply_residual && !hooks.evaluate_residual) {
    for (const FileScanTask& t : tasks) {
      if (t.residual && t.residual->op != Op::kTrue) {
        return Internal("reading '{}': its residual {} needs an evaluator (ScanHooks)",
                        t.file.file_path, t.residual->ToString());
      }
    }
  }

  const bool floe = options.strategy == parquet::ReadStrategy::kFloe;
  FLOE_ASSIGN_OR_RETURN(const ScanShape shape,
                        ShapeOf(tasks, projected, options.apply_residual, hooks.table_schema));
  const bool any_deletes = std::any_of(tasks.begin(), tasks.end(),
                                       [](const FileScanTask& t) { return !t.deletes.empty(); });
  static const Schema kNoSchema;
  std::optional<DeleteLoader> deletes;
  if (any_deletes) {
    deletes.emplace(io, tasks, hooks.table_schema ? *hooks.table_schema : kNoSchema, metrics);
  }
  parquet::TailEstimator tails(options.planner);
  parquet::RequestGate gate(options.request_budget);
  Runtime& runtime = io.runtime();
  parquet::FooterCache* cache =
      floe && options.use_footer_cache ? &runtime.footer_cache() : nullptr;
  parquet::ByteBudget budget(options.max_buffered_bytes);

  std::mutex mu;  // guards `first_error`, the delivery state and calls of `sink`
  std::optional<Error> first_error;
  std::atomic<bool> failed{false};  // an error, or the limit reached: no more work
  std::atomic<size_t> next{0};
  int64_t delivered_rows = 0;
  // preserve_order: the batches of files that finished before their predecessors.
  std::map<size_t, std::vector<columnar::RecordBatch>> waiting;
  size_t next_to_deliver = 0;

  // Under `mu`: hands `batch` to the sink, honouring the limit.
  auto deliver = [&](columnar::RecordBatch batch) -> Status {
    const int64_t rows = batch.num_rows;
    if (failed.load() || rows == 0) return {};
    Status st = sink(std::move(batch));
    if (!st) {
      failed.store(true);  // under `mu`: no other batch reaches the sink after this one
      return st;
    }
    delivered_rows += rows;
    if (options.limit >= 0 && delivered_rows >= options.limit) failed.store(true);
    return {};
  };

  auto read_one = [&](size_t index) -> Status {
    const FileScanTask& task = tasks[index];
    std::vector<columnar::RecordBatch> held_batches;  // preserve_order only
    FLOE_ASSIGN_OR_RETURN(StoreObject object, io.Resolve(task.file.file_path));
    parquet::ReadFileOptions ro;
    parquet::StrategyReadOptions& so = ro.fetch;
    so.strategy = options.strategy;
    so.read.field_ids = shape.read_ids;
    so.read.use_page_index = options.use_page_index;
    if (options.apply_residual) {
      CollectPredicates(task.residual, &so.read.predicates);
      // Rows outside the pruning filter need not be produced: its predicates skip row groups
      // and pages (and, as more predicates, only narrow the rows proven to match the residual).
      if (task.pruning) CollectPredicates(task.pruning, &so.read.predicates);
    }
    for (parquet::ColumnPredicate& p : so.read.predicates) {
      // The manifest's NaN count lets float predicates prune by bounds that leave NaN out.
      auto nans = p.field_id ? task.file.nan_value_counts.find(*p.field_id)
                             : task.file.nan_value_counts.end();
      p.no_nan = nans != task.file.nan_value_counts.end() && nans->second == 0;
    }
    so.planner = options.planner;
    so.cache = cache;
    so.tails = floe ? &tails : nullptr;
    so.gate = floe ? &gate : nullptr;
    so.resolve = [&shape, &task](const parquet::FileReader& r, const parquet::ReadOptions& base) {
      return ResolveForFile(r, base, shape, task.file);
    };
    const bool by_residual =
        options.apply_residual && task.residual && task.residual->op != Op::kTrue;
    std::optional<parquet::RowFilter> residual_filter;
    if (by_residual) {
      FLOE_ASSIGN_OR_RETURN(residual_filter,
                            MakeRowFilter(task.residual, shape.read_schema, shape.data_projected,
                                          hooks.evaluate_residual));
    }
    if (options.apply_residual) {
      residual_filter = WithColumnTests(std::move(residual_filter), hooks.column_tests,
                                        shape.read_schema, shape.data_projected);
    }
    if (DeleteLoader::HasPositionDeletes(task)) {
      ro.excluded_rows_later = [&deletes, &task] { return deletes->PositionMask(task); };
    }
    if (DeleteLoader::HasEqualityDeletes(task)) {
      FLOE_ASSIGN_OR_RETURN(auto sets, deletes->EqualityDeletes(task));
      residual_filter = WithEqualityDeletes(std::move(residual_filter), sets, shape.read_schema,
                                            shape.data_projected, metrics);
    }
    const bool filtered = residual_filter.has_value();
    if (filtered) ro.filter = &*residual_filter;
    // With fewer files than cores, one file's rows are decoded on several threads (every core
    // busy on a one-file table); batches then arrive in no particular order, so not when order
    // or a limit matters.
    const size_t threads = std::max<size_t>(1, runtime.decode_threads() / tasks.size());
    if (threads > 1) ro.pool = &runtime.decode_pool();
    ro.filter_threads = threads;
    ro.decode_threads = options.preserve_order || options.limit >= 0 ? 1 : threads;
    ro.narrowed_batch_rows = kNarrowedBatchRows;
    ro.budget = &budget;
    ro.stop = &failed;
    ro.metrics = metrics;
    parquet::FileHints hints;
    hints.file_length = static_cast<uint64_t>(std::max<int64_t>(0, task.file.file_size_in_bytes));
    hints.projected_bytes = ProjectedBytes(task.file, shape.leaf_ids);
    // Position deletes that may take out half the file's rows or more (their manifests' counts say
    // so before anything is read) must reach the plan before data is fetched, or the pages they
    // empty are fetched anyway: a file past the whole-file size then has its footer read first (as
    // with a predicate), and its page index with it. Fewer -- merge-on-read's usual few percent,
    // scattered -- empty few pages: the projection is read in one request with the footer, as
    // without deletes.
    ro.mask_may_empty_pages = MayDeleteHalf(task);
    if (ro.mask_may_empty_pages) hints.projected_bytes = -1;

    if (shape.positions) ro.position_field = PositionField();
    RepeatedPath path(task.file.file_path);
    auto sink = [&](columnar::RecordBatch b) -> Status {
      columnar::ColumnPtr positions;
      if (shape.positions) positions = DetachLastColumn(&b);
      const bool has_ids = std::any_of(b.schema->fields.begin(), b.schema->fields.end(),
                                       [](const columnar::Field& f) { return f.field_id >= 0; });
      columnar::RecordBatch conformed;
      if (filtered) {
        FLOE_ASSIGN_OR_RETURN(conformed, ConformToSchema(b, shape.data_projected, has_ids));
      } else {
        FLOE_ASSIGN_OR_RETURN(conformed, ConformToSchema(b, shape.read_schema, has_ids));
        if (shape.needs_projection) {
          FLOE_ASSIGN_OR_RETURN(conformed, ConformToSchema(conformed, shape.data_projected, true));
        }
      }
      FLOE_ASSIGN_OR_RETURN(conformed, WithIdentityValues(std::move(conformed), b,
                                                          shape.data_projected, task, has_ids));
      if (shape.metadata) {
        FLOE_ASSIGN_OR_RETURN(conformed,
                              WithMetadata(std::move(conformed), projected, task, positions, path));
      }
      std::lock_guard lock(mu);
      if (options.preserve_order && (index != next_to_deliver || !held_batches.empty())) {
        if (conformed.num_rows > 0) held_batches.push_back(std::move(conformed));
        return {};
      }
      return deliver(std::move(conformed));
    };
    FLOE_RETURN_IF_ERROR(parquet::ReadFile(*object.store, object.key, hints, ro, sink));
    if (options.preserve_order) {
      std::lock_guard lock(mu);
      waiting[index] = std::move(held_batches);
      // Deliver every file whose predecessors are done (this one's batches may already be out).
      while (!waiting.empty() && waiting.begin()->first == next_to_deliver) {
        for (columnar::RecordBatch& b : waiting.begin()->second) {
          FLOE_RETURN_IF_ERROR(deliver(std::move(b)));
        }
        waiting.erase(waiting.begin());
        ++next_to_deliver;
      }
    }
    return {};
  };

  // The delete files of tasks that read every row (no residual to prune them by) are surely
  // needed: they are the first work items, so they are fetched with the data files, not after
  // them. A task a filter may still skip loads its own when it gets there; so does a read with a
  // limit, which may stop before it needs them.
  std::vector<const DataFile*> prefetch;
  if (deletes && options.limit < 0) {
    std::set<std::string> seen;
    for (const FileScanTask& t : tasks) {
      if (options.apply_residual && t.residual && t.residual->op != Op::kTrue) continue;
      for (const DataFile& d : t.deletes) {
        if (seen.insert(IsDeletionVector(d) ? d.file_path : DeleteFileKey(d)).second) {
          prefetch.push_back(&d);
        }
      }
    }
  }
  std::atomic<size_t> files_done{0};
  auto worker = [&] {
    while (!failed.load()) {
      size_t i = next.fetch_add(1);
      if (i < prefetch.size()) {
        deletes->Prefetch(*prefetch[i]);
        continue;
      }
      i -= prefetch.size();
      if (i >= tasks.size()) return;
      if (hooks.cancelled && hooks.cancelled()) {
        std::lock_guard lock(mu);
        if (!first_error) first_error = Error{ErrorKind::kCancelled, "the statement was cancelled"};
        failed.store(true);
        return;
      }
      Status st = read_one(i);
      if (st && hooks.on_file_done) hooks.on_file_done(++files_done, tasks.size());
      if (!st) {
        std::lock_guard lock(mu);
        if (!first_error) first_error = NameFile(std::move(st).error(), tasks[i]);
        failed.store(true);
      }
    }
  };

  // floe keeps every file in flight up to the request budget; the baselines read one file per
  // task on a fixed number of tasks, as their engines deploy them.
  const int want = floe ? options.request_budget : options.baseline_tasks;
  const int workers = std::clamp<int>(want, 1, static_cast<int>(tasks.size() + prefetch.size()));
  if (workers == 1) {
    worker();
  } else {
    // On the scan pool's threads, not new ones: a query of many small files would otherwise
    // spend a thread's creation and teardown on each. Workers wait only on IO and the sink, never
    // on each other, so a pool smaller than `workers` only queues them.
    std::vector<std::future<void>> done;
    done.reserve(static_cast<size_t>(workers));
    ThreadPool& pool = runtime.scan_pool();
    for (int w = 0; w < workers; ++w) done.push_back(pool.Submit(worker));
    for (std::future<void>& d : done) d.wait();
  }
  metrics->peak_buffered_bytes.RaiseTo(budget.peak());
  if (first_error) return std::unexpected(std::move(*first_error));
  return {};
}

}  // namespace floe::iceberg
