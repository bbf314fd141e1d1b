#include "floe/layout/hilbert.h"

#include <cstdlib>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"
#include "floe/layout/clustering.h"

namespace floe::layout {
namespace {

namespace c = floe::columnar;

// The index of a point: its transposed bits read most significant first.
uint64_t IndexOf(std::vector<uint32_t> x, int bits) {
  HilbertTranspose(x.data(), x.size(), bits);
  uint64_t h = 0;
  for (int level = bits - 1; level >= 0; --level) {
    for (uint32_t v : x) h = (h << 1) | ((v >> level) & 1);
  }
  return h;
}

// A Hilbert curve visits every cell once, and each step moves to a neighbouring cell.
void ExpectACurve(int dims, int bits) {
  const uint64_t cells = uint64_t{1} << (dims * bits);
  std::vector<std::vector<uint32_t>> at(cells);
  for (uint64_t p = 0; p < cells; ++p) {
    std::vector<uint32_t> x(static_cast<size_t>(dims));
    for (int d = 0; d < dims; ++d)
      x[d] = static_cast<uint32_t>((p >> (d * bits)) & ((1u << bits) - 1));
    const uint64_t h = IndexOf(x, bits);
    ASSERT_LT(h, cells);
    ASSERT_TRUE(at[h].empty()) << "two cells at index " << h;
    at[h] = x;
  }
  EXPECT_EQ(at[0], std::vector<uint32_t>(static_cast<size_t>(dims), 0));  // starts at the origin
  for (uint64_t h = 1; h < cells; ++h) {
    int distance = 0;
    for (int d = 0; d < dims; ++d)
      distance += std::abs(static_cast<int>(at[h][d]) - static_cast<int>(at[h - 1][d]));
    EXPECT_EQ(distance, 1) << "step " << h << " of a " << dims << "-d curve of " << bits << " bits";
  }
}

TEST(Hilbert, EveryStepOfTheCurveIsToANeighbour) {
  ExpectACurve(2, 1);
  ExpectACurve(2, 3);
  ExpectACurve(3, 2);
  ExpectACurve(4, 2);
  ExpectACurve(2, 10);  // the 1024 ranges of two columns
}

TEST(Hilbert, RangeBoundariesAreQuantilesOfTheSample) {
  std::vector<uint64_t> sample(1000);
  std::iota(sample.begin(), sample.end(), 0);
  const auto b = RangeBoundaries(sample, 4);
  EXPECT_EQ(b, (std::vector<uint64_t>{250, 500, 750}));
  EXPECT_EQ(RangeId(b, 0), 0u);
  EXPECT_EQ(RangeId(b, 249), 0u);
  EXPECT_EQ(RangeId(b, 250), 1u);
  EXPECT_EQ(RangeId(b, 999), 3u);
  EXPECT_EQ(RangeId(b, 1u << 30), 3u);  // beyond the sample: the last range
  // One value throughout: one range.
  EXPECT_TRUE(RangeBoundaries(std::vector<uint64_t>(100, 7), 1024).empty());
  // Skew: 90% zeros, then 1..100: the zeros take range 0, the rest share the others.
  std::vector<uint64_t> skew(900, 0);
  for (uint64_t i = 1; i <= 100; ++i) skew.push_back(i);
  const auto s = RangeBoundaries(skew, 10);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(RangeId(s, 0), 0u);
  EXPECT_GT(RangeId(s, 100), 0u);
}

c::ColumnPtr Ints(const std::vector<int32_t>& v) {
  c::FixedWidthBuilder<int32_t> b(c::Int32());
  for (int32_t x : v) b.Append(x);
  return b.Finish();
}

// A 32 x 32 grid in 4 ranges a column: the first quarter of the rows in Hilbert order is one
// 16 x 16 quadrant, and each run of 64 rows one 8 x 8 cell.
TEST(Hilbert, ARunOfRowsIsACompactBox) {
  std::vector<int32_t> xs, ys;
  for (int i = 0; i < 1024; ++i) {
    xs.push_back((i * 37) % 32);
    ys.push_back((i * 37) / 32 % 32);
  }
  auto x = Ints(xs), y = Ints(ys);
  ClusterSpec spec;
  spec.method = ClusterMethod::kHilbert;
  spec.columns = {"x", "y"};
  spec.hilbert.ranges = 4;
  std::vector<int64_t> rows(1024);
  std::iota(rows.begin(), rows.end(), 0);
  ASSERT_TRUE(ClusterRows(spec, {x.get(), y.get()}, &rows));
  for (int run = 0; run < 16; ++run) {
    std::set<int> cx, cy;
    for (int i = run * 64; i < (run + 1) * 64; ++i) {
      cx.insert(x->Value<int32_t>(rows[i]) / 8);
      cy.insert(y->Value<int32_t>(rows[i]) / 8);
    }
    EXPECT_EQ(cx.size(), 1u) << "run " << run;
    EXPECT_EQ(cy.size(), 1u) << "run " << run;
  }
  std::set<int> qx, qy;
  for (int i = 0; i < 256; ++i) {
    qx.insert(x->Value<int32_t>(rows[i]) / 16);
    qy.insert(y->Value<int32_t>(rows[i]) / 16);
  }
  EXPECT_EQ(qx.size(), 1u);
  EXPECT_EQ(qy.size(), 1u);
}

TEST(Clustering, SpecsParseAsWrittenAndBadOnesSayWhy) {
  auto z = ParseClusterSpec(" ZOrder( a , `b c`, \"D\" ) ");
  ASSERT_TRUE(z) << z.error().ToString();
  EXPECT_EQ(z->method, ClusterMethod::kZOrder);
  EXPECT_EQ(z->columns, (std::vector<std::string>{"a", "b c", "D"}));
  EXPECT_EQ(z->ToString(), "zorder(a, b c, D)");
  auto h = ParseClusterSpec("hilbert(x,y)");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->method, ClusterMethod::kHilbert);
  EXPECT_TRUE(IsClusterSpec("zorder (a)"));
  EXPECT_TRUE(IsClusterSpec("HILBERT(a,b)"));
  EXPECT_FALSE(IsClusterSpec("zorder_col ASC"));
  EXPECT_FALSE(IsClusterSpec("a DESC, b"));
  for (const char* bad : {"zorder()", "zorder(a,,b)", "zorder(a, a)", "linear(a)", "zorder a",
                          "(a)", "zorder(f(a))"}) {
    auto r = ParseClusterSpec(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
}

// The keys of many rows (the bucketed range lookup) fall in the ranges a plain search gives, for
// spread, skewed and outlying values.
TEST(Hilbert, RangeIdsOfManyRowsMatchTheBoundaries) {
  std::vector<int64_t> xs;
  for (int64_t i = 0; i < 30000; ++i) {
    const int64_t v = i % 3 == 0   ? (i * 7919) % 1000                                  // dense
                      : i % 3 == 1 ? (i * 104729) % 100000000                           // spread
                                   : (i % 2 ? int64_t{1} << 60 : -(int64_t{1} << 61));  // far out
    xs.push_back(v);
  }
  c::FixedWidthBuilder<int64_t> b(c::Int64());
  for (int64_t v : xs) b.Append(v);
  auto x = b.Finish();
  std::vector<int64_t> rows(xs.size());
  std::iota(rows.begin(), rows.end(), 0);
  HilbertOptions o;
  o.sample_rows = 5000;
  auto ranges = SampleRanges({x.get(), x.get()}, rows, o);
  ASSERT_TRUE(ranges) << ranges.error().ToString();
  auto keys = HilbertKeys({x.get(), x.get()}, rows, *ranges);
  ASSERT_TRUE(keys);
  // Both coordinates are the same range id r, so the key is that of the point (r, r).
  auto bytes = OrderedBytes(*x, rows, 8);
  ASSERT_TRUE(bytes);
  for (size_t i = 0; i < rows.size(); ++i) {
    uint64_t word = 0;
    for (int k = 0; k < 8; ++k) word = (word << 8) | bytes->At(i)[k];
    const uint32_t r = RangeId(ranges->bounds[0], word);
    std::vector<uint32_t> p = {r, r};
    HilbertTranspose(p.data(), 2, ranges->bits);
    uint64_t want = 0, got = 0;
    for (int level = ranges->bits - 1; level >= 0; --level) {
      for (uint32_t v : p) want = (want << 1) | ((v >> level) & 1);
    }
    for (int k = 0; k < keys->width; ++k) got = (got << 8) | keys->At(i)[k];
    got >>= keys->width * 8 - 2 * ranges->bits;
    ASSERT_EQ(got, want) << "row " << i << " value " << xs[i];
  }
}

}  // namespace
}  // namespace floe::layout
