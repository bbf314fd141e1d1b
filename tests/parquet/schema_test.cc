#include "floe/parquet/schema.h"

#include <gtest/gtest.h>

#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

using R = FieldRepetitionType;

SchemaElement Leaf(std::string name, R rep, PhysicalType type,
                   std::optional<LogicalType> logical = std::nullopt,
                   std::optional<ConvertedType> converted = std::nullopt,
                   std::optional<int32_t> type_length = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.type = type;
  e.logical_type = logical;
  e.converted_type = converted;
  e.type_length = type_length;
  return e;
}

SchemaElement Group(std::string name, R rep, int children,
                    std::optional<ConvertedType> converted = std::nullopt,
                    std::optional<LogicalType> logical = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.num_children = children;
  e.converted_type = converted;
  e.logical_type = logical;
  return e;
}

// A file whose schema is a root holding `elements` (depth-first, counts given by the caller).
ParquetSchema Make(std::vector<SchemaElement> elements, int top_level) {
  FileMetaData md;
  SchemaElement root;
  root.name = "schema";
  root.num_children = top_level;
  md.schema.push_back(root);
  md.schema.insert(md.schema.end(), elements.begin(), elements.end());
  auto s = ParquetSchema::Make(md);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return std::move(*s);
}

std::string TypeOf(const SchemaElement& e) {
  auto s = Make({e}, 1);
  if (auto err = s.FieldError(0)) return err->ToString();
  return s.fields()[0].field.type.ToString();
}

// The LogicalTypes spec's annotations on each physical type, and the converted types of older
// writers, with floe's documented choices (time(ms) widened to time64[us], INT96 as ns).
TEST(SchemaTest, PrimitiveTypeMapping) {
  using K = LogicalType::Kind;
  using U = LogicalType::TimeUnit;
  const auto P = PhysicalType::kInt32;
  struct Case {
    SchemaElement element;
    std::string type;
  };
  std::vector<Case> cases = {
      {Leaf("a", R::kRequired, PhysicalType::kBoolean), "bool"},
      {Leaf("a", R::kRequired, P), "int32"},
      {Leaf("a", R::kRequired, P, LogicalType::Integer(8, true)), "int8"},
      {Leaf("a", R::kRequired, P, LogicalType::Integer(16, true)), "int16"},
      {Leaf("a", R::kRequired, P, LogicalType::Integer(8, false)), "uint8"},
      {Leaf("a", R::kRequired, P, LogicalType::Integer(16, false)), "uint16"},
      {Leaf("a", R::kRequired, P, LogicalType::Integer(32, false)), "uint32"},
      {Leaf("a", R::kRequired, P, std::nullopt, ConvertedType::kUint32), "uint32"},
      {Leaf("a", R::kRequired, P, std::nullopt, ConvertedType::kInt16), "int16"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Integer(64, false)), "uint64"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, std::nullopt, ConvertedType::kUint64),
       "uint64"},
      {Leaf("a", R::kRequired, P, LogicalType::Of(K::kDate)), "date32"},
      {Leaf("a", R::kRequired, P, std::nullopt, ConvertedType::kDate), "date32"},
      {Leaf("a", R::kRequired, P, LogicalType::Time(true, U::kMillis)), "time64[us]"},
      {Leaf("a", R::kRequired, P, std::nullopt, ConvertedType::kTimeMillis), "time64[us]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Time(false, U::kMicros)),
       "time64[us]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Time(false, U::kNanos)),
       "time64[ns]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Timestamp(true, U::kMillis)),
       "timestamp[ms, UTC]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Timestamp(false, U::kMicros)),
       "timestamp[us]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Timestamp(false, U::kNanos)),
       "timestamp[ns]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, std::nullopt, ConvertedType::kTimestampMicros),
       "timestamp[us, UTC]"},
      {Leaf("a", R::kRequired, PhysicalType::kInt96), "timestamp[ns]"},
      {Leaf("a", R::kRequired, PhysicalType::kFloat), "float"},
      {Leaf("a", R::kRequired, PhysicalType::kDouble), "double"},
      {Leaf("a", R::kRequired, P, LogicalType::Decimal(9, 2)), "decimal(9, 2)"},
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Decimal(18, 0)),
       "decimal(18, 0)"},
      {Leaf("a", R::kRequired, PhysicalType::kFixedLenByteArray, LogicalType::Decimal(38, 10),
            std::nullopt, 16),
       "decimal(38, 10)"},
      {Leaf("a", R::kRequired, PhysicalType::kFixedLenByteArray, LogicalType::Decimal(40, 2),
            std::nullopt, 17),
       "unsupported: decimal(40, 2) column 'a': floe reads precision 1..38 (decimal128)"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray), "binary"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray, LogicalType::Of(K::kString)), "string"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray, std::nullopt, ConvertedType::kUtf8),
       "string"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray, LogicalType::Of(K::kEnum)), "string"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray, LogicalType::Of(K::kJson)), "string"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray, LogicalType::Of(K::kBson)), "binary"},
      {Leaf("a", R::kRequired, PhysicalType::kFixedLenByteArray, std::nullopt, std::nullopt, 5),
       "fixed_size_binary[5]"},
      {Leaf("a", R::kRequired, PhysicalType::kFixedLenByteArray, LogicalType::Of(K::kUuid),
            std::nullopt, 16),
       "fixed_size_binary[16]"},
      {Leaf("a", R::kRequired, PhysicalType::kFixedLenByteArray, LogicalType::Of(K::kFloat16),
            std::nullopt, 2),
       "float16"},
      {Leaf("a", R::kRequired, PhysicalType::kFixedLenByteArray, std::nullopt,
            ConvertedType::kInterval, 12),
       "fixed_size_binary[12]"},
      // Unknown annotations, and annotations on the wrong physical type: the physical type.
      {Leaf("a", R::kRequired, PhysicalType::kInt64, LogicalType::Of(K::kUnrecognized)), "int64"},
      {Leaf("a", R::kRequired, P, LogicalType::Of(K::kString)), "int32"},
      {Leaf("a", R::kRequired, PhysicalType::kByteArray, LogicalType::Of(K::kDate)), "binary"},
      {Leaf("a", R::kOptional, P, LogicalType::Of(K::kUnknown)), "null"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    EXPECT_EQ(TypeOf(c.element), c.type);
  }
}

// The LogicalTypes spec's LIST examples, including its backward-compatibility rules.
TEST(SchemaTest, ListsAndTheirLegacyForms) {
  auto str = LogicalType::Of(LogicalType::Kind::kString);
  {
    // optional group my_list (LIST) { repeated group list { optional binary element (STRING); } }
    auto s = Make(
        {Group("my_list", R::kOptional, 1, ConvertedType::kList), Group("list", R::kRepeated, 1),
         Leaf("element", R::kOptional, PhysicalType::kByteArray, str)},
        1);
    const FieldNode& f = s.fields()[0];
    EXPECT_EQ(f.field.type.ToString(), "list<element: string>");
    EXPECT_TRUE(f.field.nullable);
    EXPECT_EQ(f.kind, FieldNode::Kind::kList);
    EXPECT_EQ(f.def_valid, 1);
    const FieldNode& e = f.children[0];
    EXPECT_EQ(e.path, "my_list.element");
    EXPECT_EQ(e.def_slot, 2);
    EXPECT_EQ(e.rep_slot, 1);
    EXPECT_EQ(e.def_valid, 3);
    EXPECT_EQ(s.leaves()[0].max_def, 3);
    EXPECT_EQ(s.leaves()[0].max_rep, 1);
    EXPECT_EQ(s.leaves()[0].path, "my_list.list.element");
    EXPECT_EQ(s.leaves()[0].field_path, "my_list.element");
  }
  {
    // A repeated primitive is the element (required).
    auto s = Make({Group("my_list", R::kOptional, 1, ConvertedType::kList),
                   Leaf("element", R::kRepeated, PhysicalType::kInt32)},
                  1);
    EXPECT_EQ(s.fields()[0].field.type.ToString(), "list<element: int32>");
    EXPECT_FALSE(s.fields()[0].children[0].field.nullable);
  }
  {
    // A repeated group of two fields is the element.
    auto s = Make(
        {Group("my_list", R::kOptional, 1, ConvertedType::kList), Group("element", R::kRepeated, 2),
         Leaf("str", R::kRequired, PhysicalType::kByteArray, str),
         Leaf("num", R::kRequired, PhysicalType::kInt32)},
        1);
    EXPECT_EQ(s.fields()[0].field.type.ToString(),
              "list<element: struct<str: string, num: int32>>");
  }
  for (const char* name : {"array", "my_list_tuple"}) {
    // A one-field group named "array" or "<list>_tuple" is the element.
    auto s =
        Make({Group("my_list", R::kOptional, 1, ConvertedType::kList), Group(name, R::kRepeated, 1),
              Leaf("str", R::kRequired, PhysicalType::kByteArray, str)},
             1);
    EXPECT_EQ(s.fields()[0].field.type.ToString(),
              std::string("list<") + name + ": struct<str: string>>");
  }
  {
    // Otherwise the one field inside the repeated group is the element.
    auto s = Make(
        {Group("my_list", R::kOptional, 1, ConvertedType::kList), Group("bag", R::kRepeated, 1),
         Leaf("str", R::kRequired, PhysicalType::kByteArray, str)},
        1);
    EXPECT_EQ(s.fields()[0].field.type.ToString(), "list<str: string>");
  }
  {
    // A repeated field without LIST: a required list of required elements.
    auto s = Make({Leaf("num", R::kRepeated, PhysicalType::kInt32)}, 1);
    const FieldNode& f = s.fields()[0];
    EXPECT_EQ(f.field.type.ToString(), "list<num: int32>");
    EXPECT_FALSE(f.field.nullable);
    EXPECT_EQ(f.def_valid, 0);
    EXPECT_EQ(f.children[0].def_slot, 1);
    EXPECT_EQ(f.children[0].rep_slot, 1);
  }
  {
    // A LIST group must hold exactly one repeated field.
    auto s = Make({Group("bad", R::kOptional, 2, ConvertedType::kList),
                   Leaf("a", R::kRepeated, PhysicalType::kInt32),
                   Leaf("b", R::kRepeated, PhysicalType::kInt32),
                   Leaf("ok", R::kRequired, PhysicalType::kInt32)},
                  2);
    ASSERT_TRUE(s.FieldError(0).has_value());
    EXPECT_EQ(s.FieldError(0)->ToString(),
              "corrupt: LIST group 'bad' must hold exactly one repeated field");
    EXPECT_FALSE(s.FieldError(1).has_value());
    EXPECT_EQ(s.fields()[1].field.type.ToString(), "int32");
  }
}

TEST(SchemaTest, MapsStructsAndFieldIds) {
  auto str = LogicalType::Of(LogicalType::Kind::kString);
  {
    auto s =
        Make({Group("m", R::kOptional, 1, ConvertedType::kMap), Group("key_value", R::kRepeated, 2),
              Leaf("key", R::kRequired, PhysicalType::kByteArray, str),
              Leaf("value", R::kOptional, PhysicalType::kInt32)},
             1);
    const FieldNode& f = s.fields()[0];
    EXPECT_EQ(f.kind, FieldNode::Kind::kMap);
    EXPECT_EQ(f.field.type.ToString(), "map<string, int32>");
    EXPECT_EQ(f.children[0].path, "m.key_value");
    EXPECT_EQ(s.leaves()[1].max_def, 3);
  }
  {
    // The legacy MAP_KEY_VALUE annotation on the outer group.
    auto s = Make(
        {Group("m", R::kRequired, 1, ConvertedType::kMapKeyValue), Group("map", R::kRepeated, 2),
         Leaf("key", R::kRequired, PhysicalType::kByteArray, std::nullopt, ConvertedType::kUtf8),
         Leaf("value", R::kRequired, PhysicalType::kInt64)},
        1);
    EXPECT_EQ(s.fields()[0].field.type.ToString(), "map<string, int64>");
  }
  {
    auto id = [](SchemaElement e, int32_t v) {
      e.field_id = v;
      return e;
    };
    auto s = Make(
        {id(Group("s", R::kOptional, 2), 1), id(Leaf("x", R::kRequired, PhysicalType::kInt32), 2),
         id(Leaf("y", R::kOptional, PhysicalType::kDouble), 3)},
        1);
    const FieldNode& f = s.fields()[0];
    EXPECT_EQ(f.field.type.ToString(), "struct<x: int32, y: double>");
    EXPECT_EQ(f.field.field_id, 1);
    EXPECT_EQ(f.field.type.children[1].field_id, 3);
    EXPECT_EQ(s.arrow_schema().fields[0].field_id, 1);
    ASSERT_NE(s.FindFieldId(3), nullptr);
    EXPECT_EQ(s.FindFieldId(3)->path, "s.y");
    ASSERT_NE(s.FindPath("s.x"), nullptr);
    EXPECT_EQ(s.FindPath("s.x")->leaf, 0);
    EXPECT_EQ(s.FindPath("s.z"), nullptr);
    EXPECT_EQ(s.FindFieldId(9), nullptr);
    // x is required in an optional struct: valid whenever the struct is.
    EXPECT_EQ(f.children[0].def_valid, 1);
    EXPECT_EQ(f.children[1].def_valid, 2);
  }
}

// Types of corpus files as pyarrow maps them (floe's documented differences aside).
TEST(SchemaTest, CorpusFiles) {
  auto types = [](const char* name) {
    auto f = testing::LoadFile(testing::DataFile(name));
    std::string s;
    for (const auto& field : f.reader->arrow_schema().fields) {
      s += field.name + ": " + field.type.ToString() + "; ";
    }
    return s;
  };
  EXPECT_EQ(types("old_list_structure.parquet"), "a: list<array: list<array: int32>>; ");
  EXPECT_EQ(types("map_no_value.parquet"),
            "my_map: map<int32, int32>; my_map_no_v: list<key: int32>; my_list: list<element: "
            "int32>; ");
  EXPECT_EQ(types("repeated_primitive_no_list.parquet"),
            "Int32_list: list<Int32_list: int32>; String_list: list<String_list: string>; "
            "group_of_lists: struct<Int32_list_in_group: list<Int32_list_in_group: int32>, "
            "String_list_in_group: list<String_list_in_group: string>>; ");
  EXPECT_EQ(types("null_list.parquet"), "emptylist: list<item: null>; ");
  EXPECT_EQ(types("incorrect_map_schema.parquet"), "my_map: map<string, string>; ");
  EXPECT_EQ(types("fixed_length_decimal_legacy.parquet"), "value: decimal(13, 2); ");
}

}  // namespace
}  // namespace floe::parquet
