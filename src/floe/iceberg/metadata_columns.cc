#include "floe/iceberg/metadata_columns.h"

#include <algorithm>

namespace floe::iceberg {

const std::vector<NestedField>& MetadataFields() {
  static const std::vector<NestedField> kFields = {
      {kFilePathFieldId, "_file", true, Primitive(TypeId::kString)},
      {kRowPositionFieldId, "_pos", true, Primitive(TypeId::kLong)},
      {kSpecIdFieldId, "_spec_id", true, Primitive(TypeId::kInt)},
      {kRowIdFieldId, "_row_id", false, Primitive(TypeId::kLong)},
      {kLastUpdatedSequenceNumberFieldId, "_last_updated_sequence_number", false,
       Primitive(TypeId::kLong)},
  };
  return kFields;
}

bool IsMetadataColumn(int32_t id) {
  const auto& fields = MetadataFields();
  return std::any_of(fields.begin(), fields.end(),
                     [id](const NestedField& f) { return f.id == id; });
}

Schema WithMetadataColumns(const Schema& schema) {
  std::vector<NestedField> fields = schema.fields();
  for (const NestedField& m : MetadataFields()) {
    const bool shadowed = std::any_of(fields.begin(), fields.end(), [&](const NestedField& f) {
      return f.id == m.id || f.name == m.name;
    });
    if (!shadowed) fields.push_back(m);
  }
  return Schema(schema.schema_id(), std::move(fields));
}

}  // namespace floe::iceberg
