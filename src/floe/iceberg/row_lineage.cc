#include "floe/iceberg/row_lineage.h"

namespace floe::iceberg {

Schema WithRowLineage(const Schema& schema) {
  std::vector<NestedField> fields = schema.fields();
  fields.push_back({kRowIdFieldId, "_row_id", false, Primitive(TypeId::kLong)});
  fields.push_back({kLastUpdatedSequenceNumberFieldId, "_last_updated_sequence_number", false,
                    Primitive(TypeId::kLong)});
  return Schema(schema.schema_id(), std::move(fields));
}

}  // namespace floe::iceberg
