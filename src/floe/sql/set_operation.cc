#include "floe/sql/set_operation.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "floe/columnar/take.h"
#include "floe/exec/value.h"

namespace floe::sql {

namespace {

using columnar::RecordBatch;

// Each row's values as bytes: equal rows (NULLs equal) give equal keys.
Result<std::vector<std::string>> RowKeys(const RecordBatch& b) {
  std::vector<std::string> keys(static_cast<size_t>(b.num_rows));
  for (const auto& column : b.columns) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      std::string& key = keys[static_cast<size_t>(r)];
      if (column->IsNull(r)) {
        key.push_back('N');
        continue;
      }
      key.push_back('V');
      FLOE_ASSIGN_OR_RETURN(exec::Value v, exec::ValueAt(*column, r));
      exec::AppendKeyBytes(v, &key);
    }
  }
  return keys;
}

}  // namespace

Result<RecordBatch> RunSetOperation(const LogicalPlan& plan, RunContext& ctx, ScanMetrics* stats) {
  using SetOp = LogicalPlan::SetOp;
  FLOE_ASSIGN_OR_RETURN(RecordBatch left, MaterializePlan(*plan.set_left, ctx, stats));
  FLOE_ASSIGN_OR_RETURN(RecordBatch right, MaterializePlan(*plan.set_right, ctx, stats));
  right.schema = left.schema;
  if (plan.set_op == SetOp::kUnionAll) return columnar::Concatenate({left, right});
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> left_keys, RowKeys(left));
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> right_keys, RowKeys(right));
  std::unordered_map<std::string, int64_t> counts;
  for (auto& k : right_keys) ++counts[std::move(k)];
  std::unordered_set<std::string> seen;
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < left.num_rows; ++r) {
    const std::string& key = left_keys[static_cast<size_t>(r)];
    auto it = counts.find(key);
    const bool in_right = it != counts.end() && it->second > 0;
    bool take = false;
    switch (plan.set_op) {
      case SetOp::kIntersect:
        take = in_right && seen.insert(key).second;
        break;
      case SetOp::kExcept:
        take = it == counts.end() && seen.insert(key).second;
        break;
      case SetOp::kIntersectAll:
        // Each row as often as it is on both sides.
        take = in_right;
        if (take) --it->second;
        break;
      case SetOp::kExceptAll:
        // Each right row takes away one equal left row.
        take = !in_right;
        if (in_right) --it->second;
        break;
      case SetOp::kUnionAll:
        break;
    }
    if (take) keep.push_back(r);
  }
  return columnar::Take(left, keep);
}

}  // namespace floe::sql
