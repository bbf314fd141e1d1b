// The one Parquet read front end: a file truncated under it, the caller's RowFilter (late
// materialisation and the batch-by-batch fallback), and a row mask from outside that keeps the
// pages it empties from being fetched. Fixture files: parquet/read_fixture_util.h (c0 = row).
#include "floe/parquet/read_file.h"

#include <unistd.h>

#include <algorithm>
#include <tuple>

#include <gtest/gtest.h>

#include "floe/io/counting_store.h"
#include "floe/io/local_store.h"
#include "floe/io/mem_store.h"
#include "floe/parquet/footer_cache.h"
#include "parquet/read_fixture_util.h"
#include "support/temp_dir.h"

namespace floe::parquet {
namespace {

using testing::FixtureValue;
using testing::WriteInt64File;

// Issue 16, point 13: an input truncated while `table append` reads it. Between the footer read
// and the data read the file shrinks; the read comes back short, which is one line naming the
// file -- never a read of bytes that are gone (the input store copies, never maps).
TEST(ReadFileTest, AFileTruncatedAfterItsFooterWasReadIsAnError) {
  floe::testing::TempDir dir;
  auto store = io::LocalStore::Open(dir.str(), io::LocalStoreOptions{.map_reads = false});
  ASSERT_TRUE(store.has_value());
  auto f = WriteInt64File(4, 100'000);  // 3.2 MB: above the 2 MiB whole-file threshold
  ASSERT_TRUE(f.has_value());
  ASSERT_TRUE((*store)->Put("in.parquet", f->bytes.view()).has_value());
  auto footer = OpenFooter(**store, "in.parquet", 0);
  ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
  EXPECT_EQ(footer->stats.requests, 2);  // the 64 KiB suffix, then a HEAD for the length
  EXPECT_EQ(footer->stats.heads, 1);

  const std::string path = (dir.path() / "in.parquet").string();
  const uint64_t length = static_cast<uint64_t>(f->size());
  // A first read leaves the footer in a cache; the file then shrinks to half.
  FooterCache cache;
  ReadFileOptions options;
  options.fetch.cache = &cache;
  ASSERT_TRUE(ReadFileAll(**store, "in.parquet", {length}, options).has_value());
  const int64_t half = f->size() / 2;
  ASSERT_EQ(::truncate(path.c_str(), half), 0);
  // The footer comes from the cache; the data reads come back short.
  auto read = ReadFileAll(**store, "in.parquet", {length}, options);
  ASSERT_FALSE(read.has_value());
  const std::string message = read.error().ToString();
  EXPECT_EQ(message.rfind(fmt::format("corrupt: parquet file 'file://{}': read ", path), 0), 0u)
      << message;
  EXPECT_NE(message.find(" bytes at offset "), std::string::npos) << message;
  // Without the cache the first read, the 64 KiB tail, is past the end: the store says so.
  auto cold = ReadFileAll(**store, "in.parquet", {length});
  ASSERT_FALSE(cold.has_value());
  EXPECT_NE(cold.error().ToString().find(fmt::format("of 'in.parquet' ({} bytes)", half)),
            std::string::npos)
      << cold.error().ToString();
}

class ReadFileFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io::MemStore::Forget("read-file-test");
    mem_ = io::MemStore::Open("read-file-test").value();
    // 4 columns x 100,000 rows, one row group, 2,000-row pages.
    WriterOptions o;
    o.page_row_limit = 2'000;
    file_ = WriteInt64File(4, 100'000, 0, o).value();
    ASSERT_TRUE(mem_->Put("f.parquet", file_.bytes.view()).has_value());
  }
  void TearDown() override { io::MemStore::Forget("read-file-test"); }

  // c0 and c2 read; c0 the filter's column, c2 the output.
  static ReadFileOptions Options() {
    ReadFileOptions o;
    o.fetch.read.columns = {"c0", "c2"};
    return o;
  }
  // The filter: `test` on c0's values; output c2. Counts its calls, and with `rows` the rows it
  // tested.
  static RowFilter FilterOnC0(std::function<bool(int64_t)> test, int* calls,
                              int64_t* rows = nullptr) {
    RowFilter f;
    f.fields = {{1, "c0"}};
    f.evaluate = [test, calls,
                  rows](const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
      ++*calls;
      if (rows != nullptr) *rows += b.num_rows;
      EXPECT_EQ(b.num_columns(), 1);
      EXPECT_EQ(b.schema->fields[0].name, "c0");
      std::vector<uint8_t> m(static_cast<size_t>(b.num_rows));
      const int64_t* v = b.columns[0]->Values<int64_t>();
      for (int64_t r = 0; r < b.num_rows; ++r) m[static_cast<size_t>(r)] = test(v[r]) ? 1 : 0;
      return m;
    };
    f.output = std::vector<FieldKey>{{3, "c2"}};
    return f;
  }

  // c2's values of the batches, checking each is the fixture's value for its row (c0 = row).
  static std::vector<int64_t> RowsOf(const FileContents& c) {
    std::vector<int64_t> rows;
    for (const columnar::RecordBatch& b : c.batches) {
      EXPECT_EQ(b.num_columns(), 1);
      const int64_t* v = b.columns[0]->Values<int64_t>();
      for (int64_t r = 0; r < b.num_rows; ++r) rows.push_back(v[r]);
    }
    return rows;
  }

  io::StorePtr mem_;
  testing::FixtureFile file_;
};

TEST_F(ReadFileFilterTest, FewMatchesAreDecodedAloneInTheOutputColumns) {
  int calls = 0;
  const RowFilter filter = FilterOnC0([](int64_t v) { return v >= 5000 && v < 5010; }, &calls);
  ReadFileOptions o = Options();
  o.filter = &filter;
  auto c = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, o);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  std::vector<int64_t> want;
  for (int64_t row = 5000; row < 5010; ++row) want.push_back(FixtureValue(row, 2));
  EXPECT_EQ(RowsOf(*c), want);
  ASSERT_EQ(c->read.schema->fields.size(), 1u);
  EXPECT_EQ(c->read.schema->fields[0].name, "c2");
  // c0 decoded once for the filter, then c2 only at the ten matching rows.
  EXPECT_EQ(c->read.rows_decoded, 10);
  EXPECT_GT(calls, 0);
}

// Tested field by field, c0 goes through a matcher; the answer is the same.
TEST_F(ReadFileFilterTest, AFieldByFieldFilterMatchesTheSameRows) {
  int calls = 0;
  RowFilter filter = FilterOnC0([](int64_t v) { return v >= 5000 && v < 5010; }, &calls);
  int per_field_calls = 0;
  filter.per_field = {
      [&per_field_calls](const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
        ++per_field_calls;
        std::vector<uint8_t> m(static_cast<size_t>(b.num_rows));
        const int64_t* v = b.columns[0]->Values<int64_t>();
        for (int64_t r = 0; r < b.num_rows; ++r)
          m[static_cast<size_t>(r)] = v[r] >= 5000 && v[r] < 5010;
        return m;
      }};
  ReadFileOptions o = Options();
  o.filter = &filter;
  auto c = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, o);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  std::vector<int64_t> want;
  for (int64_t row = 5000; row < 5010; ++row) want.push_back(FixtureValue(row, 2));
  EXPECT_EQ(RowsOf(*c), want);
  EXPECT_EQ(c->read.rows_decoded, 10);
  EXPECT_GT(per_field_calls, 0);
  EXPECT_EQ(calls, 0);  // the whole filter is never asked
}

// Two thirds match in runs of two: narrowing to them does not pay. Every row of c2 is decoded and
// the rows kept by the flags the filter gave while c0 was matched -- the filter sees each row
// once, on one thread or across three slices of the plan, and the first 16,384 (a sixteenth of
// the plan, at least 16,384 rows) once before, judging whether to match the plan first.
TEST_F(ReadFileFilterTest, ManyShortMatchesAreFilteredBatchByBatch) {
  ThreadPool pool(3);
  for (size_t threads : {size_t{1}, size_t{3}}) {
    int calls = 0;
    int64_t rows_tested = 0;
    const RowFilter filter = FilterOnC0([](int64_t v) { return v % 3 != 0; }, &calls, &rows_tested);
    ReadFileOptions o = Options();
    o.filter = &filter;
    o.decode_threads = threads;
    o.pool = &pool;
    auto c = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, o);
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    std::vector<int64_t> want;
    for (int64_t row = 0; row < 100'000; ++row) {
      if (row % 3 != 0) want.push_back(FixtureValue(row, 2));
    }
    EXPECT_EQ(RowsOf(*c), want) << threads;
    EXPECT_EQ(c->read.rows_decoded, 100'000) << threads;
    EXPECT_EQ(rows_tested, 16'384 + 100'000) << threads;
    ASSERT_EQ(c->read.schema->fields.size(), 1u);
    EXPECT_EQ(c->read.schema->fields[0].name, "c2");
  }
}

// One row in 8 matches: a run begins every 8 rows, and a range per run would cost more than the
// rows -- judged on the first 16,384 rows, the plan is filtered batch by batch, every row of c2
// decoded. One row in 100: matched first (the first rows again), then narrowed to those rows.
TEST_F(ReadFileFilterTest, MatchesBeginningEveryFewRowsAreNotNarrowedTo) {
  for (auto [every, decoded] : {std::pair{8, 100'000}, std::pair{100, 1'000}}) {
    int calls = 0;
    int64_t rows_tested = 0;
    const RowFilter filter =
        FilterOnC0([every](int64_t v) { return v % every == 0; }, &calls, &rows_tested);
    ReadFileOptions o = Options();
    o.filter = &filter;
    auto c = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, o);
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    std::vector<int64_t> want;
    for (int64_t row = 0; row < 100'000; row += every) want.push_back(FixtureValue(row, 2));
    EXPECT_EQ(RowsOf(*c), want) << every;
    EXPECT_EQ(c->read.rows_decoded, decoded) << every;
    EXPECT_EQ(rows_tested, 16'384 + 100'000) << every;
  }
}

// The filter's column is an output too. Matches spread over every block of the first rows (one
// row in 8, or in 100): the plan is filtered batch by batch, c0 decoded once with c2 -- the
// field-by-field test sees the first 16,384 rows, the whole filter every row. Matching first
// would decode c0 twice. One row in 5,000 (4 of the first rows): matched field by field, then
// narrowed, c0 and c2 decoded at the 20 matches only.
TEST_F(ReadFileFilterTest, AFilterColumnInTheOutputIsDecodedOnceWhereNarrowingCannotPay) {
  for (auto [every, per_field_rows, whole_rows, decoded] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{8, 16'384, 100'000, 100'000},
        {100, 16'384, 100'000, 100'000},
        {5'000, 16'384 + 100'000, 0, 20}}) {
    int calls = 0;
    int64_t whole = 0;
    RowFilter filter = FilterOnC0([every](int64_t v) { return v % every == 0; }, &calls, &whole);
    int64_t per_field = 0;
    filter.per_field = {[&per_field, every = every](
                            const columnar::RecordBatch& b) -> Result<std::vector<uint8_t>> {
      per_field += b.num_rows;
      std::vector<uint8_t> m(static_cast<size_t>(b.num_rows));
      const int64_t* v = b.columns[0]->Values<int64_t>();
      for (int64_t r = 0; r < b.num_rows; ++r) m[static_cast<size_t>(r)] = v[r] % every == 0;
      return m;
    }};
    filter.output = std::vector<FieldKey>{{1, "c0"}, {3, "c2"}};
    ReadFileOptions o = Options();
    o.filter = &filter;
    auto c = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, o);
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    std::vector<int64_t> rows;
    for (const columnar::RecordBatch& b : c->batches) {
      ASSERT_EQ(b.num_columns(), 2);
      for (int64_t r = 0; r < b.num_rows; ++r) {
        const int64_t row = b.columns[0]->Values<int64_t>()[r];
        EXPECT_EQ(b.columns[1]->Values<int64_t>()[r], FixtureValue(row, 2)) << row;
        rows.push_back(row);
      }
    }
    std::vector<int64_t> want;
    for (int64_t row = 0; row < 100'000; row += every) want.push_back(row);
    EXPECT_EQ(rows, want) << every;
    EXPECT_EQ(per_field, per_field_rows) << every;
    EXPECT_EQ(whole, whole_rows) << every;
    EXPECT_EQ(c->read.rows_decoded, decoded) << every;
  }
}

TEST_F(ReadFileFilterTest, ExcludedRowsAreNeitherProducedNorTheirPagesFetched) {
  // c0 < 50,000 keeps 25 of 50 pages; the mask takes out [0, 40,000): 5 pages are left, the same
  // pages a predicate 40,000 <= c0 < 50,000 keeps.
  ReadFileOptions masked = Options();
  masked.fetch.read.use_page_index = true;
  ColumnPredicate below =
      ColumnPredicate::Range("c0", std::nullopt, PredicateValue(int64_t{50'000}));
  below.max_inclusive = false;
  masked.fetch.read.predicates = {below};
  masked.excluded_rows = {{0, 40'000}};
  auto m = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, masked);
  ASSERT_TRUE(m.has_value()) << m.error().ToString();

  ReadFileOptions ranged = Options();
  ranged.fetch.read.use_page_index = true;
  ColumnPredicate range = ColumnPredicate::Range("c0", PredicateValue(int64_t{40'000}),
                                                 PredicateValue(int64_t{50'000}));
  range.max_inclusive = false;
  ranged.fetch.read.predicates = {range};
  auto r = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, ranged);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();

  int64_t rows = 0;
  for (const auto& b : m->batches) {
    const int64_t* c0 = b.columns[0]->Values<int64_t>();
    for (int64_t i = 0; i < b.num_rows; ++i) EXPECT_EQ(c0[i], 40'000 + rows + i);
    rows += b.num_rows;
  }
  EXPECT_EQ(rows, 10'000);
  EXPECT_EQ(m->read.fetch.plan.pages_skipped, 2 * 45);  // both columns' 45 other pages
  EXPECT_EQ(m->read.fetch.plan.pages_skipped, r->read.fetch.plan.pages_skipped);
  EXPECT_EQ(m->read.fetch.bytes_fetched, r->read.fetch.bytes_fetched);
  EXPECT_EQ(m->read.fetch.requests, r->read.fetch.requests);
}

// A mask still to come (a delete file being read): one that may empty pages is asked for before
// the data is fetched, so those pages are not; a scattered one only once the data has come, so
// that its reads overlap the data's instead of going first when the footer is cached. Either way
// its rows are not produced.
TEST_F(ReadFileFilterTest, AScatteredMaskToComeIsAskedForAfterTheDataIsFetched) {
  auto counting = std::make_shared<io::CountingStore>(mem_);
  FooterCache cache;
  const uint64_t length = static_cast<uint64_t>(file_.size());
  for (bool may_empty_pages : {false, true}) {
    ReadFileOptions o;
    o.fetch.read.columns = {"c0"};
    o.fetch.cache = &cache;
    ASSERT_TRUE(ReadFileAll(*counting, "f.parquet", {length}, o).has_value());  // the footer
    const uint64_t gets_before = counting->Snapshot().get;
    std::optional<uint64_t> gets_when_asked;
    o.mask_may_empty_pages = may_empty_pages;
    o.excluded_rows_later = [&]() -> Result<std::vector<RowRange>> {
      gets_when_asked = counting->Snapshot().get - gets_before;
      return std::vector<RowRange>{{10, 20}, {50'000, 50'001}};
    };
    auto r = ReadFileAll(*counting, "f.parquet", {length}, o);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    ASSERT_TRUE(gets_when_asked.has_value());
    EXPECT_EQ(*gets_when_asked, may_empty_pages ? 0u : 1u) << may_empty_pages;
    EXPECT_EQ(counting->Snapshot().get - gets_before, 1u) << may_empty_pages;
    int64_t rows = 0, expected = 0;
    for (const auto& b : r->batches) {
      const int64_t* c0 = b.columns[0]->Values<int64_t>();
      for (int64_t i = 0; i < b.num_rows; ++i) {
        while (expected == 10 || (expected > 10 && expected < 20) || expected == 50'000) ++expected;
        EXPECT_EQ(c0[i], expected);
        ++expected;
      }
      rows += b.num_rows;
    }
    EXPECT_EQ(rows, 100'000 - 11) << may_empty_pages;
  }
}

// A scattered mask (runs shorter than the decoder would skip) comes out of the decoded batches run
// by run: rows dropped across batch and row group boundaries and on every decode thread, a long
// run among them left out of the plan, and nothing else lost or repeated.
TEST_F(ReadFileFilterTest, AScatteredMaskDropsItsRowsAcrossBatchesRowGroupsAndThreads) {
  WriterOptions w;
  w.page_row_limit = 2'000;
  w.row_group_row_limit = 30'000;  // row groups start at 0, 30,000, 60,000 and 90,000
  auto file = WriteInt64File(2, 100'000, 0, w);
  ASSERT_TRUE(file.has_value());
  ASSERT_TRUE(mem_->Put("g.parquet", file->bytes.view()).has_value());
  std::vector<RowRange> mask;
  for (int64_t r = 3; r < 100'000; r += 7) mask.push_back({r, r + 1});
  // Runs over the row groups' edges and the last row; one long enough to skip in the plan.
  std::erase_if(mask, [](const RowRange& x) {
    return (x.begin >= 29'990 && x.begin < 30'010) || (x.begin >= 50'000 && x.begin < 51'000) ||
           x.begin >= 99'990;
  });
  mask.push_back({29'995, 30'005});
  mask.push_back({50'000, 51'000});
  mask.push_back({99'998, 100'000});
  std::sort(mask.begin(), mask.end(),
            [](const RowRange& a, const RowRange& b) { return a.begin < b.begin; });
  std::vector<int64_t> expected;
  size_t m = 0;
  for (int64_t r = 0; r < 100'000; ++r) {
    while (m < mask.size() && mask[m].end <= r) ++m;
    if (m < mask.size() && mask[m].begin <= r) continue;
    expected.push_back(r);
  }
  ThreadPool pool(2);
  for (size_t threads : {size_t{1}, size_t{3}}) {
    ReadFileOptions o;
    o.fetch.read.columns = {"c0", "c1"};
    o.decode_threads = threads;
    o.pool = &pool;
    o.excluded_rows_later = [&]() -> Result<std::vector<RowRange>> { return mask; };
    auto r = ReadFileAll(*mem_, "g.parquet", {static_cast<uint64_t>(file->size())}, o);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    std::vector<int64_t> rows;
    for (const auto& b : r->batches) {
      ASSERT_EQ(b.num_columns(), 2);
      const int64_t* c0 = b.columns[0]->Values<int64_t>();
      const int64_t* c1 = b.columns[1]->Values<int64_t>();
      for (int64_t i = 0; i < b.num_rows; ++i) {
        rows.push_back(c0[i]);
        EXPECT_EQ(c1[i], testing::FixtureValue(c0[i], 1)) << threads;
      }
    }
    EXPECT_EQ(rows, expected) << threads;
  }
}

}  // namespace
}  // namespace floe::parquet

namespace floe::parquet {
namespace {

// Each row's file position as a last column (what a row-level delete names): c0 is the row's
// number in the fixture, so position == c0 on every path -- late materialisation, the
// batch-by-batch filter, a mask from outside, and a scattered mask applied to the decoded batches.
class ReadFilePositionsTest : public ReadFileFilterTest {
 protected:
  // (c0, position) of every row read with `o` (which reads c0 and asks for positions).
  std::vector<std::pair<int64_t, int64_t>> Read(ReadFileOptions o) {
    o.fetch.read.columns = {"c0"};
    o.position_field = columnar::Field{"_pos", columnar::Int64(), false, 2147483645};
    auto c = ReadFileAll(*mem_, "f.parquet", {static_cast<uint64_t>(file_.size())}, o);
    EXPECT_TRUE(c.has_value()) << c.error().ToString();
    std::vector<std::pair<int64_t, int64_t>> out;
    if (!c) return out;
    EXPECT_EQ(c->read.schema->fields.back().name, "_pos");
    for (const columnar::RecordBatch& b : c->batches) {
      EXPECT_EQ(b.schema->fields.back().field_id, 2147483645);
      const int64_t* v = b.columns.front()->Values<int64_t>();
      const int64_t* p = b.columns.back()->Values<int64_t>();
      for (int64_t r = 0; r < b.num_rows; ++r) out.emplace_back(v[r], p[r]);
    }
    return out;
  }
  static bool Aligned(const std::vector<std::pair<int64_t, int64_t>>& rows) {
    return std::all_of(rows.begin(), rows.end(), [](const auto& x) { return x.first == x.second; });
  }
};

TEST_F(ReadFilePositionsTest, EveryPathGivesEachRowItsFilePosition) {
  auto all = Read({});
  EXPECT_EQ(all.size(), 100'000u);
  EXPECT_TRUE(Aligned(all));

  int calls = 0;
  RowFilter few = FilterOnC0([](int64_t v) { return v >= 70'000 && v < 70'005; }, &calls);
  few.output = std::vector<FieldKey>{{1, "c0"}};
  ReadFileOptions narrowed;
  narrowed.filter = &few;
  auto n = Read(narrowed);
  EXPECT_EQ(n, (std::vector<std::pair<int64_t, int64_t>>{{70'000, 70'000},
                                                         {70'001, 70'001},
                                                         {70'002, 70'002},
                                                         {70'003, 70'003},
                                                         {70'004, 70'004}}));

  RowFilter many = FilterOnC0([](int64_t v) { return v % 3 != 0; }, &calls);
  many.output = std::vector<FieldKey>{{1, "c0"}};
  ReadFileOptions batchwise;
  batchwise.filter = &many;
  auto b = Read(batchwise);
  EXPECT_EQ(b.size(), 66'666u);
  EXPECT_TRUE(Aligned(b));

  ReadFileOptions masked;
  masked.excluded_rows = {{0, 40'000}, {50'000, 50'001}, {50'003, 50'004}};
  auto m = Read(masked);
  EXPECT_EQ(m.size(), 100'000u - 40'002);
  EXPECT_TRUE(Aligned(m));
  EXPECT_EQ(m.front(), (std::pair<int64_t, int64_t>{40'000, 40'000}));
}

}  // namespace
}  // namespace floe::parquet
