// LogicalPlan: a bound SELECT in the one shape floe runs -- source (table scan with pushed
// filter and projection, a metadata table, FROM's joins and subqueries (a JoinNode tree whose
// relations are plans themselves), or no table) -> WHERE -> [hash aggregate -> HAVING]
// -> projection (+ hidden ORDER BY keys) -> ORDER BY / top-N -> OFFSET/LIMIT. Expressions refer to
// columns by index into the batch of the stage before them. Plain data, made by the binder.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/exec/hash_aggregate.h"
#include "floe/exec/sort.h"
#include "floe/exec/window.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/table.h"

namespace floe::sql {

struct JoinNode;

struct LogicalPlan {
  // kJoin: the rows of FROM's relations joined (or of one subquery or CTE), in `join`.
  // kSetOperation: two plans' rows combined (set_operation.h).
  enum class Source { kNone, kTable, kMetadataTable, kJoin, kSetOperation };
  Source source = Source::kNone;
  iceberg::Table table;                 // kTable, kMetadataTable
  columnar::RecordBatch metadata_rows;  // kMetadataTable: the rows (columns normalised)
  std::optional<int64_t> snapshot_id;   // time travel
  std::optional<int64_t> as_of_timestamp_ms;
  std::optional<double> sample_fraction;  // TABLESAMPLE (iceberg::ScanOptions::sample_fraction)

  std::vector<int32_t> scan_field_ids;  // kTable: the columns read, in scan-output order
  iceberg::ExprPtr pushed_filter;       // kTable: conjuncts pruning can use (unbound)
  // kTable: prunes data files only, the rows of those kept are not filtered by it (a MERGE's
  // source key ranges, when copy-on-write rewrites the files it reads from their rows).
  iceberg::ExprPtr files_filter;
  // kTable: of scan_field_ids, those nothing reads after the scan's filter (filter-only columns
  // of a WHERE the scan decides whole): the scan hands them out as NULLs.
  std::vector<int32_t> scan_unused_ids;

  // kJoin: the tree of relations and joins; its rows have one column per slot (a column of a
  // relation that the statement reads), typed by slot_types.
  std::shared_ptr<const JoinNode> join;
  std::vector<columnar::DataType> slot_types;

  // kSetOperation: UNION (ALL; a plain UNION is this and DISTINCT), INTERSECT [ALL] or EXCEPT
  // [ALL] of two plans whose outputs have the same types.
  enum class SetOp { kUnionAll, kIntersect, kIntersectAll, kExcept, kExceptAll };
  SetOp set_op = SetOp::kUnionAll;
  std::shared_ptr<const LogicalPlan> set_left, set_right;

  exec::ExprPtr where;  // over the source batch; null: none
  // The part of `where` still to apply to the source batch: conjuncts the scan's row filter
  // decides exactly (PushableFilter) are left out. Null: none.
  exec::ExprPtr residual_where;

  bool aggregate = false;
  std::vector<exec::ExprPtr> group_keys;  // over the source batch
  // GROUPING SETS / ROLLUP / CUBE: each set's indexes into group_keys, aggregated apart and
  // stacked, the keys a set leaves out NULL. Empty: one set of every key.
  std::vector<std::vector<int>> grouping_sets;
  std::vector<exec::Aggregate> aggregates;  // over the source batch
  exec::ExprPtr having;                     // over the aggregate output (keys, then aggregates)

  // Window functions, computed over all the rows that reach the projection (the aggregate output or
  // the source batch, cut to its first window_input_width columns); each appends a column there.
  std::vector<exec::WindowCall> windows;
  int window_input_width = 0;
  // QUALIFY: which of those rows are kept, over the same columns as `outputs` (null: all).
  exec::ExprPtr qualify;

  std::vector<exec::ExprPtr> outputs;  // over the aggregate output or the source batch
  std::vector<std::string> names;
  std::vector<exec::ExprPtr> hidden;  // extra ORDER BY expressions, after the outputs
  std::vector<exec::SortKey> order;   // over outputs + hidden
  int64_t limit = -1;
  int64_t offset = 0;
};

// FROM's relations and joins as bound: every expression is over the slots of the whole FROM (a
// slot is one column of one relation), so joins can be reordered without rewriting them. Which
// side builds a hash table, the join order of inner joins and the keys are chosen when the plan
// runs (join_runner.h), from the relations' estimated sizes.
struct JoinNode {
  // kInner with no condition is a cross join. A RIGHT join is bound as kLeft with its sides
  // swapped. kSemi and kAnti keep the left side's rows that have (have no) match on the right:
  // EXISTS and IN subqueries, and their NOT. kMark keeps every left row and fills the right
  // side's `mark_slot` with whether it has a match: EXISTS and IN inside an expression (an OR,
  // a CASE, the select list).
  enum class Kind { kRelation, kInner, kLeft, kFull, kSemi, kAnti, kMark };
  Kind kind = Kind::kRelation;
  std::string name;  // kRelation: as the statement names it (for messages)

  // kRelation: the plan producing the relation's rows (a table scan with its pushed filter, a
  // subquery, a CTE, a table function), and the slot each of its outputs fills (-1: none).
  std::shared_ptr<const LogicalPlan> plan;
  std::vector<int> slots;
  // kRelation: a CTE's plan, computed once however often it is named (plan is then this one).
  bool shared = false;
  // kRelation: a scalar subquery's, which must give at most one row.
  bool single_row = false;
  // kRelation: a correlated scalar subquery's, grouped by the inner side of its correlation
  // equalities, the right side of a LEFT join on them: only the groups whose keys the left
  // side's rows hold are needed (join_runner computes just those when the left side is smaller).
  bool keyed_by_outer = false;
  // kAnti of NOT IN: a NULL among the right side's keys leaves no row, and a left row whose key
  // is NULL stays only when the right side is empty. kMark of IN: the last key is the IN's
  // value, and an unmatched row's mark is NULL, not false, when its value is NULL or a right row
  // with its other keys has a NULL value (its set is not empty).
  bool null_aware = false;
  // kMark: the slot of the boolean it fills (true: a match).
  int mark_slot = -1;

  std::shared_ptr<const JoinNode> left, right;
  // The ON conjuncts (for inner joins also the WHERE conjuncts placed here), over slots.
  std::vector<exec::ExprPtr> condition;
  // Conjuncts of WHERE that apply to this node's rows (kLeft, kFull, and relations that are not
  // table scans), over slots.
  std::vector<exec::ExprPtr> filter;
};

}  // namespace floe::sql
