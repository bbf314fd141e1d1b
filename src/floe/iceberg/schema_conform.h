// Schema conforming: a batch read from a data file (or given to a write) brought to a table
// schema -- columns matched by name or by the field ids the file carries (so renames and
// reordering are found), missing optional columns filled with nulls, and the promotions the
// Iceberg spec allows applied (int->long, float->double, decimal(P,S)->decimal(P',S), timestamp
// units, nested columns child by child). Used by the scan on every file and by the writer on its
// input. Pure functions, thread safe.
#pragma once

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// `batch` with the table schema's columns, names and field ids: columns matched by name (or, with
// `by_field_id`, by the field ids a data file carries, which is how renamed columns are found),
// missing optional columns filled with nulls, int->long, float->double and timestamp units widened.
// Input columns the schema lacks are an error by name and dropped by id (a dropped column).
Result<columnar::RecordBatch> ConformToSchema(const columnar::RecordBatch& batch,
                                              const Schema& schema, bool by_field_id = false);

}  // namespace floe::iceberg
