#include "floe/exec/table_scan.h"

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "floe/base/thread_pool.h"
#include "floe/exec/residual.h"
#include "floe/exec/value.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/layout/otree.h"

namespace floe::exec {
namespace {

// The table schema restricted to `field_ids` (top-level fields), in that order.
Result<iceberg::Schema> ProjectSchema(const iceberg::Schema& schema,
                                      const std::vector<int32_t>& field_ids) {
  std::vector<iceberg::NestedField> fields;
  for (int32_t id : field_ids) {
    const iceberg::NestedField* f = nullptr;
    for (const auto& top : schema.fields()) {
      if (top.id == id) f = &top;
    }
    if (f == nullptr) return Internal("field id {} is not a top-level column", id);
    fields.push_back(*f);
  }
  return iceberg::Schema(schema.schema_id(), std::move(fields));
}

// Picks the projected columns out of a batch conformed to the full table schema; those not
// `read` come out as NULLs.
Result<columnar::RecordBatch> Select(const columnar::RecordBatch& b,
                                     const std::vector<int32_t>& field_ids,
                                     const std::vector<bool>& read,
                                     const columnar::SchemaPtr& out_schema) {
  columnar::RecordBatch out;
  out.schema = out_schema;
  out.num_rows = b.num_rows;
  for (size_t i = 0; i < field_ids.size(); ++i) {
    const int32_t id = field_ids[i];
    bool found = false;
    if (!read[i]) {
      out.columns.push_back(columnar::NullColumn(out_schema->fields[i].type, b.num_rows));
      continue;
    }
    for (int c = 0; c < b.num_columns(); ++c) {
      if (b.schema->fields[c].field_id == id) {
        FLOE_ASSIGN_OR_RETURN(ColumnPtr col, NormalizeColumn(b.columns[c]));
        out.columns.push_back(std::move(col));
        found = true;
        break;
      }
    }
    if (!found) return Internal("field id {} missing from a read batch", id);
  }
  return out;
}

}  // namespace

int ScanWorkers(const TableScanOptions& options) {
  int n = options.threads > 0 ? options.threads : static_cast<int>(Cores());
  return std::max(1, n);
}

Status ScanTable(const iceberg::Table& table, const iceberg::FileIO& io,
                 const TableScanOptions& options, const ScanConsumer& consume, ScanMetrics* stats) {
  iceberg::ScanOptions scan;
  scan.filter = options.filter;
  scan.files_filter = options.files_filter;
  scan.prune_filter = options.prune_filter;
  scan.snapshot_id = options.snapshot_id;
  scan.as_of_timestamp_ms = options.as_of_timestamp_ms;
  scan.sample_fraction = options.sample_fraction;
  scan.only_files = options.only_files;
  FLOE_ASSIGN_OR_RETURN(iceberg::ScanPlan plan, iceberg::PlanFiles(table, io, scan));
  stats->data_files_planned += static_cast<int64_t>(plan.tasks.size());
  stats->data_files_skipped_partition += plan.stats.files_skipped_partition;
  // Files in manifests that partition summaries pruned were skipped by partition too; the
  // snapshot summary knows how many live files the snapshot has.
  if (plan.snapshot && plan.stats.manifests_skipped > 0) {
    auto it = plan.snapshot->summary.find("total-data-files");
    if (it != plan.snapshot->summary.end()) {
      int64_t total = std::strtoll(it->second.c_str(), nullptr, 10);
      stats->data_files_skipped_partition +=
          std::max<int64_t>(0, total - plan.stats.data_files_total);
    }
  }
  stats->data_files_skipped_bounds += plan.stats.files_skipped_bounds;
  stats->data_files_skipped_index += plan.stats.files_skipped_index;
  stats->data_files_skipped_sample += plan.stats.files_skipped_sample;

  const iceberg::Schema& schema = table.metadata.CurrentSchema();
  // The projection may name metadata columns (_file, _pos, ...) besides the schema's own.
  const iceberg::Schema readable = iceberg::WithMetadataColumns(schema);
  FLOE_ASSIGN_OR_RETURN(iceberg::Schema wanted, ProjectSchema(readable, options.field_ids));
  auto out_schema = std::make_shared<columnar::Schema>();
  for (const auto& f : wanted.fields()) {
    FLOE_ASSIGN_OR_RETURN(columnar::DataType t, iceberg::ToColumnarType(*f.type));
    out_schema->fields.push_back({f.name, NormalizedType(t), !f.required, f.id});
  }
  // What the reader produces: the wanted columns but the unused ones (flat ones only: a NULL
  // nested column is not worth the special case).
  std::vector<int32_t> read_ids;
  std::vector<bool> is_read(options.field_ids.size(), true);
  for (size_t i = 0; i < options.field_ids.size(); ++i) {
    const int32_t id = options.field_ids[i];
    const bool unused = std::find(options.unused_ids.begin(), options.unused_ids.end(), id) !=
                        options.unused_ids.end();
    if (unused && !out_schema->fields[i].type.IsNested()) {
      is_read[i] = false;
    } else {
      read_ids.push_back(id);
    }
  }
  // An OTree sample keeps the rows whose weight -- a hash of the indexed columns, as the writer
  // computed it -- is below the sample's threshold: those columns are read too.
  std::vector<int32_t> weight_ids;
  if (plan.weight_sample) {
    for (const std::string& name : plan.weight_sample->columns) {
      const iceberg::NestedField* f = schema.FindByName(name);
      if (f == nullptr) return NotFound("OTree column '{}' is not in the table's schema", name);
      weight_ids.push_back(f->id);
      if (std::find(read_ids.begin(), read_ids.end(), f->id) == read_ids.end())
        read_ids.push_back(f->id);
    }
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::Schema projected, ProjectSchema(readable, read_ids));
  auto sampled = [&](const columnar::RecordBatch& b) -> Result<columnar::RecordBatch> {
    std::vector<const columnar::Column*> keys;
    for (int32_t id : weight_ids) {
      for (int c = 0; c < b.num_columns(); ++c) {
        if (b.schema->fields[c].field_id == id) keys.push_back(b.columns[c].get());
      }
    }
    if (keys.size() != weight_ids.size())
      return Internal("a sampled batch lacks its OTree columns");
    std::vector<int64_t> all(static_cast<size_t>(b.num_rows));
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    const std::vector<uint32_t> weights = layout::RowWeights(keys, all);
    std::vector<int64_t> keep;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (weights[i] < plan.weight_sample->threshold) keep.push_back(static_cast<int64_t>(i));
    }
    if (keep.size() == all.size()) return b;
    return columnar::Take(b, keep);
  };

  // The reader decodes on its own threads and hands batches over one at a time; `workers`
  // consumers take them from a short queue so filtering and aggregation use every core.
  const int workers = ScanWorkers(options);
  std::mutex mu;
  std::condition_variable cv;
  std::deque<columnar::RecordBatch> queue;
  bool done = false;
  Status first_error;
  std::atomic<bool> failed{false};
  constexpr size_t kQueueDepth = 8;
  auto consumer = [&](int w) {
    for (;;) {
      columnar::RecordBatch b;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return !queue.empty() || done; });
        if (queue.empty()) return;
        b = std::move(queue.front());
        queue.pop_front();
      }
      cv.notify_all();
      if (failed.load()) continue;
      Status st = consume(w, std::move(b));
      if (!st) {
        std::lock_guard lock(mu);
        if (!failed.exchange(true)) first_error = st;
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (int w = 0; w < workers; ++w) threads.emplace_back(consumer, w);

  static const iceberg::ScanReadOptions kDefaults;
  iceberg::ScanHooks hooks;
  hooks.evaluate_residual = ResidualMatcher();
  hooks.on_file_done = options.on_file_done;
  hooks.cancelled = options.cancelled;
  hooks.table_schema = &schema;
  hooks.column_tests = options.column_tests;
  Status read = iceberg::ReadScan(
      plan.tasks, projected, io, options.read != nullptr ? *options.read : kDefaults, hooks,
      [&](const columnar::RecordBatch& b) -> Status {
        if (failed.load()) return Internal("scan consumer failed");
        columnar::RecordBatch kept;
        if (plan.weight_sample) {
          FLOE_ASSIGN_OR_RETURN(kept, sampled(b));
        }
        FLOE_ASSIGN_OR_RETURN(
            columnar::RecordBatch sel,
            Select(plan.weight_sample ? kept : b, options.field_ids, is_read, out_schema));
        stats->rows += sel.num_rows;
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return queue.size() < kQueueDepth || failed.load(); });
        queue.push_back(std::move(sel));
        lock.unlock();
        cv.notify_all();
        return {};
      },
      stats);
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  if (!first_error) return first_error;
  if (!read) return read;
  return first_error;
}

}  // namespace floe::exec
