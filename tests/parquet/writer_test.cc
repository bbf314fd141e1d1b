#include "floe/parquet/writer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <map>
#include <regex>

#include "floe/base/thread_pool.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/metadata_checksum.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/page_index.h"
#include "read_fixture_util.h"

namespace floe::parquet {
namespace {

using columnar::BinaryBuilder;
using columnar::ColumnPtr;
using columnar::Field;
using columnar::FixedWidthBuilder;
using columnar::RecordBatch;

std::shared_ptr<columnar::Schema> SchemaOf(std::vector<Field> fields) {
  auto s = std::make_shared<columnar::Schema>();
  s->fields = std::move(fields);
  return s;
}

ColumnPtr Int64s(int64_t n, auto fn, auto null) {
  FixedWidthBuilder<int64_t> b(columnar::Int64());
  for (int64_t i = 0; i < n; ++i) null(i) ? b.AppendNull() : b.Append(fn(i));
  return b.Finish();
}
ColumnPtr Int64s(int64_t n, auto fn) {
  return Int64s(n, fn, [](int64_t) { return false; });
}

ColumnPtr Strings(int64_t n, auto fn, columnar::DataType type = columnar::String()) {
  BinaryBuilder b(type);
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(b.Append(fn(i)).has_value());
  return b.Finish();
}

RecordBatch BatchOf(columnar::SchemaPtr schema, std::vector<ColumnPtr> cols) {
  RecordBatch b;
  b.schema = std::move(schema);
  b.num_rows = cols.empty() ? 0 : cols[0]->length;
  b.columns = std::move(cols);
  return b;
}

struct Written {
  std::vector<uint8_t> bytes;
  WrittenFile file;
  FileMetaData meta;
};

Written WriteAll(columnar::SchemaPtr schema, const std::vector<RecordBatch>& batches,
                 WriterOptions options = {}) {
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink, std::move(options));
  EXPECT_TRUE(w.has_value()) << w.error().ToString();
  for (const auto& b : batches) {
    auto s = (*w)->Write(b);
    EXPECT_TRUE(s.has_value()) << s.error().ToString();
  }
  auto f = (*w)->Close();
  EXPECT_TRUE(f.has_value()) << f.error().ToString();
  Written out{sink.Release(), std::move(*f), {}};
  auto tail = ParseFooter("test.parquet", out.bytes.size(), out.bytes);
  EXPECT_TRUE(tail.has_value() && tail->metadata.has_value());
  out.meta = *tail->metadata;
  return out;
}

const PageEncodingStats* FindStats(const ColumnMetaData& md, PageType type, Encoding e) {
  for (const auto& s : md.encoding_stats) {
    if (s.page_type == type && s.encoding == e) return &s;
  }
  return nullptr;
}

// ---- rejected input -------------------------------------------------------------------------

// Nested columns are written (writer_nested_test.cc); a leaf type Parquet cannot hold is still
// refused, by the leaf's full path.
TEST(WriterTest, RejectsNestedColumnsByPath) {
  MemorySink sink;
  auto schema =
      SchemaOf({{"id", columnar::Int64(), false, 1},
                {"tags", columnar::List({"item", columnar::Float16(), true, 3}), true, 2}});
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().ToString(),
            "unsupported: column 'tags.list.element': writing float16 to Parquet");
}

TEST(WriterTest, RejectsTypesParquetCannotHoldAsIs) {
  MemorySink sink;
  auto w = ParquetWriter::Open(SchemaOf({{"h", columnar::Float16(), true, 1}}), &sink);
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().kind, ErrorKind::kUnsupported);
  WriterOptions uuid_options;
  uuid_options.uuid_field_ids = {7};
  auto uuid = ParquetWriter::Open(SchemaOf({{"u", columnar::FixedSizeBinary(8), true, 7}}), &sink,
                                  uuid_options);
  ASSERT_FALSE(uuid.has_value());
  EXPECT_EQ(uuid.error().ToString(), "invalid input: column 'u': a uuid is 16 bytes, not 8");
  WriterOptions bloom;
  bloom.bloom_filter_columns = {{"nope", 0.01, std::nullopt}};
  auto b = ParquetWriter::Open(SchemaOf({{"id", columnar::Int64(), false, 1}}), &sink, bloom);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().ToString(),
            "invalid input: Parquet writer: Bloom filter for unknown column 'nope'");
  WriterOptions lz4_options;
  lz4_options.codec = CompressionCodec::kLz4;
  auto lz4 =
      ParquetWriter::Open(SchemaOf({{"id", columnar::Int64(), false, 1}}), &sink, lz4_options);
  ASSERT_FALSE(lz4.has_value());
  EXPECT_EQ(lz4.error().kind, ErrorKind::kUnsupported);
}

TEST(WriterTest, RejectsBatchesThatDoNotMatchTheSchema) {
  auto schema = SchemaOf({{"id", columnar::Int64(), false, 1}});
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_TRUE(w.has_value());
  auto nulls = (*w)->Write(
      BatchOf(schema, {Int64s(
                          4, [](int64_t i) { return i; }, [](int64_t i) { return i == 2; })}));
  ASSERT_FALSE(nulls.has_value());
  EXPECT_EQ(nulls.error().ToString(),
            "invalid input: Parquet writer: required column 'id' holds 1 nulls");
  auto wrong = (*w)->Write(BatchOf(schema, {Strings(2, [](int64_t) { return "x"; })}));
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().ToString(),
            "invalid input: Parquet writer: column 'id' is string in the batch, int64 in the file");
  ASSERT_TRUE((*w)->Close().has_value());
  auto late = (*w)->Write(BatchOf(schema, {Int64s(1, [](int64_t i) { return i; })}));
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error().ToString(), "invalid input: Parquet writer: Write after Close");
}

TEST(WriterTest, RejectsADecimalThatDoesNotFitItsPrecision) {
  auto schema = SchemaOf({{"d", columnar::Decimal128(5, 0), true, 1}});
  BinaryBuilder b(columnar::FixedSizeBinary(16));
  __int128 big = int64_t{1} << 40;
  ASSERT_TRUE(b.Append(std::string_view(reinterpret_cast<const char*>(&big), 16)).has_value());
  auto col = std::make_shared<columnar::Column>(*b.Finish());
  col->type = columnar::Decimal128(5, 0);
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_TRUE(w.has_value());
  auto s = (*w)->Write(BatchOf(schema, {col}));
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().ToString(),
            "invalid input: column 'd': the decimal at row 0 does not fit decimal(5, 0)");
}

// ---- the file -------------------------------------------------------------------------------

// Write(batch, offset, length) writes those rows as Write of a copy of them does, byte for byte.
TEST(WriterTest, ARangeOfABatchIsWrittenAsACopyOfItsRows) {
  auto schema = SchemaOf({{"a", columnar::Int64(), true}, {"s", columnar::String(), true}});
  const int64_t n = 5000;
  RecordBatch all = BatchOf(
      schema, {Int64s(
                   n, [](int64_t i) { return i * 7; }, [](int64_t i) { return i % 11 == 0; }),
               Strings(n, [](int64_t i) { return "v" + std::to_string(i % 37); })});
  std::vector<int64_t> rows;
  for (int64_t i = 1234; i < 4321; ++i) rows.push_back(i);
  auto copy = columnar::Take(all, rows);
  ASSERT_TRUE(copy.has_value());
  WriterOptions options;
  options.row_group_size_bytes = 8 << 10;  // several row groups
  const Written want = WriteAll(schema, {*copy}, options);
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink, options);
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Write(all, 1234, 4321 - 1234).has_value());
  ASSERT_TRUE((*w)->Close().has_value());
  EXPECT_GT(want.meta.row_groups.size(), 1u);
  EXPECT_TRUE(sink.Release() == want.bytes);
  // Rows past the batch are an error, and leave the writer usable.
  MemorySink other;
  auto v = ParquetWriter::Open(schema, &other, options);
  ASSERT_TRUE(v.has_value());
  auto bad = (*v)->Write(all, 4000, 1001);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "Parquet writer: rows [4000, 5001) of a batch of 5000");
  EXPECT_TRUE((*v)->Write(all, 4000, 1000).has_value());
}

TEST(WriterTest, EmptyFileHasASchemaAndNoRowGroups) {
  auto w = WriteAll(SchemaOf({{"id", columnar::Int64(), false, 1}}), {});
  EXPECT_EQ(w.meta.num_rows, 0);
  EXPECT_TRUE(w.meta.row_groups.empty());
  ASSERT_EQ(w.meta.schema.size(), 2u);
  EXPECT_EQ(w.meta.schema[1].field_id, 1);
  EXPECT_EQ(w.file.file_size, static_cast<int64_t>(w.bytes.size()));
  EXPECT_EQ(std::string(w.bytes.begin(), w.bytes.begin() + 4), "PAR1");
}

TEST(WriterTest, FooterNamesFloeAndCarriesSchemaOrdersAndMetadata) {
  auto schema =
      SchemaOf({{"id", columnar::Int64(), false, 11}, {"s", columnar::String(), true, 12}});
  WriterOptions o;
  o.key_value_metadata = {{"k", "v"}, {"novalue", std::nullopt}};
  auto w = WriteAll(schema,
                    {BatchOf(schema, {Int64s(10, [](int64_t i) { return i; }),
                                      Strings(10, [](int64_t i) { return std::to_string(i); })})},
                    o);
  ASSERT_TRUE(w.meta.created_by.has_value());
  EXPECT_TRUE(std::regex_match(*w.meta.created_by,
                               std::regex(R"(floe version \d+\.\d+\.\d+ \(build [0-9a-z]+\))")))
      << *w.meta.created_by;
  // The caller's entries, then floe's checksums (metadata_checksum_test.cc).
  ASSERT_EQ(w.meta.key_value_metadata.size(), 4u);
  EXPECT_EQ(std::vector<KeyValue>(w.meta.key_value_metadata.begin(),
                                  w.meta.key_value_metadata.begin() + 2),
            o.key_value_metadata);
  EXPECT_EQ(w.meta.key_value_metadata[2].key, "floe.page_index.crc32");
  EXPECT_EQ(w.meta.key_value_metadata[3].key, "floe.footer.crc32");
  EXPECT_EQ(w.meta.column_orders, std::vector<ColumnOrder>(2, ColumnOrder::kTypeDefinedOrder));
  const SchemaElement& s = w.meta.schema[2];
  EXPECT_EQ(s.field_id, 12);
  EXPECT_EQ(s.repetition_type, FieldRepetitionType::kOptional);
  EXPECT_EQ(s.converted_type, ConvertedType::kUtf8);
  EXPECT_EQ(s.logical_type->kind, LogicalType::Kind::kString);
  EXPECT_EQ(w.meta.schema[1].repetition_type, FieldRepetitionType::kRequired);
}

TEST(WriterTest, DecimalPhysicalTypeFollowsPrecision) {
  EXPECT_EQ(DecimalFixedLength(19), 9);
  EXPECT_EQ(DecimalFixedLength(38), 16);
  EXPECT_EQ(DecimalFixedLength(1), 1);
  EXPECT_EQ(DecimalFixedLength(2), 1);
  EXPECT_EQ(DecimalFixedLength(3), 2);
  auto ws = MakeWriteSchema(*SchemaOf({{"a", columnar::Decimal128(9, 2), true, 1},
                                       {"b", columnar::Decimal128(18, 2), true, 2},
                                       {"c", columnar::Decimal128(20, 2), true, 3}}));
  ASSERT_TRUE(ws.has_value());
  EXPECT_EQ(ws->elements[1].type, PhysicalType::kInt32);
  EXPECT_EQ(ws->elements[2].type, PhysicalType::kInt64);
  EXPECT_EQ(ws->elements[3].type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(ws->elements[3].type_length, 9);
  EXPECT_EQ(ws->elements[3].precision, 20);
  EXPECT_EQ(ws->elements[3].scale, 2);
  EXPECT_EQ(ws->elements[3].converted_type, ConvertedType::kDecimal);
}

TEST(WriterTest, LowCardinalityKeepsItsDictionaryAndUniqueIntegersGoDelta) {
  auto schema =
      SchemaOf({{"low", columnar::String(), false, 1}, {"ts", columnar::Int64(), false, 2}});
  const int64_t n = 50000;
  auto w = WriteAll(
      schema, {BatchOf(schema, {Strings(n, [](int64_t i) { return "c" + std::to_string(i % 7); }),
                                Int64s(n, [](int64_t i) { return 1700000000000 + i * 1000; })})});
  const ColumnMetaData& low = *w.meta.row_groups[0].columns[0].meta_data;
  EXPECT_TRUE(low.dictionary_page_offset.has_value());
  EXPECT_EQ(low.encodings,
            (std::vector<Encoding>{Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary}));
  ASSERT_NE(FindStats(low, PageType::kDictionaryPage, Encoding::kPlain), nullptr);
  ASSERT_NE(FindStats(low, PageType::kDataPage, Encoding::kRleDictionary), nullptr);
  EXPECT_EQ(FindStats(low, PageType::kDataPage, Encoding::kRleDictionary)->count,
            3);  // 20000 rows/page
  EXPECT_EQ(FindStats(low, PageType::kDataPage, Encoding::kPlain), nullptr);
  // Unique, evenly spaced: the first page shows the dictionary does not pay; deltas do.
  const ColumnMetaData& ts = *w.meta.row_groups[0].columns[1].meta_data;
  EXPECT_FALSE(ts.dictionary_page_offset.has_value());
  EXPECT_EQ(ts.encodings, (std::vector<Encoding>{Encoding::kRle, Encoding::kDeltaBinaryPacked}));
  EXPECT_LT(ts.total_compressed_size, 2000);
}

TEST(WriterTest, DictionaryFallsBackToPlainPastItsLimitKeepingEarlierPages) {
  auto schema = SchemaOf({{"hc", columnar::String(), false, 1}});
  const int64_t n = 20000;
  WriterOptions o;
  o.page_row_limit = 1000;
  o.dictionary_size_limit = 8 << 10;
  auto w = WriteAll(
      schema,
      {BatchOf(schema,
               {Strings(n, [](int64_t i) { return "user-" + std::to_string(100000 + i / 2); })})},
      o);
  const ColumnMetaData& md = *w.meta.row_groups[0].columns[0].meta_data;
  EXPECT_TRUE(md.dictionary_page_offset.has_value());
  const auto* dict_pages = FindStats(md, PageType::kDataPage, Encoding::kRleDictionary);
  const auto* plain_pages = FindStats(md, PageType::kDataPage, Encoding::kPlain);
  ASSERT_NE(dict_pages, nullptr);
  ASSERT_NE(plain_pages, nullptr);
  // 8 KiB of 15-byte entries (4-byte length + 11 bytes): the dictionary fills in ~1.1 pages.
  EXPECT_EQ(dict_pages->count, 2);
  EXPECT_EQ(dict_pages->count + plain_pages->count, 20);
  // The dictionary page leads the chunk; the offset index lists data pages only.
  EXPECT_EQ(*md.dictionary_page_offset, md.chunk_start());
  EXPECT_LT(*md.dictionary_page_offset, md.data_page_offset);
}

TEST(WriterTest, DisabledDictionaryWritesPlainAndDeltaOnly) {
  auto schema =
      SchemaOf({{"id", columnar::Int64(), false, 1}, {"s", columnar::String(), false, 2}});
  WriterOptions o;
  o.enable_dictionary = false;
  o.delta_binary_packed_for_integers = false;
  auto w =
      WriteAll(schema,
               {BatchOf(schema, {Int64s(100, [](int64_t i) { return i % 3; }),
                                 Strings(100, [](int64_t i) { return std::to_string(i % 3); })})},
               o);
  for (const auto& c : w.meta.row_groups[0].columns) {
    EXPECT_FALSE(c.meta_data->dictionary_page_offset.has_value());
    EXPECT_EQ(c.meta_data->encodings, (std::vector<Encoding>{Encoding::kPlain, Encoding::kRle}));
  }
}

// Page CRCs are on by default: every page, dictionary pages too, carries the CRC-32 of its
// stored bytes.
TEST(WriterTest, EveryPageCarriesItsCrcByDefault) {
  auto schema = SchemaOf({{"s", columnar::String(), true, 1}});
  WriterOptions o;
  o.page_row_limit = 1000;
  auto w = WriteAll(
      schema, {BatchOf(schema, {Strings(5000, [](int64_t i) { return std::to_string(i % 7); })})},
      o);
  const ColumnMetaData& m = *w.meta.row_groups[0].columns[0].meta_data;
  ByteView chunk = ByteView(w.bytes).subspan(static_cast<size_t>(m.chunk_start()),
                                             static_cast<size_t>(m.total_compressed_size));
  int pages = 0, dictionaries = 0;
  while (!chunk.empty()) {
    size_t len = 0;
    auto h = ParsePageHeader(chunk, &len);
    ASSERT_TRUE(h.has_value());
    ByteView stored = chunk.subspan(len, static_cast<size_t>(h->compressed_page_size));
    ASSERT_TRUE(h->crc.has_value());
    EXPECT_EQ(static_cast<uint32_t>(*h->crc), Crc32(stored));
    ++pages;
    dictionaries += h->type == PageType::kDictionaryPage;
    chunk = chunk.subspan(len + stored.size());
  }
  EXPECT_EQ(pages, 6);
  EXPECT_EQ(dictionaries, 1);
}

TEST(WriterTest, PageIndexPointsAtEveryDataPage) {
  auto schema = SchemaOf({{"k", columnar::Int64(), true, 1}});
  const int64_t n = 10000;
  WriterOptions o;
  o.page_row_limit = 1000;
  o.write_page_checksums = true;
  auto w = WriteAll(schema,
                    {BatchOf(schema, {Int64s(
                                         n, [](int64_t i) { return i; },
                                         [](int64_t i) { return i >= 3000 && i < 4000; })})},
                    o);
  const ColumnChunk& chunk = w.meta.row_groups[0].columns[0];
  ASSERT_TRUE(chunk.offset_index_offset && chunk.column_index_offset);
  ByteView file(w.bytes);
  auto oi = ParseOffsetIndex(file.subspan(*chunk.offset_index_offset, *chunk.offset_index_length));
  auto ci = ParseColumnIndex(file.subspan(*chunk.column_index_offset, *chunk.column_index_length));
  ASSERT_TRUE(oi.has_value() && ci.has_value());
  ASSERT_EQ(oi->page_locations.size(), 10u);
  ASSERT_EQ(ci->num_pages(), 10u);
  EXPECT_EQ(ci->boundary_order, BoundaryOrder::kAscending);
  int64_t rows = 0, bytes = 0;
  for (size_t p = 0; p < 10; ++p) {
    const PageLocation& loc = oi->page_locations[p];
    EXPECT_EQ(loc.first_row_index, rows);
    size_t header_len = 0;
    auto h = ParsePageHeader(file.subspan(loc.offset), &header_len);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(static_cast<int64_t>(header_len) + h->compressed_page_size, loc.compressed_page_size);
    ASSERT_TRUE(h->crc.has_value());
    ByteView page = file.subspan(loc.offset + header_len, h->compressed_page_size);
    EXPECT_EQ(static_cast<uint32_t>(*h->crc),
              crc32(crc32(0L, Z_NULL, 0), page.data(), static_cast<uInt>(page.size())));
    rows += h->data_page_header->num_values;
    bytes += loc.compressed_page_size;
    EXPECT_EQ(ci->null_pages[p], p == 3);
    EXPECT_EQ((*ci->null_counts)[p], p == 3 ? 1000 : 0);
    if (p != 3) {
      int64_t lo, hi;
      std::memcpy(&lo, ci->min_values[p].data(), 8);
      std::memcpy(&hi, ci->max_values[p].data(), 8);
      EXPECT_EQ(lo, static_cast<int64_t>(p) * 1000);
      EXPECT_EQ(hi, static_cast<int64_t>(p) * 1000 + 999);
    }
  }
  EXPECT_EQ(rows, n);
  EXPECT_EQ(oi->page_locations[0].offset, chunk.meta_data->data_page_offset);
}

TEST(WriterTest, LargeValuesStillMakePagesOfAboutThePageSize) {
  auto schema = SchemaOf({{"blob", columnar::Binary(), false, 1}});
  WriterOptions o;
  o.page_size_bytes = 1 << 20;
  o.codec = CompressionCodec::kUncompressed;
  auto w = WriteAll(
      schema,
      {BatchOf(schema,
               {Strings(
                   20, [](int64_t i) { return std::string(600 << 10, static_cast<char>('a' + i)); },
                   columnar::Binary())})},
      o);
  const ColumnChunk& chunk = w.meta.row_groups[0].columns[0];
  auto oi = ParseOffsetIndex(
      ByteView(w.bytes).subspan(*chunk.offset_index_offset, *chunk.offset_index_length));
  ASSERT_TRUE(oi.has_value());
  EXPECT_GE(oi->page_locations.size(), 10u);
  for (const auto& loc : oi->page_locations) EXPECT_LT(loc.compressed_page_size, 2 << 20);
  EXPECT_FALSE(chunk.meta_data->dictionary_page_offset.has_value());
}

TEST(WriterTest, DataPageV2CountsNullsAndRows) {
  auto schema = SchemaOf({{"k", columnar::Int64(), true, 1}});
  WriterOptions o;
  o.data_page_version = DataPageVersion::kV2;
  auto w = WriteAll(schema,
                    {BatchOf(schema, {Int64s(
                                         100, [](int64_t i) { return i; },
                                         [](int64_t i) { return i % 4 == 0; })})},
                    o);
  const ColumnMetaData& md = *w.meta.row_groups[0].columns[0].meta_data;
  size_t len = 0;
  auto h = ParsePageHeader(ByteView(w.bytes).subspan(md.data_page_offset), &len);
  ASSERT_TRUE(h.has_value());
  ASSERT_TRUE(h->data_page_header_v2.has_value());
  EXPECT_EQ(h->data_page_header_v2->num_values, 100);
  EXPECT_EQ(h->data_page_header_v2->num_rows, 100);
  EXPECT_EQ(h->data_page_header_v2->num_nulls, 25);
  EXPECT_GT(h->data_page_header_v2->definition_levels_byte_length, 0);
  EXPECT_EQ(h->data_page_header_v2->repetition_levels_byte_length, 0);
}

TEST(WriterTest, RowGroupsAreCutByRowsAndTheMetricsAddUp) {
  auto schema = SchemaOf({{"id", columnar::Int64(), false, 1}, {"s", columnar::String(), true, 2}});
  WriterOptions o;
  o.row_group_row_limit = 300;
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 4; ++b) {
    batches.push_back(
        BatchOf(schema, {Int64s(250, [b](int64_t i) { return b * 250 + i; }),
                         Strings(250, [](int64_t i) { return std::string(i % 5, 'x'); })}));
  }
  auto w = WriteAll(schema, batches, o);
  ASSERT_EQ(w.meta.row_groups.size(), 4u);  // 300 + 300 + 300 + 100
  EXPECT_EQ(w.file.row_group_rows, (std::vector<int64_t>{300, 300, 300, 100}));
  EXPECT_EQ(w.file.num_rows, 1000);
  EXPECT_EQ(w.file.file_size, static_cast<int64_t>(w.bytes.size()));
  ASSERT_EQ(w.file.split_offsets.size(), 4u);
  EXPECT_EQ(w.file.split_offsets[0], 4);
  int64_t id_bytes = 0;
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(w.file.split_offsets[r], w.meta.row_groups[r].columns[0].meta_data->chunk_start());
    EXPECT_EQ(w.meta.row_groups[r].file_offset, w.file.split_offsets[r]);
    id_bytes += w.meta.row_groups[r].columns[0].meta_data->total_compressed_size;
    const Statistics& st = *w.meta.row_groups[r].columns[0].meta_data->statistics;
    int64_t lo;
    std::memcpy(&lo, st.min_value->data(), 8);
    EXPECT_EQ(lo, static_cast<int64_t>(r) * 300);
  }
  const ColumnMetrics& id = w.file.columns[0];
  EXPECT_EQ(id.compressed_size, id_bytes);
  EXPECT_EQ(id.num_values, 1000);
  EXPECT_EQ(id.null_count, 0);
  EXPECT_FALSE(id.nan_count.has_value());
  int64_t lo, hi;
  std::memcpy(&lo, id.min->data(), 8);
  std::memcpy(&hi, id.max->data(), 8);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 999);
  EXPECT_EQ(w.file.columns[1].min, "");
  EXPECT_EQ(w.file.columns[1].max, "xxxx");
  EXPECT_EQ(w.file.columns[1].field_id, 2);
}

TEST(WriterTest, RowGroupsAreCutByBufferedBytes) {
  auto schema = SchemaOf({{"v", columnar::Int64(), false, 1}});
  WriterOptions o;
  o.row_group_size_bytes = 64 << 10;
  o.page_size_bytes = 8 << 10;
  o.codec = CompressionCodec::kUncompressed;
  o.enable_dictionary = false;
  o.delta_binary_packed_for_integers = false;
  // 8 bytes a row, PLAIN and uncompressed: 64 KiB is about 8192 rows.
  auto w =
      WriteAll(schema, {BatchOf(schema, {Int64s(100000, [](int64_t i) { return i * 7919; })})}, o);
  ASSERT_GE(w.meta.row_groups.size(), 12u);
  for (size_t r = 0; r + 1 < w.meta.row_groups.size(); ++r) {
    const int64_t size = w.meta.row_groups[r].columns[0].meta_data->total_compressed_size;
    EXPECT_GT(size, 60 << 10) << r;
    EXPECT_LT(size, 80 << 10) << r;
  }
}

TEST(WriterTest, EstimatedFileSizeGrowsWithBufferedRows) {
  auto schema = SchemaOf({{"v", columnar::Int64(), false, 1}});
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ((*w)->estimated_file_size(), 4);
  ASSERT_TRUE(
      (*w)->Write(BatchOf(schema, {Int64s(5000, [](int64_t i) { return i * i; })})).has_value());
  EXPECT_GT((*w)->estimated_file_size(), 4 + 5000);
  EXPECT_EQ((*w)->num_rows(), 5000);
  ASSERT_TRUE((*w)->FlushRowGroup().has_value());
  EXPECT_EQ((*w)->estimated_file_size(), sink.position());
}

TEST(WriterTest, BloomFiltersLandBehindTheDataWithTheirOffsets) {
  auto schema =
      SchemaOf({{"id", columnar::Int64(), false, 1}, {"other", columnar::Int64(), false, 2}});
  WriterOptions o;
  o.bloom_filter_columns = {{"id", 0.01, std::nullopt}};
  auto w = WriteAll(schema,
                    {BatchOf(schema, {Int64s(1000, [](int64_t i) { return i * 2; }),
                                      Int64s(1000, [](int64_t i) { return i; })})},
                    o);
  const ColumnMetaData& md = *w.meta.row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(md.bloom_filter_offset && md.bloom_filter_length);
  EXPECT_FALSE(w.meta.row_groups[0].columns[1].meta_data->bloom_filter_offset.has_value());
  EXPECT_GT(*md.bloom_filter_offset, w.meta.row_groups[0].columns[1].meta_data->data_page_offset);
  auto f = BloomFilter::Parse(
      ByteView(w.bytes).subspan(*md.bloom_filter_offset, *md.bloom_filter_length));
  ASSERT_TRUE(f.has_value());
  // Sized from the chunk's 1000 distinct values at 1%: 1000 * 9.7 bits = 1210 bytes -> 2 KiB.
  EXPECT_EQ(f->num_bytes(), 2048);
  for (int64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f->MightContain(BloomFilter::Hash(i * 2)));
  int passed = 0;
  for (int64_t i = 0; i < 1000; ++i) passed += f->MightContain(BloomFilter::Hash(i * 2 + 1));
  EXPECT_LT(passed, 30);
}

}  // namespace
}  // namespace floe::parquet

namespace floe::parquet {
namespace {

// Co-located columns: their chunks of every row group lie behind all row groups, interleaved by
// row group, and every reader path still finds each chunk by its offsets.
TEST(WriterTest, ColocatedColumnsLieBehindTheRowGroupsAndReadBackTheSame) {
  WriterOptions o;
  o.row_group_row_limit = 1'000;
  o.page_row_limit = 250;
  auto plain = testing::WriteInt64File(4, 9'500, 0, o).value();
  o.colocated_columns = {"c1", "c2"};
  auto moved = testing::WriteInt64File(4, 9'500, 0, o).value();
  EXPECT_EQ(moved.written.split_offsets.size(), 10u);

  auto open = [](const testing::FixtureFile& f) {
    auto opened = FileReader::Open("f", f.bytes.size(), f.bytes.view());
    EXPECT_TRUE(opened.has_value() && opened->reader.has_value());
    return std::move(*opened->reader);
  };
  FileReader a = open(plain), b = open(moved);
  const FileMetaData& md = b.metadata();
  int64_t kept_end = 0, moved_start = INT64_MAX, expect = -1;
  for (const RowGroup& rg : md.row_groups) {
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnMetaData& m = *rg.columns[c].meta_data;
      if (c == 1 || c == 2) {
        moved_start = std::min(moved_start, m.chunk_start());
        if (expect >= 0) {
          EXPECT_EQ(m.chunk_start(), expect);  // c1_0, c2_0, c1_1, ... in one run
        }
        expect = m.chunk_start() + m.total_compressed_size;
      } else {
        kept_end = std::max(kept_end, m.chunk_start() + m.total_compressed_size);
      }
    }
    EXPECT_EQ(*rg.file_offset, rg.columns[0].meta_data->chunk_start());
  }
  EXPECT_GE(moved_start, kept_end);

  auto read = [](const FileReader& r, const testing::FixtureFile& f, ReadOptions opts) {
    auto plan = r.Plan(opts);
    EXPECT_TRUE(plan.has_value());
    FetchedBytes all;
    all.Add(0, f.bytes);
    if (opts.use_page_index) EXPECT_TRUE(r.ApplyPageIndex(all, &*plan).has_value());
    auto batches = r.ReadAll(std::move(*plan), std::move(all));
    EXPECT_TRUE(batches.has_value()) << batches.error().ToString();
    std::vector<int64_t> values;
    for (const auto& batch : *batches)
      for (const auto& col : batch.columns)
        for (int64_t i = 0; i < col->length; ++i) values.push_back(col->Value<int64_t>(i));
    return values;
  };
  EXPECT_EQ(read(a, plain, {}), read(b, moved, {}));
  ReadOptions lookup;
  lookup.predicates = {ColumnPredicate::Equal("c0", int64_t{4'321})};
  lookup.use_page_index = true;
  EXPECT_EQ(read(a, plain, lookup), read(b, moved, lookup));
  ReadOptions lookup_by_group;  // row-group statistics only
  lookup_by_group.predicates = lookup.predicates;
  EXPECT_EQ(read(b, moved, lookup_by_group).size(), 4'000u);  // one row group of 4 columns
  // A scan of the co-located columns is one contiguous range; of all columns of one row group,
  // two (its own chunks, then its pair in the co-located run).
  ReadOptions pair;
  pair.columns = {"c1", "c2"};
  std::vector<ByteRange> ranges;
  for (const PlannedRange& r : b.Plan(pair)->DataRanges()) ranges.push_back(r.range);
  EXPECT_EQ(CoalesceRanges(ranges, 0).size(), 1u);
  ranges.clear();
  for (const PlannedRange& r : b.Plan(lookup_by_group)->DataRanges()) ranges.push_back(r.range);
  EXPECT_EQ(CoalesceRanges(ranges, 0).size(), 2u);
}

TEST(WriterTest, ColocatedColumnMustExist) {
  WriterOptions o;
  o.colocated_columns = {"nope"};
  auto f = testing::WriteInt64File(2, 10, 0, o);
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().message, "Parquet writer: co-located column 'nope' is not in the schema");
}

// MeasureFileSize is what the file will be, not what it buffers: within 3% of the closed file's
// size for compressible, dictionary-encoded and incompressible columns, where the buffered
// estimate ran several times over (files were cut at a tenth of their target).
TEST(WriterTest, MeasureFileSizeIsTheClosedFilesSize) {
  auto schema = SchemaOf({{"id", columnar::Int64(), false, 1},
                          {"cat", columnar::String(), true, 2},
                          {"noise", columnar::String(), true, 3}});
  const int64_t n = 15000;  // open pages (the page row limit is 20,000) hold every row
  RecordBatch batch = BatchOf(
      schema,
      {Int64s(n, [](int64_t i) { return i * 7; }),
       Strings(n, [](int64_t i) { return std::string("category-") + std::to_string(i % 13); }),
       Strings(n, [](int64_t i) {
         uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
         return std::to_string(x ^ (x >> 29));
       })});
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_TRUE(w) << w.error().ToString();
  ASSERT_TRUE((*w)->Write(batch));
  const int64_t buffered = (*w)->estimated_file_size();
  auto measured = (*w)->MeasureFileSize();
  ASSERT_TRUE(measured) << measured.error().ToString();
  auto file = (*w)->Close();
  ASSERT_TRUE(file) << file.error().ToString();
  const double actual = static_cast<double>(file->file_size);
  EXPECT_NEAR(static_cast<double>(*measured), actual, 0.03 * actual)
      << "buffered estimate " << buffered;
  EXPECT_GT(static_cast<double>(buffered), 1.5 * actual);  // what cutting used to go by
}

// A pool encodes the leaves at once; the file's bytes are exactly those of one thread, through
// several row groups, dictionary and plain pages, NULLs, strings, and MeasureFileSize between
// writes (which closes the open pages of every leaf).
TEST(WriterTest, APoolWritesTheSameBytesAsOneThread) {
  auto schema =
      SchemaOf({Field{"id", columnar::Int64(), false, 1}, Field{"k", columnar::Int64(), true, 2},
                Field{"s", columnar::String(), true, 3}, Field{"u", columnar::String(), true, 4}});
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 4; ++b) {
    const int64_t n = 30'000, base = b * n;
    batches.push_back(BatchOf(
        schema, {Int64s(n, [&](int64_t i) { return base + i; }),
                 Int64s(
                     n, [](int64_t i) { return i % 97; }, [](int64_t i) { return i % 13 == 0; }),
                 Strings(n, [](int64_t i) { return "v" + std::to_string(i % 50); }),
                 Strings(n, [&](int64_t i) {
                   return std::to_string((base + i) * 2654435761 % 1'000'000'007);
                 })}));
  }
  auto write = [&](ThreadPool* pool) {
    WriterOptions o;
    o.row_group_size_bytes = 256 << 10;
    o.pool = pool;
    MemorySink sink;
    auto w = ParquetWriter::Open(schema, &sink, o);
    EXPECT_TRUE(w.has_value()) << w.error().ToString();
    std::vector<int64_t> measured;
    for (const auto& b : batches) {
      EXPECT_TRUE((*w)->Write(b).has_value());
      auto m = (*w)->MeasureFileSize();
      EXPECT_TRUE(m.has_value());
      measured.push_back(m.value_or(-1));
    }
    EXPECT_TRUE((*w)->Close().has_value());
    return std::pair{sink.Release(), measured};
  };
  ThreadPool pool(3);
  const auto [serial, serial_measured] = write(nullptr);
  const auto [parallel, parallel_measured] = write(&pool);
  EXPECT_GT(serial.size(), 512u << 10);
  EXPECT_TRUE(serial == parallel) << serial.size() << " vs " << parallel.size();
  EXPECT_EQ(serial_measured, parallel_measured);
  auto tail = ParseFooter("p.parquet", parallel.size(), parallel);
  ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
  EXPECT_GT(tail->metadata->row_groups.size(), 2u);
}

// `column` carrying `entries` as its dictionary: row i's code is that of its value in `entries`
// (any code where it is NULL), as a column decoded from dictionary pages.
ColumnPtr WithCodes(const ColumnPtr& column, const ColumnPtr& entries) {
  auto c = std::make_shared<columnar::Column>(*column);
  std::map<std::string_view, int32_t> code_of;
  for (int64_t e = 0; e < entries->length; ++e)
    code_of[entries->BytesAt(e)] = static_cast<int32_t>(e);
  std::vector<uint8_t> codes(static_cast<size_t>(column->length) * 4, 0);
  for (int64_t i = 0; i < column->length; ++i) {
    if (column->IsNull(i)) continue;
    auto it = code_of.find(column->BytesAt(i));
    EXPECT_NE(it, code_of.end()) << i;
    if (it != code_of.end()) std::memcpy(codes.data() + i * 4, &it->second, 4);
  }
  c->dictionary = entries;
  c->codes = Buffer(std::move(codes));
  return c;
}

TEST(WriterTest, StringsWithTheirDecodersCodesWriteTheSameBytesAsWithout) {
  auto schema = SchemaOf({Field{"s", columnar::String(), true, 1}});
  // Two batches over two input dictionaries (more entries than the rows use, in another order than
  // the rows first use them), NULLs, and a third batch whose distinct values pass the dictionary
  // limit (the writer falls back to PLAIN mid-chunk); then a small limit that cuts the dictionary
  // in the first batch.
  const ColumnPtr first_entries =
      Strings(6, [](int64_t i) { return std::string("v") + std::to_string(5 - i); });
  const ColumnPtr second_entries =
      Strings(9, [](int64_t i) { return std::string("v") + std::to_string(i * 2); });
  auto batch = [&](int64_t n, int mod, const ColumnPtr& entries) {
    BinaryBuilder b;
    for (int64_t i = 0; i < n; ++i) {
      if (i % 7 == 3) {
        b.AppendNull();
      } else {
        EXPECT_TRUE(b.Append(std::string(entries->BytesAt((i * 5) % mod))).has_value());
      }
    }
    return b.Finish();
  };
  const ColumnPtr a = batch(20'000, 4, first_entries);
  const ColumnPtr b = batch(30'000, 9, second_entries);
  const ColumnPtr many = Strings(40'000, [](int64_t i) { return "w" + std::to_string(i); });
  const ColumnPtr many_entries = many;  // every value its own entry
  for (int64_t limit : {int64_t{1} << 20, int64_t{40}}) {
    WriterOptions o;
    o.dictionary_size_limit = limit;
    o.page_row_limit = 6000;
    const Written plain =
        WriteAll(schema, {BatchOf(schema, {a}), BatchOf(schema, {b}), BatchOf(schema, {many})}, o);
    const Written coded = WriteAll(schema,
                                   {BatchOf(schema, {WithCodes(a, first_entries)}),
                                    BatchOf(schema, {WithCodes(b, second_entries)}),
                                    BatchOf(schema, {WithCodes(many, many_entries)})},
                                   o);
    EXPECT_TRUE(plain.bytes == coded.bytes) << "limit " << limit;
    ASSERT_EQ(plain.meta.row_groups.size(), 1u);
    const ColumnMetaData& md = *plain.meta.row_groups[0].columns[0].meta_data;
    EXPECT_NE(FindStats(md, PageType::kDataPage, Encoding::kRleDictionary), nullptr) << limit;
  }
}

}  // namespace
}  // namespace floe::parquet
