#include "floe/parquet/read_plan.h"

#include <functional>
#include <numeric>

#include <gtest/gtest.h>

#include "parquet/reader_test_util.h"

// Expected byte ranges below come from pyarrow's and DuckDB's metadata (parquet_metadata():
// data_page_offset, total_compressed_size, column/offset index offsets) and, for page locations
// and column index bounds, from a few lines of Python decoding the Thrift compact page index
// independently of floe; expected rows from pyarrow.parquet.read_table.

namespace floe::parquet {
namespace {

using testing::DataFile;
using testing::JsonColumn;
using testing::JsonRows;
using testing::LoadedFile;
using testing::LoadFile;
using testing::ReadFile;

PlannedRange Chunk(int64_t offset, int64_t length, int rg, int column) {
  return {ByteRange{offset, length}, RangeKind::kColumnChunk, rg, column};
}
PlannedRange Page(int64_t offset, int64_t length, int column) {
  return {ByteRange{offset, length}, RangeKind::kDataPage, 0, column};
}

std::vector<int> SurvivingRowGroups(const LoadedFile& f, std::vector<ColumnPredicate> predicates) {
  ReadOptions options;
  options.predicates = std::move(predicates);
  auto plan = f.reader->Plan(options);
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  std::vector<int> out;
  if (!plan) return out;
  for (const auto& rg : plan->row_groups) out.push_back(rg.row_group);
  EXPECT_EQ(plan->counts.row_groups_pruned_by_stats + static_cast<int>(out.size()),
            plan->counts.row_groups);
  return out;
}

TEST(ReadPlanTest, ProjectedChunksOnly) {
  LoadedFile f = LoadFile(DataFile("alltypes_plain.parquet"));
  ReadOptions options;
  options.columns = {"string_col", "id"};
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_FALSE(plan->index_pending);
  EXPECT_TRUE(plan->IndexRanges().empty());
  EXPECT_EQ(plan->DataRanges(),
            (std::vector<PlannedRange>{Chunk(4, 73, 0, 0), Chunk(840, 49, 0, 9)}));
  // Columns come out in the order asked for.
  ASSERT_EQ(plan->schema->num_fields(), 2);
  EXPECT_EQ(plan->schema->fields[0].name, "string_col");
  auto batches = f.reader->ReadAll(
      std::move(*plan), testing::OnlyRanges(f, {Chunk(4, 73, 0, 0), Chunk(840, 49, 0, 9)}));
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  EXPECT_EQ(JsonRows(*batches)[0], "[\"30\", 4]");
}

// A batch holds about batch_bytes of decoded values: each optional leaf counts 2 bytes of levels,
// an int32 4, an int64 8, a string 4 + 4 + 16 (offset, code, value).
TEST(ReadPlanTest, WideRowsGetFewerRowsPerBatch) {
  LoadedFile f = LoadFile(DataFile("alltypes_plain.parquet"));
  auto rows_per_batch = [&](int64_t batch_bytes, int64_t batch_rows) -> int64_t {
    ReadOptions options;
    options.columns = {"id", "bigint_col", "string_col"};  // (2 + 4) + (2 + 8) + (2 + 24) = 42
    options.batch_bytes = batch_bytes;
    options.batch_rows = batch_rows;
    auto plan = f.reader->Plan(options);
    EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
    return plan ? plan->batch_rows : -1;
  };
  EXPECT_EQ(rows_per_batch(42 * 3000, kDefaultBatchRows), 2048);  // rounded down to 1024s
  EXPECT_EQ(rows_per_batch(42 * 100, kDefaultBatchRows), kMinBatchRows);
  EXPECT_EQ(rows_per_batch(0, kDefaultBatchRows), kDefaultBatchRows);
  EXPECT_EQ(rows_per_batch(kDefaultBatchBytes, kDefaultBatchRows), kDefaultBatchRows);
  EXPECT_EQ(rows_per_batch(42 * 3000, 1000), 1000);  // never more than asked for
}

TEST(ReadPlanTest, OldParquetMrChunksArePadded) {
  LoadedFile f = LoadFile(DataFile("nation.dict-malformed.parquet"));
  ReadOptions options;
  options.columns = {"name", "comment_col"};
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  // Declared [129, +322) and [591, +2002); 100 bytes more, but never into the footer (which
  // starts at 2850 - 8 - 234 = 2608).
  EXPECT_EQ(f.bytes.size(), 2850u);
  EXPECT_EQ(plan->DataRanges(),
            (std::vector<PlannedRange>{Chunk(129, 422, 0, 1), Chunk(591, 2017, 0, 3)}));
  EXPECT_TRUE(WriterUnderstatesChunkSize("parquet-mr"));
  EXPECT_TRUE(WriterUnderstatesChunkSize("parquet-mr version 1.2.8 (build abc)"));
  EXPECT_FALSE(WriterUnderstatesChunkSize("parquet-mr version 1.2.9 (build abc)"));
  EXPECT_FALSE(WriterUnderstatesChunkSize("parquet-mr version 1.10.0 (build abc)"));
  EXPECT_FALSE(WriterUnderstatesChunkSize("parquet-cpp-arrow version 14.0.2"));
}

// id = 3000 on a file with a page index: six pages of `id` can hold it, so the selection is their
// rows, and of string_col only the 10 (of 352) pages overlapping them are fetched, plus its
// dictionary page -- which the footer does not announce (no dictionary_page_offset; the chunk's
// first page, [167075, +63), is a DICTIONARY_PAGE of 10 values before the offset index's first
// page at 167138).
TEST(ReadPlanTest, PageIndexKeepsOnlyMatchingPages) {
  LoadedFile f = LoadFile(DataFile("alltypes_tiny_pages.parquet"));
  ReadOptions options;
  options.columns = {"id", "string_col"};
  options.predicates = {ColumnPredicate::Equal("id", int64_t{3000})};
  options.use_page_index = true;
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_TRUE(plan->index_pending);
  EXPECT_EQ(plan->IndexRanges(), (std::vector<PlannedRange>{
                                     {ByteRange{323583, 3919}, RangeKind::kColumnIndex, 0, 0},
                                     {ByteRange{394311, 3503}, RangeKind::kOffsetIndex, 0, 0},
                                     {ByteRange{431936, 3521}, RangeKind::kOffsetIndex, 0, 9},
                                 }));
  ASSERT_TRUE(
      f.reader->ApplyPageIndex(testing::OnlyRanges(f, plan->IndexRanges()), &*plan).has_value());
  EXPECT_FALSE(plan->index_pending);
  ASSERT_EQ(plan->row_groups.size(), 1u);
  EXPECT_EQ(
      plan->row_groups[0].rows,
      (std::vector<RowRange>{{471, 513}, {534, 561}, {603, 624}, {1212, 1233}, {3642, 3663}}));
  EXPECT_EQ(plan->DataRanges(),
            (std::vector<PlannedRange>{Page(2413, 109, 0),
                                       Page(2522, 109, 0),
                                       Page(2740, 133, 0),
                                       Page(3091, 109, 0),
                                       Page(6202, 109, 0),
                                       Page(18622, 109, 0),
                                       {ByteRange{167075, 63}, RangeKind::kDictionaryPage, 0, 9},
                                       Page(167952, 37, 9),
                                       Page(167989, 37, 9),
                                       Page(168026, 37, 9),
                                       Page(168063, 37, 9),
                                       Page(168100, 37, 9),
                                       Page(168211, 37, 9),
                                       Page(169284, 37, 9),
                                       Page(169321, 37, 9),
                                       Page(173613, 37, 9),
                                       Page(173650, 37, 9)}));
  EXPECT_EQ(plan->counts.pages, 325 + 352);
  EXPECT_EQ(plan->counts.pages_skipped, 325 + 352 - 16);
  EXPECT_EQ(plan->counts.rows, 132);

  auto batches = f.reader->ReadAll(*plan, testing::OnlyRanges(f, plan->DataRanges()));
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto rows = JsonRows(*batches);
  ASSERT_EQ(rows.size(), 132u);
  EXPECT_EQ(rows[0], "[2988, \"8\"]");
  EXPECT_EQ(rows[1], "[2989, \"9\"]");
  EXPECT_EQ(rows[2], "[2990, \"0\"]");
  EXPECT_EQ(rows[12], "[3000, \"0\"]");
  EXPECT_EQ(rows[130], "[3721, \"1\"]");
  EXPECT_EQ(rows[131], "[3720, \"0\"]");
  int64_t sum = 0;
  for (const auto& id : JsonColumn(*batches, 0)) sum += std::stoll(id);
  EXPECT_EQ(sum, 398899);

  // The same plan in 7-row batches gives the same rows.
  plan->batch_rows = 7;
  auto small = f.reader->ReadAll(*plan, testing::OnlyRanges(f, plan->DataRanges()));
  ASSERT_TRUE(small.has_value()) << small.error().ToString();
  EXPECT_EQ(small->size(), 19u);
  EXPECT_EQ(JsonRows(*small), rows);
}

// The rows the page index proves match (RowGroupPlan::certain): a subset of the planned rows,
// every one of them matching when read back, and not empty for a range spanning whole pages.
TEST(ReadPlanTest, PageIndexProvesWholePagesMatch) {
  LoadedFile f = LoadFile(DataFile("alltypes_tiny_pages.parquet"));
  ReadOptions options;
  options.columns = {"id"};
  options.predicates = {ColumnPredicate::Range("id", int64_t{1000}, int64_t{2999})};
  options.use_page_index = true;
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_TRUE(
      f.reader->ApplyPageIndex(testing::OnlyRanges(f, plan->IndexRanges()), &*plan).has_value());
  ASSERT_EQ(plan->row_groups.size(), 1u);
  const RowGroupPlan& rg = plan->row_groups[0];
  int64_t certain = 0, planned = 0;
  for (const RowRange& r : rg.certain) certain += r.end - r.begin;
  for (const RowRange& r : rg.rows) planned += r.end - r.begin;
  EXPECT_GT(certain, 1000);
  EXPECT_LT(certain, planned);

  // Read the certain rows alone: every id lies in [1000, 2999].
  ReadPlan only = *plan;
  only.row_groups[0].rows = rg.certain;
  auto batches = f.reader->ReadAll(only, testing::OnlyRanges(f, only.DataRanges()));
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto ids = JsonColumn(*batches, 0);
  ASSERT_EQ(static_cast<int64_t>(ids.size()), certain);
  for (const auto& id : ids) {
    EXPECT_GE(std::stoll(id), 1000);
    EXPECT_LE(std::stoll(id), 2999);
  }
  // A predicate on a column without statistics-proof (a double) proves nothing.
  ReadOptions d = options;
  d.columns = {"double_col"};
  d.predicates = {ColumnPredicate::Range("double_col", -1e9, 1e9)};
  auto dp = f.reader->Plan(d);
  ASSERT_TRUE(dp.has_value());
  ASSERT_TRUE(
      f.reader->ApplyPageIndex(testing::OnlyRanges(f, dp->IndexRanges()), &*dp).has_value());
  for (const RowGroupPlan& g : dp->row_groups) EXPECT_TRUE(g.certain.empty());
}

// A limit with the page index: only the pages up to the last row wanted (id's first two pages
// hold rows [0, 21) and [21, 42)); without predicates no column index is fetched.
TEST(ReadPlanTest, PageIndexWithALimit) {
  LoadedFile f = LoadFile(DataFile("alltypes_tiny_pages.parquet"));
  ReadOptions options;
  options.columns = {"id"};
  options.limit = 30;
  options.use_page_index = true;
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(plan->IndexRanges(),
            (std::vector<PlannedRange>{{ByteRange{394311, 3503}, RangeKind::kOffsetIndex, 0, 0}}));
  ASSERT_TRUE(
      f.reader->ApplyPageIndex(testing::OnlyRanges(f, plan->IndexRanges()), &*plan).has_value());
  EXPECT_EQ(plan->DataRanges(), (std::vector<PlannedRange>{Page(4, 109, 0), Page(113, 109, 0)}));
  auto batches = f.reader->ReadAll(*plan, testing::OnlyRanges(f, plan->DataRanges()));
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto ids = JsonColumn(*batches, 0);
  ASSERT_EQ(ids.size(), 30u);
  EXPECT_EQ(ids[0], "122");  // pyarrow: id[0] = 122, id[29] = 103
  EXPECT_EQ(ids[29], "103");
  // No predicate and no limit: no index step at all.
  options.limit = -1;
  plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan->index_pending);
}

// Null pages: IS NOT NULL leaves out page 2 (rows [200, 300)), the only page of nulls.
TEST(ReadPlanTest, PageIndexNullPages) {
  LoadedFile f = LoadFile(DataFile("int32_with_null_pages.parquet"));
  ReadOptions options;
  options.predicates = {ColumnPredicate::IsNotNull("int32_field")};
  options.use_page_index = true;
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(plan->IndexRanges(), (std::vector<PlannedRange>{
                                     {ByteRange{3332, 124}, RangeKind::kColumnIndex, 0, 0},
                                     {ByteRange{3456, 100}, RangeKind::kOffsetIndex, 0, 0},
                                 }));
  ASSERT_TRUE(
      f.reader->ApplyPageIndex(testing::OnlyRanges(f, plan->IndexRanges()), &*plan).has_value());
  EXPECT_EQ(plan->row_groups[0].rows, (std::vector<RowRange>{{0, 200}, {300, 1000}}));
  EXPECT_EQ(plan->DataRanges(), (std::vector<PlannedRange>{
                                    Page(4, 415, 0), Page(419, 220, 0), Page(670, 228, 0),
                                    Page(898, 382, 0), Page(1280, 402, 0), Page(1682, 422, 0),
                                    Page(2104, 411, 0), Page(2515, 417, 0), Page(2932, 400, 0)}));
  EXPECT_EQ(plan->counts.pages_skipped, 1);
  auto batches = f.reader->ReadAll(*plan, testing::OnlyRanges(f, plan->DataRanges()));
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  auto v = JsonColumn(*batches, 0);
  ASSERT_EQ(v.size(), 900u);
  // Nulls of the kept pages: the page index's null counts without page 2's 100.
  EXPECT_EQ(std::count(v.begin(), v.end(), "null"), 8 + 55 + 52 + 16 + 12 + 5 + 7 + 8 + 12);

  // IS NULL: every page holds nulls, so nothing is left out and the chunk is read whole.
  options.predicates = {ColumnPredicate::IsNull("int32_field")};
  plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value());
  ASSERT_TRUE(
      f.reader->ApplyPageIndex(testing::OnlyRanges(f, plan->IndexRanges()), &*plan).has_value());
  EXPECT_EQ(plan->DataRanges(), (std::vector<PlannedRange>{Chunk(4, 3328, 0, 0)}));
}

// sort_columns.parquet: two row groups, each a: {null, 2, 1} (null count 1), b: {a, b, c}.
TEST(ReadPlanTest, RowGroupPruningByStatistics) {
  LoadedFile f = LoadFile(DataFile("sort_columns.parquet"));
  EXPECT_EQ(SurvivingRowGroups(f, {}), (std::vector<int>{0, 1}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Equal("b", std::string("z"))}),
            (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Equal("b", std::string("b"))}),
            (std::vector<int>{0, 1}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Range("a", int64_t{3}, std::nullopt)}),
            (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Range("a", std::nullopt, int64_t{1})}),
            (std::vector<int>{0, 1}));
  ColumnPredicate below_one = ColumnPredicate::Range("a", std::nullopt, int64_t{1});
  below_one.max_inclusive = false;
  EXPECT_EQ(SurvivingRowGroups(f, {below_one}), (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::IsNull("a")}), (std::vector<int>{0, 1}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::IsNull("b")}), (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::In("b", {std::string("0"), std::string("d")})}),
            (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::In("b", {std::string("0"), std::string("c")})}),
            (std::vector<int>{0, 1}));
  // Predicates AND: a = 2 keeps both, b = 'z' drops both.
  EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Equal("a", int64_t{2}),
                                   ColumnPredicate::Equal("b", std::string("z"))}),
            (std::vector<int>{}));
}

// floating_orders_nan_count.parquet: five row groups of ten values,
//   0: -2 .. 5          1: NaN x4, -2 .. 3 (with -0.0, 0.0)   2: all NaN
//   3: 0.0 x3, 0.5 .. 5 4: -5 .. -0.5, -0.0 x3
// *_ieee754 columns use IEEE_754_TOTAL_ORDER, *_typedef TYPE_DEFINED_ORDER (whose writer leaves
// out min/max when NaNs are present).
TEST(ReadPlanTest, FloatingPointOrdersNaNsAndSignedZeros) {
  LoadedFile f = LoadFile(DataFile("floating_orders_nan_count.parquet"));
  for (const char* c : {"double_ieee754", "double_typedef", "float_ieee754", "float_typedef",
                        "float16_ieee754", "float16_typedef"}) {
    SCOPED_TRACE(c);
    const bool ieee = std::string(c).find("ieee") != std::string::npos;
    // 4.0 occurs in groups 0 and 3; group 1's bounds [-2, 3] exclude it (NaN != 4), group 2 has
    // no bounds, group 4's are [-5, -0].
    EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Equal(c, 4.0)}),
              ieee ? (std::vector<int>{0, 2, 3}) : (std::vector<int>{0, 1, 2, 3}));
    // 0.0 equals -0.0: group 4 (max -0.0, or +0.0 under the type-defined order) stays.
    EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Equal(c, 0.0)}),
              (std::vector<int>{0, 1, 2, 3, 4}));
    // x > 0: no value of group 4 qualifies (its max is a zero).
    ColumnPredicate positive = ColumnPredicate::Range(c, 0.0, std::nullopt);
    positive.min_inclusive = false;
    EXPECT_EQ(SurvivingRowGroups(f, {positive}), (std::vector<int>{0, 1, 2, 3}));
    // x < 0: group 3 holds only +0.0 and up.
    ColumnPredicate negative = ColumnPredicate::Range(c, std::nullopt, 0.0);
    negative.max_inclusive = false;
    EXPECT_EQ(SurvivingRowGroups(f, {negative}), (std::vector<int>{0, 1, 2, 4}));
    // A NaN literal never prunes by bounds.
    EXPECT_EQ(SurvivingRowGroups(f, {ColumnPredicate::Equal(c, std::nan(""))}),
              (std::vector<int>{0, 1, 2, 3, 4}));
  }
}

// Truncated bounds stay bounds: min 'Al' (of 'Alice Johnson') and max 'Kf' (of 'Kevin Bacon',
// truncated and incremented); binary compares unsigned ('\xff\xff\x01\x02' is the largest).
TEST(ReadPlanTest, TruncatedBinaryBounds) {
  LoadedFile f = LoadFile(DataFile("binary_truncated_min_max.parquet"));
  auto eq = [](const char* c, std::string v) { return ColumnPredicate::Equal(c, std::move(v)); };
  EXPECT_EQ(SurvivingRowGroups(f, {eq("utf8_full_truncation", "Kevin Bacon")}),
            (std::vector<int>{0}));
  EXPECT_EQ(SurvivingRowGroups(f, {eq("utf8_full_truncation", "Alice Johnson")}),
            (std::vector<int>{0}));
  EXPECT_EQ(SurvivingRowGroups(f, {eq("utf8_full_truncation", "Kz")}), (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {eq("utf8_full_truncation", "Ak")}), (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {eq("binary_partial_truncation", "\xff\xff\x01\x02")}),
            (std::vector<int>{0}));
  EXPECT_EQ(SurvivingRowGroups(f, {eq("binary_partial_truncation", "\xff\xff\x01\x03")}),
            (std::vector<int>{}));
  EXPECT_EQ(SurvivingRowGroups(f, {eq("binary_partial_truncation", "Zed")}), (std::vector<int>{0}));
}

TEST(ReadPlanTest, LimitPlansOnlyTheRowGroupsItNeeds) {
  // 50 row groups of 10 rows; ids from pyarrow: 122, 143, 156, 135, 101, 80, 93, 127, 148, 114,
  // 169, 203, ...
  LoadedFile f = LoadFile(DataFile("geospatial/geography-points.parquet"));
  ReadOptions options;
  options.columns = {"id"};
  options.limit = 12;
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  ASSERT_EQ(plan->row_groups.size(), 2u);
  EXPECT_EQ(plan->row_groups[1].rows, (std::vector<RowRange>{{0, 2}}));
  EXPECT_EQ(plan->DataRanges().size(), 2u);
  auto batches = ReadFile(f, options);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  EXPECT_EQ(JsonColumn(*batches, 0),
            (std::vector<std::string>{"122", "143", "156", "135", "101", "80", "93", "127", "148",
                                      "114", "169", "203"}));
  options.limit = 0;
  plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan->DataRanges().empty());
}

TEST(ReadPlanTest, NestedProjectionAndErrors) {
  LoadedFile f = LoadFile(DataFile("nullable.impala.parquet"));
  ReadOptions options;
  options.columns = {"nested_struct.A", "id"};
  auto plan = f.reader->Plan(options);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_EQ(plan->schema->ToString(), "nested_struct: struct<A: int32>\nid: int64\n");
  EXPECT_EQ(plan->columns, (std::vector<int>{0, 7}));
  auto batches = ReadFile(f, options);
  ASSERT_TRUE(batches.has_value()) << batches.error().ToString();
  // pyarrow: {'A': 1}, {'A': None} x4, None (the struct is null), {'A': 7}.
  auto rows = JsonRows(*batches);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0], "[{\"A\": 1}, 1]");
  EXPECT_EQ(rows[1], "[{\"A\": null}, 2]");
  EXPECT_EQ(rows[5], "[null, 6]");
  EXPECT_EQ(rows[6], "[{\"A\": 7}, 7]");

  options.columns = {"nope"};
  auto missing = f.reader->Plan(options);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().ToString(),
            "not found: parquet file 'nullable.impala.parquet' has no column 'nope'");
  options.columns = {};
  options.predicates = {ColumnPredicate::Equal("int_array.element", int64_t{1})};
  auto repeated = f.reader->Plan(options);
  ASSERT_FALSE(repeated.has_value());
  EXPECT_EQ(repeated.error().ToString(),
            "invalid input: parquet file 'nullable.impala.parquet': predicate on column "
            "'int_array.element', which is inside a list or map");
  options.predicates = {ColumnPredicate::Equal("id", std::string("x"))};
  auto mistyped = f.reader->Plan(options);
  ASSERT_FALSE(mistyped.has_value());
  EXPECT_EQ(mistyped.error().ToString(),
            "invalid input: parquet file 'nullable.impala.parquet': predicate on column 'id' "
            "(signed integer values) has the literal 'x'");
}

// A reader over alltypes_plain.parquet's footer with `edit` applied (planning reads no data).
FileReader EditedAllTypesPlain(const std::function<void(FileMetaData*)>& edit) {
  LoadedFile f = LoadFile(DataFile("alltypes_plain.parquet"));
  FileMetaData m = f.reader->metadata();
  edit(&m);
  auto r = FileReader::Make("f.parquet", f.bytes.size(), std::move(m));
  EXPECT_TRUE(r.has_value());
  return std::move(*r);
}

// A row group's row count that its flat columns disprove would read short or long unseen.
TEST(ReadPlanTest, RowCountsTheColumnsDisproveAreCorrupt) {
  auto error = [](const FileReader& r) {
    ReadOptions o;
    o.columns = {"id", "bool_col"};
    auto plan = r.Plan(o);
    return plan ? std::string("(no error)") : plan.error().ToString();
  };
  EXPECT_EQ(error(EditedAllTypesPlain([](FileMetaData*) {})), "(no error)");
  EXPECT_EQ(error(EditedAllTypesPlain([](FileMetaData* m) { m->row_groups[0].num_rows = 7; })),
            "corrupt: parquet file 'f.parquet': row group 0 has 7 rows, but column 'id' holds 8 "
            "values");
  EXPECT_EQ(error(EditedAllTypesPlain([](FileMetaData* m) { m->row_groups[0].num_rows = -8; })),
            "corrupt: parquet file 'f.parquet': row group 0 has -8 rows");
  EXPECT_EQ(error(EditedAllTypesPlain(
                [](FileMetaData* m) { m->row_groups[0].columns[1].meta_data->num_values = 9; })),
            "corrupt: parquet file 'f.parquet': row group 0 has 8 rows, but column 'bool_col' "
            "holds 9 values");
  // Columns the read does not touch are not its business.
  EXPECT_EQ(error(EditedAllTypesPlain(
                [](FileMetaData* m) { m->row_groups[0].columns[5].meta_data->num_values = 9; })),
            "(no error)");
}

// Statistics that contradict themselves prune nothing: more nulls than values would have made
// IS NOT NULL skip the row group.
TEST(ReadPlanTest, StatisticsThatContradictThemselvesAreNotUsed) {
  FileReader r = EditedAllTypesPlain([](FileMetaData* m) {
    Statistics s;
    s.null_count = 9;
    m->row_groups[0].columns[0].meta_data->statistics = s;
  });
  ReadOptions o;
  o.predicates.push_back(ColumnPredicate::IsNotNull("id"));
  auto plan = r.Plan(o);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->row_groups.size(), 1u);
  EXPECT_EQ(plan->counts.metadata_rejected, 1);
  EXPECT_EQ(plan->first_rejection,
            "parquet file 'f.parquet': column 'id' of row group 0: its statistics not used: 9 "
            "nulls among 8 values");
  EXPECT_TRUE(plan->row_groups[0].certain.empty());
}

}  // namespace
}  // namespace floe::parquet
