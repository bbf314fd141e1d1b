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
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/iceberg/table_reader.h"
#include "floe/parquet/record_assembler.h"
#include "floe/parquet/strategy_reader.h"

namespace floe::iceberg {

namespace {

// Fetched bytes held by the scan: a reader waits before fetching while others hold more than the
// bound; one reader alone always proceeds, so a file larger than the bound is still read.
class ByteBudget {
 public:
  explicit ByteBudget(int64_t limit) : limit_(std::max<int64_t>(limit, 1)) {}

  void Reserve(int64_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return used_ == 0 || used_ + n <= limit_; });
    used_ += n;
    peak_ = std::max(peak_, used_);
  }
  // Replaces a reservation of `from` bytes by `to` (the bytes actually fetched).
  void Adjust(int64_t from, int64_t to) {
    std::lock_guard lock(mu_);
    used_ += to - from;
    peak_ = std::max(peak_, used_);
  }
  void Release(int64_t n) {
    {
      std::lock_guard lock(mu_);
      used_ -= n;
    }
    cv_.notify_all();
  }
  int64_t peak() const {
    std::lock_guard lock(mu_);
    return peak_;
  }

 private:
  const int64_t limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t used_ = 0;
  int64_t peak_ = 0;
};

// A literal in the Parquet reader's value domain; nullopt for types whose file representation
// may differ from Iceberg's (decimals) -- those prune nothing. Timestamps are in Iceberg's unit
// (micros; nanos for the _ns types): ResolveForFile keeps them only for files in that unit.
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
  Schema read_schema;             // projected + residual-only columns (top level)
  std::vector<int32_t> read_ids;  // top-level field ids of read_schema
  std::vector<int32_t> leaf_ids;  // every id below them, for the column_sizes estimate
  bool needs_projection = false;  // read_schema has columns `projected` lacks
};

ScanShape ShapeOf(const std::vector<FileScanTask>& tasks, const Schema& projected,
                  bool apply_residual) {
  ScanShape s;
  std::vector<NestedField> fields = projected.fields();
  std::set<int32_t> have;
  for (const NestedField& f : fields) have.insert(f.id);
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
    s.needs_projection = !extra.empty();
  }
  for (const NestedField& f : fields) {
    s.read_ids.push_back(f.id);
    CollectNestedIds(f, &s.leaf_ids);
  }
  s.read_schema = Schema(projected.schema_id(), std::move(fields));
  return s;
}

// The threads scans read files on, shared by every scan of the process: as many as the default
// request budget keeps in flight.
ThreadPool& ScanPool() {
  static ThreadPool* pool = new ThreadPool(64);  // never destroyed: used until exit
  return *pool;
}

// Threads decoding may use at once: the machine's cores.
size_t DecodeThreads() { return Cores(); }

// `plan` cut into at most `parts` plans to decode on their own threads, in plan order: blocks of
// whole row groups when there are enough of them, else each row group's rows cut into `parts` runs
// (each thread then reads the same dictionary page, and passes over the pages before its rows).
// Pieces stay above kMinRows rows; one plan back means no split.
std::vector<parquet::ReadPlan> SplitForThreads(const parquet::ReadPlan& plan, size_t parts) {
  constexpr int64_t kMinRows = int64_t{32} * 1024;
  int64_t total = 0;
  for (const parquet::RowGroupPlan& rg : plan.row_groups) {
    for (const parquet::RowRange& r : rg.rows) total += r.end - r.begin;
  }
  parts = std::min<size_t>(parts, static_cast<size_t>(std::max<int64_t>(1, total / kMinRows)));
  if (parts <= 1) return {};
  std::vector<parquet::ReadPlan> out(parts, plan);
  for (parquet::ReadPlan& p : out) p.row_groups.clear();
  if (plan.row_groups.size() >= parts) {
    // Contiguous blocks, so the slices taken in turn keep the plan's order.
    const size_t n = plan.row_groups.size();
    for (size_t i = 0; i < n; ++i) out[i * parts / n].row_groups.push_back(plan.row_groups[i]);
    return out;
  }
  // Fewer row groups than parts: equal shares of the rows, in order, cutting row groups.
  const int64_t share = (total + static_cast<int64_t>(parts) - 1) / static_cast<int64_t>(parts);
  size_t part = 0;
  int64_t taken = 0;  // rows given to `part` so far
  for (const parquet::RowGroupPlan& rg : plan.row_groups) {
    parquet::RowGroupPlan piece = rg;
    piece.rows.clear();
    piece.certain.clear();  // decoding does not look at it
    for (parquet::RowRange r : rg.rows) {
      while (r.begin < r.end) {
        const int64_t n = std::min(r.end - r.begin, share - taken);
        piece.rows.push_back({r.begin, r.begin + n});
        r.begin += n;
        taken += n;
        if (taken == share && part + 1 < parts) {
          out[part].row_groups.push_back(piece);
          piece.rows.clear();
          ++part;
          taken = 0;
        }
      }
    }
    if (!piece.rows.empty()) out[part].row_groups.push_back(std::move(piece));
  }
  std::erase_if(out, [](const parquet::ReadPlan& p) { return p.row_groups.empty(); });
  return out;
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

// Rows of `a` not in `b` (both sorted and disjoint).
std::vector<parquet::RowRange> Subtract(const std::vector<parquet::RowRange>& a,
                                        const std::vector<parquet::RowRange>& b) {
  std::vector<parquet::RowRange> out;
  size_t j = 0;
  for (parquet::RowRange r : a) {
    while (j < b.size() && b[j].end <= r.begin) ++j;
    for (size_t k = j; k < b.size() && b[k].begin < r.end; ++k) {
      if (b[k].begin > r.begin) out.push_back({r.begin, b[k].begin});
      r.begin = std::max(r.begin, b[k].end);
    }
    if (r.begin < r.end) out.push_back(r);
  }
  return out;
}

// Whether the plan's predicates are the residual exactly: it is a conjunction of predicates that
// each became one of them (none dropped for the file), so rows they prove match it.
bool PredicatesAreTheResidual(const ExprPtr& residual, const parquet::ReadPlan& plan) {
  const size_t conjuncts = Conjuncts(residual).size();
  std::vector<parquet::ColumnPredicate> collected;
  CollectPredicates(residual, &collected);
  return conjuncts > 0 && collected.size() == conjuncts && plan.predicates.size() == conjuncts;
}

// Late materialization, step 1: decodes only the residual's columns of `plan`'s rows and returns
// one byte per row (in plan order, rows proven to match left out when `trust_certain`): 1 where
// the residual holds. nullopt when it cannot pay: no filter, a limit, a residual column the file
// lacks, or no column left to read later.
Result<std::optional<std::vector<uint8_t>>> MatchFilterColumns(
    const parquet::FileReader& reader, const parquet::ReadPlan& plan,
    const parquet::FetchedBytes& bytes, const ExprPtr& residual, const Schema& read_schema,
    bool has_ids, const std::set<int32_t>& keep_ids, bool trust_certain, size_t threads) {
  if (!residual || residual->op == Op::kTrue || plan.limit >= 0) return std::nullopt;
  std::set<int32_t> ids;
  std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
    if (e->is_predicate()) ids.insert(e->field_id);
    for (const ExprPtr& c : e->children) walk(c);
  };
  walk(residual);
  if (ids.empty()) return std::nullopt;
  parquet::ReadPlan first = plan;
  first.fields.clear();
  auto schema = std::make_shared<columnar::Schema>();
  std::set<int> leaves;
  std::vector<NestedField> fields;
  for (const parquet::FieldNode& f : plan.fields) {
    if (!ids.count(f.field.field_id)) continue;
    first.fields.push_back(f);
    schema->fields.push_back(f.field);
    leaves.insert(f.leaves.begin(), f.leaves.end());
    if (const NestedField* nf = read_schema.FindById(f.field.field_id)) fields.push_back(*nf);
  }
  if (first.fields.size() != ids.size() || fields.size() != ids.size() ||
      (first.fields.size() == plan.fields.size() && !keep_ids.empty())) {
    return std::nullopt;  // a residual column the file lacks, or nothing left for later
  }
  // When every conjunct of the residual names one column and rejects NULL, each column is
  // filtered on its own, and a flat column by a matcher: a dictionary is matched once per entry
  // and the rows' values are never gathered from it (plain pages hand their values over).
  const std::optional<std::map<int32_t, ExprPtr>> per_column = PerColumnFilters(residual);
  std::vector<Schema> one_field;  // per first.fields entry: its Iceberg field alone
  if (per_column) {
    for (const parquet::FieldNode& f : first.fields) {
      const NestedField* nf = read_schema.FindById(f.field.field_id);
      one_field.emplace_back(read_schema.schema_id(), std::vector<NestedField>{*nf});
      auto it = per_column->find(f.field.field_id);
      if (f.kind != parquet::FieldNode::Kind::kLeaf || it == per_column->end()) continue;
      const parquet::ColumnDescriptor& leaf = reader.schema().leaves()[f.leaf];
      if (leaf.max_rep > 0 || leaf.conversion == parquet::ReadConversion::kNull) continue;
      auto field_schema = std::make_shared<columnar::Schema>();
      field_schema->fields.push_back(f.field);
      first.matchers[f.leaf] = [leaf, field_schema, one = one_field.back(), expr = it->second,
                                has_ids](parquet::DenseValues v) -> Result<std::vector<uint8_t>> {
        FLOE_ASSIGN_OR_RETURN(columnar::ColumnPtr c, parquet::ValuesAsColumn(leaf, std::move(v)));
        columnar::RecordBatch b;
        b.schema = field_schema;
        b.num_rows = c->length;
        b.columns = {std::move(c)};
        FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed, ConformToSchema(b, one, has_ids));
        return MatchRows(conformed, expr, one);
      };
    }
  }
  first.schema = schema;
  first.columns.assign(leaves.begin(), leaves.end());
  // Rows the statistics or page index prove match are not decoded to be filtered.
  for (parquet::RowGroupPlan& rg : first.row_groups) {
    std::erase_if(rg.columns,
                  [&](const parquet::ColumnChunkPlan& c) { return !leaves.count(c.column); });
    if (trust_certain) rg.rows = Subtract(rg.rows, rg.certain);
  }
  std::erase_if(first.row_groups, [](const parquet::RowGroupPlan& rg) { return rg.rows.empty(); });
  const Schema filter_schema(read_schema.schema_id(), std::move(fields));
  std::set<int> first_matchers;
  for (const auto& [leaf, m] : first.matchers) first_matchers.insert(leaf);
  const std::vector<parquet::FieldNode> filter_fields = first.fields;
  // Decodes one slice of `first` into its rows' match bytes, appended to *match.
  auto match_slice = [&](const parquet::ReadPlan& slice, std::vector<uint8_t>* match) -> Status {
    FLOE_ASSIGN_OR_RETURN(parquet::BatchReader batches, reader.Decode(slice, bytes));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<columnar::RecordBatch> b, batches.Next());
      if (!b) break;
      if (!per_column) {
        FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed,
                              ConformToSchema(*b, filter_schema, has_ids));
        FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> m,
                              MatchRows(conformed, residual, filter_schema));
        match->insert(match->end(), m.begin(), m.end());
        continue;
      }
      // Column by column: a matched column's flags (NULL never matches), else its own filter.
      const size_t at = match->size();
      const size_t n = static_cast<size_t>(b->num_rows);
      match->resize(at + n, 1);
      uint8_t* m = match->data() + at;
      for (size_t i = 0; i < filter_fields.size(); ++i) {
        const columnar::Column& col = *b->columns[i];
        if (filter_fields[i].kind == parquet::FieldNode::Kind::kLeaf &&
            first_matchers.count(filter_fields[i].leaf)) {
          const uint8_t* flags = col.values.data();
          if (col.null_count == 0) {
            for (size_t r = 0; r < n; ++r) m[r] &= flags[r];
          } else {
            for (size_t r = 0; r < n; ++r) {
              m[r] &= flags[r] & (col.IsValid(static_cast<int64_t>(r)) ? 1 : 0);
            }
          }
          continue;
        }
        columnar::RecordBatch one;
        auto one_schema = std::make_shared<columnar::Schema>();
        one_schema->fields.push_back(filter_fields[i].field);
        one.schema = std::move(one_schema);
        one.columns = {b->columns[i]};
        one.num_rows = b->num_rows;
        FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed,
                              ConformToSchema(one, one_field[i], has_ids));
        FLOE_ASSIGN_OR_RETURN(
            std::vector<uint8_t> mine,
            MatchRows(conformed, per_column->at(filter_fields[i].field.field_id), one_field[i]));
        for (size_t r = 0; r < n; ++r) m[r] &= mine[r];
      }
    }
    return {};
  };
  // Slices in plan order on their own threads; their match bytes concatenate in that order.
  std::vector<parquet::ReadPlan> slices = SplitForThreads(first, threads);
  if (slices.empty()) slices.push_back(std::move(first));
  std::vector<std::vector<uint8_t>> parts(slices.size());
  std::vector<Status> done(slices.size());
  {
    std::vector<std::thread> workers;
    for (size_t p = 1; p < slices.size(); ++p) {
      workers.emplace_back([&, p] { done[p] = match_slice(slices[p], &parts[p]); });
    }
    done[0] = match_slice(slices[0], parts.data());
    for (std::thread& t : workers) t.join();
  }
  for (Status& st : done) FLOE_RETURN_IF_ERROR(std::move(st));
  std::vector<uint8_t> match = std::move(parts[0]);
  for (size_t p = 1; p < parts.size(); ++p)
    match.insert(match.end(), parts[p].begin(), parts[p].end());
  return match;
}

// The rows of each of `plan`'s row groups that match, as ranges.
struct MatchingRows {
  std::vector<std::vector<parquet::RowRange>> per_group;
  int64_t planned = 0;  // rows the plan reads
  int64_t matched = 0;
  int64_t ranges = 0;
};

// Step 2: the matching rows of every row group -- proven ranges whole (when `trust_certain`),
// the others from `match` (MatchFilterColumns). nullopt when `match` does not cover them exactly.
std::optional<MatchingRows> FindMatchingRows(const parquet::ReadPlan& plan,
                                             const std::vector<uint8_t>& match,
                                             bool trust_certain) {
  MatchingRows m;
  size_t at = 0;
  for (const parquet::RowGroupPlan& rg : plan.row_groups) {
    std::vector<parquet::RowRange>& out = m.per_group.emplace_back();
    auto add = [&](int64_t begin, int64_t end) {
      if (!out.empty() && out.back().end == begin) {
        out.back().end = end;
      } else {
        out.push_back({begin, end});
        ++m.ranges;
      }
      m.matched += end - begin;
    };
    const std::vector<parquet::RowRange> none;
    const std::vector<parquet::RowRange>& certain = trust_certain ? rg.certain : none;
    size_t c = 0;
    for (const parquet::RowRange& r : rg.rows) {
      m.planned += r.end - r.begin;
      int64_t row = r.begin;
      while (row < r.end) {
        while (c < certain.size() && certain[c].end <= row) ++c;
        if (c < certain.size() && certain[c].begin <= row) {
          const int64_t end = std::min(r.end, certain[c].end);
          add(row, end);
          row = end;
          continue;
        }
        const int64_t end = c < certain.size() ? std::min(r.end, certain[c].begin) : r.end;
        if (at + static_cast<size_t>(end - row) > match.size()) return std::nullopt;
        // Runs of matches, found with memchr (most rows of a selective filter fail it).
        while (row < end) {
          const uint8_t* from = match.data() + at;
          const auto* hit =
              static_cast<const uint8_t*>(std::memchr(from, 1, static_cast<size_t>(end - row)));
          if (hit == nullptr) {
            at += static_cast<size_t>(end - row);
            row = end;
            break;
          }
          const int64_t skip = hit - from;
          int64_t run = 1;
          while (row + skip + run < end && hit[run]) ++run;
          add(row + skip, row + skip + run);
          at += static_cast<size_t>(skip + run);
          row += skip + run;
        }
      }
    }
  }
  if (at != match.size()) return std::nullopt;
  return m;
}

// Step 3: `plan` reading only the fields of `keep_ids` and only the rows of `matching`, all of
// them certain to match, in batches of at most kNarrowedBatchRows. nullopt when the file lacks a
// kept field.
std::optional<parquet::ReadPlan> NarrowedPlan(
    const parquet::ReadPlan& plan, const std::set<int32_t>& keep_ids,
    std::vector<std::vector<parquet::RowRange>> matching) {
  parquet::ReadPlan narrowed = plan;
  narrowed.batch_rows = std::min(plan.batch_rows, kNarrowedBatchRows);
  narrowed.row_groups.clear();
  std::set<int> kept_leaves;
  auto out_schema = std::make_shared<columnar::Schema>();
  narrowed.fields.clear();
  for (const parquet::FieldNode& f : plan.fields) {
    if (!keep_ids.count(f.field.field_id)) continue;
    narrowed.fields.push_back(f);
    out_schema->fields.push_back(f.field);
    kept_leaves.insert(f.leaves.begin(), f.leaves.end());
  }
  if (narrowed.fields.size() != keep_ids.size()) return std::nullopt;  // a projected column missing
  narrowed.schema = out_schema;
  narrowed.columns.assign(kept_leaves.begin(), kept_leaves.end());
  for (size_t g = 0; g < plan.row_groups.size(); ++g) {
    if (matching[g].empty()) continue;
    parquet::RowGroupPlan out = plan.row_groups[g];
    out.rows = std::move(matching[g]);
    out.certain = out.rows;
    std::erase_if(out.columns,
                  [&](const parquet::ColumnChunkPlan& c) { return !kept_leaves.count(c.column); });
    narrowed.row_groups.push_back(std::move(out));
  }
  return narrowed;
}

// Late materialization. When the residual filter reads fewer columns than the scan projects,
// decode those first, find the rows that match, and return the plan narrowed to them: the other
// columns are then decoded only there, their pages without a match passed over undecoded (a point
// lookup on an unsorted file decodes one column, not sixty). nullopt when it cannot pay: nothing
// to leave out, a limit, or more than half the rows matching in short runs. The residual is
// applied to the narrowed plan's rows all match: they need no filtering again, and the columns
// only the filter read (not in `keep_ids`, the projection) are left out of it.
Result<std::optional<parquet::ReadPlan>> NarrowToMatches(
    const parquet::FileReader& reader, const parquet::ReadPlan& plan,
    const parquet::FetchedBytes& bytes, const ExprPtr& residual, const Schema& read_schema,
    bool has_ids, const std::set<int32_t>& keep_ids, bool trust_certain, size_t threads) {
  FLOE_ASSIGN_OR_RETURN(std::optional<std::vector<uint8_t>> match,
                        MatchFilterColumns(reader, plan, bytes, residual, read_schema, has_ids,
                                           keep_ids, trust_certain, threads));
  if (!match) return std::nullopt;
  std::optional<MatchingRows> m = FindMatchingRows(plan, *match, trust_certain);
  if (!m) return std::nullopt;
  // Narrowing pays when few rows match, or when the matches come in long runs (a range of a
  // sorted column), or when nothing but the filter's columns is read (a count); otherwise
  // reading the matches one by one costs more than filtering.
  if (2 * m->matched > m->planned && m->ranges * 64 > m->matched && !keep_ids.empty()) {
    return std::nullopt;
  }
  return NarrowedPlan(plan, keep_ids, std::move(m->per_group));
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
  // A timestamp literal is in Iceberg's unit: it compares with the file's values only when the
  // file stores that unit (Iceberg's writers do; a file registered from elsewhere may not).
  auto same_unit = [&](const parquet::ColumnPredicate& p, const parquet::FieldNode* node) {
    const NestedField* f = p.field_id ? shape.read_schema.FindById(*p.field_id) : nullptr;
    if (f == nullptr || !f->type) return false;
    columnar::TimeUnit want;
    switch (f->type->id) {
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

Error NameFile(Error e, const FileScanTask& task) {
  if (e.message.find(task.file.file_path) == std::string::npos) {
    e.message = "reading '" + task.file.file_path + "': " + e.message;
  }
  return e;
}

}  // namespace

Status ReadScan(const std::vector<FileScanTask>& tasks, const Schema& projected, const FileIO& io,
                const ScanReadOptions& options, const BatchSink& sink, ScanReadStats* stats) {
  ScanReadStats local;
  if (stats == nullptr) stats = &local;
  for (const FileScanTask& t : tasks) {
    if (!t.deletes.empty()) {
      return Unsupported(
          "data file '{}' has {} delete files; applying deletes (merge-on-read) is not built yet",
          t.file.file_path, t.deletes.size());
    }
    if (t.file.file_format != "PARQUET" && t.file.file_format != "parquet") {
      return Unsupported("data file '{}' is {}; floe reads Parquet", t.file.file_path,
                         t.file.file_format);
    }
  }
  if (tasks.empty()) return {};

  const bool floe = options.strategy == parquet::ReadStrategy::kFloe;
  const ScanShape shape = ShapeOf(tasks, projected, options.apply_residual);
  std::set<int32_t> projected_ids;
  for (const NestedField& f : projected.fields()) projected_ids.insert(f.id);
  parquet::TailEstimator tails(options.planner);
  parquet::RequestGate gate(options.request_budget);
  parquet::FooterCache* cache = nullptr;
  if (floe && options.use_footer_cache) {
    cache = options.footer_cache ? options.footer_cache : &parquet::FooterCache::Default();
  }
  ByteBudget budget(options.max_buffered_bytes);

  std::mutex mu;  // guards `stats`, `first_error`, the delivery state and calls of `sink`
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
    parquet::StrategyReadOptions so;
    so.strategy = options.strategy;
    so.read.field_ids = shape.read_ids;
    so.read.use_page_index = options.use_page_index;
    if (options.apply_residual) CollectPredicates(task.residual, &so.read.predicates);
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
    parquet::FileHints hints;
    hints.file_length = static_cast<uint64_t>(std::max<int64_t>(0, task.file.file_size_in_bytes));
    hints.projected_bytes = ProjectedBytes(task.file, shape.leaf_ids);

    const int64_t len = task.file.file_size_in_bytes;
    int64_t reserved =
        hints.projected_bytes >= 0
            ? std::min(len, hints.projected_bytes + options.planner.initial_tail_bytes)
            : len;
    reserved = std::max<int64_t>(reserved, 0);
    budget.Reserve(reserved);
    auto fetched = parquet::FetchFile(*object.store, object.key, hints, so);
    if (!fetched) {
      budget.Release(reserved);
      return std::unexpected(std::move(fetched).error());
    }
    const int64_t held = fetched->bytes.total_bytes();
    budget.Adjust(reserved, held);
    struct Releaser {
      ByteBudget& b;
      int64_t n;
      ~Releaser() { b.Release(n); }
    } releaser{budget, held};

    const parquet::ReadPlan::Counts counts = fetched->plan.counts;
    const int64_t rg_read = static_cast<int64_t>(fetched->plan.row_groups.size());
    {
      std::lock_guard lock(mu);
      if (fetched->stats.bytes_fetched > 0) ++stats->data_files_opened;
      stats->row_groups_read += rg_read;
      stats->row_groups_skipped += counts.row_groups - rg_read;
      stats->pages_skipped += counts.pages_skipped;
      stats->metadata_rejected += counts.metadata_rejected;
      if (stats->metadata_warning.empty()) stats->metadata_warning = fetched->plan.first_rejection;
      stats->requests += fetched->stats.requests;
      stats->heads += fetched->stats.heads;
      stats->bytes_fetched += fetched->stats.bytes_fetched;
      stats->footer_cache_hits += fetched->footer_cached ? 1 : 0;
    }
    bool has_ids = false;
    for (const columnar::Field& f : fetched->reader.arrow_schema().fields) {
      has_ids |= f.field_id >= 0;
    }
    // Narrowed to its matches, the plan reads exactly the projected columns of matching rows.
    bool narrowed_to_matches = false;
    if (options.apply_residual && task.residual) {
      FLOE_ASSIGN_OR_RETURN(
          std::optional<parquet::ReadPlan> narrowed,
          NarrowToMatches(fetched->reader, fetched->plan, fetched->bytes, task.residual,
                          shape.read_schema, has_ids, projected_ids,
                          PredicatesAreTheResidual(task.residual, fetched->plan),
                          std::max<size_t>(1, DecodeThreads() / tasks.size())));
      if (narrowed) {
        fetched->plan = std::move(*narrowed);
        narrowed_to_matches = true;
      }
    }
    // Decodes `plan`'s row groups in order, filtering and delivering each batch.
    auto decode = [&](parquet::ReadPlan plan, parquet::FetchedBytes bytes) -> Status {
      FLOE_ASSIGN_OR_RETURN(parquet::BatchReader batches,
                            fetched->reader.Decode(std::move(plan), std::move(bytes)));
      while (!failed.load()) {
        FLOE_ASSIGN_OR_RETURN(std::optional<columnar::RecordBatch> b, batches.Next());
        if (!b) break;
        const int64_t rows = b->num_rows;
        columnar::RecordBatch conformed;
        if (narrowed_to_matches) {
          FLOE_ASSIGN_OR_RETURN(conformed, ConformToSchema(*b, projected, has_ids));
        } else {
          FLOE_ASSIGN_OR_RETURN(conformed, ConformToSchema(*b, shape.read_schema, has_ids));
          if (options.apply_residual && task.residual) {
            FLOE_ASSIGN_OR_RETURN(conformed,
                                  FilterRows(conformed, task.residual, shape.read_schema));
          }
          if (shape.needs_projection) {
            FLOE_ASSIGN_OR_RETURN(conformed, ConformToSchema(conformed, projected, true));
          }
        }
        std::lock_guard lock(mu);
        stats->rows_read += rows;
        if (options.preserve_order && (index != next_to_deliver || !held_batches.empty())) {
          if (conformed.num_rows > 0) held_batches.push_back(std::move(conformed));
          continue;
        }
        FLOE_RETURN_IF_ERROR(deliver(std::move(conformed)));
      }
      return {};
    };
    // With fewer files than cores, one file's row groups are decoded on several threads (every
    // core busy on a one-file table); batches then arrive in no particular order, so not when
    // order or a limit matters.
    const std::vector<parquet::ReadPlan> slices =
        options.preserve_order || options.limit >= 0
            ? std::vector<parquet::ReadPlan>{}
            : SplitForThreads(fetched->plan, std::max<size_t>(1, DecodeThreads() / tasks.size()));
    const size_t parts = slices.size();
    if (parts <= 1) {
      FLOE_RETURN_IF_ERROR(decode(std::move(fetched->plan), std::move(fetched->bytes)));
    } else {
      std::vector<Status> done(parts);
      std::vector<std::thread> threads;
      for (size_t p = 1; p < parts; ++p) {
        threads.emplace_back([&, p] { done[p] = decode(slices[p], fetched->bytes); });
      }
      done[0] = decode(slices[0], fetched->bytes);
      for (std::thread& t : threads) t.join();
      for (Status& st : done) FLOE_RETURN_IF_ERROR(std::move(st));
    }
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

  std::atomic<size_t> files_done{0};
  auto worker = [&] {
    while (!failed.load()) {
      const size_t i = next.fetch_add(1);
      if (i >= tasks.size()) return;
      Status st = read_one(i);
      if (st && options.on_file_done) options.on_file_done(++files_done, tasks.size());
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
  const int workers = std::clamp<int>(want, 1, static_cast<int>(tasks.size()));
  if (workers == 1) {
    worker();
  } else {
    // On the scan pool's threads, not new ones: a query of many small files would otherwise
    // spend a thread's creation and teardown on each. Workers wait only on IO and the sink, never
    // on each other, so a pool smaller than `workers` only queues them.
    std::vector<std::future<void>> done;
    done.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; ++w) done.push_back(ScanPool().Submit(worker));
    for (std::future<void>& d : done) d.wait();
  }
  stats->peak_buffered_bytes = std::max(stats->peak_buffered_bytes, budget.peak());
  if (first_error) return std::unexpected(std::move(*first_error));
  return {};
}

}  // namespace floe::iceberg
