// A write split into a plan, tasks and one commit (write_plan.h, write_task.h): tasks write what
// one writer would (partitions, sort order, metrics), their results cross as bytes and back
// unchanged, one append adds them all, and what cannot be committed leaves nothing behind. An OTree
// plan's layout comes from samples and is the same however the rows are split among tasks -- and
// with a sample of every row, exactly the single writer's.
#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "floe/columnar/take.h"
#include "floe/iceberg/commit_retry.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/write_plan.h"
#include "floe/iceberg/write_task.h"
#include "maintenance_fixture.h"

namespace floe::iceberg {
namespace {

using testing_support::Warehouse;
namespace c = floe::columnar;

// id, cat (one of four), x and y on a 64 x 64 grid, in a scrambled order.
constexpr int64_t kRows = 4096;

c::RecordBatch Rows(int64_t from, int64_t to) {
  std::vector<int64_t> order(kRows);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(5);
  std::shuffle(order.begin(), order.end(), rng);
  c::FixedWidthBuilder<int64_t> id(c::Int64()), x(c::Int64()), y(c::Int64());
  c::BinaryBuilder cat;
  for (int64_t i = from; i < to; ++i) {
    const int64_t v = order[static_cast<size_t>(i)];
    id.Append(v);
    EXPECT_TRUE(cat.Append(std::string(1, static_cast<char>('a' + v % 4))));
    x.Append(v % 64);
    y.Append(v / 64);
  }
  auto s = std::make_shared<c::Schema>();
  s->fields = {c::Field{"id", c::Int64(), false, -1}, c::Field{"cat", c::String(), false, -1},
               c::Field{"x", c::Int64(), false, -1}, c::Field{"y", c::Int64(), false, -1}};
  c::RecordBatch b;
  b.schema = s;
  b.columns = {id.Finish(), cat.Finish(), x.Finish(), y.Finish()};
  b.num_rows = to - from;
  return b;
}

Schema TableSchema() {
  return Schema(0, {{1, "id", true, Primitive(TypeId::kLong)},
                    {2, "cat", true, Primitive(TypeId::kString)},
                    {3, "x", true, Primitive(TypeId::kLong)},
                    {4, "y", true, Primitive(TypeId::kLong)}});
}

void Create(Warehouse& w, const catalog::TableIdentifier& id, const std::string& partition,
            const std::string& sort, std::map<std::string, std::string> props = {}) {
  const Schema schema = TableSchema();
  CreateTableOptions o{schema, PartitionSpec::Parse(partition, schema).value(),
                       sort.empty() ? SortOrder() : SortOrder::Parse(sort, schema).value(),
                       std::move(props), ""};
  auto t = CreateTable(*w.cat, *w.io, id, std::move(o));
  ASSERT_TRUE(t) << t.error().ToString();
}

columnar::BatchSource From(std::vector<c::RecordBatch> batches) {
  auto left = std::make_shared<std::vector<c::RecordBatch>>(std::move(batches));
  return [left]() -> Result<std::optional<c::RecordBatch>> {
    if (left->empty()) return std::optional<c::RecordBatch>();
    c::RecordBatch b = std::move(left->front());
    left->erase(left->begin());
    return std::optional<c::RecordBatch>(std::move(b));
  };
}

// Runs a task and sends its result through bytes, as a task in another process would.
WriteTaskResult Task(Warehouse& w, const WritePlan& plan, int64_t task, c::RecordBatch rows) {
  // The plan, too, crosses as text.
  auto copy = WritePlan::FromJson(plan.ToJson());
  EXPECT_TRUE(copy) << copy.error().ToString();
  auto r = RunWriteTask(*w.io, *copy, task, From({std::move(rows)}));
  EXPECT_TRUE(r) << r.error().ToString();
  auto back = WriteTaskResult::Deserialize(plan, r->Serialize(*copy));
  EXPECT_TRUE(back) << back.error().ToString();
  return *back;
}

std::vector<int64_t> Ids(Warehouse& w, const catalog::TableIdentifier& id) {
  std::vector<int64_t> out;
  const Table t = w.Load(id);
  auto plan = PlanFiles(t, *w.io, {});
  EXPECT_TRUE(plan) << plan.error().ToString();
  for (const FileScanTask& task : plan->tasks) {
    auto batches = ReadTask(task, t.metadata.CurrentSchema(), *w.io);
    EXPECT_TRUE(batches) << batches.error().ToString();
    for (const c::RecordBatch& b : *batches) {
      for (int64_t r = 0; r < b.num_rows; ++r) out.push_back(b.columns[0]->Value<int64_t>(r));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const catalog::TableIdentifier kT{{"db"}, "t"};

TEST(PlannedWrite, TasksWriteWhatOneWriterWritesAndOneAppendAddsThemAll) {
  Warehouse w;
  Create(w, kT, "cat", "id");
  auto plan = PlanWrite(*w.cat, *w.io, kT, {});
  ASSERT_TRUE(plan) << plan.error().ToString();
  EXPECT_FALSE(plan->NeedsSample());
  EXPECT_TRUE(plan->metadata.snapshots.empty());

  std::vector<WriteTaskResult> results;
  for (int64_t t = 0; t < 3; ++t) {
    results.push_back(Task(w, *plan, t, Rows(t * kRows / 3, (t + 1) * kRows / 3)));
  }
  // Each task wrote a file per partition, named by the task and the write, sorted by id, with
  // the partition value and the metrics a manifest records.
  for (const WriteTaskResult& r : results) {
    ASSERT_EQ(r.files.size(), 4u);
    for (size_t k = 0; k < r.files.size(); ++k) {
      const DataFile& f = r.files[k];
      const std::string name = f.file_path.substr(f.file_path.rfind('/') + 1);
      EXPECT_EQ(name, fmt::format("{:05d}-{:05d}-{}.parquet", r.task, k, plan->write_id));
      EXPECT_NE(f.file_path.find(fmt::format("/data/cat={}/", static_cast<char>('a' + k))),
                std::string::npos)
          << f.file_path;
      ASSERT_EQ(f.partition.size(), 1u);
      EXPECT_EQ(std::get<std::string>(f.partition[0].storage()),
                std::string(1, static_cast<char>('a' + k)));
      EXPECT_EQ(f.sort_order_id, 1);
      EXPECT_EQ(f.value_counts.at(1), f.record_count);
      EXPECT_EQ(f.lower_bounds.size(), 4u);
      EXPECT_TRUE(f.written_at_ms.has_value());
    }
  }
  auto committed = CommitWrite(*w.cat, *w.io, *plan, results);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(committed->rows, kRows);
  EXPECT_EQ(committed->data_files, 12);
  const Table t = w.Load(kT);
  ASSERT_EQ(t.metadata.snapshots.size(), 1u);
  const auto& summary = t.metadata.snapshots[0].summary;
  EXPECT_EQ(summary.at("operation"), "append");
  EXPECT_EQ(summary.at("added-data-files"), "12");
  EXPECT_EQ(summary.at("added-records"), std::to_string(kRows));
  EXPECT_EQ(summary.at("floe.write-tasks"), "3");
  std::vector<int64_t> want(kRows);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(Ids(w, kT), want);
  // The manifest holds what the tasks said, byte for byte in its bounds.
  auto live = t.LiveEntries(*w.io);
  ASSERT_TRUE(live);
  std::map<std::string, DataFile> by_path;
  for (auto& e : *live) by_path[e.file.file_path] = e.file;
  for (const WriteTaskResult& r : results) {
    for (const DataFile& f : r.files) {
      const DataFile& m = by_path.at(f.file_path);
      EXPECT_EQ(m.record_count, f.record_count);
      EXPECT_EQ(m.file_size_in_bytes, f.file_size_in_bytes);
      EXPECT_EQ(m.lower_bounds, f.lower_bounds);
      EXPECT_EQ(m.upper_bounds, f.upper_bounds);
      EXPECT_EQ(m.column_sizes, f.column_sizes);
      EXPECT_EQ(m.split_offsets, f.split_offsets);
    }
  }
}

TEST(PlannedWrite, PlansAndResultsOfAnyShapeAreErrorsNamingWhatIsWrong) {
  Warehouse w;
  Create(w, kT, "", "");
  auto plan = PlanWrite(*w.cat, *w.io, kT, {});
  ASSERT_TRUE(plan);
  auto again = WritePlan::FromJson(plan->ToJson());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->ToJson(), plan->ToJson());
  EXPECT_EQ(WritePlan::FromJson("[1]").error().ToString(),
            "invalid input: not a floe write plan: expected a JSON object with \"format\": "
            "\"floe-write-plan-v1\"");
  EXPECT_EQ(
      WritePlan::FromJson(R"({"format":"floe-write-plan-v1","table":"db.t"})").error().ToString(),
      "invalid input: not a floe write plan: no string 'metadata-location'");
  EXPECT_EQ(WriteTaskResult::Deserialize(*plan, "PAR1").error().ToString(),
            "invalid input: not a floe write task's result: it does not start with FLOEWTR1");
  // Another write's result is refused by the plan it is not of.
  auto other = PlanWrite(*w.cat, *w.io, kT, {});
  ASSERT_TRUE(other);
  auto r = RunWriteTask(*w.io, *other, 0, From({Rows(0, 10)}));
  ASSERT_TRUE(r);
  EXPECT_EQ(WriteTaskResult::Deserialize(*plan, r->Serialize(*other)).error().ToString(),
            fmt::format("invalid input: task 0 of write {} is not of this plan's write ({})",
                        other->write_id, plan->write_id));
  EXPECT_EQ(RunWriteTask(*w.io, *plan, 100000, From({})).error().ToString(),
            "invalid input: write to db.t: task number 100000 is not in 0..99999");
}

TEST(PlannedWrite, WhatCannotBeCommittedLeavesTheTableAndNoFilesBehind) {
  Warehouse w;
  Create(w, kT, "cat", "");
  {
    // One task reported twice.
    auto plan = PlanWrite(*w.cat, *w.io, kT, {}).value();
    WriteTaskResult r = Task(w, plan, 0, Rows(0, 100));
    ASSERT_FALSE(w.Keys(kT, "data/").empty());
    auto committed = CommitWrite(*w.cat, *w.io, plan, {r, r});
    ASSERT_FALSE(committed);
    EXPECT_EQ(committed.error().ToString(),
              "invalid input: write to db.t: task 0 is reported twice (its rows would be added "
              "twice); pass one result per task");
    EXPECT_TRUE(w.Keys(kT, "data/").empty());
    EXPECT_TRUE(w.Load(kT).metadata.snapshots.empty());
  }
  {
    // The schema changed between the plan and the commit.
    auto plan = PlanWrite(*w.cat, *w.io, kT, {}).value();
    WriteTaskResult r = Task(w, plan, 0, Rows(0, 100));
    auto evolved =
        CommitWithRetry(*w.cat, *w.io, kT,
                        [](const Table& base, int,
                           std::vector<std::string>*) -> Result<std::optional<TableMetadata>> {
                          TableMetadata m = base.metadata;
                          std::vector<NestedField> fields = m.CurrentSchema().fields();
                          fields.push_back({5, "z", false, Primitive(TypeId::kLong)});
                          m.schemas.emplace_back(1, std::move(fields));
                          m.current_schema_id = 1;
                          m.last_column_id = 5;
                          return std::optional<TableMetadata>(std::move(m));
                        });
    ASSERT_TRUE(evolved) << evolved.error().ToString();
    auto committed = CommitWrite(*w.cat, *w.io, plan, {r});
    ASSERT_FALSE(committed);
    EXPECT_EQ(committed.error().ToString(),
              "conflict: write to db.t: the table's schema changed since the write was planned "
              "(0 -> 1); its files no longer fit: plan it again");
    EXPECT_TRUE(w.Keys(kT, "data/").empty());
    EXPECT_TRUE(w.Load(kT).metadata.snapshots.empty());
  }
  {
    // An append committed meanwhile does not conflict; no results commit nothing.
    auto plan = PlanWrite(*w.cat, *w.io, kT, {}).value();
    WriteTaskResult r = Task(w, plan, 7, Rows(0, 100));
    TableDataWriter writer(w.Load(kT), *w.io);
    ASSERT_TRUE(writer.Write(Rows(100, 200)));
    ASSERT_TRUE(AppendFiles(*w.cat, *w.io, kT, writer.Finish().value()));
    ASSERT_TRUE(CommitWrite(*w.cat, *w.io, plan, {r}));
    EXPECT_EQ(Ids(w, kT).size(), 200u);
    ASSERT_TRUE(CommitWrite(*w.cat, *w.io, PlanWrite(*w.cat, *w.io, kT, {}).value(), {}));
    EXPECT_EQ(w.Load(kT).metadata.snapshots.size(), 2u);
  }
}

// The cubes of a table's index: rows and max weight by cube name, over every live file.
std::map<std::string, std::pair<int64_t, uint32_t>> Cubes(Warehouse& w,
                                                          const catalog::TableIdentifier& id) {
  const Table t = w.Load(id);
  auto index = LoadOTreeIndex(*w.io, t.metadata, nullptr);
  EXPECT_TRUE(index) << index.error().ToString();
  std::map<std::string, std::pair<int64_t, uint32_t>> out;
  for (const layout::OTreeCube& c : index->Cubes(1).cubes) out[c.id] = {c.rows, c.max_weight};
  return out;
}

const std::map<std::string, std::string> kOTree = {{"floe.layout", "otree(x, y)"},
                                                   {"floe.otree.target-rows-per-file", "256"}};

// An OTree write of every row in `tasks` tasks: each samples its part, the driver fixes the
// layout, each writes its part.
void PlannedOTreeWrite(Warehouse& w, const catalog::TableIdentifier& id, int tasks,
                       PlanWriteOptions options, WritePlan* out = nullptr) {
  auto plan = PlanWrite(*w.cat, *w.io, id, options);
  ASSERT_TRUE(plan) << plan.error().ToString();
  ASSERT_TRUE(plan->NeedsSample());
  auto early = RunWriteTask(*w.io, *plan, 0, From({Rows(0, 10)}));
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().ToString(),
            fmt::format("invalid input: write to {}: its OTree layout is not fixed yet -- sample "
                        "the rows (SampleForPlan, floe.WritePlan.sample) and fix the layout from "
                        "the samples on the driver first",
                        id.ToString()));
  std::vector<c::RecordBatch> samples;
  for (int t = 0; t < tasks; ++t) {
    auto s = SampleForPlan(*plan, Rows(t * kRows / tasks, (t + 1) * kRows / tasks));
    ASSERT_TRUE(s) << s.error().ToString();
    samples.push_back(*s);
  }
  ASSERT_TRUE(FixPlanLayout(&*plan, samples));
  std::vector<WriteTaskResult> results;
  for (int t = 0; t < tasks; ++t) {
    results.push_back(Task(w, *plan, t, Rows(t * kRows / tasks, (t + 1) * kRows / tasks)));
  }
  ASSERT_TRUE(CommitWrite(*w.cat, *w.io, *plan, results));
  if (out != nullptr) *out = *plan;
}

TEST(PlannedWrite, AnOTreeLayoutIsTheSameHoweverTheRowsAreSplit) {
  Warehouse w;
  const catalog::TableIdentifier one{{"db"}, "one"}, two{{"db"}, "two"}, three{{"db"}, "three"};
  for (const auto& id : {one, two, three}) Create(w, id, "", "", kOTree);
  PlanWriteOptions sampled;
  sampled.expected_rows = kRows;
  sampled.sample_rows = 1024;  // a quarter of the rows
  WritePlan p1, p2, p3;
  PlannedOTreeWrite(w, one, 1, sampled, &p1);
  PlannedOTreeWrite(w, two, 2, sampled, &p2);
  PlannedOTreeWrite(w, three, 3, sampled, &p3);
  EXPECT_DOUBLE_EQ(p1.sample_fraction, 0.25);
  ASSERT_TRUE(p1.otree && p2.otree && p3.otree);
  EXPECT_EQ(p1.otree->revision.ToJson(), p2.otree->revision.ToJson());
  EXPECT_EQ(p1.otree->revision.ToJson(), p3.otree->revision.ToJson());
  // The spans are the whole write's, though the sample is a quarter of it.
  EXPECT_EQ(p1.otree->revision.dimensions[0].min, 0);
  EXPECT_EQ(p1.otree->revision.dimensions[0].max, 63);
  EXPECT_EQ(p1.otree->revision.dimensions[1].max, 63);
  // Every row in the same cube: the same cubes with the same rows, whoever wrote them.
  const auto cubes = Cubes(w, one);
  EXPECT_GT(cubes.size(), 4u);
  EXPECT_EQ(Cubes(w, two), cubes);
  EXPECT_EQ(Cubes(w, three), cubes);
  int64_t rows = 0;
  for (const auto& [name, c] : cubes) rows += c.first;
  EXPECT_EQ(rows, kRows);
  std::vector<int64_t> want(kRows);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(Ids(w, two), want);
}

// Rows(from, to) with few OTree keys: most rows share their weight with others.
c::RecordBatch TiedRows(int64_t from, int64_t to) {
  c::RecordBatch b = Rows(from, to);
  c::FixedWidthBuilder<int64_t> x(c::Int64()), y(c::Int64());
  for (int64_t r = 0; r < b.num_rows; ++r) {
    const int64_t id = b.columns[0]->Value<int64_t>(r);
    x.Append(id % 4);
    y.Append(id % 3);
  }
  b.columns[2] = x.Finish();
  b.columns[3] = y.Finish();
  return b;
}

TEST(PlannedWrite, RowsOfOneWeightFixTheSameLayoutHoweverTheRowsAreSplit) {
  // Cubes of 256 rows, and cubes of the rows a file of 8 KB holds (measured on the sample).
  const std::map<std::string, std::string> by_bytes = {{"floe.layout", "otree(x, y)"},
                                                       {"write.target-file-size-bytes", "8192"}};
  for (const auto& props : {kOTree, by_bytes}) {
    Warehouse w;
    Create(w, kT, "", "", props);
    PlanWriteOptions half;
    half.expected_rows = kRows;
    half.sample_rows = kRows / 2;
    const WritePlan base = PlanWrite(*w.cat, *w.io, kT, half).value();
    auto fixed = [&](const std::vector<std::pair<int64_t, int64_t>>& split) {
      WritePlan p = base;
      std::vector<c::RecordBatch> samples;
      for (const auto& [from, to] : split) {
        samples.push_back(SampleForPlan(p, TiedRows(from, to)).value());
      }
      EXPECT_TRUE(FixPlanLayout(&p, samples));
      return p;
    };
    const WritePlan one = fixed({{0, kRows}});
    ASSERT_TRUE(one.otree);
    EXPECT_GT(one.otree->cubes.cubes.size(), 1u);
    EXPECT_EQ(fixed({{kRows / 3, kRows}, {0, kRows / 3}}).ToJson(), one.ToJson());
    EXPECT_EQ(fixed({{2 * kRows / 3, kRows}, {0, 1000}, {1000, 2 * kRows / 3}}).ToJson(),
              one.ToJson());
  }
}

TEST(PlannedWrite, WithEveryRowSampledTheCubesAreTheSingleWritersOnes) {
  Warehouse w;
  const catalog::TableIdentifier single{{"db"}, "single"}, planned{{"db"}, "planned"};
  for (const auto& id : {single, planned}) Create(w, id, "", "", kOTree);
  TableDataWriter writer(w.Load(single), *w.io);
  ASSERT_TRUE(writer.Write(Rows(0, kRows)));
  ASSERT_TRUE(AppendFiles(*w.cat, *w.io, single, writer.Finish().value()));
  PlannedOTreeWrite(w, planned, 2, {});
  EXPECT_EQ(Cubes(w, planned), Cubes(w, single));
  // An append planned on the table's index adds to its cubes as the single writer does.
  TableDataWriter more(w.Load(single), *w.io);
  ASSERT_TRUE(more.Write(Rows(0, kRows / 2)));
  ASSERT_TRUE(AppendFiles(*w.cat, *w.io, single, more.Finish().value()));
  auto plan = PlanWrite(*w.cat, *w.io, planned, {}).value();
  ASSERT_TRUE(plan.otree_base && plan.otree_base->current);
  std::vector<c::RecordBatch> samples = {SampleForPlan(plan, Rows(0, kRows / 2)).value()};
  ASSERT_TRUE(FixPlanLayout(&plan, samples));
  EXPECT_EQ(plan.otree->revision.id, 1);
  ASSERT_TRUE(CommitWrite(*w.cat, *w.io, plan, {Task(w, plan, 0, Rows(0, kRows / 2))}));
  EXPECT_EQ(Cubes(w, planned), Cubes(w, single));
}

TEST(PlannedWrite, ANewRevisionPlannedBeforeAnotherWriteMadeOneIsAConflict) {
  Warehouse w;
  Create(w, kT, "", "", kOTree);
  auto plan = PlanWrite(*w.cat, *w.io, kT, {}).value();
  ASSERT_TRUE(FixPlanLayout(&plan, {SampleForPlan(plan, Rows(0, kRows)).value()}));
  WriteTaskResult r = Task(w, plan, 0, Rows(0, kRows));
  // Meanwhile a single writer makes revision 1 of its own.
  TableDataWriter writer(w.Load(kT), *w.io);
  ASSERT_TRUE(writer.Write(Rows(0, 100)));
  ASSERT_TRUE(AppendFiles(*w.cat, *w.io, kT, writer.Finish().value()));
  const auto keys = w.Keys(kT, "data/");
  auto committed = CommitWrite(*w.cat, *w.io, plan, {r});
  ASSERT_FALSE(committed);
  EXPECT_EQ(committed.error().ToString(),
            "conflict: write to db.t: another write made OTree revision 1 since this one was "
            "planned with a revision of its own; plan it again");
  EXPECT_EQ(w.Keys(kT, "data/").size(), keys.size() - r.files.size());
  EXPECT_EQ(Ids(w, kT).size(), 100u);
}

}  // namespace
}  // namespace floe::iceberg
