// floe_bench_planning: scan planning of a point predicate on a table of many data files, for
// bench/planning/run.py, which times pyiceberg planning the same table in the same run.
//
//   floe_bench_planning --warehouse DIR --create [--files 10000] [--manifests 100]
// makes table bench.planning (id long, ts timestamptz, customer long, amount double, category
// string): `manifests` appends of files/manifests files each, file i holding ids
// [i * 1000, i * 1000 + 999], so `id = X` matches exactly one file by its bounds. Data files are
// listed, not written: planning never opens them.
//
//   floe_bench_planning --warehouse DIR --plan --id X [--repeat N]
// loads the table and plans `id = X` N times in this process; prints one JSON line with each
// round's milliseconds (load + plan) and the plan's counts.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/base/clock.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/warehouse.h"

namespace {

using namespace floe;
using namespace floe::iceberg;

constexpr int64_t kIdsPerFile = 1000;
constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int Fail(const Error& e) {
  std::fprintf(stderr, "floe_bench_planning: %s\n", e.ToString().c_str());
  return 1;
}

DataFile FileFor(int64_t i) {
  DataFile f;
  f.file_path = fmt::format("file:///bench-planning/data/{:05d}.parquet", i);
  f.record_count = kIdsPerFile;
  f.file_size_in_bytes = 600 * 1024;
  const int64_t lo = i * kIdsPerFile, hi = lo + kIdsPerFile - 1;
  const int64_t day = 19723 + i % 9;
  const std::vector<std::pair<int32_t, std::pair<Literal, Literal>>> bounds = {
      {1, {Literal::Long(lo), Literal::Long(hi)}},
      {2,
       {Literal::TimestampTz(day * kMicrosPerDay),
        Literal::TimestampTz((day + 1) * kMicrosPerDay - 1)}},
      {3, {Literal::Long(0), Literal::Long(499)}},
      {4, {Literal::Double(0.5), Literal::Double(999.5)}},
      {5, {Literal::String("books"), Literal::String("toys")}}};
  for (const auto& [id, b] : bounds) {
    f.column_sizes[id] = 100 * 1024;
    f.value_counts[id] = kIdsPerFile;
    f.null_value_counts[id] = 0;
    f.lower_bounds[id] = SerializeBound(b.first);
    f.upper_bounds[id] = SerializeBound(b.second);
  }
  f.split_offsets = {4};
  return f;
}

int Create(Warehouse& w, const catalog::TableIdentifier& id, int files, int manifests) {
  Schema schema(0, {NestedField{1, "id", true, Primitive(TypeId::kLong)},
                    NestedField{2, "ts", true, Primitive(TypeId::kTimestampTz)},
                    NestedField{3, "customer", true, Primitive(TypeId::kLong)},
                    NestedField{4, "amount", false, Primitive(TypeId::kDouble)},
                    NestedField{5, "category", false, Primitive(TypeId::kString)}});
  CreateTableOptions o{schema, PartitionSpec(), SortOrder(), {}, ""};
  o.properties["commit.manifest-merge.enabled"] = "false";
  if (auto t = CreateTable(*w.catalog, *w.io, id, o); !t) return Fail(t.error());
  const int per = files / manifests;
  for (int m = 0; m < manifests; ++m) {
    std::vector<DataFile> batch;
    for (int i = 0; i < per; ++i) batch.push_back(FileFor(static_cast<int64_t>(m) * per + i));
    if (auto t = AppendFiles(*w.catalog, *w.io, id, std::move(batch)); !t) return Fail(t.error());
  }
  std::printf("{\"files\": %d, \"manifests\": %d}\n", per * manifests, manifests);
  return 0;
}

int Plan(Warehouse& w, const catalog::TableIdentifier& id, int64_t x, int repeat) {
  std::vector<double> ms;
  ScanStats stats;
  size_t tasks = 0;
  for (int r = 0; r < repeat; ++r) {
    Stopwatch sw;
    auto table = LoadTable(*w.catalog, *w.io, id);
    if (!table) return Fail(table.error());
    ScanOptions o;
    o.filter = Predicate(Op::kEq, "id", {Literal::Long(x)});
    auto plan = PlanFiles(*table, *w.io, o);
    if (!plan) return Fail(plan.error());
    ms.push_back(sw.ElapsedMs());
    stats = plan->stats;
    tasks = plan->tasks.size();
  }
  std::string list;
  for (double v : ms) list += fmt::format("{}{:.3f}", list.empty() ? "" : ", ", v);
  std::printf(
      "{\"ms\": [%s], \"tasks\": %zu, \"manifests_total\": %lld, \"manifests_skipped\": %lld, "
      "\"data_files_total\": %lld}\n",
      list.c_str(), tasks, static_cast<long long>(stats.manifests_total),
      static_cast<long long>(stats.manifests_skipped),
      static_cast<long long>(stats.data_files_total));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"floe scan-planning benchmark (see bench/planning/run.py)"};
  std::string warehouse;
  bool create = false, plan = false;
  int files = 10000, manifests = 100, repeat = 1;
  int64_t x = 0;
  app.add_option("--warehouse", warehouse, "warehouse directory")->required();
  app.add_flag("--create", create, "create the table");
  app.add_flag("--plan", plan, "plan id = X");
  app.add_option("--files", files, "data files");
  app.add_option("--manifests", manifests, "manifests (one append each)");
  app.add_option("--id", x, "the id looked up");
  app.add_option("--repeat", repeat, "plans in this process");
  CLI11_PARSE(app, argc, argv);
  WarehouseOptions wo;
  wo.uri = warehouse;
  auto w = OpenWarehouse(wo);
  if (!w) return Fail(w.error());
  auto id = catalog::TableIdentifier::Parse("bench.planning").value();
  if (create) return Create(*w, id, files, std::max(manifests, 1));
  if (plan) return Plan(*w, id, x, std::max(repeat, 1));
  std::fprintf(stderr, "floe_bench_planning: invalid input: give --create or --plan\n");
  return 2;
}
