#include "floe/iceberg/in_place_rewrite.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "floe/base/clock.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/metrics.h"
#include "floe/iceberg/row_order.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/parquet/copied_chunk.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/writer.h"

namespace floe::iceberg {

namespace c = columnar;

namespace {

// Whether rows of `a` and `b` (same type and length) hold the same values, nulls included.
// Nested columns count as different: they are encoded anew.
bool SameValues(const c::Column& a, const c::Column& b) {
  if (!(a.type == b.type) || a.length != b.length || a.type.IsNested()) return false;
  const int width = a.type.FixedWidth();
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsNull(i) != b.IsNull(i)) return false;
    if (a.IsNull(i)) continue;
    if (a.type.id == c::TypeId::kBool) {
      if (a.BoolAt(i) != b.BoolAt(i)) return false;
    } else if (width > 0) {
      const auto w = static_cast<size_t>(width);
      if (std::memcmp(a.values.data() + static_cast<size_t>(i) * w,
                      b.values.data() + static_cast<size_t>(i) * w, w) != 0) {
        return false;
      }
    } else if (a.BytesAt(i) != b.BytesAt(i)) {
      return false;
    }
  }
  return true;
}

// The columns of `held` decoded from a whole file's `bytes` (its footer `md`), in batches each
// followed by `_pos`, as a scan's rows come.
Result<std::vector<c::RecordBatch>> DecodeColumns(const std::string& path, const Buffer& bytes,
                                                  const parquet::FileMetaData& md,
                                                  const Schema& held) {
  FLOE_ASSIGN_OR_RETURN(parquet::FileReader reader,
                        parquet::FileReader::Make(path, bytes.size(), md));
  parquet::ReadOptions options;
  for (const NestedField& f : held.fields()) options.field_ids.push_back(f.id);
  FLOE_ASSIGN_OR_RETURN(parquet::ReadPlan plan, reader.Plan(options));
  parquet::FetchedBytes fetched;
  fetched.Add(0, bytes);
  FLOE_ASSIGN_OR_RETURN(std::vector<c::RecordBatch> batches,
                        reader.ReadAll(std::move(plan), std::move(fetched)));
  std::vector<c::RecordBatch> out;
  int64_t next = 0;
  for (c::RecordBatch& b : batches) {
    if (b.num_rows == 0) continue;
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed, ConformToSchema(b, held, true));
    c::FixedWidthBuilder<int64_t> pos(c::Int64());
    for (int64_t r = 0; r < b.num_rows; ++r) pos.Append(next++);
    auto schema = std::make_shared<c::Schema>(*conformed.schema);
    schema->fields.push_back({"_pos", c::Int64(), false});
    conformed.schema = std::move(schema);
    conformed.columns.push_back(pos.Finish());
    out.push_back(std::move(conformed));
  }
  return out;
}

}  // namespace

Result<c::ColumnPtr> WithReplacements(const c::ColumnPtr& column, const c::Column& row_positions,
                                      const std::vector<int64_t>& positions,
                                      const c::ColumnPtr& replacement) {
  const int64_t n = column->length;
  std::vector<int64_t> take(static_cast<size_t>(n));
  bool any = false;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t p = row_positions.Value<int64_t>(r);
    auto it = std::lower_bound(positions.begin(), positions.end(), p);
    const bool replaced = it != positions.end() && *it == p;
    take[static_cast<size_t>(r)] = replaced ? n + (it - positions.begin()) : r;
    any = any || replaced;
  }
  if (!any) return column;
  auto one = std::make_shared<c::Schema>();
  one->fields = {{"v", column->type, true}};
  FLOE_ASSIGN_OR_RETURN(
      c::RecordBatch both,
      c::Concatenate({{one, {column}, n}, {one, {replacement}, replacement->length}}));
  return c::Take(*both.columns[0], take);
}

Result<std::optional<DataFile>> RewriteInPlace(const Table& table, const FileIO& io,
                                               const FileScanTask& task,
                                               const InPlaceChange& change,
                                               const std::string& location, ScanMetrics* metrics) {
  const TableMetadata& m = table.metadata;
  const Schema& schema = m.CurrentSchema();
  const DataFile& old = task.file;
  if (m.format_version >= 3 || !task.deletes.empty() || old.spec_id != m.DefaultSpec().spec_id() ||
      m.properties.contains(std::string(kLayoutProperty)) || change.positions.empty() ||
      static_cast<int64_t>(change.positions.size()) != change.replacements.num_rows) {
    return std::nullopt;
  }

  // The columns the change holds: every one, or those of `change.columns`.
  std::optional<Schema> partial;
  if (!change.columns.empty()) {
    std::vector<NestedField> fields;
    for (const NestedField& f : schema.fields()) {
      if (std::find(change.columns.begin(), change.columns.end(), f.id) != change.columns.end()) {
        fields.push_back(f);
      }
    }
    if (fields.size() != change.columns.size()) return std::nullopt;
    partial.emplace(schema.schema_id(), std::move(fields));
  }
  const Schema& held = partial ? *partial : schema;
  FLOE_ASSIGN_OR_RETURN(c::Schema table_columns, ToColumnarSchema(schema));
  const auto columnar_schema = std::make_shared<const c::Schema>(std::move(table_columns));
  const size_t num_columns = columnar_schema->fields.size();

  // The old file, whose unchanged chunks are copied.
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.Read(old.file_path));
  FLOE_ASSIGN_OR_RETURN(parquet::FooterTail tail,
                        parquet::ParseFooter(old.file_path, bytes.size(), bytes.view()));
  if (!tail.metadata) return std::nullopt;
  const parquet::FileMetaData& md = *tail.metadata;
  FLOE_ASSIGN_OR_RETURN(parquet::WriterOptions options, ParquetOptionsFor(m));
  options.pool = &io.runtime().decode_pool();
  parquet::MemorySink sink;
  sink.Reserve(static_cast<int64_t>(bytes.size()) + (int64_t{64} << 10));
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(columnar_schema, &sink, options));
  // The file must be what this schema writes, leaf for leaf, for its chunks to be reused.
  if (writer->write_schema().elements != md.schema) return std::nullopt;

  // The file's rows in position order, conformed as a write takes them: those the statement
  // read, or the held columns decoded from the file. A scan may decode a file's parts on several
  // threads: its batches come in any order, each a run of positions.
  std::vector<c::RecordBatch> decoded;
  if (change.rows.empty()) {
    FLOE_ASSIGN_OR_RETURN(decoded, DecodeColumns(old.file_path, bytes, md, held));
    if (metrics != nullptr) ++metrics->data_files_opened;
  }
  const std::vector<c::RecordBatch>& given = change.rows.empty() ? decoded : change.rows;
  std::vector<const c::RecordBatch*> in_order;
  for (const c::RecordBatch& b : given) {
    if (b.num_rows > 0) in_order.push_back(&b);
  }
  std::sort(in_order.begin(), in_order.end(), [](const c::RecordBatch* a, const c::RecordBatch* b) {
    return a->columns.back()->Value<int64_t>(0) < b->columns.back()->Value<int64_t>(0);
  });
  std::vector<c::RecordBatch> rows;
  int64_t next = 0;
  for (const c::RecordBatch* batch : in_order) {
    const c::RecordBatch& b = *batch;
    const c::Column& pos = *b.columns.back();
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (pos.Value<int64_t>(r) != next++) return std::nullopt;
    }
    c::RecordBatch data = b;
    data.columns.pop_back();
    auto s = std::make_shared<c::Schema>(*b.schema);
    s->fields.pop_back();
    data.schema = std::move(s);
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed, ConformToSchema(data, held));
    rows.push_back(std::move(conformed));
  }
  if (rows.empty() || next != old.record_count) return std::nullopt;
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch replacements, ConformToSchema(change.replacements, held));
  const int64_t num_rows = next;
  // Column `i` of the held ones is the table's column at_[i].
  std::vector<size_t> at;
  for (const NestedField& f : held.fields()) {
    size_t i = 0;
    while (i < num_columns && columnar_schema->fields[i].field_id != f.id) ++i;
    if (i == num_columns) return std::nullopt;
    at.push_back(i);
  }
  for (size_t k = 0; k < change.positions.size(); ++k) {
    const int64_t p = change.positions[k];
    if (p < 0 || p >= num_rows || (k > 0 && p <= change.positions[k - 1])) return std::nullopt;
  }

  // The old rows at the positions, batch by batch (no copy of the file's other rows).
  std::vector<c::RecordBatch> old_rows;
  {
    size_t k = 0;
    int64_t batch_start = 0;
    for (const c::RecordBatch& b : rows) {
      std::vector<int64_t> local;
      for (; k < change.positions.size() && change.positions[k] < batch_start + b.num_rows; ++k) {
        local.push_back(change.positions[k] - batch_start);
      }
      if (!local.empty()) {
        FLOE_ASSIGN_OR_RETURN(c::RecordBatch taken, c::Take(b, local));
        old_rows.push_back(std::move(taken));
      }
      batch_start += b.num_rows;
    }
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch before, c::Concatenate(old_rows));

  // The columns whose values change: those encoded anew (by the table's column index).
  std::vector<bool> changed(num_columns);
  std::vector<size_t> changed_held;  // the same, as indexes of the held columns
  std::set<int32_t> changed_ids;
  for (size_t h = 0; h < at.size(); ++h) {
    if (SameValues(*before.columns[h], *replacements.columns[h])) continue;
    changed[at[h]] = true;
    changed_held.push_back(h);
    changed_ids.insert(columnar_schema->fields[at[h]].field_id);
  }
  for (const auto& f : m.DefaultSpec().fields()) {
    if (changed_ids.contains(f.source_id)) return std::nullopt;  // the row would move
  }
  for (const SortField& f : m.DefaultSortOrder().fields()) {
    if (changed_ids.contains(f.source_id)) return std::nullopt;  // the file would be unsorted
  }

  // The changed columns with the new values in place: each column's old values then its new
  // ones, taken in position order.
  std::vector<c::ColumnPtr> columns(num_columns);
  {
    std::vector<int64_t> take(static_cast<size_t>(num_rows));
    for (int64_t r = 0; r < num_rows; ++r) take[static_cast<size_t>(r)] = r;
    for (size_t k = 0; k < change.positions.size(); ++k) {
      take[static_cast<size_t>(change.positions[k])] = num_rows + static_cast<int64_t>(k);
    }
    std::vector<c::ColumnPtr> sources;
    for (size_t i : changed_held) {
      auto one = std::make_shared<c::Schema>();
      one->fields = {rows.front().schema->fields[i]};
      std::vector<c::RecordBatch> parts;
      parts.reserve(rows.size() + 1);
      for (const c::RecordBatch& b : rows) parts.push_back({one, {b.columns[i]}, b.num_rows});
      parts.push_back({one, {replacements.columns[i]}, replacements.num_rows});
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch both, c::Concatenate(parts));
      sources.push_back(both.columns[0]);
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<c::ColumnPtr> placed, c::TakeColumns(sources, take));
    for (size_t k = 0; k < changed_held.size(); ++k) columns[at[changed_held[k]]] = placed[k];
  }

  const auto& leaves = writer->write_schema().leaves;
  int64_t start = 0;
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    const int64_t n = md.row_groups[r].num_rows;
    if (md.row_groups[r].columns.size() != leaves.size()) return std::nullopt;
    std::vector<std::optional<parquet::CopiedChunk>> copied(leaves.size());
    for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
      if (changed[static_cast<size_t>(leaves[leaf].top_level_index)]) continue;
      FLOE_ASSIGN_OR_RETURN(copied[leaf], parquet::CopyChunk(bytes, md, r, leaf));
    }
    FLOE_RETURN_IF_ERROR(writer->WriteRowGroupWithCopies(columns, start, n, std::move(copied)));
    start += n;
  }
  if (start != num_rows) return std::nullopt;
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
  const int64_t put_at = UnixMillisNow();
  FLOE_RETURN_IF_ERROR(io.Write(location, sink.bytes()));
  // From here on an error leaves no file behind.
  auto described = [&]() -> Result<DataFile> {
    DataFile f;
    f.file_path = location;
    f.written_at_ms = put_at;
    f.partition = old.partition;
    f.spec_id = old.spec_id;
    f.record_count = written.num_rows;
    f.file_size_in_bytes = written.file_size;
    f.split_offsets = written.split_offsets;
    f.sort_order_id = old.sort_order_id;
    FLOE_RETURN_IF_ERROR(ApplyMetrics(m, schema, written, &f));
    // A copied column's values are the old file's: so are its bounds, where the table's metrics
    // mode keeps bounds for it.
    for (const parquet::ColumnMetrics& col : written.columns) {
      if (!col.copied || col.field_id < 0 || schema.FindById(col.field_id) == nullptr) continue;
      const int32_t id = col.field_id;
      FLOE_ASSIGN_OR_RETURN(MetricsMode mode, ColumnMetricsMode(m, schema.NameOf(id)));
      if (mode.kind == MetricsMode::Kind::kNone) continue;
      if (auto it = old.nan_value_counts.find(id); it != old.nan_value_counts.end()) {
        f.nan_value_counts[id] = it->second;
      }
      if (mode.kind == MetricsMode::Kind::kCounts) continue;
      if (auto it = old.lower_bounds.find(id); it != old.lower_bounds.end()) {
        f.lower_bounds[id] = it->second;
      }
      if (auto it = old.upper_bounds.find(id); it != old.upper_bounds.end()) {
        f.upper_bounds[id] = it->second;
      }
    }
    return f;
  }();
  if (!described) {
    (void)io.Delete(location);
    return std::unexpected(described.error());
  }
  return std::move(*described);
}

}  // namespace floe::iceberg
