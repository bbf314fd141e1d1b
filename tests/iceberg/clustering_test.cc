// Clustering on write and in rewrites (floe.layout, rewrite_data_files with zorder/hilbert): rows
// kept, files laid out as compact boxes of the key space, no sort order claimed, bad layouts
// refused with the table unchanged.
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/row_order.h"
#include "maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using testing_support::Warehouse;
namespace c = floe::columnar;

// A 128 x 128 grid of (x, y), each point once, plus an id; part = id % 2.
constexpr int64_t kSide = 128;
constexpr int64_t kCells = kSide * kSide;
Schema GridSchema() {
  return Schema(0, {{1, "id", true, Primitive(TypeId::kLong)},
                    {2, "x", true, Primitive(TypeId::kLong)},
                    {3, "y", true, Primitive(TypeId::kLong)},
                    {4, "part", true, Primitive(TypeId::kLong)}});
}

// The grid's points (a side x side grid) in a scrambled order, in `batches` batches.
std::vector<c::RecordBatch> GridBatches(int batches, int64_t side = kSide) {
  std::vector<int64_t> order(static_cast<size_t>(side * side));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(11);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<c::RecordBatch> out;
  const size_t per = order.size() / static_cast<size_t>(batches);
  for (int b = 0; b < batches; ++b) {
    c::FixedWidthBuilder<int64_t> id(c::Int64()), x(c::Int64()), y(c::Int64()), part(c::Int64());
    for (size_t i = b * per; i < (b + 1) * per; ++i) {
      id.Append(order[i]);
      x.Append(order[i] % side);
      y.Append(order[i] / side);
      part.Append(order[i] % 2);
    }
    auto s = std::make_shared<c::Schema>();
    for (const char* n : {"id", "x", "y", "part"})
      s->fields.push_back(c::Field{n, c::Int64(), false, -1});
    c::RecordBatch batch;
    batch.schema = s;
    batch.columns = {id.Finish(), x.Finish(), y.Finish(), part.Finish()};
    batch.num_rows = static_cast<int64_t>(per);
    out.push_back(std::move(batch));
  }
  return out;
}

Result<Table> CreateGrid(Warehouse& w, const catalog::TableIdentifier& id,
                         std::map<std::string, std::string> props, const std::string& sort_by = "",
                         const std::string& partition_by = "") {
  Schema s = GridSchema();
  SortOrder order;
  if (!sort_by.empty()) order = SortOrder::Parse(sort_by, s).value();
  props.emplace("write.target-file-size-bytes", "2000");  // about 16 files of the grid
  CreateTableOptions o{s, PartitionSpec::Parse(partition_by, s).value(), order, std::move(props),
                       ""};
  return CreateTable(*w.cat, *w.io, id, std::move(o));
}

void AppendAll(Warehouse& w, const catalog::TableIdentifier& id, int batches = 1) {
  TableDataWriter writer(w.Load(id), *w.io);
  for (const auto& b : GridBatches(batches)) ASSERT_TRUE(writer.Write(b));
  auto files = writer.Finish();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_TRUE(AppendFiles(*w.cat, *w.io, id, *files));
}

int64_t Bound(const std::map<int32_t, std::string>& bounds, int32_t field) {
  int64_t v = 0;
  std::memcpy(&v, bounds.at(field).data(), 8);
  return v;
}

struct FileBox {
  int64_t rows, x0, x1, y0, y1;
  std::optional<int32_t> sort_order_id;
  int64_t Area() const { return (x1 - x0 + 1) * (y1 - y0 + 1); }
};

std::vector<FileBox> Boxes(Warehouse& w, const catalog::TableIdentifier& id) {
  auto plan = PlanFiles(w.Load(id), *w.io, {});
  EXPECT_TRUE(plan) << plan.error().ToString();
  std::vector<FileBox> out;
  for (const auto& t : plan->tasks) {
    const DataFile& f = t.file;
    out.push_back({f.record_count, Bound(f.lower_bounds, 2), Bound(f.upper_bounds, 2),
                   Bound(f.lower_bounds, 3), Bound(f.upper_bounds, 3), f.sort_order_id});
  }
  return out;
}

// The files that may hold rows of a query box [x0, x1] x [y0, y1], by their bounds.
int64_t FilesFor(const std::vector<FileBox>& boxes, int64_t x0, int64_t x1, int64_t y0,
                 int64_t y1) {
  int64_t n = 0;
  for (const FileBox& b : boxes) n += b.x0 <= x1 && x0 <= b.x1 && b.y0 <= y1 && y0 <= b.y1;
  return n;
}

int64_t Rows(const std::vector<FileBox>& boxes) {
  int64_t n = 0;
  for (const FileBox& b : boxes) n += b.rows;
  return n;
}

// Every id once: the layout moved rows, it did not lose or repeat any.
void ExpectWholeGrid(const Warehouse& w, const catalog::TableIdentifier& id) {
  std::vector<int64_t> want(kCells);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(testing_support::AllIds(w, id), want);
}

TEST(Clustering, HilbertLayoutOnWriteMakesEachFileACompactBox) {
  Warehouse w;
  const catalog::TableIdentifier plain{{"ns"}, "plain"}, hil{{"ns"}, "hil"};
  ASSERT_TRUE(CreateGrid(w, plain, {}));
  ASSERT_TRUE(CreateGrid(w, hil, {{"floe.layout", "hilbert(x, y)"}}));
  AppendAll(w, plain, 4);
  AppendAll(w, hil, 4);
  ExpectWholeGrid(w, hil);
  const auto p = Boxes(w, plain), h = Boxes(w, hil);
  ASSERT_GE(h.size(), 8u);
  EXPECT_EQ(Rows(h), kCells);
  for (const FileBox& b : h) {
    // A run of the Hilbert curve of n cells fits in a box of a few times n cells; unclustered,
    // a file spans the whole grid.
    EXPECT_LE(b.Area(), 4 * b.rows) << b.x0 << ".." << b.x1 << " x " << b.y0 << ".." << b.y1;
    EXPECT_FALSE(b.sort_order_id.has_value());
  }
  for (const FileBox& b : p) EXPECT_EQ(b.Area(), kCells);
  // A query of 1/16 of the grid: every unclustered file, at most 3x the ideal clustered.
  const auto ideal = static_cast<int64_t>((h.size() + 15) / 16);
  EXPECT_EQ(FilesFor(p, 32, 63, 64, 95), static_cast<int64_t>(p.size()));
  EXPECT_LE(FilesFor(h, 32, 63, 64, 95), 3 * ideal);
}

// A write of many rows in several batches lays them out as the same rows in one batch do (the
// rows move once from the batches into their order): the same files, rows, bounds and bytes, for
// each layout and a sort order.
TEST(Clustering, AWriteOfSeveralBatchesLaysOutItsRowsAsOneBatchWould) {
  constexpr int64_t kBigSide = 1024;  // 2^20 rows: a write that is put in order at once
  struct Layout {
    std::map<std::string, std::string> props;
    std::string sort_by;
  };
  const std::vector<Layout> layouts = {{{{"floe.layout", "zorder(x, y)"}}, ""},
                                       {{{"floe.layout", "hilbert(y, x)"}}, ""},
                                       {{{"floe.layout", "otree(x, y)"}}, ""},
                                       {{}, "y, x"}};
  for (const Layout& l : layouts) {
    Warehouse w;
    std::vector<std::vector<DataFile>> written;
    for (int batches : {1, 4}) {
      const catalog::TableIdentifier id{{"ns"}, "t" + std::to_string(batches)};
      std::map<std::string, std::string> props = l.props;
      props["write.target-file-size-bytes"] = "16000";
      Schema s = GridSchema();
      SortOrder order;
      if (!l.sort_by.empty()) order = SortOrder::Parse(l.sort_by, s).value();
      ASSERT_TRUE(CreateTable(
          *w.cat, *w.io, id,
          CreateTableOptions{s, PartitionSpec::Parse("", s).value(), order, std::move(props), ""}));
      TableDataWriter writer(w.Load(id), *w.io);
      for (const auto& b : GridBatches(batches, kBigSide)) ASSERT_TRUE(writer.Write(b));
      auto files = writer.Finish();
      ASSERT_TRUE(files) << files.error().ToString();
      written.push_back(*files);
    }
    const std::string what = l.props.empty() ? "sort " + l.sort_by : l.props.begin()->second;
    ASSERT_GE(written[0].size(), 2u) << what;
    ASSERT_EQ(written[0].size(), written[1].size()) << what;
    int64_t rows = 0;
    for (size_t f = 0; f < written[0].size(); ++f) {
      const DataFile& a = written[0][f];
      const DataFile& b = written[1][f];
      EXPECT_EQ(a.record_count, b.record_count) << what << " file " << f;
      EXPECT_EQ(a.lower_bounds, b.lower_bounds) << what << " file " << f;
      EXPECT_EQ(a.upper_bounds, b.upper_bounds) << what << " file " << f;
      EXPECT_EQ(a.file_size_in_bytes, b.file_size_in_bytes) << what << " file " << f;
      auto bytes_a = w.io->Read(a.file_path);
      auto bytes_b = w.io->Read(b.file_path);
      ASSERT_TRUE(bytes_a && bytes_b) << what;
      EXPECT_TRUE(std::equal(bytes_a->data(), bytes_a->data() + bytes_a->size(), bytes_b->data(),
                             bytes_b->data() + bytes_b->size()))
          << what << " file " << f;
      rows += a.record_count;
    }
    EXPECT_EQ(rows, kBigSide * kBigSide) << what;
  }
}

TEST(Clustering, ZOrderRewriteOfAPartitionedTableClustersWithinEachPartition) {
  Warehouse w;
  const catalog::TableIdentifier id{{"ns"}, "t"};
  // part is an identity partition source: constant within a partition, dropped from the key.
  ASSERT_TRUE(CreateGrid(w, id, {}, "id", "part"));
  AppendAll(w, id, 8);
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  o.sort_order_text = "zorder(part, x, y)";
  o.rewrite_all = true;
  auto r = RewriteDataFiles(*w.cat, *w.io, id, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->rewritten_records, kCells);
  ExpectWholeGrid(w, id);
  const Table t = w.Load(id);
  const auto& summary = t.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("rewrite-strategy"), "zorder");
  EXPECT_EQ(summary.at("rewrite-sort-order"), "zorder(x, y)");
  const auto boxes = Boxes(w, id);
  EXPECT_EQ(Rows(boxes), kCells);
  int64_t area = 0;
  for (const FileBox& b : boxes) {
    EXPECT_FALSE(b.sort_order_id.has_value());  // not the table's sort order (id)
    area += b.Area();
  }
  // Each half of the grid (a partition) in compact files: their boxes together cover the grid
  // a few times at most, where the id-sorted files each spanned every x.
  EXPECT_LE(area, 4 * kCells);
}

TEST(Clustering, ASortRewriteWithoutAnOrderUsesTheTablesLayout) {
  Warehouse w;
  const catalog::TableIdentifier id{{"ns"}, "t"};
  ASSERT_TRUE(CreateGrid(w, id, {{"floe.layout", "hilbert(y, x)"}}));
  AppendAll(w, id, 2);
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  o.rewrite_all = true;
  auto r = RewriteDataFiles(*w.cat, *w.io, id, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(w.Load(id).metadata.CurrentSnapshot()->summary.at("rewrite-sort-order"),
            "hilbert(y, x)");
  ExpectWholeGrid(w, id);
}

TEST(Clustering, BadLayoutsAreRefusedAndChangeNothing) {
  Warehouse w;
  const catalog::TableIdentifier id{{"ns"}, "t"};
  for (const char* bad : {"zorder(nope)", "zorder(", "spiral(x)", "zorder(part)"}) {
    const std::string partition = std::string(bad) == "zorder(part)" ? "part" : "";
    auto t = CreateGrid(w, id, {{"floe.layout", bad}}, "", partition);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().kind, ErrorKind::kInvalidInput) << t.error().ToString();
    EXPECT_NE(t.error().message.find("floe.layout"), std::string::npos) << t.error().message;
    EXPECT_FALSE(w.cat->LoadTable(id).has_value()) << bad;
  }
  ASSERT_TRUE(CreateGrid(w, id, {}));
  AppendAll(w, id);
  const int64_t before = *w.Load(id).metadata.current_snapshot_id;
  RewriteOptions o;
  o.strategy = RewriteStrategy::kSort;
  o.rewrite_all = true;
  for (const char* bad : {"zorder(x, nope)", "hilbert()"}) {
    o.sort_order_text = bad;
    auto r = RewriteDataFiles(*w.cat, *w.io, id, o);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput) << r.error().ToString();
  }
  // Neither a sort order nor a layout to sort by.
  o.sort_order_text.clear();
  auto r = RewriteDataFiles(*w.cat, *w.io, id, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("floe.layout"), std::string::npos) << r.error().message;
  EXPECT_EQ(*w.Load(id).metadata.current_snapshot_id, before);
}

}  // namespace
}  // namespace floe::iceberg
