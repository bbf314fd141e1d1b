// Row lineage (format v3, spec "Row Lineage"): every row's `_row_id` and
// `_last_updated_sequence_number`. A file may hold them as columns (a rewrite wrote them); where it
// holds none, or a null, a reader takes the file's first_row_id plus the row's position and the
// file's data sequence number -- and null for both when the file has no first_row_id (it predates
// the table's upgrade to v3). The scan derives them so whenever its projection names them
// (scan_reader.h, metadata_columns.h). A rewrite moves rows with their lineage: it reads them with
// the schema below and writes the two columns into the new files, so Spark reads the same
// `_row_id` before and after.
#pragma once

#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// `schema` with the two lineage columns after its own (optional longs, as Spark writes them).
Schema WithRowLineage(const Schema& schema);

}  // namespace floe::iceberg
