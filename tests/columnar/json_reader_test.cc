#include "floe/columnar/json_reader.h"

#include <gtest/gtest.h>

#include "floe/columnar/value_format.h"

namespace floe::columnar {
namespace {

std::string Columns(const Schema& s) {
  std::string out;
  for (const auto& f : s.fields) {
    if (!out.empty()) out += "; ";
    out += f.name + " " + f.type.ToString();
  }
  return out;
}

Schema Infer(std::string_view text) {
  auto s = InferJsonSchema(text, "f.json");
  EXPECT_TRUE(s) << s.error().ToString();
  return s ? *s : Schema{};
}

TEST(JsonReader, InfersColumnsInFirstSeenOrder) {
  const std::string text =
      "{\"a\":1,\"b\":{\"c\":[1,2.5]},\"d\":\"2024-01-01\",\"e\":\"2024-01-01T10:00:00Z\"}\n"
      "{\"a\":2,\"x\":true,\"b\":null,\"d\":\"2024-02-01\",\"e\":\"2024-01-01 10:00:00+01:00\"}\n"
      "\n"
      "{\"a\":\"s\",\"b\":{\"c\":[]},\"f\":[1,\"x\"],\"g\":null}\n";
  EXPECT_EQ(Columns(Infer(text)),
            "a string; b struct<c: list<element: double>>; d date32; e timestamp[us, UTC]; "
            "x bool; f list<element: string>; g string");
}

TEST(JsonReader, KeysKeepTheirFileOrderNotSorted) {
  EXPECT_EQ(Columns(Infer("{\"z\":1,\"a\":{\"y\":1,\"b\":2}}\n{\"m\":true}\n")),
            "z int64; a struct<y: int64, b: int64>; m bool");
}

TEST(JsonReader, IntegersPastInt64AreDoubles) {
  const std::string text = "{\"u\":18446744073709551615,\"i\":-9223372036854775808}\n";
  Schema s = Infer(text);
  EXPECT_EQ(Columns(s), "u double; i int64");
  auto b = ReadJson(text, s, "u.json");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ((*b)[0].columns[0]->Value<double>(0), 18446744073709551615.0);
  EXPECT_EQ((*b)[0].columns[1]->Value<int64_t>(0), INT64_MIN);
}

TEST(JsonReader, ReadsInferredValuesNullsAndJsonTextOfConflicts) {
  const std::string text =
      "{\"a\":1,\"b\":{\"c\":[1,2.5]},\"t\":\"2024-01-03 00:00:00\"}\n"
      "{\"b\":null,\"a\":\"s\"}\r\n"
      "{\"a\":{\"k\":[1]},\"b\":{\"c\":[]},\"t\":null}";
  Schema s = Infer(text);
  EXPECT_EQ(Columns(s), "a string; b struct<c: list<element: double>>; t timestamp[us]");
  JsonReadOptions o;
  o.unknown_keys_are_errors = false;
  auto batches = ReadJson(text, s, "f.json", o);
  ASSERT_TRUE(batches) << batches.error().ToString();
  ASSERT_EQ(batches->size(), 1u);
  const RecordBatch& b = (*batches)[0];
  ASSERT_EQ(b.num_rows, 3);
  const Column& a = *b.columns[0];
  EXPECT_EQ(a.BytesAt(0), "1");
  EXPECT_EQ(a.BytesAt(1), "s");
  EXPECT_EQ(a.BytesAt(2), "{\"k\":[1]}");
  const Column& st = *b.columns[1];
  EXPECT_FALSE(st.IsNull(0));
  EXPECT_TRUE(st.IsNull(1));
  EXPECT_FALSE(st.IsNull(2));
  const Column& list = *st.children[0];
  EXPECT_EQ(list.Offsets()[0], 0);
  EXPECT_EQ(list.Offsets()[1], 2);
  EXPECT_EQ(list.Offsets()[3], 2);  // null struct, then []
  EXPECT_EQ(list.children[0]->Value<double>(0), 1.0);
  EXPECT_EQ(list.children[0]->Value<double>(1), 2.5);
  const Column& t = *b.columns[2];
  EXPECT_EQ(t.Value<int64_t>(0), 1704240000LL * 1000000);
  EXPECT_TRUE(t.IsNull(1));
  EXPECT_TRUE(t.IsNull(2));
}

TEST(JsonReader, TopLevelArrayOfObjects) {
  const std::string text = " [ {\"id\": 1, \"v\": 1.5}, {\"id\": 2} ] ";
  Schema s = Infer(text);
  EXPECT_EQ(Columns(s), "id int64; v double");
  auto batches = ReadJson(text, s, "a.json");
  ASSERT_TRUE(batches) << batches.error().ToString();
  EXPECT_EQ((*batches)[0].num_rows, 2);
  EXPECT_TRUE((*batches)[0].columns[1]->IsNull(1));
}

TEST(JsonReader, IntoATableByNameWithErrorsNamingLineAndColumn) {
  Schema t;
  t.fields = {{"id", Int64(), false},
              {"tags", List(Field{"element", String(), true}), true},
              {"p", Struct({{"x", Int32(), true}, {"y", Float64(), true}}), true}};
  auto b = ReadJson("{\"p\":{\"y\":2,\"x\":1},\"id\":7,\"tags\":[\"a\",null]}\n{\"id\":8}\n", t,
                    "t.json");
  ASSERT_TRUE(b) << b.error().ToString();
  const RecordBatch& r = (*b)[0];
  EXPECT_EQ(r.num_rows, 2);
  EXPECT_EQ(r.columns[0]->Value<int64_t>(1), 8);
  EXPECT_EQ(r.columns[2]->children[0]->Value<int32_t>(0), 1);
  EXPECT_EQ(r.columns[2]->children[1]->Value<double>(0), 2.0);
  EXPECT_TRUE(r.columns[1]->IsNull(1));
  EXPECT_TRUE(r.columns[1]->children[0]->IsNull(1));

  auto bad = ReadJson("{\"id\":1}\n{\"id\":\"x\"}\n", t, "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "t.json: line 2: 'x' is not a int64 value for column 'id'");
  bad = ReadJson("{\"id\":1,\"p\":{\"x\":1.5}}\n", t, "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "t.json: line 1: '1.5' is not a int32 value for column 'p.x'");
  bad = ReadJson("{\"tags\":[]}\n", t, "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "t.json: line 1: column 'id' is required but missing or null");
  bad = ReadJson("{\"id\":1,\"zz\":2}\n", t, "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "t.json: line 1: key 'zz' is not a column of the table");
  bad = ReadJson("{\"id\":1,\"tags\":\"a\"}\n", t, "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "t.json: line 1: \"a\" is not a list<element: string> value for column 'tags'");
}

TEST(JsonReader, MalformedLinesAreErrorsNamingTheLine) {
  auto s = InferJsonSchema("{\"a\":1}\n{\"a\":2,}\n", "m.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.substr(0, 63),
            "m.json: line 2: malformed JSON: parse error at line 1, column 8");
  s = InferJsonSchema("{\"a\":1}\n[1]\n", "m.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "m.json: line 2: a record is not a JSON object");
  s = InferJsonSchema(std::string(1000, '['), "deep.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "deep.json: JSON nested deeper than 100 levels");
  s = InferJsonSchema("\n\n", "e.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "e.json: holds no JSON records to infer columns from");
}

TEST(JsonReader, BatchesOfAFixedNumberOfRows) {
  std::string text;
  for (int i = 0; i < 5; ++i) text += "{\"i\":" + std::to_string(i) + "}\n";
  JsonReadOptions o;
  o.batch_rows = 2;
  auto b = ReadJson(text, Infer(text), "b.json", o);
  ASSERT_TRUE(b) << b.error().ToString();
  ASSERT_EQ(b->size(), 3u);
  EXPECT_EQ((*b)[2].num_rows, 1);
  EXPECT_EQ((*b)[2].columns[0]->Value<int64_t>(0), 4);
}

}  // namespace
}  // namespace floe::columnar
