// Evaluating bound filters for pruning: exactly against one partition tuple, and conservatively
// ("might match") against a manifest's partition summaries or a data file's column metrics. A
// false from the conservative forms proves no row can match; a true promises nothing.
#pragma once

#include <vector>

#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// SQL semantics for one value: a comparison with NULL is false; IS NULL is true.
bool EvalPredicate(const Expr& predicate, const Literal& value);

// `partition_expr` from ProjectInclusive; `partition_type` the spec's partition struct.
bool MatchesPartition(const ExprPtr& partition_expr, const Type& partition_type,
                      const std::vector<Literal>& partition);
bool SummariesMightMatch(const ExprPtr& partition_expr, const Type& partition_type,
                         const std::vector<FieldSummary>& summaries);

// `bound` is bound to `schema`, NOT rewritten away or not.
bool MetricsMightMatch(const ExprPtr& bound, const Schema& schema, const DataFile& file);

// The same test on a view; `rewritten` is RewriteNot of a bound filter, done once by the caller
// for all the files it tests.
bool MetricsMightMatch(const ExprPtr& rewritten, const Schema& schema, const MetricsView& file);

}  // namespace floe::iceberg
