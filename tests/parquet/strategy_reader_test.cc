// Exact request counts and bytes of one file's read under each strategy, through CountingStore
// over MemStore (deterministic). The figures follow from the strategies' rules and the fixture
// files' layout (parquet/read_fixture_util.h), computed here from the files' own footers.
#include "floe/parquet/strategy_reader.h"

#include <gtest/gtest.h>

#include "floe/io/counting_store.h"
#include "floe/io/mem_store.h"
#include "floe/parquet/column_predicate.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/page_index.h"
#include "parquet/read_fixture_util.h"

namespace floe::parquet {
namespace {

using testing::FixtureFile;
using testing::WriteInt64File;

struct Counted {
  int64_t gets = 0;
  int64_t heads = 0;
  int64_t bytes = 0;
  int64_t rows = 0;
  int64_t data_bytes = 0;  // bytes of the final plan's data ranges
};

class StrategyReaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    io::MemStore::Forget("strategy-reader-test");
    store_ = new std::shared_ptr<io::CountingStore>(
        std::make_shared<io::CountingStore>(io::MemStore::Open("strategy-reader-test").value()));
    // ~300 KB: 4 columns x 9,600 rows, one row group.
    small_ = Put("small.parquet", WriteInt64File(4, 9'600).value());
    // ~3 MB in 3 row groups of 32,000 rows.
    WriterOptions three;
    three.row_group_row_limit = 32'000;
    three_rg_ = Put("three.parquet", WriteInt64File(4, 96'000, 0, three).value());
    // ~50 MB: 60 columns x 105,000 rows in one row group, sorted by c0, 2,000-row pages.
    WriterOptions big;
    big.page_row_limit = 2'000;
    big_ = Put("big.parquet", WriteInt64File(60, 105'000, 0, big).value());
  }
  static void TearDownTestSuite() {
    delete store_;
    delete small_;
    delete three_rg_;
    delete big_;
    io::MemStore::Forget("strategy-reader-test");
  }

  static FixtureFile* Put(const std::string& key, FixtureFile f) {
    EXPECT_TRUE((*store_)->Put(key, f.bytes.view()).has_value());
    return new FixtureFile(std::move(f));
  }

  static io::CountingStore& store() { return **store_; }

  // Fetches and decodes `key`, returning what the store saw.
  static Counted Read(const std::string& key, const FixtureFile& f, ReadStrategy strategy,
                      ReadOptions read = {}, int64_t projected_bytes = -1,
                      TailEstimator* tails = nullptr, FooterCache* cache = nullptr) {
    StrategyReadOptions o;
    o.strategy = strategy;
    o.read = std::move(read);
    o.tails = tails;
    o.cache = cache;
    FileHints hints{static_cast<uint64_t>(f.size()), projected_bytes};
    store().Reset();
    auto fetched = FetchFile(store(), key, hints, o);
    EXPECT_TRUE(fetched.has_value()) << fetched.error().ToString();
    Counted c;
    if (!fetched) return c;
    io::RequestCounts n = store().Snapshot();
    c.gets = static_cast<int64_t>(n.get);
    c.heads = static_cast<int64_t>(n.head);
    c.bytes = static_cast<int64_t>(n.bytes_read);
    EXPECT_EQ(fetched->stats.requests, c.gets + c.heads);
    EXPECT_EQ(fetched->stats.bytes_fetched, c.bytes);
    for (const PlannedRange& r : fetched->plan.DataRanges()) c.data_bytes += r.range.length;
    auto batches = fetched->reader.ReadAll(std::move(fetched->plan), std::move(fetched->bytes));
    EXPECT_TRUE(batches.has_value()) << batches.error().ToString();
    if (batches) {
      for (const auto& b : *batches) c.rows += b.num_rows;
    }
    return c;
  }

  // The footer's serialised length and the data ranges of a full read, from the file itself.
  static int64_t MetadataLength(const FixtureFile& f) {
    auto tail = ParseFooter("f", f.bytes.size(), f.bytes.view());
    EXPECT_TRUE(tail.has_value());
    return tail ? tail->metadata_length : 0;
  }
  static std::vector<PlannedRange> DataRanges(const FixtureFile& f, ReadOptions read = {}) {
    auto opened = FileReader::Open("f", f.bytes.size(), f.bytes.view());
    EXPECT_TRUE(opened.has_value() && opened->reader.has_value());
    auto plan = opened->reader->Plan(read);
    EXPECT_TRUE(plan.has_value());
    return plan->DataRanges();
  }
  static int64_t Sum(const std::vector<PlannedRange>& ranges, int64_t below = INT64_MAX) {
    int64_t n = 0;
    for (const PlannedRange& r : ranges) {
      if (r.range.offset < below) n += r.range.length;
    }
    return n;
  }

  static std::shared_ptr<io::CountingStore>* store_;
  static FixtureFile* small_;
  static FixtureFile* three_rg_;
  static FixtureFile* big_;
};

std::shared_ptr<io::CountingStore>* StrategyReaderTest::store_ = nullptr;
FixtureFile* StrategyReaderTest::small_ = nullptr;
FixtureFile* StrategyReaderTest::three_rg_ = nullptr;
FixtureFile* StrategyReaderTest::big_ = nullptr;

TEST_F(StrategyReaderTest, FixturesHaveTheIntendedShape) {
  EXPECT_GT(small_->size(), 300'000);
  EXPECT_LT(small_->size(), 320'000);
  EXPECT_EQ(three_rg_->written.row_group_rows.size(), 3u);
  EXPECT_GT(three_rg_->size(), 3'000'000);
  EXPECT_GT(big_->size(), 50'000'000);
  EXPECT_LT(big_->size(), 52'000'000);
}

TEST_F(StrategyReaderTest, FloeReadsASmallFileWholeInOneGet) {
  Counted c = Read("small.parquet", *small_, ReadStrategy::kFloe);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, small_->size());
  EXPECT_EQ(c.rows, 9'600);
  // A projection does not change that: the whole file is cheaper than a second request.
  ReadOptions two;
  two.columns = {"c1", "c3"};
  c = Read("small.parquet", *small_, ReadStrategy::kFloe, two);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.bytes, small_->size());
}

TEST_F(StrategyReaderTest, EveryBaselineOnASmallFile) {
  // eager: whole file at <= 1 MiB.
  Counted c = Read("small.parquet", *small_, ReadStrategy::kEager);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, small_->size());
  // aal: HEAD, then the whole object (<= 8 MiB).
  c = Read("small.parquet", *small_, ReadStrategy::kAal);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.heads, 1);
  EXPECT_EQ(c.bytes, small_->size());
  // arrow-rs: the 512 KiB footer hint holds the whole file.
  c = Read("small.parquet", *small_, ReadStrategy::kArrowRs);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, small_->size());
  // parquet-mr: 8-byte tail, footer, one row group.
  c = Read("small.parquet", *small_, ReadStrategy::kParquetMr);
  EXPECT_EQ(c.gets, 3);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, 8 + MetadataLength(*small_) + Sum(DataRanges(*small_)));
  EXPECT_EQ(c.rows, 9'600);
}

TEST_F(StrategyReaderTest, ParquetMrOnThreeRowGroupsIsFiveGets) {
  const int64_t expected = 8 + MetadataLength(*three_rg_) + Sum(DataRanges(*three_rg_));
  Counted c = Read("three.parquet", *three_rg_, ReadStrategy::kParquetMr);
  EXPECT_EQ(c.gets, 5);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, expected);
  EXPECT_EQ(c.rows, 96'000);
  // eager falls back to parquet-mr above 1 MiB.
  c = Read("three.parquet", *three_rg_, ReadStrategy::kEager);
  EXPECT_EQ(c.gets, 5);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, expected);
}

TEST_F(StrategyReaderTest, ThreeRowGroupsUnderTheOtherStrategies) {
  const int64_t len = three_rg_->size();
  // arrow-rs: 512 KiB tail, then one coalesced GET per row group not already in the tail.
  Counted c = Read("three.parquet", *three_rg_, ReadStrategy::kArrowRs);
  EXPECT_EQ(c.gets, 4);
  EXPECT_EQ(c.heads, 0);
  int64_t outside_tail = 0;
  for (const PlannedRange& r : DataRanges(*three_rg_)) {
    if (r.range.end() > len - (512 << 10)) continue;  // in the tail (or not wholly: fetched)
    outside_tail += r.range.length;
  }
  int64_t straddling = 0;
  for (const PlannedRange& r : DataRanges(*three_rg_)) {
    if (r.range.offset < len - (512 << 10) && r.range.end() > len - (512 << 10)) {
      straddling += r.range.length;
    }
  }
  EXPECT_EQ(c.bytes, (512 << 10) + outside_tail + straddling);
  // aal: HEAD + the whole object (<= 8 MiB).
  c = Read("three.parquet", *three_rg_, ReadStrategy::kAal);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.heads, 1);
  EXPECT_EQ(c.bytes, len);
  // floe without column sizes: a 64 KiB tail, then every chunk in one coalesced GET (the row
  // groups are adjacent, 3 MB < the 8 MiB cap).
  c = Read("three.parquet", *three_rg_, ReadStrategy::kFloe);
  EXPECT_EQ(c.gets, 2);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, (64 << 10) + Sum(DataRanges(*three_rg_), len - (64 << 10)));
  EXPECT_EQ(c.rows, 96'000);
  // floe told by the manifest's column sizes that the read needs all of it: one GET.
  c = Read("three.parquet", *three_rg_, ReadStrategy::kFloe, {}, Sum(DataRanges(*three_rg_)));
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, len);
}

TEST_F(StrategyReaderTest, FloeProjectsThreeOfSixtyColumnsOfA50MBFileInTwoGets) {
  ReadOptions three;
  three.columns = {"c1", "c2", "c3"};
  const std::vector<PlannedRange> chunks = DataRanges(*big_, three);
  ASSERT_EQ(chunks.size(), 3u);
  const int64_t projected = Sum(chunks);
  Counted c = Read("big.parquet", *big_, ReadStrategy::kFloe, three, projected);
  EXPECT_EQ(c.gets, 2);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, (64 << 10) + projected);
  EXPECT_EQ(c.rows, 105'000);
  // The baselines on the same read.
  c = Read("big.parquet", *big_, ReadStrategy::kParquetMr, three);
  EXPECT_EQ(c.gets, 3);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.bytes, 8 + MetadataLength(*big_) + projected);
  c = Read("big.parquet", *big_, ReadStrategy::kArrowRs, three);
  EXPECT_EQ(c.gets, 2);
  EXPECT_EQ(c.bytes, (512 << 10) + projected);
  c = Read("big.parquet", *big_, ReadStrategy::kAal, three);
  EXPECT_EQ(c.heads, 1);
  EXPECT_EQ(c.gets, 3);  // 32 KiB footer + 1 MiB page-index prefetch, one 8 MiB block
  EXPECT_EQ(c.bytes, (32 << 10) + (1 << 20) + projected);
}

TEST_F(StrategyReaderTest, FloePointLookupInA50MBSortedFileReadsOnlyMatchingPages) {
  ReadOptions lookup;
  lookup.columns = {"c0", "c1", "c2"};
  lookup.predicates = {ColumnPredicate::Equal("c0", int64_t{52'345})};
  lookup.use_page_index = true;
  const int64_t len = big_->size();
  TailEstimator tails{ReadPlannerOptions{}};
  Counted c = Read("big.parquet", *big_, ReadStrategy::kFloe, lookup, -1, &tails);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.rows, 2'000);  // the one page of rows that can hold the key
  EXPECT_LT(c.data_bytes, 64 << 10);
  // Tail (64 KiB), the index ranges the tail missed (c0's column index, the offset indexes of
  // c0..c2) in one GET, and the three matching pages of c0, c1, c2 -- far apart, so three
  // requests of one batch.
  auto opened = FileReader::Open("f", len, big_->bytes.view());
  auto plan = opened->reader->Plan(lookup);
  ASSERT_TRUE(plan.has_value());
  int64_t first = len, end = 0;
  for (const PlannedRange& r : plan->IndexRanges()) {
    if (r.range.end() <= len - (64 << 10)) {
      first = std::min(first, r.range.offset);
      end = std::max(end, r.range.end());
    }
  }
  ASSERT_LT(first, end);
  EXPECT_EQ(c.gets, 5);
  EXPECT_EQ(c.bytes - c.data_bytes, (64 << 10) + (end - first));
  // The next file of the same scan starts with a tail that holds footer and those indexes.
  EXPECT_GE(tails.Estimate(len, true), len - first);
  c = Read("big.parquet", *big_, ReadStrategy::kFloe, lookup, -1, &tails);
  EXPECT_EQ(c.gets, 4);
  EXPECT_LT(c.data_bytes, 64 << 10);
}

TEST_F(StrategyReaderTest, FooterCacheServesTheFooterAndPageIndex) {
  FooterCache cache(1 << 20);
  ReadOptions three;
  three.columns = {"c1", "c2", "c3"};
  Counted c = Read("big.parquet", *big_, ReadStrategy::kFloe, three, -1, nullptr, &cache);
  EXPECT_EQ(c.gets, 2);
  EXPECT_EQ(cache.entries(), 1);
  // Warm: only the data.
  c = Read("big.parquet", *big_, ReadStrategy::kFloe, three, -1, nullptr, &cache);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(c.bytes, c.data_bytes);
  EXPECT_EQ(cache.hits(), 1);
  // Another length is another file: a miss.
  EXPECT_FALSE(cache.Find("big.parquet", big_->size() + 1).has_value());
  // Disabled and cleared caches serve nothing.
  cache.set_enabled(false);
  EXPECT_FALSE(cache.Find("big.parquet", big_->size()).has_value());
  cache.set_enabled(true);
  cache.Clear();
  EXPECT_EQ(cache.entries(), 0);
  EXPECT_EQ(cache.bytes(), 0);
  c = Read("big.parquet", *big_, ReadStrategy::kFloe, three, -1, nullptr, &cache);
  EXPECT_EQ(c.gets, 2);
}

// Without a predicate, a projection of the whole 3 MB file is the whole file in one GET. With a
// predicate on the sorted c0, row-group statistics may rule most of it out, so the footer comes
// first and only the matching row group's chunks follow.
TEST_F(StrategyReaderTest, FloeWithAPredicateFetchesTheFooterOfALargeFileFirst) {
  const int64_t len = three_rg_->size();
  ASSERT_GT(len, int64_t{2} << 20);  // past the whole-file threshold
  Counted all = Read("three.parquet", *three_rg_, ReadStrategy::kFloe, {}, len);
  EXPECT_EQ(all.gets, 1);
  EXPECT_EQ(all.bytes, len);
  ReadOptions lookup;
  lookup.predicates = {ColumnPredicate::Equal("c0", int64_t{40'000})};  // row group 1
  lookup.use_page_index = true;
  Counted c = Read("three.parquet", *three_rg_, ReadStrategy::kFloe, lookup, len);
  EXPECT_EQ(c.heads, 0);
  EXPECT_EQ(c.gets, 2);  // the 64 KiB tail, then row group 1's matching pages in one GET
  EXPECT_LT(c.data_bytes, len / 3);
  // The GET reads through the gaps between the four columns' pages, never more than the waste
  // guard allows (as many gap bytes as wanted ones).
  EXPECT_GE(c.bytes, (64 << 10) + c.data_bytes);
  EXPECT_LE(c.bytes, (64 << 10) + 2 * c.data_bytes);
  EXPECT_LE(c.rows, 32'000);
}

// A file within the whole-file threshold stays one request when its footer comes from the cache,
// even if the pages it needs lie far apart (c0's and c3's matching pages, two chunks between).
TEST_F(StrategyReaderTest, FloeReadsASmallFileInOneGetWithACachedFooter) {
  WriterOptions paged;
  paged.page_row_limit = 1'000;
  static FixtureFile* file = Put("small-paged.parquet", WriteInt64File(4, 9'600, 0, paged).value());
  FooterCache cache(1 << 20);
  ReadOptions lookup;
  lookup.columns = {"c0", "c3"};
  lookup.predicates = {ColumnPredicate::Equal("c0", int64_t{5'500})};
  lookup.use_page_index = true;
  Counted cold =
      Read("small-paged.parquet", *file, ReadStrategy::kFloe, lookup, -1, nullptr, &cache);
  EXPECT_EQ(cold.gets, 1);  // the whole file
  EXPECT_EQ(cold.bytes, file->size());
  EXPECT_EQ(cold.rows, 1'000);  // the one matching page
  Counted warm =
      Read("small-paged.parquet", *file, ReadStrategy::kFloe, lookup, -1, nullptr, &cache);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(warm.gets, 1);
  EXPECT_EQ(warm.rows, 1'000);
  // Two pages of 1,000 x 8 bytes wanted; the GET spans the 2.4 chunks of 9,600 x 8 bytes between.
  EXPECT_GE(warm.data_bytes, 2 * 8'000);  // plus two page headers
  EXPECT_LT(warm.data_bytes, 2 * 8'000 + 200);
  EXPECT_GT(warm.bytes, 2 * 9'600 * 8);
  EXPECT_LT(warm.bytes, 4 * 9'600 * 8);
}

// The cache keeps the index pieces a read fetched beside the footer, even when they came in
// separate GETs: a warm lookup fetches only its pages; a lookup needing another column's offset
// index fetches it at most once, and the entry then holds it too.
TEST_F(StrategyReaderTest, FooterCacheKeepsThePageIndexPiecesReadsFetched) {
  FooterCache cache(8 << 20);
  ReadOptions lookup;
  lookup.columns = {"c0", "c1", "c2"};
  lookup.predicates = {ColumnPredicate::Equal("c0", int64_t{52'345})};
  lookup.use_page_index = true;
  Counted cold = Read("big.parquet", *big_, ReadStrategy::kFloe, lookup, -1, nullptr, &cache);
  EXPECT_EQ(cold.gets, 5);  // tail, the index ranges it missed, three pages
  Counted warm = Read("big.parquet", *big_, ReadStrategy::kFloe, lookup, -1, nullptr, &cache);
  EXPECT_EQ(warm.gets, 3);  // the three pages, far apart
  EXPECT_EQ(warm.bytes, warm.data_bytes);
  EXPECT_EQ(warm.rows, 2'000);
  lookup.columns = {"c0", "c7"};
  Counted other = Read("big.parquet", *big_, ReadStrategy::kFloe, lookup, -1, nullptr, &cache);
  // The pages of c0 and c7, and c7's offset index unless an earlier GET happened to span it.
  EXPECT_GE(other.gets, 2);
  EXPECT_LE(other.gets, 3);
  Counted again = Read("big.parquet", *big_, ReadStrategy::kFloe, lookup, -1, nullptr, &cache);
  EXPECT_EQ(again.gets, 2);
  EXPECT_EQ(again.bytes, again.data_bytes);
  EXPECT_EQ(cache.entries(), 1);
}

TEST_F(StrategyReaderTest, FooterCacheIsBoundedInBytes) {
  FooterCache cache(1);  // smaller than any entry: keeps nothing
  Counted c = Read("small.parquet", *small_, ReadStrategy::kFloe, {}, -1, nullptr, &cache);
  EXPECT_EQ(c.gets, 1);
  EXPECT_EQ(cache.entries(), 0);
  FooterCache roomy(1 << 20);
  Read("small.parquet", *small_, ReadStrategy::kFloe, {}, -1, nullptr, &roomy);
  EXPECT_EQ(roomy.entries(), 1);
  EXPECT_LE(roomy.bytes(), 1 << 20);
  roomy.set_capacity_bytes(1);
  EXPECT_EQ(roomy.entries(), 0);
}

TEST_F(StrategyReaderTest, AMissingObjectIsAnErrorNamingIt) {
  StrategyReadOptions o;
  auto r = FetchFile(store(), "nope.parquet", FileHints{1000, -1}, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("nope.parquet"), std::string::npos) << r.error().ToString();
}

TEST(ReadStrategyTest, NamesRoundTripAndUnknownNamesAreListed) {
  for (const char* name : {"floe", "parquet-mr", "aal", "eager", "arrow-rs"}) {
    auto s = ParseReadStrategy(name);
    ASSERT_TRUE(s.has_value()) << name;
    EXPECT_EQ(ReadStrategyName(*s), name);
  }
  auto bad = ParseReadStrategy("spark");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message,
            "unknown read strategy 'spark'; expected one of floe, parquet-mr, aal, eager, "
            "arrow-rs");
}

TEST(ReadPlannerTest, FirstReadAndCoalescing) {
  ReadPlannerOptions p;
  EXPECT_TRUE(PlanFirstRead(p, 2 << 20, -1, 64 << 10).whole_file);
  FirstRead tail = PlanFirstRead(p, (2 << 20) + 1, -1, 64 << 10);
  EXPECT_FALSE(tail.whole_file);
  EXPECT_EQ(tail.tail_bytes, 64 << 10);
  // Most of a 6 MB file needed: whole. A 20 MB file is past the request cap: tail.
  EXPECT_TRUE(PlanFirstRead(p, 6'000'000, 5'000'000, 64 << 10).whole_file);
  EXPECT_FALSE(PlanFirstRead(p, 6'000'000, 1'000'000, 64 << 10).whole_file);
  EXPECT_FALSE(PlanFirstRead(p, 20'000'000, 20'000'000, 64 << 10).whole_file);
  EXPECT_EQ(ReadPlannerOptions::GapFor(25, 90), 2'250'000);

  // Gap within the threshold and cheap: merged; past the cap: not; wasteful: not.
  std::vector<ByteRange> r = CoalesceCapped({{0, 100}, {150, 100}}, 100, 1000, 1.0);
  EXPECT_EQ(r, (std::vector<ByteRange>{{0, 250}}));
  r = CoalesceCapped({{0, 100}, {150, 100}}, 100, 200, 1.0);
  EXPECT_EQ(r, (std::vector<ByteRange>{{0, 100}, {150, 100}}));
  r = CoalesceCapped({{0, 10}, {1000, 10}}, 2000, 1 << 20, 1.0);
  EXPECT_EQ(r, (std::vector<ByteRange>{{0, 10}, {1000, 10}}));
  r = CoalesceCapped({{0, 10}, {1000, 10}}, 2000, 1 << 20, 0);
  EXPECT_EQ(r, (std::vector<ByteRange>{{0, 1010}}));
  // Overlapping and contained ranges always merge.
  r = CoalesceCapped({{0, 100}, {50, 100}, {60, 10}}, 0, 10, 1.0);
  EXPECT_EQ(r, (std::vector<ByteRange>{{0, 150}}));

  TailEstimator t(p);
  EXPECT_EQ(t.Estimate(1 << 30, false), 64 << 10);
  t.Observe(100'000, false);
  EXPECT_EQ(t.Estimate(1 << 30, false), 126'976);  // 125,000 rounded up to 4 KiB
  EXPECT_EQ(t.Estimate(1 << 30, true), 126'976);
  EXPECT_EQ(t.Estimate(50'000, false), 50'000);  // never past the file
}

// An offset index that passes every rule but that the pages fetched disprove (page 99 claimed to
// end at row 199,990; its header holds 2,000 values): the read plans again without the page index
// and fetches the whole chunks it then needs, so the rows are right and no more than one more
// request is spent on the lie.
TEST_F(StrategyReaderTest, PagesThatDisproveTheOffsetIndexAreReadWithoutIt) {
  WriterOptions o;
  o.page_row_limit = 2'000;
  o.write_metadata_checksums = false;  // the pages alone must tell, as in other writers' files
  FixtureFile f = WriteInt64File(2, 400'000, 0, o).value();
  std::vector<uint8_t> bytes(f.bytes.data(), f.bytes.data() + f.bytes.size());
  const ColumnChunk& chunk = f.written.metadata.row_groups[0].columns[0];
  const ByteRange at{*chunk.offset_index_offset, *chunk.offset_index_length};
  auto oi = ParseOffsetIndex(
      ByteView(bytes).subspan(static_cast<size_t>(at.offset), static_cast<size_t>(at.length)));
  ASSERT_TRUE(oi.has_value());
  oi->page_locations[100].first_row_index = 199'990;
  auto lying = SerializeOffsetIndex(*oi);
  ASSERT_TRUE(lying.has_value());
  ASSERT_EQ(static_cast<int64_t>(lying->size()), at.length);
  std::copy(lying->begin(), lying->end(), bytes.begin() + at.offset);
  ASSERT_TRUE(store().Put("lying.parquet", bytes).has_value());

  StrategyReadOptions so;
  so.read.use_page_index = true;
  so.read.predicates.push_back(ColumnPredicate::Range("c0", int64_t{199'000}, int64_t{199'100}));
  store().Reset();
  auto fetched =
      FetchFile(store(), "lying.parquet", FileHints{static_cast<uint64_t>(bytes.size()), -1}, so);
  ASSERT_TRUE(fetched.has_value()) << fetched.error().ToString();
  const io::RequestCounts n = store().Snapshot();
  const int64_t page99 = oi->page_locations[99].offset;
  EXPECT_EQ(fetched->plan.counts.metadata_rejected, 1);
  EXPECT_EQ(fetched->plan.first_rejection,
            fmt::format("parquet file '{}': column 'c0' of row group 0: the page at offset {} "
                        "holds 2000 values, the offset index gives it 1990 rows; the file was "
                        "read without its page index",
                        io::JoinKey(store().Uri(), "lying.parquet"), page99));
  // The tail (footer and page index), the kept pages, then what the whole chunks add.
  EXPECT_EQ(n.get, 4);
  EXPECT_EQ(n.head, 0);
  EXPECT_EQ(fetched->plan.counts.rows, 400'000);
  auto batches = fetched->reader.ReadAll(std::move(fetched->plan), std::move(fetched->bytes));
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  int64_t rows = 0, matching = 0;
  for (const auto& b : *batches) {
    const auto* c0 = reinterpret_cast<const int64_t*>(b.column(0)->values.data());
    for (int64_t i = 0; i < b.num_rows; ++i) matching += c0[i] >= 199'000 && c0[i] <= 199'100;
    rows += b.num_rows;
  }
  EXPECT_EQ(rows, 400'000);
  EXPECT_EQ(matching, 101);
}

}  // namespace
}  // namespace floe::parquet
