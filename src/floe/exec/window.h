// Window functions over a whole batch: each call's rows are ordered by PARTITION BY, then ORDER
// BY, and every row gets the call's value over its partition -- ranking (row_number, rank,
// dense_rank, percent_rank, cume_dist, ntile), offsets (lag, lead, first_value, last_value,
// nth_value) and the aggregates sum, count, avg, min and max over a frame: the whole partition, the
// rows up to this one (RANGE: with its peers), ROWS n PRECEDING / FOLLOWING, or RANGE n PRECEDING
// / FOLLOWING (the rows whose ORDER BY key is within n of the row's; a NULL key's frame is its
// peers). The values are
// appended to the batch as new columns, in the rows' own order.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/exec/hash_aggregate.h"
#include "floe/exec/sort.h"

namespace floe::exec {

// One end of a frame.
struct FrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kUnboundedPreceding;
  int64_t offset = 0;  // kPreceding, kFollowing of ROWS: rows
  // kPreceding, kFollowing of RANGE: the distance in the one ORDER BY key's values, in its type
  // (days for a date): the frame holds the rows whose key lies within it of the row's own.
  Value range_offset;
};

struct WindowCall {
  enum class Fn {
    kRowNumber,
    kRank,
    kDenseRank,
    kPercentRank,
    kCumeDist,
    kNtile,
    kLag,
    kLead,
    kFirstValue,
    kLastValue,
    kNthValue,
    kAggregate,  // `aggregate` over the frame
  };
  Fn fn = Fn::kRowNumber;
  AggFn aggregate = AggFn::kCountStar;  // kAggregate: kCountStar, kCount, kSum, kAvg, kMin, kMax
  std::vector<ExprPtr> args;            // over the batch (lag's value, offset and default, ...)
  std::vector<ExprPtr> partition;
  std::vector<SortKey> order;
  bool rows = false;  // ROWS (else RANGE, where a row's peers share its frame end)
  FrameBound start, end;
  DataType type;  // the result type
};

// The result type of `fn` (of `aggregate`) over arguments of these types, or an error.
Result<DataType> WindowType(WindowCall::Fn fn, AggFn aggregate, const std::vector<DataType>& args);

// Appends one column per call to `batch` (whose columns the calls' expressions read).
Status ComputeWindows(const std::vector<WindowCall>& calls, columnar::RecordBatch* batch);

}  // namespace floe::exec
