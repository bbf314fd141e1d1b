#include "floe/iceberg/table_reader.h"

#include <algorithm>

#include "floe/columnar/take.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/evaluator.h"
#include "floe/parquet/read_parquet_file.h"

namespace floe::iceberg {
namespace {

// Evaluates a bound filter on one row (SQL semantics: unknown is false).
Result<bool> RowMatches(const ExprPtr& e, const columnar::RecordBatch& b, int64_t row,
                        const Schema& schema) {
  switch (e->op) {
    case Op::kTrue:
      return true;
    case Op::kFalse:
      return false;
    case Op::kAnd: {
      FLOE_ASSIGN_OR_RETURN(bool l, RowMatches(e->children[0], b, row, schema));
      if (!l) return false;
      return RowMatches(e->children[1], b, row, schema);
    }
    case Op::kOr: {
      FLOE_ASSIGN_OR_RETURN(bool l, RowMatches(e->children[0], b, row, schema));
      if (l) return true;
      return RowMatches(e->children[1], b, row, schema);
    }
    case Op::kNot: {
      FLOE_ASSIGN_OR_RETURN(bool v, RowMatches(e->children[0], b, row, schema));
      return !v;
    }
    default:
      break;
  }
  for (int c = 0; c < b.num_columns(); ++c) {
    if (b.schema->fields[c].field_id == e->field_id) {
      FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(*b.columns[c], row, *e->type));
      return EvalPredicate(*e, v);
    }
  }
  return Unsupported("filtering on nested column '{}'", e->column);
}

}  // namespace

Result<columnar::RecordBatch> FilterRows(const columnar::RecordBatch& batch, const ExprPtr& filter,
                                         const Schema& schema) {
  if (!filter || filter->op == Op::kTrue) return batch;
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    FLOE_ASSIGN_OR_RETURN(bool m, RowMatches(filter, batch, r, schema));
    if (m) keep.push_back(r);
  }
  if (static_cast<int64_t>(keep.size()) == batch.num_rows) return batch;
  return columnar::Take(batch, keep);
}

Result<std::vector<columnar::RecordBatch>> ReadTask(const FileScanTask& task, const Schema& schema,
                                                    const FileIO& io, TaskReadStats* stats) {
  if (!task.deletes.empty()) {
    return Unsupported(
        "data file '{}' has {} delete files; applying deletes (merge-on-read) is not built yet",
        task.file.file_path, task.deletes.size());
  }
  if (task.file.file_format != "PARQUET" && task.file.file_format != "parquet") {
    return Unsupported("data file '{}' is {}; floe reads Parquet", task.file.file_path,
                       task.file.file_format);
  }
  FLOE_ASSIGN_OR_RETURN(std::string key, io.KeyOf(task.file.file_path));
  auto contents = parquet::ReadParquetFile(*io.store(), key,
                                           static_cast<uint64_t>(task.file.file_size_in_bytes));
  if (!contents) {
    Error e = contents.error();
    if (e.message.find(task.file.file_path) == std::string::npos &&
        e.message.find(key) == std::string::npos) {
      e.message = "reading '" + task.file.file_path + "': " + e.message;
    }
    return std::unexpected(e);
  }
  if (stats) {
    stats->requests += contents->stats.requests;
    stats->bytes_fetched += contents->stats.bytes_fetched;
  }
  std::vector<columnar::RecordBatch> out;
  for (const auto& b : contents->batches) {
    // Files written without field ids (registered from other tools) are matched by name.
    bool has_ids = std::any_of(b.schema->fields.begin(), b.schema->fields.end(),
                               [](const columnar::Field& f) { return f.field_id >= 0; });
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch conformed,
                          ConformToSchema(b, schema, /*by_field_id=*/has_ids));
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch filtered,
                          FilterRows(conformed, task.residual, schema));
    if (filtered.num_rows > 0) out.push_back(std::move(filtered));
  }
  return out;
}

}  // namespace floe::iceberg
