#include "floe/columnar/arrow_c_data.h"

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

TEST(ArrowCData, FormatStringsFollowTheSpecification) {
  EXPECT_EQ(ArrowFormat(Int64()).value(), "l");
  EXPECT_EQ(ArrowFormat(Bool()).value(), "b");
  EXPECT_EQ(ArrowFormat(Float32()).value(), "f");
  EXPECT_EQ(ArrowFormat(Decimal128(10, 2)).value(), "d:10,2");
  EXPECT_EQ(ArrowFormat(Date32()).value(), "tdD");
  EXPECT_EQ(ArrowFormat(Time64(TimeUnit::kMicro)).value(), "ttu");
  EXPECT_EQ(ArrowFormat(Timestamp(TimeUnit::kMicro, "UTC")).value(), "tsu:UTC");
  EXPECT_EQ(ArrowFormat(Timestamp(TimeUnit::kNano)).value(), "tsn:");
  EXPECT_EQ(ArrowFormat(String()).value(), "u");
  EXPECT_EQ(ArrowFormat(Binary()).value(), "z");
  EXPECT_EQ(ArrowFormat(FixedSizeBinary(16)).value(), "w:16");
  EXPECT_EQ(ArrowFormat(List(Field{"item", Int32()})).value(), "+l");
}

TEST(ArrowCData, ExportedBatchPointsAtTheColumnBuffersAndReleasesThem) {
  FixedWidthBuilder<int64_t> ids(Int64());
  BinaryBuilder names(String());
  for (int i = 0; i < 5; ++i) {
    ids.Append(i);
    if (i == 2) {
      names.AppendNull();
    } else {
      ASSERT_TRUE(names.Append("n" + std::to_string(i)).has_value());
    }
  }
  RecordBatch batch;
  batch.schema = std::make_shared<Schema>(
      Schema{{Field{"id", Int64(), false, 1}, Field{"name", String(), true, 2}}});
  batch.columns = {ids.Finish(), names.Finish()};
  batch.num_rows = 5;

  ArrowSchema schema;
  ArrowArray array;
  ASSERT_TRUE(ExportSchema(*batch.schema, &schema).has_value());
  ASSERT_TRUE(ExportBatch(batch, &array).has_value());

  EXPECT_STREQ(schema.format, "+s");
  ASSERT_EQ(schema.n_children, 2);
  EXPECT_STREQ(schema.children[0]->name, "id");
  EXPECT_EQ(schema.children[0]->flags, 0);
  EXPECT_STREQ(schema.children[1]->format, "u");
  EXPECT_EQ(schema.children[1]->flags, ARROW_FLAG_NULLABLE);

  EXPECT_EQ(array.length, 5);
  ASSERT_EQ(array.n_children, 2);
  ArrowArray* id = array.children[0];
  EXPECT_EQ(id->n_buffers, 2);
  EXPECT_EQ(id->buffers[0], nullptr);  // no nulls, no bitmap
  EXPECT_EQ(static_cast<const int64_t*>(id->buffers[1])[4], 4);
  ArrowArray* name = array.children[1];
  EXPECT_EQ(name->n_buffers, 3);
  EXPECT_EQ(name->null_count, 1);
  EXPECT_EQ(static_cast<const uint8_t*>(name->buffers[0])[0], 0b11011);
  EXPECT_EQ(static_cast<const int32_t*>(name->buffers[1])[5], 8);  // "n0n1n3n4"

  // A consumer may move a child out and release it separately, before the parent.
  ArrowArray moved = *array.children[1];
  array.children[1]->release = nullptr;
  moved.release(&moved);
  EXPECT_EQ(moved.release, nullptr);
  array.release(&array);
  schema.release(&schema);
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(schema.release, nullptr);
}

TEST(ArrowCData, InvalidColumnsAreNotExported) {
  auto c = std::make_shared<Column>();
  c->type = Int32();
  c->length = 4;
  c->values = Buffer::FromString("ab");  // needs 16 bytes
  ArrowArray array{};
  auto s = ExportColumn(c, &array);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().ToString(), "corrupt: int32 column of 4 rows: values too short");
  EXPECT_EQ(array.release, nullptr);
}

}  // namespace
}  // namespace floe::columnar
