#include "floe/parquet/column_reader.h"

#include <cstring>
#include <map>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "floe/parquet/footer.h"
#include "parquet/parquet_test_util.h"

namespace floe::parquet {
namespace {

using testing::BadDataFile;
using testing::CorpusDir;
using testing::DataFile;
using testing::ParquetFilesUnder;
using testing::ReadFileBytes;

struct Leaf {
  size_t schema_index;
  int16_t max_def = 0;
  int16_t max_rep = 0;
};

// Walks the schema tree for each leaf's maximum definition and repetition levels.
std::vector<Leaf> Leaves(const std::vector<SchemaElement>& schema) {
  std::vector<Leaf> leaves;
  struct Open {
    int64_t left;
    int16_t def, rep;
  };
  std::vector<Open> stack = {{schema[0].num_children.value_or(0), 0, 0}};
  for (size_t i = 1; i < schema.size() && !stack.empty(); ++i) {
    Open parent = stack.back();
    --stack.back().left;
    const SchemaElement& e = schema[i];
    int16_t def = parent.def, rep = parent.rep;
    if (e.repetition_type != FieldRepetitionType::kRequired) ++def;
    if (e.repetition_type == FieldRepetitionType::kRepeated) ++rep;
    if (e.num_children.value_or(0) > 0) {
      stack.push_back({*e.num_children, def, rep});
    } else if (e.type) {
      leaves.push_back({i, def, rep});
    }
    while (!stack.empty() && stack.back().left == 0) stack.pop_back();
  }
  return leaves;
}

struct File {
  std::vector<uint8_t> bytes;
  FileMetaData metadata;
  std::vector<Leaf> leaves;

  Result<ColumnValues> Read(size_t row_group, size_t column,
                            const ColumnReaderOptions& options = {}) const {
    const ColumnChunk& chunk = metadata.row_groups[row_group].columns[column];
    const ColumnMetaData& meta = *chunk.meta_data;
    ByteView data = ByteView(bytes).subspan(static_cast<size_t>(meta.chunk_start()),
                                            static_cast<size_t>(meta.total_compressed_size));
    const Leaf& leaf = leaves[column];
    FLOE_ASSIGN_OR_RETURN(auto reader,
                          ColumnReader::Open(data, chunk, metadata.schema[leaf.schema_index],
                                             leaf.max_def, leaf.max_rep, options));
    return reader.ReadAll();
  }
};

File Load(const std::filesystem::path& path) {
  File f;
  f.bytes = ReadFileBytes(path);
  auto footer = ParseFooter(path.string(), f.bytes.size(), f.bytes);
  EXPECT_TRUE(footer.has_value()) << footer.error().ToString();
  if (footer.has_value()) {
    f.metadata = std::move(*footer->metadata);
    f.leaves = Leaves(f.metadata.schema);
  }
  return f;
}

// The column as text, one entry per row (nullopt for null): integers in decimal, byte arrays
// as their bytes.
std::vector<std::optional<std::string>> AsText(const ColumnValues& v) {
  std::vector<std::optional<std::string>> out;
  int64_t next = 0;
  for (int64_t row = 0; row < v.num_levels; ++row) {
    if (!v.def_levels.empty() && v.def_levels[row] == 0) {
      out.push_back(std::nullopt);
      continue;
    }
    switch (v.type) {
      case PhysicalType::kInt32:
        out.push_back(std::to_string(v.int32s[next]));
        break;
      case PhysicalType::kInt64:
        out.push_back(std::to_string(v.int64s[next]));
        break;
      case PhysicalType::kByteArray:
        out.push_back(std::string(v.byte_arrays.Value(next)));
        break;
      default:
        ADD_FAILURE() << "AsText does not print " << PhysicalTypeName(v.type);
        return out;
    }
    ++next;
  }
  return out;
}

// RFC 4180-ish: "quoted" fields (with "" for a quote) are strings, an empty unquoted field is
// null -- the convention of parquet-testing's *_expect.csv files.
std::vector<std::vector<std::optional<std::string>>> ReadCsv(const std::filesystem::path& path) {
  auto bytes = ReadFileBytes(path);
  std::string_view s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<std::vector<std::optional<std::string>>> rows(1);
  size_t i = 0;
  while (i < s.size()) {
    std::optional<std::string> field;
    if (s[i] == '"') {
      std::string value;
      ++i;
      while (i < s.size()) {
        if (s[i] == '"' && i + 1 < s.size() && s[i + 1] == '"') {
          value += '"';
          i += 2;
        } else if (s[i] == '"') {
          ++i;
          break;
        } else {
          value += s[i++];
        }
      }
      field = value;
    } else {
      size_t end = s.find_first_of(",\n", i);
      if (end == std::string_view::npos) end = s.size();
      if (end > i) field = std::string(s.substr(i, end - i));
      i = end;
    }
    rows.back().push_back(field);
    if (i < s.size() && s[i] == ',') {
      ++i;
    } else if (i < s.size() && s[i] == '\n') {
      ++i;
      if (i < s.size()) rows.emplace_back();
    }
  }
  return rows;
}

void CheckAgainstCsv(const std::string& name) {
  SCOPED_TRACE(name);
  File f = Load(DataFile(name + ".parquet"));
  auto csv = ReadCsv(DataFile(name + "_expect.csv"));
  ASSERT_EQ(csv.size(), static_cast<size_t>(f.metadata.num_rows) + 1);  // + header
  const size_t columns = static_cast<size_t>(f.metadata.num_columns());
  ASSERT_EQ(csv[0].size(), columns);
  for (size_t c = 0; c < columns; ++c) {
    SCOPED_TRACE(f.metadata.schema[f.leaves[c].schema_index].name);
    std::vector<std::optional<std::string>> got;
    for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
      auto values = f.Read(rg, c);
      ASSERT_TRUE(values.has_value()) << values.error().ToString();
      auto text = AsText(*values);
      got.insert(got.end(), text.begin(), text.end());
    }
    ASSERT_EQ(got.size(), csv.size() - 1);
    for (size_t r = 0; r < got.size(); ++r) {
      ASSERT_EQ(got[r], csv[r + 1][c]) << "row " << r;
    }
  }
}

TEST(ColumnReaderTest, DeltaEncodingFilesMatchTheirExpectedCsv) {
  CheckAgainstCsv("delta_binary_packed");
  CheckAgainstCsv("delta_byte_array");
  CheckAgainstCsv("delta_encoding_optional_column");
  CheckAgainstCsv("delta_encoding_required_column");
}

TEST(ColumnReaderTest, AllTypesPlain) {
  File f = Load(DataFile("alltypes_plain.parquet"));
  auto id = f.Read(0, 0);
  ASSERT_TRUE(id.has_value()) << id.error().ToString();
  EXPECT_EQ(id->int32s, (std::vector<int32_t>{4, 5, 6, 7, 2, 3, 0, 1}));
  EXPECT_EQ(id->def_levels, std::vector<int16_t>(8, 1));
  auto b = f.Read(0, 1);
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  EXPECT_EQ(b->booleans, (std::vector<bool>{true, false, true, false, true, false, true, false}));
  auto d = f.Read(0, 7);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->doubles[1], 10.1);
  auto s = f.Read(0, 8);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->byte_arrays.Value(0), "03/01/09");
  EXPECT_EQ(s->byte_arrays.Value(4), "02/01/09");
  auto ts = f.Read(0, 10);
  ASSERT_TRUE(ts.has_value()) << ts.error().ToString();
  EXPECT_EQ(ts->fixed.size(), 8u * 12);
}

// Bitwise equality, so NaNs compare equal to themselves.
template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// The three LZ4 flavours hold the same data: Hadoop-framed, a bare block under the deprecated
// codec (the reader falls back), and LZ4_RAW.
TEST(ColumnReaderTest, Lz4Flavours) {
  for (const char* name : {"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet",
                           "lz4_raw_compressed.parquet"}) {
    SCOPED_TRACE(name);
    File f = Load(DataFile(name));
    auto c0 = f.Read(0, 0);
    auto c1 = f.Read(0, 1);
    auto v11 = f.Read(0, 2);
    ASSERT_TRUE(c0.has_value()) << c0.error().ToString();
    ASSERT_TRUE(c1.has_value()) << c1.error().ToString();
    ASSERT_TRUE(v11.has_value()) << v11.error().ToString();
    EXPECT_EQ(c0->int64s, (std::vector<int64_t>{1593604800, 1593604800, 1593604801, 1593604801}));
    EXPECT_EQ(c1->byte_arrays.Value(1), "def");
    EXPECT_EQ(v11->doubles, (std::vector<double>{42.0, 7.7, 42.125, 7.7}));
  }
  File hadoop = Load(DataFile("hadoop_lz4_compressed_larger.parquet"));
  File raw = Load(DataFile("lz4_raw_compressed_larger.parquet"));
  auto a = hadoop.Read(0, 0);
  auto b = raw.Read(0, 0);
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  ASSERT_EQ(a->byte_arrays.size(), 10000);
  EXPECT_EQ(a->byte_arrays.Value(0), "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b");
  EXPECT_EQ(a->byte_arrays.Value(9999), "85440778-460a-41ac-aa2e-ac3ee41696bf");
  EXPECT_TRUE(std::ranges::equal(a->byte_arrays.data(), b->byte_arrays.data()));
}

TEST(ColumnReaderTest, CodecsAndEncodingsFromOtherWriters) {
  {
    File f = Load(DataFile("concatenated_gzip_members.parquet"));
    auto v = f.Read(0, 0);
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    ASSERT_EQ(v->int64s.size(), 513u);
    for (int64_t i = 0; i < 513; ++i) ASSERT_EQ(v->int64s[i], i + 1);
  }
  {
    File f = Load(DataFile("byte_stream_split.zstd.parquet"));
    auto f32 = f.Read(0, 0);
    auto f64 = f.Read(0, 1);
    ASSERT_TRUE(f32.has_value()) << f32.error().ToString();
    ASSERT_TRUE(f64.has_value()) << f64.error().ToString();
    EXPECT_FLOAT_EQ(f32->floats[0], 1.764052391052246f);
    EXPECT_DOUBLE_EQ(f64->doubles[5], -0.4607197873885533);
    EXPECT_EQ(f32->floats.size(), 300u);
  }
  {
    // Pairs of columns with the same values, PLAIN and BYTE_STREAM_SPLIT (GZIP pages).
    File f = Load(DataFile("byte_stream_split_extended.gzip.parquet"));
    for (size_t c = 0; c < 14; c += 2) {
      SCOPED_TRACE(c);
      auto plain = f.Read(0, c);
      auto split = f.Read(0, c + 1);
      ASSERT_TRUE(plain.has_value()) << plain.error().ToString();
      ASSERT_TRUE(split.has_value()) << split.error().ToString();
      EXPECT_EQ(plain->def_levels, split->def_levels);
      EXPECT_EQ(plain->fixed, split->fixed);
      EXPECT_EQ(plain->int32s, split->int32s);
      EXPECT_EQ(plain->int64s, split->int64s);
      EXPECT_TRUE(SameBits(plain->floats, split->floats));
      EXPECT_TRUE(SameBits(plain->doubles, split->doubles));
      EXPECT_EQ(plain->num_non_null(), split->num_non_null());
      EXPECT_GT(plain->num_non_null(), 0);
    }
  }
  {
    File f = Load(DataFile("rle_boolean_encoding.parquet"));
    auto v = f.Read(0, 0);
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    EXPECT_EQ(v->num_levels, 68);
    EXPECT_EQ(v->num_non_null(), 62);
    EXPECT_EQ(std::vector<bool>(v->booleans.begin(), v->booleans.begin() + 5),
              (std::vector<bool>{true, false, true, true, false}));
  }
  {
    File f = Load(DataFile("int32_with_null_pages.parquet"));
    auto v = f.Read(0, 0);
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    EXPECT_EQ(v->num_levels, 1000);
    EXPECT_EQ(v->num_non_null(), 725);
    int64_t sum = 0;
    for (int32_t x : v->int32s) sum += x;
    EXPECT_EQ(sum, -12383254597);
  }
  {
    File f = Load(DataFile("fixed_length_byte_array.parquet"));
    auto v = f.Read(0, 0);
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    EXPECT_EQ(v->num_non_null(), 895);
    EXPECT_EQ(std::vector<uint8_t>(v->fixed.begin(), v->fixed.begin() + 4),
              (std::vector<uint8_t>{0, 0, 3, 0xe8}));
  }
  {
    File f = Load(DataFile("datapage_v2.snappy.parquet"));
    auto a = f.Read(0, 0);
    ASSERT_TRUE(a.has_value()) << a.error().ToString();
    EXPECT_EQ(a->def_levels, (std::vector<int16_t>{1, 1, 1, 0, 1}));
    auto b = f.Read(0, 1);
    ASSERT_TRUE(b.has_value()) << b.error().ToString();
    EXPECT_EQ(b->int32s, (std::vector<int32_t>{1, 2, 3, 4, 5}));
    auto e = f.Read(0, 4);  // a list: honest about not reading nested columns
    ASSERT_FALSE(e.has_value());
    EXPECT_EQ(e.error().kind, ErrorKind::kUnsupported);
  }
  for (const char* name :
       {"page_v2_empty_compressed.parquet", "datapage_v2_empty_datapage.snappy.parquet"}) {
    SCOPED_TRACE(name);
    File f = Load(DataFile(name));
    auto v = f.Read(0, 0);
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    EXPECT_EQ(v->num_levels, f.metadata.num_rows);
    EXPECT_EQ(v->num_non_null(), 0);
  }
}

TEST(ColumnReaderTest, PageChecksums) {
  ColumnReaderOptions verify;
  verify.verify_checksums = true;
  for (const char* name :
       {"datapage_v1-uncompressed-checksum.parquet",
        "datapage_v1-snappy-compressed-checksum.parquet",
        "plain-dict-uncompressed-checksum.parquet", "rle-dict-snappy-checksum.parquet"}) {
    SCOPED_TRACE(name);
    File f = Load(DataFile(name));
    for (size_t c = 0; c < 2; ++c) {
      auto v = f.Read(0, c, verify);
      ASSERT_TRUE(v.has_value()) << v.error().ToString();
      EXPECT_EQ(v->num_levels, f.metadata.num_rows);
    }
  }
  for (const char* name :
       {"datapage_v1-corrupt-checksum.parquet", "rle-dict-uncompressed-corrupt-checksum.parquet"}) {
    SCOPED_TRACE(name);
    File f = Load(DataFile(name));
    bool caught = false;
    for (size_t c = 0; c < 2; ++c) {
      EXPECT_TRUE(f.Read(0, c).has_value());  // not verified: reads
      auto v = f.Read(0, c, verify);
      if (!v.has_value()) {
        caught = true;
        EXPECT_EQ(v.error().kind, ErrorKind::kCorrupt);
        EXPECT_NE(v.error().message.find("CRC-32 of the page is"), std::string::npos)
            << v.error().ToString();
      }
    }
    EXPECT_TRUE(caught);
  }
}

// Every flat column of every corpus file reads to its declared value count, or fails as
// `unsupported`; nested ones say they are unsupported. Null counts agree with the statistics.
TEST(ColumnReaderTest, EveryCorpusColumnReadsOrSaysUnsupported) {
  int read = 0;
  for (const auto& path : ParquetFilesUnder(CorpusDir() / "data")) {
    SCOPED_TRACE(path.string());
    File f = Load(path);
    for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
      for (size_t c = 0; c < f.leaves.size(); ++c) {
        SCOPED_TRACE(c);
        auto v = f.Read(rg, c);
        if (!v.has_value() && path.filename() == "nation.dict-malformed.parquet") {
          continue;  // see OldParquetMrChunkSizesLeaveOutTheDictionaryPage
        }
        if (!v.has_value()) {
          ASSERT_EQ(v.error().kind, ErrorKind::kUnsupported) << v.error().ToString();
          continue;
        }
        ++read;
        const ColumnMetaData& meta = *f.metadata.row_groups[rg].columns[c].meta_data;
        EXPECT_EQ(v->num_levels, meta.num_values);
        if (meta.statistics && meta.statistics->null_count) {
          EXPECT_EQ(v->num_levels - v->num_non_null(), *meta.statistics->null_count);
        }
      }
    }
  }
  EXPECT_GT(read, 400);
}

// parquet-mr before 1.2.9 left the dictionary page out of total_compressed_size (PARQUET-816),
// so the chunk's declared range stops short of its last page. The reader to come has to widen
// the range for such writers; read as declared, the page overruns the chunk and says so.
TEST(ColumnReaderTest, OldParquetMrChunkSizesLeaveOutTheDictionaryPage) {
  File f = Load(DataFile("nation.dict-malformed.parquet"));
  EXPECT_EQ(f.metadata.created_by, "parquet-mr");
  auto v = f.Read(0, 1);
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().ToString(),
            "corrupt: page 1 at chunk byte 292: page claims 28 bytes, the chunk has 13 left");
  // Widened by the largest dictionary page header (100 bytes, as other readers do), it reads.
  const ColumnChunk& chunk = f.metadata.row_groups[0].columns[1];
  const auto& meta = *chunk.meta_data;
  size_t start = static_cast<size_t>(meta.chunk_start());
  size_t length = std::min<size_t>(static_cast<size_t>(meta.total_compressed_size) + 100,
                                   f.bytes.size() - 8 - start);
  auto reader =
      ColumnReader::Open(ByteView(f.bytes).subspan(start, length), chunk,
                         f.metadata.schema[f.leaves[1].schema_index], f.leaves[1].max_def, 0);
  ASSERT_TRUE(reader.has_value());
  auto values = reader->ReadAll();
  ASSERT_TRUE(values.has_value()) << values.error().ToString();
  EXPECT_EQ(values->num_levels, 25);
  EXPECT_EQ(values->byte_arrays.Value(0), "ALGERIA");
}

// Flipped bytes inside real column chunks (headers, levels, values, compressed streams) give a
// value or an error, never a crash -- the decoders' bounds checks under real layouts (run under
// ASan/UBSan to make that meaningful).
TEST(ColumnReaderTest, MutatedChunksNeverCrash) {
  std::mt19937 rng(424242);
  for (const char* name :
       {"alltypes_plain.parquet", "delta_byte_array.parquet", "delta_length_byte_array.parquet",
        "delta_encoding_optional_column.parquet", "datapage_v2.snappy.parquet",
        "byte_stream_split_extended.gzip.parquet", "rle_boolean_encoding.parquet",
        "int32_with_null_pages.parquet", "fixed_length_byte_array.parquet",
        "rle-dict-uncompressed-corrupt-checksum.parquet", "delta_binary_packed.parquet"}) {
    SCOPED_TRACE(name);
    File f = Load(DataFile(name));
    const auto& rg = f.metadata.row_groups[0];
    for (int round = 0; round < 150; ++round) {
      size_t c = rng() % rg.columns.size();
      const Leaf& leaf = f.leaves[c];
      if (leaf.max_rep > 0 || leaf.max_def > 1) continue;
      const auto& meta = *rg.columns[c].meta_data;
      auto start = f.bytes.begin() + meta.chunk_start();
      std::vector<uint8_t> chunk(start, start + meta.total_compressed_size);
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < flips; ++i) chunk[rng() % chunk.size()] ^= 1u << (rng() % 8);
      ColumnReaderOptions options;
      options.verify_checksums = round % 2 == 0;
      auto reader = ColumnReader::Open(chunk, rg.columns[c], f.metadata.schema[leaf.schema_index],
                                       leaf.max_def, leaf.max_rep, options);
      ASSERT_TRUE(reader.has_value());
      auto values = reader->ReadAll();
      if (values.has_value()) {
        EXPECT_EQ(values->num_levels, meta.num_values);
      }
    }
  }
}

// bad_data: each file's first error (footer, or the first column that does not read, nested
// columns aside) is a clean value with a message saying what is wrong -- never a crash.
TEST(ColumnReaderTest, BadDataFilesFailWithNamedErrors) {
  const std::map<std::string, std::string> expected = {
      {"ARROW-GH-41317.parquet", "column 18: corrupt: column chunk ends after 0 of its 3 values"},
      {"ARROW-GH-41321.parquet",
       "column 9: corrupt: page 1 at chunk byte 30: RLE/bit-packed hybrid: run header at byte 0 "
       "is malformed"},
      {"ARROW-GH-43605.parquet", "reads"},
      {"ARROW-GH-45185.parquet", "reads"},  // its only column is a list: unsupported here
      {"ARROW-GH-47662.parquet",
       "column 0: corrupt: page 0 at chunk byte 0: PLAIN FIXED_LEN_BYTE_ARRAY: page ends after "
       "91 of 100 values"},
      {"ARROW-RS-GH-6229-DICTHEADER.parquet",
       "footer: column 'name' of row group 0 claims bytes [129, +322) outside the data region "
       "[4, 291)"},
      {"ARROW-RS-GH-6229-LEVELS.parquet", "reads"},  // nested: unsupported here
      {"PARQUET-1481.parquet",
       "footer: FileMetaData: schema element 'Handle' has invalid physical type -7"},
  };
  for (const auto& path : ParquetFilesUnder(CorpusDir() / "bad_data")) {
    SCOPED_TRACE(path.string());
    std::string outcome = "reads";
    auto bytes = ReadFileBytes(path);
    auto footer = ParseFooter(path.filename().string(), bytes.size(), bytes);
    if (!footer.has_value()) {
      std::string prefix = fmt::format("corrupt: parquet file '{}': ", path.filename().string());
      const std::string& message = footer.error().ToString();
      outcome =
          "footer: " + (message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message);
    } else {
      File f{bytes, *footer->metadata, Leaves(footer->metadata->schema)};
      for (size_t rg = 0; rg < f.metadata.row_groups.size() && outcome == "reads"; ++rg) {
        for (size_t c = 0; c < f.leaves.size(); ++c) {
          auto v = f.Read(rg, c);
          if (!v.has_value() && v.error().kind != ErrorKind::kUnsupported) {
            outcome = fmt::format("column {}: {}", c, v.error().ToString());
            break;
          }
        }
      }
    }
    auto it = expected.find(path.filename().string());
    ASSERT_NE(it, expected.end()) << "new bad_data file: " << outcome;
    EXPECT_EQ(outcome, it->second);
  }
}

}  // namespace
}  // namespace floe::parquet
