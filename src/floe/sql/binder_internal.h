// The binder's state while it binds one SELECT: internal to sql, shared by binder.cc (expressions,
// the select list, GROUP BY, ORDER BY) and bind_from.cc (FROM's relations, joins and CTEs).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "floe/sql/ast.h"
#include "floe/sql/bind_internal.h"
#include "floe/sql/binder.h"
#include "floe/sql/logical_plan.h"

namespace floe::sql::internal {

// A deep copy of a syntax tree.
ast::ExprPtr CloneExpr(const ast::Expr& e);
ast::Select CloneSelect(const ast::Select& s);
// The conjuncts of an AND tree (the tree itself when it is not an AND).
void Conjuncts(const ast::Expr* e, std::vector<const ast::Expr*>* out);

// The WITH queries a SELECT sees: its own and its enclosing ones'.
struct CteScope {
  struct Cte {
    std::shared_ptr<const LogicalPlan> plan;
    std::vector<std::string> columns;
  };
  std::map<std::string, Cte> ctes;  // by lower-case name
  std::shared_ptr<const CteScope> parent;

  const Cte* Find(const std::string& lower_name) const {
    for (const CteScope* s = this; s != nullptr; s = s->parent.get()) {
      auto it = s->ctes.find(lower_name);
      if (it != s->ctes.end()) return &it->second;
    }
    return nullptr;
  }
};

class Binder {
 public:
  // `ctes`: the common table expressions in scope (null: none).
  Binder(const ParsedStatement& st, const TableResolver& r,
         std::shared_ptr<const CteScope> ctes = nullptr)
      : st_(st), resolver_(r), ctes_(std::move(ctes)) {}
  // Binds expressions over `columns` of named relations (BindScalar).
  Binder(const ParsedStatement& st, const TableResolver& r,
         const std::vector<RelationColumn>& columns, std::string what)
      : st_(st), resolver_(r) {
    plan_.source = LogicalPlan::Source::kMetadataTable;
    source_name_ = std::move(what);
    for (const RelationColumn& c : columns) {
      column_names_.push_back(c.name);
      column_types_.push_back(c.type);
      column_relations_.push_back(c.relation);
      scan_index_.push_back(static_cast<int>(scan_index_.size()));
    }
  }

  Result<LogicalPlan> Bind(const ast::Select& s);
  Result<exec::ExprPtr> BindScalar(const ast::Expr& e) { return BindExpr(e, Scope::kInput); }

 private:
  enum class Scope { kInput, kAggregate };

  std::unexpected<Error> Fail(int loc, ErrorKind kind, std::string msg) const {
    return FailAt(st_.text, loc, kind, std::move(msg));
  }
  std::unexpected<Error> Unsupported(int loc, const std::string& what) const {
    return UnsupportedAt(st_.text, loc, what);
  }
  // An error from below (type checks) located at `loc` unless it already names a position.
  Error Locate(Error e, int loc) const {
    if (e.message.starts_with("at line ")) return e;
    return ErrorAt(e.kind, st_.text, loc, e.message);
  }

  Status BindFrom(const std::optional<ast::TableRef>& from);

  // FROM with joins, subqueries or CTEs (bind_from.cc): relations whose columns get slots as
  // statements name them; WHERE's conjuncts placed in the relations' scans or at joins.
  bool NeedsRelations(const ast::TableRef& from) const;
  Status BindWith(const ast::Select& s);
  // `from` null: no FROM (a query of subqueries alone); `s`: the query, whose subqueries join
  // FROM (null: none are looked for).
  Status BindRelations(const ast::TableRef* from, const ast::Expr* where,
                       const ast::Select* s = nullptr);
  Result<int> AddRelationNode(const ast::TableRef& ref);
  Status AddRelation(int index);
  Status JoinConditions(int node);
  // Where a conjunct over `relations` lands: as a filter of `node`'s rows, or (`on` set) as a
  // condition of the join `node`.
  void Place(const ast::Expr* conjunct, const std::set<int>& relations, int node, bool on);
  bool RelationsOf(const ast::Expr& e, std::set<int>* out) const;
  Status CheckCondition(const ast::Expr& c, const char* clause);
  int RelationOfColumn(const std::vector<std::string>& names) const;
  // What `*` means over a node: columns, and for FULL JOIN ... USING the merged column.
  struct StarItem {
    int column = -1;
    const ast::Expr* merged = nullptr;  // COALESCE(left.c, right.c)
  };
  std::vector<StarItem> StarColumns(int node) const;
  Result<std::shared_ptr<const JoinNode>> FinishRelations();

  // Subqueries in expressions (bind_subquery.cc): WHERE's EXISTS / IN / NOT conjuncts become semi
  // and anti joins of FROM, scalar subqueries LEFT joins of their value; a correlated one has its
  // conditions on this query's columns taken out and made the join's.
  static bool HasSubquery(const ast::Select& s);
  Status PlanSubqueries(const ast::Select& s, std::vector<const ast::Expr*>* where);
  Status PlanAndPlace(const ast::Select& s, const ast::Expr* where);
  void FactorOr(const ast::Expr* c, std::vector<const ast::Expr*>* out, bool implied = true);
  // For an OR of conditions over several relations of inner joins: each relation every arm
  // restricts gets the OR of those restrictions as a filter of its own (implied by the OR, which
  // stays), so its scan is pruned and filtered before the join.
  void ImpliedFilters(const ast::Expr* disjunction, std::vector<const ast::Expr*>* out);
  // How a subquery joins: EXISTS or IN as a WHERE conjunct (a semi join, or with NOT an anti
  // join), as a value inside an expression (a mark join), or a scalar (a LEFT join).
  enum class SubqueryUse { kFilter, kNegatedFilter, kValue };
  Status AddSubqueryJoin(const ast::Expr& sub, SubqueryUse use);
  Result<exec::ExprPtr> BindIntervalShift(const ast::Expr& x, const ast::Expr& interval,
                                          bool subtract, Scope scope, int loc);
  struct Decorrelated {
    LogicalPlan plan;
    std::vector<std::string> names;        // its columns: __v (the value), __c0, ...
    std::vector<ast::ExprPtr> conditions;  // over this query's columns and the subquery's
    bool count = false;                    // a scalar COUNT: no row means 0
  };
  Result<Decorrelated> Decorrelate(const ast::Select& sub, const std::string& kind,
                                   const std::string& name, int loc);
  // Whether a column reference names a column of this query's FROM.
  bool Knows(const std::vector<std::string>& names) const;
  // Adds a relation of `names` (hidden from `*`) and its node; returns the node. With `mark`, a
  // last boolean column __m that a mark join fills, not the plan.
  int AddHiddenRelation(const std::string& name, std::shared_ptr<const LogicalPlan> plan,
                        const std::vector<std::string>& names, bool single_row, bool mark = false);
  Result<std::shared_ptr<const JoinNode>> FinishNode(int node);
  ParsedStatement StatementFor(int begin, int end) const;
  Status BindRows(columnar::RecordBatch rows);
  // UNION / INTERSECT / EXCEPT and VALUES (set_operation.h runs the former).
  Status BindSetOperation(const ast::Select& s);
  Status BindValues(const ast::Select& s);
  Status BindTableFunction(const ast::TableRef& from);
  Result<exec::ExprPtr> ResolveColumn(const std::string& name, int loc,
                                      const std::string& relation = "");
  bool IsRelation(const std::string& name) const;
  Result<exec::ExprPtr> BindExpr(const ast::Expr& e, Scope scope);
  Result<exec::ExprPtr> BindNode(const ast::Expr& e, Scope scope);
  Result<std::vector<exec::ExprPtr>> BindList(const std::vector<ast::ExprPtr>& list, Scope scope);
  Result<exec::ExprPtr> BindColumnRef(const ast::Expr& e);
  Result<exec::ExprPtr> BindConst(const ast::Const& c, int loc);
  Result<exec::ExprPtr> BindCase(const ast::Expr& e, Scope scope);
  Result<exec::ExprPtr> BindOperator(const ast::Expr& e, Scope scope);
  std::optional<Result<exec::ExprPtr>> DateAgainstTimestamp(exec::Fn fn, const exec::ExprPtr& l,
                                                            const exec::ExprPtr& r, int loc);
  Result<exec::ExprPtr> BindFunc(const ast::Expr& e, Scope scope);
  Result<exec::ExprPtr> BindAggregate(const ast::Expr& e);
  // f(...) OVER (...): a column after the projection's input (renumbered at the end of Bind).
  Result<exec::ExprPtr> BindWindow(const ast::Expr& e, Scope scope);
  static constexpr int kWindowBase = 1 << 24;
  Result<exec::Value> AggregateConstant(const ast::Expr& e, std::string_view what);
  Result<exec::ExprPtr> BindGrouping(const ast::Expr& b, exec::Aggregate agg);
  exec::ExprPtr RegisterAggregate(exec::Aggregate agg, const std::string& name);
  Result<exec::ExprPtr> Call(exec::Fn fn, std::vector<exec::ExprPtr> args, int loc,
                             std::string text = {});
  Result<exec::ExprPtr> Call(const exec::ScalarFunction& fn, std::vector<exec::ExprPtr> args,
                             int loc, std::string text = {});
  Result<exec::ExprPtr> Fold(Result<exec::ExprPtr> call, int loc);
  Result<columnar::DataType> BindTypeName(const ast::TypeName& type_name, int loc);
  Result<int64_t> BindCount(const ast::Expr& e, const char* what);

  const ParsedStatement& st_;
  const TableResolver& resolver_;
  LogicalPlan plan_;
  std::string source_name_;
  std::vector<std::string> column_names_;
  std::vector<columnar::DataType> column_types_;
  std::vector<int32_t> column_ids_;  // kTable: field ids
  std::vector<int> scan_index_;      // source column -> index in the scan output, or -1
  // Columns `*` expands to: the first ones (a table's metadata columns come after them).
  size_t visible_columns_ = SIZE_MAX;
  // BindScalar: the relation each column belongs to (qualified references name it).
  std::vector<std::string> column_relations_;
  std::vector<std::string> aggregate_keys_;

  std::shared_ptr<const CteScope> ctes_;
  // Relations mode (plan_.source == kJoin): every column of every relation is listed in
  // column_names_ (column_relations_ naming its relation); scan_index_ holds its slot once read.
  struct Relation {
    std::string name;
    const ast::TableRef* table = nullptr;     // a table scan, bound last with its pushed conjuncts
    iceberg::Table loaded;                    // the table `table` names
    std::shared_ptr<const LogicalPlan> plan;  // otherwise: the bound subquery, CTE or function
    bool shared = false;                      // a CTE's plan
    size_t first_column = 0, columns = 0;     // its columns in column_names_
    std::vector<const ast::Expr*> pushed;     // conjuncts its scan decides
    std::vector<std::string> source_names;    // its columns' own names (before AS x(a, b))
    int node = -1;
    int text_begin = 0, text_end = 0;  // its time-travel clauses lie here
    bool single_row = false;           // a scalar subquery's
    bool keyed_by_outer = false;       // JoinNode::keyed_by_outer
    bool mark = false;                 // its last column is a mark join's, not its plan's
  };
  struct Node {
    JoinNode::Kind kind = JoinNode::Kind::kRelation;
    int relation = -1;
    const ast::TableRef* ref = nullptr;
    int left = -1, right = -1;            // a RIGHT join's sides swapped (it runs as a LEFT join)
    int text_left = -1, text_right = -1;  // as written
    std::set<int> relations;              // below it
    std::vector<std::string> using_columns;
    bool using_from_right = false;  // RIGHT JOIN ... USING: the merged column is the right one's
    std::vector<const ast::Expr*> using_merged;  // FULL JOIN ... USING: each one's COALESCE
    std::vector<const ast::Expr*> condition, filter;
    bool null_aware = false;  // kAnti of NOT IN
  };
  std::vector<Relation> relations_;
  std::vector<Node> nodes_;
  int root_ = -1;
  std::vector<const ast::Expr*> outer_where_;  // WHERE conjuncts evaluated after every join
  std::vector<ast::ExprPtr> owned_;            // conditions written for USING and NATURAL
  std::vector<int> column_relation_;           // column -> relation
  std::vector<bool> column_visible_;           // column -> in `*`
  std::vector<bool> column_merged_away_;       // column -> hidden by USING from bare names
  // FULL JOIN ... USING (c): a bare `c` means COALESCE(left.c, right.c).
  std::vector<std::pair<std::string, const ast::Expr*>> merged_columns_;
  std::vector<int> slot_column_;  // slot -> column
  // A scalar subquery -> what it binds as (its relation's value column).
  std::map<const ast::Expr*, ast::ExprPtr> subquery_values_;
  int subqueries_ = 0;            // relations named __sq1, __sq2, ...
  bool windows_allowed_ = false;  // binding the select list or ORDER BY
  std::string table_name_;        // one-table FROM: the name (alias) qualified references use
};

}  // namespace floe::sql::internal
