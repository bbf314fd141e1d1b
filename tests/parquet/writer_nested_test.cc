// The Parquet writer's nested columns: list, struct and map at any depth, shredded into
// repetition and definition levels, read back by floe's reader; levels checked on a hand-worked
// example; pages cut only where a row starts.
#include <gtest/gtest.h>

#include <cstring>

#include "floe/columnar/column_builder.h"
#include "floe/io/mem_store.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/page_index.h"
#include "floe/parquet/read_file.h"
#include "floe/parquet/record_shredder.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"
#include "floe/parquet/writer.h"

namespace floe::parquet {
namespace {

using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Field;
using columnar::FixedWidthBuilder;
using columnar::RecordBatch;

Buffer Validity(const std::vector<bool>& valid, int64_t* nulls) {
  columnar::ValidityBuilder b;
  *nulls = 0;
  for (bool v : valid) {
    v ? b.AppendValid() : b.AppendNull();
    *nulls += !v;
  }
  return *nulls > 0 ? b.Finish() : Buffer();
}

// A list or map column: row i holds [offsets[i], offsets[i + 1]) of `child`; null where !valid.
ColumnPtr ListOf(DataType type, std::vector<int32_t> offsets, const std::vector<bool>& valid,
                 ColumnPtr child) {
  auto c = std::make_shared<Column>();
  c->type = std::move(type);
  c->length = static_cast<int64_t>(valid.size());
  c->validity = Validity(valid, &c->null_count);
  c->offsets = Buffer::Adopt(std::move(offsets));
  c->children = {std::move(child)};
  return c;
}

ColumnPtr StructOf(DataType type, const std::vector<bool>& valid, std::vector<ColumnPtr> children) {
  auto c = std::make_shared<Column>();
  c->type = std::move(type);
  c->length = static_cast<int64_t>(valid.size());
  c->validity = Validity(valid, &c->null_count);
  c->children = std::move(children);
  return c;
}

template <typename T>
ColumnPtr Values(DataType type, const std::vector<std::optional<T>>& values) {
  FixedWidthBuilder<T> b(std::move(type));
  for (const auto& v : values) v ? b.Append(*v) : b.AppendNull();
  return b.Finish();
}

ColumnPtr Strings(const std::vector<std::optional<std::string>>& values) {
  columnar::BinaryBuilder b;
  for (const auto& v : values) {
    if (v) {
      EXPECT_TRUE(b.Append(*v).has_value());
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

using I32 = std::optional<int32_t>;
using I64 = std::optional<int64_t>;
using Str = std::optional<std::string>;

// ll: list<list<int32>>, rows [[1], [2, 3]], [[]], NULL, [NULL, [4]], [[5, NULL]].
Field ListOfListField() {
  return {
      "ll",
      columnar::List({"element", columnar::List({"element", columnar::Int32(), true, 4}), true, 3}),
      true, 2};
}
ColumnPtr ListOfList() {
  Field f = ListOfListField();
  const DataType& inner = f.type.children[0].type;
  auto leaf = Values<int32_t>(columnar::Int32(), {1, 2, 3, 4, 5, std::nullopt});
  // Inner lists: [1], [2, 3], [], NULL, [4], [5, NULL].
  auto lists =
      ListOf(inner, {0, 1, 3, 3, 3, 4, 6}, {true, true, true, false, true, true}, std::move(leaf));
  return ListOf(f.type, {0, 2, 3, 3, 5, 6}, {true, true, false, true, true}, std::move(lists));
}

struct Table {
  columnar::SchemaPtr schema;
  RecordBatch batch;
};

// Every shape at once, with a null at each level, empty lists, a map with null values, a
// struct of a list and a list of structs.
Table MakeTable() {
  Field s{
      "s",
      columnar::Struct({{"x", columnar::Int32(), true, 11},
                        {"y", columnar::String(), false, 12},
                        {"l", columnar::List({"element", columnar::Int64(), true, 14}), true, 13}}),
      true, 10};
  Field m{
      "m",
      columnar::Map({"key", columnar::String(), false, 21}, {"value", columnar::Int64(), true, 22}),
      true, 20};
  Field ls{"ls",
           columnar::List({"element",
                           columnar::Struct({{"a", columnar::Int32(), true, 32},
                                             {"b", columnar::String(), true, 33}}),
                           true, 31}),
           false, 30};
  auto schema = std::make_shared<columnar::Schema>();
  schema->fields = {{"id", columnar::Int64(), false, 1}, s, m, ls, ListOfListField()};

  auto id = Values<int64_t>(columnar::Int64(), {0, 1, 2, 3, 4});
  // s: {1, "a", [1, 2]}, NULL, {NULL, "c", []}, {4, "d", NULL}, {5, "e", [NULL, 7]}.
  auto sl = ListOf(s.type.children[2].type, {0, 2, 2, 2, 2, 4}, {true, true, true, false, true},
                   Values<int64_t>(columnar::Int64(), {1, 2, std::nullopt, 7}));
  auto sc = StructOf(s.type, {true, false, true, true, true},
                     {Values<int32_t>(columnar::Int32(), {1, 0, std::nullopt, 4, 5}),
                      Strings({"a", "", "c", "d", "e"}), sl});
  // m: {k1: 1}, {}, NULL, {k2: NULL, k3: 3}, {k4: 4}.
  auto entries = StructOf(m.type.children[0].type, {true, true, true, true},
                          {Strings({"k1", "k2", "k3", "k4"}),
                           Values<int64_t>(columnar::Int64(), {1, std::nullopt, 3, 4})});
  auto mc = ListOf(m.type, {0, 1, 1, 1, 3, 4}, {true, true, false, true, true}, entries);
  // ls (required): [{1, "x"}], [], [NULL, {2, NULL}], [{3, "z"}, {NULL, "w"}], [].
  auto elems = StructOf(ls.type.children[0].type, {true, false, true, true, true},
                        {Values<int32_t>(columnar::Int32(), {1, 0, 2, 3, std::nullopt}),
                         Strings({"x", std::nullopt, std::nullopt, "z", "w"})});
  auto lsc = ListOf(ls.type, {0, 1, 1, 3, 5, 5}, {true, true, true, true, true}, elems);

  RecordBatch b;
  b.schema = schema;
  b.num_rows = 5;
  b.columns = {id, sc, mc, lsc, ListOfList()};
  return {schema, std::move(b)};
}

std::vector<uint8_t> Write(const Table& t, WriterOptions options,
                           const std::vector<RecordBatch>& batches,
                           WrittenFile* written = nullptr) {
  MemorySink sink;
  auto w = ParquetWriter::Open(t.schema, &sink, std::move(options));
  EXPECT_TRUE(w.has_value()) << w.error().ToString();
  if (!w) return {};
  for (const auto& b : batches) {
    auto s = (*w)->Write(b);
    EXPECT_TRUE(s.has_value()) << s.error().ToString();
  }
  auto f = (*w)->Close();
  EXPECT_TRUE(f.has_value()) << f.error().ToString();
  if (written != nullptr && f) *written = *f;
  return sink.Release();
}

std::vector<std::vector<std::string>> Render(const std::vector<RecordBatch>& batches) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      std::vector<std::string> row;
      for (const auto& c : b.columns) row.push_back(columnar::ValueToString(*c, r));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<RecordBatch> ReadBack(const std::vector<uint8_t>& bytes, columnar::SchemaPtr* schema) {
  auto mem = io::MemStore::Open("writer_nested_test");
  EXPECT_TRUE(mem.has_value());
  EXPECT_TRUE((*mem)->Put("n.parquet", bytes).has_value());
  auto r = ReadFileAll(**mem, "n.parquet", {bytes.size()});
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  if (!r) return {};
  if (schema != nullptr) *schema = r->read.schema;
  return r->batches;
}

TEST(WriterNestedTest, RoundTripsEveryShape) {
  const Table t = MakeTable();
  const auto want = Render({t.batch});
  ASSERT_EQ(want[1][1], "NULL");
  for (auto version : {DataPageVersion::kV1, DataPageVersion::kV2}) {
    for (bool dictionary : {true, false}) {
      for (int64_t page_rows : {int64_t{1}, int64_t{2}, int64_t{20'000}}) {
        SCOPED_TRACE(testing::Message() << "v2 " << (version == DataPageVersion::kV2) << " dict "
                                        << dictionary << " page rows " << page_rows);
        WriterOptions o;
        o.data_page_version = version;
        o.enable_dictionary = dictionary;
        o.page_row_limit = page_rows;
        // Twice: two row groups.
        o.row_group_row_limit = 5;
        const auto bytes = Write(t, o, {t.batch, t.batch});
        columnar::SchemaPtr schema;
        const auto got = ReadBack(bytes, &schema);
        ASSERT_TRUE(schema);
        // (Equal but for the name of the map entries struct: "key_value" in Parquet.)
        EXPECT_EQ(schema->ToString(), t.schema->ToString());
        auto twice = want;
        twice.insert(twice.end(), want.begin(), want.end());
        EXPECT_EQ(Render(got), twice);
      }
    }
  }
}

TEST(WriterNestedTest, SchemaIsThreeLevelListAndKeyValueMapWithFieldIds) {
  const Table t = MakeTable();
  const auto bytes = Write(t, {}, {t.batch});
  auto tail = ParseFooter("n.parquet", bytes.size(), bytes);
  ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
  std::vector<std::string> got;
  for (const SchemaElement& e : tail->metadata->schema) {
    std::string r = e.repetition_type == FieldRepetitionType::kRequired   ? "required"
                    : e.repetition_type == FieldRepetitionType::kOptional ? "optional"
                    : e.repetition_type == FieldRepetitionType::kRepeated ? "repeated"
                                                                          : "root";
    std::string logical;
    if (e.logical_type && e.logical_type->kind == LogicalType::Kind::kList) logical = " LIST";
    if (e.logical_type && e.logical_type->kind == LogicalType::Kind::kMap) logical = " MAP";
    got.push_back(fmt::format("{} {}{} id={} children={}", r, e.name, logical,
                              e.field_id.value_or(-1), e.num_children.value_or(0)));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "root schema id=-1 children=5",      "required id id=1 children=0",
                     "optional s id=10 children=3",       "optional x id=11 children=0",
                     "required y id=12 children=0",       "optional l LIST id=13 children=1",
                     "repeated list id=-1 children=1",    "optional element id=14 children=0",
                     "optional m MAP id=20 children=1",   "repeated key_value id=-1 children=2",
                     "required key id=21 children=0",     "optional value id=22 children=0",
                     "required ls LIST id=30 children=1", "repeated list id=-1 children=1",
                     "optional element id=31 children=2", "optional a id=32 children=0",
                     "optional b id=33 children=0",       "optional ll LIST id=2 children=1",
                     "repeated list id=-1 children=1",    "optional element LIST id=3 children=1",
                     "repeated list id=-1 children=1",    "optional element id=4 children=0",
                 }));
  // Chunk metadata: paths, level entries as num_values, nulls counted over levels.
  const RowGroup& rg = tail->metadata->row_groups.at(0);
  ASSERT_EQ(rg.columns.size(), 9u);
  const ColumnMetaData& ll = *rg.columns[8].meta_data;
  EXPECT_EQ(ll.path_in_schema,
            (std::vector<std::string>{"ll", "list", "element", "list", "element"}));
  EXPECT_EQ(ll.num_values, 9);
  ASSERT_TRUE(ll.statistics.has_value());
  EXPECT_EQ(ll.statistics->null_count, 4);  // NULL list, empty inner, NULL inner, NULL value
}

// The hand-worked example: ll's leaf has max repetition 2 and max definition 5 (ll optional 1,
// list 2, element optional 3, inner list 4, inner element optional 5).
//   [[1], [2, 3]]  -> (0,5) 1, (1,5) 2, (2,5) 3
//   [[]]           -> (0,3)
//   NULL           -> (0,0)
//   [NULL, [4]]    -> (0,2), (1,5) 4
//   [[5, NULL]]    -> (0,5) 5, (2,4)
const std::vector<int16_t> kRep = {0, 1, 2, 0, 0, 0, 1, 0, 2};
const std::vector<int16_t> kDef = {5, 5, 5, 3, 0, 2, 5, 5, 4};

TEST(WriterNestedTest, ShredsTheHandWorkedExample) {
  columnar::Schema schema;
  schema.fields = {ListOfListField()};
  auto ws = MakeWriteSchema(schema);
  ASSERT_TRUE(ws.has_value()) << ws.error().ToString();
  ASSERT_EQ(ws->leaves.size(), 1u);
  const LeafColumn& leaf = ws->leaves[0];
  EXPECT_EQ(leaf.max_repetition_level, 2);
  EXPECT_EQ(leaf.max_definition_level, 5);
  EXPECT_EQ(leaf.field_id, 4);
  ShreddedLeaf s;
  ASSERT_TRUE(ShredLeaf(leaf, schema.fields[0], *ListOfList(), 0, 5, &s).has_value());
  EXPECT_EQ(s.repetition_levels, kRep);
  EXPECT_EQ(s.definition_levels, kDef);
  ASSERT_TRUE(s.values);
  ASSERT_EQ(s.values->length, 5);
  EXPECT_EQ(s.values->null_count, 0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.values->Value<int32_t>(i), i + 1);
  // A slice starts at its first row.
  ASSERT_TRUE(ShredLeaf(leaf, schema.fields[0], *ListOfList(), 3, 2, &s).has_value());
  EXPECT_EQ(s.repetition_levels, (std::vector<int16_t>{0, 1, 0, 2}));
  EXPECT_EQ(s.definition_levels, (std::vector<int16_t>{2, 5, 5, 4}));
}

// The same levels as the page holds them: v1, rep levels then def levels, each behind a 4-byte
// length; v2, both without lengths and uncompressed, their sizes in the header.
TEST(WriterNestedTest, PageLevelsAreTheHybridEncodingOfTheExample) {
  auto schema = std::make_shared<columnar::Schema>();
  schema->fields = {ListOfListField()};
  RecordBatch b{schema, {ListOfList()}, 5};
  Table t{schema, b};
  for (auto version : {DataPageVersion::kV1, DataPageVersion::kV2}) {
    WriterOptions o;
    o.codec = CompressionCodec::kSnappy;
    o.data_page_version = version;
    o.enable_dictionary = false;
    const auto bytes = Write(t, o, {b});
    auto tail = ParseFooter("n.parquet", bytes.size(), bytes);
    ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
    const ColumnMetaData& md = *tail->metadata->row_groups.at(0).columns.at(0).meta_data;
    size_t header_len = 0;
    ByteView at(bytes.data() + md.data_page_offset, bytes.size() - md.data_page_offset);
    auto header = ParsePageHeader(at, &header_len);
    ASSERT_TRUE(header.has_value());
    ByteView stored = at.subspan(header_len, header->compressed_page_size);
    std::vector<uint8_t> levels;
    int bytes_rep = 0, bytes_def = 0;
    if (version == DataPageVersion::kV1) {
      ASSERT_TRUE(header->data_page_header.has_value());
      EXPECT_EQ(header->data_page_header->num_values, 9);
      auto codec = MakeCodec(CompressionCodec::kSnappy, {});
      ASSERT_TRUE(codec.has_value());
      levels.resize(header->uncompressed_page_size);
      ASSERT_TRUE((*codec)->Decompress(stored, levels).has_value());
      std::memcpy(&bytes_rep, levels.data(), 4);
      std::memcpy(&bytes_def, levels.data() + 4 + bytes_rep, 4);
      levels.erase(levels.begin() + 4 + bytes_rep, levels.begin() + 8 + bytes_rep);
      levels.erase(levels.begin(), levels.begin() + 4);
    } else {
      ASSERT_TRUE(header->data_page_header_v2.has_value());
      const DataPageHeaderV2& h = *header->data_page_header_v2;
      EXPECT_EQ(h.num_values, 9);
      EXPECT_EQ(h.num_rows, 5);
      EXPECT_EQ(h.num_nulls, 4);
      bytes_rep = h.repetition_levels_byte_length;
      bytes_def = h.definition_levels_byte_length;
      levels.assign(stored.begin(), stored.begin() + bytes_rep + bytes_def);
    }
    ASSERT_GT(bytes_rep, 0);
    ASSERT_GT(bytes_def, 0);
    std::vector<int16_t> rep(9), def(9);
    RleBitPackedHybridDecoder d;
    ASSERT_TRUE(d.Reset(ByteView(levels.data(), bytes_rep), 2).has_value());
    ASSERT_TRUE(d.Decode(std::span<int16_t>(rep)).has_value());
    ASSERT_TRUE(d.Reset(ByteView(levels.data() + bytes_rep, bytes_def), 3).has_value());
    ASSERT_TRUE(d.Decode(std::span<int16_t>(def)).has_value());
    EXPECT_EQ(rep, kRep);
    EXPECT_EQ(def, kDef);
  }
}

// A list column whose rows hold 0..6 values, in pages of at most 3 rows: every page starts a
// row, the offset index counts rows, v2 headers count rows and level entries apart.
TEST(WriterNestedTest, PagesAreCutAtRowBoundaries) {
  auto schema = std::make_shared<columnar::Schema>();
  Field f{"l", columnar::List({"element", columnar::Int64(), true, 2}), true, 1};
  schema->fields = {f};
  std::vector<int32_t> offsets = {0};
  std::vector<std::optional<int64_t>> values;
  std::vector<bool> valid;
  const int rows = 2000;
  for (int r = 0; r < rows; ++r) {
    valid.push_back(r % 11 != 5);
    if (valid.back()) {
      for (int k = 0; k < r % 7; ++k) {
        values.push_back(k == 3 ? std::nullopt : std::optional<int64_t>(r * 10 + k));
      }
    }
    offsets.push_back(static_cast<int32_t>(values.size()));
  }
  auto col = ListOf(f.type, offsets, valid, Values<int64_t>(columnar::Int64(), values));
  RecordBatch b{schema, {col}, rows};
  Table t{schema, b};
  for (auto version : {DataPageVersion::kV1, DataPageVersion::kV2}) {
    WriterOptions o;
    o.data_page_version = version;
    o.page_row_limit = 3;
    WrittenFile written;
    const auto bytes = Write(t, o, {b}, &written);
    auto tail = ParseFooter("n.parquet", bytes.size(), bytes);
    ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
    const ColumnChunk& chunk = tail->metadata->row_groups.at(0).columns.at(0);
    ASSERT_TRUE(chunk.offset_index_offset.has_value());
    auto oi = ParseOffsetIndex(ByteView(bytes.data() + *chunk.offset_index_offset,
                                        static_cast<size_t>(*chunk.offset_index_length)));
    ASSERT_TRUE(oi.has_value());
    ASSERT_EQ(oi->page_locations.size(), static_cast<size_t>((rows + 2) / 3));
    int64_t levels = 0;
    for (size_t p = 0; p < oi->page_locations.size(); ++p) {
      const PageLocation& loc = oi->page_locations[p];
      EXPECT_EQ(loc.first_row_index, static_cast<int64_t>(p) * 3);
      size_t header_len = 0;
      auto h = ParsePageHeader(
          ByteView(bytes.data() + loc.offset, static_cast<size_t>(loc.compressed_page_size)),
          &header_len);
      ASSERT_TRUE(h.has_value());
      // Level entries of the page's rows: one per value, one per null or empty list.
      int64_t want = 0;
      for (int64_t r = loc.first_row_index; r < std::min<int64_t>(loc.first_row_index + 3, rows);
           ++r) {
        want += std::max(offsets[r + 1] - offsets[r], 1);
      }
      if (version == DataPageVersion::kV2) {
        EXPECT_EQ(h->data_page_header_v2->num_rows,
                  std::min<int64_t>(3, rows - loc.first_row_index));
        EXPECT_EQ(h->data_page_header_v2->num_values, want);
      } else {
        EXPECT_EQ(h->data_page_header->num_values, want);
      }
      levels += want;
    }
    EXPECT_EQ(chunk.meta_data->num_values, levels);
    ASSERT_EQ(written.columns.size(), 1u);
    EXPECT_EQ(written.columns[0].num_values, levels);
    EXPECT_EQ(written.columns[0].max_repetition_level, 1);
    EXPECT_EQ(Render(ReadBack(bytes, nullptr)), Render({b}));
  }
}

TEST(WriterNestedTest, StatisticsBloomFilterAndSizesForNestedLeaves) {
  const Table t = MakeTable();
  WriterOptions o;
  o.bloom_filter_columns = {{"ls.list.element.b", 0.01, std::nullopt}};
  WrittenFile written;
  MemorySink sink;
  auto w = ParquetWriter::Open(t.schema, &sink, o);
  ASSERT_TRUE(w.has_value()) << w.error().ToString();
  ASSERT_TRUE((*w)->Write(t.batch).has_value());
  auto measured = (*w)->MeasureFileSize();
  ASSERT_TRUE(measured.has_value());
  EXPECT_GT(*measured, 0);
  auto f = (*w)->Close();
  ASSERT_TRUE(f.has_value()) << f.error().ToString();
  const auto bytes = sink.Release();
  // s.l.element: values 1, 2, NULL, 7; levels: 2 + NULL struct + empty + NULL list + 2.
  const ColumnMetrics* sle = nullptr;
  const ColumnMetrics* b = nullptr;
  const ColumnMetrics* x = nullptr;
  for (const auto& c : f->columns) {
    if (c.field_id == 14) sle = &c;
    if (c.field_id == 33) b = &c;
    if (c.field_id == 11) x = &c;
  }
  ASSERT_TRUE(sle && b && x);
  EXPECT_EQ(sle->num_values, 7);
  EXPECT_EQ(sle->null_count, 4);
  EXPECT_EQ(sle->max_repetition_level, 1);
  int64_t lo = 0, hi = 0;
  ASSERT_TRUE(sle->min && sle->max);
  std::memcpy(&lo, sle->min->data(), 8);
  std::memcpy(&hi, sle->max->data(), 8);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 7);
  EXPECT_GT(sle->compressed_size, 0);
  // s.x: one per row, the NULL struct counted as a null.
  EXPECT_EQ(x->num_values, 5);
  EXPECT_EQ(x->null_count, 2);
  EXPECT_EQ(x->max_repetition_level, 0);
  // ls.element.b: x, NULL (NULL struct), NULL, z, w, and two empty lists.
  EXPECT_EQ(b->num_values, 7);
  EXPECT_EQ(b->null_count, 4);
  auto tail = ParseFooter("n.parquet", bytes.size(), bytes);
  ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
  const ColumnMetaData& bmd = *tail->metadata->row_groups.at(0).columns.at(7).meta_data;
  EXPECT_EQ(bmd.path_in_schema, (std::vector<std::string>{"ls", "list", "element", "b"}));
  ASSERT_TRUE(bmd.bloom_filter_offset.has_value());
  ASSERT_TRUE(bmd.bloom_filter_length.has_value());
  auto bf = BloomFilter::Parse(ByteView(bytes.data() + *bmd.bloom_filter_offset,
                                        static_cast<size_t>(*bmd.bloom_filter_length)));
  ASSERT_TRUE(bf.has_value()) << bf.error().ToString();
  EXPECT_TRUE(bf->MightContain(BloomFilter::Hash(std::string_view("z"))));
  EXPECT_TRUE(bf->MightContain(BloomFilter::Hash(std::string_view("w"))));
}

// Rows of large strings: pages close near the page size, still at row boundaries.
TEST(WriterNestedTest, LargeValuesCutPagesBySizeAtRows) {
  auto schema = std::make_shared<columnar::Schema>();
  Field f{"l", columnar::List({"element", columnar::String(), true, 2}), true, 1};
  schema->fields = {f};
  std::vector<Str> values;
  std::vector<int32_t> offsets = {0};
  std::vector<bool> valid;
  for (int r = 0; r < 40; ++r) {
    for (int k = 0; k < 3; ++k)
      values.push_back(std::string(100'000, static_cast<char>('a' + r % 26)));
    offsets.push_back(static_cast<int32_t>(values.size()));
    valid.push_back(true);
  }
  RecordBatch b{schema, {ListOf(f.type, offsets, valid, Strings(values))}, 40};
  Table t{schema, b};
  WriterOptions o;
  o.page_size_bytes = 256 << 10;
  o.enable_dictionary = false;
  const auto bytes = Write(t, o, {b});
  auto tail = ParseFooter("n.parquet", bytes.size(), bytes);
  ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
  const ColumnChunk& chunk = tail->metadata->row_groups.at(0).columns.at(0);
  auto oi = ParseOffsetIndex(ByteView(bytes.data() + *chunk.offset_index_offset,
                                      static_cast<size_t>(*chunk.offset_index_length)));
  ASSERT_TRUE(oi.has_value());
  // 300 KB a row: no page holds more than one row past the 256 KB mark.
  ASSERT_EQ(oi->page_locations.size(), 40u);
  for (size_t p = 0; p < oi->page_locations.size(); ++p) {
    EXPECT_EQ(oi->page_locations[p].first_row_index, static_cast<int64_t>(p));
  }
  EXPECT_EQ(Render(ReadBack(bytes, nullptr)), Render({b}));
}

TEST(WriterNestedTest, RejectsANullUnderARequiredField) {
  auto schema = std::make_shared<columnar::Schema>();
  Field f{"l", columnar::List({"element", columnar::Int64(), false, 2}), true, 1};
  schema->fields = {f};
  auto col = ListOf(f.type, {0, 2}, {true}, Values<int64_t>(columnar::Int64(), {1, std::nullopt}));
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_TRUE(w.has_value());
  auto s = (*w)->Write(RecordBatch{schema, {col}, 1});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().ToString(),
            "invalid input: column 'l.list.element': required field 'element' holds a null");
}

}  // namespace
}  // namespace floe::parquet
