#include "floe/parquet/file_metadata.h"

#include <gtest/gtest.h>

#include "floe/parquet/footer.h"
#include "floe/parquet/schema.h"
#include "parquet/parquet_test_util.h"

namespace floe::parquet {
namespace {

using testing::CorpusDir;
using testing::ParquetFilesUnder;
using testing::ReadFileBytes;

FileMetaData SampleMetaData() {
  FileMetaData m;
  m.version = 2;
  SchemaElement root;
  root.name = "root";
  root.num_children = 3;
  SchemaElement a;
  a.name = "a";
  a.type = PhysicalType::kInt64;
  a.repetition_type = FieldRepetitionType::kRequired;
  a.logical_type = LogicalType::Timestamp(true, LogicalType::TimeUnit::kNanos);
  a.field_id = 7;
  SchemaElement g;
  g.name = "g";
  g.num_children = 1;
  g.repetition_type = FieldRepetitionType::kOptional;
  g.logical_type = LogicalType::Of(LogicalType::Kind::kList);
  g.converted_type = ConvertedType::kList;
  SchemaElement d;
  d.name = "d";
  d.type = PhysicalType::kFixedLenByteArray;
  d.type_length = 16;
  d.repetition_type = FieldRepetitionType::kRepeated;
  d.logical_type = LogicalType::Decimal(38, 9);
  d.converted_type = ConvertedType::kDecimal;
  d.precision = 38;
  d.scale = 9;
  SchemaElement s;
  s.name = "s";
  s.type = PhysicalType::kByteArray;
  s.repetition_type = FieldRepetitionType::kOptional;
  s.logical_type = LogicalType::Of(LogicalType::Kind::kString);
  m.schema = {root, a, g, d, s};

  RowGroup rg;
  rg.num_rows = 1000;
  rg.total_byte_size = 123456;
  rg.file_offset = 4;
  rg.total_compressed_size = 6000;
  rg.ordinal = 0;
  rg.sorting_columns = {{0, false, true}};
  int64_t offset = 4;
  for (int c = 0; c < 3; ++c) {
    ColumnChunk chunk;
    ColumnMetaData meta;
    meta.type = c == 0   ? PhysicalType::kInt64
                : c == 1 ? PhysicalType::kFixedLenByteArray
                         : PhysicalType::kByteArray;
    meta.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    meta.path_in_schema =
        c == 1 ? std::vector<std::string>{"g", "d"} : std::vector<std::string>{c == 0 ? "a" : "s"};
    meta.codec = CompressionCodec::kZstd;
    meta.num_values = 1000;
    meta.total_uncompressed_size = 4000;
    meta.total_compressed_size = 2000;
    meta.dictionary_page_offset = offset;
    meta.data_page_offset = offset + 100;
    meta.key_value_metadata = {{"k", "v"}, {"only-key", std::nullopt}};
    Statistics st;
    st.min_value = std::string("\x01\x00\x00\x00\x00\x00\x00\x00", 8);
    st.max_value = "zz";
    st.null_count = 0;
    st.is_max_value_exact = false;
    st.nan_count = 3;
    meta.statistics = st;
    meta.encoding_stats = {{PageType::kDictionaryPage, Encoding::kPlain, 1},
                           {PageType::kDataPage, Encoding::kRleDictionary, 4}};
    meta.bloom_filter_offset = 10000 + c * 100;
    meta.bloom_filter_length = 64;
    SizeStatistics size;
    size.unencoded_byte_array_data_bytes = 77;
    size.definition_level_histogram = {1, 999};
    meta.size_statistics = size;
    chunk.meta_data = meta;
    chunk.file_offset = offset;
    chunk.column_index_offset = 20000 + c * 50;
    chunk.column_index_length = 50;
    chunk.offset_index_offset = 30000 + c * 50;
    chunk.offset_index_length = 40;
    rg.columns.push_back(chunk);
    offset += 2000;
  }
  m.row_groups = {rg};
  m.num_rows = 1000;
  m.key_value_metadata = {{"ARROW:schema", "xyz"}};
  m.created_by = "floe version 0.1.0";
  m.column_orders = {ColumnOrder::kTypeDefinedOrder, ColumnOrder::kIeee754TotalOrder,
                     ColumnOrder::kTypeDefinedOrder};
  return m;
}

TEST(FileMetaDataTest, RoundTripsEveryField) {
  FileMetaData m = SampleMetaData();
  auto bytes = SerializeFileMetaData(m);
  ASSERT_TRUE(bytes.has_value());
  auto parsed = ParseFileMetaData(*bytes);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, m);
  EXPECT_EQ(parsed->num_columns(), 3);
}

TEST(FileMetaDataTest, RoundTripsEveryLogicalType) {
  using K = LogicalType::Kind;
  using U = LogicalType::TimeUnit;
  std::vector<LogicalType> types = {LogicalType::Of(K::kString),
                                    LogicalType::Of(K::kMap),
                                    LogicalType::Of(K::kList),
                                    LogicalType::Of(K::kEnum),
                                    LogicalType::Decimal(9, 2),
                                    LogicalType::Of(K::kDate),
                                    LogicalType::Time(false, U::kMillis),
                                    LogicalType::Time(true, U::kMicros),
                                    LogicalType::Timestamp(false, U::kNanos),
                                    LogicalType::Integer(8, false),
                                    LogicalType::Integer(64, true),
                                    LogicalType::Of(K::kUnknown),
                                    LogicalType::Of(K::kJson),
                                    LogicalType::Of(K::kBson),
                                    LogicalType::Of(K::kUuid),
                                    LogicalType::Of(K::kFloat16),
                                    LogicalType::Of(K::kVariant),
                                    LogicalType::Of(K::kGeometry),
                                    LogicalType::Of(K::kGeography),
                                    LogicalType::Of(K::kUnrecognized)};
  types[16].specification_version = 1;
  types[17].crs = "OGC:CRS84";
  types[18].crs = "srid:4326";
  types[18].edge_interpolation_algorithm = 4;
  FileMetaData m;
  SchemaElement root;
  root.name = "root";
  root.num_children = static_cast<int32_t>(types.size());
  m.schema.push_back(root);
  for (size_t i = 0; i < types.size(); ++i) {
    SchemaElement e;
    e.name = fmt::format("c{}", i);
    e.type = PhysicalType::kByteArray;
    e.repetition_type = FieldRepetitionType::kOptional;
    e.logical_type = types[i];
    m.schema.push_back(e);
  }
  auto bytes = SerializeFileMetaData(m);
  ASSERT_TRUE(bytes.has_value());
  auto parsed = ParseFileMetaData(*bytes);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, m);
  EXPECT_EQ(types[4].ToString(), "DECIMAL(9,2)");
  EXPECT_EQ(types[8].ToString(), "TIMESTAMP(NANOS,local)");
  EXPECT_EQ(types[9].ToString(), "INTEGER(8,unsigned)");
}

// Parse -> serialise -> parse gives the same metadata for every footer of the corpus: the
// serialiser drops nothing the parser keeps.
TEST(FileMetaDataTest, CorpusFootersRoundTrip) {
  for (const auto& path : ParquetFilesUnder(CorpusDir() / "data")) {
    SCOPED_TRACE(path.string());
    auto bytes = ReadFileBytes(path);
    auto footer = ParseFooter(path.string(), bytes.size(), bytes);
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    auto again = SerializeFileMetaData(*footer->metadata);
    ASSERT_TRUE(again.has_value());
    auto parsed = ParseFileMetaData(*again);
    ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
    EXPECT_EQ(*parsed, *footer->metadata);
  }
}

// Compact-protocol bytes for "field <id> of type binary = <value>", written with the long-form
// field header (absolute zigzag id), which any reader must accept.
std::vector<uint8_t> UnknownBinaryField(int16_t id, std::string_view value) {
  std::vector<uint8_t> out = {0x08};  // delta 0, type BINARY
  uint32_t zz = (static_cast<uint32_t>(id) << 1) ^ static_cast<uint32_t>(id >> 15);
  do {
    uint8_t b = zz & 0x7f;
    zz >>= 7;
    out.push_back(zz ? (b | 0x80) : b);
  } while (zz);
  out.push_back(static_cast<uint8_t>(value.size()));
  out.insert(out.end(), value.begin(), value.end());
  return out;
}

TEST(FileMetaDataTest, UnknownFieldsAreSkipped) {
  FileMetaData m = SampleMetaData();
  auto bytes = *SerializeFileMetaData(m);
  ASSERT_EQ(bytes.back(), 0x00);  // the struct's stop byte
  // A newer writer's field 100 (binary), and a nested struct 101 holding fields 1 and 2000.
  auto extra = UnknownBinaryField(100, "from the future");
  std::vector<uint8_t> nested = {0x0c, 0xca, 0x01};  // delta 0, STRUCT, id 101
  auto inner1 = UnknownBinaryField(1, "x");
  auto inner2 = UnknownBinaryField(2000, "yz");
  nested.insert(nested.end(), inner1.begin(), inner1.end());
  nested.insert(nested.end(), inner2.begin(), inner2.end());
  nested.push_back(0x00);
  bytes.insert(bytes.end() - 1, extra.begin(), extra.end());
  bytes.insert(bytes.end() - 1, nested.begin(), nested.end());
  auto parsed = ParseFileMetaData(bytes);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(*parsed, m);
}

std::string ErrorOf(const Result<FileMetaData>& r) {
  return r.has_value() ? std::string("(no error)") : r.error().ToString();
}

TEST(FileMetaDataTest, MissingOrInconsistentFieldsAreNamed) {
  {
    FileMetaData m = SampleMetaData();
    m.schema.clear();
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: the schema is missing or empty");
  }
  {
    FileMetaData m = SampleMetaData();
    m.schema[0].num_children = 4;
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: schema ends inside group 'root', which has 1 more children");
  }
  {
    FileMetaData m = SampleMetaData();
    m.schema[0].num_children = 2;
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: schema lists 5 elements but its tree holds only the first 4");
  }
  {
    FileMetaData m = SampleMetaData();
    m.row_groups[0].columns.pop_back();
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: row group 0 has 2 column chunks but the schema has 3 "
              "columns");
  }
  {
    FileMetaData m = SampleMetaData();
    m.row_groups[0].columns[2].meta_data->type = PhysicalType::kInt32;
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: column 's' of row group 0 is BYTE_ARRAY in the schema but "
              "INT32 in its ColumnMetaData");
  }
  {
    FileMetaData m = SampleMetaData();
    m.row_groups[0].columns[1].meta_data.reset();
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: column 'd' of row group 0 (chunk 1) has no ColumnMetaData");
  }
  {
    FileMetaData m = SampleMetaData();
    m.schema[3].type_length.reset();
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: FIXED_LEN_BYTE_ARRAY column 'd' has no positive "
              "type_length");
  }
  {
    FileMetaData m = SampleMetaData();
    m.row_groups[0].columns[0].meta_data->num_values = -1;
    EXPECT_EQ(ErrorOf(ParseFileMetaData(*SerializeFileMetaData(m))),
              "corrupt: FileMetaData: column 'a' of row group 0 has no valid num_values");
  }
  {
    // Not Thrift at all: the Thrift error is carried, prefixed with what was being parsed.
    std::vector<uint8_t> junk = {0x19, 0xfc, 0xff, 0xff, 0xff, 0x0f};
    std::string e = ErrorOf(ParseFileMetaData(junk));
    EXPECT_EQ(e.rfind("corrupt: FileMetaData is not valid Thrift compact data (", 0), 0u) << e;
  }
  EXPECT_EQ(ErrorOf(ParseFileMetaData({})).rfind("corrupt: FileMetaData is not valid Thrift", 0),
            0u);
}

TEST(FileMetaDataTest, HugeListCountFailsWithoutAllocating) {
  // schema (field 2) as a list of structs claiming 2^31-1 elements, then nothing.
  std::vector<uint8_t> bytes = {0x29, 0xfc, 0xff, 0xff, 0xff, 0x07};
  std::string e = ErrorOf(ParseFileMetaData(bytes));
  EXPECT_EQ(e.rfind("corrupt: FileMetaData is not valid Thrift compact data (", 0), 0u) << e;
  // A string claiming 1 GiB.
  std::vector<uint8_t> str = {0x68, 0x80, 0x80, 0x80, 0x80, 0x04, 'x'};
  e = ErrorOf(ParseFileMetaData(str));
  EXPECT_EQ(e.rfind("corrupt: FileMetaData is not valid Thrift compact data (", 0), 0u) << e;
}

// A flipped repetition type: out of range, or gone (a field header flipped into another field).
TEST(FileMetaDataTest, RepetitionTypesMustBeKnownAndPresent) {
  FileMetaData m;
  m.schema.resize(2);
  m.schema[0].name = "schema";
  m.schema[0].num_children = 1;
  m.schema[1].name = "x";
  m.schema[1].type = PhysicalType::kInt32;
  m.schema[1].repetition_type = static_cast<FieldRepetitionType>(17);
  auto bytes = SerializeFileMetaData(m);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(ErrorOf(ParseFileMetaData(*bytes)),
            "corrupt: FileMetaData: schema element 'x' has invalid repetition type 17");
  m.schema[1].repetition_type.reset();
  auto schema = ParquetSchema::Make(m);
  ASSERT_FALSE(schema.has_value());
  EXPECT_EQ(schema.error().ToString(), "corrupt: schema element 'x' has no repetition type");
}

// Thrift quotes the type byte it does not know; 13 is a carriage return, and an error is one line.
TEST(FileMetaDataTest, UnknownTypeBytesAreQuotedPrintably) {
  const std::vector<uint8_t> bytes = {0x1d, 0x00};  // field 1 of compact type 13
  EXPECT_EQ(ErrorOf(ParseFileMetaData(bytes)),
            "corrupt: FileMetaData is not valid Thrift compact data (don't know what type: \\x0d)");
}

TEST(FileMetaDataTest, DeeplyNestedUnknownStructsHitTheDepthLimit) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 10000; ++i) bytes.push_back(0x1c);  // field +1, STRUCT, nested forever
  std::string e = ErrorOf(ParseFileMetaData(bytes));
  EXPECT_EQ(e.rfind("corrupt: FileMetaData is not valid Thrift compact data (", 0), 0u) << e;
}

}  // namespace
}  // namespace floe::parquet
