// An OTree table (floe.layout = otree(x, y)): files laid out as cubes whose rows lie in their
// cells, the index beside the table as a statistics file and in each file's key-value metadata,
// appends adding to the same cubes, rewrites keeping or re-indexing the layout, cube pruning and
// TABLESAMPLE reading only light files yet returning exactly the rows below the sample's weight.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "floe/exec/table_scan.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/parquet/footer.h"
#include "maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using testing_support::Warehouse;
namespace c = floe::columnar;

// A 128 x 128 grid of (x, y), each point once, plus an id, in a scrambled order.
constexpr int64_t kSide = 128;
constexpr int64_t kCells = kSide * kSide;

Schema GridSchema() {
  return Schema(0, {{1, "id", true, Primitive(TypeId::kLong)},
                    {2, "x", true, Primitive(TypeId::kLong)},
                    {3, "y", true, Primitive(TypeId::kLong)}});
}

// Rows [from, to) of the scrambled grid, x shifted by `dx`.
c::RecordBatch Grid(int64_t from, int64_t to, int64_t dx = 0) {
  std::vector<int64_t> order(kCells);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(11);
  std::shuffle(order.begin(), order.end(), rng);
  c::FixedWidthBuilder<int64_t> id(c::Int64()), x(c::Int64()), y(c::Int64());
  for (int64_t i = from; i < to; ++i) {
    const int64_t v = order[static_cast<size_t>(i)];
    id.Append(v + (dx != 0 ? kCells : 0));
    x.Append(v % kSide + dx);
    y.Append(v / kSide);
  }
  auto s = std::make_shared<c::Schema>();
  for (const char* n : {"id", "x", "y"}) s->fields.push_back(c::Field{n, c::Int64(), false, -1});
  c::RecordBatch b;
  b.schema = s;
  b.columns = {id.Finish(), x.Finish(), y.Finish()};
  b.num_rows = to - from;
  return b;
}

const catalog::TableIdentifier kId{{"ns"}, "t"};

void CreateOTree(Warehouse& w, const std::string& layout = "otree(x, y)",
                 const std::string& rows_per_file = "512") {
  CreateTableOptions o{
      GridSchema(),
      PartitionSpec(),
      SortOrder(),
      {{"floe.layout", layout}, {"floe.otree.target-rows-per-file", rows_per_file}},
      ""};
  auto t = CreateTable(*w.cat, *w.io, kId, std::move(o));
  ASSERT_TRUE(t) << t.error().ToString();
}

void Append(Warehouse& w, const c::RecordBatch& rows) {
  TableDataWriter writer(w.Load(kId), *w.io);
  ASSERT_TRUE(writer.Write(rows));
  auto files = writer.Finish();
  ASSERT_TRUE(files) << files.error().ToString();
  auto committed = AppendFiles(*w.cat, *w.io, kId, *files);
  ASSERT_TRUE(committed) << committed.error().ToString();
}

std::vector<DataFile> LiveFiles(Warehouse& w) {
  auto plan = PlanFiles(w.Load(kId), *w.io, {});
  EXPECT_TRUE(plan) << plan.error().ToString();
  std::vector<DataFile> out;
  for (auto& t : plan->tasks) out.push_back(t.file);
  return out;
}

OTreeTableIndex Index(Warehouse& w) {
  const Table t = w.Load(kId);
  auto index = LoadOTreeIndex(*w.io, t.metadata, nullptr);
  EXPECT_TRUE(index) << index.error().ToString();
  return index ? *index : OTreeTableIndex{};
}

layout::OTreeRevision Revision(Warehouse& w) {
  auto r = CurrentOTreeRevision(w.Load(kId).metadata);
  EXPECT_TRUE(r && *r) << (r ? "no revision" : r.error().ToString());
  return r && *r ? **r : layout::OTreeRevision{};
}

// The rows of a table scan with `options` (id, x, y), and what it cost.
struct Scanned {
  std::vector<std::array<int64_t, 3>> rows;  // sorted
  ScanMetrics metrics;
};
Scanned Scan(Warehouse& w, exec::TableScanOptions o) {
  o.field_ids = {1, 2, 3};
  o.threads = 1;
  Scanned out;
  auto st = exec::ScanTable(
      w.Load(kId), *w.io, o,
      [&](int, c::RecordBatch b) -> Status {
        for (int64_t r = 0; r < b.num_rows; ++r) {
          out.rows.push_back({b.columns[0]->Value<int64_t>(r), b.columns[1]->Value<int64_t>(r),
                              b.columns[2]->Value<int64_t>(r)});
        }
        return {};
      },
      &out.metrics);
  EXPECT_TRUE(st) << st.error().ToString();
  std::sort(out.rows.begin(), out.rows.end());
  return out;
}

TEST(OTreeIndex, FilesAreCubesAndTheIndexSitsBesideAPlainIcebergTable) {
  Warehouse w;
  CreateOTree(w);
  Append(w, Grid(0, kCells));
  const layout::OTreeRevision rev = Revision(w);
  EXPECT_EQ(rev.id, 1);
  EXPECT_EQ(rev.cube_size, 512);
  ASSERT_EQ(rev.dimensions.size(), 2u);
  EXPECT_EQ(rev.dimensions[0].min, 0);
  EXPECT_EQ(rev.dimensions[0].max, kSide - 1);

  const Table t = w.Load(kId);
  ASSERT_TRUE(t.metadata.extra.contains("statistics"));
  const auto& stats = t.metadata.extra["statistics"];
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0]["snapshot-id"], t.metadata.CurrentSnapshot()->snapshot_id);
  EXPECT_TRUE(stats[0]["statistics-path"].get<std::string>().ends_with("-floe-otree-index.stats"));
  EXPECT_TRUE(stats[0]["blob-metadata"].empty());  // pyiceberg takes only the spec's blob types

  const OTreeTableIndex index = Index(w);
  const std::vector<DataFile> files = LiveFiles(w);
  ASSERT_GE(files.size(), 16u);
  EXPECT_EQ(index.files.size(), files.size());
  int64_t rows = 0;
  for (const DataFile& f : files) {
    ASSERT_TRUE(index.files.contains(f.file_path)) << f.file_path;
    const OTreeFileInfo& info = index.files.at(f.file_path);
    EXPECT_FALSE(f.sort_order_id.has_value());
    // The file says the same of itself in its key-value metadata.
    auto bytes = w.io->Read(f.file_path);
    ASSERT_TRUE(bytes);
    auto footer = parquet::ParseFooter(f.file_path, bytes->size(), bytes->view());
    ASSERT_TRUE(footer && footer->metadata);
    std::map<std::string, std::string> kv;
    for (const auto& e : footer->metadata->key_value_metadata) kv[e.key] = e.value.value_or("");
    for (const auto& [k, v] : info.KeyValues()) EXPECT_EQ(kv[k], v) << k;
    // Every row lies in one of the file's cubes' cells, and within its weight range.
    int64_t in_cubes = 0;
    for (const OTreeFileCube& cube : info.cubes) in_cubes += cube.rows;
    EXPECT_EQ(in_cubes, f.record_count);
    auto read = ReadTask(FileScanTask{f, True(), 0, {}}, t.metadata.CurrentSchema(), *w.io);
    ASSERT_TRUE(read);
    for (const auto& b : *read) {
      std::vector<int64_t> all(static_cast<size_t>(b.num_rows));
      std::iota(all.begin(), all.end(), 0);
      auto points = layout::RowPoints(rev, {b.columns[1].get(), b.columns[2].get()}, all).value();
      const auto weights = layout::RowWeights({b.columns[1].get(), b.columns[2].get()}, all);
      for (size_t r = 0; r < all.size(); ++r) {
        bool inside = false;
        for (const OTreeFileCube& cube : info.cubes) {
          auto spans = layout::CubeSpans(cube.id, 2).value();
          inside = inside || (points[r * 2] >= spans[0].lo && points[r * 2] < spans[0].hi &&
                              points[r * 2 + 1] >= spans[1].lo && points[r * 2 + 1] < spans[1].hi);
        }
        EXPECT_TRUE(inside) << f.file_path << " row " << r;
        EXPECT_GE(weights[r], info.min_weight);
        EXPECT_LE(weights[r], info.max_weight);
      }
    }
    rows += f.record_count;
  }
  EXPECT_EQ(rows, kCells);
  // The root cube holds exactly the table's lightest cube_size rows.
  const layout::OTreeIndex cubes = index.Cubes(1);
  const auto root = std::find_if(cubes.cubes.begin(), cubes.cubes.end(),
                                 [](const layout::OTreeCube& cb) { return cb.id.empty(); });
  ASSERT_NE(root, cubes.cubes.end());
  EXPECT_EQ(root->rows, 512);
}

TEST(OTreeIndex, AnAppendAddsToTheSameCubesAndFarRowsStartARevision) {
  Warehouse w;
  CreateOTree(w);
  Append(w, Grid(0, kCells / 2));
  Append(w, Grid(kCells / 2, kCells));
  EXPECT_EQ(Revision(w).id, 1);
  OTreeTableIndex index = Index(w);
  EXPECT_EQ(index.files.size(), LiveFiles(w).size());
  int64_t rows = 0;
  for (const layout::OTreeCube& cube : index.Cubes(1).cubes) rows += cube.rows;
  EXPECT_EQ(rows, kCells);
  // The second append went into the first's cubes: the root, closed by the first, took exactly
  // the rows of the whole table lighter than its max weight -- as if written at once.
  const layout::OTreeIndex cubes = index.Cubes(1);
  const auto root = std::find_if(cubes.cubes.begin(), cubes.cubes.end(),
                                 [](const layout::OTreeCube& cb) { return cb.id.empty(); });
  ASSERT_NE(root, cubes.cubes.end());
  ASSERT_LT(root->max_weight, UINT32_MAX);
  const c::RecordBatch grid = Grid(0, kCells);
  std::vector<int64_t> all(kCells);
  std::iota(all.begin(), all.end(), 0);
  const auto weights = layout::RowWeights({grid.columns[1].get(), grid.columns[2].get()}, all);
  EXPECT_EQ(root->rows, std::count_if(weights.begin(), weights.end(),
                                      [&](uint32_t wt) { return wt < root->max_weight; }));
  EXPECT_GT(root->rows, 512);

  // Rows far outside x's span: a new revision whose span covers both.
  Append(w, Grid(0, 1000, 100000));
  const layout::OTreeRevision rev = Revision(w);
  EXPECT_EQ(rev.id, 2);
  EXPECT_EQ(rev.dimensions[0].min, 0);
  EXPECT_EQ(rev.dimensions[0].max, 100000 + kSide - 1);
  index = Index(w);
  EXPECT_EQ(index.revisions.size(), 2u);
  EXPECT_EQ(index.files.size(), LiveFiles(w).size());
  EXPECT_EQ(testing_support::AllIds(w, kId).size(), static_cast<size_t>(kCells + 1000));
}

TEST(OTreeIndex, RewritesKeepTheLayoutAndASortRewriteReindexes) {
  Warehouse w;
  CreateOTree(w);
  for (int i = 0; i < 4; ++i) Append(w, Grid(i * kCells / 4, (i + 1) * kCells / 4));
  RewriteOptions o;
  o.rewrite_all = true;
  auto r = RewriteDataFiles(*w.cat, *w.io, kId, o);  // bin-pack: back into the same cubes
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(Revision(w).id, 1);
  std::vector<DataFile> files = LiveFiles(w);
  OTreeTableIndex index = Index(w);
  EXPECT_EQ(index.files.size(), files.size());
  for (const DataFile& f : files) EXPECT_TRUE(index.files.contains(f.file_path)) << f.file_path;
  int64_t rows = 0;
  for (const layout::OTreeCube& cube : index.Cubes(1).cubes) rows += cube.rows;
  EXPECT_EQ(rows, kCells);  // the replaced files no longer count
  EXPECT_EQ(w.Load(kId).metadata.CurrentSnapshot()->summary.at("rewrite-strategy"), "binpack");

  o.strategy = RewriteStrategy::kSort;  // re-index: a new revision over every row
  r = RewriteDataFiles(*w.cat, *w.io, kId, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(Revision(w).id, 2);
  EXPECT_EQ(w.Load(kId).metadata.CurrentSnapshot()->summary.at("rewrite-strategy"), "otree");
  index = Index(w);
  EXPECT_EQ(index.revisions.size(), 1u);
  EXPECT_TRUE(index.revisions.contains(2));
  EXPECT_EQ(index.files.size(), LiveFiles(w).size());
  std::vector<int64_t> want(kCells);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(testing_support::AllIds(w, kId), want);

  // A sort order is no way to rewrite an OTree table.
  o.sort_order_text = "x";
  auto bad = RewriteDataFiles(*w.cat, *w.io, kId, o);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("otree(x, y)"), std::string::npos) << bad.error().message;
}

TEST(OTreeIndex, CubesPruneFilesThatBoundsKeepAndAnswersStayExact) {
  // A string column is indexed by its hash: each file's strings span the whole alphabet, so its
  // bounds prune nothing, while the cubes of `k = 'key-7'` are those on one path of the tree.
  Warehouse w;
  Schema schema(
      0, {{1, "id", true, Primitive(TypeId::kLong)}, {2, "k", true, Primitive(TypeId::kString)}});
  CreateTableOptions o{schema,
                       PartitionSpec(),
                       SortOrder(),
                       {{"floe.layout", "otree(k)"}, {"floe.otree.target-rows-per-file", "256"}},
                       ""};
  ASSERT_TRUE(CreateTable(*w.cat, *w.io, kId, std::move(o)));
  c::FixedWidthBuilder<int64_t> ids(c::Int64());
  c::BinaryBuilder keys(c::String());
  for (int64_t i = 0; i < kCells; ++i) {
    ids.Append(i);
    ASSERT_TRUE(keys.Append("key-" + std::to_string(i % 1024)));
  }
  auto fields = std::make_shared<c::Schema>();
  fields->fields = {c::Field{"id", c::Int64(), false, -1}, c::Field{"k", c::String(), false, -1}};
  c::RecordBatch rows;
  rows.schema = fields;
  rows.columns = {ids.Finish(), keys.Finish()};
  rows.num_rows = kCells;
  Append(w, rows);
  const size_t files = LiveFiles(w).size();
  ASSERT_GE(files, 32u);
  for (int key : {7, 500, 555, 61}) {
    exec::TableScanOptions so;
    so.field_ids = {1, 2};
    so.threads = 1;
    so.filter = Predicate(Op::kEq, "k", {Literal::String("key-" + std::to_string(key))});
    int64_t matching = 0;
    ScanMetrics m;
    auto st = exec::ScanTable(
        w.Load(kId), *w.io, so,
        [&](int, c::RecordBatch b) -> Status {
          // The scan's residual keeps only the key's rows.
          for (int64_t r = 0; r < b.num_rows; ++r) {
            EXPECT_EQ(b.columns[0]->Value<int64_t>(r) % 1024, key);
            ++matching;
          }
          return {};
        },
        &m);
    ASSERT_TRUE(st) << st.error().ToString();
    EXPECT_EQ(matching, kCells / 1024) << key;
    // The root's files and one path below it: a few files, where bounds keep every one (these
    // keys lie inside every file's string range).
    EXPECT_LE(m.data_files_opened.value(), 8) << key;
    EXPECT_EQ(m.data_files_skipped_bounds.value(), 0) << key;
    EXPECT_EQ(m.data_files_skipped_index.value() + m.data_files_opened.value(),
              static_cast<int64_t>(files))
        << key;
  }
}

TEST(OTreeIndex, ASampleOpensOnlyLightFilesAndIsExactlyTheRowsBelowItsWeight) {
  Warehouse w;
  CreateOTree(w);
  Append(w, Grid(0, kCells / 2));
  Append(w, Grid(kCells / 2, kCells));
  const c::RecordBatch grid = Grid(0, kCells);
  std::vector<int64_t> all(kCells);
  std::iota(all.begin(), all.end(), 0);
  const auto weights = layout::RowWeights({grid.columns[1].get(), grid.columns[2].get()}, all);
  const OTreeTableIndex index = Index(w);
  for (double fraction : {0.01, 0.1}) {
    exec::TableScanOptions o;
    o.sample_fraction = fraction;
    const Scanned s = Scan(w, o);
    const auto threshold = static_cast<uint64_t>(std::ceil(fraction * 4294967296.0));
    std::vector<std::array<int64_t, 3>> want;
    for (int64_t r = 0; r < kCells; ++r) {
      if (weights[static_cast<size_t>(r)] < threshold) {
        want.push_back({grid.columns[0]->Value<int64_t>(r), grid.columns[1]->Value<int64_t>(r),
                        grid.columns[2]->Value<int64_t>(r)});
      }
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(s.rows, want) << fraction;
    // Exactly the files holding a row that light are opened.
    int64_t light = 0;
    for (const auto& [path, info] : index.files) light += info.min_weight < threshold;
    EXPECT_EQ(s.metrics.data_files_opened.value(), light) << fraction;
    EXPECT_EQ(s.metrics.data_files_skipped_sample.value(),
              static_cast<int64_t>(index.files.size()) - light);
    EXPECT_LT(light, static_cast<int64_t>(index.files.size()) / 2) << fraction;
    // Uniform: x's distribution over 8 bands, chi-square with 7 degrees of freedom below the
    // 0.1% critical value (24.32).
    std::vector<double> bands(8, 0);
    for (const auto& row : s.rows) bands[static_cast<size_t>(row[1] / 16)] += 1;
    const double expected = static_cast<double>(s.rows.size()) / 8;
    double chi2 = 0;
    for (double b : bands) chi2 += (b - expected) * (b - expected) / expected;
    EXPECT_LT(chi2, 24.32) << fraction;
    EXPECT_NEAR(static_cast<double>(s.rows.size()), fraction * kCells, 0.25 * fraction * kCells);
  }
}

TEST(OTreeIndex, ALostIndexCostsThePruningNeverARowOrAWrite) {
  Warehouse w;
  CreateOTree(w);
  Append(w, Grid(0, kCells));
  exec::TableScanOptions filtered;
  filtered.filter = Predicate(Op::kLt, "x", {Literal::Long(8)});
  exec::TableScanOptions sampled;
  sampled.sample_fraction = 0.05;
  const Scanned rows = Scan(w, filtered), sample = Scan(w, sampled);
  EXPECT_EQ(rows.rows.size(), static_cast<size_t>(8 * kSide));
  EXPECT_GT(sample.metrics.data_files_skipped_sample.value(), 0);
  // The index file goes (by hand: Iceberg's own maintenance keeps it).
  const Table before = w.Load(kId);
  ASSERT_TRUE(before.metadata.extra.contains("statistics"));
  ASSERT_TRUE(w.io->Delete(
      before.metadata.extra.at("statistics").at(0).at("statistics-path").get<std::string>()));
  const Scanned rows_after = Scan(w, filtered), sample_after = Scan(w, sampled);
  EXPECT_EQ(rows_after.rows, rows.rows);
  EXPECT_EQ(sample_after.rows, sample.rows);  // read row by row, the same rows
  EXPECT_EQ(sample_after.metrics.data_files_skipped_sample.value(), 0);
  EXPECT_EQ(sample_after.metrics.data_files_opened.value(),
            static_cast<int64_t>(LiveFiles(w).size()));
  // A write starts the cubes anew, and its commit a new index of its own files.
  Append(w, Grid(0, 1000, 200));
  EXPECT_EQ(testing_support::AllIds(w, kId).size(), static_cast<size_t>(kCells + 1000));
  const Table t = w.Load(kId);
  const OTreeTableIndex fresh = Index(w);
  EXPECT_EQ(static_cast<int64_t>(fresh.files.size()),
            std::stoll(t.metadata.CurrentSnapshot()->summary.at("added-data-files")));
  std::set<std::string> live;
  for (const DataFile& f : LiveFiles(w)) live.insert(f.file_path);
  for (const auto& [path, info] : fresh.files) EXPECT_TRUE(live.contains(path)) << path;
}

TEST(OTreeIndex, OtherTablesGetABlockSampleOfWholeFiles) {
  Warehouse w;
  CreateTableOptions o{
      GridSchema(), PartitionSpec(), SortOrder(), {{"write.target-file-size-bytes", "2000"}}, ""};
  ASSERT_TRUE(CreateTable(*w.cat, *w.io, kId, std::move(o)));
  Append(w, Grid(0, kCells));
  const size_t files = LiveFiles(w).size();
  ASSERT_GE(files, 10u);
  exec::TableScanOptions s;
  s.sample_fraction = 0.5;
  const Scanned half = Scan(w, s);
  const int64_t opened = half.metrics.data_files_opened.value();
  EXPECT_GT(opened, 0);
  EXPECT_EQ(opened + half.metrics.data_files_skipped_sample.value(), static_cast<int64_t>(files));
  EXPECT_LT(opened, static_cast<int64_t>(files));
  // Whole files: the rows read are those of the files opened, every one of them.
  EXPECT_EQ(static_cast<int64_t>(half.rows.size()), half.metrics.rows_read.value());
  EXPECT_EQ(Scan(w, s).rows, half.rows);  // the same files every time
  s.sample_fraction = 1;
  EXPECT_EQ(Scan(w, s).rows.size(), static_cast<size_t>(kCells));
  s.sample_fraction = 0;
  s.field_ids = {1, 2, 3};
  ScanMetrics metrics;
  auto st = exec::ScanTable(
      w.Load(kId), *w.io, s, [&](int, c::RecordBatch) -> Status { return {}; }, &metrics);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kInvalidInput);
}

TEST(OTreeIndex, AnOTreeOnAPartitionedTableIsRefused) {
  Warehouse w;
  Schema s = GridSchema();
  CreateTableOptions o{s,
                       PartitionSpec::Parse("bucket(4, id)", s).value(),
                       SortOrder(),
                       {{"floe.layout", "otree(x, y)"}},
                       ""};
  auto t = CreateTable(*w.cat, *w.io, kId, std::move(o));
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(t.error().message.find("unpartitioned"), std::string::npos) << t.error().message;
  EXPECT_FALSE(w.cat->LoadTable(kId).has_value());
  CreateTableOptions nine{
      s, PartitionSpec(), SortOrder(), {{"floe.layout", "otree(id, x, y, a, b, c, d, e, f)"}}, ""};
  auto u = CreateTable(*w.cat, *w.io, kId, std::move(nine));
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("at most 8"), std::string::npos) << u.error().message;
}

}  // namespace
}  // namespace floe::iceberg
