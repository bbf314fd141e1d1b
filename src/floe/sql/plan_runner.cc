#include "floe/sql/plan_runner.h"

#include <algorithm>
#include <mutex>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/exec/external_sort.h"
#include "floe/exec/filter.h"
#include "floe/exec/hash_aggregate.h"
#include "floe/exec/sort.h"
#include "floe/exec/spilling_aggregate.h"
#include "floe/exec/table_scan.h"
#include "floe/iceberg/scan.h"
#include "floe/sql/join_runner.h"
#include "floe/sql/set_operation.h"

namespace floe::sql {

namespace {

using columnar::RecordBatch;

// Rows handed to a ResultSink as the scan makes them, with OFFSET and LIMIT applied across
// workers. Thread-safe.
struct Stream {
  const LogicalPlan* plan = nullptr;
  const ResultSink* sink = nullptr;
  std::mutex mu;
  int64_t to_skip = 0;
  int64_t to_take = -1;  // -1: all
  Status status;

  bool Done() {
    std::lock_guard lock(mu);
    return !status || to_take == 0;
  }

  Status Deliver(RecordBatch batch) {
    std::lock_guard lock(mu);
    if (!status || to_take == 0) return {};
    int64_t from = std::min(to_skip, batch.num_rows);
    to_skip -= from;
    int64_t n = batch.num_rows - from;
    if (to_take >= 0) n = std::min(n, to_take);
    if (n <= 0) return {};
    if (from > 0 || n < batch.num_rows) {
      std::vector<int64_t> idx(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) idx[i] = from + i;
      FLOE_ASSIGN_OR_RETURN(batch, columnar::Take(batch, idx));
    }
    if (to_take >= 0) to_take -= n;
    auto schema = std::make_shared<columnar::Schema>();
    for (size_t i = 0; i < plan->names.size() && i < batch.columns.size(); ++i)
      schema->fields.push_back({plan->names[i], batch.columns[i]->type});
    batch.columns.resize(plan->names.size());
    batch.schema = schema;
    status = (*sink)(batch);
    return status;
  }
};

// Per scan worker: WHERE, then either a partial aggregate or the projected rows.
struct WorkerState {
  Stream* stream = nullptr;  // set when rows stream to a sink
  std::unique_ptr<exec::HashAggregate> aggregate;
  // GROUP BY (no grouping sets): the aggregate every worker feeds, spilling past the budget.
  exec::SpillingAggregate* grouped = nullptr;
  int index = 0;  // this worker's
  // ORDER BY without LIMIT: the sort every worker feeds (under `external_mu`).
  exec::ExternalSort* external = nullptr;
  std::mutex* external_mu = nullptr;
  // GROUPING SETS / ROLLUP / CUBE: one aggregate per set, of that set's keys.
  std::vector<std::unique_ptr<exec::HashAggregate>> set_aggregates;
  std::unique_ptr<exec::Sort> sort;
  std::vector<RecordBatch> rows;
  int64_t row_count = 0;
};

std::vector<exec::ExprPtr> ProjectionOf(const LogicalPlan& plan) {
  std::vector<exec::ExprPtr> out = plan.outputs;
  out.insert(out.end(), plan.hidden.begin(), plan.hidden.end());
  return out;
}

std::vector<std::string> NamesOf(const LogicalPlan& plan) {
  std::vector<std::string> names = plan.names;
  for (size_t i = 0; i < plan.hidden.size(); ++i) names.push_back(fmt::format("_order{}", i));
  return names;
}

// The projected batch (outputs + hidden order keys) of rows that reached the projection.
Status ProjectInto(const LogicalPlan& plan, const RecordBatch& in, WorkerState* w) {
  FLOE_ASSIGN_OR_RETURN(RecordBatch out, exec::Project(in, ProjectionOf(plan), NamesOf(plan)));
  if (out.num_rows == 0) return {};
  if (w->stream) return w->stream->Deliver(std::move(out));
  if (w->sort) return w->sort->Consume(out);
  if (w->external) {
    std::lock_guard lock(*w->external_mu);
    return w->external->Consume(out);
  }
  w->row_count += out.num_rows;
  w->rows.push_back(std::move(out));
  return {};
}

Status ConsumeSource(const LogicalPlan& plan, RecordBatch batch, WorkerState* w) {
  if (plan.residual_where) {
    FLOE_ASSIGN_OR_RETURN(batch, exec::Filter(batch, *plan.residual_where));
  }
  if (batch.num_rows == 0) return {};
  if (!plan.aggregate && !plan.windows.empty()) {
    // Window functions need every row: kept as they are, projected after.
    w->row_count += batch.num_rows;
    w->rows.push_back(std::move(batch));
    return {};
  }
  if (w->grouped) return w->grouped->Consume(w->index, batch);
  if (w->aggregate) return w->aggregate->Consume(batch);
  if (!w->set_aggregates.empty()) {
    for (auto& a : w->set_aggregates) FLOE_RETURN_IF_ERROR(a->Consume(batch));
    return {};
  }
  if (w->stream && w->stream->Done()) return {};
  // Without ORDER BY a LIMIT is met as soon as enough rows arrived.
  if (plan.order.empty() && plan.limit >= 0 &&
      w->row_count >= exec::RowsToKeep(plan.limit, plan.offset)) {
    return {};
  }
  return ProjectInto(plan, batch, w);
}

WorkerState NewWorker(const LogicalPlan& plan) {
  WorkerState w;
  if (plan.aggregate && !plan.grouping_sets.empty()) {
    for (const auto& set : plan.grouping_sets) {
      std::vector<exec::ExprPtr> keys;
      std::vector<bool> absent(plan.group_keys.size(), true);
      for (int k : set) {
        keys.push_back(plan.group_keys[static_cast<size_t>(k)]);
        absent[static_cast<size_t>(k)] = false;
      }
      auto a = std::make_unique<exec::HashAggregate>(std::move(keys), plan.aggregates);
      a->SetAbsentKeys(std::move(absent));
      w.set_aggregates.push_back(std::move(a));
    }
  } else if (plan.aggregate) {
    w.aggregate = std::make_unique<exec::HashAggregate>(plan.group_keys, plan.aggregates);
  } else if (!plan.order.empty()) {
    // Each worker keeps its best offset + limit rows; the offset applies once, at the end.
    if (plan.limit >= 0) {
      w.sort =
          std::make_unique<exec::Sort>(plan.order, exec::RowsToKeep(plan.limit, plan.offset), 0);
    }
  }
  return w;
}

// A grouping set's rows laid out as the aggregate output of every key (keys, then aggregates),
// the keys the set leaves out NULL.
RecordBatch ExpandGroupingSet(const LogicalPlan& plan, const std::vector<int>& set,
                              const RecordBatch& part) {
  RecordBatch out;
  out.num_rows = part.num_rows;
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t k = 0; k < plan.group_keys.size(); ++k) {
    const auto at = std::find(set.begin(), set.end(), static_cast<int>(k));
    const columnar::DataType& type = plan.group_keys[k]->type;
    out.columns.push_back(at != set.end() ? part.columns[static_cast<size_t>(at - set.begin())]
                                          : columnar::NullColumn(type, part.num_rows));
    schema->fields.push_back({fmt::format("k{}", k), type});
  }
  for (size_t a = 0; a < plan.aggregates.size(); ++a) {
    out.columns.push_back(part.columns[set.size() + a]);
    schema->fields.push_back({fmt::format("a{}", a), plan.aggregates[a].type});
  }
  out.schema = schema;
  return out;
}

columnar::SchemaPtr OutputSchema(const LogicalPlan& plan, const RecordBatch* sample) {
  auto s = std::make_shared<columnar::Schema>();
  auto names = NamesOf(plan);
  auto exprs = ProjectionOf(plan);
  for (size_t i = 0; i < exprs.size(); ++i) {
    columnar::DataType t =
        sample && i < sample->columns.size() ? sample->columns[i]->type : exprs[i]->type;
    s->fields.push_back({names[i], t});
  }
  return s;
}

// SELECT COUNT(*) [, COUNT(*) ...] FROM t with no WHERE: the manifests' record counts answer it
// without opening a data file. Nothing (nullopt) when the plan is not of that shape or a file has
// deletes.
std::optional<Result<RecordBatch>> CountFromManifests(const LogicalPlan& plan,
                                                      iceberg::Warehouse& wh, ScanMetrics* stats) {
  if (plan.source != LogicalPlan::Source::kTable || !plan.aggregate || plan.where ||
      plan.sample_fraction || !plan.group_keys.empty() || !plan.grouping_sets.empty() ||
      plan.aggregates.empty()) {
    return std::nullopt;
  }
  for (const auto& a : plan.aggregates) {
    if (a.fn != exec::AggFn::kCountStar || a.filter) return std::nullopt;
  }
  iceberg::ScanOptions so;
  so.snapshot_id = plan.snapshot_id;
  so.as_of_timestamp_ms = plan.as_of_timestamp_ms;
  auto scan = iceberg::PlanFiles(plan.table, *wh.io, so);
  if (!scan) return Result<RecordBatch>(std::unexpected(scan.error()));
  int64_t rows = 0;
  for (const auto& t : scan->tasks) {
    if (!t.deletes.empty()) return std::nullopt;
    rows += t.file.record_count;
  }
  RecordBatch out;
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t i = 0; i < plan.aggregates.size(); ++i) {
    exec::ValueColumnBuilder b(columnar::Int64());
    (void)b.Append(exec::Value::Int(rows));
    out.columns.push_back(b.Finish());
    schema->fields.push_back({fmt::format("a{}", i), columnar::Int64()});
  }
  out.schema = schema;
  out.num_rows = 1;
  (void)stats;
  return Result<RecordBatch>(std::move(out));
}

// The window functions' columns after the first window_input_width columns of `rows`, then
// QUALIFY's filter.
Status AddWindows(const LogicalPlan& plan, RecordBatch* rows) {
  if (plan.windows.empty()) return {};
  rows->columns.resize(static_cast<size_t>(plan.window_input_width));
  if (rows->schema && rows->schema->fields.size() > rows->columns.size()) {
    auto schema = std::make_shared<columnar::Schema>(*rows->schema);
    schema->fields.resize(rows->columns.size());
    rows->schema = schema;
  }
  FLOE_RETURN_IF_ERROR(exec::ComputeWindows(plan.windows, rows));
  if (plan.qualify) {
    FLOE_ASSIGN_OR_RETURN(*rows, exec::Filter(*rows, *plan.qualify));
  }
  return {};
}

// The source's batches (before WHERE): a table scan's on its workers, FROM's joined rows, or the
// rows computed while binding.
Status ProduceSource(const LogicalPlan& plan, RunContext& ctx, const ScanPruning* pruning,
                     ScanMetrics* stats, const BatchConsumer& consume) {
  const QueryOptions& options = *ctx.options;
  if (plan.source == LogicalPlan::Source::kTable) {
    exec::TableScanOptions so;
    so.field_ids = plan.scan_field_ids;
    // COUNT(*) alone still needs row counts: read the narrowest possible column.
    if (so.field_ids.empty()) {
      const auto& fields = plan.table.metadata.CurrentSchema().fields();
      for (const auto& f : fields) {
        if (f.type->IsPrimitive()) {
          so.field_ids.push_back(f.id);
          break;
        }
      }
    }
    so.filter = plan.pushed_filter;
    so.files_filter = plan.files_filter;
    if (pruning != nullptr && pruning->filter) {
      so.filter = so.filter ? iceberg::And(so.filter, pruning->filter) : pruning->filter;
    }
    if (pruning != nullptr) {
      so.prune_filter = pruning->prune_filter;
      so.column_tests = pruning->tests;
    }
    so.unused_ids = plan.scan_unused_ids;
    so.snapshot_id = plan.snapshot_id;
    so.as_of_timestamp_ms = plan.as_of_timestamp_ms;
    so.sample_fraction = plan.sample_fraction;
    so.read = &options.read;
    so.threads = options.threads;
    so.on_file_done = options.progress;
    so.cancelled = options.cancelled;
    return exec::ScanTable(plan.table, *ctx.wh->io, so, consume, stats);
  }
  if (plan.source == LogicalPlan::Source::kJoin) return RunJoin(plan, ctx, stats, consume);
  if (plan.source == LogicalPlan::Source::kSetOperation) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch rows, RunSetOperation(plan, ctx, stats));
    return consume(0, std::move(rows));
  }
  RecordBatch source;
  if (plan.source == LogicalPlan::Source::kMetadataTable) {
    source = plan.metadata_rows;
  } else {
    source.schema = std::make_shared<columnar::Schema>();
    source.num_rows = 1;
  }
  return consume(0, std::move(source));
}

Result<QueryResult> RunPlanIn(const LogicalPlan& plan, RunContext& ctx, const ResultSink* sink) {
  QueryResult result;
  std::vector<WorkerState> workers;
  std::optional<RecordBatch> counted;
  if (auto c = CountFromManifests(plan, *ctx.wh, &result.stats)) {
    FLOE_ASSIGN_OR_RETURN(counted, std::move(*c));
  }
  // Without an aggregate or ORDER BY, rows go to the sink as they come.
  Stream stream;
  const bool streaming =
      sink != nullptr && !plan.aggregate && plan.order.empty() && plan.windows.empty();
  if (streaming) {
    stream.plan = &plan;
    stream.sink = sink;
    stream.to_skip = plan.offset;
    stream.to_take = plan.limit;
  }
  // ORDER BY without LIMIT sorts every row: on disk past the memory budget. Rows without an
  // aggregate or window go to it as the workers project them.
  std::unique_ptr<exec::ExternalSort> external;
  std::mutex external_mu;
  if (!plan.order.empty() && plan.limit < 0) {
    external = std::make_unique<exec::ExternalSort>(plan.order, plan.offset, ctx.budget, ctx.spill);
  }
  std::unique_ptr<exec::SpillingAggregate> grouped_aggregate;
  auto new_worker = [&](int index) {
    WorkerState w = NewWorker(plan);
    if (streaming) w.stream = &stream;
    if (w.aggregate && grouped_aggregate) {
      w.aggregate.reset();
      w.grouped = grouped_aggregate.get();
      w.index = index;
    }
    if (external && !plan.aggregate && plan.windows.empty()) {
      w.external = external.get();
      w.external_mu = &external_mu;
    }
    return w;
  };
  if (counted) {
    workers.push_back(new_worker(0));
  } else {
    const bool parallel =
        plan.source == LogicalPlan::Source::kTable || plan.source == LogicalPlan::Source::kJoin;
    const int nworkers = parallel ? SourceWorkers(ctx) : 1;
    if (plan.aggregate && plan.grouping_sets.empty()) {
      grouped_aggregate = std::make_unique<exec::SpillingAggregate>(
          plan.group_keys, plan.aggregates, nworkers, ctx.budget, ctx.spill);
    }
    for (int i = 0; i < nworkers; ++i) workers.push_back(new_worker(i));
    FLOE_RETURN_IF_ERROR(ProduceSource(
        plan, ctx, nullptr, &result.stats,
        [&](int w, RecordBatch b) { return ConsumeSource(plan, std::move(b), &workers[w]); }));
  }

  // Merge the workers.
  std::vector<RecordBatch> projected;
  std::unique_ptr<exec::Sort> sort;
  if (!plan.order.empty() && !external) {
    sort = std::make_unique<exec::Sort>(plan.order, plan.limit, plan.offset);
  }
  if (plan.aggregate) {
    RecordBatch grouped;
    if (counted) {
      grouped = std::move(*counted);
    } else if (!plan.grouping_sets.empty()) {
      std::vector<RecordBatch> sets;
      for (size_t s = 0; s < plan.grouping_sets.size(); ++s) {
        exec::HashAggregate& total = *workers[0].set_aggregates[s];
        for (size_t i = 1; i < workers.size(); ++i) {
          FLOE_RETURN_IF_ERROR(total.Merge(std::move(*workers[i].set_aggregates[s])));
        }
        FLOE_ASSIGN_OR_RETURN(RecordBatch part, total.Finish());
        sets.push_back(ExpandGroupingSet(plan, plan.grouping_sets[s], part));
      }
      FLOE_ASSIGN_OR_RETURN(grouped, columnar::Concatenate(sets));
    } else if (grouped_aggregate) {
      FLOE_ASSIGN_OR_RETURN(grouped, grouped_aggregate->Finish());
      grouped_aggregate.reset();
    } else {
      exec::HashAggregate& total = *workers[0].aggregate;
      for (size_t i = 1; i < workers.size(); ++i) {
        FLOE_RETURN_IF_ERROR(total.Merge(std::move(*workers[i].aggregate)));
      }
      FLOE_ASSIGN_OR_RETURN(grouped, total.Finish());
    }
    if (plan.having) {
      FLOE_ASSIGN_OR_RETURN(grouped, exec::Filter(grouped, *plan.having));
    }
    FLOE_RETURN_IF_ERROR(AddWindows(plan, &grouped));
    FLOE_ASSIGN_OR_RETURN(RecordBatch out,
                          exec::Project(grouped, ProjectionOf(plan), NamesOf(plan)));
    projected.push_back(std::move(out));
  } else if (!plan.windows.empty()) {
    std::vector<RecordBatch> rows;
    for (auto& w : workers) {
      for (auto& b : w.rows) rows.push_back(std::move(b));
    }
    if (!rows.empty()) {
      FLOE_ASSIGN_OR_RETURN(RecordBatch all, columnar::Concatenate(rows));
      FLOE_RETURN_IF_ERROR(AddWindows(plan, &all));
      FLOE_ASSIGN_OR_RETURN(RecordBatch out, exec::Project(all, ProjectionOf(plan), NamesOf(plan)));
      projected.push_back(std::move(out));
    }
  } else {
    for (auto& w : workers) {
      if (w.sort) {
        FLOE_ASSIGN_OR_RETURN(RecordBatch part, w.sort->Finish(OutputSchema(plan, nullptr)));
        projected.push_back(std::move(part));
      } else {
        for (auto& b : w.rows) projected.push_back(std::move(b));
      }
    }
  }
  RecordBatch final_batch;
  const RecordBatch* sample = nullptr;
  for (const auto& b : projected) {
    if (b.num_rows > 0) {
      sample = &b;
      break;
    }
  }
  columnar::SchemaPtr schema = OutputSchema(plan, sample);
  // The outputs of a batch of projected rows (the hidden ORDER BY columns dropped), named.
  auto named = [&](const RecordBatch& b) {
    auto out_schema = std::make_shared<columnar::Schema>();
    RecordBatch out;
    out.num_rows = b.num_rows;
    for (size_t i = 0; i < plan.outputs.size(); ++i) {
      out.columns.push_back(b.columns[i]);
      out_schema->fields.push_back({plan.names[i], b.columns[i]->type});
    }
    out.schema = out_schema;
    return out;
  };
  if (external) {
    for (const auto& b : projected) FLOE_RETURN_IF_ERROR(external->Consume(b));
    projected.clear();
    if (sink != nullptr && !streaming && external->spilled()) {
      // Sorted from disk: the rows go out as they are merged, never all in memory.
      bool first = true;
      FLOE_RETURN_IF_ERROR(external->Finish(schema, [&](const RecordBatch& b) -> Status {
        RecordBatch out = named(b);
        if (first) result.schema = out.schema;
        first = false;
        if (out.num_rows > 0) return (*sink)(out);
        return {};
      }));
      return result;
    }
    std::vector<RecordBatch> parts;
    FLOE_RETURN_IF_ERROR(external->Finish(schema, [&](RecordBatch b) -> Status {
      parts.push_back(std::move(b));
      return {};
    }));
    FLOE_ASSIGN_OR_RETURN(final_batch, columnar::Concatenate(parts));
  } else if (sort) {
    for (const auto& b : projected) {
      FLOE_RETURN_IF_ERROR(sort->Consume(b));
    }
    FLOE_ASSIGN_OR_RETURN(final_batch, sort->Finish(schema));
  } else {
    std::vector<RecordBatch> nonempty;
    for (auto& b : projected) {
      if (b.num_rows > 0) nonempty.push_back(std::move(b));
    }
    if (nonempty.empty()) {
      exec::Sort empty({}, -1, 0);
      FLOE_ASSIGN_OR_RETURN(final_batch, empty.Finish(schema));
    } else {
      FLOE_ASSIGN_OR_RETURN(final_batch, columnar::Concatenate(nonempty));
    }
    int64_t from = std::min(plan.offset, final_batch.num_rows);
    int64_t to = plan.limit >= 0 ? from + std::min(final_batch.num_rows - from, plan.limit)
                                 : final_batch.num_rows;
    if (from > 0 || to < final_batch.num_rows) {
      std::vector<int64_t> idx;
      for (int64_t r = from; r < to; ++r) idx.push_back(r);
      FLOE_ASSIGN_OR_RETURN(final_batch, columnar::Take(final_batch, idx));
    }
  }
  // Drop the hidden ORDER BY columns and name the outputs.
  if (streaming) {
    FLOE_RETURN_IF_ERROR(stream.status);
    auto names = std::make_shared<columnar::Schema>();
    for (size_t i = 0; i < plan.outputs.size(); ++i)
      names->fields.push_back({plan.names[i], plan.outputs[i]->type});
    result.schema = names;
    return result;
  }
  RecordBatch out = named(final_batch);
  result.schema = out.schema;
  if (sink != nullptr) {
    if (out.num_rows > 0) FLOE_RETURN_IF_ERROR((*sink)(out));
  } else {
    result.batches.push_back(std::move(out));
  }
  return result;
}

}  // namespace

int SourceWorkers(const RunContext& ctx) {
  exec::TableScanOptions so;
  so.threads = ctx.options->threads;
  return exec::ScanWorkers(so);
}

bool Streamable(const LogicalPlan& plan) {
  return !plan.aggregate && plan.windows.empty() && plan.order.empty() && plan.limit < 0 &&
         plan.offset == 0;
}

Status StreamPlan(const LogicalPlan& plan, RunContext& ctx, const ScanPruning* pruning,
                  ScanMetrics* stats, const BatchConsumer& consume) {
  if (!Streamable(plan)) return Internal("StreamPlan of a plan that does not stream");
  return ProduceSource(plan, ctx, pruning, stats, [&](int w, RecordBatch b) -> Status {
    if (plan.residual_where) {
      FLOE_ASSIGN_OR_RETURN(b, exec::Filter(b, *plan.residual_where));
    }
    if (b.num_rows == 0) return {};
    FLOE_ASSIGN_OR_RETURN(RecordBatch out, exec::Project(b, plan.outputs, plan.names));
    return consume(w, std::move(out));
  });
}

Result<RecordBatch> MaterializePlan(const LogicalPlan& plan, RunContext& ctx, ScanMetrics* stats) {
  FLOE_ASSIGN_OR_RETURN(QueryResult r, RunPlanIn(plan, ctx, nullptr));
  stats->Add(r.stats);
  if (r.batches.size() == 1) return std::move(r.batches[0]);
  return Internal("a subquery's plan gave {} batches, not one", r.batches.size());
}

Result<QueryResult> RunPlan(const LogicalPlan& plan, iceberg::Warehouse& wh,
                            const QueryOptions& options) {
  RunContext ctx;
  ctx.wh = &wh;
  ctx.options = &options;
  exec::MemoryBudget budget(options.memory_limit > 0 ? options.memory_limit
                                                     : exec::PhysicalMemoryShare(80));
  // Removed, with whatever was spilled, when the statement ends (an error included).
  exec::SpillDirectory spill(options.temp_directory);
  ctx.budget = &budget;
  ctx.spill = &spill;
  auto r = RunPlanIn(plan, ctx, options.sink ? &options.sink : nullptr);
  if (r) {
    r->stats.spilled_bytes += spill.bytes_written;
    r->stats.spill_partitions += spill.files;
  }
  return r;
}

}  // namespace floe::sql
