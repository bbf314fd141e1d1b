// ConformToSchema over nested columns: a required field's nulls count only where a reader sees
// them, so a required child of a NULL struct (read as NULL there) conforms, and a NULL under a
// valid struct is refused by the child's name.
#include "floe/iceberg/schema_conform.h"

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

// p: struct<n: int64 not null>, rows NULL (its n NULL too), {1}, and {n} as given.
c::RecordBatch StructBatch(std::optional<int64_t> third) {
  c::Field n{"n", c::Int64(), false, -1};
  c::Field p{"p", c::Struct({n}), true, -1};
  c::FixedWidthBuilder<int64_t> nb(c::Int64());
  nb.AppendNull();
  nb.Append(1);
  third ? nb.Append(*third) : nb.AppendNull();
  c::ValidityBuilder v;
  v.AppendNull();
  v.AppendValid(2);
  auto col = std::make_shared<c::Column>();
  col->type = p.type;
  col->length = 3;
  col->null_count = 1;
  col->validity = v.Finish();
  col->children = {nb.Finish()};
  c::RecordBatch b;
  auto schema = std::make_shared<c::Schema>();
  schema->fields = {p};
  b.schema = schema;
  b.num_rows = 3;
  b.columns = {col};
  return b;
}

TEST(SchemaConform, RequiredChildOfANullStructConforms) {
  const c::RecordBatch b = StructBatch(2);
  int32_t next_id = 1;
  auto schema = FromColumnarSchema(*b.schema, &next_id);
  ASSERT_TRUE(schema.has_value()) << schema.error().ToString();
  auto out = ConformToSchema(b, *schema, /*by_field_id=*/false);
  ASSERT_TRUE(out.has_value()) << out.error().ToString();
  EXPECT_EQ(out->columns[0]->null_count, 1);
}

TEST(SchemaConform, NullUnderAValidStructIsRefused) {
  const c::RecordBatch b = StructBatch(std::nullopt);
  int32_t next_id = 1;
  auto schema = FromColumnarSchema(*b.schema, &next_id);
  ASSERT_TRUE(schema.has_value()) << schema.error().ToString();
  auto out = ConformToSchema(b, *schema, /*by_field_id=*/false);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().ToString(),
            "invalid input: column 'p.n' is required but the input has 1 nulls");
}

}  // namespace
}  // namespace floe::iceberg
