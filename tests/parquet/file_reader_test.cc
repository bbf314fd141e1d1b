#include "floe/parquet/file_reader.h"

#include <gtest/gtest.h>

#include "floe/base/thread_pool.h"

#include "floe/columnar/take.h"
#include "floe/io/counting_store.h"
#include "floe/io/mem_store.h"
#include "floe/parquet/read_file.h"
#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

using testing::DataFile;
using testing::JsonColumn;
using testing::JsonRows;
using testing::JsonValue;
using testing::LoadedFile;
using testing::LoadFile;
using testing::ReadFile;
using testing::ReadFileBytes;

// alltypes_plain.parquet: 1851 bytes, a 730-byte footer (pyarrow's serialized_size).
// A matcher on a string leaf: the column comes out as uint8 flags (NULL where the value is), the
// same answers as comparing the decoded strings. Dictionary pages are matched once per dictionary
// (alltypes_tiny_pages' string_col: one row group, so one call for the dictionary and none per
// page); pages without a dictionary (DELTA_LENGTH_BYTE_ARRAY) hand their values over in slices.
TEST(FileReaderTest, MatchersFlagValuesAsTheDecodedValuesCompare) {
  struct Case {
    const char* file;
    const char* column;
    std::string want;
  };
  for (const Case& c : {Case{"alltypes_tiny_pages.parquet", "string_col", "7"},
                        Case{"delta_length_byte_array.parquet", "FRUIT", "apple_banana_mango"}}) {
    LoadedFile f = LoadFile(DataFile(c.file));
    ReadOptions options;
    options.columns = {c.column};
    auto plain = ReadFile(f, options);
    ASSERT_TRUE(plain.has_value()) << plain.error().ToString();

    auto plan = f.reader->Plan(options);
    ASSERT_TRUE(plan.has_value());
    int calls = 0;
    int64_t values_seen = 0;
    const std::string want = c.want;
    plan->matchers[plan->columns[0]] = [&](DenseValues v) -> Result<std::vector<uint8_t>> {
      ++calls;
      values_seen += v.count;
      std::vector<uint8_t> out(static_cast<size_t>(v.count));
      for (int64_t i = 0; i < v.count; ++i) {
        std::string_view s(reinterpret_cast<const char*>(v.data.data()) + v.offsets[i],
                           static_cast<size_t>(v.offsets[i + 1] - v.offsets[i]));
        out[static_cast<size_t>(i)] = s.starts_with(want) ? 1 : 0;
      }
      return out;
    };
    auto flagged = f.reader->ReadAll(*plan, testing::OnlyRanges(f, plan->DataRanges()));
    ASSERT_TRUE(flagged.has_value()) << flagged.error().ToString();
    int64_t rows = 0, hits = 0;
    size_t b = 0;
    int64_t r = 0;
    for (const auto& batch : *flagged) {
      const columnar::Column& flags = *batch.columns[0];
      ASSERT_EQ(flags.type.id, columnar::TypeId::kUInt8) << c.file;
      for (int64_t i = 0; i < batch.num_rows; ++i, ++rows) {
        while (r >= (*plain)[b].num_rows) {
          ++b;
          r = 0;
        }
        const columnar::Column& strings = *(*plain)[b].columns[0];
        ASSERT_EQ(flags.IsNull(i), strings.IsNull(r)) << c.file << " row " << rows;
        if (!strings.IsNull(r)) {
          const bool match = std::string(strings.BytesAt(r)).starts_with(want);
          EXPECT_EQ(flags.values.data()[i], match ? 1 : 0) << c.file << " row " << rows;
          hits += match;
        }
        ++r;
      }
    }
    EXPECT_EQ(rows, testing::CountRows(*plain)) << c.file;
    EXPECT_GT(hits, 0) << c.file;
    if (std::string(c.file) == "alltypes_tiny_pages.parquet") {
      EXPECT_EQ(calls, 1);         // the one dictionary
      EXPECT_EQ(values_seen, 10);  // its 10 entries, not 7300 rows
    } else {
      EXPECT_EQ(values_seen, rows);  // no dictionary: every value, once
    }
  }
}

// A string column gathered from a small dictionary carries it and each row's entry: for every
// non-null row, dictionary[code] is the row's value -- through a row selection (Take) too. Values
// decoded without a dictionary carry none.
TEST(FileReaderTest, StringColumnsCarryTheirDictionaryCodes) {
  LoadedFile f = LoadFile(DataFile("alltypes_tiny_pages.parquet"));
  ReadOptions options;
  options.columns = {"string_col"};
  auto batches = ReadFile(f, options);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  int64_t checked = 0;
  for (const auto& b : *batches) {
    const columnar::Column& c = *b.columns[0];
    ASSERT_TRUE(c.dictionary) << "batch of " << b.num_rows;
    ASSERT_EQ(c.codes.size(), static_cast<size_t>(c.length) * 4);
    const int32_t* codes = reinterpret_cast<const int32_t*>(c.codes.data());
    for (int64_t r = 0; r < c.length; ++r) {
      if (c.IsNull(r)) continue;
      ASSERT_LT(codes[r], c.dictionary->length);
      ASSERT_EQ(c.dictionary->BytesAt(codes[r]), c.BytesAt(r)) << "row " << r;
      ++checked;
    }
    auto taken = columnar::Take(c, {5, 1, 3});
    ASSERT_TRUE(taken.has_value());
    const int32_t* tc = reinterpret_cast<const int32_t*>((*taken)->codes.data());
    ASSERT_TRUE((*taken)->dictionary);
    for (int64_t r = 0; r < 3; ++r) {
      EXPECT_EQ((*taken)->dictionary->BytesAt(tc[r]), (*taken)->BytesAt(r));
    }
  }
  EXPECT_EQ(checked, 7300);

  LoadedFile delta = LoadFile(DataFile("delta_length_byte_array.parquet"));
  options.columns = {"FRUIT"};
  auto plain = ReadFile(delta, options);
  ASSERT_TRUE(plain.has_value());
  for (const auto& b : *plain) EXPECT_FALSE(b.columns[0]->dictionary);
}

TEST(FileReaderTest, OpensFromATailOfAnySize) {
  auto bytes = ReadFileBytes(DataFile("alltypes_plain.parquet"));
  ASSERT_EQ(bytes.size(), 1851u);
  ByteView all(bytes);
  for (size_t n : {size_t{0}, size_t{7}}) {
    auto opened = FileReader::Open("f", bytes.size(), all.last(n));
    ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
    EXPECT_FALSE(opened->reader.has_value());
    EXPECT_EQ(opened->tail_length_needed, 8u);
  }
  for (size_t n : {size_t{8}, size_t{100}, size_t{737}}) {
    auto opened = FileReader::Open("f", bytes.size(), all.last(n));
    ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
    EXPECT_FALSE(opened->reader.has_value());
    EXPECT_EQ(opened->tail_length_needed, 738u);
  }
  for (size_t n : {size_t{738}, size_t{1000}, bytes.size()}) {
    auto opened = FileReader::Open("f", bytes.size(), all.last(n));
    ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
    ASSERT_TRUE(opened->reader.has_value());
    EXPECT_EQ(opened->reader->metadata().num_rows, 8);
    EXPECT_EQ(opened->reader->arrow_schema().num_fields(), 11);
  }
  auto not_parquet = FileReader::Open("f.csv", 20, AsBytes("a,b\n1,2\n3,4\n5,6\n7,8\n"));
  ASSERT_FALSE(not_parquet.has_value());
  EXPECT_EQ(not_parquet.error().ToString(),
            "corrupt: parquet file 'f.csv': ends in '7,8\\x0a' instead of the magic 'PAR1'");
}

// One buffer may hold many planned ranges (a coalesced read, or the whole file); a range no
// buffer covers is an error naming it.
TEST(FileReaderTest, DecodesFromCoalescedBuffersAndNamesMissingOnes) {
  LoadedFile f = LoadFile(DataFile("alltypes_plain.parquet"));
  ReadOptions options;
  options.columns = {"id", "bool_col", "string_col"};
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value());
  // id [4, +73), bool_col [109, +24), string_col [840, +49): one read of [4, 133) and one more.
  FetchedBytes coalesced;
  coalesced.Add(4, f.all().Slice(4, 129));
  coalesced.Add(840, f.all().Slice(840, 49));
  auto batches = f.reader->ReadAll(*plan, coalesced);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  EXPECT_EQ(JsonRows(*batches)[1], "[5, false, \"31\"]");

  FetchedBytes partial;
  partial.Add(4, f.all().Slice(4, 129));
  auto missing = f.reader->ReadAll(*plan, partial);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().ToString(),
            "invalid input: parquet file 'alltypes_plain.parquet': column 'string_col' of row "
            "group 0: the bytes [840, +49) of the column chunk were not supplied");
}

TEST(FileReaderTest, BatchSizes) {
  LoadedFile f = LoadFile(DataFile("alltypes_tiny_pages.parquet"));
  auto whole = ReadFile(f);
  ASSERT_TRUE(whole.has_value()) << whole.error().ToString();
  ASSERT_EQ(whole->size(), 1u);  // 7300 rows: one row group, under 64K rows
  ReadOptions options;
  options.batch_rows = 1000;
  auto batched = ReadFile(f, options);
  ASSERT_TRUE(batched.has_value()) << batched.error().ToString();
  ASSERT_EQ(batched->size(), 8u);
  EXPECT_EQ((*batched)[0].num_rows, 1000);
  EXPECT_EQ((*batched)[7].num_rows, 300);
  EXPECT_EQ(JsonRows(*batched), JsonRows(*whole));
  options.batch_rows = 0;
  auto zero = f.reader->Plan(options);
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().ToString(), "invalid input: batch size must be positive, not 0");

  // Batches never span row groups: 50 row groups of 10 rows in 64-row batches.
  LoadedFile g = LoadFile(DataFile("geospatial/geography-points.parquet"));
  options.batch_rows = 64;
  auto per_group = ReadFile(g, options);
  ASSERT_TRUE(per_group.has_value()) << per_group.error().ToString();
  EXPECT_EQ(per_group->size(), 50u);
}

// Arrow layout: validity bitmaps only with nulls, int32 offsets for strings and lists, booleans as
// bits, struct children of the struct's length.
TEST(FileReaderTest, ArrowLayout) {
  LoadedFile f = LoadFile(DataFile("nullable.impala.parquet"));
  auto batches = ReadFile(f);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  const auto& b = (*batches)[0];
  ASSERT_TRUE(b.Validate().has_value());
  const auto& id = *b.column(0);
  EXPECT_EQ(id.type.id, columnar::TypeId::kInt64);
  EXPECT_EQ(id.null_count, 0);
  EXPECT_TRUE(id.validity.empty());
  // int_array: [1, 2, 3], [None, 1, 2, None, 3, None], [], None, [], None, None ... (pyarrow)
  const auto& list = *b.column(1);
  EXPECT_EQ(list.type.ToString(), "list<element: int32>");
  EXPECT_EQ(JsonValue(list, 0), "[1, 2, 3]");
  EXPECT_EQ(JsonValue(list, 1), "[null, 1, 2, null, 3, null]");
  ASSERT_EQ(list.offsets.size(), 8u * 4);
  EXPECT_EQ(list.Offsets()[0], 0);
  EXPECT_EQ(list.Offsets()[1], 3);
  EXPECT_EQ(list.Offsets()[2], 9);
  EXPECT_EQ(list.children[0]->length, list.Offsets()[7]);
  EXPECT_GT(list.children[0]->null_count, 0);

  LoadedFile p = LoadFile(DataFile("alltypes_plain.parquet"));
  auto plain = ReadFile(p);
  ASSERT_TRUE(plain.has_value());
  const auto& bools = *(*plain)[0].column(1);
  EXPECT_EQ(bools.values.size(), 1u);  // 8 booleans in one byte
  EXPECT_EQ(bools.values[0], 0x55);    // true, false, true, false, ...
}

// The store path (ReadFile, floe's planner): with the length known there is no HEAD, and a file
// below the 2 MiB whole-file threshold comes whole with its footer in one GET -- with the page
// index too, which then prunes pages without a request.
TEST(FileReaderTest, ReadFileRequests) {
  auto mem = io::MemStore::Open("file_reader_test");
  ASSERT_TRUE(mem.has_value());
  auto small = ReadFileBytes(DataFile("alltypes_plain.parquet"));
  auto large = ReadFileBytes(DataFile("alltypes_tiny_pages.parquet"));  // 454,233 bytes
  ASSERT_TRUE((*mem)->Put("small.parquet", small).has_value());
  ASSERT_TRUE((*mem)->Put("large.parquet", large).has_value());
  auto store = std::make_shared<io::CountingStore>(*mem);

  auto a = ReadFileAll(*store, "small.parquet", {small.size()});
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  EXPECT_EQ(a->batches[0].num_rows, 8);
  auto counts = store->Snapshot();
  EXPECT_EQ(counts.get, 1u);
  EXPECT_EQ(counts.head, 0u);
  EXPECT_EQ(counts.bytes_read, small.size());
  EXPECT_EQ(a->read.fetch.requests, 1);

  store->Reset();
  auto b = ReadFileAll(*store, "small.parquet", {0});  // length unknown: one suffix read
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  EXPECT_EQ(store->Snapshot().get, 1u);
  EXPECT_EQ(store->Snapshot().head, 0u);

  store->Reset();
  ReadFileOptions options;
  options.fetch.read.columns = {"id"};
  auto c = ReadFileAll(*store, "large.parquet", {large.size()}, options);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(store->Snapshot().get, 1u);  // below the threshold: the whole file
  EXPECT_EQ(store->Snapshot().head, 0u);
  EXPECT_EQ(store->Snapshot().bytes_read, large.size());

  // With the page index: the same single read; 6 of id's 325 pages are decoded.
  store->Reset();
  options.fetch.read.predicates = {ColumnPredicate::Equal("id", int64_t{3000})};
  options.fetch.read.use_page_index = true;
  auto d = ReadFileAll(*store, "large.parquet", {large.size()}, options);
  ASSERT_TRUE(d.has_value()) << d.error().ToString();
  EXPECT_EQ(testing::CountRows(d->batches), 132);
  EXPECT_EQ(d->read.fetch.plan.pages_skipped, 325 - 6);
  EXPECT_EQ(store->Snapshot().get, 1u);
  EXPECT_EQ(store->Snapshot().head, 0u);
  io::MemStore::Forget("file_reader_test");
}

// ReadFileAll with several decode threads: the batches come back in file order, row for row
// those of one thread, and without a position column unless asked for.
TEST(FileReaderTest, ReadFileAllOnSeveralThreadsKeepsFileOrder) {
  auto mem = io::MemStore::Open("file_reader_order_test");
  ASSERT_TRUE(mem.has_value());
  auto large = ReadFileBytes(DataFile("alltypes_tiny_pages.parquet"));  // 7300 rows
  ASSERT_TRUE((*mem)->Put("large.parquet", large).has_value());
  ReadFileOptions one;
  one.fetch.read.batch_rows = 100;
  auto a = ReadFileAll(**mem, "large.parquet", {large.size()}, one);
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ThreadPool pool(3);
  ReadFileOptions many = one;
  many.decode_threads = 4;
  many.pool = &pool;
  auto b = ReadFileAll(**mem, "large.parquet", {large.size()}, many);
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  ASSERT_GT(a->batches.size(), 4u);
  EXPECT_EQ(b->read.schema->fields.size(), a->read.schema->fields.size());
  auto ids = [](const std::vector<columnar::RecordBatch>& batches) {
    std::vector<int32_t> out;
    for (const auto& batch : batches) {
      EXPECT_EQ(batch.columns.size(), 13u);
      for (int64_t r = 0; r < batch.num_rows; ++r)
        out.push_back(batch.column(0)->Value<int32_t>(r));
    }
    return out;
  };
  const std::vector<int32_t> want = ids(a->batches);
  EXPECT_EQ(want.size(), 7300u);
  EXPECT_EQ(ids(b->batches), want);
  io::MemStore::Forget("file_reader_order_test");
}

}  // namespace
}  // namespace floe::parquet
