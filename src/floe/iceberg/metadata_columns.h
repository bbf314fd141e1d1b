// Metadata columns: the columns every Iceberg table has besides its schema's, with the field ids
// the spec reserves -- `_file` (the data file's path), `_pos` (the row's position in it),
// `_spec_id` and the row lineage columns of format v3 (`_row_id`, `_last_updated_sequence_number`,
// row_lineage.h). A scan produces them when its projection names them (scan_reader.h); SQL sees
// them as hidden columns (not in `SELECT *`), as Spark does. Row-level changes (DELETE, UPDATE,
// MERGE) find the rows they change by `_file` and `_pos`.
#pragma once

#include <cstdint>
#include <string_view>

#include <vector>

#include "floe/iceberg/schema.h"

namespace floe::iceberg {

inline constexpr int32_t kFilePathFieldId = 2147483646;     // _file
inline constexpr int32_t kRowPositionFieldId = 2147483645;  // _pos
inline constexpr int32_t kSpecIdFieldId = 2147483643;       // _spec_id
// Row lineage (v3): a file may hold these as columns; where it does not, a reader derives them.
inline constexpr int32_t kRowIdFieldId = 2147483540;                      // _row_id
inline constexpr int32_t kLastUpdatedSequenceNumberFieldId = 2147483539;  // _last_updated_...

// Whether `id` is one of the metadata columns above (the lineage ones included).
bool IsMetadataColumn(int32_t id);

// The metadata columns, as fields (required: every row has them; the lineage columns are optional,
// null for rows written before a table's upgrade to v3).
const std::vector<NestedField>& MetadataFields();

// `schema` with the metadata columns after its own fields, for projections that may name them
// (a field of the schema with a metadata column's name hides that column).
Schema WithMetadataColumns(const Schema& schema);

}  // namespace floe::iceberg
