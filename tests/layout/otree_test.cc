#include "floe/layout/otree.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::layout {
namespace {

namespace c = floe::columnar;

c::ColumnPtr Longs(const std::vector<int64_t>& v) {
  c::FixedWidthBuilder<int64_t> b(c::Int64());
  for (int64_t x : v) b.Append(x);
  return b.Finish();
}

c::ColumnPtr Strings(const std::vector<std::string>& v) {
  c::BinaryBuilder b;
  for (const auto& x : v) EXPECT_TRUE(b.Append(x));
  return b.Finish();
}

std::vector<int64_t> All(size_t n) {
  std::vector<int64_t> r(n);
  std::iota(r.begin(), r.end(), 0);
  return r;
}

// n points spread over [0, 1000) x [0, 1000) (a multiplicative scramble, every row distinct).
struct Points {
  c::ColumnPtr x, y;
  std::vector<int64_t> xs, ys;
  explicit Points(int64_t n, int64_t salt = 0) {
    for (int64_t i = 0; i < n; ++i) {
      xs.push_back((i * 7919 + salt) % 1000);
      ys.push_back((i * 104729 / 1000 + salt * 3) % 1000);
    }
    x = Longs(xs);
    y = Longs(ys);
  }
  std::vector<const c::Column*> View() const { return {x.get(), y.get()}; }
};

TEST(OTree, RevisionsRoundTripAndBadOnesSayWhy) {
  OTreeRevision r;
  r.id = 3;
  r.cube_size = 5000;
  r.dimensions = {{"a", OTreeDimension::Transform::kLinear, -1.5, 20},
                  {"b", OTreeDimension::Transform::kHash, 0, 0}};
  auto back = OTreeRevision::FromJson(r.ToJson());
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(back->ToJson(), r.ToJson());
  EXPECT_EQ(back->dimensions[0].min, -1.5);
  EXPECT_EQ(back->dimensions[1].transform, OTreeDimension::Transform::kHash);
  for (const char* bad :
       {"", "[]", R"({"id":1})",
        R"({"id":1,"cube_size":0,"columns":[{"name":"a","transform":"hash"}]})",
        R"({"id":1,"cube_size":5,"columns":[{"name":"a","transform":"spiral"}]})",
        R"({"id":1,"cube_size":5,"columns":[{"name":"a","transform":"linear","min":2,"max":1}]})",
        R"({"id":1,"cube_size":5,"columns":[]})"}) {
    auto e = OTreeRevision::FromJson(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().kind, ErrorKind::kInvalidInput);
  }
}

TEST(OTree, ANewRevisionSpansTheNumbersAndHashesTheRest) {
  auto n = Longs({5, -3, 12});
  auto s = Strings({"x", "y", "z"});
  auto r = NewRevision({"n", "s"}, {n.get(), s.get()}, All(3), 100);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->dimensions[0].transform, OTreeDimension::Transform::kLinear);
  EXPECT_EQ(r->dimensions[0].min, -3);
  EXPECT_EQ(r->dimensions[0].max, 12);
  EXPECT_EQ(r->dimensions[1].transform, OTreeDimension::Transform::kHash);
  EXPECT_FALSE(FarOutside(*r, {Longs({-18, 27}).get(), s.get()}, All(2)));  // within a span
  EXPECT_TRUE(FarOutside(*r, {Longs({0, 28}).get(), s.get()}, All(2)));
}

// The invariants that make the index an index and a sample: a row lies in its cube's cell, its
// weight in [the cube's min weight, its max weight); the root holds exactly the lightest
// cube_size rows; closed cubes hold cube_size rows, open ones fewer.
void ExpectAnOTree(const OTreeRevision& rev, const OTreeAssignment& a, const Points& p,
                   const std::vector<int64_t>& rows, bool one_write) {
  const auto weights = RowWeights(p.View(), rows);
  auto points = RowPoints(rev, p.View(), rows);
  ASSERT_TRUE(points);
  std::vector<int64_t> count(a.index.cubes.size(), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_GE(a.cube[i], 0);
    const OTreeCube& cube = a.index.cubes[static_cast<size_t>(a.cube[i])];
    ++count[static_cast<size_t>(a.cube[i])];
    EXPECT_GE(weights[i], cube.min_weight) << "row " << i << " cube '" << cube.id << "'";
    EXPECT_LT(weights[i], cube.max_weight) << "row " << i << " cube '" << cube.id << "'";
    auto spans = CubeSpans(cube.id, 2);
    ASSERT_TRUE(spans);
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_GE((*points)[i * 2 + k], (*spans)[k].lo) << cube.id;
      EXPECT_LT((*points)[i * 2 + k], (*spans)[k].hi) << cube.id;
    }
  }
  if (!one_write) return;
  for (size_t k = 0; k < a.index.cubes.size(); ++k) {
    const OTreeCube& cube = a.index.cubes[k];
    EXPECT_EQ(cube.rows, count[k]);
    if (cube.max_weight == UINT32_MAX) {
      EXPECT_LT(cube.rows, rev.cube_size) << cube.id;
    } else {
      EXPECT_EQ(cube.rows, rev.cube_size) << cube.id;
    }
  }
  // The root: the lightest cube_size rows of all.
  std::vector<uint32_t> sorted = weights;
  std::sort(sorted.begin(), sorted.end());
  const OTreeCube& root = a.index.cubes[0];
  ASSERT_EQ(root.id, "");
  EXPECT_EQ(root.max_weight, sorted[static_cast<size_t>(rev.cube_size) - 1] + 1);
}

TEST(OTree, RowsLandInTheFirstCubeOnTheirPathWithRoom) {
  Points p(20000);
  const auto rows = All(20000);
  auto rev = NewRevision({"x", "y"}, p.View(), rows, 1000);
  ASSERT_TRUE(rev);
  auto a = AssignCubes(*rev, {}, p.View(), rows);
  ASSERT_TRUE(a) << a.error().ToString();
  ExpectAnOTree(*rev, *a, p, rows, true);
  // 20 cubes' worth of rows: the root, its 4 children, and some of theirs.
  EXPECT_GT(a->index.cubes.size(), 5u);
  std::set<std::string> ids;
  for (const auto& cube : a->index.cubes) ids.insert(cube.id);
  for (const char* id : {"", "0", "1", "2", "3"}) EXPECT_TRUE(ids.contains(id)) << id;
}

// A uniform sample: the rows of weight below w are exactly the rows of weight below w in the
// cubes whose min weight is below w -- so a sample reads only those cubes.
TEST(OTree, ASampleReadsOnlyTheTopCubes) {
  Points p(20000);
  const auto rows = All(20000);
  auto rev = NewRevision({"x", "y"}, p.View(), rows, 1000);
  auto a = AssignCubes(*rev, {}, p.View(), rows);
  ASSERT_TRUE(a);
  const auto weights = RowWeights(p.View(), rows);
  const uint32_t w = UINT32_MAX / 10;  // 10%
  int64_t below = 0, in_top = 0, top_rows = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const OTreeCube& cube = a->index.cubes[static_cast<size_t>(a->cube[i])];
    below += weights[i] < w;
    if (cube.min_weight < w) {
      in_top += weights[i] < w;
      ++top_rows;
    }
  }
  EXPECT_EQ(in_top, below);
  EXPECT_NEAR(static_cast<double>(below), 2000.0, 200.0);  // the weights are uniform
  EXPECT_LT(top_rows, 20000 / 2);  // the sample's cubes hold well under the whole table
}

TEST(OTree, AnAppendAddsToTheSameCubes) {
  Points first(20000), more(20000, 17);
  auto rev = NewRevision({"x", "y"}, first.View(), All(20000), 1000);
  auto a = AssignCubes(*rev, {}, first.View(), All(20000));
  ASSERT_TRUE(a);
  auto b = AssignCubes(*rev, a->index, more.View(), All(20000));
  ASSERT_TRUE(b) << b.error().ToString();
  ExpectAnOTree(*rev, *b, more, All(20000), false);
  std::map<std::string, OTreeCube> before;
  for (const auto& cube : a->index.cubes) before[cube.id] = cube;
  int64_t total = 0;
  for (const auto& cube : b->index.cubes) {
    total += cube.rows;
    auto it = before.find(cube.id);
    if (it == before.end()) continue;
    EXPECT_GE(cube.rows, it->second.rows) << cube.id;
    if (it->second.max_weight != UINT32_MAX) {
      EXPECT_EQ(cube.max_weight, it->second.max_weight) << cube.id;  // closed cubes stay closed
    }
  }
  EXPECT_EQ(total, 40000);
  EXPECT_GT(b->index.cubes[0].rows, 1000);  // the root took the new rows lighter than its max
}

// Weights and cubes depend on the values alone: any order of the rows, any writer.
TEST(OTree, TheSameRowsLandInTheSameCubesInAnyOrder) {
  Points p(5000);
  auto rev = NewRevision({"x", "y"}, p.View(), All(5000), 300);
  auto a = AssignCubes(*rev, {}, p.View(), All(5000));
  std::vector<int64_t> reversed = All(5000);
  std::reverse(reversed.begin(), reversed.end());
  auto b = AssignCubes(*rev, {}, p.View(), reversed);
  ASSERT_TRUE(a && b);
  for (size_t i = 0; i < 5000; ++i) {
    EXPECT_EQ(a->index.cubes[static_cast<size_t>(a->cube[i])].id,
              b->index.cubes[static_cast<size_t>(b->cube[4999 - i])].id);
  }
}

TEST(OTree, SmallCubesRollUpIntoTheirParentsFiles) {
  Points p(20000);
  const auto rows = All(20000);
  auto rev = NewRevision({"x", "y"}, p.View(), rows, 1000);
  auto a = AssignCubes(*rev, {}, p.View(), rows);
  ASSERT_TRUE(a);
  const auto weights = RowWeights(p.View(), rows);
  const auto files = RollUp(*a, weights, 4000);
  std::vector<int> seen(20000, 0);
  for (const OTreeFile& f : files) {
    ASSERT_FALSE(f.cubes.empty());
    for (int64_t r : f.rows) {
      ++seen[static_cast<size_t>(r)];
      EXPECT_GE(weights[static_cast<size_t>(r)], f.min_weight);
      EXPECT_LE(weights[static_cast<size_t>(r)], f.max_weight);
    }
    // Every cube of a file is the file's first cube or below it.
    for (const std::string& id : f.cubes) EXPECT_TRUE(id.starts_with(f.cubes[0])) << id;
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  EXPECT_LT(files.size(), a->index.cubes.size());  // small cubes were rolled up
  EXPECT_GE(files.size(), 3u);
}

// A group above twice the target is cut into files by weight: each file a range of the weights,
// lighter files first, so a sample reads the lighter ones only; within a file the rows keep
// their order in the write. Points and weights computed on a pool are the same as without.
TEST(OTree, ABigCubeIsCutIntoFilesOfDisjointWeightsWithRowsInWriteOrder) {
  Points p(20000);
  const auto rows = All(20000);
  auto rev = NewRevision({"x", "y"}, p.View(), rows, 100000);  // every row in the root
  ASSERT_TRUE(rev);
  ThreadPool pool(2);
  auto a = AssignCubes(*rev, {}, p.View(), rows, &pool);
  ASSERT_TRUE(a);
  auto alone = AssignCubes(*rev, {}, p.View(), rows);
  ASSERT_TRUE(alone);
  EXPECT_EQ(a->cube, alone->cube);
  EXPECT_EQ(a->weights, alone->weights);
  EXPECT_EQ(RowPoints(*rev, p.View(), rows, &pool).value(),
            RowPoints(*rev, p.View(), rows).value());
  ASSERT_EQ(a->index.cubes.size(), 1u);
  const auto files = RollUp(*a, a->weights, 4000);
  ASSERT_EQ(files.size(), 5u);
  std::vector<int> seen(20000, 0);
  for (size_t f = 0; f < files.size(); ++f) {
    EXPECT_EQ(files[f].rows.size(), 4000u) << f;
    EXPECT_TRUE(std::is_sorted(files[f].rows.begin(), files[f].rows.end())) << f;
    for (int64_t r : files[f].rows) {
      ++seen[static_cast<size_t>(r)];
      EXPECT_GE(a->weights[static_cast<size_t>(r)], files[f].min_weight);
      EXPECT_LE(a->weights[static_cast<size_t>(r)], files[f].max_weight);
    }
    if (f > 0) EXPECT_LT(files[f - 1].max_weight, files[f].min_weight) << f;
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
}

}  // namespace
}  // namespace floe::layout
