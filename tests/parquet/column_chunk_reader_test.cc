#include "floe/parquet/column_chunk_reader.h"

#include <map>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "floe/columnar/column.h"
#include "floe/parquet/page_header.h"
#include "parquet/read_fixture_util.h"
#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

using testing::BadDataFile;
using testing::CorpusDir;
using testing::DataFile;
using testing::JsonColumn;
using testing::JsonRows;
using testing::LoadedFile;
using testing::LoadFile;
using testing::ParquetFilesUnder;
using testing::ReadFile;
using testing::ReadFileBytes;

// A value as the *_expect.csv files print it: integers in decimal, strings as their bytes.
std::optional<std::string> Text(const columnar::Column& c, int64_t row) {
  if (c.IsNull(row)) return std::nullopt;
  if (c.type.IsBinaryLike()) return std::string(c.BytesAt(row));
  return columnar::ValueToString(c, row);
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

void CheckAgainstCsv(const std::string& name, int64_t batch_rows) {
  SCOPED_TRACE(name);
  LoadedFile f = LoadFile(DataFile(name + ".parquet"));
  auto csv = ReadCsv(DataFile(name + "_expect.csv"));
  ReadOptions options;
  options.batch_rows = batch_rows;
  auto batches = ReadFile(f, options);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  ASSERT_EQ(csv.size(), static_cast<size_t>(testing::CountRows(*batches)) + 1);  // + header
  size_t row = 1;
  for (const auto& b : *batches) {
    ASSERT_EQ(csv[0].size(), static_cast<size_t>(b.num_columns()));
    for (int64_t r = 0; r < b.num_rows; ++r, ++row) {
      for (int c = 0; c < b.num_columns(); ++c) {
        ASSERT_EQ(Text(*b.column(c), r), csv[row][c]) << "row " << row - 1 << " column " << c;
      }
    }
  }
}

TEST(ColumnChunkReaderTest, DeltaEncodingFilesMatchTheirExpectedCsv) {
  for (int64_t batch_rows : {int64_t{kDefaultBatchRows}, int64_t{7}}) {
    CheckAgainstCsv("delta_binary_packed", batch_rows);
    CheckAgainstCsv("delta_byte_array", batch_rows);
    CheckAgainstCsv("delta_encoding_optional_column", batch_rows);
    CheckAgainstCsv("delta_encoding_required_column", batch_rows);
  }
}

// Values from pyarrow.parquet.read_table("alltypes_plain.parquet").
TEST(ColumnChunkReaderTest, AllTypesPlain) {
  LoadedFile f = LoadFile(DataFile("alltypes_plain.parquet"));
  auto batches = ReadFile(f);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto rows = JsonRows(*batches);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0],
            "[4, true, 0, 0, 0, 0, 0.0, 0.0, \"30332f30312f3039\", \"30\", "
            "\"2009-03-01T00:00:00.000000000\"]");
  EXPECT_EQ(rows[7],
            "[1, false, 1, 1, 1, 10, 1.1, 10.1, \"30312f30312f3039\", \"31\", "
            "\"2009-01-01T00:01:00.000000000\"]");
}

// The three LZ4 flavours hold the same data: Hadoop-framed, a bare block under the deprecated
// codec (the reader falls back), and LZ4_RAW.
TEST(ColumnChunkReaderTest, Lz4Flavours) {
  for (const char* name : {"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet",
                           "lz4_raw_compressed.parquet"}) {
    SCOPED_TRACE(name);
    auto batches = ReadFile(LoadFile(DataFile(name)));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    EXPECT_EQ(JsonRows(*batches), (std::vector<std::string>{
                                      "[1593604800, \"616263\", 42.0]",
                                      "[1593604800, \"646566\", 7.7]",
                                      "[1593604801, \"616263\", 42.125]",
                                      "[1593604801, \"646566\", 7.7]",
                                  }));
  }
  auto a = ReadFile(LoadFile(DataFile("hadoop_lz4_compressed_larger.parquet")));
  auto b = ReadFile(LoadFile(DataFile("lz4_raw_compressed_larger.parquet")));
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  auto va = JsonColumn(*a, 0);
  ASSERT_EQ(va.size(), 10000u);
  EXPECT_EQ(va[0], "\"c7ce6bef-d5b0-4863-b199-8ea8c7fb117b\"");
  EXPECT_EQ(va[9999], "\"85440778-460a-41ac-aa2e-ac3ee41696bf\"");
  EXPECT_EQ(va, JsonColumn(*b, 0));
}

TEST(ColumnChunkReaderTest, CodecsAndEncodingsFromOtherWriters) {
  {
    auto batches = ReadFile(LoadFile(DataFile("concatenated_gzip_members.parquet")));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    auto v = JsonColumn(*batches, 0);
    ASSERT_EQ(v.size(), 513u);
    for (int64_t i = 0; i < 513; ++i) ASSERT_EQ(v[i], std::to_string(i + 1));
  }
  {
    auto batches = ReadFile(LoadFile(DataFile("byte_stream_split.zstd.parquet")));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    auto rows = JsonRows(*batches);
    ASSERT_EQ(rows.size(), 300u);
    EXPECT_EQ(JsonColumn(*batches, 0)[0], "1.7640524");
    EXPECT_EQ(JsonColumn(*batches, 1)[5], "-0.4607197873885533");
  }
  {
    // Pairs of columns with the same values, PLAIN and BYTE_STREAM_SPLIT (GZIP pages).
    auto batches = ReadFile(LoadFile(DataFile("byte_stream_split_extended.gzip.parquet")));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    for (int c = 0; c < 14; c += 2) {
      SCOPED_TRACE(c);
      EXPECT_EQ(JsonColumn(*batches, c), JsonColumn(*batches, c + 1));
    }
  }
  {
    auto batches = ReadFile(LoadFile(DataFile("rle_boolean_encoding.parquet")));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    auto v = JsonColumn(*batches, 0);
    ASSERT_EQ(v.size(), 68u);
    EXPECT_EQ(std::count(v.begin(), v.end(), "null"), 6);
    EXPECT_EQ(std::vector<std::string>(v.begin(), v.begin() + 5),
              (std::vector<std::string>{"true", "false", "null", "true", "true"}));
  }
  {
    auto batches = ReadFile(LoadFile(DataFile("int32_with_null_pages.parquet")));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    auto v = JsonColumn(*batches, 0);
    ASSERT_EQ(v.size(), 1000u);
    int64_t sum = 0, nulls = 0;
    for (const auto& s : v) {
      if (s == "null") {
        ++nulls;
      } else {
        sum += std::stoll(s);
      }
    }
    EXPECT_EQ(nulls, 275);
    EXPECT_EQ(sum, -12383254597);
  }
  {
    auto batches = ReadFile(LoadFile(DataFile("datapage_v2.snappy.parquet")));
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    EXPECT_EQ(JsonRows(*batches),
              (std::vector<std::string>{
                  "[\"abc\", 1, 2.0, true, [1, 2, 3]]", "[\"abc\", 2, 3.0, true, null]",
                  "[\"abc\", 3, 4.0, true, null]", "[null, 4, 5.0, false, [1, 2, 3]]",
                  "[\"abc\", 5, 2.0, true, [1, 2]]"}));
  }
  for (const char* name :
       {"page_v2_empty_compressed.parquet", "datapage_v2_empty_datapage.snappy.parquet"}) {
    SCOPED_TRACE(name);
    LoadedFile f = LoadFile(DataFile(name));
    auto batches = ReadFile(f);
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    auto v = JsonColumn(*batches, 0);
    EXPECT_EQ(static_cast<int64_t>(v.size()), f.reader->metadata().num_rows);
    EXPECT_EQ(std::count(v.begin(), v.end(), "null"), static_cast<int64_t>(v.size()));
  }
}

TEST(ColumnChunkReaderTest, PageChecksums) {
  ReadOptions verify;  // checksums are verified by default
  ReadOptions unverified;
  unverified.verify_checksums = false;
  for (const char* name :
       {"datapage_v1-uncompressed-checksum.parquet",
        "datapage_v1-snappy-compressed-checksum.parquet",
        "plain-dict-uncompressed-checksum.parquet", "rle-dict-snappy-checksum.parquet"}) {
    SCOPED_TRACE(name);
    LoadedFile f = LoadFile(DataFile(name));
    auto batches = ReadFile(f, verify);
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    EXPECT_EQ(testing::CountRows(*batches), f.reader->metadata().num_rows);
  }
  for (const char* name :
       {"datapage_v1-corrupt-checksum.parquet", "rle-dict-uncompressed-corrupt-checksum.parquet"}) {
    SCOPED_TRACE(name);
    LoadedFile f = LoadFile(DataFile(name));
    EXPECT_TRUE(ReadFile(f, unverified).has_value());
    auto batches = ReadFile(f, verify);
    ASSERT_FALSE(batches.has_value());
    EXPECT_EQ(batches.error().kind, ErrorKind::kCorrupt);
    EXPECT_NE(batches.error().message.find("CRC-32 of the page is"), std::string::npos)
        << batches.error().ToString();
  }
}

// Every file of data/ reads with as many rows as its footer says, and each flat column's nulls
// agree with its chunk statistics -- except the one file listed, whose strings pass int32
// offsets in one batch.
TEST(ColumnChunkReaderTest, EveryCorpusFileReads) {
  int files = 0;
  for (const auto& path : ParquetFilesUnder(CorpusDir() / "data")) {
    SCOPED_TRACE(path.string());
    if (path.filename() == "large_string_map.brotli.parquet") continue;  // 2 GiB; differential
    LoadedFile f = LoadFile(path);
    ReadOptions options;
    // Their page bytes do not match their CRCs on purpose (PageChecksums reads them verified).
    options.verify_checksums =
        path.filename().string().find("corrupt-checksum") == std::string::npos;
    auto batches = ReadFile(f, options);
    ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
    // Row groups' counts: repeated_no_annotation.parquet's footer says num_rows 0 for its 6 rows.
    int64_t rows = 0;
    for (const auto& rg : f.reader->metadata().row_groups) rows += rg.num_rows;
    ASSERT_EQ(testing::CountRows(*batches), rows);
    ++files;
    const auto& fields = f.reader->schema().fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].kind != FieldNode::Kind::kLeaf) continue;
      const int column = fields[i].leaf;
      int64_t nulls = 0, stat_nulls = 0;
      bool known = true;
      for (const auto& rg : f.reader->metadata().row_groups) {
        const auto& stats = rg.columns[column].meta_data->statistics;
        if (!stats || !stats->null_count) known = false;
        if (known) stat_nulls += *stats->null_count;
      }
      for (const auto& b : *batches) nulls += b.column(static_cast<int>(i))->null_count;
      if (known) EXPECT_EQ(nulls, stat_nulls) << fields[i].path;
    }
  }
  EXPECT_EQ(files, 74);
}

// parquet-mr before 1.2.9 left the dictionary page out of total_compressed_size (PARQUET-816),
// so the chunk's declared range stops short of its last page. The plan widens it (by the largest
// dictionary page header, 100 bytes, as other readers do); read as declared it overruns.
TEST(ColumnChunkReaderTest, OldParquetMrChunkSizesAreWidened) {
  LoadedFile f = LoadFile(DataFile("nation.dict-malformed.parquet"));
  EXPECT_EQ(f.reader->metadata().created_by, "parquet-mr");
  ReadOptions options;
  options.columns = {"name"};
  auto batches = ReadFile(f, options);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto names = JsonColumn(*batches, 0);
  ASSERT_EQ(names.size(), 25u);
  EXPECT_EQ(names[0], "\"414c4745524941\"");  // b"ALGERIA"

  // Only the declared bytes supplied: the last page runs past them.
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value());
  const auto& meta = *f.reader->metadata().row_groups[0].columns[1].meta_data;
  FetchedBytes declared;
  declared.Add(meta.chunk_start(), f.all().Slice(static_cast<size_t>(meta.chunk_start()),
                                                 static_cast<size_t>(meta.total_compressed_size)));
  auto read = f.reader->ReadAll(std::move(*plan), std::move(declared));
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().ToString(),
            "corrupt: parquet file 'nation.dict-malformed.parquet': column 'name' of row group 0: "
            "page 1 at offset 421: page claims 28 bytes, the chunk has 13 left");
}

// Skipping rows (a row selection) inside and across pages gives exactly the rows a full read
// has there, for flat and nested columns, in whole-chunk mode.
TEST(ColumnChunkReaderTest, RowSelectionsMatchTheFullRead) {
  for (const char* name :
       {"alltypes_tiny_pages.parquet", "nullable.impala.parquet", "nested_lists.snappy.parquet",
        "delta_encoding_optional_column.parquet", "repeated_no_annotation.parquet",
        "datapage_v2.snappy.parquet", "int32_with_null_pages.parquet"}) {
    SCOPED_TRACE(name);
    LoadedFile f = LoadFile(DataFile(name));
    auto all = ReadFile(f);
    ASSERT_TRUE(all.has_value()) << all.error().ToString();
    auto rows = JsonRows(*all);
    const int64_t n = static_cast<int64_t>(rows.size());
    std::vector<RowRange> selection = {{1, 2}, {std::min<int64_t>(3, n), n / 2}, {n / 2 + 1, n}};
    auto plan = f.reader->Plan({});
    ASSERT_TRUE(plan.has_value());
    ASSERT_EQ(plan->row_groups.size(), 1u);
    std::vector<RowRange> nonempty;
    for (const RowRange& r : selection) {
      if (r.begin < r.end) nonempty.push_back(r);
    }
    plan->row_groups[0].rows = nonempty;
    plan->batch_rows = 5;
    FetchedBytes bytes = testing::OnlyRanges(f, plan->DataRanges());
    auto some = f.reader->ReadAll(std::move(*plan), std::move(bytes));
    ASSERT_TRUE(some.has_value()) << some.error().ToString();
    std::vector<std::string> want;
    for (const RowRange& r : nonempty) {
      for (int64_t i = r.begin; i < r.end; ++i) want.push_back(rows[i]);
    }
    EXPECT_EQ(JsonRows(*some), want);
  }
}

// Flipped bytes inside real column chunks (headers, levels, values, compressed streams) give a
// value or an error, never a crash -- the decoders' bounds checks under real layouts (run under
// ASan/UBSan to make that meaningful).
TEST(ColumnChunkReaderTest, MutatedChunksNeverCrash) {
  std::mt19937 rng(424242);
  for (const char* name :
       {"alltypes_plain.parquet", "delta_byte_array.parquet", "delta_length_byte_array.parquet",
        "delta_encoding_optional_column.parquet", "datapage_v2.snappy.parquet",
        "byte_stream_split_extended.gzip.parquet", "rle_boolean_encoding.parquet",
        "int32_with_null_pages.parquet", "fixed_length_byte_array.parquet",
        "rle-dict-uncompressed-corrupt-checksum.parquet", "delta_binary_packed.parquet",
        "nullable.impala.parquet", "nested_maps.snappy.parquet", "fixed_length_decimal.parquet",
        "int96_from_spark.parquet"}) {
    SCOPED_TRACE(name);
    LoadedFile f = LoadFile(DataFile(name));
    const auto& md = f.reader->metadata();
    const auto& rg = md.row_groups[0];
    for (int round = 0; round < 150; ++round) {
      const size_t c = rng() % rg.columns.size();
      const auto& meta = *rg.columns[c].meta_data;
      auto start = f.bytes.begin() + meta.chunk_start();
      std::vector<uint8_t> chunk(start, start + meta.total_compressed_size);
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < flips; ++i) chunk[rng() % chunk.size()] ^= 1u << (rng() % 8);
      ChunkSource src;
      src.chunk = Buffer(std::move(chunk));
      src.chunk_offset = meta.chunk_start();
      ChunkReaderOptions options;
      options.verify_checksums = round % 2 == 0;
      auto reader = ColumnChunkReader::Make(f.reader->schema().leaves()[c], meta, rg.num_rows,
                                            std::move(src), options);
      if (!reader) {  // Make walks the page headers: a flip there may be found already
        EXPECT_EQ(reader.error().kind, ErrorKind::kCorrupt) << reader.error().ToString();
        continue;
      }
      LeafBatch batch;
      if (round % 3 == 0 && rg.num_rows > 2) {
        if (!reader->SkipTo(rg.num_rows / 2)) continue;
      }
      auto rows = reader->ReadRows(rg.num_rows, &batch);
      if (rows.has_value()) {
        EXPECT_LE(*rows, rg.num_rows);
        EXPECT_EQ(batch.num_rows, *rows);
      }
    }
  }
}

// bad_data: errors name the file, the column, the row group and the page.
TEST(ColumnChunkReaderTest, BadDataFilesFailWithNamedErrors) {
  const std::map<std::string, std::string> expected = {
      {"ARROW-GH-41317.parquet",
       "corrupt: parquet file 'ARROW-GH-41317.parquet': column 'timestamp_us_no_tz' of row group "
       "0: column chunk ends after 0 of its 3 values"},
      {"ARROW-GH-41321.parquet",
       "corrupt: parquet file 'ARROW-GH-41321.parquet': column 'int64' of row group 0: page 1 at "
       "offset 1313: RLE/bit-packed hybrid: run header at byte 0 is malformed"},
      {"ARROW-GH-43605.parquet", "reads"},
      {"ARROW-GH-45185.parquet",
       "corrupt: parquet file 'ARROW-GH-45185.parquet': column 'x.list.element' of row group 0: "
       "page 0 at offset 4: the page starts with repetition level 1; a row must start at 0"},
      {"ARROW-GH-47662.parquet",
       "corrupt: parquet file 'ARROW-GH-47662.parquet': column 'flba_field' of row group 0: page "
       "0 at offset 4: PLAIN FIXED_LEN_BYTE_ARRAY: page ends after 91 of 100 values"},
      {"ARROW-RS-GH-6229-DICTHEADER.parquet",
       "corrupt: parquet file 'ARROW-RS-GH-6229-DICTHEADER.parquet': column 'name' of row group 0 "
       "claims bytes [129, +322) outside the data region [4, 291)"},
      {"ARROW-RS-GH-6229-LEVELS.parquet",
       "corrupt: parquet file 'ARROW-RS-GH-6229-LEVELS.parquet': column 'outer.list.item.c' of "
       "row group 0: page 1 at offset 19: page holds 21 values, the chunk only 1 more"},
      {"PARQUET-1481.parquet",
       "corrupt: parquet file 'PARQUET-1481.parquet': FileMetaData: schema element 'Handle' has "
       "invalid physical type -7"},
  };
  for (const auto& path : ParquetFilesUnder(CorpusDir() / "bad_data")) {
    SCOPED_TRACE(path.string());
    std::string outcome = "reads";
    auto bytes = ReadFileBytes(path);
    auto opened = FileReader::Open(path.filename().string(), bytes.size(), bytes);
    if (!opened.has_value()) {
      outcome = opened.error().ToString();
    } else {
      LoadedFile f{bytes, std::move(opened->reader)};
      auto batches = ReadFile(f);
      if (!batches.has_value()) outcome = batches.error().ToString();
    }
    auto it = expected.find(path.filename().string());
    ASSERT_NE(it, expected.end()) << "new bad_data file: " << outcome;
    EXPECT_EQ(outcome, it->second);
  }
}

// A value count flipped in one page header shifts the rows of the pages after it; a read that
// stops before the chunk's end would not see the total come out wrong, so the reader adds the
// headers up before it decodes a page.
TEST(ColumnChunkReaderTest, PageHeadersMustAddUpToTheChunk) {
  WriterOptions o;
  o.page_row_limit = 100;
  auto f = testing::WriteInt64File(1, 1000, 0, o);
  ASSERT_TRUE(f.has_value());
  auto opened = FileReader::Open("f.parquet", f->bytes.size(), f->bytes.view());
  ASSERT_TRUE(opened && opened->reader);
  const ColumnMetaData& meta = *f->written.metadata.row_groups[0].columns[0].meta_data;
  const ColumnDescriptor& leaf = opened->reader->schema().leaves()[0];
  auto with_page3_values = [&](int32_t values) {
    std::vector<uint8_t> chunk(f->bytes.data() + meta.chunk_start(),
                               f->bytes.data() + meta.chunk_start() + meta.total_compressed_size);
    size_t at = 0;
    for (int page = 0; page < 4; ++page) {
      size_t len = 0;
      auto h = ParsePageHeader(ByteView(chunk).subspan(at), &len);
      EXPECT_TRUE(h.has_value());
      if (page == 3) {
        h->data_page_header->num_values = values;
        auto bytes = SerializePageHeader(*h);
        EXPECT_EQ(bytes->size(), len);  // 100, 99 and 101 take as many bytes
        std::copy(bytes->begin(), bytes->end(), chunk.begin() + static_cast<int64_t>(at));
      }
      at += len + static_cast<size_t>(h->compressed_page_size);
    }
    ChunkSource src;
    src.chunk = Buffer(std::move(chunk));
    src.chunk_offset = meta.chunk_start();
    auto reader = ColumnChunkReader::Make(leaf, meta, 1000, std::move(src));
    return reader ? std::string("(no error)") : reader.error().ToString();
  };
  EXPECT_EQ(with_page3_values(100), "(no error)");
  EXPECT_EQ(with_page3_values(99), "corrupt: column chunk ends after 999 of its 1000 values");
  const std::string error = with_page3_values(101);
  EXPECT_TRUE(error.starts_with("corrupt: page 9 at offset ")) << error;
  EXPECT_TRUE(error.ends_with(": page holds 100 values, the chunk only 99 more")) << error;
}

}  // namespace
}  // namespace floe::parquet
