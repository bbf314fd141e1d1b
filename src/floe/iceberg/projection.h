// Inclusive projection: turns a row filter on source columns into a filter on partition values
// that every matching row's partition also satisfies, through each partition transform (spec,
// "Scan Planning"). Files whose partition fails the projection cannot hold a matching row.
#pragma once

#include "floe/iceberg/expression.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// `bound` must be bound to `schema`. The result's predicates name partition field ids (their
// `field_id`) and partition types; predicates that no partition field can express become TRUE.
ExprPtr ProjectInclusive(const ExprPtr& bound, const PartitionSpec& spec, const Schema& schema);

}  // namespace floe::iceberg
