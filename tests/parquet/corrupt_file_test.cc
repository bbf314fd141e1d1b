// Flipped bytes in every region of real files -- footer, column and offset indexes, page headers,
// page bytes -- read through the page index with predicates as a scan reads them (rows the plan
// proves to match are not filtered again): each outcome must be the right answer or a one-line
// error naming the file, never a different answer. Two files are floe's (v1 and v2 pages, with
// page, footer and page index CRCs): there nothing may change unseen. One is parquet-mr's
// (alltypes_tiny_pages.parquet), without CRCs: its page bytes are left alone (nothing can tell a
// flipped value there from a written one), and answers under a flipped schema or bound value
// are counted, not failed -- no rule can tell those either.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"
#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/writer.h"
#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

constexpr std::string_view kName = "f.parquet";

// A row as the values of the columns a query reads: nullopt for null, else the JSON text.
using Row = std::vector<std::optional<std::string>>;

struct Query {
  std::string name;
  std::vector<std::string> columns;
  std::vector<ColumnPredicate> predicates;  // pruning only: `match` says which rows qualify
  std::function<bool(const Row&)> match;    // null: every row
  int64_t limit = -1;
};

// The rows that qualify, each as "[v1, v2, ...]\n" in `text`: a value's JSON text never holds a
// raw newline, so equal texts are equal rows, one by one. One string rather than one per row:
// under ASan every allocation costs more than the read it follows.
struct Rows {
  int64_t count = 0;
  std::string text;
  friend bool operator==(const Rows&, const Rows&) = default;
};

struct Outcome {
  std::optional<Rows> rows;
  std::optional<Error> error;
  int64_t rejected = 0;  // metadata the reader turned away
  std::string schema;    // of the rows, field ids included
};

void AppendText(const Row& row, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < row.size(); ++i) {
    if (i) *out += ", ";
    *out += row[i] ? std::string_view(*row[i]) : std::string_view("null");
  }
  *out += "]\n";
}

bool InRanges(const std::vector<RowRange>& ranges, int64_t row) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const RowRange& r) { return r.begin <= row && row < r.end; });
}

// The bytes of the ranges a read asks for, past the footer.
using Fetch = std::function<FetchedBytes(const std::vector<PlannedRange>&)>;

// Every byte of `file`, whatever the ranges: how the flipped files are read, so that a reader
// that strays outside its plan still meets the flipped byte.
Fetch WholeFile(ByteView file) {
  FetchedBytes all;
  all.Add(0, Buffer::Copy(file));
  return [all](const std::vector<PlannedRange>&) { return all; };
}

// A private copy of exactly each range asked for, as a scan fetches them (a read past one is an
// error, or ASan's report); the data ranges are collected in `*read`.
Fetch OnlyPlanned(ByteView file, std::vector<ByteRange>* read) {
  return [file, read](const std::vector<PlannedRange>& ranges) {
    FetchedBytes out;
    for (const PlannedRange& r : ranges) {
      if (r.range.offset < 0 || r.range.length < 0 ||
          r.range.end() > static_cast<int64_t>(file.size())) {
        continue;  // the read then fails naming the range
      }
      out.Add(r.range.offset, Buffer::Copy(file.subspan(static_cast<size_t>(r.range.offset),
                                                        static_cast<size_t>(r.range.length))));
      if (r.kind != RangeKind::kColumnIndex && r.kind != RangeKind::kOffsetIndex) {
        read->push_back(r.range);
      }
    }
    return out;
  };
}

// `file` opened as a scan opens it, once for every query: with a tail that holds the whole file.
Result<FileReader::Opened> OpenWhole(ByteView file) {
  return FileReader::Open(std::string(kName), file.size(), file);
}

// Reads the file `opened` came from as a scan does: plan through the page index, apply it,
// verify it against the pages, decode, and keep the rows `match` accepts -- except those the
// plan proves match, which a scan does not filter. With `use_page_index` false, the plain answer.
Outcome Run(const Result<FileReader::Opened>& opened, const Fetch& fetch, const Query& q,
            bool use_page_index = true) {
  Outcome out;
  auto fail = [&](Error e) {
    out.error = std::move(e);
    return out;
  };
  if (!opened) return fail(opened.error());
  if (!opened->reader) return fail(Error{ErrorKind::kInternal, "no reader from the whole file"});
  const FileReader& reader = *opened->reader;
  ReadOptions o;
  o.columns = q.columns;
  o.predicates = q.predicates;
  o.use_page_index = use_page_index;
  o.limit = q.limit;
  o.batch_rows = 1000;
  auto plan = reader.Plan(o);
  if (!plan) return fail(plan.error());
  if (plan->index_pending) {
    if (auto st = reader.ApplyPageIndex(fetch(plan->IndexRanges()), &*plan); !st) {
      return fail(st.error());
    }
  }
  FetchedBytes data = fetch(plan->DataRanges());
  auto replanned = reader.ReplanIfIndexDisagrees(o, data, &*plan);
  if (!replanned) return fail(replanned.error());
  if (*replanned) data = fetch(plan->DataRanges());
  out.rejected = plan->counts.metadata_rejected;
  out.schema = plan->schema->ToString();
  for (const columnar::Field& f : plan->schema->fields)
    out.schema += fmt::format(" {}", f.field_id);
  // Where each produced row lies, and whether the plan proves it matches.
  std::vector<bool> certain;
  for (const RowGroupPlan& rg : plan->row_groups) {
    for (const RowRange& r : rg.rows) {
      for (int64_t row = r.begin; row < r.end; ++row) {
        certain.push_back(!plan->predicates.empty() && InRanges(rg.certain, row));
      }
    }
  }
  auto batches = reader.ReadAll(std::move(*plan), std::move(data));
  if (!batches) return fail(batches.error());
  Rows rows;
  Row row;  // reused: its values' strings keep their storage from row to row
  size_t at = 0;
  for (const columnar::RecordBatch& b : *batches) {
    if (auto st = b.Validate(); !st) return fail(st.error());
    row.resize(static_cast<size_t>(b.num_columns()));
    for (int64_t r = 0; r < b.num_rows; ++r, ++at) {
      for (int c = 0; c < b.num_columns(); ++c) {
        std::optional<std::string>& value = row[static_cast<size_t>(c)];
        if (b.column(c)->IsValid(r)) {
          if (!value) value.emplace();
          value->clear();
          columnar::AppendJsonValue(*b.column(c), r, &*value);
        } else {
          value.reset();
        }
      }
      if (at < certain.size() && (certain[at] || !q.match || q.match(row))) {
        AppendText(row, &rows.text);
        ++rows.count;
      }
    }
  }
  if (at != certain.size()) {
    return fail(Error{ErrorKind::kInternal,
                      fmt::format("{} rows decoded for a plan of {}", at, certain.size())});
  }
  out.rows = std::move(rows);
  return out;
}

// Under the sanitizers (CI's time budget) every fifth of the bytes a release build flips: the
// sanitizers look for memory errors on a sample, the release build checks every answer.
#if defined(__SANITIZE_ADDRESS__)
constexpr int64_t kThinning = 5;
#else
constexpr int64_t kThinning = 1;
#endif

struct Region {
  std::string name;
  int64_t begin = 0;
  int64_t end = 0;
  int64_t stride = 1;  // flip every stride-th byte
};

// The regions of `file`: every page header and page body of every chunk, each column and offset
// index, the footer and its trailer. Page bodies only when `bodies`.
std::vector<Region> RegionsOf(ByteView file, const FileMetaData& md, bool bodies,
                              int64_t body_stride, const std::vector<int>& leaves) {
  std::vector<Region> out;
  int64_t index_begin = static_cast<int64_t>(file.size());
  for (const RowGroup& rg : md.row_groups) {
    for (int leaf : leaves) {
      const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
      const ColumnMetaData& m = *c.meta_data;
      int64_t pos = m.chunk_start();
      const int64_t end = pos + m.total_compressed_size;
      while (pos < end) {
        size_t header_len = 0;
        auto h = ParsePageHeader(file.subspan(static_cast<size_t>(pos)), &header_len);
        EXPECT_TRUE(h.has_value());
        if (!h) break;
        const int64_t body = pos + static_cast<int64_t>(header_len);
        out.push_back({"page header", pos, body});
        if (bodies)
          out.push_back({"page bytes", body, body + h->compressed_page_size, body_stride});
        pos = body + h->compressed_page_size;
      }
      if (c.column_index_offset) {
        out.push_back({"column index", *c.column_index_offset,
                       *c.column_index_offset + *c.column_index_length});
        index_begin = std::min(index_begin, *c.column_index_offset);
      }
      if (c.offset_index_offset) {
        out.push_back({"offset index", *c.offset_index_offset,
                       *c.offset_index_offset + *c.offset_index_length});
        index_begin = std::min(index_begin, *c.offset_index_offset);
      }
    }
  }
  auto footer = ParseFooter(kName, file.size(), file);
  EXPECT_TRUE(footer.has_value());
  out.push_back(
      {"footer", static_cast<int64_t>(footer->metadata_offset), static_cast<int64_t>(file.size())});
  return out;
}

struct Tally {
  int64_t variants = 0, same = 0, errors = 0, recovered = 0;
  // Of `same`: queries that read none of the flipped page's bytes, so not run again.
  int64_t unread = 0;
  // Answers under another schema (a type or field id flipped): the caller's schema check --
  // Iceberg's field ids and types -- has to catch them, not the Parquet reader.
  int64_t schema_changed = 0;
  // Wrong answers from a flipped min, max or null count that the file's other metadata do not
  // contradict: nothing in Parquet protects these values (footer statistics, column index);
  // only floe's own CRCs (metadata_checksum.h) do.
  int64_t bound_values = 0;
  std::vector<std::string> failures;
};

// `a` with every value that only bounds data -- statistics, column index min/max and counts --
// cleared, so files that differ only there compare equal.
struct Stripped {
  std::optional<FileMetaData> footer;
  std::vector<std::optional<ColumnIndex>> indexes;
  std::vector<std::optional<OffsetIndex>> offsets;
  friend bool operator==(const Stripped&, const Stripped&) = default;
};

Stripped Strip(ByteView file) {
  Stripped out;
  auto footer = ParseFooter(kName, file.size(), file);
  if (!footer || !footer->metadata) return out;
  FileMetaData md = *footer->metadata;
  for (RowGroup& rg : md.row_groups) {
    for (ColumnChunk& c : rg.columns) {
      if (c.column_index_offset && c.column_index_length) {
        auto ci = ParseColumnIndex(file.subspan(static_cast<size_t>(*c.column_index_offset),
                                                static_cast<size_t>(*c.column_index_length)));
        if (ci) {
          ci->min_values.assign(ci->num_pages(), "");
          ci->max_values.assign(ci->num_pages(), "");
          ci->null_counts.reset();
          ci->null_pages.assign(ci->num_pages(), false);
          out.indexes.push_back(std::move(*ci));
        } else {
          out.indexes.push_back(std::nullopt);
        }
      }
      if (c.offset_index_offset && c.offset_index_length) {
        auto oi = ParseOffsetIndex(file.subspan(static_cast<size_t>(*c.offset_index_offset),
                                                static_cast<size_t>(*c.offset_index_length)));
        out.offsets.push_back(oi ? std::optional<OffsetIndex>(std::move(*oi)) : std::nullopt);
      }
      if (c.meta_data) c.meta_data->statistics.reset();
    }
  }
  out.footer = std::move(md);
  return out;
}

bool Touches(const std::vector<ByteRange>& ranges, int64_t at) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const ByteRange& r) { return r.offset <= at && at < r.end(); });
}

// Flips bit (offset % 8) of each chosen byte of each region -- and all eight bits of footer and
// index bytes -- and runs every query on the result. A query whose read of the intact file
// fetched no range holding a flipped page byte reads exactly the bytes it read there, so it is
// not run again: its answer is the intact one (checked below: the intact file read through only
// the ranges its plans name gives every query's answer).
Tally FlipEverywhere(const std::vector<uint8_t>& pristine, const std::vector<Region>& regions,
                     const std::vector<Query>& queries) {
  const Stripped pristine_stripped = Strip(pristine);
  const Result<FileReader::Opened> pristine_opened = OpenWhole(pristine);
  const Fetch pristine_all = WholeFile(pristine);
  std::vector<Outcome> expected;
  std::vector<std::vector<ByteRange>> data_read;  // by query: the data ranges of its plan
  for (const Query& q : queries) {
    Outcome plain = Run(pristine_opened, pristine_all, q, false);
    Outcome indexed = Run(pristine_opened, pristine_all, q);
    EXPECT_EQ(plain.schema, indexed.schema) << q.name;
    EXPECT_TRUE(plain.rows && indexed.rows) << q.name;
    EXPECT_EQ(indexed.rejected, 0) << q.name;
    if (plain.rows && indexed.rows) EXPECT_EQ(*plain.rows, *indexed.rows) << q.name;
    // The footer from a tail of just the footer, then only the planned ranges.
    auto footer = ParseFooter(kName, pristine.size(), pristine);
    EXPECT_TRUE(footer.has_value()) << q.name;
    std::vector<ByteRange> read;
    if (footer) {
      const ByteView tail = ByteView(pristine).subspan(footer->metadata_offset);
      Outcome planned = Run(FileReader::Open(std::string(kName), pristine.size(), tail),
                            OnlyPlanned(pristine, &read), q);
      EXPECT_TRUE(planned.rows) << q.name << ": " << planned.error.value_or(Error{}).ToString();
      EXPECT_EQ(planned.rejected, 0) << q.name;
      EXPECT_EQ(planned.schema, indexed.schema) << q.name;
      if (planned.rows && indexed.rows) EXPECT_EQ(*planned.rows, *indexed.rows) << q.name;
      if (!planned.rows || planned.rejected != 0)
        read = {{0, static_cast<int64_t>(pristine.size())}};
    }
    data_read.push_back(std::move(read));
    expected.push_back(std::move(plain));
  }
  Tally t;
  std::vector<uint8_t> bytes = pristine;
  for (const Region& region : regions) {
    const bool pages = region.name == "page bytes" || region.name == "page header";
    for (int64_t at = region.begin; at < region.end; at += region.stride * kThinning) {
      // One bit everywhere; all eight too in the metadata, whose bytes are few.
      for (uint8_t mask : {static_cast<uint8_t>(1u << (at % 8)), uint8_t{0xff}}) {
        if (mask == 0xff && pages) continue;
        bytes[static_cast<size_t>(at)] ^= mask;
        ++t.variants;
        std::optional<Result<FileReader::Opened>> opened;  // once, for every query that reads
        std::optional<Fetch> all;
        for (size_t i = 0; i < queries.size(); ++i) {
          if (pages && !Touches(data_read[i], at)) {
            ++t.same;
            ++t.unread;
            continue;
          }
          if (!opened) {
            opened = OpenWhole(bytes);
            all = WholeFile(bytes);
          }
          const Outcome got = Run(*opened, *all, queries[i]);
          auto where = [&] {
            return fmt::format("{} byte {} ^ 0x{:02x}, query {}", region.name, at, mask,
                               queries[i].name);
          };
          if (got.rows) {
            if (*got.rows == *expected[i].rows) {
              ++t.same;
              t.recovered += got.rejected > 0;
            } else if (got.schema != expected[i].schema) {
              ++t.schema_changed;
            } else if (Strip(bytes) == pristine_stripped) {
              ++t.bound_values;
            } else {
              t.failures.push_back(fmt::format("{}: {} rows instead of {}", where(),
                                               got.rows->count, expected[i].rows->count));
            }
            continue;
          }
          ++t.errors;
          const std::string& m = got.error->message;
          if (got.error->kind == ErrorKind::kInternal || m.find('\n') != std::string::npos ||
              m.find(kName) == std::string::npos) {
            t.failures.push_back(fmt::format("{}: {}", where(), got.error->ToString()));
          }
        }
        bytes[static_cast<size_t>(at)] ^= mask;
      }
    }
  }
  return t;
}

// `protected_metadata`: the file carries floe's footer and page index CRCs, so neither a schema
// nor a bound may change unseen.
void Report(const Tally& t, bool protected_metadata) {
  if (protected_metadata) {
    EXPECT_EQ(t.schema_changed, 0);
    EXPECT_EQ(t.bound_values, 0);
  }
  std::string shown;
  for (size_t i = 0; i < std::min<size_t>(t.failures.size(), 25); ++i) {
    shown += "\n  " + t.failures[i];
  }
  EXPECT_TRUE(t.failures.empty()) << t.failures.size() << " of " << t.variants
                                  << " variants went wrong:" << shown;
  std::printf(
      "%lld variants: %lld answers right (%lld after rejecting metadata, %lld of queries that "
      "read no flipped byte), %lld errors, %lld under another schema, %lld wrong from flipped "
      "bound values\n",
      static_cast<long long>(t.variants), static_cast<long long>(t.same),
      static_cast<long long>(t.recovered), static_cast<long long>(t.unread),
      static_cast<long long>(t.errors), static_cast<long long>(t.schema_changed),
      static_cast<long long>(t.bound_values));
}

std::optional<int64_t> Int(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  return std::stoll(*v);
}

// id (sorted, required), grp (nullable, unsorted) and name (nullable, dictionary): 2,100 rows in
// row groups of 700 and pages of at most 150 rows.
std::vector<uint8_t> FloeFile(DataPageVersion version, CompressionCodec codec) {
  auto schema = std::make_shared<columnar::Schema>();
  schema->fields = {{"id", columnar::Int64(), false, 1},
                    {"grp", columnar::Int32(), true, 2},
                    {"name", columnar::String(), true, 3}};
  columnar::FixedWidthBuilder<int64_t> id(columnar::Int64());
  columnar::FixedWidthBuilder<int32_t> grp(columnar::Int32());
  columnar::BinaryBuilder name;
  const int64_t n = 2100;
  for (int64_t i = 0; i < n; ++i) {
    id.Append(i);
    if (i % 7 == 3 || (i >= 1400 && i < 1550)) {
      grp.AppendNull();
    } else {
      grp.Append(static_cast<int32_t>(i * 37 % 100));
    }
    if (i % 11 == 5) {
      name.AppendNull();
    } else {
      EXPECT_TRUE(name.Append("n" + std::to_string(i % 23)).has_value());
    }
  }
  columnar::RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = n;
  batch.columns = {id.Finish(), grp.Finish(), name.Finish()};
  WriterOptions o;
  o.page_row_limit = 150;
  o.row_group_row_limit = 700;
  o.data_page_version = version;
  o.codec = codec;
  MemorySink sink;
  auto w = ParquetWriter::Open(schema, &sink, o);
  EXPECT_TRUE(w.has_value());
  EXPECT_TRUE((*w)->Write(batch).has_value());
  EXPECT_TRUE((*w)->Close().has_value());
  const ByteView b = sink.bytes();
  return std::vector<uint8_t>(b.begin(), b.end());
}

std::vector<Query> FloeQueries() {
  const std::vector<std::string> all = {"id", "grp", "name"};
  auto id = [](const Row& r) { return *Int(r[0]); };
  return {
      {"id in [700, 1100]",
       all,
       {ColumnPredicate::Range("id", int64_t{700}, int64_t{1100})},
       [=](const Row& r) { return id(r) >= 700 && id(r) <= 1100; }},
      {"id = 1234",
       all,
       {ColumnPredicate::Equal("id", int64_t{1234})},
       [=](const Row& r) { return id(r) == 1234; }},
      {"grp is null", all, {ColumnPredicate::IsNull("grp")}, [](const Row& r) { return !r[1]; }},
      {"grp in [10, 30]",
       all,
       {ColumnPredicate::Range("grp", int64_t{10}, int64_t{30})},
       [](const Row& r) { return r[1] && *Int(r[1]) >= 10 && *Int(r[1]) <= 30; }},
      {"name = 'n5'",
       all,
       {ColumnPredicate::Equal("name", std::string("n5"))},
       [](const Row& r) { return r[2] == "\"n5\""; }},
      {"id >= 1500 and grp is not null",
       all,
       {ColumnPredicate::Range("id", int64_t{1500}, std::nullopt),
        ColumnPredicate::IsNotNull("grp")},
       [=](const Row& r) { return id(r) >= 1500 && r[1]; }},
      {"limit 900", all, {}, nullptr, 900},
      {"every row", all, {}, nullptr},
  };
}

TEST(CorruptFileTest, FloeFileWithV1Pages) {
  const std::vector<uint8_t> file = FloeFile(DataPageVersion::kV1, CompressionCodec::kZstd);
  auto opened = FileReader::Open(std::string(kName), file.size(), file);
  ASSERT_TRUE(opened && opened->reader);
  Report(FlipEverywhere(file, RegionsOf(file, opened->reader->metadata(), true, 29, {0, 1, 2}),
                        FloeQueries()),
         true);
}

TEST(CorruptFileTest, FloeFileWithV2Pages) {
  const std::vector<uint8_t> file = FloeFile(DataPageVersion::kV2, CompressionCodec::kUncompressed);
  auto opened = FileReader::Open(std::string(kName), file.size(), file);
  ASSERT_TRUE(opened && opened->reader);
  Report(FlipEverywhere(file, RegionsOf(file, opened->reader->metadata(), true, 29, {0, 1, 2}),
                        FloeQueries()),
         true);
}

// parquet-mr's tiny pages: three of its thirteen columns, hundreds of pages each; every 41st
// byte of their page headers and indexes, every other byte of the footer.
TEST(CorruptFileTest, ParquetMrFileWithTinyPages) {
  const std::vector<uint8_t> file =
      testing::ReadFileBytes(testing::DataFile("alltypes_tiny_pages.parquet"));
  auto opened = FileReader::Open(std::string(kName), file.size(), file);
  ASSERT_TRUE(opened && opened->reader);
  std::vector<Region> regions = RegionsOf(file, opened->reader->metadata(), false, 1, {0, 4, 9});
  for (Region& r : regions) {
    r.stride = r.name == "footer" ? 2 : 41;
  }
  const std::vector<std::string> cols = {"id", "int_col", "string_col"};
  auto id = [](const Row& r) { return Int(r[0]); };
  const std::vector<Query> queries = {
      {"id in [3000, 3100]",
       cols,
       {ColumnPredicate::Range("id", int64_t{3000}, int64_t{3100})},
       [=](const Row& r) { return id(r) && *id(r) >= 3000 && *id(r) <= 3100; }},
      {"int_col = 7",
       cols,
       {ColumnPredicate::Equal("int_col", int64_t{7})},
       [](const Row& r) { return r[1] && *Int(r[1]) == 7; }},
      {"string_col = '3'",
       cols,
       {ColumnPredicate::Equal("string_col", std::string("3"))},
       [](const Row& r) { return r[2] == "\"3\""; }},
      {"limit 1000", cols, {}, nullptr, 1000},
  };
  Report(FlipEverywhere(file, regions, queries), false);
}

}  // namespace
}  // namespace floe::parquet
