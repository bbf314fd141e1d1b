// Binding a FROM clause of joins, subqueries and CTEs: the relations and their columns, the join
// tree, and where each conjunct of WHERE and ON is decided -- inside a relation's scan (so its
// files, row groups and pages are pruned), at a join, or after every join. Every column a statement
// reads gets a slot; the bound expressions are over slots, whichever relation fills them.
#include <algorithm>

#include "floe/iceberg/arrow_schema.h"
#include "floe/sql/binder_internal.h"

namespace floe::sql::internal {

namespace {

using Kind = ast::Expr::Kind;
using JoinType = ast::TableRef::JoinType;

ast::ExprPtr Clone(const ast::ExprPtr& e) { return e ? CloneExpr(*e) : nullptr; }

// Whether two trees say the same (locations aside).
bool Same(const ast::Expr* a, const ast::Expr* b) {
  if (a == nullptr || b == nullptr) return a == b;
  if (a->kind != b->kind || a->names != b->names || a->star != b->star || a->name != b->name ||
      a->constant.kind != b->constant.kind || a->constant.integer != b->constant.integer ||
      a->constant.text != b->constant.text || a->constant.boolean != b->constant.boolean ||
      a->type.name != b->type.name || a->type.modifiers != b->type.modifiers ||
      a->try_cast != b->try_cast || a->distinct != b->distinct || a->window != b->window ||
      a->negated != b->negated || a->subquery != b->subquery || a->select != b->select ||
      a->within_group != b->within_group || a->order_descending != b->order_descending ||
      a->args.size() != b->args.size() || a->order.size() != b->order.size() ||
      a->arms.size() != b->arms.size()) {
    return false;
  }
  for (size_t i = 0; i < a->args.size(); ++i) {
    if (!Same(a->args[i].get(), b->args[i].get())) return false;
  }
  for (size_t i = 0; i < a->order.size(); ++i) {
    if (!Same(a->order[i].get(), b->order[i].get())) return false;
  }
  for (size_t i = 0; i < a->arms.size(); ++i) {
    if (!Same(a->arms[i].when.get(), b->arms[i].when.get()) ||
        !Same(a->arms[i].then.get(), b->arms[i].then.get())) {
      return false;
    }
  }
  return Same(a->filter.get(), b->filter.get()) && Same(a->left.get(), b->left.get()) &&
         Same(a->right.get(), b->right.get()) && Same(a->subject.get(), b->subject.get()) &&
         Same(a->otherwise.get(), b->otherwise.get());
}

bool Includes(const std::set<int>& outer, const std::set<int>& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

}  // namespace

void Conjuncts(const ast::Expr* e, std::vector<const ast::Expr*>* out) {
  if (e->kind == Kind::kAnd) {
    for (const auto& a : e->args) Conjuncts(a.get(), out);
    return;
  }
  out->push_back(e);
}

ast::Select CloneSelect(const ast::Select& s) {
  ast::Select out;
  out.with = s.with;
  out.set_op = s.set_op;
  out.set_all = s.set_all;
  out.set_left = s.set_left;
  out.set_right = s.set_right;
  out.set_right_location = s.set_right_location;
  for (const auto& row : s.values) {
    std::vector<ast::ExprPtr> copy;
    copy.reserve(row.size());
    for (const auto& v : row) copy.push_back(Clone(v));
    out.values.push_back(std::move(copy));
  }
  out.values_location = s.values_location;
  out.distinct = s.distinct;
  out.from = s.from;
  for (const auto& item : s.items) {
    ast::SelectItem i;
    i.expr = Clone(item.expr);
    i.star = item.star;
    i.name = item.name;
    i.location = item.location;
    out.items.push_back(std::move(i));
  }
  out.where = Clone(s.where);
  for (const auto& g : s.group_by) out.group_by.push_back(Clone(g));
  out.grouping_sets = s.grouping_sets;
  out.having = Clone(s.having);
  out.qualify = Clone(s.qualify);
  for (const auto& o : s.order_by) {
    ast::SortItem i;
    i.expr = Clone(o.expr);
    i.descending = o.descending;
    i.nulls_first = o.nulls_first;
    i.using_op = o.using_op;
    out.order_by.push_back(std::move(i));
  }
  out.with_ties = s.with_ties;
  out.limit = Clone(s.limit);
  out.offset = Clone(s.offset);
  return out;
}

ast::ExprPtr CloneExpr(const ast::Expr& e) {
  auto out = std::make_unique<ast::Expr>();
  out->kind = e.kind;
  out->location = e.location;
  out->has_aggregate = e.has_aggregate;
  out->names = e.names;
  out->star = e.star;
  out->constant = e.constant;
  out->type = e.type;
  out->try_cast = e.try_cast;
  out->name = e.name;
  for (const auto& a : e.args) out->args.push_back(Clone(a));
  out->distinct = e.distinct;
  out->window = e.window;
  out->over = e.over;
  out->filter = Clone(e.filter);
  for (const auto& o : e.order) out->order.push_back(Clone(o));
  out->order_descending = e.order_descending;
  out->within_group = e.within_group;
  out->negated = e.negated;
  out->subquery = e.subquery;
  out->select = e.select;
  out->left = Clone(e.left);
  out->right = Clone(e.right);
  out->subject = Clone(e.subject);
  out->otherwise = Clone(e.otherwise);
  for (const auto& arm : e.arms) out->arms.push_back({Clone(arm.when), Clone(arm.then)});
  return out;
}

bool Binder::NeedsRelations(const ast::TableRef& from) const {
  using RefKind = ast::TableRef::Kind;
  if (from.kind == RefKind::kJoin || from.kind == RefKind::kSubquery) return true;
  return from.kind == RefKind::kTable && from.names.size() == 1 && ctes_ &&
         ctes_->Find(Lower(from.names[0])) != nullptr;
}

ParsedStatement Binder::StatementFor(int begin, int end) const {
  ParsedStatement out;
  out.text = st_.text;
  out.kind = "SelectStmt";
  out.try_casts = st_.try_casts;
  out.group_by_all = st_.group_by_all;
  for (const auto& tt : st_.time_travel) {
    if (tt.offset >= begin && tt.offset < end) out.time_travel.push_back(tt);
  }
  return out;
}

Status Binder::BindWith(const ast::Select& s) {
  if (s.with.empty()) return {};
  auto scope = std::make_shared<CteScope>();
  scope->parent = ctes_;
  // The last query ends where the main SELECT's list begins.
  int main_begin = static_cast<int>(st_.text.size());
  for (const auto& item : s.items) {
    if (item.location >= 0) main_begin = std::min(main_begin, item.location);
  }
  for (size_t i = 0; i < s.with.size(); ++i) {
    const ast::CommonTableExpr& c = s.with[i];
    const std::string key = Lower(c.name);
    if (scope->ctes.count(key)) {
      return Fail(c.location, ErrorKind::kInvalidInput,
                  fmt::format("WITH query name '{}' is given more than once", c.name));
    }
    const int end = i + 1 < s.with.size() ? s.with[i + 1].location : main_begin;
    const ParsedStatement sub = StatementFor(c.location, end);
    Binder b(sub, resolver_, scope);
    FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, b.Bind(*c.select));
    CteScope::Cte cte;
    cte.columns = plan.names;
    if (c.columns.size() > cte.columns.size()) {
      return Fail(c.location, ErrorKind::kInvalidInput,
                  fmt::format("WITH query '{}' has {} columns but {} names", c.name,
                              cte.columns.size(), c.columns.size()));
    }
    for (size_t k = 0; k < c.columns.size(); ++k) cte.columns[k] = c.columns[k];
    cte.plan = std::make_shared<const LogicalPlan>(std::move(plan));
    scope->ctes[key] = std::move(cte);
  }
  ctes_ = scope;
  return {};
}

Result<int> Binder::AddRelationNode(const ast::TableRef& ref) {
  if (ref.kind != ast::TableRef::Kind::kJoin) {
    Node n;
    n.relation = static_cast<int>(relations_.size());
    n.relations = {n.relation};
    n.ref = &ref;
    nodes_.push_back(std::move(n));
    Relation r;
    r.node = static_cast<int>(nodes_.size()) - 1;
    r.text_begin = ref.location;
    relations_.push_back(std::move(r));
    return static_cast<int>(nodes_.size()) - 1;
  }
  FLOE_ASSIGN_OR_RETURN(int left, AddRelationNode(*ref.left));
  FLOE_ASSIGN_OR_RETURN(int right, AddRelationNode(*ref.right));
  Node n;
  n.ref = &ref;
  n.text_left = left;
  n.text_right = right;
  switch (ref.join_type) {
    case JoinType::kInner:
    case JoinType::kCross:
      n.kind = JoinNode::Kind::kInner;
      break;
    case JoinType::kLeft:
      n.kind = JoinNode::Kind::kLeft;
      break;
    case JoinType::kRight:
      n.kind = JoinNode::Kind::kLeft;
      std::swap(left, right);
      break;
    case JoinType::kFull:
      n.kind = JoinNode::Kind::kFull;
      break;
  }
  n.left = left;
  n.right = right;
  n.relations = nodes_[left].relations;
  n.relations.insert(nodes_[right].relations.begin(), nodes_[right].relations.end());
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

Status Binder::AddRelation(int index) {
  Relation& r = relations_[index];
  const ast::TableRef& ref = *nodes_[r.node].ref;
  using RefKind = ast::TableRef::Kind;
  const ParsedStatement sub = StatementFor(r.text_begin, r.text_end);
  std::vector<std::string> names;
  std::vector<columnar::DataType> types;
  size_t visible = SIZE_MAX;
  const CteScope::Cte* cte = nullptr;
  if (ref.kind == RefKind::kTable && ref.names.size() == 1 && ctes_) {
    cte = ctes_->Find(Lower(ref.names[0]));
  }
  const bool metadata = ref.kind == RefKind::kTable && resolver_.IsVirtual(ref.names);
  if (cte != nullptr) {
    r.name = ref.alias.empty() ? ref.names[0] : ref.alias;
    r.plan = cte->plan;
    r.shared = true;
    names = cte->columns;
    for (const auto& o : cte->plan->outputs) types.push_back(o->type);
    for (const auto& tt : sub.time_travel) {
      return Unsupported(tt.offset, "time travel on a WITH query");
    }
  } else if (ref.kind == RefKind::kSubquery) {
    r.name = ref.alias;
    Binder b(sub, resolver_, ctes_);
    FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, b.Bind(*ref.subquery));
    names = plan.names;
    for (const auto& o : plan.outputs) types.push_back(o->type);
    r.plan = std::make_shared<const LogicalPlan>(std::move(plan));
  } else if (ref.kind == RefKind::kFunction || metadata) {
    r.name = !ref.alias.empty()               ? ref.alias
             : ref.kind == RefKind::kFunction ? ref.function
                                              : ref.names.back();
    ast::Select all;
    all.from = ref;
    ast::SelectItem star;
    star.star = true;
    star.location = ref.location;
    all.items.push_back(std::move(star));
    Binder b(sub, resolver_, ctes_);
    FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, b.Bind(all));
    names = plan.names;
    for (const auto& o : plan.outputs) types.push_back(o->type);
    r.plan = std::make_shared<const LogicalPlan>(std::move(plan));
  } else {
    // A table: its columns as BindFrom finds them (time travel chooses the schema); the scan
    // itself is bound last, when the statement's reads and pushed conjuncts are known.
    r.name = ref.alias.empty() ? ref.names.back() : ref.alias;
    r.table = &ref;
    TableResolver keep = resolver_;
    keep.load = [&](const catalog::TableIdentifier& id) -> Result<iceberg::Table> {
      FLOE_ASSIGN_OR_RETURN(r.loaded, resolver_.load(id));
      return r.loaded;
    };
    Binder b(sub, keep, ctes_);
    FLOE_RETURN_IF_ERROR(b.BindFrom(ref));
    names = b.column_names_;
    types = b.column_types_;
    visible = b.visible_columns_;
  }
  r.source_names = names;
  if (ref.column_aliases.size() > names.size()) {
    return Fail(ref.location, ErrorKind::kInvalidInput,
                fmt::format("'{}' has {} columns but {} names", r.name, names.size(),
                            ref.column_aliases.size()));
  }
  for (size_t k = 0; k < ref.column_aliases.size(); ++k) names[k] = ref.column_aliases[k];
  for (const Relation& other : relations_) {
    if (&other != &r && !r.name.empty() && other.columns > 0 &&
        Lower(other.name) == Lower(r.name)) {
      return Fail(ref.location, ErrorKind::kInvalidInput,
                  fmt::format("the name '{}' is given to two relations in FROM: give one an alias",
                              r.name));
    }
  }
  r.first_column = column_names_.size();
  r.columns = names.size();
  for (size_t k = 0; k < names.size(); ++k) {
    column_names_.push_back(names[k]);
    column_types_.push_back(types[k]);
    column_relations_.push_back(r.name);
    scan_index_.push_back(-1);
    column_relation_.push_back(index);
    column_visible_.push_back(k < visible);
    column_merged_away_.push_back(false);
  }
  return {};
}

std::vector<Binder::StarItem> Binder::StarColumns(int node) const {
  const Node& n = nodes_[node];
  std::vector<StarItem> out;
  if (n.kind == JoinNode::Kind::kRelation) {
    const Relation& r = relations_[n.relation];
    for (size_t c = r.first_column; c < r.first_column + r.columns; ++c) {
      if (column_visible_[c]) out.push_back({static_cast<int>(c), nullptr});
    }
    return out;
  }
  const std::vector<StarItem> left = StarColumns(n.text_left), right = StarColumns(n.text_right);
  // As DuckDB: the left side's columns, a USING column where the left has it (the right one's
  // value for a RIGHT join, both COALESCEd for a FULL one), then the right side's other columns.
  auto named = [&](const StarItem& it, const std::string& u) {
    return it.column >= 0 && Lower(column_names_[it.column]) == Lower(u);
  };
  for (const StarItem& it : left) {
    size_t u = 0;
    while (u < n.using_columns.size() && !named(it, n.using_columns[u])) ++u;
    const bool merged = u < n.using_columns.size();
    if (merged && !n.using_merged.empty()) {
      out.push_back({it.column, n.using_merged[u]});
    } else if (merged && n.using_from_right) {
      for (const StarItem& r : right) {
        if (named(r, n.using_columns[u])) out.push_back(r);
      }
    } else {
      out.push_back(it);
    }
  }
  for (const StarItem& it : right) {
    bool merged = false;
    for (const std::string& u : n.using_columns) merged = merged || named(it, u);
    if (!merged) out.push_back(it);
  }
  return out;
}

int Binder::RelationOfColumn(const std::vector<std::string>& names) const {
  if (names.empty()) return -1;
  const std::string& column = names[0];
  std::vector<int> named;
  for (size_t i = 0; i < relations_.size(); ++i) {
    if (!relations_[i].name.empty() && Lower(relations_[i].name) == Lower(names[0])) {
      named.push_back(static_cast<int>(i));
    }
  }
  if (names.size() >= 2 && !named.empty()) {
    if (named.size() != 1) return -1;
    const Relation& r = relations_[named[0]];
    for (size_t c = r.first_column; c < r.first_column + r.columns; ++c) {
      if (Lower(column_names_[c]) == Lower(names[1])) return named[0];
    }
    return -1;
  }
  // A bare name (or a struct column's field): the one relation with that column.
  std::vector<size_t> exact, loose;
  for (size_t c = 0; c < column_names_.size(); ++c) {
    if (column_merged_away_[c]) continue;
    if (column_names_[c] == column) exact.push_back(c);
    if (Lower(column_names_[c]) == Lower(column)) loose.push_back(c);
  }
  const std::vector<size_t>& hits = exact.empty() ? loose : exact;
  if (hits.size() != 1) return -1;
  return column_relation_[hits[0]];
}

bool Binder::RelationsOf(const ast::Expr& e, std::set<int>* out) const {
  if (e.kind == Kind::kUnsupported || e.kind == Kind::kSubquery ||
      (e.kind == Kind::kIn && e.subquery) || e.window) {
    return false;
  }
  if (e.kind == Kind::kColumnRef) {
    if (e.star) return false;
    const int r = RelationOfColumn(e.names);
    if (r < 0) return false;
    out->insert(r);
    return true;
  }
  auto all = [&](const ast::ExprPtr& x) { return !x || RelationsOf(*x, out); };
  for (const auto& a : e.args) {
    if (!all(a)) return false;
  }
  for (const auto& o : e.order) {
    if (!all(o)) return false;
  }
  for (const auto& arm : e.arms) {
    if (!all(arm.when) || !all(arm.then)) return false;
  }
  return all(e.filter) && all(e.left) && all(e.right) && all(e.subject) && all(e.otherwise);
}

void Binder::Place(const ast::Expr* conjunct, const std::set<int>& relations, int node, bool on) {
  Node& n = nodes_[node];
  auto within = [&](int child) {
    return !relations.empty() && Includes(nodes_[child].relations, relations);
  };
  if (n.kind == JoinNode::Kind::kRelation) {
    Relation& r = relations_[n.relation];
    // A table's scan decides it (and prunes with it); other relations filter their rows.
    if (r.table != nullptr) {
      r.pushed.push_back(conjunct);
    } else {
      n.filter.push_back(conjunct);
    }
    return;
  }
  if (on && n.kind != JoinNode::Kind::kInner) {
    // An outer join's ON decides which rows match, not which rows are kept: only a conjunct of
    // the side that supplies NULLs filters that side first.
    if (n.kind == JoinNode::Kind::kLeft && within(n.right)) {
      Place(conjunct, relations, n.right, false);
    } else {
      n.condition.push_back(conjunct);
    }
    return;
  }
  // A filter of this node's rows (an inner join's ON is one).
  if (n.kind != JoinNode::Kind::kFull && within(n.left)) {
    Place(conjunct, relations, n.left, false);
  } else if (n.kind == JoinNode::Kind::kInner && within(n.right)) {
    Place(conjunct, relations, n.right, false);
  } else if (n.kind == JoinNode::Kind::kInner) {
    n.condition.push_back(conjunct);
  } else {
    n.filter.push_back(conjunct);
  }
}

Status Binder::JoinConditions(int node) {
  Node& n = nodes_[node];
  if (n.kind == JoinNode::Kind::kRelation) return {};
  FLOE_RETURN_IF_ERROR(JoinConditions(n.text_left));
  FLOE_RETURN_IF_ERROR(JoinConditions(n.text_right));
  const ast::TableRef& ref = *n.ref;
  const int loc = ref.location;
  std::vector<std::string> using_columns = ref.using_columns;
  const std::vector<StarItem> left = StarColumns(n.text_left), right = StarColumns(n.text_right);
  if (ref.natural) {
    for (const StarItem& l : left) {
      for (const StarItem& r : right) {
        if (l.column >= 0 && r.column >= 0 &&
            Lower(column_names_[l.column]) == Lower(column_names_[r.column])) {
          using_columns.push_back(column_names_[l.column]);
        }
      }
    }
  }
  auto one = [&](const std::vector<StarItem>& cols, const std::string& u,
                 const char* side) -> Result<int> {
    int found = -1;
    for (const StarItem& it : cols) {
      const int c = it.column;
      if (c < 0 || it.merged != nullptr) continue;
      if (Lower(column_names_[c]) != Lower(u)) continue;
      if (found >= 0) {
        return Fail(loc, ErrorKind::kInvalidInput,
                    fmt::format("column '{}' of USING is ambiguous on the {} side", u, side));
      }
      found = c;
    }
    if (found < 0) {
      return Fail(loc, ErrorKind::kNotFound,
                  fmt::format("column '{}' of USING is not on the {} side of the join", u, side));
    }
    if (column_relations_[found].empty()) {
      return Unsupported(loc, "USING with a subquery that has no alias");
    }
    return found;
  };
  for (const std::string& u : using_columns) {
    FLOE_ASSIGN_OR_RETURN(int l, one(left, u, "left"));
    FLOE_ASSIGN_OR_RETURN(int r, one(right, u, "right"));
    auto ref_to = [&](int c) {
      auto e = std::make_unique<ast::Expr>();
      e->kind = Kind::kColumnRef;
      e->names = {column_relations_[c], column_names_[c]};
      e->location = loc;
      return e;
    };
    auto eq = std::make_unique<ast::Expr>();
    eq->kind = Kind::kOperator;
    eq->name = "=";
    eq->location = loc;
    eq->left = ref_to(l);
    eq->right = ref_to(r);
    // A bare name means the merged column: the left one's, for a RIGHT join the right one's,
    // for a FULL join the first of them that is not NULL.
    const bool from_right = ref.join_type == JoinType::kRight;
    column_merged_away_[static_cast<size_t>(from_right ? l : r)] = true;
    n.using_columns.push_back(u);
    n.using_from_right = from_right;
    if (ref.join_type == JoinType::kFull) {
      column_merged_away_[static_cast<size_t>(l)] = true;
      auto merged = std::make_unique<ast::Expr>();
      merged->kind = Kind::kCoalesce;
      merged->location = loc;
      merged->args.push_back(ref_to(l));
      merged->args.push_back(ref_to(r));
      n.using_merged.push_back(merged.get());
      merged_columns_.emplace_back(u, merged.get());
      owned_.push_back(std::move(merged));
    }
    owned_.push_back(std::move(eq));
    Place(owned_.back().get(), {column_relation_[l], column_relation_[r]}, node, true);
  }
  if (ref.on) {
    std::vector<const ast::Expr*> conjuncts;
    Conjuncts(ref.on.get(), &conjuncts);
    for (const ast::Expr* c : conjuncts) {
      if (c->has_aggregate) {
        return Fail(c->location, ErrorKind::kInvalidInput,
                    "aggregate functions are not allowed in a join's ON");
      }
      FLOE_RETURN_IF_ERROR(CheckCondition(*c, "a join's ON"));
      std::set<int> rels;
      if (!RelationsOf(*c, &rels)) {
        n.condition.push_back(c);
        continue;
      }
      if (!Includes(n.relations, rels)) {
        return Fail(c->location, ErrorKind::kInvalidInput,
                    "a join's ON may only name the relations that join joins");
      }
      Place(c, rels, node, true);
    }
  }
  return {};
}

// Binds a condition only to check it (names, types, boolean), before it is placed: where it
// lands it is bound again, and only there do its columns take slots.
Status Binder::CheckCondition(const ast::Expr& c, const char* clause) {
  const std::vector<int> saved_index = scan_index_;
  const size_t saved_slots = slot_column_.size();
  auto e = BindExpr(c, Scope::kInput);
  scan_index_ = saved_index;
  slot_column_.resize(saved_slots);
  if (!e) return std::unexpected(e.error());
  if ((*e)->type.id != columnar::TypeId::kBool && (*e)->type.id != columnar::TypeId::kNull) {
    return Fail(
        c.location, ErrorKind::kInvalidInput,
        fmt::format("type mismatch: {} must be boolean, got {}", clause, (*e)->type.ToString()));
  }
  return {};
}

Status Binder::BindRelations(const ast::TableRef* from, const ast::Expr* where,
                             const ast::Select* s) {
  plan_.source = LogicalPlan::Source::kJoin;
  source_name_ = "FROM";
  if (from == nullptr) {
    // No FROM: one row of no columns.
    auto none = std::make_shared<LogicalPlan>();
    none->source = LogicalPlan::Source::kNone;
    root_ = AddHiddenRelation("", none, {}, false);
    return s == nullptr ? Status{} : PlanAndPlace(*s, where);
  }
  FLOE_ASSIGN_OR_RETURN(root_, AddRelationNode(*from));
  // Each relation owns the time-travel clauses between it and the next one in the text.
  std::vector<size_t> order(relations_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return relations_[a].text_begin < relations_[b].text_begin;
  });
  for (size_t i = 0; i < order.size(); ++i) {
    relations_[order[i]].text_end = i + 1 < order.size() ? relations_[order[i + 1]].text_begin
                                                         : static_cast<int>(st_.text.size());
  }
  for (size_t i = 0; i < relations_.size(); ++i) {
    FLOE_RETURN_IF_ERROR(AddRelation(static_cast<int>(i)));
  }
  FLOE_RETURN_IF_ERROR(JoinConditions(root_));
  if (s != nullptr) return PlanAndPlace(*s, where);
  return PlanAndPlace(ast::Select{}, where);
}

// `(a AND b) OR (a AND c)` as `a AND (b OR c)` (true in SQL's three-valued logic too): a join
// condition or a table's filter repeated in every arm of an OR is then a conjunct of its own,
// a hash-join key or a pruning filter instead of a condition on a cross product. With `implied`,
// also the filters an OR implies for this query's relations (ImpliedFilters).
void Binder::FactorOr(const ast::Expr* c, std::vector<const ast::Expr*>* out, bool implied) {
  if (c->kind != Kind::kOr || c->args.size() < 2) {
    out->push_back(c);
    return;
  }
  std::vector<std::vector<const ast::Expr*>> arms(c->args.size());
  for (size_t i = 0; i < arms.size(); ++i) Conjuncts(c->args[i].get(), &arms[i]);
  std::vector<const ast::Expr*> common;
  for (const ast::Expr* x : arms[0]) {
    bool everywhere = true;
    for (size_t i = 1; i < arms.size() && everywhere; ++i) {
      everywhere = std::any_of(arms[i].begin(), arms[i].end(),
                               [&](const ast::Expr* y) { return Same(x, y); });
    }
    if (everywhere) common.push_back(x);
  }
  if (common.empty()) {
    out->push_back(c);
    if (implied) ImpliedFilters(c, out);
    return;
  }
  auto rest = std::make_unique<ast::Expr>();
  rest->kind = Kind::kOr;
  rest->location = c->location;
  for (const auto& arm : arms) {
    std::vector<const ast::Expr*> left;
    for (const ast::Expr* x : arm) {
      if (std::none_of(common.begin(), common.end(),
                       [&](const ast::Expr* y) { return Same(x, y); })) {
        left.push_back(x);
      }
    }
    if (left.empty()) {
      rest = nullptr;  // an arm of nothing but the common part: the OR is true
      break;
    }
    if (left.size() == 1) {
      rest->args.push_back(CloneExpr(*left[0]));
      continue;
    }
    auto both = std::make_unique<ast::Expr>();
    both->kind = Kind::kAnd;
    both->location = left[0]->location;
    for (const ast::Expr* x : left) both->args.push_back(CloneExpr(*x));
    rest->args.push_back(std::move(both));
  }
  out->insert(out->end(), common.begin(), common.end());
  if (rest) {
    rest->has_aggregate = c->has_aggregate;
    owned_.push_back(std::move(rest));
    out->push_back(owned_.back().get());
    if (implied) ImpliedFilters(owned_.back().get(), out);
  }
}

void Binder::ImpliedFilters(const ast::Expr* disjunction, std::vector<const ast::Expr*>* out) {
  if (disjunction->kind != Kind::kOr || disjunction->has_aggregate) return;
  // Only under inner joins: below an outer join, a row the filter drops would come back
  // NULL-extended, and the OR could hold for it (an arm testing IS NULL).
  for (const Node& n : nodes_) {
    if (n.kind != JoinNode::Kind::kRelation && n.kind != JoinNode::Kind::kInner) return;
  }
  const size_t arms = disjunction->args.size();
  // Per relation, per arm: the arm's conjuncts on that relation alone.
  std::map<int, std::vector<std::vector<const ast::Expr*>>> restricts;
  std::set<int> everything;
  for (size_t i = 0; i < arms; ++i) {
    std::vector<const ast::Expr*> conjuncts;
    Conjuncts(disjunction->args[i].get(), &conjuncts);
    for (const ast::Expr* x : conjuncts) {
      std::set<int> rels;
      if (!RelationsOf(*x, &rels)) return;  // a subquery, a window: nothing to reason about
      everything.insert(rels.begin(), rels.end());
      if (rels.size() != 1) continue;
      auto& per_arm = restricts[*rels.begin()];
      per_arm.resize(arms);
      per_arm[i].push_back(x);
    }
  }
  if (everything.size() < 2) return;  // the OR is one relation's filter already
  for (const auto& [relation, per_arm] : restricts) {
    if (std::any_of(per_arm.begin(), per_arm.end(), [](const auto& a) { return a.empty(); })) {
      continue;  // an arm that does not restrict it: no filter follows
    }
    auto implied = std::make_unique<ast::Expr>();
    implied->kind = Kind::kOr;
    implied->location = disjunction->location;
    for (const auto& arm : per_arm) {
      if (arm.size() == 1) {
        implied->args.push_back(CloneExpr(*arm[0]));
        continue;
      }
      auto both = std::make_unique<ast::Expr>();
      both->kind = Kind::kAnd;
      both->location = arm[0]->location;
      for (const ast::Expr* x : arm) both->args.push_back(CloneExpr(*x));
      implied->args.push_back(std::move(both));
    }
    owned_.push_back(std::move(implied));
    out->push_back(owned_.back().get());
  }
}

// The subqueries joined, then WHERE's conjuncts placed.
Status Binder::PlanAndPlace(const ast::Select& s, const ast::Expr* where) {
  std::vector<const ast::Expr*> conjuncts, written;
  if (where) Conjuncts(where, &written);
  for (const ast::Expr* c : written) FactorOr(c, &conjuncts);
  FLOE_RETURN_IF_ERROR(PlanSubqueries(s, &conjuncts));
  {
    for (const ast::Expr* c : conjuncts) {
      if (!c->has_aggregate) FLOE_RETURN_IF_ERROR(CheckCondition(*c, "WHERE"));
      std::set<int> rels;
      if (c->has_aggregate || !RelationsOf(*c, &rels) || rels.empty()) {
        outer_where_.push_back(c);
      } else {
        Place(c, rels, root_, false);
      }
    }
  }
  return {};
}

Result<std::shared_ptr<const JoinNode>> Binder::FinishNode(int node) {
  const Node& n = nodes_[node];
  auto out = std::make_shared<JoinNode>();
  out->kind = n.kind;
  out->null_aware = n.null_aware;
  auto bind_all = [&](const std::vector<const ast::Expr*>& list,
                      std::vector<exec::ExprPtr>* bound) -> Status {
    for (const ast::Expr* c : list) {
      FLOE_ASSIGN_OR_RETURN(exec::ExprPtr e, BindExpr(*c, Scope::kInput));
      if (e->type.id != columnar::TypeId::kBool && e->type.id != columnar::TypeId::kNull) {
        return Fail(
            c->location, ErrorKind::kInvalidInput,
            fmt::format("type mismatch: a condition must be boolean, got {}", e->type.ToString()));
      }
      bound->push_back(std::move(e));
    }
    return {};
  };
  // Conditions first: a relation's reads are all known before its scan is bound (a condition
  // only names relations below its node).
  FLOE_RETURN_IF_ERROR(bind_all(n.condition, &out->condition));
  FLOE_RETURN_IF_ERROR(bind_all(n.filter, &out->filter));
  if (n.kind != JoinNode::Kind::kRelation) {
    if (n.kind == JoinNode::Kind::kMark) {
      const Relation& marked = relations_[nodes_[n.right].relation];
      out->mark_slot = scan_index_[marked.first_column + marked.columns - 1];
    }
    FLOE_ASSIGN_OR_RETURN(out->left, FinishNode(n.left));
    FLOE_ASSIGN_OR_RETURN(out->right, FinishNode(n.right));
    return out;
  }
  const Relation& r = relations_[n.relation];
  out->name = r.name.empty() ? "(subquery)" : r.name;
  if (r.table == nullptr) {
    out->plan = r.plan;
    out->shared = r.shared;
    out->single_row = r.single_row;
    out->keyed_by_outer = r.keyed_by_outer;
    // A mark join's column is the join's to fill, not the plan's.
    const size_t own = r.columns - (r.mark ? 1 : 0);
    for (size_t c = r.first_column; c < r.first_column + own; ++c) {
      out->slots.push_back(scan_index_[c]);
    }
    return out;
  }
  // SELECT <the columns read> FROM table WHERE <its conjuncts>, bound as any one-table query.
  ast::Select scan;
  scan.from = *r.table;
  for (size_t c = r.first_column; c < r.first_column + r.columns; ++c) {
    if (scan_index_[c] < 0) continue;
    ast::SelectItem item;
    item.expr = std::make_unique<ast::Expr>();
    item.expr->kind = Kind::kColumnRef;
    item.expr->names = {r.source_names[c - r.first_column]};
    item.expr->location = r.table->location;
    item.name = r.source_names[c - r.first_column];
    item.location = r.table->location;
    scan.items.push_back(std::move(item));
    out->slots.push_back(scan_index_[c]);
  }
  if (scan.items.empty()) {
    // Nothing read: the rows still count (a constant column, in no slot).
    ast::SelectItem item;
    item.expr = std::make_unique<ast::Expr>();
    item.expr->kind = Kind::kConst;
    item.expr->constant.kind = ast::Const::Kind::kInteger;
    item.name = "1";
    scan.items.push_back(std::move(item));
    out->slots.push_back(-1);
  }
  if (r.pushed.size() == 1) {
    scan.where = CloneExpr(*r.pushed[0]);
  } else if (r.pushed.size() > 1) {
    scan.where = std::make_unique<ast::Expr>();
    scan.where->kind = Kind::kAnd;
    scan.where->location = r.pushed[0]->location;
    for (const ast::Expr* c : r.pushed) scan.where->args.push_back(CloneExpr(*c));
  }
  const ParsedStatement sub = StatementFor(r.text_begin, r.text_end);
  TableResolver loaded = resolver_;
  loaded.load = [&](const catalog::TableIdentifier&) -> Result<iceberg::Table> { return r.loaded; };
  Binder b(sub, loaded, ctes_);
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, b.Bind(scan));
  out->plan = std::make_shared<const LogicalPlan>(std::move(plan));
  return out;
}

Result<std::shared_ptr<const JoinNode>> Binder::FinishRelations() { return FinishNode(root_); }

}  // namespace floe::sql::internal
