#include "floe/sql/join_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_set>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/exec/grace_hash_join.h"
#include "floe/exec/hash_join.h"
#include "floe/exec/join_filter.h"
#include "floe/exec/value.h"
#include "floe/iceberg/scan.h"
#include "floe/sql/pushdown.h"

namespace floe::sql {

namespace {

using columnar::ColumnPtr;
using columnar::RecordBatch;

// A build side with at most this many distinct keys prunes the other side by the keys
// themselves; a larger one by their range. Integer keys are tested against a bitmap or a sorted
// list of them (exec's IN), so many keys still filter the probe side's rows cheaply as it is
// decoded -- the rows without a match are dropped before its other columns are.
constexpr size_t kPruneInListMax = 64;
constexpr size_t kPruneIntegersMax = 16384;
// A join's build keys are tested against each probe row in its scan (exec::JoinKeyFilter) when
// they number under this share of the probe column's distinct values: most rows then fail, and
// the test (a bit or a Bloom filter's block per row) costs less than the columns and the probe
// it spares them.
constexpr double kTestedKeysShare = 2;
// The rows estimated for a subquery of joins: not estimated, taken as large (so that it streams).
constexpr double kUnknownRows = 1e12;
// Pairs of a cross product made at a time.
constexpr size_t kCrossChunk = 65536;

void SlotsOf(const exec::ExprPtr& e, std::set<int>* out) {
  if (!e) return;
  if (e->kind == exec::Expr::Kind::kColumn) out->insert(e->column);
  for (const auto& a : e->args) SlotsOf(a, out);
}

bool Within(const std::set<int>& s, const std::vector<bool>& slots) {
  return std::all_of(s.begin(), s.end(), [&](int x) {
    return x >= 0 && static_cast<size_t>(x) < slots.size() && slots[static_cast<size_t>(x)];
  });
}

// A correlated scalar subquery's relation whose groups can be computed for given keys alone: an
// aggregate of one table's rows by plain columns (no grouping sets, order, limit or offset).
bool KeyedGroups(const JoinNode& n) {
  if (!n.keyed_by_outer || n.plan == nullptr) return false;
  const LogicalPlan& p = *n.plan;
  return (p.source == LogicalPlan::Source::kTable || p.source == LogicalPlan::Source::kJoin) &&
         p.aggregate && p.grouping_sets.empty() && p.order.empty() && p.limit < 0 &&
         p.offset == 0 && p.windows.empty();
}

// The table relation of join tree `node`, reached through inner joins only, whose rows fill
// `slot` (restricting its rows then restricts the joined rows alike); nullptr when there is none.
const JoinNode* InnerTableSupplier(const JoinNode& node, int slot) {
  if (node.kind == JoinNode::Kind::kRelation) {
    const bool fills = std::find(node.slots.begin(), node.slots.end(), slot) != node.slots.end();
    return fills && !node.shared && node.plan != nullptr &&
                   node.plan->source == LogicalPlan::Source::kTable
               ? &node
               : nullptr;
  }
  if (node.kind != JoinNode::Kind::kInner) return nullptr;
  for (const auto* side : {node.left.get(), node.right.get()}) {
    if (side == nullptr) continue;
    if (const JoinNode* r = InnerTableSupplier(*side, slot)) return r;
  }
  return nullptr;
}

// Join tree `node` with relation `target` replaced by `by`: the nodes on the way there copied,
// the rest shared.
std::shared_ptr<const JoinNode> Replaced(const std::shared_ptr<const JoinNode>& node,
                                         const JoinNode* target,
                                         const std::shared_ptr<const JoinNode>& by) {
  if (node == nullptr) return node;
  if (node.get() == target) return by;
  if (node->kind == JoinNode::Kind::kRelation) return node;
  auto left = Replaced(node->left, target, by), right = Replaced(node->right, target, by);
  if (left == node->left && right == node->right) return node;
  auto copy = std::make_shared<JoinNode>(*node);
  copy->left = std::move(left);
  copy->right = std::move(right);
  return copy;
}

// How a join runs: a relation streamed from its plan, or a join of a streamed (probe) side and a
// built one.
struct Step {
  const JoinNode* relation = nullptr;
  JoinNode::Kind kind = JoinNode::Kind::kRelation;
  std::unique_ptr<Step> probe, build;
  std::vector<exec::ExprPtr> probe_keys, build_keys;
  exec::ExprPtr residual;             // the other conditions, on each matching pair; null: none
  std::vector<exec::ExprPtr> filter;  // on the step's rows
  std::vector<bool> slots;            // the slots its rows fill
  double rows = 0;                    // estimated
  bool null_aware = false;            // an anti join of NOT IN, a mark join of IN
  int mark_slot = -1;                 // a mark join's (JoinNode::mark_slot)
  // A LEFT join whose kept side is built (it is estimated far smaller than the other): the other
  // side streams, its rows only in pairs; the built rows no pair took are NULL-extended at the
  // end (a right join of the sides swapped).
  bool build_preserved = false;
};

// What the joins above relations add to their scans (dynamic pruning).
using Pruning = std::map<const JoinNode*, ScanPruning>;

// The rows `idx` of a batch in the slot layout (absent slots stay absent).
Result<RecordBatch> Gather(const RecordBatch& b, const std::vector<int64_t>& idx) {
  RecordBatch out;
  out.num_rows = static_cast<int64_t>(idx.size());
  FLOE_ASSIGN_OR_RETURN(out.columns, columnar::TakeColumns(b.columns, idx));
  return out;
}

// The pairs (probe_rows[i], build_rows[i]) as rows of the slot layout: each slot from the side
// that has it (the probe's first).
Result<RecordBatch> Pair(const RecordBatch& probe, const std::vector<int64_t>& probe_rows,
                         const RecordBatch& build, const std::vector<int64_t>& build_rows,
                         size_t nslots) {
  std::vector<ColumnPtr> from_probe(nslots), from_build(nslots);
  for (size_t i = 0; i < nslots; ++i) {
    if (i < probe.columns.size() && probe.columns[i]) {
      from_probe[i] = probe.columns[i];
    } else if (i < build.columns.size() && build.columns[i]) {
      from_build[i] = build.columns[i];
    }
  }
  RecordBatch out;
  out.num_rows = static_cast<int64_t>(probe_rows.size());
  FLOE_ASSIGN_OR_RETURN(out.columns, columnar::TakeColumns(from_probe, probe_rows));
  FLOE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> built,
                        columnar::TakeColumns(from_build, build_rows));
  for (size_t i = 0; i < nslots; ++i) {
    if (built[i]) out.columns[i] = std::move(built[i]);
  }
  return out;
}

// The rows of `b` for which `predicate` is true.
Result<RecordBatch> FilterRows(const RecordBatch& b, const exec::Expr& predicate) {
  FLOE_ASSIGN_OR_RETURN(ColumnPtr mask, exec::Evaluate(predicate, b));
  std::vector<int64_t> keep;
  if (mask->type.id == columnar::TypeId::kBool) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (mask->IsValid(r) && mask->BoolAt(r)) keep.push_back(r);
    }
  }
  if (static_cast<int64_t>(keep.size()) == b.num_rows) return b;
  return Gather(b, keep);
}

// A mark join of IN tells a row without a match from one whose IN is unknown (NULL): the row's
// set -- the build rows with its correlation keys (every key but the last, the IN's value), all
// of them when uncorrelated -- is not empty, and the row's value is NULL or the set holds a NULL.
struct InSets {
  bool any_rows = false, any_null = false;         // uncorrelated: of the whole build side
  std::optional<exec::JoinHashTable> rows, nulls;  // correlated: by the correlation keys

  static Result<InSets> Of(const Step& j, const std::vector<ColumnPtr>& build_keys,
                           int64_t build_rows) {
    InSets s;
    if (build_keys.empty() || j.residual) {
      return Unsupported(
          "an IN (subquery) inside an expression whose correlation is not a column equality");
    }
    const ColumnPtr& value = build_keys.back();
    if (build_keys.size() == 1) {
      s.any_rows = build_rows > 0;
      s.any_null = value->null_count > 0 || value->type.id == columnar::TypeId::kNull;
      return s;
    }
    std::vector<ColumnPtr> groups(build_keys.begin(), build_keys.end() - 1);
    FLOE_ASSIGN_OR_RETURN(s.rows, exec::JoinHashTable::Build(groups, build_rows));
    std::vector<int64_t> null_rows;
    for (int64_t r = 0; r < build_rows; ++r) {
      if (value->IsNull(r)) null_rows.push_back(r);
    }
    if (!null_rows.empty()) {
      FLOE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> with_null,
                            columnar::TakeColumns(groups, null_rows));
      FLOE_ASSIGN_OR_RETURN(
          s.nulls,
          exec::JoinHashTable::Build(std::move(with_null), static_cast<int64_t>(null_rows.size())));
    }
    return s;
  }
};

// Which of `rows` rows have a key match in `table` (by the probe's correlation keys).
Result<std::vector<char>> HasGroup(const exec::JoinHashTable& table,
                                   const std::vector<ColumnPtr>& keys, int64_t rows) {
  std::vector<ColumnPtr> groups(keys.begin(), keys.end() - 1);
  std::vector<int64_t> pr, br;
  FLOE_RETURN_IF_ERROR(table.Probe(groups, rows, &pr, &br));
  std::vector<char> out(static_cast<size_t>(rows), 0);
  for (int64_t r : pr) out[static_cast<size_t>(r)] = 1;
  return out;
}

// A mark join's column: true where a row matched; else false, or NULL where IN is unknown
// (`in`: null for EXISTS). `keys` are the probe rows' keys.
Result<ColumnPtr> Marks(const std::vector<char>& matched, const std::vector<ColumnPtr>& keys,
                        const InSets* in) {
  const auto rows = static_cast<int64_t>(matched.size());
  std::vector<char> has_rows, has_null;
  if (in != nullptr && in->rows) {
    FLOE_ASSIGN_OR_RETURN(has_rows, HasGroup(*in->rows, keys, rows));
    if (in->nulls) {
      FLOE_ASSIGN_OR_RETURN(has_null, HasGroup(*in->nulls, keys, rows));
    }
  }
  columnar::BoolBuilder out;
  for (int64_t r = 0; r < rows; ++r) {
    const auto i = static_cast<size_t>(r);
    bool unknown = false;
    if (matched[i] == 0 && in != nullptr) {
      const bool set = in->rows ? has_rows[i] != 0 : in->any_rows;
      const bool null_in_set = in->rows ? !has_null.empty() && has_null[i] != 0 : in->any_null;
      unknown = set && (keys.back()->IsNull(r) || null_in_set);
    }
    if (unknown) {
      out.AppendNull();
    } else {
      out.Append(matched[i] != 0);
    }
  }
  return out.Finish();
}

class JoinRun {
 public:
  JoinRun(const LogicalPlan& plan, RunContext& ctx, ScanMetrics* stats)
      : plan_(plan), ctx_(ctx), stats_(stats), nslots_(plan.slot_types.size()) {}

  Result<std::unique_ptr<Step>> Plan(const JoinNode& n);
  Status Produce(const Step& s, const Pruning& pruning, const BatchConsumer& consume);
  static std::string Describe(const Step& s);

 private:
  Result<double> Estimate(const JoinNode& n);
  Result<RecordBatch> RelationRows(const JoinNode& n);
  Result<RecordBatch> Materialize(const Step& s, const Pruning& pruning,
                                  exec::MemoryReservation* held = nullptr,
                                  std::unique_ptr<exec::GraceHashJoin>* grace = nullptr,
                                  const Step* join = nullptr);
  std::unique_ptr<exec::GraceHashJoin> NewGraceJoin(const Step& j) const;
  void FlattenInner(const JoinNode& n, std::vector<const JoinNode*>* inputs,
                    std::vector<exec::ExprPtr>* conditions) const;
  Status SplitConditions(const std::vector<exec::ExprPtr>& conditions, Step* join) const;
  std::optional<std::pair<exec::ExprPtr, exec::ExprPtr>> EquiSides(
      const exec::ExprPtr& condition, const std::vector<bool>& probe,
      const std::vector<bool>& build) const;
  const JoinNode* Supplier(const Step& s, int slot) const;
  Status Prune(const Step& join, const std::vector<ColumnPtr>& build_keys, int64_t rows,
               Pruning* pruning) const;
  Status PruneStreamed(const Step& streamed, const std::vector<exec::ExprPtr>& streamed_keys,
                       const std::vector<ColumnPtr>& built_keys, int64_t rows,
                       Pruning* pruning) const;
  Status ProduceJoin(const Step& j, const Pruning& pruning, const BatchConsumer& consume);
  Result<std::optional<RecordBatch>> KeyedLeft(const Step& j, const Pruning& pruning);
  Status ProduceSemiByKeptSide(const Step& j, const Pruning& pruning, const BatchConsumer& consume);
  Status Emit(const Step& s, int worker, RecordBatch b, const BatchConsumer& consume) const;
  Result<RecordBatch> NullExtended(const RecordBatch& kept, const std::vector<int64_t>& rows,
                                   const std::vector<bool>& null_slots) const;

  // Distinct values a key can take on a side: an integer or date column's range of values (from
  // the manifests' bounds) when smaller than its table's rows; else the side's rows.
  double Distinct(const Step& side, const exec::ExprPtr& key) const;
  // Distinct values of a table relation's scan column `scan` (an index into its scan's fields):
  // at most `cap`, its table's rows and its range's width by the manifests' bounds.
  double ScanColumnValues(const JoinNode& rel, size_t scan, double cap) const;

  const LogicalPlan& plan_;
  RunContext& ctx_;
  ScanMetrics* stats_;
  size_t nslots_;
  std::map<const JoinNode*, RecordBatch> rows_;  // relations computed whole
  std::map<const JoinNode*, double> relation_rows_;
  // A table relation's integer and date columns: the smallest and largest value of its files.
  std::map<const JoinNode*, std::map<int32_t, std::pair<int64_t, int64_t>>> ranges_;
};

Result<RecordBatch> JoinRun::RelationRows(const JoinNode& n) {
  auto it = rows_.find(&n);
  if (it != rows_.end()) return it->second;
  RecordBatch rows;
  if (n.shared) {
    {
      std::lock_guard lock(ctx_.mu);
      auto s = ctx_.shared.find(n.plan.get());
      if (s != ctx_.shared.end()) rows = s->second;
    }
    if (rows.schema == nullptr) {
      FLOE_ASSIGN_OR_RETURN(rows, MaterializePlan(*n.plan, ctx_, stats_));
      std::lock_guard lock(ctx_.mu);
      ctx_.shared[n.plan.get()] = rows;
    }
  } else {
    FLOE_ASSIGN_OR_RETURN(rows, MaterializePlan(*n.plan, ctx_, stats_));
  }
  rows_[&n] = rows;
  return rows;
}

// What the manifests tell of a table's columns (by field id), for estimates: an integer or
// date column's range of values; a string or binary column's count of distinct values as its
// stored bits per value bound it (below).
struct ColumnFacts {
  std::map<int32_t, std::pair<int64_t, int64_t>> ranges;
  std::map<int32_t, double> distinct;
};

// The fraction of a table's rows a pushed filter is estimated to keep. A comparison of an
// integer or date column whose range of values the manifests' bounds give ([lo, hi]) keeps its
// share of that range (an equality 1 / its width), and a conjunction's lower and upper bounds on
// one such column keep the share between them (`d >= '1993-10-01' AND d < '1994-01-01'` keeps
// 3 months of 7 years, not the product of the two halves); an equality on a string column whose
// distinct values are estimated keeps one of them; other comparisons keep the shares PostgreSQL
// assumes without statistics: 0.005 for an equality, a third for a range.
class Selectivity {
 public:
  Selectivity(const iceberg::Schema& schema, const ColumnFacts& facts)
      : schema_(schema), facts_(facts) {}

  double Of(const iceberg::Expr& e) const {
    using iceberg::Op;
    switch (e.op) {
      case Op::kTrue:
        return 1;
      case Op::kFalse:
        return 0;
      case Op::kAnd:
        return OfConjunction(e);
      case Op::kOr: {
        const double a = Of(*e.children[0]);
        const double b = Of(*e.children[1]);
        return std::min(1.0, a + b - a * b);
      }
      case Op::kNot:
        return 1 - Of(*e.children[0]);
      case Op::kIsNull:
        return 0.05;
      case Op::kNotNull:
        return 0.95;
      default:
        return OfComparison(e);
    }
  }

 private:
  static constexpr double kEq = 0.005, kRange = 1.0 / 3;

  // The conjuncts' shares multiplied, except that each column's bounds meet first: the shares
  // a lower bound and an upper bound keep overlap in (lower + upper - 1) of the range.
  double OfConjunction(const iceberg::Expr& e) const {
    std::vector<const iceberg::Expr*> conjuncts;
    Flatten(e, &conjuncts);
    std::map<int32_t, std::pair<double, double>> bounds;  // field -> (lower keeps, upper keeps)
    double out = 1;
    for (const iceberg::Expr* c : conjuncts) {
      const std::optional<double> below = Below(*c);
      if (!below) {
        out *= Of(*c);
        continue;
      }
      auto [it, fresh] = bounds.try_emplace(FieldId(*c), 1.0, 1.0);
      if (Less(*c)) {
        it->second.second = std::min(it->second.second, *below);
      } else {
        it->second.first = std::min(it->second.first, 1 - *below);
      }
    }
    for (const auto& [id, keeps] : bounds) {
      out *= std::max(0.0, keeps.first + keeps.second - 1);
    }
    return out;
  }

  static void Flatten(const iceberg::Expr& e, std::vector<const iceberg::Expr*>* out) {
    if (e.op == iceberg::Op::kAnd) {
      for (const auto& c : e.children) Flatten(*c, out);
    } else {
      out->push_back(&e);
    }
  }

  static bool Less(const iceberg::Expr& e) {
    return e.op == iceberg::Op::kLt || e.op == iceberg::Op::kLtEq;
  }

  int32_t FieldId(const iceberg::Expr& e) const {
    if (e.field_id >= 0) return e.field_id;
    const iceberg::NestedField* f = schema_.FindByName(e.column);
    return f != nullptr ? f->id : -1;
  }

  std::optional<std::pair<double, double>> Range(const iceberg::Expr& e) const {
    auto r = facts_.ranges.find(FieldId(e));
    if (r == facts_.ranges.end()) return std::nullopt;
    return std::make_pair(static_cast<double>(r->second.first),
                          static_cast<double>(r->second.second));
  }

  static std::optional<double> Literal(const iceberg::Expr& e) {
    if (e.literals.empty()) return std::nullopt;
    const auto& v = e.literals[0].storage();
    if (const auto* x = std::get_if<int32_t>(&v)) return static_cast<double>(*x);
    if (const auto* x = std::get_if<int64_t>(&v)) return static_cast<double>(*x);
    return std::nullopt;
  }

  // For a range comparison of a column whose range the manifests give, the share of that range
  // below the literal; nullopt otherwise.
  std::optional<double> Below(const iceberg::Expr& e) const {
    using iceberg::Op;
    if (e.op != Op::kLt && e.op != Op::kLtEq && e.op != Op::kGt && e.op != Op::kGtEq) {
      return std::nullopt;
    }
    const auto range = Range(e);
    const auto x = Literal(e);
    if (!range || !x) return std::nullopt;
    const double width = range->second - range->first + 1;
    if (width < 1) return std::nullopt;
    return std::clamp((*x - range->first) / width, 0.0, 1.0);
  }

  double OfComparison(const iceberg::Expr& e) const {
    using iceberg::Op;
    const auto range = Range(e);
    const double width = range ? range->second - range->first + 1 : 0;
    double eq = range && width >= 1 ? std::max(kEq, 1 / width) : kEq;
    if (auto d = facts_.distinct.find(FieldId(e)); d != facts_.distinct.end()) eq = 1 / d->second;
    switch (e.op) {
      case Op::kEq:
        return eq;
      case Op::kNotEq:
        return 1 - eq;
      case Op::kIn:
        return std::min(1.0, eq * static_cast<double>(e.literals.size()));
      case Op::kNotIn:
        return std::max(0.0, 1 - eq * static_cast<double>(e.literals.size()));
      case Op::kLt:
      case Op::kLtEq:
      case Op::kGt:
      case Op::kGtEq: {
        const auto below = Below(e);
        if (!below) return kRange;
        return Less(e) ? *below : 1 - *below;
      }
      case Op::kStartsWith:
        return kRange / 10;
      case Op::kNotStartsWith:
        return 1 - kRange / 10;
      default:
        return 1;
    }
  }

  const iceberg::Schema& schema_;
  const ColumnFacts& facts_;
};

Result<double> JoinRun::Estimate(const JoinNode& n) {
  switch (n.kind) {
    case JoinNode::Kind::kRelation:
      break;
    case JoinNode::Kind::kLeft:
    case JoinNode::Kind::kSemi:
    case JoinNode::Kind::kAnti:
    case JoinNode::Kind::kMark:
      return Estimate(*n.left);
    case JoinNode::Kind::kFull:
    case JoinNode::Kind::kInner: {
      FLOE_ASSIGN_OR_RETURN(double l, Estimate(*n.left));
      FLOE_ASSIGN_OR_RETURN(double r, Estimate(*n.right));
      return l + r;
    }
  }
  const LogicalPlan& p = *n.plan;
  // A keyed subquery's groups are estimated as its table's rows (an upper bound), not computed:
  // the join may compute only the groups it needs.
  if (n.shared || (!Streamable(p) && !KeyedGroups(n)) ||
      p.source == LogicalPlan::Source::kMetadataTable || p.source == LogicalPlan::Source::kNone) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch rows, RelationRows(n));
    return static_cast<double>(rows.num_rows);
  }
  if (p.source == LogicalPlan::Source::kTable) {
    // The record counts of the files its filter keeps (the metadata is cached for the scan).
    iceberg::ScanOptions so;
    so.filter = p.pushed_filter;
    so.snapshot_id = p.snapshot_id;
    so.as_of_timestamp_ms = p.as_of_timestamp_ms;
    FLOE_ASSIGN_OR_RETURN(iceberg::ScanPlan scan, iceberg::PlanFiles(p.table, *ctx_.wh->io, so));
    double rows = 0;
    auto& ranges = ranges_[&n];
    const iceberg::Schema& schema = p.table.metadata.CurrentSchema();
    // A string or binary column's stored bytes and values over the files (-1: a file lacks them).
    std::map<int32_t, std::pair<double, double>> stored;
    for (const iceberg::NestedField& f : schema.fields()) {
      if (f.type &&
          (f.type->id == iceberg::TypeId::kString || f.type->id == iceberg::TypeId::kBinary)) {
        stored[f.id] = {0, 0};
      }
    }
    // A bound as the integer it encodes (Iceberg's single-value form: little-endian), if the
    // column is an int, long or date.
    auto bound = [&](int32_t id, const std::string& bytes) -> std::optional<int64_t> {
      const iceberg::NestedField* f = schema.FindById(id);
      if (f == nullptr || !f->type) return std::nullopt;
      const iceberg::TypeId t = f->type->id;
      const size_t width = t == iceberg::TypeId::kLong                                 ? 8
                           : t == iceberg::TypeId::kInt || t == iceberg::TypeId::kDate ? 4
                                                                                       : 0;
      if (width == 0 || bytes.size() != width) return std::nullopt;
      if (width == 4) {
        int32_t v = 0;
        std::memcpy(&v, bytes.data(), 4);
        return v;
      }
      int64_t v = 0;
      std::memcpy(&v, bytes.data(), 8);
      return v;
    };
    for (size_t i = 0; i < scan.tasks.size(); ++i) {
      const iceberg::DataFile& f = scan.tasks[i].file;
      rows += static_cast<double>(f.record_count);
      for (const auto& [id, lo_bytes] : f.lower_bounds) {
        auto hi_it = f.upper_bounds.find(id);
        auto lo = bound(id, lo_bytes);
        auto hi = hi_it == f.upper_bounds.end() ? std::nullopt : bound(id, hi_it->second);
        if (!lo || !hi) continue;
        auto [it, fresh] = ranges.try_emplace(id, *lo, *hi);
        if (!fresh) {
          it->second.first = std::min(it->second.first, *lo);
          it->second.second = std::max(it->second.second, *hi);
        } else if (i > 0) {
          ranges.erase(it);  // an earlier file had no bounds for it: no known range
        }
      }
      // A column without bounds in this file has no known range.
      for (auto it = ranges.begin(); it != ranges.end();) {
        it = f.lower_bounds.count(it->first) ? std::next(it) : ranges.erase(it);
      }
      for (auto& [id, sv] : stored) {
        auto size = f.column_sizes.find(id);
        auto count = f.value_counts.find(id);
        if (size == f.column_sizes.end() || count == f.value_counts.end() || sv.first < 0) {
          sv.first = -1;
          continue;
        }
        sv.first += static_cast<double>(size->second);
        sv.second += static_cast<double>(count->second);
      }
    }
    relation_rows_[&n] = rows;
    ColumnFacts facts;
    facts.ranges = ranges;
    // Dictionary codes, run lengths and compression store a column of few distinct values in
    // few bits per value, and b bits tell at most 2^b values apart: distinct <= 2^(8 * bytes per
    // value). Close for the columns a filter names by value (TPC-H's flags, modes, segments and
    // brands: 2 for 2, 7 for 5, 33 for 25); a column of unique values sorted shrinks too, and
    // is then taken for fewer values than it has -- an equality on it kept more rows than it keeps.
    for (const auto& [id, sv] : stored) {
      if (sv.first <= 0 || sv.second < 1) continue;
      const double bits = 8 * sv.first / sv.second;
      facts.distinct[id] =
          std::clamp(bits >= 60 ? rows : std::exp2(bits), 1.0, std::max(1.0, rows));
    }
    if (p.pushed_filter) rows *= Selectivity(schema, facts).Of(*p.pushed_filter);
    rows = std::max(rows, 1.0);
    return p.residual_where ? rows / 2 : rows;
  }
  // A subquery of joins: large, so that it streams.
  return kUnknownRows;
}

void JoinRun::FlattenInner(const JoinNode& n, std::vector<const JoinNode*>* inputs,
                           std::vector<exec::ExprPtr>* conditions) const {
  if (n.kind != JoinNode::Kind::kInner) {
    inputs->push_back(&n);
    return;
  }
  conditions->insert(conditions->end(), n.condition.begin(), n.condition.end());
  conditions->insert(conditions->end(), n.filter.begin(), n.filter.end());
  FlattenInner(*n.left, inputs, conditions);
  FlattenInner(*n.right, inputs, conditions);
}

std::optional<std::pair<exec::ExprPtr, exec::ExprPtr>> JoinRun::EquiSides(
    const exec::ExprPtr& c, const std::vector<bool>& probe, const std::vector<bool>& build) const {
  if (c->kind != exec::Expr::Kind::kCall || c->fn != exec::Fn::kEq || c->args.size() != 2) {
    return std::nullopt;
  }
  std::set<int> a, b;
  SlotsOf(c->args[0], &a);
  SlotsOf(c->args[1], &b);
  if (a.empty() || b.empty()) return std::nullopt;
  if (Within(a, probe) && Within(b, build)) return std::make_pair(c->args[0], c->args[1]);
  if (Within(b, probe) && Within(a, build)) return std::make_pair(c->args[1], c->args[0]);
  return std::nullopt;
}

Status JoinRun::SplitConditions(const std::vector<exec::ExprPtr>& conditions, Step* j) const {
  std::vector<exec::ExprPtr> rest;
  for (const auto& c : conditions) {
    auto sides = EquiSides(c, j->probe->slots, j->build->slots);
    if (sides) {
      exec::ExprPtr p = sides->first, b = sides->second;
      if (p->type != b->type) {
        // Both keys in the type they are compared in.
        auto common = exec::CommonType(p->type, b->type);
        if (common) {
          auto pc = p->type == *common ? Result<exec::ExprPtr>(p) : exec::MakeCast(p, *common);
          auto bc = b->type == *common ? Result<exec::ExprPtr>(b) : exec::MakeCast(b, *common);
          if (pc && bc) {
            p = *pc;
            b = *bc;
          }
        }
      }
      if (p->type == b->type) {
        j->probe_keys.push_back(p);
        j->build_keys.push_back(b);
        continue;
      }
    }
    rest.push_back(c);
  }
  for (const auto& c : rest) {
    if (!j->residual) {
      j->residual = c;
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(j->residual, exec::MakeCall(exec::Fn::kAnd, {j->residual, c}));
  }
  return {};
}

Result<std::unique_ptr<Step>> JoinRun::Plan(const JoinNode& n) {
  auto s = std::make_unique<Step>();
  s->kind = n.kind;
  s->slots.assign(nslots_, false);
  if (n.kind == JoinNode::Kind::kRelation) {
    s->relation = &n;
    for (int slot : n.slots) {
      if (slot >= 0) s->slots[static_cast<size_t>(slot)] = true;
    }
    s->filter = n.filter;
    FLOE_ASSIGN_OR_RETURN(s->rows, Estimate(n));
    return s;
  }
  if (n.kind != JoinNode::Kind::kInner) {
    // Outer, semi, anti and mark joins keep their sides: the preserved one streams, the other
    // is built. Semi and anti joins give the streamed side's rows only, mark joins add the mark.
    const bool semi = n.kind == JoinNode::Kind::kSemi || n.kind == JoinNode::Kind::kAnti ||
                      n.kind == JoinNode::Kind::kMark;
    s->null_aware = n.null_aware;
    s->mark_slot = n.mark_slot;
    FLOE_ASSIGN_OR_RETURN(s->probe, Plan(*n.left));
    FLOE_ASSIGN_OR_RETURN(s->build, Plan(*n.right));
    // A LEFT join of a kept side estimated far smaller than the other builds the kept side (as
    // DuckDB's right join does): a hash table of its rows, not of the other side's.
    if (n.kind == JoinNode::Kind::kLeft && s->probe->rows * 4 < s->build->rows &&
        s->build->rows < kUnknownRows &&
        !(n.right->kind == JoinNode::Kind::kRelation &&
          (n.right->single_row || n.right->keyed_by_outer))) {
      std::swap(s->probe, s->build);
      s->build_preserved = true;
    }
    for (size_t i = 0; i < nslots_; ++i) {
      s->slots[i] = s->probe->slots[i] || (!semi && s->build->slots[i]);
    }
    if (n.mark_slot >= 0) s->slots[static_cast<size_t>(n.mark_slot)] = true;
    FLOE_RETURN_IF_ERROR(SplitConditions(n.condition, s.get()));
    s->filter = n.filter;
    s->rows = n.kind == JoinNode::Kind::kFull ? s->probe->rows + s->build->rows
              : s->build_preserved            ? s->build->rows
                                              : s->probe->rows;
    return s;
  }
  // Inner joins in any order. Dimensions first: an input that is joined to one other input
  // alone, and makes that join smaller than the other input (a filtered dimension hanging off
  // another table), is joined to it before the rest, so its filter reaches the large table as a
  // smaller build side (a bushy plan: Q07's nations filter their suppliers and customers before
  // lineitem meets either). Then the largest input streams through hash tables of the others,
  // each next input the one a key connects to those joined so far whose join is estimated
  // smallest (rows x rows / the larger count of distinct keys), ties to the smaller input; once
  // the rows joined so far are estimated fewer than the next input's, they are the built side
  // and the input streams.
  std::vector<const JoinNode*> inputs;
  std::vector<exec::ExprPtr> conditions;
  FlattenInner(n, &inputs, &conditions);
  std::vector<std::unique_ptr<Step>> steps;
  for (const JoinNode* in : inputs) {
    FLOE_ASSIGN_OR_RETURN(auto step, Plan(*in));
    steps.push_back(std::move(step));
  }
  std::vector<std::set<int>> condition_slots(conditions.size());
  for (size_t c = 0; c < conditions.size(); ++c) SlotsOf(conditions[c], &condition_slots[c]);
  std::vector<bool> used(conditions.size(), false);
  // The estimated rows of joining `a` and `b` on their unused equality conditions; nullopt when
  // none connects them.
  auto joined_rows = [&](const Step& a, const Step& b) -> std::optional<double> {
    std::optional<double> out;
    for (size_t c = 0; c < conditions.size(); ++c) {
      if (used[c]) continue;
      auto sides = EquiSides(conditions[c], a.slots, b.slots);
      if (!sides) continue;
      const double distinct = std::max(Distinct(a, sides->first), Distinct(b, sides->second));
      const double rows = a.rows * std::max(1.0, b.rows) / distinct;
      out = out ? std::min(*out, rows) : rows;
    }
    return out;
  };
  // `probe` joined to `build` on every unused condition their slots cover.
  auto join = [&](std::unique_ptr<Step> probe, std::unique_ptr<Step> build,
                  double rows) -> Result<std::unique_ptr<Step>> {
    auto j = std::make_unique<Step>();
    j->kind = JoinNode::Kind::kInner;
    j->probe = std::move(probe);
    j->build = std::move(build);
    j->slots.assign(nslots_, false);
    for (size_t i = 0; i < nslots_; ++i) j->slots[i] = j->probe->slots[i] || j->build->slots[i];
    std::vector<exec::ExprPtr> mine;
    for (size_t c = 0; c < conditions.size(); ++c) {
      if (!used[c] && Within(condition_slots[c], j->slots)) {
        used[c] = true;
        mine.push_back(conditions[c]);
      }
    }
    FLOE_RETURN_IF_ERROR(SplitConditions(mine, j.get()));
    j->rows = rows;
    return j;
  };
  auto largest = [&]() {
    size_t start = 0;
    for (size_t i = 1; i < steps.size(); ++i) {
      if (steps[i]->rows > steps[start]->rows) start = i;
    }
    return start;
  };
  for (bool folded = true; folded && steps.size() > 2;) {
    folded = false;
    const size_t start = largest();
    for (size_t d = 0; d < steps.size() && !folded; ++d) {
      if (d == start) continue;
      // The one input every unused equality naming d's slots joins it to (other conditions
      // over several inputs wait until all of theirs are joined, wherever d joins).
      std::optional<size_t> other;
      bool leaf = true;
      for (size_t c = 0; c < conditions.size() && leaf; ++c) {
        if (used[c]) continue;
        for (size_t k = 0; k < steps.size() && leaf; ++k) {
          if (k == d || !EquiSides(conditions[c], steps[d]->slots, steps[k]->slots)) continue;
          leaf = !other || *other == k;
          other = k;
        }
      }
      if (!leaf || !other || *other == start) continue;
      const std::optional<double> rows = joined_rows(*steps[*other], *steps[d]);
      if (!rows || *rows >= steps[*other]->rows) continue;
      const size_t o = *other;
      std::unique_ptr<Step> a = std::move(steps[o]), b = std::move(steps[d]);
      if (a->rows < b->rows) std::swap(a, b);
      FLOE_ASSIGN_OR_RETURN(steps[o], join(std::move(a), std::move(b), *rows));
      steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(d));
      folded = true;
    }
  }
  const size_t start = largest();
  std::unique_ptr<Step> acc = std::move(steps[start]);

  for (size_t joined = 1; joined < steps.size(); ++joined) {
    int best = -1;
    bool best_connected = false;
    double best_out = 0;
    for (size_t k = 0; k < steps.size(); ++k) {
      if (!steps[k]) continue;
      const std::optional<double> rows = joined_rows(*acc, *steps[k]);
      const bool connected = rows.has_value();
      const double out = rows ? *rows : acc->rows * std::max(1.0, steps[k]->rows);
      const bool better =
          best < 0 || (connected && !best_connected) ||
          (connected == best_connected &&
           (out < best_out ||
            (out == best_out && steps[k]->rows < steps[static_cast<size_t>(best)]->rows)));
      if (better) {
        best = static_cast<int>(k);
        best_connected = connected;
        best_out = out;
      }
    }
    std::unique_ptr<Step> next = std::move(steps[static_cast<size_t>(best)]);
    if (best_connected && acc->rows < next->rows) {
      FLOE_ASSIGN_OR_RETURN(acc, join(std::move(next), std::move(acc), best_out));
    } else {
      FLOE_ASSIGN_OR_RETURN(acc, join(std::move(acc), std::move(next), best_out));
    }
  }
  return acc;
}

double JoinRun::Distinct(const Step& side, const exec::ExprPtr& key) const {
  double distinct = std::max(1.0, side.rows);
  if (key->kind != exec::Expr::Kind::kColumn) return distinct;
  const JoinNode* rel = Supplier(side, key->column);
  if (rel == nullptr || rel->plan == nullptr) return distinct;
  auto rows = relation_rows_.find(rel);
  if (rows != relation_rows_.end()) distinct = std::min(distinct, std::max(1.0, rows->second));
  const LogicalPlan& p = *rel->plan;
  if (p.source != LogicalPlan::Source::kTable || p.aggregate) {
    return distinct;  // an aggregate's outputs are not its scan's columns
  }
  for (size_t o = 0; o < rel->slots.size(); ++o) {
    if (rel->slots[o] != key->column || p.outputs[o]->kind != exec::Expr::Kind::kColumn) continue;
    return ScanColumnValues(*rel, static_cast<size_t>(p.outputs[o]->column), distinct);
  }
  return distinct;
}

double JoinRun::ScanColumnValues(const JoinNode& rel, size_t scan, double cap) const {
  double values = cap;
  auto rows = relation_rows_.find(&rel);
  if (rows != relation_rows_.end()) values = std::min(values, std::max(1.0, rows->second));
  auto ranges = ranges_.find(&rel);
  if (ranges == ranges_.end() || scan >= rel.plan->scan_field_ids.size()) return values;
  auto r = ranges->second.find(rel.plan->scan_field_ids[scan]);
  if (r != ranges->second.end()) {
    const double width =
        static_cast<double>(r->second.second) - static_cast<double>(r->second.first) + 1;
    values = std::min(values, std::max(1.0, width));
  }
  return values;
}

const JoinNode* JoinRun::Supplier(const Step& s, int slot) const {
  if (slot < 0 || static_cast<size_t>(slot) >= nslots_ || !s.slots[static_cast<size_t>(slot)]) {
    return nullptr;
  }
  if (s.relation != nullptr) return s.relation;
  const JoinNode* p = Supplier(*s.probe, slot);
  return p != nullptr ? p : Supplier(*s.build, slot);
}

// A filter on `column` (of `p`'s scan batch, a table's) keeping every row whose value is among
// the first `rows` values of `keys`: the keys themselves when few -- up to kPruneInListMax, or for
// integers up to kPruneIntegersMax when under a tenth of the `distinct` values the column holds
// (beyond, testing each row costs more than the scattered rows it drops save: their other columns
// are still read a run at a time) -- else their range; False when every key is NULL. Null when
// no filter can be made.
Result<iceberg::ExprPtr> KeyFilter(const columnar::Column& c, int64_t rows,
                                   const exec::ExprPtr& column, double distinct_values,
                                   const LogicalPlan& p) {
  std::optional<exec::Value> lo, hi;
  std::map<std::string, exec::Value> distinct;
  std::string key;
  const columnar::TypeId t = c.type.id;
  const bool wide = t == columnar::TypeId::kInt64 || t == columnar::TypeId::kTimestamp ||
                    t == columnar::TypeId::kTime64;
  const bool typed = wide || t == columnar::TypeId::kDate32;
  std::vector<int64_t> ints;  // typed: the distinct keys ascending, if few enough
  if (typed) {
    // Integer keys by their raw values: no Value per row.
    std::unordered_set<int64_t> few;
    bool any = false;
    int64_t min = 0, max = 0;
    for (int64_t r = 0; r < rows; ++r) {
      if (c.null_count > 0 && c.IsNull(r)) continue;
      const int64_t v = wide ? c.Values<int64_t>()[r] : c.Values<int32_t>()[r];
      min = any ? std::min(min, v) : v;
      max = any ? std::max(max, v) : v;
      any = true;
      if (few.size() <= kPruneIntegersMax) few.insert(v);
    }
    if (any) {
      lo = exec::Value::Int(min);
      hi = exec::Value::Int(max);
    }
    if (few.size() <= kPruneInListMax ||
        (few.size() <= kPruneIntegersMax &&
         static_cast<double>(few.size()) * 10 <= distinct_values)) {
      ints.assign(few.begin(), few.end());
      std::sort(ints.begin(), ints.end());
    }
  }
  for (int64_t r = 0; r < rows && !typed; ++r) {
    if (c.type.id == columnar::TypeId::kNull || c.IsNull(r)) continue;
    FLOE_ASSIGN_OR_RETURN(exec::Value v, exec::ValueAt(c, r));
    if (!lo || exec::CompareValues(v, *lo) < 0) lo = v;
    if (!hi || exec::CompareValues(v, *hi) > 0) hi = v;
    if (distinct.size() <= kPruneInListMax) {
      key.clear();
      exec::AppendKeyBytes(v, &key);
      distinct.emplace(key, v);
    }
  }
  if (!lo) return iceberg::False();  // no key can match: nothing to read
  exec::ExprPtr pred;
  if (typed ? !ints.empty() : distinct.size() <= kPruneInListMax) {
    std::vector<exec::ExprPtr> args{column};
    for (int64_t v : ints) args.push_back(exec::Constant(exec::Value::Int(v), column->type));
    for (const auto& [kb, v] : distinct) args.push_back(exec::Constant(v, column->type));
    auto in = exec::MakeCall(exec::Fn::kIn, std::move(args));
    if (in) pred = *in;
  } else {
    auto ge = exec::MakeCall(exec::Fn::kGtEq, {column, exec::Constant(*lo, column->type)});
    auto le = exec::MakeCall(exec::Fn::kLtEq, {column, exec::Constant(*hi, column->type)});
    if (ge && le) {
      auto both = exec::MakeCall(exec::Fn::kAnd, {*ge, *le});
      if (both) pred = *both;
    }
  }
  if (!pred) return iceberg::ExprPtr{};
  return PushableFilter(pred, p.table.metadata.CurrentSchema(), p.scan_field_ids).filter;
}

// An inner join's build keys bound the probe side: a probe key that is a table's column gets the
// keys' range (or the keys themselves, when few) added to that table's scan filter, so files, row
// groups and pages without a possible match are never read; and when the keys are many but far
// fewer than the column's values, a test of each row against them (exec::JoinKeyFilter), so the
// rows that cannot match are dropped before their other columns are materialised or probed.
// Rows the filter and the test let through are still probed: they only have to keep every row
// that can match.
Status JoinRun::Prune(const Step& j, const std::vector<ColumnPtr>& build_keys, int64_t rows,
                      Pruning* pruning) const {
  if (j.kind != JoinNode::Kind::kInner && j.kind != JoinNode::Kind::kSemi && !j.build_preserved) {
    return {};
  }
  return PruneStreamed(*j.probe, j.probe_keys, build_keys, rows, pruning);
}

// Prune's work for any join whose streamed side (`streamed`, its keys `streamed_keys`) needs only
// the rows that can match the `rows` built keys `built_keys`: an inner or semi join's probe side,
// and the other side of a semi or anti join built on its kept side.
Status JoinRun::PruneStreamed(const Step& streamed, const std::vector<exec::ExprPtr>& streamed_keys,
                              const std::vector<ColumnPtr>& built_keys, int64_t rows,
                              Pruning* pruning) const {
  for (size_t k = 0; k < streamed_keys.size(); ++k) {
    const exec::ExprPtr& pk = streamed_keys[k];
    if (pk->kind != exec::Expr::Kind::kColumn) continue;
    const JoinNode* rel = Supplier(streamed, pk->column);
    if (rel == nullptr || rel->shared || rows_.count(rel) || rel->plan == nullptr) continue;
    const LogicalPlan& p = *rel->plan;
    if (p.source != LogicalPlan::Source::kTable || !Streamable(p)) continue;
    exec::ExprPtr out;
    for (size_t o = 0; o < rel->slots.size(); ++o) {
      if (rel->slots[o] == pk->column) out = p.outputs[o];
    }
    if (!out || out->kind != exec::Expr::Kind::kColumn) continue;
    const double distinct = Distinct(streamed, pk);
    FLOE_ASSIGN_OR_RETURN(
        iceberg::ExprPtr filter,
        KeyFilter(*built_keys[k], rows, exec::ColumnRef(out->column, out->type, out->name),
                  distinct, p));
    // Keys far fewer than the probe column's values (and not listed in the filter): each probe
    // row is tested against them in the scan, before its other columns are materialised -- and
    // then the keys' range only prunes: the test drops the rows outside it, so the range is not
    // evaluated on every row as well.
    const auto scan = static_cast<size_t>(out->column);
    std::shared_ptr<const exec::JoinKeyFilter> keys;
    if (!(filter && filter->op == iceberg::Op::kIn) && scan < p.scan_field_ids.size()) {
      keys = exec::JoinKeyFilter::Of(*built_keys[k], rows);
      if (keys && static_cast<double>(keys->keys()) * kTestedKeysShare > distinct) keys = nullptr;
    }
    if (keys) {
      (*pruning)[rel].tests.push_back(
          {p.scan_field_ids[scan], [keys](const columnar::Column& c) { return keys->Test(c); }});
    }
    if (filter) {
      iceberg::ExprPtr& slot = keys ? (*pruning)[rel].prune_filter : (*pruning)[rel].filter;
      slot = slot ? iceberg::And(slot, filter) : filter;
    }
  }
  return {};
}

Status JoinRun::Emit(const Step& s, int worker, RecordBatch b, const BatchConsumer& consume) const {
  for (const auto& f : s.filter) {
    if (b.num_rows == 0) break;
    FLOE_ASSIGN_OR_RETURN(b, FilterRows(b, *f));
  }
  if (b.num_rows == 0) return {};
  return consume(worker, std::move(b));
}

// Rows `rows` of `kept` with the slots of `null_slots` NULL (an outer join's unmatched rows).
Result<RecordBatch> JoinRun::NullExtended(const RecordBatch& kept, const std::vector<int64_t>& rows,
                                          const std::vector<bool>& null_slots) const {
  FLOE_ASSIGN_OR_RETURN(RecordBatch out, Gather(kept, rows));
  for (size_t i = 0; i < nslots_; ++i) {
    if (null_slots[i]) {
      out.columns[i] = columnar::NullColumn(plan_.slot_types[i], out.num_rows);
    }
  }
  return out;
}

// A build row's share of the hash table beside its values (chain link, map node, bucket).
constexpr int64_t kTableRowBytes = 64;

std::unique_ptr<exec::GraceHashJoin> JoinRun::NewGraceJoin(const Step& j) const {
  exec::GraceJoinSpec spec;
  switch (j.kind) {
    case JoinNode::Kind::kLeft:
      spec.type = j.build_preserved ? exec::JoinType::kRight : exec::JoinType::kLeft;
      break;
    case JoinNode::Kind::kFull:
      spec.type = exec::JoinType::kFull;
      break;
    case JoinNode::Kind::kSemi:
      spec.type = exec::JoinType::kSemi;
      break;
    case JoinNode::Kind::kAnti:
      spec.type = exec::JoinType::kAnti;
      break;
    default:
      spec.type = exec::JoinType::kInner;
      break;
  }
  spec.null_aware = j.null_aware;
  spec.probe_keys = j.probe_keys;
  spec.build_keys = j.build_keys;
  spec.residual = j.residual;
  spec.slot_types = plan_.slot_types;
  spec.probe_slots = j.probe->slots;
  spec.build_slots = j.build->slots;
  return std::make_unique<exec::GraceHashJoin>(std::move(spec), ctx_.budget, ctx_.spill);
}

// With `held`, the build side of `join`: its rows (and the hash table to come) are counted
// against the memory budget, and once they pass it -- for a join with equi-keys, when a spill
// directory is set -- they go to a grace hash join (`grace`) instead, leaving no rows here.
Result<RecordBatch> JoinRun::Materialize(const Step& s, const Pruning& pruning,
                                         exec::MemoryReservation* held,
                                         std::unique_ptr<exec::GraceHashJoin>* grace,
                                         const Step* join) {
  std::mutex mu;
  std::vector<RecordBatch> parts;
  // A mark join's build side (a subquery's rows) stays in memory.
  const bool can_spill = held != nullptr && ctx_.spill != nullptr && join != nullptr &&
                         !join->build_keys.empty() && join->kind != JoinNode::Kind::kMark &&
                         !(join->build->relation != nullptr && join->build->relation->single_row);
  FLOE_RETURN_IF_ERROR(Produce(s, pruning, [&](int, RecordBatch b) -> Status {
    std::lock_guard lock(mu);
    if (can_spill && *grace) return (*grace)->AddBuild(b);
    if (held != nullptr) {
      held->Grow(exec::BatchBytes(b) + b.num_rows * kTableRowBytes);
      if (can_spill && held->Exceeded()) {
        *grace = NewGraceJoin(*join);
        for (const auto& p : parts) FLOE_RETURN_IF_ERROR((*grace)->AddBuild(p));
        parts.clear();
        held->Set(0);
        return (*grace)->AddBuild(b);
      }
    }
    parts.push_back(std::move(b));
    return {};
  }));
  RecordBatch out;
  out.columns.resize(nslots_);
  if (parts.empty()) {
    for (size_t i = 0; i < nslots_; ++i) {
      if (s.slots[i]) out.columns[i] = columnar::NullColumn(plan_.slot_types[i], 0);
    }
    return out;
  }
  // Concatenate the present columns.
  std::vector<size_t> present;
  for (size_t i = 0; i < nslots_; ++i) {
    if (parts[0].columns[i]) present.push_back(i);
  }
  std::vector<RecordBatch> compact;
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t i : present) schema->fields.push_back({fmt::format("s{}", i), plan_.slot_types[i]});
  for (auto& p : parts) {
    RecordBatch c;
    c.schema = schema;
    c.num_rows = p.num_rows;
    for (size_t i : present) c.columns.push_back(std::move(p.columns[i]));
    compact.push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RETURN(RecordBatch all, columnar::Concatenate(compact));
  out.num_rows = all.num_rows;
  for (size_t k = 0; k < present.size(); ++k) out.columns[present[k]] = std::move(all.columns[k]);
  return out;
}

Status JoinRun::Produce(const Step& s, const Pruning& pruning, const BatchConsumer& consume) {
  if (s.relation == nullptr) return ProduceJoin(s, pruning, consume);
  const JoinNode& n = *s.relation;
  auto emit = [&](int w, RecordBatch out) -> Status {
    RecordBatch b;
    b.num_rows = out.num_rows;
    b.columns.resize(nslots_);
    for (size_t i = 0; i < n.slots.size() && i < out.columns.size(); ++i) {
      if (n.slots[i] >= 0) b.columns[static_cast<size_t>(n.slots[i])] = out.columns[i];
    }
    return Emit(s, w, std::move(b), consume);
  };
  if (n.shared || rows_.count(&n) || !Streamable(*n.plan)) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch rows, RelationRows(n));
    return emit(0, std::move(rows));
  }
  auto it = pruning.find(&n);
  if (it == pruning.end()) return StreamPlan(*n.plan, ctx_, nullptr, stats_, emit);
  // The files the join's keys alone rule out (planning again reads only cached metadata).
  const LogicalPlan& p = *n.plan;
  iceberg::ScanOptions so;
  so.filter = p.pushed_filter;
  so.snapshot_id = p.snapshot_id;
  so.as_of_timestamp_ms = p.as_of_timestamp_ms;
  FLOE_ASSIGN_OR_RETURN(iceberg::ScanPlan own, iceberg::PlanFiles(p.table, *ctx_.wh->io, so));
  if (it->second.filter || it->second.prune_filter) {
    if (const iceberg::ExprPtr& keys = it->second.filter) {
      so.filter = so.filter ? iceberg::And(so.filter, keys) : keys;
    }
    so.prune_filter = it->second.prune_filter;
    FLOE_ASSIGN_OR_RETURN(iceberg::ScanPlan pruned, iceberg::PlanFiles(p.table, *ctx_.wh->io, so));
    stats_->data_files_skipped_join +=
        static_cast<int64_t>(own.tasks.size()) - static_cast<int64_t>(pruned.tasks.size());
  }
  return StreamPlan(p, ctx_, &it->second, stats_, emit);
}

// A semi or anti join whose kept side is estimated far smaller than the side it is tested
// against: the kept rows are built into the hash table and the other side streams through it,
// marking the kept rows it matches (the residual checked on each pair); then the marked rows
// (semi) or the others (anti) go on. Spares building a table of the large side.
Status JoinRun::ProduceSemiByKeptSide(const Step& j, const Pruning& pruning,
                                      const BatchConsumer& consume) {
  const bool anti = j.kind == JoinNode::Kind::kAnti;
  FLOE_ASSIGN_OR_RETURN(RecordBatch kept, Materialize(*j.probe, pruning));
  if (kept.num_rows == 0) return {};
  std::vector<ColumnPtr> kept_keys;
  for (const auto& k : j.probe_keys) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, exec::Evaluate(*k, kept));
    kept_keys.push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RETURN(exec::JoinHashTable table,
                        exec::JoinHashTable::Build(kept_keys, kept.num_rows));
  std::vector<std::vector<char>> matched(static_cast<size_t>(SourceWorkers(ctx_)));
  for (auto& m : matched) m.assign(static_cast<size_t>(kept.num_rows), 0);
  // Only the other side's rows that can match a kept row matter, to a semi join and an anti
  // join alike: the kept keys prune its scan.
  Pruning other_pruning = pruning;
  FLOE_RETURN_IF_ERROR(
      PruneStreamed(*j.build, j.build_keys, kept_keys, kept.num_rows, &other_pruning));
  FLOE_RETURN_IF_ERROR(
      Produce(*j.build, other_pruning, [&](int w, const RecordBatch& other) -> Status {
        std::vector<ColumnPtr> keys;
        for (const auto& k : j.build_keys) {
          FLOE_ASSIGN_OR_RETURN(ColumnPtr c, exec::Evaluate(*k, other));
          keys.push_back(std::move(c));
        }
        std::vector<int64_t> other_rows, kept_rows;
        FLOE_RETURN_IF_ERROR(table.Probe(keys, other.num_rows, &other_rows, &kept_rows));
        std::vector<char>& m = matched[static_cast<size_t>(w)];
        if (!j.residual) {
          for (int64_t r : kept_rows) m[static_cast<size_t>(r)] = 1;
          return {};
        }
        if (other_rows.empty()) return {};
        FLOE_ASSIGN_OR_RETURN(RecordBatch pairs, Pair(kept, kept_rows, other, other_rows, nslots_));
        FLOE_ASSIGN_OR_RETURN(ColumnPtr mask, exec::Evaluate(*j.residual, pairs));
        if (mask->type.id != columnar::TypeId::kBool) return {};
        for (size_t r = 0; r < kept_rows.size(); ++r) {
          const auto row = static_cast<int64_t>(r);
          if (mask->IsValid(row) && mask->BoolAt(row)) m[static_cast<size_t>(kept_rows[r])] = 1;
        }
        return {};
      }));
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < kept.num_rows; ++r) {
    bool hit = false;
    for (const auto& m : matched) hit = hit || m[static_cast<size_t>(r)] != 0;
    if (hit != anti) keep.push_back(r);
  }
  FLOE_ASSIGN_OR_RETURN(RecordBatch out, Gather(kept, keep));
  return Emit(j, 0, std::move(out), consume);
}

// A LEFT join of a keyed subquery (JoinNode::keyed_by_outer) whose left side is estimated no
// larger than the subquery's table, as DuckDB's delim join does: the left rows first, then the
// subquery's groups for their keys alone -- its scan filtered by the keys (KeyFilter) -- kept as
// the relation's rows, which the join then builds on. Returns the left rows, or nullopt (nothing
// done) when this does not apply.
Result<std::optional<RecordBatch>> JoinRun::KeyedLeft(const Step& j, const Pruning& pruning) {
  if (j.kind != JoinNode::Kind::kLeft || j.build_preserved || j.build->relation == nullptr ||
      j.probe_keys.empty()) {
    return std::nullopt;
  }
  const JoinNode& rel = *j.build->relation;
  if (!KeyedGroups(rel) || rows_.count(&rel) || j.probe->rows > j.build->rows) return std::nullopt;
  const LogicalPlan& p = *rel.plan;
  // The build keys that are group keys, plain columns of a table's scan: (key, the table's
  // relation -- the subquery itself, or one under its inner joins --, the scan column).
  struct Keyed {
    size_t key;
    const JoinNode* table;
    exec::ExprPtr column;
  };
  std::vector<Keyed> keyed;
  for (size_t k = 0; k < j.build_keys.size(); ++k) {
    const exec::ExprPtr& bk = j.build_keys[k];
    if (bk->kind != exec::Expr::Kind::kColumn) continue;
    for (size_t o = 0; o < rel.slots.size() && o < p.outputs.size(); ++o) {
      if (rel.slots[o] != bk->column) continue;
      const exec::ExprPtr& out = p.outputs[o];  // over the aggregate's row: keys first
      if (out->kind != exec::Expr::Kind::kColumn || out->column < 0 ||
          static_cast<size_t>(out->column) >= p.group_keys.size()) {
        break;
      }
      const exec::ExprPtr& g = p.group_keys[static_cast<size_t>(out->column)];
      if (g->kind != exec::Expr::Kind::kColumn || g->type != bk->type) break;
      if (p.source == LogicalPlan::Source::kTable) {
        keyed.push_back({k, &rel, exec::ColumnRef(g->column, g->type, g->name)});
        break;
      }
      // A join's slot: the table relation filling it, and its scan column there.
      const JoinNode* table = p.join ? InnerTableSupplier(*p.join, g->column) : nullptr;
      if (table == nullptr) break;
      for (size_t t = 0; t < table->slots.size() && t < table->plan->outputs.size(); ++t) {
        const exec::ExprPtr& scan = table->plan->outputs[t];
        if (table->slots[t] != g->column || scan->kind != exec::Expr::Kind::kColumn) continue;
        keyed.push_back({k, table, exec::ColumnRef(scan->column, scan->type, scan->name)});
        break;
      }
      break;
    }
  }
  if (keyed.empty()) return std::nullopt;
  FLOE_ASSIGN_OR_RETURN(RecordBatch left, Materialize(*j.probe, pruning));
  std::map<const JoinNode*, iceberg::ExprPtr> filters;  // by the table relation they restrict
  for (const Keyed& x : keyed) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr keys, exec::Evaluate(*j.probe_keys[x.key], left));
    // The column's distinct values: for the subquery's own scan, as the estimate gave its
    // table's rows and ranges; under its joins, the groups the subquery is estimated to make.
    const double values =
        x.table != &rel ? j.build->rows
        : relation_rows_.count(&rel)
            ? ScanColumnValues(rel, static_cast<size_t>(x.column->column), relation_rows_.at(&rel))
            : 0;
    FLOE_ASSIGN_OR_RETURN(iceberg::ExprPtr f,
                          KeyFilter(*keys, left.num_rows, x.column, values, *x.table->plan));
    if (!f) continue;
    iceberg::ExprPtr& slot = filters[x.table];
    slot = slot ? iceberg::And(slot, f) : f;
  }
  LogicalPlan restricted = p;
  for (const auto& [table, filter] : filters) {
    if (table == &rel) {
      restricted.pushed_filter =
          restricted.pushed_filter ? iceberg::And(restricted.pushed_filter, filter) : filter;
      continue;
    }
    auto scan = std::make_shared<LogicalPlan>(*table->plan);
    scan->pushed_filter = scan->pushed_filter ? iceberg::And(scan->pushed_filter, filter) : filter;
    auto node = std::make_shared<JoinNode>(*table);
    node->plan = std::move(scan);
    restricted.join = Replaced(restricted.join, table, node);
  }
  FLOE_ASSIGN_OR_RETURN(rows_[&rel], MaterializePlan(restricted, ctx_, stats_));
  return left;
}

Status JoinRun::ProduceJoin(const Step& j, const Pruning& pruning, const BatchConsumer& consume) {
  // Semi and anti joins build on the kept side when it is estimated under half the other (a
  // side not estimated -- a subquery of joins -- is built as usual: its rows are no count).
  if ((j.kind == JoinNode::Kind::kSemi || j.kind == JoinNode::Kind::kAnti) && !j.null_aware &&
      !j.probe_keys.empty() && j.probe->rows * 2 < j.build->rows && j.build->rows < kUnknownRows &&
      !(j.build->relation != nullptr && j.build->relation->single_row)) {
    return ProduceSemiByKeptSide(j, pruning, consume);
  }
  // A keyed subquery computed for the left rows' keys alone: the left rows are then at hand.
  FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> left_rows, KeyedLeft(j, pruning));
  exec::MemoryReservation held(ctx_.budget);
  std::unique_ptr<exec::GraceHashJoin> grace;
  FLOE_ASSIGN_OR_RETURN(RecordBatch build, Materialize(*j.build, pruning, &held, &grace, &j));
  if (grace) {
    // The build side passed the memory budget: both sides partitioned to disk, joined a
    // partition at a time (no pruning of the probe side by the build's keys).
    if (left_rows) {
      FLOE_RETURN_IF_ERROR(grace->AddProbe(*left_rows));
    } else {
      FLOE_RETURN_IF_ERROR(Produce(*j.probe, pruning, [&](int, const RecordBatch& b) -> Status {
        return grace->AddProbe(b);
      }));
    }
    return grace->Finish([&](RecordBatch b) { return Emit(j, 0, std::move(b), consume); });
  }
  if (j.build->relation != nullptr && j.build->relation->single_row && build.num_rows > 1) {
    return InvalidInput("a subquery used as a value gave {} rows, not at most one", build.num_rows);
  }
  const bool semi = j.kind == JoinNode::Kind::kSemi;
  const bool anti = j.kind == JoinNode::Kind::kAnti;
  const bool mark = j.kind == JoinNode::Kind::kMark;
  if ((j.kind == JoinNode::Kind::kInner || semi || j.build_preserved) && build.num_rows == 0) {
    return {};  // nothing can match (and no kept row to NULL-extend)
  }
  if (anti && build.num_rows == 0) {
    // Nothing to exclude (even a NULL NOT IN an empty set is true).
    return Produce(*j.probe, pruning,
                   [&](int w, RecordBatch b) { return Emit(j, w, std::move(b), consume); });
  }
  std::vector<ColumnPtr> build_keys;
  for (const auto& k : j.build_keys) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, exec::Evaluate(*k, build));
    build_keys.push_back(std::move(c));
  }
  std::optional<exec::JoinHashTable> table;
  if (!build_keys.empty()) {
    FLOE_ASSIGN_OR_RETURN(table, exec::JoinHashTable::Build(build_keys, build.num_rows));
  }
  if (anti && j.null_aware) {
    // x NOT IN (a set holding NULL) is never true.
    for (const auto& k : build_keys) {
      if (k->null_count > 0 || k->type.id == columnar::TypeId::kNull) return {};
    }
  }
  Pruning probe_pruning = pruning;
  FLOE_RETURN_IF_ERROR(Prune(j, build_keys, build.num_rows, &probe_pruning));
  std::optional<InSets> in_sets;
  if (mark && j.null_aware) {
    FLOE_ASSIGN_OR_RETURN(in_sets, InSets::Of(j, build_keys, build.num_rows));
  }

  // Semi and anti joins: the probe rows with (without) a match, each once; mark joins: every
  // probe row, marked.
  if (semi || anti || mark) {
    return Produce(*j.probe, probe_pruning, [&](int w, RecordBatch probe) -> Status {
      std::vector<char> matched(static_cast<size_t>(probe.num_rows), 0);
      std::vector<int64_t> pr, br;
      std::vector<ColumnPtr> keys;
      if (table) {
        for (const auto& k : j.probe_keys) {
          FLOE_ASSIGN_OR_RETURN(ColumnPtr c, exec::Evaluate(*k, probe));
          keys.push_back(std::move(c));
        }
      }
      auto settle = [&]() -> Status {
        if (pr.empty()) return {};
        if (j.residual) {
          FLOE_ASSIGN_OR_RETURN(RecordBatch out, Pair(probe, pr, build, br, nslots_));
          FLOE_ASSIGN_OR_RETURN(ColumnPtr mask, exec::Evaluate(*j.residual, out));
          for (size_t r = 0; r < pr.size(); ++r) {
            const auto row = static_cast<int64_t>(r);
            if (mask->type.id == columnar::TypeId::kBool && mask->IsValid(row) &&
                mask->BoolAt(row)) {
              matched[static_cast<size_t>(pr[r])] = 1;
            }
          }
        } else {
          for (int64_t r : pr) matched[static_cast<size_t>(r)] = 1;
        }
        pr.clear();
        br.clear();
        return {};
      };
      if (table) {
        FLOE_RETURN_IF_ERROR(table->Probe(keys, probe.num_rows, &pr, &br));
        FLOE_RETURN_IF_ERROR(settle());
      } else if (!j.residual) {
        if (build.num_rows > 0) std::fill(matched.begin(), matched.end(), 1);  // any row matches
      } else {
        for (int64_t p = 0; p < probe.num_rows; ++p) {
          for (int64_t b = 0; b < build.num_rows; ++b) {
            pr.push_back(p);
            br.push_back(b);
          }
          if (pr.size() >= kCrossChunk) FLOE_RETURN_IF_ERROR(settle());
        }
        FLOE_RETURN_IF_ERROR(settle());
      }
      if (mark) {
        FLOE_ASSIGN_OR_RETURN(ColumnPtr marks, Marks(matched, keys, in_sets ? &*in_sets : nullptr));
        if (j.mark_slot >= 0) {
          probe.columns.resize(nslots_);
          probe.columns[static_cast<size_t>(j.mark_slot)] = std::move(marks);
        }
        return Emit(j, w, std::move(probe), consume);
      }
      std::vector<int64_t> keep;
      for (int64_t r = 0; r < probe.num_rows; ++r) {
        bool take = matched[static_cast<size_t>(r)] != 0;
        if (anti) {
          take = !take;
          // NOT IN: a NULL key is unknown against a non-empty set.
          if (take && j.null_aware) {
            for (const auto& k : keys) take = take && !k->IsNull(r);
          }
        }
        if (take) keep.push_back(r);
      }
      FLOE_ASSIGN_OR_RETURN(RecordBatch out, Gather(probe, keep));
      return Emit(j, w, std::move(out), consume);
    });
  }

  // LEFT and FULL keep the probe rows; FULL and a LEFT join built on its kept side the build rows.
  const bool keep_probe = j.kind != JoinNode::Kind::kInner && !j.build_preserved;
  const bool keep_build = j.kind == JoinNode::Kind::kFull || j.build_preserved;
  // Which build rows matched, per worker.
  std::vector<std::vector<char>> build_matched(keep_build ? SourceWorkers(ctx_) : 0);
  for (auto& m : build_matched) m.assign(static_cast<size_t>(build.num_rows), 0);

  auto on_probe = [&](int w, RecordBatch probe) -> Status {
    std::vector<char> probe_matched(keep_probe ? static_cast<size_t>(probe.num_rows) : 0, 0);
    // Joins pairs (probe row, build row) that meet the keys, then the residual.
    auto pairs = [&](std::vector<int64_t>* pr, std::vector<int64_t>* br) -> Status {
      if (pr->empty()) return {};
      FLOE_ASSIGN_OR_RETURN(RecordBatch out, Pair(probe, *pr, build, *br, nslots_));
      if (j.residual) {
        FLOE_ASSIGN_OR_RETURN(ColumnPtr mask, exec::Evaluate(*j.residual, out));
        std::vector<int64_t> keep;
        for (int64_t r = 0; r < out.num_rows; ++r) {
          if (mask->type.id == columnar::TypeId::kBool && mask->IsValid(r) && mask->BoolAt(r)) {
            keep.push_back(r);
          }
        }
        if (static_cast<int64_t>(keep.size()) != out.num_rows) {
          FLOE_ASSIGN_OR_RETURN(out, Gather(out, keep));
          std::vector<int64_t> kp, kb;
          for (int64_t r : keep) {
            kp.push_back((*pr)[static_cast<size_t>(r)]);
            kb.push_back((*br)[static_cast<size_t>(r)]);
          }
          *pr = std::move(kp);
          *br = std::move(kb);
        }
      }
      for (int64_t r : *pr) {
        if (keep_probe) probe_matched[static_cast<size_t>(r)] = 1;
      }
      if (keep_build) {
        for (int64_t r : *br) build_matched[static_cast<size_t>(w)][static_cast<size_t>(r)] = 1;
      }
      pr->clear();
      br->clear();
      return Emit(j, w, std::move(out), consume);
    };
    std::vector<int64_t> pr, br;
    if (table) {
      std::vector<ColumnPtr> keys;
      for (const auto& k : j.probe_keys) {
        FLOE_ASSIGN_OR_RETURN(ColumnPtr c, exec::Evaluate(*k, probe));
        keys.push_back(std::move(c));
      }
      FLOE_RETURN_IF_ERROR(table->Probe(keys, probe.num_rows, &pr, &br));
      FLOE_RETURN_IF_ERROR(pairs(&pr, &br));
    } else {
      // No equi-key: every pair, a chunk at a time.
      for (int64_t p = 0; p < probe.num_rows; ++p) {
        for (int64_t b = 0; b < build.num_rows; ++b) {
          pr.push_back(p);
          br.push_back(b);
        }
        if (pr.size() >= kCrossChunk) FLOE_RETURN_IF_ERROR(pairs(&pr, &br));
      }
      FLOE_RETURN_IF_ERROR(pairs(&pr, &br));
    }
    if (keep_probe) {
      std::vector<int64_t> unmatched;
      for (int64_t r = 0; r < probe.num_rows; ++r) {
        if (!probe_matched[static_cast<size_t>(r)]) unmatched.push_back(r);
      }
      if (!unmatched.empty()) {
        FLOE_ASSIGN_OR_RETURN(RecordBatch out, NullExtended(probe, unmatched, j.build->slots));
        FLOE_RETURN_IF_ERROR(Emit(j, w, std::move(out), consume));
      }
    }
    return {};
  };
  if (left_rows) {
    FLOE_RETURN_IF_ERROR(on_probe(0, std::move(*left_rows)));
  } else {
    FLOE_RETURN_IF_ERROR(Produce(*j.probe, probe_pruning, on_probe));
  }
  if (keep_build) {
    std::vector<int64_t> unmatched;
    for (int64_t r = 0; r < build.num_rows; ++r) {
      bool matched = false;
      for (const auto& m : build_matched) matched = matched || m[static_cast<size_t>(r)] != 0;
      if (!matched) unmatched.push_back(r);
    }
    if (!unmatched.empty()) {
      FLOE_ASSIGN_OR_RETURN(RecordBatch out, NullExtended(build, unmatched, j.probe->slots));
      FLOE_RETURN_IF_ERROR(Emit(j, 0, std::move(out), consume));
    }
  }
  return {};
}

}  // namespace

// "(streamed join built) ~rows", relations by name.
std::string JoinRun::Describe(const Step& s) {
  const std::string rows = s.rows >= kUnknownRows
                               ? "~?"
                               : fmt::format("~{}", static_cast<int64_t>(std::llround(s.rows)));
  if (s.relation != nullptr) return s.relation->name + " " + rows;
  static constexpr std::string_view kKinds[] = {"",          "join",      "left join", "full join",
                                                "semi join", "anti join", "mark join"};
  return fmt::format("({} {} {}) {}", Describe(*s.probe),
                     s.build_preserved ? "right join" : kKinds[static_cast<int>(s.kind)],
                     Describe(*s.build), rows);
}

Result<std::string> DescribeJoinOrder(const LogicalPlan& plan, RunContext& ctx,
                                      ScanMetrics* stats) {
  if (!plan.join) return Internal("a join source without its joins");
  JoinRun run(plan, ctx, stats);
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<Step> root, run.Plan(*plan.join));
  return JoinRun::Describe(*root);
}

Status RunJoin(const LogicalPlan& plan, RunContext& ctx, ScanMetrics* stats,
               const BatchConsumer& consume) {
  if (!plan.join) return Internal("a join source without its joins");
  JoinRun run(plan, ctx, stats);
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<Step> root, run.Plan(*plan.join));
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t i = 0; i < plan.slot_types.size(); ++i) {
    schema->fields.push_back({fmt::format("s{}", i), plan.slot_types[i]});
  }
  return run.Produce(*root, {}, [&](int w, RecordBatch b) -> Status {
    // A semi join's right side (a subquery's columns) fills no slot of the rows it lets through.
    for (size_t i = 0; i < b.columns.size(); ++i) {
      if (!b.columns[i]) b.columns[i] = columnar::NullColumn(plan.slot_types[i], b.num_rows);
    }
    b.schema = schema;
    return consume(w, std::move(b));
  });
}

}  // namespace floe::sql
