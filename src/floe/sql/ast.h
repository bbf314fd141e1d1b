// The typed syntax tree of a SELECT (and of DELETE and UPDATE): what the statement says, in floe's
// own types, before any name is resolved or any type checked. TransformSelect (transform.h) makes
// it from libpg_query's JSON; the binder (binder.h) reads it. Plain data. Every `location` is a
// byte offset into the statement's text (-1: none), as libpg_query reports it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace floe::sql::ast {

struct Expr;
struct Select;
using ExprPtr = std::unique_ptr<Expr>;

// A constant as written. kNumber keeps its digits: the binder decides integer or double.
struct Const {
  enum class Kind { kNull, kInteger, kNumber, kString, kBool, kOther };
  Kind kind = Kind::kOther;
  int64_t integer = 0;   // kInteger
  std::string text;      // kNumber: as written; kString: the string
  bool boolean = false;  // kBool
};

// A named argument of a table function: f(x, delim = '|') or f(x, delim := '|'), as DuckDB takes
// both.
struct NamedConst {
  std::string name;  // lower case
  Const value;
  int location = -1;
};

// A type in a CAST: the last part of its name, lower case ("pg_catalog.int4" -> "int4").
struct TypeName {
  std::string name;
  bool array = false;          // int[]
  std::vector<int> modifiers;  // numeric(10, 2) -> {10, 2}; only integer constants are kept
  int location = -1;
};

// OVER (PARTITION BY ... ORDER BY ... frame).
struct WindowDef {
  std::vector<std::unique_ptr<Expr>> partition;
  std::vector<std::unique_ptr<Expr>> order;
  std::vector<bool> order_descending, order_nulls_first;
  int frame_options = 0;  // Postgres's FRAMEOPTION_* bits
  std::unique_ptr<Expr> start_offset, end_offset;
  int location = -1;
};

struct CaseArm {
  ExprPtr when;
  ExprPtr then;
};

struct Expr {
  enum class Kind {
    kColumnRef,    // names (a.b.c); star: ends in `*`
    kConst,        // constant
    kTypeCast,     // args[0]::type
    kAnd,          // args (two or more)
    kOr,           // args
    kNot,          // args[0]
    kIsNull,       // args[0] IS NULL
    kIsNotNull,    // args[0] IS NOT NULL
    kCoalesce,     // COALESCE(args)
    kCase,         // CASE [subject] arms... [ELSE otherwise] END
    kFuncCall,     // name(args) and its modifiers
    kIn,           // args[0] [NOT] IN (args[1..]); subquery: the list is a subquery
    kBetween,      // args[0] [NOT] BETWEEN args[1] AND args[2]
    kOperator,     // left op right; left (prefix) or right (postfix) may be null
    kSubquery,     // (SELECT ...) as a value (name "scalar"), EXISTS, or args[0] IN (SELECT ...)
    kUnsupported,  // a construct floe does not support: "floe does not support <name>"
  };
  Kind kind = Kind::kUnsupported;
  int location = -1;
  // An aggregate call (count, sum, ..., string_agg: IsAggregateName; without OVER) anywhere in the
  // text below, constructs floe does not support included.
  bool has_aggregate = false;

  std::vector<std::string> names;  // kColumnRef: "" for a part that is not a name
  bool star = false;               // kColumnRef: `*`; kFuncCall: count(*)
  Const constant;                  // kConst
  TypeName type;                   // kTypeCast
  bool try_cast = false;           // kTypeCast: TRY_CAST (NULL where a value does not convert)
  // kFuncCall: the last part of the name, lower case; kOperator: the operator as libpg_query
  // spells it ("+", "~~", "!~~*"); kUnsupported: what is unsupported.
  std::string name;
  std::vector<ExprPtr> args;

  // kFuncCall modifiers.
  bool distinct = false;                  // f(DISTINCT x)
  bool window = false;                    // OVER (...)
  std::shared_ptr<const WindowDef> over;  // the OVER clause (window)
  ExprPtr filter;                         // FILTER (WHERE filter); null when none
  // f(x ORDER BY y [DESC]) or, with within_group, f(q) WITHIN GROUP (ORDER BY y): the keys.
  std::vector<ExprPtr> order;
  std::vector<bool> order_descending;  // one per key
  bool within_group = false;

  std::shared_ptr<const Select> select;  // kSubquery; name: "scalar", "exists" or "in"

  bool negated = false;   // kIn: NOT IN; kBetween: NOT BETWEEN
  bool subquery = false;  // kIn: IN (SELECT ...)

  ExprPtr left, right;         // kOperator
  ExprPtr subject, otherwise;  // kCase: either may be null
  std::vector<CaseArm> arms;   // kCase
};

// An item of FROM: a table, a table function, a subquery, or two items joined. A list of several
// items (FROM a, b) is their cross joins, left to right.
struct TableRef {
  enum class Kind { kTable, kFunction, kSubquery, kJoin };
  enum class JoinType { kInner, kLeft, kRight, kFull, kCross };
  Kind kind = Kind::kTable;
  std::vector<std::string> names;  // kTable: [catalog.][schema.]table, as written
  std::string function;            // kFunction: the name, lower case
  bool function_has_args = false;  // kFunction
  // kFunction: the arguments, when every one is a constant (read_parquet('f.parquet')).
  std::vector<Const> function_args;
  std::vector<NamedConst> function_named_args;  // after the positional ones, in order
  int function_args_location = -1;          // of the first argument that is not a constant, or -1
  std::string alias;                        // AS name; "" when none
  std::vector<std::string> column_aliases;  // AS name(a, b): the columns renamed, in order
  int location = -1;

  std::shared_ptr<const Select> subquery;  // kSubquery
  // kJoin: left JOIN right ON on | USING (using_columns) | NATURAL.
  JoinType join_type = JoinType::kInner;
  std::shared_ptr<const TableRef> left, right;
  std::shared_ptr<const Expr> on;  // null: none
  std::vector<std::string> using_columns;
  bool natural = false;
};

// WITH name [(columns)] AS (select).
struct CommonTableExpr {
  std::string name;
  std::vector<std::string> columns;
  std::shared_ptr<const Select> select;
  int location = -1;
};

struct SelectItem {
  ExprPtr expr;  // null for `*`
  bool star = false;
  // The alias, or the name SQL derives (column, function), or "?column?"; for `r.*`, r.
  std::string name;
  int location = -1;
};

struct SortItem {
  ExprPtr expr;
  bool descending = false;
  bool nulls_first = false;
  bool using_op = false;  // ORDER BY x USING <
};

struct Select {
  std::vector<CommonTableExpr> with;  // in order: each sees those before it
  // set_left UNION | INTERSECT | EXCEPT [ALL] set_right (kNone: a plain SELECT); the whole's
  // ORDER BY, LIMIT and OFFSET below.
  enum class SetOp { kNone, kUnion, kIntersect, kExcept };
  SetOp set_op = SetOp::kNone;
  bool set_all = false;
  std::shared_ptr<const Select> set_left, set_right;
  int set_right_location = -1;
  // VALUES (row), (row), ...: each row's expressions (no FROM, no select list).
  std::vector<std::vector<ExprPtr>> values;
  int values_location = -1;
  bool distinct = false;
  std::optional<TableRef> from;  // none: no FROM
  std::vector<SelectItem> items;
  ExprPtr where;
  std::vector<ExprPtr> group_by;  // the distinct keys, in order of first mention
  // GROUP BY ROLLUP / CUBE / GROUPING SETS: each set's indexes into group_by (Postgres's meaning:
  // the clause's items combine as a cross product). Empty: one set of every key.
  std::vector<std::vector<size_t>> grouping_sets;
  ExprPtr having;
  ExprPtr qualify;  // QUALIFY: a filter after the window functions (null: none)
  std::vector<SortItem> order_by;
  bool with_ties = false;  // FETCH ... WITH TIES
  ExprPtr limit;           // null: none
  ExprPtr offset;
};

// `SET column = value` of an UPDATE.
struct Assignment {
  std::string column;
  ExprPtr value;  // null: DEFAULT
  int location = -1;
};

// DELETE FROM target [WHERE ...].
struct Delete {
  TableRef target;
  ExprPtr where;  // null: every row
};

// UPDATE target SET ... [WHERE ...].
struct Update {
  TableRef target;
  std::vector<Assignment> set;
  ExprPtr where;  // null: every row
};

// One WHEN clause of a MERGE INTO.
struct MergeClause {
  enum class Match { kMatched, kNotMatched, kNotMatchedBySource };
  enum class Action { kUpdate, kDelete, kInsert, kNothing };
  Match match = Match::kMatched;
  Action action = Action::kNothing;
  bool star = false;                 // UPDATE SET * / INSERT *
  ExprPtr condition;                 // AND ...; null: always
  std::vector<Assignment> set;       // kUpdate
  std::vector<std::string> columns;  // kInsert: the columns named; empty: all, in order
  std::vector<int> column_locations;
  std::vector<ExprPtr> values;  // kInsert; empty: DEFAULT VALUES (or `*`)
  int location = -1;            // of WHEN
};

// MERGE INTO target USING source ON ... WHEN ...: the source is a table, a subquery or a table
// function (read_parquet), as the SELECT that produces its rows.
struct Merge {
  TableRef target;
  Select source;
  std::string source_alias;  // the source's name in expressions ("" for an unnamed subquery)
  int source_location = -1;
  ExprPtr on;
  std::vector<MergeClause> clauses;
};

}  // namespace floe::sql::ast
