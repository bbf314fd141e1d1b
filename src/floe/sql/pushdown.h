// Filter pushdown: a bound WHERE predicate (exec expressions over the scan's columns) split into
// the Iceberg filter that scan planning and the reader's row filter use, and the residual the
// engine still applies. Pure function of its inputs; called by the binder.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "floe/exec/expression.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/schema.h"

namespace floe::sql {

// A bound predicate (over scan columns `field_ids` of `schema`) split for the scan.
struct PushedFilter {
  // What Iceberg pruning and the scan's row filter evaluate: every matching row satisfies it (it
  // may let more rows through). Null: nothing pushable.
  iceberg::ExprPtr filter;
  // The conjuncts the scan's row filter does not decide exactly as SQL would, still to be applied
  // to the scanned rows. Null: the scan's rows are exactly the predicate's.
  exec::ExprPtr residual;
};
// `v` (a value of `type`) as a literal of an Iceberg column of type `col`; nullopt when it has no
// such literal (NULL, NaN, a decimal of another scale, a type pushdown does not handle).
std::optional<iceberg::Literal> ToIcebergLiteral(const exec::Value& v,
                                                 const columnar::DataType& type,
                                                 const iceberg::Type& col);

PushedFilter PushableFilter(const exec::ExprPtr& predicate, const iceberg::Schema& schema,
                            const std::vector<int32_t>& field_ids);

}  // namespace floe::sql
