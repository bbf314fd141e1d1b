#include "floe/parquet/footer.h"

#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "parquet/parquet_test_util.h"

namespace floe::parquet {
namespace {

using testing::BadDataFile;
using testing::CorpusDir;
using testing::DataFile;
using testing::ParquetFilesUnder;
using testing::ReadFileBytes;

Result<FooterTail> ParseWholeFile(const std::filesystem::path& path) {
  auto bytes = ReadFileBytes(path);
  return ParseFooter(path.string(), bytes.size(), bytes);
}

TEST(FooterTest, EveryCorpusFileParsesItsFooter) {
  auto files = ParquetFilesUnder(CorpusDir() / "data");
  ASSERT_GT(files.size(), 60u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    auto bytes = ReadFileBytes(path);
    auto footer = ParseFooter(path.string(), bytes.size(), bytes);
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    ASSERT_TRUE(footer->metadata.has_value());
    const FileMetaData& m = *footer->metadata;
    int64_t rows = 0;
    for (const auto& rg : m.row_groups) {
      rows += rg.num_rows;
      EXPECT_EQ(static_cast<int64_t>(rg.columns.size()), m.num_columns());
    }
    // repeated_no_annotation.parquet (parquet-rs 0.3) says num_rows = 0 over a 6-row row group;
    // readers go by the row groups.
    if (path.filename() != "repeated_no_annotation.parquet") {
      EXPECT_EQ(rows, m.num_rows);
    }
    EXPECT_EQ(footer->tail_length_needed, footer->metadata_length + 8u);
  }
}

TEST(FooterTest, KnownFilesHaveKnownShapes) {
  // Values confirmed with pyarrow 26.
  struct Known {
    const char* name;
    int64_t rows;
    int64_t columns;
    size_t row_groups;
  };
  const Known known[] = {
      {"alltypes_plain.parquet", 8, 11, 1},
      {"alltypes_tiny_pages.parquet", 7300, 13, 1},
      {"delta_binary_packed.parquet", 200, 66, 1},
      {"nested_structs.rust.parquet", 1, 216, 1},
      {"byte_stream_split_extended.gzip.parquet", 200, 14, 1},
      {"column_chunk_key_value_metadata.parquet", 0, 2, 1},
      {"floating_orders_nan_count.parquet", 50, 6, 5},
      {"geospatial/geospatial.parquet", 196, 3, 31},
      {"repeated_no_annotation.parquet", 0, 3, 1},
  };
  for (const auto& k : known) {
    SCOPED_TRACE(k.name);
    auto footer = ParseWholeFile(DataFile(k.name));
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    EXPECT_EQ(footer->metadata->num_rows, k.rows);
    EXPECT_EQ(footer->metadata->num_columns(), k.columns);
    EXPECT_EQ(footer->metadata->row_groups.size(), k.row_groups);
  }
}

TEST(FooterTest, AllTypesPlainDetails) {
  auto footer = ParseWholeFile(DataFile("alltypes_plain.parquet"));
  ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
  const FileMetaData& m = *footer->metadata;
  ASSERT_EQ(m.schema.size(), 12u);
  EXPECT_EQ(m.schema[0].name, "schema");
  EXPECT_EQ(m.schema[0].num_children, 11);
  EXPECT_EQ(m.schema[1].name, "id");
  EXPECT_EQ(m.schema[1].type, PhysicalType::kInt32);
  EXPECT_EQ(m.schema[1].repetition_type, FieldRepetitionType::kOptional);
  EXPECT_EQ(m.schema[11].name, "timestamp_col");
  EXPECT_EQ(m.schema[11].type, PhysicalType::kInt96);
  ASSERT_TRUE(m.created_by.has_value());
  EXPECT_EQ(m.created_by->rfind("impala version 1.3.0", 0), 0u);
  const ColumnMetaData& id = *m.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(id.path_in_schema, std::vector<std::string>{"id"});
  EXPECT_EQ(id.codec, CompressionCodec::kUncompressed);
  EXPECT_EQ(id.num_values, 8);
  EXPECT_EQ(id.total_compressed_size, 73);
  EXPECT_EQ(id.data_page_offset, 49);
  EXPECT_EQ(id.dictionary_page_offset, 4);
  EXPECT_EQ(id.chunk_start(), 4);
  const ColumnMetaData& b = *m.row_groups[0].columns[1].meta_data;
  EXPECT_EQ(b.type, PhysicalType::kBoolean);
  EXPECT_EQ(b.data_page_offset, 109);
  EXPECT_FALSE(b.dictionary_page_offset.has_value());
}

TEST(FooterTest, LogicalTypesStatisticsAndSortingColumns) {
  {
    auto footer = ParseWholeFile(DataFile("unknown-logical-type.parquet"));
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    const auto& s = footer->metadata->schema;
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[1].logical_type, LogicalType::Of(LogicalType::Kind::kString));
    ASSERT_TRUE(s[2].logical_type.has_value());
    EXPECT_EQ(s[2].logical_type->kind, LogicalType::Kind::kUnrecognized);
    const auto& stats = footer->metadata->row_groups[0].columns[0].meta_data->statistics;
    ASSERT_TRUE(stats.has_value());
    EXPECT_EQ(stats->min_value, "known string 1");
    EXPECT_EQ(stats->max_value, "known string 3");
    EXPECT_EQ(stats->null_count, 0);
  }
  {
    auto footer = ParseWholeFile(DataFile("float16_nonzeros_and_nans.parquet"));
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    const auto& x = footer->metadata->schema[1];
    EXPECT_EQ(x.type, PhysicalType::kFixedLenByteArray);
    EXPECT_EQ(x.type_length, 2);
    EXPECT_EQ(x.logical_type, LogicalType::Of(LogicalType::Kind::kFloat16));
    const auto& stats = footer->metadata->row_groups[0].columns[0].meta_data->statistics;
    EXPECT_EQ(stats->min_value, std::string("\x00\xc0", 2));
    EXPECT_EQ(stats->max_value, std::string("\x00@", 2));
    EXPECT_EQ(stats->null_count, 1);
  }
  {
    auto footer = ParseWholeFile(DataFile("fixed_length_decimal.parquet"));
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    const auto& v = footer->metadata->schema[1];
    EXPECT_EQ(v.type_length, 11);
    EXPECT_EQ(v.converted_type, ConvertedType::kDecimal);
    EXPECT_EQ(v.precision, 25);
    EXPECT_EQ(v.scale, 2);
  }
  {
    auto footer = ParseWholeFile(DataFile("sort_columns.parquet"));
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    const auto& sorting = footer->metadata->row_groups[0].sorting_columns;
    ASSERT_EQ(sorting.size(), 2u);
    EXPECT_EQ(sorting[0], (SortingColumn{0, true, true}));
    EXPECT_EQ(sorting[1], (SortingColumn{1, false, false}));
  }
  {
    auto footer = ParseWholeFile(DataFile("data_index_bloom_encoding_with_length.parquet"));
    ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
    const auto& chunk = footer->metadata->row_groups[0].columns[0];
    EXPECT_TRUE(chunk.column_index_offset.has_value());
    EXPECT_TRUE(chunk.offset_index_offset.has_value());
    EXPECT_TRUE(chunk.meta_data->bloom_filter_offset.has_value());
    EXPECT_TRUE(chunk.meta_data->bloom_filter_length.has_value());
    bool found = false;
    for (const auto& kv : footer->metadata->key_value_metadata) {
      if (kv.key == "writer.model.name") {
        found = true;
        EXPECT_EQ(kv.value, "avro");
      }
    }
    EXPECT_TRUE(found);
  }
}

TEST(FooterTest, ShortTailSaysHowMuchMoreIsNeeded) {
  auto bytes = ReadFileBytes(DataFile("alltypes_plain.parquet"));
  const uint64_t size = bytes.size();
  // Too short to see the length: ask for the 8-byte trailer.
  for (size_t n : {0, 1, 7}) {
    auto r = ParseFooter("t.parquet", size, ByteView(bytes).last(n));
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    EXPECT_FALSE(r->metadata.has_value());
    EXPECT_EQ(r->tail_length_needed, 8u);
  }
  auto r = ParseFooter("t.parquet", size, ByteView(bytes).last(8));
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->metadata.has_value());
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + size - 8, 4);
  EXPECT_EQ(r->metadata_length, length);
  EXPECT_EQ(r->tail_length_needed, length + 8u);
  EXPECT_EQ(r->metadata_offset, size - length - 8);
  // One byte short is still short; exactly enough parses.
  r = ParseFooter("t.parquet", size, ByteView(bytes).last(length + 7));
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->metadata.has_value());
  r = ParseFooter("t.parquet", size, ByteView(bytes).last(length + 8));
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_TRUE(r->metadata.has_value());
  EXPECT_EQ(r->metadata->num_rows, 8);
}

std::string ErrorOf(const Result<FooterTail>& r) {
  return r.has_value() ? std::string("(no error)") : r.error().ToString();
}

TEST(FooterTest, RejectsBadMagicAndLengthsNamingThePath) {
  auto good = ReadFileBytes(DataFile("alltypes_plain.parquet"));
  {
    auto bytes = good;
    bytes[bytes.size() - 1] = 'X';
    EXPECT_EQ(ErrorOf(ParseFooter("s3://b/x.parquet", bytes.size(), bytes)),
              "corrupt: parquet file 's3://b/x.parquet': ends in 'PARX' instead of the magic "
              "'PAR1'");
  }
  {
    auto bytes = good;
    bytes[0] = 0;
    EXPECT_EQ(ErrorOf(ParseFooter("x.parquet", bytes.size(), bytes)),
              "corrupt: parquet file 'x.parquet': starts with '\\x00AR1' instead of the magic "
              "'PAR1'");
    // The head is not visible in a shorter tail, so it is not checked.
    EXPECT_TRUE(
        ParseFooter("x.parquet", bytes.size(), ByteView(bytes).last(bytes.size() - 1)).has_value());
  }
  {
    auto bytes = good;
    std::memcpy(bytes.data() + bytes.size() - 4, "PARE", 4);
    EXPECT_EQ(ErrorOf(ParseFooter("e.parquet", bytes.size(), bytes)),
              "unsupported: encrypted parquet file 'e.parquet' (footer magic PARE); floe does not "
              "decrypt");
  }
  {
    auto bytes = good;
    uint32_t huge = static_cast<uint32_t>(bytes.size());
    std::memcpy(bytes.data() + bytes.size() - 8, &huge, 4);
    EXPECT_EQ(ErrorOf(ParseFooter("x.parquet", bytes.size(), bytes)),
              fmt::format("corrupt: parquet file 'x.parquet': footer length {} does not fit in "
                          "the {}-byte file",
                          huge, bytes.size()));
  }
  EXPECT_EQ(ErrorOf(ParseFooter("tiny.parquet", 11, ByteView(good).last(11))),
            "corrupt: parquet file 'tiny.parquet': 11 bytes is too short for a Parquet file (at "
            "least 12)");
  EXPECT_EQ(ErrorOf(ParseFooter("x.parquet", 100, ByteView(good).last(101))),
            "invalid input: parquet file 'x.parquet': the tail given (101 bytes) is longer than "
            "the file (100)");
  {
    // A footer that is not Thrift: the error names the file and what was being parsed.
    std::vector<uint8_t> bytes = {'P', 'A', 'R', '1', 0xff, 0xff, 0xff, 0xff,
                                  4,   0,   0,   0,   'P',  'A',  'R',  '1'};
    std::string e = ErrorOf(ParseFooter("junk.parquet", bytes.size(), bytes));
    EXPECT_EQ(e.rfind("corrupt: parquet file 'junk.parquet': FileMetaData ", 0), 0u) << e;
  }
}

TEST(FooterTest, ChunkOutsideTheFileIsCorrupt) {
  // Shrinking the file (keeping the footer) pushes the column chunks past the data region.
  auto bytes = ReadFileBytes(DataFile("alltypes_plain.parquet"));
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + bytes.size() - 8, 4);
  std::vector<uint8_t> shrunk = {'P', 'A', 'R', '1'};
  shrunk.insert(shrunk.end(), bytes.end() - length - 8, bytes.end());
  std::string e = ErrorOf(ParseFooter("cut.parquet", shrunk.size(), shrunk));
  EXPECT_EQ(e,
            "corrupt: parquet file 'cut.parquet': column 'id' of row group 0 claims bytes [4, "
            "+73) outside the data region [4, 4)");
}

// `m` as the footer of `data` (a file's bytes up to its footer).
std::vector<uint8_t> WithFooter(std::vector<uint8_t> data, const FileMetaData& m) {
  auto footer = SerializeFileMetaData(m);
  EXPECT_TRUE(footer.has_value());
  data.insert(data.end(), footer->begin(), footer->end());
  const uint32_t n = static_cast<uint32_t>(footer->size());
  for (int i = 0; i < 4; ++i) data.push_back(static_cast<uint8_t>(n >> (8 * i)));
  data.insert(data.end(), {'P', 'A', 'R', '1'});
  return data;
}

// What a flipped offset or count in the footer makes it say, each refused by name.
TEST(FooterTest, ChunksMustHoldTheirPagesAloneAndRowsMustAddUp) {
  auto bytes = ReadFileBytes(DataFile("alltypes_plain.parquet"));
  auto parsed = ParseWholeFile(DataFile("alltypes_plain.parquet"));
  ASSERT_TRUE(parsed.has_value());
  const FileMetaData good = *parsed->metadata;
  const std::vector<uint8_t> data(bytes.begin(),
                                  bytes.begin() + static_cast<int64_t>(parsed->metadata_offset));
  auto error = [&](const FileMetaData& m) {
    auto file = WithFooter(data, m);
    return ErrorOf(ParseFooter("f.parquet", file.size(), file));
  };
  EXPECT_EQ(error(good), "(no error)");
  FileMetaData m = good;
  // id's chunk is [4, +73), bool_col's [109, +24): id's dictionary offset moved into the magic.
  m.row_groups[0].columns[0].meta_data->dictionary_page_offset = 2;
  EXPECT_EQ(error(m),
            "corrupt: parquet file 'f.parquet': column 'id' of row group 0 claims bytes [2, +73) "
            "outside the data region [4, 1113)");
  m = good;
  m.row_groups[0].columns[0].meta_data->data_page_offset = 109;
  EXPECT_EQ(error(m),
            "corrupt: parquet file 'f.parquet': column 'id' of row group 0 has its first data page "
            "at 109, outside its bytes [4, +73)");
  m = good;
  m.row_groups[0].columns[0].meta_data->total_compressed_size = 110;
  EXPECT_EQ(error(m),
            "corrupt: parquet file 'f.parquet': column 'bool_col' of row group 0 [109, +24) "
            "overlaps column 'id' of row group 0 [4, +110)");
  m = good;
  m.num_rows = 9;
  EXPECT_EQ(error(m),
            "corrupt: parquet file 'f.parquet': the footer says 9 rows, its row groups hold 8");
  m.num_rows = 0;  // as some writers leave it
  EXPECT_EQ(error(m), "(no error)");
}

TEST(FooterTest, BadDataFilesParseOrFailCleanly) {
  for (const auto& path : ParquetFilesUnder(CorpusDir() / "bad_data")) {
    SCOPED_TRACE(path.string());
    auto r = ParseWholeFile(path);
    if (!r.has_value()) {
      EXPECT_NE(r.error().message.find(path.string()), std::string::npos) << r.error().ToString();
    }
  }
  auto r = ParseWholeFile(BadDataFile("PARQUET-1481.parquet"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find("invalid physical type"), std::string::npos)
      << r.error().ToString();
}

// Flipped bytes and truncations anywhere in real footers must give a value or an error, never a
// crash, a hang or a giant allocation (run under ASan/UBSan to make that meaningful).
TEST(FooterTest, MutatedFootersNeverCrash) {
  std::mt19937 rng(20240601);
  for (const char* name :
       {"alltypes_plain.parquet", "nested_structs.rust.parquet", "datapage_v2.snappy.parquet",
        "data_index_bloom_encoding_with_length.parquet", "geospatial/geospatial.parquet"}) {
    auto bytes = ReadFileBytes(DataFile(name));
    uint32_t length = 0;
    std::memcpy(&length, bytes.data() + bytes.size() - 8, 4);
    ByteView footer = ByteView(bytes).subspan(bytes.size() - 8 - length, length);
    for (size_t cut = 0; cut < footer.size(); cut += 1 + footer.size() / 300) {
      (void)ParseFileMetaData(footer.first(cut));
    }
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> mutated(footer.begin(), footer.end());
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        mutated[rng() % mutated.size()] = static_cast<uint8_t>(rng());
      }
      (void)ParseFileMetaData(mutated);
    }
  }
}

}  // namespace
}  // namespace floe::parquet
