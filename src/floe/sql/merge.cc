#include "floe/sql/merge.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "floe/columnar/take.h"
#include "floe/exec/filter.h"
#include "floe/exec/hash_join.h"
#include "floe/exec/memory_budget.h"
#include "floe/exec/value.h"
#include "floe/sql/bind_internal.h"
#include "floe/sql/dml_target.h"
#include "floe/sql/plan_runner.h"
#include "floe/sql/pushdown.h"
#include "floe/sql/transform.h"

namespace floe::sql {

namespace {

namespace c = columnar;
using Match = ast::MergeClause::Match;
using Action = ast::MergeClause::Action;
using iceberg::RowLevelOperation;
using internal::FailAt;
using internal::Lower;
using internal::TargetColumns;

// A WHEN clause bound: its condition and, for UPDATE and INSERT, the new row's values (one per
// target column, then `_row_id` in v3), over the clause's scope -- the matched pair, the source
// row alone (NOT MATCHED) or the target row alone (NOT MATCHED BY SOURCE).
struct BoundClause {
  Match match = Match::kMatched;
  Action action = Action::kNothing;
  exec::ExprPtr condition;  // null: always
  std::vector<exec::ExprPtr> values;
  // UPDATE: which target columns it sets (the others keep their values).
  std::vector<bool> sets;
  int location = -1;
};

// The conjuncts of `e`, AND flattened, moved out of it.
void TakeConjuncts(ast::ExprPtr e, std::vector<ast::ExprPtr>* out) {
  if (!e) return;
  if (e->kind == ast::Expr::Kind::kAnd) {
    for (ast::ExprPtr& a : e->args) TakeConjuncts(std::move(a), out);
    return;
  }
  out->push_back(std::move(e));
}

// `e` with each column reference `i` made `to[i]`.
exec::ExprPtr Renumbered(const exec::ExprPtr& e, const std::vector<int>& to) {
  if (!e) return e;
  auto out = std::make_shared<exec::Expr>(*e);
  if (out->kind == exec::Expr::Kind::kColumn) out->column = to[static_cast<size_t>(out->column)];
  for (exec::ExprPtr& a : out->args) a = Renumbered(a, to);
  return out;
}

// One byte per row of `b`: 1 where `predicate` is true (NULL is not).
Result<std::vector<uint8_t>> TrueRows(const exec::Expr& predicate, const c::RecordBatch& b) {
  FLOE_ASSIGN_OR_RETURN(c::ColumnPtr v, exec::Evaluate(predicate, b));
  std::vector<uint8_t> out(static_cast<size_t>(b.num_rows), 0);
  if (v->type.id != c::TypeId::kBool) return out;
  for (int64_t r = 0; r < b.num_rows; ++r) out[r] = v->IsValid(r) && v->BoolAt(r) ? 1 : 0;
  return out;
}

// `a`'s columns at rows `ia` beside `b`'s at rows `ib` (a matched pair per row).
Result<c::RecordBatch> Pairs(const c::RecordBatch& a, const std::vector<int64_t>& ia,
                             const c::RecordBatch& b, const std::vector<int64_t>& ib) {
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch left, c::Take(a, ia));
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch right, c::Take(b, ib));
  auto schema = std::make_shared<c::Schema>(*left.schema);
  for (size_t i = 0; i < right.columns.size(); ++i) {
    left.columns.push_back(right.columns[i]);
    schema->fields.push_back(right.schema->fields[i]);
  }
  left.schema = std::move(schema);
  return left;
}

std::vector<RelationColumn> Concat(const std::vector<RelationColumn>& a,
                                   const std::vector<RelationColumn>& b) {
  std::vector<RelationColumn> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// An AST constant for `v` as the binder reads it against a column of `type`, or null when the
// type's text may not give the value back exactly (floats, decimals, timestamps, booleans).
ast::ExprPtr ConstantFor(const exec::Value& v, const c::DataType& type, int location) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::Expr::Kind::kConst;
  e->location = location;
  switch (type.id) {
    case c::TypeId::kInt64:
      e->constant.kind = ast::Const::Kind::kInteger;
      e->constant.integer = v.i();
      return e;
    case c::TypeId::kString:
    case c::TypeId::kDate32:
      e->constant.kind = ast::Const::Kind::kString;
      e->constant.text = exec::ValueToText(v, type);
      return e;
    default:
      return nullptr;
  }
}

// `name BETWEEN lo AND hi` over the target's column `name`.
ast::ExprPtr Between(const std::string& name, ast::ExprPtr lo, ast::ExprPtr hi, int location) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::Expr::Kind::kBetween;
  e->location = location;
  e->args.push_back(internal::NameRef(name, location));
  e->args.push_back(std::move(lo));
  e->args.push_back(std::move(hi));
  return e;
}

class MergeRun {
 public:
  MergeRun(const ParsedStatement& st, const TableResolver& resolver, iceberg::Warehouse& wh,
           const QueryOptions& options)
      : st_(st), resolver_(resolver), wh_(wh), options_(options) {}

  Result<QueryResult> Run();

 private:
  std::unexpected<Error> Fail(int loc, ErrorKind kind, std::string msg) const {
    return FailAt(st_.text, loc, kind, std::move(msg));
  }
  Result<exec::ExprPtr> Bind(const ast::Expr& e, const std::vector<RelationColumn>& scope) const {
    return BindScalar(st_, e, scope, "the MERGE's target and source");
  }
  Status ReadSource(ast::Merge& m);
  Status SplitOn(ast::Merge& m, bool target_rows_matter);
  Result<BoundClause> BindClause(ast::MergeClause& clause);
  Result<std::vector<exec::ExprPtr>> StarValues(const ast::MergeClause& clause,
                                                const std::vector<RelationColumn>& scope);
  void PushSourceKeyRanges(int location);
  // Copy-on-write updates of some columns: the target scan narrowed to the columns the statement
  // reads or sets (the rewrite copies the others: in_place_rewrite.h). Renumbers the bound
  // expressions; `read_` lists the target columns scanned.
  void NarrowTargetScan();
  Status Probe(const c::RecordBatch& target);
  // Runs the clauses of `match` on `rows` (a batch of that clause kind's scope).
  Status ApplyClauses(Match match, const c::RecordBatch& rows);
  void AddPositions(const c::RecordBatch& b, const std::vector<int64_t>& rows);
  // Copy-on-write: `updated` (rows of the table) take the places of `rows` of `b` (a batch of
  // the scan's scope: `_file`, `_pos` first), so their files may be rewritten in place.
  Status Replace(const c::RecordBatch& b, const std::vector<int64_t>& rows, c::RecordBatch updated);
  // Copy-on-write: keeps a batch of the target scan (one file's rows) for the rewrite.
  void Keep(const c::RecordBatch& target);
  // The kept rows of the files the statement changes, as the rewrite takes them.
  Result<std::map<std::string, std::vector<c::RecordBatch>>> KeptRowsOfChangedFiles(int location);

  const ParsedStatement& st_;
  const TableResolver& resolver_;
  iceberg::Warehouse& wh_;
  const QueryOptions& options_;

  LogicalPlan target_plan_;
  TargetColumns target_;
  std::string target_relation_, source_relation_;
  std::vector<RelationColumn> target_scope_, source_scope_;
  c::RecordBatch source_;  // every source row, normalised
  ScanMetrics stats_;

  // ON: the key pairs (target expression, source expression), the conjuncts pushed into the
  // target scan, and the rest, over a matched pair.
  std::vector<exec::ExprPtr> target_keys_, source_keys_;
  std::vector<ast::ExprPtr> target_where_;
  std::vector<exec::ExprPtr> residual_;
  std::vector<BoundClause> clauses_;
  bool check_cardinality_ = false;
  std::optional<exec::JoinHashTable> table_;

  std::vector<uint8_t> source_matched_;
  std::map<std::string, std::vector<int64_t>> positions_;
  std::vector<c::RecordBatch> new_rows_;
  std::map<std::string, iceberg::RowLevelChange::Replaced> replaced_;
  int64_t deleted_ = 0, updated_ = 0, inserted_ = 0;

  // Copy-on-write rewrites every file it changes: the target scan's batches are kept, by file
  // (`_pos` and the target's columns), so that those files need not be read twice -- up to half
  // the memory limit, past which none are kept and the rewrite reads the files again.
  bool keep_rows_ = false;
  // The target columns the scan reads (indexes into target_.names): all but with narrow_, when
  // updated rows hold those columns only (narrow_target_).
  std::vector<size_t> read_;
  bool narrow_ = false;
  TargetColumns narrow_target_;
  iceberg::ExprPtr files_filter_;  // the source's key ranges, when rows are kept
  int64_t kept_bytes_ = 0, keep_limit_ = 0;
  std::unordered_map<std::string, std::vector<c::RecordBatch>> kept_;
};

void MergeRun::Keep(const c::RecordBatch& target) {
  if (!keep_rows_ || target.num_rows == 0) return;
  const c::Column& files = *target.columns[0];
  const std::string_view path = files.BytesAt(0);
  bool one_file = files.dictionary != nullptr && files.dictionary->length == 1;
  for (int64_t r = 1; !one_file && r < target.num_rows; ++r) {
    if (files.BytesAt(r) != path) break;
    one_file = r + 1 == target.num_rows;
  }
  one_file = one_file || target.num_rows == 1;
  c::RecordBatch rows;
  rows.num_rows = target.num_rows;
  rows.columns.assign(target.columns.begin() + 2, target.columns.end());
  rows.columns.push_back(target.columns[1]);
  const int64_t bytes = exec::BatchBytes(rows);
  if (!one_file || kept_bytes_ + bytes > keep_limit_) {
    keep_rows_ = false;
    kept_.clear();
    return;
  }
  kept_bytes_ += bytes;
  kept_[std::string(path)].push_back(std::move(rows));
}

Result<std::map<std::string, std::vector<c::RecordBatch>>> MergeRun::KeptRowsOfChangedFiles(
    int location) {
  std::map<std::string, std::vector<c::RecordBatch>> out;
  if (!keep_rows_) return out;
  for (auto& [path, batches] : kept_) {
    if (!positions_.contains(path)) continue;
    std::vector<c::RecordBatch>& typed = out[path];
    for (c::RecordBatch& b : batches) {
      c::ColumnPtr pos = b.columns.back();
      b.columns.pop_back();
      FLOE_ASSIGN_OR_RETURN(
          c::RecordBatch t,
          internal::ToTableRows(st_, std::move(b), narrow_ ? narrow_target_ : target_,
                                [&](size_t) { return location; }));
      auto schema = std::make_shared<c::Schema>(*t.schema);
      schema->fields.push_back({"_pos", c::Int64(), false});
      t.schema = std::move(schema);
      t.columns.push_back(std::move(pos));
      typed.push_back(std::move(t));
    }
  }
  kept_.clear();
  return out;
}

Status MergeRun::ReadSource(ast::Merge& m) {
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindSelect(st_, m.source, resolver_));
  std::vector<c::RecordBatch> batches;
  QueryOptions o = options_;
  o.sink = [&](const c::RecordBatch& b) -> Status {
    if (b.num_rows > 0) batches.push_back(b);
    return {};
  };
  FLOE_ASSIGN_OR_RETURN(QueryResult r, RunPlan(plan, wh_, o));
  stats_.Add(r.stats);
  for (const c::Field& f : r.schema->fields) {
    source_scope_.push_back({source_relation_, f.name, f.type});
  }
  if (batches.empty()) {
    source_.schema = r.schema;
    for (const auto& f : r.schema->fields) source_.columns.push_back(c::NullColumn(f.type, 0));
    return {};
  }
  FLOE_ASSIGN_OR_RETURN(source_, c::Concatenate(batches));
  return {};
}

// The columns an expression reads.
void ColumnsOf(const exec::Expr& e, std::vector<int>* out) {
  if (e.kind == exec::Expr::Kind::kColumn) out->push_back(e.column);
  for (const exec::ExprPtr& a : e.args) ColumnsOf(*a, out);
}

// Where an expression's text starts (an operator's location is its operator's).
int StartOf(const ast::Expr& e) {
  int at = e.location;
  auto earlier = [&](const ast::ExprPtr& x) {
    if (!x) return;
    const int l = StartOf(*x);
    if (l >= 0 && (at < 0 || l < at)) at = l;
  };
  earlier(e.left);
  for (const ast::ExprPtr& a : e.args) earlier(a);
  return at;
}

Status MergeRun::SplitOn(ast::Merge& m, bool target_rows_matter) {
  const int on_location = m.on ? StartOf(*m.on) : 0;
  std::vector<ast::ExprPtr> conjuncts;
  TakeConjuncts(std::move(m.on), &conjuncts);
  const std::vector<RelationColumn> both = Concat(target_scope_, source_scope_);
  const int k = static_cast<int>(target_scope_.size());
  // Which side an expression bound over both reads: 1 the target only, 2 the source only, 3 both,
  // 0 neither (a constant).
  auto sides = [&](const exec::Expr& e) {
    std::vector<int> cols;
    ColumnsOf(e, &cols);
    int s = 0;
    for (int col : cols) s |= col < k ? 1 : 2;
    return s;
  };
  for (ast::ExprPtr& conj : conjuncts) {
    // Bound over both first: an unknown or ambiguous name is an error here.
    FLOE_ASSIGN_OR_RETURN(exec::ExprPtr bound, Bind(*conj, both));
    // t.x = s.y (either way round): a key of the hash join.
    if (conj->kind == ast::Expr::Kind::kOperator && conj->name == "=" && conj->left &&
        conj->right) {
      FLOE_ASSIGN_OR_RETURN(exec::ExprPtr l, Bind(*conj->left, both));
      FLOE_ASSIGN_OR_RETURN(exec::ExprPtr r, Bind(*conj->right, both));
      const int ls = sides(*l), rs = sides(*r);
      if ((ls == 1 && rs == 2) || (ls == 2 && rs == 1)) {
        const ast::Expr& t = ls == 1 ? *conj->left : *conj->right;
        const ast::Expr& s = ls == 1 ? *conj->right : *conj->left;
        FLOE_ASSIGN_OR_RETURN(exec::ExprPtr tk, Bind(t, target_scope_));
        FLOE_ASSIGN_OR_RETURN(exec::ExprPtr sk, Bind(s, source_scope_));
        if (sk->type != tk->type) {
          auto cast = exec::MakeCast(sk, tk->type);
          if (cast) sk = *cast;
        }
        if (sk->type == tk->type) {
          target_keys_.push_back(std::move(tk));
          source_keys_.push_back(std::move(sk));
          continue;
        }
      }
    }
    // A condition on the target alone filters the target scan, unless unmatched target rows
    // matter (WHEN NOT MATCHED BY SOURCE).
    if (!target_rows_matter && sides(*bound) <= 1) {
      target_where_.push_back(std::move(conj));
      continue;
    }
    residual_.push_back(std::move(bound));
  }
  if (target_keys_.empty()) {
    return Fail(on_location, ErrorKind::kUnsupported,
                "MERGE needs ON to equate a target column with a source value (t.id = s.id)");
  }
  return {};
}

Result<std::vector<exec::ExprPtr>> MergeRun::StarValues(const ast::MergeClause& clause,
                                                        const std::vector<RelationColumn>& scope) {
  std::vector<exec::ExprPtr> out;
  const bool update = clause.action == Action::kUpdate;
  for (const std::string& name : target_.names) {
    auto ref = internal::NameRef(name, clause.location);
    if (!source_relation_.empty()) ref->names = {source_relation_, name};
    auto e = Bind(*ref, scope);
    if (!e) {
      return Fail(clause.location, ErrorKind::kNotFound,
                  fmt::format("{} *: the source has no column '{}'",
                              update ? "UPDATE SET" : "INSERT", name));
    }
    out.push_back(std::move(*e));
  }
  return out;
}

Result<BoundClause> MergeRun::BindClause(ast::MergeClause& clause) {
  BoundClause b;
  b.match = clause.match;
  b.action = clause.action;
  b.location = clause.location;
  const std::vector<RelationColumn> scope = clause.match == Match::kMatched
                                                ? Concat(target_scope_, source_scope_)
                                            : clause.match == Match::kNotMatched ? source_scope_
                                                                                 : target_scope_;
  const bool inserts = clause.match == Match::kNotMatched;
  if (inserts != (clause.action == Action::kInsert || clause.action == Action::kNothing) &&
      clause.action != Action::kNothing) {
    return Fail(clause.location, ErrorKind::kInvalidInput,
                inserts ? "WHEN NOT MATCHED can only INSERT"
                        : "WHEN MATCHED and WHEN NOT MATCHED BY SOURCE can only UPDATE or DELETE");
  }
  if (clause.condition) {
    FLOE_ASSIGN_OR_RETURN(b.condition, Bind(*clause.condition, scope));
    if (b.condition->type.id != c::TypeId::kBool && b.condition->type.id != c::TypeId::kNull) {
      return Fail(clause.condition->location, ErrorKind::kInvalidInput,
                  "a WHEN clause's condition must be boolean");
    }
  }
  const std::string table = target_plan_.table.id.ToString();
  if (clause.action == Action::kUpdate) {
    if (clause.star) {
      if (clause.match != Match::kMatched) {
        return Fail(clause.location, ErrorKind::kInvalidInput,
                    "UPDATE SET * needs a source row: use it in WHEN MATCHED");
      }
      FLOE_ASSIGN_OR_RETURN(b.values, StarValues(clause, scope));
      b.sets.assign(target_.names.size(), true);
    } else {
      FLOE_ASSIGN_OR_RETURN(auto assigned,
                            internal::ResolveAssignments(st_, target_, clause.set, table));
      for (size_t i = 0; i < target_.names.size(); ++i) {
        auto it = assigned.find(target_.names[i]);
        b.sets.push_back(it != assigned.end());
        if (it == assigned.end()) {
          // The target's own value: column 2 + i of the target scan (after _file and _pos).
          b.values.push_back(exec::ColumnRef(static_cast<int>(2 + i), target_scope_[2 + i].type,
                                             target_.names[i]));
          continue;
        }
        ast::ExprPtr value = it->second->value ? std::move(it->second->value)
                                               : internal::NullConst(it->second->location);
        FLOE_ASSIGN_OR_RETURN(exec::ExprPtr e, Bind(*value, scope));
        b.values.push_back(std::move(e));
      }
    }
    if (target_.lineage) {  // an updated row keeps its id
      const int at = static_cast<int>(2 + target_.names.size());
      b.values.push_back(exec::ColumnRef(at, c::Int64(), "_row_id"));
    }
  } else if (clause.action == Action::kInsert) {
    if (clause.star) {
      FLOE_ASSIGN_OR_RETURN(b.values, StarValues(clause, scope));
    } else {
      std::vector<std::string> columns = clause.columns;
      std::vector<int> locations = clause.column_locations;
      if (columns.empty() && !clause.values.empty()) {
        columns = target_.names;
        locations.assign(columns.size(), clause.location);
      }
      if (columns.size() != clause.values.size()) {
        return Fail(clause.location, ErrorKind::kInvalidInput,
                    fmt::format("INSERT names {} columns but gives {} values", columns.size(),
                                clause.values.size()));
      }
      std::vector<int> value_of(target_.names.size(), -1);
      for (size_t k = 0; k < columns.size(); ++k) {
        auto it = std::find_if(target_.names.begin(), target_.names.end(),
                               [&](const std::string& n) { return Lower(n) == Lower(columns[k]); });
        if (it == target_.names.end()) {
          return Fail(locations[k], ErrorKind::kNotFound,
                      fmt::format("column '{}' not found in {}", columns[k], table));
        }
        int& slot = value_of[static_cast<size_t>(it - target_.names.begin())];
        if (slot >= 0) {
          return Fail(locations[k], ErrorKind::kInvalidInput,
                      fmt::format("column '{}' is inserted more than once", *it));
        }
        slot = static_cast<int>(k);
      }
      for (size_t i = 0; i < target_.names.size(); ++i) {
        if (value_of[i] < 0) {
          if (target_.schema->fields()[i].required) {
            return Fail(clause.location, ErrorKind::kInvalidInput,
                        fmt::format("INSERT gives no value for column '{}', which is required",
                                    target_.names[i]));
          }
          b.values.push_back(
              exec::Constant(exec::Value::Null(), exec::NormalizedType(target_.types[i])));
          continue;
        }
        FLOE_ASSIGN_OR_RETURN(exec::ExprPtr e,
                              Bind(*clause.values[static_cast<size_t>(value_of[i])], scope));
        b.values.push_back(std::move(e));
      }
    }
    if (target_.lineage) b.values.push_back(exec::Constant(exec::Value::Null(), c::Int64()));
  }
  for (size_t i = 0; i < b.values.size() && i < target_.names.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(b.values[i],
                          internal::CastForColumn(st_, b.values[i], target_, i, clause.location));
  }
  return b;
}

// With no clause for unmatched target rows, only target rows whose key lies within the source's
// keys can matter: each key that is a plain target column gets `col BETWEEN min AND max` of the
// source's values, which the scan prunes files, row groups and pages by.
void MergeRun::PushSourceKeyRanges(int location) {
  if (source_.num_rows == 0) return;
  for (size_t k = 0; k < target_keys_.size(); ++k) {
    const exec::Expr& t = *target_keys_[k];
    if (t.kind != exec::Expr::Kind::kColumn || t.column < 2 ||
        static_cast<size_t>(t.column) >= 2 + target_.names.size()) {
      continue;
    }
    auto keys = exec::Evaluate(*source_keys_[k], source_);
    if (!keys) continue;
    std::optional<exec::Value> lo, hi;
    bool exact = true;
    for (int64_t r = 0; r < (*keys)->length && exact; ++r) {
      auto v = exec::ValueAt(**keys, r);
      if (!v) {
        exact = false;
        break;
      }
      if (v->is_null()) continue;
      if (!lo || exec::CompareValues(*v, *lo) < 0) lo = *v;
      if (!hi || exec::CompareValues(*v, *hi) > 0) hi = *v;
    }
    if (!exact || !lo) continue;
    const std::string& name = target_.names[t.column - 2];
    if (keep_rows_) {
      // Files only: the rows of every file read are kept whole for the rewrite.
      const iceberg::NestedField* f = target_.schema->FindByName(name);
      auto l = f ? ToIcebergLiteral(*lo, (*keys)->type, *f->type) : std::nullopt;
      auto h = f ? ToIcebergLiteral(*hi, (*keys)->type, *f->type) : std::nullopt;
      if (!l || !h) continue;
      iceberg::ExprPtr range = iceberg::And(iceberg::Predicate(iceberg::Op::kGtEq, name, {*l}),
                                            iceberg::Predicate(iceberg::Op::kLtEq, name, {*h}));
      files_filter_ = files_filter_ ? iceberg::And(files_filter_, range) : range;
      continue;
    }
    const c::DataType& type = target_scope_[static_cast<size_t>(t.column)].type;
    ast::ExprPtr l = ConstantFor(*lo, type, location), h = ConstantFor(*hi, type, location);
    if (!l || !h) continue;
    target_where_.push_back(Between(name, std::move(l), std::move(h), location));
  }
}

void MergeRun::NarrowTargetScan() {
  if (!keep_rows_) return;
  const size_t n = target_.names.size();
  const int k = static_cast<int>(target_scope_.size());
  std::vector<bool> read(n, false), set(n, false);
  auto reads = [&](const exec::ExprPtr& e, bool target_only) {
    if (!e) return;
    std::vector<int> cols;
    ColumnsOf(*e, &cols);
    for (int col : cols) {
      if (col >= 2 && (target_only || col < k)) read[static_cast<size_t>(col - 2)] = true;
    }
  };
  for (const exec::ExprPtr& e : target_keys_) reads(e, true);
  for (const exec::ExprPtr& e : residual_) reads(e, false);
  for (const BoundClause& b : clauses_) {
    const bool update = b.match == Match::kMatched && b.action == Action::kUpdate;
    const bool other = (b.match == Match::kMatched && b.action == Action::kNothing) ||
                       (b.match == Match::kNotMatched &&
                        (b.action == Action::kInsert || b.action == Action::kNothing));
    if (!update && !other) return;  // deletes, or unmatched target rows
    if (b.match != Match::kMatched) continue;
    reads(b.condition, false);
    if (!update) continue;
    for (size_t i = 0; i < n; ++i) {
      if (!b.sets[i]) continue;
      set[i] = read[i] = true;
      reads(b.values[i], false);
    }
  }
  if (!internal::SetsColumnsInPlace(target_plan_.table.metadata, RowLevelOperation::kMerge, target_,
                                    set)) {
    return;
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; ++i) {
    if (read[i]) kept.push_back(i);
  }
  if (kept.size() == n) return;

  // Target column i is scanned at 2 + its place in `kept`; the source's columns follow.
  const int k2 = static_cast<int>(2 + kept.size());
  std::vector<int> to(target_scope_.size() + source_scope_.size(), -1);
  to[0] = 0;
  to[1] = 1;
  for (size_t j = 0; j < kept.size(); ++j) to[2 + kept[j]] = static_cast<int>(2 + j);
  for (size_t j = 0; j < source_scope_.size(); ++j) {
    to[static_cast<size_t>(k) + j] = k2 + static_cast<int>(j);
  }
  for (exec::ExprPtr& e : target_keys_) e = Renumbered(e, to);
  for (exec::ExprPtr& e : residual_) e = Renumbered(e, to);
  for (BoundClause& b : clauses_) {
    if (b.match != Match::kMatched) continue;
    b.condition = Renumbered(b.condition, to);
    if (b.action != Action::kUpdate) continue;
    std::vector<exec::ExprPtr> values;
    values.reserve(kept.size());
    for (size_t i : kept) values.push_back(Renumbered(b.values[i], to));
    b.values = std::move(values);
  }
  narrow_target_ = target_.Only(kept);
  read_ = std::move(kept);
  narrow_ = true;
}

Status MergeRun::Replace(const c::RecordBatch& b, const std::vector<int64_t>& rows,
                         c::RecordBatch updated) {
  return internal::AddReplaced(*b.columns[0], *b.columns[1], rows, std::move(updated), &replaced_);
}

void MergeRun::AddPositions(const c::RecordBatch& b, const std::vector<int64_t>& rows) {
  const c::Column& files = *b.columns[0];
  const c::Column& positions = *b.columns[1];
  for (int64_t r : rows) {
    positions_[std::string(files.BytesAt(r))].push_back(positions.Value<int64_t>(r));
  }
}

Status MergeRun::ApplyClauses(Match match, const c::RecordBatch& rows) {
  std::vector<uint8_t> decided(static_cast<size_t>(rows.num_rows), 0);
  for (const BoundClause& clause : clauses_) {
    if (clause.match != match) continue;
    std::vector<uint8_t> holds(decided.size(), 1);
    if (clause.condition) {
      FLOE_ASSIGN_OR_RETURN(holds, TrueRows(*clause.condition, rows));
    }
    std::vector<int64_t> take;
    for (size_t r = 0; r < decided.size(); ++r) {
      if (decided[r] || !holds[r]) continue;
      decided[r] = 1;
      take.push_back(static_cast<int64_t>(r));
    }
    if (take.empty()) continue;
    const int64_t n = static_cast<int64_t>(take.size());
    if (clause.action == Action::kDelete || clause.action == Action::kUpdate) {
      AddPositions(rows, take);  // target rows come first in their scope (_file, _pos)
    }
    if (clause.action == Action::kDelete) deleted_ += n;
    if (clause.action == Action::kUpdate || clause.action == Action::kInsert) {
      // A narrowed scan's updated rows hold the columns it read.
      const TargetColumns& t =
          narrow_ && clause.action == Action::kUpdate ? narrow_target_ : target_;
      std::vector<std::string> names = t.names;
      if (t.lineage) names.emplace_back("_row_id");
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch subset, c::Take(rows, take));
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch values, exec::Project(subset, clause.values, names));
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch typed,
                            internal::ToTableRows(st_, std::move(values), t,
                                                  [&](size_t) { return clause.location; }));
      if (clause.action == Action::kUpdate && (keep_rows_ || narrow_)) {
        FLOE_RETURN_IF_ERROR(Replace(rows, take, std::move(typed)));
      } else {
        new_rows_.push_back(std::move(typed));
      }
      (clause.action == Action::kUpdate ? updated_ : inserted_) += n;
    }
  }
  return {};
}

Status MergeRun::Probe(const c::RecordBatch& target) {
  Keep(target);
  std::vector<c::ColumnPtr> keys;
  for (const exec::ExprPtr& k : target_keys_) {
    FLOE_ASSIGN_OR_RETURN(c::ColumnPtr col, exec::Evaluate(*k, target));
    keys.push_back(std::move(col));
  }
  std::vector<int64_t> probe, build;
  FLOE_RETURN_IF_ERROR(table_->Probe(keys, target.num_rows, &probe, &build));
  std::optional<c::RecordBatch> pairs;
  if (!probe.empty()) {
    FLOE_ASSIGN_OR_RETURN(pairs, Pairs(target, probe, source_, build));
    if (!residual_.empty()) {
      std::vector<uint8_t> keep(probe.size(), 1);
      for (const exec::ExprPtr& r : residual_) {
        FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> holds, TrueRows(*r, *pairs));
        for (size_t i = 0; i < keep.size(); ++i) keep[i] &= holds[i];
      }
      std::vector<int64_t> kept;
      for (size_t i = 0; i < keep.size(); ++i) {
        if (keep[i]) kept.push_back(static_cast<int64_t>(i));
      }
      if (kept.size() != probe.size()) {
        std::vector<int64_t> p, b;
        for (int64_t i : kept) {
          p.push_back(probe[static_cast<size_t>(i)]);
          b.push_back(build[static_cast<size_t>(i)]);
        }
        probe = std::move(p);
        build = std::move(b);
        FLOE_ASSIGN_OR_RETURN(*pairs, c::Take(*pairs, kept));
      }
    }
  }
  // A target row changed by two source rows would be changed twice: an error, as in Spark.
  if (check_cardinality_) {
    for (size_t i = 1; i < probe.size(); ++i) {
      if (probe[i] != probe[i - 1]) continue;
      const int64_t r = probe[i];
      return MakeError(
          ErrorKind::kInvalidInput,
          fmt::format("MERGE: the ON condition matched one row of the target (position {} of "
                      "'{}') with several rows of the source; a target row may be changed by one "
                      "source row only (Spark's MERGE_CARDINALITY_VIOLATION); nothing was changed",
                      target.columns[1]->Value<int64_t>(r), target.columns[0]->BytesAt(r)));
    }
  }
  for (int64_t b : build) source_matched_[static_cast<size_t>(b)] = 1;
  if (!check_cardinality_ && pairs) {
    // Matched rows can only be deleted: a target row matched twice is deleted once.
    std::vector<int64_t> first;
    for (size_t i = 0; i < probe.size(); ++i) {
      if (i == 0 || probe[i] != probe[i - 1]) first.push_back(static_cast<int64_t>(i));
    }
    if (first.size() != probe.size()) {
      FLOE_ASSIGN_OR_RETURN(*pairs, c::Take(*pairs, first));
    }
  }
  if (pairs && pairs->num_rows > 0) FLOE_RETURN_IF_ERROR(ApplyClauses(Match::kMatched, *pairs));
  const bool by_source = std::any_of(clauses_.begin(), clauses_.end(), [](const BoundClause& c) {
    return c.match == Match::kNotMatchedBySource;
  });
  if (by_source) {
    std::vector<int64_t> unmatched;
    size_t i = 0;
    for (int64_t r = 0; r < target.num_rows; ++r) {
      bool matched = false;
      while (i < probe.size() && probe[i] <= r) matched = matched || probe[i++] == r;
      if (!matched) unmatched.push_back(r);
    }
    if (!unmatched.empty()) {
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch rows, c::Take(target, unmatched));
      FLOE_RETURN_IF_ERROR(ApplyClauses(Match::kNotMatchedBySource, rows));
    }
  }
  return {};
}

Result<QueryResult> MergeRun::Run() {
  FLOE_ASSIGN_OR_RETURN(ast::Merge m, TransformMerge(st_));
  const bool updates = std::any_of(m.clauses.begin(), m.clauses.end(), [](const auto& c) {
    return c.action == Action::kUpdate || c.action == Action::kInsert;
  });
  const bool target_rows_matter =
      std::any_of(m.clauses.begin(), m.clauses.end(),
                  [](const auto& c) { return c.match == Match::kNotMatchedBySource; });
  // The target's columns, then the source's rows.
  FLOE_ASSIGN_OR_RETURN(LogicalPlan probe,
                        internal::BindRowScan(st_, m.target, {}, nullptr, resolver_, "MERGE"));
  FLOE_ASSIGN_OR_RETURN(
      target_, TargetColumns::Of(st_, probe.table.metadata, updates, m.target.location, "MERGE"));
  target_plan_ = std::move(probe);
  target_relation_ = !m.target.alias.empty() ? m.target.alias : m.target.names.back();
  source_relation_ = m.source_alias;
  target_scope_.push_back({target_relation_, "_file", c::String()});
  target_scope_.push_back({target_relation_, "_pos", c::Int64()});
  for (size_t i = 0; i < target_.names.size(); ++i) {
    target_scope_.push_back(
        {target_relation_, target_.names[i], exec::NormalizedType(target_.types[i])});
  }
  if (target_.lineage) target_scope_.push_back({target_relation_, "_row_id", c::Int64()});
  if (!source_relation_.empty() && Lower(source_relation_) == Lower(target_relation_)) {
    return Fail(m.source_location, ErrorKind::kInvalidInput,
                fmt::format("the MERGE's target and source are both named '{}': give one an "
                            "alias",
                            source_relation_));
  }
  FLOE_RETURN_IF_ERROR(ReadSource(m));

  FLOE_RETURN_IF_ERROR(SplitOn(m, target_rows_matter));
  for (ast::MergeClause& clause : m.clauses) {
    FLOE_ASSIGN_OR_RETURN(BoundClause b, BindClause(clause));
    clauses_.push_back(std::move(b));
  }
  // Spark checks that no target row matches two source rows unless the only thing matched rows
  // can do is to be deleted.
  int matched = 0;
  bool only_delete = true;
  for (const BoundClause& b : clauses_) {
    if (b.match != Match::kMatched) continue;
    ++matched;
    only_delete = only_delete && b.action == Action::kDelete && !b.condition;
  }
  check_cardinality_ = matched > 0 && !(matched == 1 && only_delete);

  // The source indexed by its keys.
  std::vector<c::ColumnPtr> keys;
  for (const exec::ExprPtr& k : source_keys_) {
    FLOE_ASSIGN_OR_RETURN(c::ColumnPtr col, exec::Evaluate(*k, source_));
    keys.push_back(std::move(col));
  }
  FLOE_ASSIGN_OR_RETURN(table_, exec::JoinHashTable::Build(std::move(keys), source_.num_rows));
  source_matched_.assign(static_cast<size_t>(source_.num_rows), 0);

  // The target scan: every column, `_file` and `_pos` (and `_row_id`), pruned by what ON allows.
  // Copy-on-write rewrites the files it changes from the rows this scan reads (Keep).
  auto policy =
      iceberg::PolicyFor(target_plan_.table.metadata, target_relation_, RowLevelOperation::kMerge);
  keep_rows_ = policy && policy->mode == iceberg::RowLevelMode::kCopyOnWrite && !target_.lineage;
  keep_limit_ =
      (options_.memory_limit > 0 ? options_.memory_limit : exec::PhysicalMemoryShare(80)) / 2;
  if (!target_rows_matter) PushSourceKeyRanges(m.target.location);
  for (size_t i = 0; i < target_.names.size(); ++i) read_.push_back(i);
  NarrowTargetScan();
  std::vector<ast::SelectItem> items;
  items.reserve(read_.size() + 1);
  for (size_t i : read_) {
    const std::string& name = target_.names[i];
    items.push_back(internal::Item(internal::NameRef(name, m.target.location), name));
  }
  if (target_.lineage) {
    items.push_back(internal::Item(internal::NameRef("_row_id", m.target.location), "_row_id"));
  }
  ast::ExprPtr where;
  for (ast::ExprPtr& w : target_where_) {
    if (!where) {
      where = std::move(w);
      continue;
    }
    auto both = std::make_unique<ast::Expr>();
    both->kind = ast::Expr::Kind::kAnd;
    both->location = where->location;
    both->args.push_back(std::move(where));
    both->args.push_back(std::move(w));
    where = std::move(both);
  }
  ast::TableRef target_ref = m.target;
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan,
                        internal::BindRowScan(st_, target_ref, std::move(items), std::move(where),
                                              resolver_, "MERGE"));
  plan.files_filter = files_filter_;
  const size_t width = 2 + read_.size() + (target_.lineage ? 1 : 0);
  if (plan.outputs.size() != width) {
    return Internal("MERGE: the target scan has {} columns, not {}", plan.outputs.size(), width);
  }
  QueryOptions o = options_;
  o.sink = [&](const c::RecordBatch& b) -> Status { return Probe(b); };
  FLOE_ASSIGN_OR_RETURN(QueryResult scanned, RunPlan(plan, wh_, o));
  stats_.Add(scanned.stats);

  // Source rows no target row matched.
  std::vector<int64_t> unmatched;
  for (size_t i = 0; i < source_matched_.size(); ++i) {
    if (!source_matched_[i]) unmatched.push_back(static_cast<int64_t>(i));
  }
  if (!unmatched.empty()) {
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch rows, c::Take(source_, unmatched));
    FLOE_RETURN_IF_ERROR(ApplyClauses(Match::kNotMatched, rows));
  }

  iceberg::RowLevelChange change;
  change.operation = RowLevelOperation::kMerge;
  change.snapshot_id = plan.table.metadata.current_snapshot_id;
  change.filter = plan.pushed_filter;
  if (files_filter_) {
    change.filter = change.filter ? iceberg::And(change.filter, files_filter_) : files_filter_;
  }
  FLOE_ASSIGN_OR_RETURN(change.read_rows, KeptRowsOfChangedFiles(m.target.location));
  change.deleted = std::move(positions_);
  change.new_rows = std::move(new_rows_);
  change.replaced = std::move(replaced_);
  if (narrow_) {
    for (size_t i : read_) change.partial_columns.push_back(target_.schema->fields()[i].id);
  }
  FLOE_ASSIGN_OR_RETURN(
      iceberg::RowLevelResult r,
      iceberg::CommitRowLevelChange(*wh_.catalog, *wh_.io, plan.table, change, &stats_));
  return internal::RowLevelSummary(RowLevelOperation::kMerge, r, deleted_, updated_, inserted_,
                                   stats_);
}

}  // namespace

Result<QueryResult> RunMerge(const ParsedStatement& statement, const TableResolver& resolver,
                             iceberg::Warehouse& wh, const QueryOptions& options) {
  MergeRun run(statement, resolver, wh, options);
  return run.Run();
}

}  // namespace floe::sql
