#include "floe/parquet/statistics.h"

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet::internal {

Statistics FromThrift(const format::Statistics& in) {
  Statistics out;
  if (in.__isset.max) out.max = in.max;
  if (in.__isset.min) out.min = in.min;
  if (in.__isset.null_count) out.null_count = in.null_count;
  if (in.__isset.distinct_count) out.distinct_count = in.distinct_count;
  if (in.__isset.max_value) out.max_value = in.max_value;
  if (in.__isset.min_value) out.min_value = in.min_value;
  if (in.__isset.is_max_value_exact) out.is_max_value_exact = in.is_max_value_exact;
  if (in.__isset.is_min_value_exact) out.is_min_value_exact = in.is_min_value_exact;
  if (in.__isset.nan_count) out.nan_count = in.nan_count;
  return out;
}

format::Statistics ToThrift(const Statistics& in) {
  format::Statistics out;
  if (in.max) out.__set_max(*in.max);
  if (in.min) out.__set_min(*in.min);
  if (in.null_count) out.__set_null_count(*in.null_count);
  if (in.distinct_count) out.__set_distinct_count(*in.distinct_count);
  if (in.max_value) out.__set_max_value(*in.max_value);
  if (in.min_value) out.__set_min_value(*in.min_value);
  if (in.is_max_value_exact) out.__set_is_max_value_exact(*in.is_max_value_exact);
  if (in.is_min_value_exact) out.__set_is_min_value_exact(*in.is_min_value_exact);
  if (in.nan_count) out.__set_nan_count(*in.nan_count);
  return out;
}

}  // namespace floe::parquet::internal
