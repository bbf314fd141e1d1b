#include "floe/columnar/take.h"

#include <cstring>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

ColumnPtr Int32s(std::vector<int32_t> v) {
  FixedWidthBuilder<int32_t> b(Int32());
  for (int32_t x : v) b.Append(x);
  return b.Finish();
}

// list<int32> of rows [1, 2], NULL, [], [3]: a child of 3 values, with one unused leading value
// (offsets start at 1), as a slice of a larger column would have.
ColumnPtr SampleList() {
  auto c = std::make_shared<Column>();
  c->type = List(Field{"element", Int32(), true});
  c->length = 4;
  c->null_count = 1;
  std::vector<uint8_t> validity = {0b1101};
  c->validity = Buffer(std::move(validity));
  std::vector<int32_t> offsets = {1, 3, 3, 3, 4};
  std::vector<uint8_t> bytes(offsets.size() * 4);
  std::memcpy(bytes.data(), offsets.data(), bytes.size());
  c->offsets = Buffer(std::move(bytes));
  c->children = {Int32s({99, 1, 2, 3})};
  return c;
}

std::string Render(const Column& c) {
  std::string out;
  const int32_t* o = reinterpret_cast<const int32_t*>(c.offsets.data());
  for (int64_t r = 0; r < c.length; ++r) {
    if (r) out += " ";
    if (c.IsNull(r)) {
      out += "NULL";
      continue;
    }
    out += "[";
    for (int32_t k = o[r]; k < o[r + 1]; ++k) {
      if (k > o[r]) out += ",";
      out += std::to_string(c.children[0]->Value<int32_t>(k));
    }
    out += "]";
  }
  return out;
}

TEST(Take, ListsAreTakenWithTheirElements) {
  ColumnPtr l = SampleList();
  ASSERT_EQ(Render(*l), "[1,2] NULL [] [3]");
  auto t = Take(*l, {3, 0, 1, 0});
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(Render(**t), "[3] [1,2] NULL [1,2]");
  EXPECT_EQ((*t)->null_count, 1);
  EXPECT_EQ((*t)->children[0]->length, 5);
}

TEST(Take, StructsTakeEveryChild) {
  auto s = std::make_shared<Column>();
  s->type = Struct({Field{"a", Int32(), true}, Field{"b", Int32(), true}});
  s->length = 3;
  s->children = {Int32s({1, 2, 3}), Int32s({10, 20, 30})};
  auto t = Take(*s, {2, 0});
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ((*t)->length, 2);
  EXPECT_EQ((*t)->children[0]->Value<int32_t>(0), 3);
  EXPECT_EQ((*t)->children[1]->Value<int32_t>(1), 10);
}

TEST(Concatenate, NestedColumnsJoinWithShiftedOffsets) {
  RecordBatch a, b;
  a.schema = b.schema =
      std::make_shared<Schema>(Schema{{Field{"l", List(Field{"element", Int32(), true}), true}}});
  a.columns = {SampleList()};
  a.num_rows = 4;
  b.columns = {Take(*SampleList(), {3, 0}).value()};
  b.num_rows = 2;
  auto c = Concatenate({a, b});
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(Render(*c->columns[0]), "[1,2] NULL [] [3] [3] [1,2]");
  EXPECT_EQ(c->columns[0]->null_count, 1);
  EXPECT_EQ(c->columns[0]->children[0]->length, 6);  // the unused leading value is dropped
}

}  // namespace
}  // namespace floe::columnar
