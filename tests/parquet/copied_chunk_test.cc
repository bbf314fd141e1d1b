// A file made of another file's row groups with some column chunks copied as they are and the
// others encoded anew (ParquetWriter::WriteRowGroupWithCopies): it must read back as the source
// with the re-encoded columns replaced -- through the page index and the Bloom filters too, whose
// offsets moved -- its footer's checksums must hold, and a chunk that does not fit its place is
// refused.
#include "floe/parquet/copied_chunk.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/columnar/column_builder.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/writer.h"

namespace floe::parquet {
namespace {

using columnar::BinaryBuilder;
using columnar::ColumnPtr;
using columnar::FixedWidthBuilder;
using columnar::RecordBatch;

constexpr int64_t kRows = 3'500;

columnar::SchemaPtr Schema() {
  auto s = std::make_shared<columnar::Schema>();
  s->fields = {{"id", columnar::Int64(), false, 1},
               {"status", columnar::String(), true, 2},
               {"key", columnar::Int64(), false, 3},
               {"note", columnar::String(), true, 4}};
  return s;
}

ColumnPtr Int64s(auto fn) {
  FixedWidthBuilder<int64_t> b(columnar::Int64());
  for (int64_t i = 0; i < kRows; ++i) b.Append(fn(i));
  return b.Finish();
}

// Row i's string, or null where `fn` gives an empty one.
ColumnPtr Strings(auto fn) {
  BinaryBuilder b(columnar::String());
  for (int64_t i = 0; i < kRows; ++i) {
    const std::string v = fn(i);
    if (v.empty()) {
      b.AppendNull();
    } else {
      EXPECT_TRUE(b.Append(v).has_value());
    }
  }
  return b.Finish();
}

WriterOptions Options() {
  WriterOptions o;
  o.row_group_row_limit = 1'000;
  o.page_row_limit = 250;
  o.bloom_filter_columns = {{"key", 0.01, std::nullopt}};
  return o;
}

struct File {
  Buffer bytes;
  WrittenFile written;
};

File Source(const RecordBatch& rows) {
  MemorySink sink;
  auto w = ParquetWriter::Open(rows.schema, &sink, Options()).value();
  EXPECT_TRUE(w->Write(rows).has_value());
  auto written = w->Close();
  EXPECT_TRUE(written.has_value()) << written.error().ToString();
  return {sink.ToBuffer(), std::move(*written)};
}

// Every row of `file`, as one batch per column (values as strings, "null" for a null), read
// through the page index with `predicates` when given.
std::vector<std::vector<std::string>> ReadBack(const Buffer& file,
                                               std::vector<ColumnPredicate> predicates = {}) {
  auto opened = FileReader::Open("f.parquet", file.size(), file.view());
  EXPECT_TRUE(opened.has_value() && opened->reader.has_value());
  const FileReader& r = *opened->reader;
  ReadOptions o;
  o.predicates = std::move(predicates);
  o.use_page_index = !o.predicates.empty();
  auto plan = r.Plan(o);
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  FetchedBytes all;
  all.Add(0, file);
  if (o.use_page_index) {
    auto applied = r.ApplyPageIndex(all, &*plan);
    EXPECT_TRUE(applied.has_value()) << applied.error().ToString();
  }
  auto batches = r.ReadAll(std::move(*plan), std::move(all));
  EXPECT_TRUE(batches.has_value()) << batches.error().ToString();
  std::vector<std::vector<std::string>> out(4);
  for (const RecordBatch& b : batches.value_or(std::vector<RecordBatch>{})) {
    for (size_t c = 0; c < b.columns.size(); ++c) {
      const columnar::Column& col = *b.columns[c];
      for (int64_t i = 0; i < col.length; ++i) {
        if (col.IsNull(i)) {
          out[c].push_back("null");
        } else if (col.type.id == columnar::TypeId::kInt64) {
          out[c].push_back(std::to_string(col.Value<int64_t>(i)));
        } else {
          out[c].push_back(std::string(col.BytesAt(i)));
        }
      }
    }
  }
  return out;
}

TEST(CopiedChunk, AFileOfCopiedAndReEncodedChunksReadsAsTheSourceWithThoseColumnsReplaced) {
  // Four statuses before, a distinct one per row after: the rewritten chunks of `status` are
  // larger, so every chunk behind them moves.
  auto status_of = [](int64_t i, int round) -> std::string {
    static const char* kStatus[] = {"processing", "shipped", "delivered", "returned"};
    if (i % 17 == 0) return "";
    return round == 0 ? kStatus[i % 4] : "moved on " + std::to_string(i);
  };
  RecordBatch source_rows;
  source_rows.schema = Schema();
  source_rows.num_rows = kRows;
  source_rows.columns = {Int64s([](int64_t i) { return i * 7 + 3; }),
                         Strings([&](int64_t i) { return status_of(i, 0); }),
                         Int64s([](int64_t i) { return (i * 7919) % 100'003; }),
                         Strings([](int64_t i) {
                           return i % 5 == 0 ? std::string() : "note " + std::to_string(i % 300);
                         })};
  const File source = Source(source_rows);
  auto tail = ParseFooter("s.parquet", source.bytes.size(), source.bytes.view());
  ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
  const FileMetaData& md = *tail->metadata;
  ASSERT_EQ(md.row_groups.size(), 4u);

  // `status` changes; the other three are copied.
  const ColumnPtr new_status = Strings([&](int64_t i) { return status_of(i, 1); });
  MemorySink sink;
  auto w = ParquetWriter::Open(Schema(), &sink, Options()).value();
  int64_t start = 0;
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    std::vector<std::optional<CopiedChunk>> copied(4);
    for (size_t leaf : {0u, 2u, 3u}) {
      auto c = CopyChunk(source.bytes, md, r, leaf);
      ASSERT_TRUE(c.has_value()) << c.error().ToString();
      copied[leaf] = std::move(*c);
    }
    const int64_t rows = md.row_groups[r].num_rows;
    auto st = w->WriteRowGroupWithCopies({nullptr, new_status, nullptr, nullptr}, start, rows,
                                         std::move(copied));
    ASSERT_TRUE(st.has_value()) << st.error().ToString();
    start += rows;
  }
  auto written = w->Close();
  ASSERT_TRUE(written.has_value()) << written.error().ToString();
  const Buffer rewritten = sink.ToBuffer();
  EXPECT_EQ(written->num_rows, kRows);
  EXPECT_EQ(written->row_group_rows, source.written.row_group_rows);

  const auto before = ReadBack(source.bytes);
  const auto after = ReadBack(rewritten);
  ASSERT_EQ(after[0].size(), static_cast<size_t>(kRows));
  EXPECT_EQ(after[0], before[0]);
  EXPECT_EQ(after[2], before[2]);
  EXPECT_EQ(after[3], before[3]);
  for (int64_t i = 0; i < kRows; ++i) {
    const std::string want = status_of(i, 1).empty() ? "null" : status_of(i, 1);
    ASSERT_EQ(after[1][static_cast<size_t>(i)], want) << i;
  }

  // The copied chunks' pages are where the moved offset index says: a lookup through the page
  // index reads the same single page's rows from both files.
  const std::vector<ColumnPredicate> lookup = {
      ColumnPredicate::Equal("id", int64_t{7 * 2'345 + 3})};
  const auto one_before = ReadBack(source.bytes, lookup);
  const auto one_after = ReadBack(rewritten, lookup);
  EXPECT_EQ(one_after[0], one_before[0]);
  EXPECT_EQ(one_after[0].size(), 250u);  // one page of the row group
  EXPECT_EQ(one_after[2], one_before[2]);
  EXPECT_EQ(one_after[3], one_before[3]);
  ASSERT_EQ(one_after[1].size(), 250u);
  EXPECT_EQ(one_after[1][5], "moved on 2255");  // rows 2250-2499

  auto new_tail = ParseFooter("r.parquet", rewritten.size(), rewritten.view());
  ASSERT_TRUE(new_tail.has_value() && new_tail->metadata.has_value());
  const FileMetaData& nmd = *new_tail->metadata;
  for (size_t r = 0; r < nmd.row_groups.size(); ++r) {
    for (size_t leaf : {0u, 2u, 3u}) {
      const ColumnMetaData& a = *md.row_groups[r].columns[leaf].meta_data;
      const ColumnMetaData& b = *nmd.row_groups[r].columns[leaf].meta_data;
      EXPECT_EQ(b.statistics, a.statistics);
      EXPECT_EQ(b.encodings, a.encodings);
      EXPECT_EQ(b.total_compressed_size, a.total_compressed_size);
    }
    // The Bloom filter of `key` moved with its chunk: it still holds the row group's keys.
    auto copied = CopyChunk(rewritten, nmd, r, 2);
    ASSERT_TRUE(copied.has_value()) << copied.error().ToString();
    ASSERT_TRUE(copied->bloom_filter.has_value());
    const int64_t first = static_cast<int64_t>(r) * 1'000;
    EXPECT_TRUE(copied->bloom_filter->MightContain(BloomFilter::Hash((first * 7919) % 100'003)));
  }
  // Metrics: a copied leaf has its counts and size, no bounds; a re-encoded one its bounds.
  for (size_t leaf : {0u, 2u, 3u}) {
    const ColumnMetrics& a = source.written.columns[leaf];
    const ColumnMetrics& b = written->columns[leaf];
    EXPECT_TRUE(b.copied);
    EXPECT_EQ(b.num_values, a.num_values);
    EXPECT_EQ(b.null_count, a.null_count);
    EXPECT_EQ(b.compressed_size, a.compressed_size);
    EXPECT_FALSE(b.min.has_value());
  }
  EXPECT_FALSE(written->columns[1].copied);
  EXPECT_EQ(written->columns[1].null_count, source.written.columns[1].null_count);
  EXPECT_EQ(written->columns[1].min, std::optional<std::string>("moved on 1"));
}

TEST(CopiedChunk, AChunkThatDoesNotFitItsPlaceIsRefused) {
  RecordBatch rows;
  rows.schema = Schema();
  rows.num_rows = kRows;
  rows.columns = {Int64s([](int64_t i) { return i; }), Strings([](int64_t) { return "a"; }),
                  Int64s([](int64_t i) { return i; }), Strings([](int64_t) { return "b"; })};
  const File source = Source(rows);
  auto tail = ParseFooter("s.parquet", source.bytes.size(), source.bytes.view());
  ASSERT_TRUE(tail.has_value() && tail->metadata.has_value());
  const FileMetaData& md = *tail->metadata;

  MemorySink sink;
  auto w = ParquetWriter::Open(Schema(), &sink, Options()).value();
  auto with = [&](size_t leaf, size_t from_leaf, int64_t n) {
    std::vector<std::optional<CopiedChunk>> copied(4);
    copied[leaf] = CopyChunk(source.bytes, md, 0, from_leaf).value();
    return w->WriteRowGroupWithCopies(rows.columns, 0, n, std::move(copied));
  };
  auto wrong_column = with(0, 2, 1'000);  // key's chunk in id's place
  ASSERT_FALSE(wrong_column.has_value());
  EXPECT_NE(wrong_column.error().message.find("another column"), std::string::npos);
  auto wrong_rows = with(0, 0, 999);
  ASSERT_FALSE(wrong_rows.has_value());
  EXPECT_NE(wrong_rows.error().message.find("999 rows"), std::string::npos);
  // Refused before anything was written: the writer still makes a good file.
  ASSERT_TRUE(with(0, 0, 1'000).has_value());
  ASSERT_TRUE(w->Close().has_value());

  // A footer whose chunk lies past the file's end.
  FileMetaData bad = md;
  bad.row_groups[0].columns[1].meta_data->total_compressed_size = 1 << 30;
  auto outside = CopyChunk(source.bytes, bad, 0, 1);
  ASSERT_FALSE(outside.has_value());
  EXPECT_EQ(outside.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(outside.error().message.find("outside the file"), std::string::npos);
}

}  // namespace
}  // namespace floe::parquet
