// Subqueries in expressions, turned into joins of the query's FROM: a WHERE conjunct `EXISTS
// (...)` or `x IN (...)` keeps the rows that have a match in the subquery (a semi join; with NOT,
// an anti join, NULL-aware for NOT IN); elsewhere (under OR, in CASE or the select list) it is a
// mark join, whose boolean column says which rows have a match; and a scalar `(SELECT ...)` is a
// LEFT join of its one value. A correlated subquery -- one whose WHERE names the outer query's
// columns -- has those conjuncts taken out and made the join's conditions; its columns they read
// become its outputs (a scalar one is grouped by them), so it runs once, not once per row.
#include <functional>

#include "floe/sql/binder_internal.h"

namespace floe::sql::internal {

namespace {

using Kind = ast::Expr::Kind;

// Calls `f` on every node of `e`, not entering subqueries (an IN's tested value excepted).
void Walk(const ast::Expr& e, const std::function<void(const ast::Expr&)>& f) {
  f(e);
  for (const auto& a : e.args) {
    if (a) Walk(*a, f);
  }
  if (e.kind == Kind::kSubquery) return;
  for (const auto& o : e.order) {
    if (o) Walk(*o, f);
  }
  for (const auto& arm : e.arms) {
    if (arm.when) Walk(*arm.when, f);
    if (arm.then) Walk(*arm.then, f);
  }
  for (const ast::Expr* x :
       {e.filter.get(), e.left.get(), e.right.get(), e.subject.get(), e.otherwise.get()}) {
    if (x) Walk(*x, f);
  }
}

// The same over a tree that is changed on the way.
void Rewrite(ast::Expr* e, const std::function<void(ast::Expr*)>& f) {
  f(e);
  for (auto& a : e->args) {
    if (a) Rewrite(a.get(), f);
  }
  if (e->kind == Kind::kSubquery) return;
  for (auto& o : e->order) {
    if (o) Rewrite(o.get(), f);
  }
  for (auto& arm : e->arms) {
    if (arm.when) Rewrite(arm.when.get(), f);
    if (arm.then) Rewrite(arm.then.get(), f);
  }
  for (ast::Expr* x :
       {e->filter.get(), e->left.get(), e->right.get(), e->subject.get(), e->otherwise.get()}) {
    if (x) Rewrite(x, f);
  }
}

// Every expression of a SELECT's own clauses (not its FROM's subqueries).
void WalkSelect(const ast::Select& s, const std::function<void(const ast::Expr&)>& f) {
  for (const auto& i : s.items) {
    if (i.expr) Walk(*i.expr, f);
  }
  if (s.where) Walk(*s.where, f);
  for (const auto& g : s.group_by) Walk(*g, f);
  if (s.having) Walk(*s.having, f);
  for (const auto& o : s.order_by) Walk(*o.expr, f);
}

ast::ExprPtr ColumnOf(const std::string& relation, const std::string& column, int loc) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = Kind::kColumnRef;
  e->names = {relation, column};
  e->location = loc;
  return e;
}

ast::ExprPtr Equals(ast::ExprPtr left, ast::ExprPtr right, int loc) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = Kind::kOperator;
  e->name.push_back('=');  // not `= "="`: GCC 12 misreports it under -Wrestrict
  e->location = loc;
  e->left = std::move(left);
  e->right = std::move(right);
  return e;
}

// Where a subquery's parenthesised text ends (its time-travel clauses lie before): the ')'
// closing the first '(' at or after `loc`, quotes skipped; the text's end when there is none.
int SubqueryEnd(const std::string& text, int loc) {
  size_t at = text.find('(', static_cast<size_t>(std::max(loc, 0)));
  int depth = 0;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '\'' || c == '"') {
      const size_t close = text.find(c, at + 1);
      if (close == std::string::npos) break;
      at = close;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return static_cast<int>(at);
    }
  }
  return static_cast<int>(text.size());
}

}  // namespace

bool Binder::HasSubquery(const ast::Select& s) {
  bool found = false;
  WalkSelect(s, [&](const ast::Expr& e) { found = found || e.kind == Kind::kSubquery; });
  return found;
}

bool Binder::Knows(const std::vector<std::string>& names) const {
  if (names.empty()) return false;
  auto has = [&](size_t first, size_t count, const std::string& column) {
    for (size_t c = first; c < first + count && c < column_names_.size(); ++c) {
      if (Lower(column_names_[c]) == Lower(column)) return true;
    }
    return false;
  };
  if (plan_.source == LogicalPlan::Source::kJoin) {
    if (names.size() >= 2) {
      for (const Relation& r : relations_) {
        if (!r.name.empty() && Lower(r.name) == Lower(names[0])) {
          return has(r.first_column, r.columns, names[1]);
        }
      }
    }
    return has(0, column_names_.size(), names[0]);
  }
  if (names.size() >= 2 && !table_name_.empty() && Lower(names[0]) == Lower(table_name_)) {
    return has(0, column_names_.size(), names[1]);
  }
  return has(0, column_names_.size(), names[0]);
}

int Binder::AddHiddenRelation(const std::string& name, std::shared_ptr<const LogicalPlan> plan,
                              const std::vector<std::string>& names, bool single_row, bool mark) {
  const int index = static_cast<int>(relations_.size());
  Node n;
  n.relation = index;
  n.relations = {index};
  nodes_.push_back(std::move(n));
  Relation r;
  r.node = static_cast<int>(nodes_.size()) - 1;
  r.name = name;
  r.single_row = single_row;
  r.mark = mark;
  r.first_column = column_names_.size();
  r.columns = names.size() + (mark ? 1 : 0);
  r.source_names = names;
  if (mark) r.source_names.emplace_back("__m");
  for (size_t k = 0; k < r.columns; ++k) {
    column_names_.push_back(r.source_names[k]);
    column_types_.push_back(k < names.size() ? plan->outputs[k]->type : columnar::Bool());
    column_relations_.push_back(name);
    scan_index_.push_back(-1);
    column_relation_.push_back(index);
    column_visible_.push_back(false);
    column_merged_away_.push_back(false);
  }
  r.plan = std::move(plan);
  relations_.push_back(std::move(r));
  return static_cast<int>(nodes_.size()) - 1;
}

Result<Binder::Decorrelated> Binder::Decorrelate(const ast::Select& sub, const std::string& kind,
                                                 const std::string& name, int loc) {
  Decorrelated d;
  const ParsedStatement st = StatementFor(loc, SubqueryEnd(st_.text, loc));
  const bool value = kind != "exists";
  // The subquery's own FROM tells its columns from this query's.
  Binder probe(st, resolver_, ctes_);
  FLOE_RETURN_IF_ERROR(probe.BindWith(sub));
  if (sub.from && probe.NeedsRelations(*sub.from)) {
    FLOE_RETURN_IF_ERROR(probe.BindRelations(&*sub.from, nullptr));
  } else {
    FLOE_RETURN_IF_ERROR(probe.BindFrom(sub.from));
  }
  auto outer = [&](const ast::Expr& e) {
    return e.kind == Kind::kColumnRef && !e.star && !probe.Knows(e.names) && Knows(e.names);
  };
  // A correlation in every arm of an OR is a conjunct of its own (TPC-DS Q41).
  std::vector<const ast::Expr*> written, conjuncts, inner, correlated;
  if (sub.where) Conjuncts(sub.where.get(), &written);
  for (const ast::Expr* c : written) FactorOr(c, &conjuncts, false);
  for (const ast::Expr* c : conjuncts) {
    bool refers = false;
    Walk(*c, [&](const ast::Expr& e) { refers = refers || outer(e); });
    (refers ? correlated : inner).push_back(c);
  }
  bool elsewhere = false;
  for (const auto& i : sub.items) {
    if (i.expr) Walk(*i.expr, [&](const ast::Expr& e) { elsewhere = elsewhere || outer(e); });
  }
  for (const auto& g : sub.group_by) {
    Walk(*g, [&](const ast::Expr& e) { elsewhere = elsewhere || outer(e); });
  }
  if (sub.having) Walk(*sub.having, [&](const ast::Expr& e) { elsewhere = elsewhere || outer(e); });
  if (elsewhere) {
    return Unsupported(loc, "a subquery naming the outer query's columns outside its WHERE");
  }
  d.count = kind == "scalar" && sub.items.size() == 1 && sub.items[0].expr &&
            sub.items[0].expr->kind == Kind::kFuncCall && sub.items[0].expr->name == "count" &&
            !sub.items[0].expr->window;
  if (correlated.empty()) {
    Binder b(st, resolver_, ctes_);
    FLOE_ASSIGN_OR_RETURN(d.plan, b.Bind(sub));
    if (value && d.plan.outputs.size() != 1) {
      return Fail(loc, ErrorKind::kInvalidInput,
                  fmt::format("the subquery gives {} columns where one value is needed",
                              d.plan.outputs.size()));
    }
    for (size_t i = 0; i < d.plan.outputs.size(); ++i) {
      d.names.push_back(value ? "__v" : fmt::format("__c{}", i));
    }
    return d;
  }
  if (sub.distinct || !sub.order_by.empty() || sub.limit || sub.offset ||
      !sub.grouping_sets.empty() || !sub.with.empty()) {
    return Unsupported(loc,
                       "a correlated subquery with DISTINCT, ORDER BY, LIMIT, GROUPING SETS or "
                       "WITH");
  }
  bool aggregate = sub.having != nullptr || !sub.group_by.empty();
  for (const auto& i : sub.items) aggregate = aggregate || (i.expr && i.expr->has_aggregate);
  if (kind == "scalar" && (!aggregate || !sub.group_by.empty() || sub.having)) {
    return Unsupported(loc,
                       "a correlated scalar subquery that is not one aggregate without GROUP BY "
                       "(write it as a join)");
  }
  if (kind != "scalar" && aggregate) {
    return Unsupported(loc, "a correlated EXISTS or IN subquery with aggregates");
  }
  ast::Select s = CloneSelect(sub);
  s.where = nullptr;
  if (inner.size() == 1) s.where = CloneExpr(*inner[0]);
  if (inner.size() > 1) {
    s.where = std::make_unique<ast::Expr>();
    s.where->kind = Kind::kAnd;
    s.where->location = inner[0]->location;
    for (const ast::Expr* c : inner) s.where->args.push_back(CloneExpr(*c));
  }
  if (!value) s.items.clear();
  if (value && s.items.size() != 1) {
    return Fail(
        loc, ErrorKind::kInvalidInput,
        fmt::format("the subquery gives {} columns where one value is needed", s.items.size()));
  }
  auto add_item = [&](ast::ExprPtr e, int at) {
    ast::SelectItem item;
    item.expr = std::move(e);
    item.name = fmt::format("__c{}", s.items.size() - (value ? 1 : 0));
    item.location = at;
    std::string added_name = item.name;
    s.items.push_back(std::move(item));
    return added_name;
  };
  std::map<std::string, std::string> added;  // an inner column reference -> its output
  for (const ast::Expr* c : correlated) {
    if (kind == "scalar") {
      // inner = outer: the subquery is grouped by the inner side, and joined on it.
      auto side_inner = [&](const ast::ExprPtr& x, bool want_inner) {
        bool any_outer = false, any_inner = false;
        Walk(*x, [&](const ast::Expr& e) {
          if (e.kind != Kind::kColumnRef) return;
          (outer(e) ? any_outer : any_inner) = true;
        });
        return want_inner ? any_inner && !any_outer : any_outer && !any_inner;
      };
      if (c->kind != Kind::kOperator || c->name != "=" || !c->left || !c->right) {
        return Unsupported(c->location,
                           "a correlated condition other than inner = outer in a scalar "
                           "subquery");
      }
      const bool left_inner = side_inner(c->left, true) && side_inner(c->right, false);
      const bool right_inner = side_inner(c->right, true) && side_inner(c->left, false);
      if (!left_inner && !right_inner) {
        return Unsupported(c->location,
                           "a correlated condition other than inner = outer in a scalar "
                           "subquery");
      }
      const ast::Expr& in = left_inner ? *c->left : *c->right;
      const ast::Expr& out = left_inner ? *c->right : *c->left;
      s.group_by.push_back(CloneExpr(in));
      const std::string col = add_item(CloneExpr(in), c->location);
      d.conditions.push_back(Equals(ColumnOf(name, col, c->location), CloneExpr(out), c->location));
      continue;
    }
    // EXISTS / IN: each inner column the condition reads becomes an output of the subquery.
    ast::ExprPtr rewritten = CloneExpr(*c);
    Rewrite(rewritten.get(), [&](ast::Expr* e) {
      if (e->kind != Kind::kColumnRef || e->star || outer(*e)) return;
      std::string key;
      for (const auto& n : e->names) key += Lower(n) + ".";
      auto it = added.find(key);
      if (it == added.end()) {
        auto ref = std::make_unique<ast::Expr>();
        ref->kind = Kind::kColumnRef;
        ref->names = e->names;
        ref->location = e->location;
        it = added.emplace(key, add_item(std::move(ref), e->location)).first;
      }
      e->names = {name, it->second};
    });
    d.conditions.push_back(std::move(rewritten));
  }
  if (s.items.empty()) {
    // Conditions of the outer query's columns alone: the subquery's rows still count.
    auto one = std::make_unique<ast::Expr>();
    one->kind = Kind::kConst;
    one->constant.kind = ast::Const::Kind::kInteger;
    one->constant.integer = 1;
    add_item(std::move(one), loc);
  }
  Binder b(st, resolver_, ctes_);
  FLOE_ASSIGN_OR_RETURN(d.plan, b.Bind(s));
  for (size_t i = 0; i < s.items.size(); ++i) {
    d.names.push_back(value && i == 0 ? "__v" : s.items[i].name);
  }
  return d;
}

Status Binder::AddSubqueryJoin(const ast::Expr& sub, SubqueryUse use) {
  const std::string name = fmt::format("__sq{}", ++subqueries_);
  FLOE_ASSIGN_OR_RETURN(Decorrelated d, Decorrelate(*sub.select, sub.name, name, sub.location));
  const bool scalar = sub.name == "scalar";
  const bool mark = !scalar && use == SubqueryUse::kValue;
  auto plan = std::make_shared<const LogicalPlan>(std::move(d.plan));
  const int rel = AddHiddenRelation(name, plan, d.names, scalar && d.conditions.empty(), mark);
  // A correlated scalar subquery, grouped by its correlation keys: only the groups of the keys
  // the outer rows hold are ever joined.
  relations_[nodes_[rel].relation].keyed_by_outer = scalar && !d.conditions.empty();
  Node n;
  n.kind = scalar                               ? JoinNode::Kind::kLeft
           : mark                               ? JoinNode::Kind::kMark
           : use == SubqueryUse::kNegatedFilter ? JoinNode::Kind::kAnti
                                                : JoinNode::Kind::kSemi;
  n.left = n.text_left = root_;
  n.right = n.text_right = rel;
  n.relations = nodes_[root_].relations;
  n.relations.insert(nodes_[rel].relations.begin(), nodes_[rel].relations.end());
  for (auto& c : d.conditions) {
    owned_.push_back(std::move(c));
    n.condition.push_back(owned_.back().get());
  }
  if (sub.name == "in") {
    owned_.push_back(
        Equals(CloneExpr(*sub.args[0]), ColumnOf(name, "__v", sub.location), sub.location));
    n.condition.push_back(owned_.back().get());
    n.null_aware = use != SubqueryUse::kFilter;  // NOT IN's anti join, IN's mark
  }
  nodes_.push_back(std::move(n));
  root_ = static_cast<int>(nodes_.size()) - 1;
  if (mark) subquery_values_[&sub] = ColumnOf(name, "__m", sub.location);
  if (scalar) {
    ast::ExprPtr v = ColumnOf(name, "__v", sub.location);
    if (d.count) {
      // COUNT of no rows is 0, not the NULL a missing match gives.
      auto zero = std::make_unique<ast::Expr>();
      zero->kind = Kind::kConst;
      zero->constant.kind = ast::Const::Kind::kInteger;
      auto c = std::make_unique<ast::Expr>();
      c->kind = Kind::kCoalesce;
      c->location = sub.location;
      c->args.push_back(std::move(v));
      c->args.push_back(std::move(zero));
      v = std::move(c);
    }
    subquery_values_[&sub] = std::move(v);
  }
  return {};
}

Status Binder::PlanSubqueries(const ast::Select& s, std::vector<const ast::Expr*>* where) {
  std::vector<const ast::Expr*> rest;
  for (const ast::Expr* c : *where) {
    const ast::Expr* sub = c;
    bool negated = false;
    if (c->kind == Kind::kNot && c->args.size() == 1 && c->args[0]->kind == Kind::kSubquery) {
      sub = c->args[0].get();
      negated = true;
    }
    if (sub->kind == Kind::kSubquery && sub->name != "scalar") {
      FLOE_RETURN_IF_ERROR(
          AddSubqueryJoin(*sub, negated ? SubqueryUse::kNegatedFilter : SubqueryUse::kFilter));
      continue;
    }
    rest.push_back(c);
  }
  *where = std::move(rest);
  // Subqueries anywhere else are values: scalars, and EXISTS and IN as mark joins.
  std::vector<const ast::Expr*> values;
  auto visit = [&](const ast::Expr& e) {
    if (e.kind == Kind::kSubquery) values.push_back(&e);
  };
  for (const ast::Expr* c : *where) Walk(*c, visit);
  for (const auto& i : s.items) {
    if (i.expr) Walk(*i.expr, visit);
  }
  for (const auto& g : s.group_by) Walk(*g, visit);
  if (s.having) Walk(*s.having, visit);
  for (const auto& o : s.order_by) Walk(*o.expr, visit);
  for (const ast::Expr* e : values) FLOE_RETURN_IF_ERROR(AddSubqueryJoin(*e, SubqueryUse::kValue));
  return {};
}

}  // namespace floe::sql::internal
