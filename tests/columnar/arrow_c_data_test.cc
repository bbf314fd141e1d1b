#include "floe/columnar/arrow_c_data.h"

#include <gtest/gtest.h>

#include "floe/columnar/arrow_c_stream.h"
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

// --- import ---

// An array as a producer (pyarrow, Polars) hands it over: buffers it owns, children, a release
// that counts its calls.
struct Producer {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<const void*> buffers;
  std::vector<ArrowArray*> children;
  int* releases = nullptr;
};

void ReleaseProducer(ArrowArray* a) {
  auto* p = static_cast<Producer*>(a->private_data);
  ++*p->releases;
  for (ArrowArray* c : p->children) {
    if (c->release != nullptr) c->release(c);
    delete c;
  }
  delete p;
  a->release = nullptr;
}

template <typename T>
std::vector<uint8_t> Bytes(std::vector<T> v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// `buffers`: nullopt for a null buffer pointer.
ArrowArray MakeArray(int64_t length, int64_t offset, int64_t null_count,
                     std::vector<std::optional<std::vector<uint8_t>>> buffers, int* releases,
                     std::vector<ArrowArray> children = {}) {
  auto* p = new Producer{};
  p->releases = releases;
  p->storage.reserve(buffers.size());
  for (auto& b : buffers) {
    if (b) {
      p->storage.push_back(std::move(*b));
      p->buffers.push_back(p->storage.back().data());
    } else {
      p->buffers.push_back(nullptr);
    }
  }
  for (auto& c : children) p->children.push_back(new ArrowArray(c));
  ArrowArray a{};
  a.length = length;
  a.offset = offset;
  a.null_count = null_count;
  a.n_buffers = static_cast<int64_t>(p->buffers.size());
  a.buffers = p->buffers.data();
  a.n_children = static_cast<int64_t>(p->children.size());
  a.children = p->children.empty() ? nullptr : p->children.data();
  a.release = ReleaseProducer;
  a.private_data = p;
  return a;
}

// A schema node (not released by the import; the test owns it).
struct SchemaNode {
  std::string format, name;
  std::vector<SchemaNode*> kids;
  std::vector<ArrowSchema*> ptrs;
  ArrowSchema schema{};
  SchemaNode(std::string f, std::string n, std::vector<SchemaNode*> children = {})
      : format(std::move(f)), name(std::move(n)), kids(std::move(children)) {
    for (auto* k : kids) ptrs.push_back(&k->schema);
    schema.format = format.c_str();
    schema.name = name.c_str();
    schema.flags = ARROW_FLAG_NULLABLE;
    schema.n_children = static_cast<int64_t>(ptrs.size());
    schema.children = ptrs.empty() ? nullptr : ptrs.data();
  }
};

std::vector<std::string> Values(const Column& c) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < c.length; ++i) out.push_back(ValueToString(c, i));
  return out;
}

TEST(ArrowCData, ImportOfAnExportedBatchUsesItsBuffersInPlace) {
  FixedWidthBuilder<int64_t> ids(Int64());
  BinaryBuilder names(String());
  for (int i = 0; i < 6; ++i) {
    ids.Append(i * 10);
    if (i == 4) {
      names.AppendNull();
    } else {
      ASSERT_TRUE(names.Append(std::string(i, 'x')).has_value());
    }
  }
  RecordBatch batch;
  batch.schema = std::make_shared<Schema>(
      Schema{{Field{"id", Int64(), false, 1}, Field{"name", String(), true, 2}}});
  batch.columns = {ids.Finish(), names.Finish()};
  batch.num_rows = 6;
  ArrowSchema schema;
  ArrowArray array;
  ASSERT_TRUE(ExportSchema(*batch.schema, &schema).has_value());
  ASSERT_TRUE(ExportBatch(batch, &array).has_value());

  auto imported_schema = ImportSchema(schema);
  ASSERT_TRUE(imported_schema.has_value()) << imported_schema.error().ToString();
  EXPECT_EQ(imported_schema->fields[0].name, "id");
  EXPECT_FALSE(imported_schema->fields[0].nullable);
  EXPECT_EQ(imported_schema->fields[1].type, String());
  auto ptr = std::make_shared<const Schema>(*imported_schema);
  auto back = ImportBatch(&array, schema, ptr);
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_EQ(array.release, nullptr);  // taken over
  EXPECT_EQ(back->num_rows, 6);
  EXPECT_EQ(back->columns[0]->values.data(), batch.columns[0]->values.data());  // no copy
  EXPECT_EQ(back->columns[1]->values.data(), batch.columns[1]->values.data());
  EXPECT_EQ(Values(*back->columns[0]),
            (std::vector<std::string>{"0", "10", "20", "30", "40", "50"}));
  EXPECT_EQ(Values(*back->columns[1]),
            (std::vector<std::string>{"''", "'x'", "'xx'", "'xxx'", "NULL", "'xxxxx'"}));
  schema.release(&schema);
}

TEST(ArrowCData, ImportConvertsOffsetsViewsAndUnitsToFloesLayout) {
  int releases = 0;
  // Rows 2..5 of each array (offset 2): bitmaps off a byte boundary, offsets not from zero.
  // large_string: "aa", "b", null, "cccc", "", "dd"
  ArrowArray large = MakeArray(4, 2, 1,
                               {Bytes<uint8_t>({0b111011}), Bytes<int64_t>({0, 2, 3, 3, 7, 7, 9}),
                                Bytes<uint8_t>({'a', 'a', 'b', 'c', 'c', 'c', 'c', 'd', 'd'})},
                               &releases);
  // string_view: "short" inline, then one of 20 bytes in a data buffer, at rows 2 and 3.
  std::vector<uint8_t> views(4 * 16, 0);
  auto put_view = [&](int row, int32_t len, const char* inline_bytes, int32_t buf, int32_t off) {
    std::memcpy(views.data() + row * 16, &len, 4);
    if (len <= 12) {
      std::memcpy(views.data() + row * 16 + 4, inline_bytes, static_cast<size_t>(len));
    } else {
      std::memcpy(views.data() + row * 16 + 4, inline_bytes, 4);
      std::memcpy(views.data() + row * 16 + 8, &buf, 4);
      std::memcpy(views.data() + row * 16 + 12, &off, 4);
    }
  };
  std::string long_value = "0123456789abcdefghij";
  put_view(2, 5, "short", 0, 0);
  put_view(3, 20, "0123", 0, 3);
  std::vector<uint8_t> data = Bytes<char>({'x', 'x', 'x'});
  data.insert(data.end(), long_value.begin(), long_value.end());
  ArrowArray view = MakeArray(
      2, 2, 0, {std::nullopt, views, data, Bytes<int64_t>({static_cast<int64_t>(data.size())})},
      &releases);
  // bool at offset 3: bits 3..6 of 0b0101'1000 -> 1, 1, 0, 1
  ArrowArray flags = MakeArray(4, 3, 0, {std::nullopt, Bytes<uint8_t>({0b01011000})}, &releases);
  // date64 milliseconds, one before the epoch (a floor, not a truncation).
  ArrowArray d64 =
      MakeArray(2, 0, 0, {std::nullopt, Bytes<int64_t>({86400000 * 3LL, -1})}, &releases);
  // dictionary: int8 indices (one null) over "red", "green".
  ArrowArray dict_values = MakeArray(2, 0, 0,
                                     {std::nullopt, Bytes<int32_t>({0, 3, 8}),
                                      Bytes<char>({'r', 'e', 'd', 'g', 'r', 'e', 'e', 'n'})},
                                     &releases);
  ArrowArray dict =
      MakeArray(3, 0, 1, {Bytes<uint8_t>({0b101}), Bytes<int8_t>({1, 7, 0})}, &releases);
  dict.dictionary = new ArrowArray(dict_values);
  auto* dict_owner = static_cast<Producer*>(dict.private_data);
  dict_owner->children.push_back(dict.dictionary);  // released with its parent

  SchemaNode s_large("U", "large"), s_view("vu", "view"), s_flags("b", "flags"),
      s_d64("tdm", "d64"), s_dict("c", "dict"), s_dict_values("u", "");
  s_dict.schema.dictionary = &s_dict_values.schema;
  SchemaNode root("+s", "", {&s_large, &s_view, &s_flags, &s_d64, &s_dict});

  auto schema = ImportSchema(root.schema);
  ASSERT_TRUE(schema.has_value()) << schema.error().ToString();
  EXPECT_EQ(schema->fields[0].type, String());
  EXPECT_EQ(schema->fields[1].type, String());
  EXPECT_EQ(schema->fields[3].type, Date32());
  EXPECT_EQ(schema->fields[4].type, String());  // a dictionary's values

  // Each column is imported on its own (its own length), as children of a struct of 4 rows
  // need not be; check them one by one through one-column batches.
  auto one = [&](ArrowArray child, SchemaNode& node) {
    SchemaNode r("+s", "", {&node});
    ArrowArray parent = MakeArray(child.length, 0, 0, {std::nullopt}, &releases, {child});
    auto s = ImportSchema(r.schema);
    EXPECT_TRUE(s.has_value());
    return ImportBatch(&parent, r.schema, std::make_shared<const Schema>(*s));
  };
  auto b_large = one(large, s_large);
  ASSERT_TRUE(b_large.has_value()) << b_large.error().ToString();
  EXPECT_EQ(Values(*b_large->columns[0]),
            (std::vector<std::string>{"NULL", "'cccc'", "''", "'dd'"}));
  EXPECT_EQ(b_large->columns[0]->Offsets()[0], 0);
  auto b_view = one(view, s_view);
  ASSERT_TRUE(b_view.has_value()) << b_view.error().ToString();
  EXPECT_EQ(Values(*b_view->columns[0]),
            (std::vector<std::string>{"'short'", "'" + long_value + "'"}));
  auto b_flags = one(flags, s_flags);
  ASSERT_TRUE(b_flags.has_value());
  EXPECT_EQ(Values(*b_flags->columns[0]),
            (std::vector<std::string>{"true", "true", "false", "true"}));
  auto b_d64 = one(d64, s_d64);
  ASSERT_TRUE(b_d64.has_value());
  EXPECT_EQ(Values(*b_d64->columns[0]), (std::vector<std::string>{"1970-01-04", "1969-12-31"}));
  auto b_dict = one(dict, s_dict);
  ASSERT_TRUE(b_dict.has_value()) << b_dict.error().ToString();
  EXPECT_EQ(Values(*b_dict->columns[0]), (std::vector<std::string>{"'green'", "NULL", "'red'"}));
  b_large = b_view = b_flags = b_d64 = b_dict = Result<RecordBatch>(RecordBatch{});
  // Five parents, their five columns and the dictionary: each once, when nothing uses it.
  EXPECT_EQ(releases, 11);
}

TEST(ArrowCData, MalformedOrUnsupportedImportsAreErrorsAndStillReleased) {
  int releases = 0;
  auto import_one = [&](ArrowArray child, const char* format) {
    SchemaNode node(format, "c");
    SchemaNode r("+s", "", {&node});
    ArrowArray parent = MakeArray(child.length, 0, 0, {std::nullopt}, &releases, {child});
    auto s = ImportSchema(r.schema);
    if (!s) {
      parent.release(&parent);
      return Result<RecordBatch>(std::unexpected(s.error()));
    }
    return ImportBatch(&parent, r.schema, std::make_shared<const Schema>(*s));
  };
  // Offsets that run backwards, within the rows or from first to last: rejected, not read. (The
  // interface gives no buffer sizes: the producer vouches that its data buffer holds the bytes
  // its last offset names, as Arrow's own importers take it.)
  auto r1 = import_one(
      MakeArray(2, 0, 0,
                {std::nullopt, Bytes<int32_t>({0, 5, 2}), Bytes<char>({'a', 'b', 'c', 'd', 'e'})},
                &releases),
      "u");
  ASSERT_FALSE(r1.has_value());
  EXPECT_EQ(r1.error().ToString(), "corrupt: string column of 2 rows: offsets not monotone");
  auto r0 = import_one(
      MakeArray(1, 0, 0, {std::nullopt, Bytes<int32_t>({3, 1}), Bytes<char>({'a'})}, &releases),
      "u");
  ASSERT_FALSE(r0.has_value());
  EXPECT_EQ(r0.error().ToString(),
            "invalid input: column 'c': Arrow offsets run backwards (3 to 1)");
  auto r2 = import_one(MakeArray(1, 0, 0, {std::nullopt}, &releases), "+w:2");
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error().ToString(),
            "unsupported: column 'c': Arrow type '+w:2' has no floe column type");
  auto r3 = import_one(MakeArray(2, 0, 0, {std::nullopt}, &releases), "i");  // no values buffer
  ASSERT_FALSE(r3.has_value());
  EXPECT_EQ(r3.error().ToString(),
            "invalid input: column 'c': Arrow array has 1 buffers, 2 expected");
  EXPECT_EQ(releases, 8);
}

TEST(ArrowCData, StreamsCarryBatchesAndErrorsBothWays) {
  FixedWidthBuilder<int32_t> b(Int32());
  b.Append(7);
  RecordBatch batch;
  batch.schema = std::make_shared<Schema>(Schema{{Field{"x", Int32(), true, -1}}});
  batch.columns = {b.Finish()};
  batch.num_rows = 1;
  int calls = 0;
  BatchSource source = [&]() -> Result<std::optional<RecordBatch>> {
    ++calls;
    if (calls <= 2) return std::optional<RecordBatch>(batch);
    return InvalidInput("the third batch failed");
  };
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportStream(batch.schema, source, &stream).has_value());
  auto imported = ImportedStream::Take(&stream);
  ASSERT_TRUE(imported.has_value()) << imported.error().ToString();
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(imported->schema()->fields[0].name, "x");
  for (int i = 0; i < 2; ++i) {
    auto next = imported->Next();
    ASSERT_TRUE(next.has_value() && next->has_value());
    EXPECT_EQ(Values(*(*next)->columns[0]), std::vector<std::string>{"7"});
  }
  auto failed = imported->Next();
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().ToString(),
            "invalid input: reading the Arrow stream: the third batch failed");

  ArrowArrayStream done;
  int n = 0;
  ASSERT_TRUE(ExportStream(
                  batch.schema,
                  [&]() -> Result<std::optional<RecordBatch>> {
                    if (n++ == 0) return std::optional<RecordBatch>(batch);
                    return std::optional<RecordBatch>();
                  },
                  &done)
                  .has_value());
  auto all = ImportedStream::Take(&done);
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->Next().value().has_value());
  EXPECT_FALSE(all->Next().value().has_value());  // the end
}

}  // namespace
}  // namespace floe::columnar
