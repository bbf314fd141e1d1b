// The residual of a scan task -- the Iceberg filter left after partition and bound pruning -- as
// an exec expression, evaluated by exec's evaluator: the one evaluator of a row filter, so that
// the rows a pushed filter keeps are exactly those the same SQL condition keeps unpushed (NULL,
// NaN, decimals and time units by one set of rules). `ResidualMatcher` is what iceberg's scan
// reader is given (ScanHooks::evaluate_residual).
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/exec/expression.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/schema.h"

namespace floe::exec {

// `residual` (bound to `schema`) over a batch conformed to `schema`, its columns normalised
// (NormalizeColumn); true and false where SQL says so, NULL where the answer is unknown.
Result<ExprPtr> ResidualExpr(const iceberg::ExprPtr& residual, const iceberg::Schema& schema);

// The matcher of `residual` (bound to `schema`), converted once: one byte per row of a batch
// conformed to `schema`, 1 where `residual` holds (unknown: 0).
Result<iceberg::BatchMatcher> CompileResidual(const iceberg::ExprPtr& residual,
                                              const iceberg::Schema& schema);

// CompileResidual's matcher applied to one batch.
Result<std::vector<uint8_t>> MatchResidual(const columnar::RecordBatch& batch,
                                           const iceberg::ExprPtr& residual,
                                           const iceberg::Schema& schema);

// CompileResidual as the scan reader's evaluator.
iceberg::ResidualEvaluator ResidualMatcher();

}  // namespace floe::exec
