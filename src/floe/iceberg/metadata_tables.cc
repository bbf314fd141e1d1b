#include "floe/iceberg/metadata_tables.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/delete_loader.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

constexpr std::array<std::string_view, 13> kNames = {
    "files",     "data_files",    "delete_files",    "entries", "snapshots",
    "manifests", "partitions",    "history",         "refs",    "all_data_files",
    "all_files", "all_manifests", "position_deletes"};

// A column of Literal cells, materialised to the columnar type of its Iceberg type.
struct CellColumn {
  std::string name;
  TypePtr type;
  std::vector<Literal> cells;
};

Result<c::ColumnPtr> Materialize(const CellColumn& col, c::DataType* out_type) {
  FLOE_ASSIGN_OR_RETURN(*out_type, ToColumnarType(*col.type));
  auto column = iceberg::LiteralColumn(col.cells, *col.type);
  if (!column) {
    return Unsupported("metadata table column '{}': {}", col.name, column.error().message);
  }
  return column;
}

// Rows appended cell by cell in column order.
class Rows {
 public:
  void Add(std::string name, TypePtr type) {
    cols_.push_back({std::move(name), std::move(type), {}});
  }
  // Appends the next cell of column `i`.
  void Set(size_t i, Literal v) { cols_[i].cells.push_back(std::move(v)); }
  size_t size() const { return cols_.size(); }

  Result<c::RecordBatch> Finish() const {
    c::RecordBatch batch;
    auto schema = std::make_shared<c::Schema>();
    int64_t rows = cols_.empty() ? 0 : static_cast<int64_t>(cols_[0].cells.size());
    for (const auto& col : cols_) {
      if (static_cast<int64_t>(col.cells.size()) != rows)
        return Internal("metadata table column '{}' has {} cells, expected {}", col.name,
                        col.cells.size(), rows);
      c::DataType dt;
      FLOE_ASSIGN_OR_RETURN(c::ColumnPtr column, Materialize(col, &dt));
      schema->fields.push_back(c::Field{col.name, dt, true, -1});
      batch.columns.push_back(std::move(column));
    }
    batch.schema = schema;
    batch.num_rows = rows;
    return batch;
  }

 private:
  std::vector<CellColumn> cols_;
};

TypePtr T(TypeId id) { return Primitive(id); }
Literal Str(std::string s) { return Literal::String(std::move(s)); }
Literal NullOf(TypeId id) { return Literal::Null(id); }
Literal OptLong(const std::optional<int64_t>& v) {
  return v ? Literal::Long(*v) : NullOf(TypeId::kLong);
}
Literal MillisTs(int64_t ms) { return Literal::TimestampTz(ms * 1000); }

std::string RenderCounts(const std::map<int32_t, int64_t>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (out.size() > 1) out += ", ";
    out += fmt::format("{}: {}", k, v);
  }
  return out + "}";
}

// Bounds keyed by field id, values in their readable form (strings quoted).
std::string RenderBounds(const Schema& schema, const std::map<int32_t, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, bytes] : m) {
    if (out.size() > 1) out += ", ";
    const NestedField* f = schema.FindById(k);
    std::string text;
    if (f != nullptr && f->type->IsPrimitive()) {
      auto lit = DeserializeBound(*f->type, bytes);
      if (lit) {
        text = lit->ToDisplayString();
        if (f->type->id == TypeId::kString) text = fmt::format("'{}'", text);
      }
    }
    if (text.empty()) text = Literal::Binary(bytes).ToString();
    out += fmt::format("{}: {}", k, text);
  }
  return out + "}";
}

std::string RenderPartition(const TableMetadata& m, const DataFile& f) {
  const PartitionSpec* spec = m.SpecById(f.spec_id);
  if (spec == nullptr) return "";
  std::string out = "{";
  for (size_t i = 0; i < spec->fields().size() && i < f.partition.size(); ++i) {
    if (out.size() > 1) out += ", ";
    out += spec->fields()[i].name + "=" +
           (f.partition[i].is_null()
                ? "null"
                : HumanPartitionValue(spec->fields()[i].transform, f.partition[i]));
  }
  return out + "}";
}

std::string RenderLongs(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}
std::string RenderInts(const std::vector<int32_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

struct SourcedEntry {
  ManifestEntry entry;
  const ManifestFile* manifest = nullptr;
};

// Every entry of a snapshot's manifests (deleted ones too when asked).
Result<std::vector<SourcedEntry>> SnapshotEntries(const Table& table, const FileIO& io,
                                                  const Snapshot& snap,
                                                  const std::vector<ManifestFile>& manifests,
                                                  bool include_deleted) {
  std::vector<SourcedEntry> out;
  const TableMetadata& m = table.metadata;
  for (const auto& mf : manifests) {
    const PartitionSpec* spec = m.SpecById(mf.partition_spec_id);
    if (spec == nullptr)
      return Corrupt("manifest '{}' uses partition spec {} that the table lacks", mf.manifest_path,
                     mf.partition_spec_id);
    FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec->PartitionType(m.CurrentSchema()));
    FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadMetadata(mf.manifest_path));
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                          ReadManifest(bytes, mf.manifest_path, mf, *ptype));
    for (auto& e : entries) {
      if (!include_deleted && e.status == EntryStatus::kDeleted) continue;
      out.push_back({std::move(e), &mf});
    }
  }
  (void)snap;
  return out;
}

// The columns of the files tables: Iceberg's, with readable_metrics flattened to
// "readable_metrics.<column>.<metric>" typed as the column.
Result<c::RecordBatch> FilesTable(const TableMetadata& m,
                                  const std::vector<const DataFile*>& files) {
  const Schema& schema = m.CurrentSchema();
  Rows r;
  r.Add("content", T(TypeId::kInt));
  r.Add("file_path", T(TypeId::kString));
  r.Add("file_format", T(TypeId::kString));
  r.Add("spec_id", T(TypeId::kInt));
  r.Add("partition", T(TypeId::kString));
  r.Add("record_count", T(TypeId::kLong));
  r.Add("file_size_in_bytes", T(TypeId::kLong));
  r.Add("column_sizes", T(TypeId::kString));
  r.Add("value_counts", T(TypeId::kString));
  r.Add("null_value_counts", T(TypeId::kString));
  r.Add("nan_value_counts", T(TypeId::kString));
  r.Add("lower_bounds", T(TypeId::kString));
  r.Add("upper_bounds", T(TypeId::kString));
  r.Add("key_metadata", T(TypeId::kBinary));
  r.Add("split_offsets", T(TypeId::kString));
  r.Add("equality_ids", T(TypeId::kString));
  r.Add("sort_order_id", T(TypeId::kInt));
  r.Add("referenced_data_file", T(TypeId::kString));
  r.Add("content_offset", T(TypeId::kLong));
  r.Add("content_size_in_bytes", T(TypeId::kLong));
  std::vector<const NestedField*> metric_cols;
  for (const auto& f : schema.fields()) {
    if (!f.type->IsPrimitive()) continue;
    metric_cols.push_back(&f);
    std::string p = "readable_metrics." + f.name + ".";
    r.Add(p + "column_size", T(TypeId::kLong));
    r.Add(p + "value_count", T(TypeId::kLong));
    r.Add(p + "null_value_count", T(TypeId::kLong));
    r.Add(p + "nan_value_count", T(TypeId::kLong));
    r.Add(p + "lower_bound", f.type);
    r.Add(p + "upper_bound", f.type);
  }
  for (const DataFile* f : files) {
    size_t i = 0;
    r.Set(i++, Literal::Int(static_cast<int32_t>(f->content)));
    r.Set(i++, Str(f->file_path));
    r.Set(i++, Str(f->file_format));
    r.Set(i++, Literal::Int(f->spec_id));
    r.Set(i++, Str(RenderPartition(m, *f)));
    r.Set(i++, Literal::Long(f->record_count));
    r.Set(i++, Literal::Long(f->file_size_in_bytes));
    r.Set(i++, Str(RenderCounts(f->column_sizes)));
    r.Set(i++, Str(RenderCounts(f->value_counts)));
    r.Set(i++, Str(RenderCounts(f->null_value_counts)));
    r.Set(i++, Str(RenderCounts(f->nan_value_counts)));
    r.Set(i++, Str(RenderBounds(schema, f->lower_bounds)));
    r.Set(i++, Str(RenderBounds(schema, f->upper_bounds)));
    r.Set(i++, f->key_metadata ? Literal::Binary(*f->key_metadata) : NullOf(TypeId::kBinary));
    r.Set(i++, Str(RenderLongs(f->split_offsets)));
    r.Set(i++,
          f->equality_ids.empty() ? NullOf(TypeId::kString) : Str(RenderInts(f->equality_ids)));
    r.Set(i++, f->sort_order_id ? Literal::Int(*f->sort_order_id) : NullOf(TypeId::kInt));
    r.Set(i++, f->referenced_data_file ? Str(*f->referenced_data_file) : NullOf(TypeId::kString));
    r.Set(i++, f->content_offset ? Literal::Long(*f->content_offset) : NullOf(TypeId::kLong));
    r.Set(i++, f->content_size_in_bytes ? Literal::Long(*f->content_size_in_bytes)
                                        : NullOf(TypeId::kLong));
    for (const NestedField* col : metric_cols) {
      auto count = [&](const std::map<int32_t, int64_t>& mp) {
        auto it = mp.find(col->id);
        return it == mp.end() ? NullOf(TypeId::kLong) : Literal::Long(it->second);
      };
      auto bound = [&](const std::map<int32_t, std::string>& mp) {
        auto it = mp.find(col->id);
        if (it == mp.end()) return NullOf(col->type->id);
        auto lit = DeserializeBound(*col->type, it->second);
        return lit ? *lit : NullOf(col->type->id);
      };
      r.Set(i++, count(f->column_sizes));
      r.Set(i++, count(f->value_counts));
      r.Set(i++, count(f->null_value_counts));
      r.Set(i++, count(f->nan_value_counts));
      r.Set(i++, bound(f->lower_bounds));
      r.Set(i++, bound(f->upper_bounds));
    }
  }
  return r.Finish();
}

// Every position the live position delete files and deletion vectors delete, as Iceberg's
// position_deletes table lists them: the data file, the position, the delete's partition and
// spec, and the file that holds it.
Result<c::RecordBatch> PositionDeletesTable(const Table& table, const FileIO& io,
                                            const std::vector<SourcedEntry>& es) {
  const TableMetadata& m = table.metadata;
  FileScanTask all;  // one task naming every position delete, so a Puffin file loads once
  for (const auto& se : es) {
    if (se.entry.file.content == FileContent::kPositionDeletes)
      all.deletes.push_back(se.entry.file);
  }
  const std::vector<FileScanTask> tasks = {all};
  DeleteLoader loader(io, tasks, m.CurrentSchema(), nullptr);
  Rows r;
  r.Add("file_path", T(TypeId::kString));
  r.Add("pos", T(TypeId::kLong));
  r.Add("partition", T(TypeId::kString));
  r.Add("spec_id", T(TypeId::kInt));
  r.Add("delete_file_path", T(TypeId::kString));
  for (const DataFile& d : all.deletes) {
    FLOE_ASSIGN_OR_RETURN(auto positions, loader.AllPositions(d));
    const std::string partition = RenderPartition(m, d);
    for (const auto& [path, pos] : positions) {
      size_t i = 0;
      r.Set(i++, Str(path));
      r.Set(i++, Literal::Long(pos));
      r.Set(i++, Str(partition));
      r.Set(i++, Literal::Int(d.spec_id));
      r.Set(i++, Str(d.file_path));
    }
  }
  return r.Finish();
}

Result<c::RecordBatch> EntriesTable(const TableMetadata& m, const std::vector<SourcedEntry>& es) {
  Rows r;
  r.Add("status", T(TypeId::kInt));
  r.Add("snapshot_id", T(TypeId::kLong));
  r.Add("sequence_number", T(TypeId::kLong));
  r.Add("file_sequence_number", T(TypeId::kLong));
  r.Add("data_file.content", T(TypeId::kInt));
  r.Add("data_file.file_path", T(TypeId::kString));
  r.Add("data_file.file_format", T(TypeId::kString));
  r.Add("data_file.spec_id", T(TypeId::kInt));
  r.Add("data_file.partition", T(TypeId::kString));
  r.Add("data_file.record_count", T(TypeId::kLong));
  r.Add("data_file.file_size_in_bytes", T(TypeId::kLong));
  r.Add("data_file.lower_bounds", T(TypeId::kString));
  r.Add("data_file.upper_bounds", T(TypeId::kString));
  r.Add("data_file.sort_order_id", T(TypeId::kInt));
  r.Add("manifest_path", T(TypeId::kString));  // floe's addition: where the entry is listed
  for (const auto& se : es) {
    const ManifestEntry& e = se.entry;
    size_t i = 0;
    r.Set(i++, Literal::Int(static_cast<int32_t>(e.status)));
    r.Set(i++, OptLong(e.snapshot_id));
    r.Set(i++, OptLong(e.sequence_number));
    r.Set(i++, OptLong(e.file_sequence_number));
    r.Set(i++, Literal::Int(static_cast<int32_t>(e.file.content)));
    r.Set(i++, Str(e.file.file_path));
    r.Set(i++, Str(e.file.file_format));
    r.Set(i++, Literal::Int(e.file.spec_id));
    r.Set(i++, Str(RenderPartition(m, e.file)));
    r.Set(i++, Literal::Long(e.file.record_count));
    r.Set(i++, Literal::Long(e.file.file_size_in_bytes));
    r.Set(i++, Str(RenderBounds(m.CurrentSchema(), e.file.lower_bounds)));
    r.Set(i++, Str(RenderBounds(m.CurrentSchema(), e.file.upper_bounds)));
    r.Set(i++, e.file.sort_order_id ? Literal::Int(*e.file.sort_order_id) : NullOf(TypeId::kInt));
    r.Set(i++, Str(se.manifest->manifest_path));
  }
  return r.Finish();
}

std::string RenderSummary(const std::map<std::string, std::string>& s) {
  std::string out = "{";
  for (const auto& [k, v] : s) {
    if (out.size() > 1) out += ", ";
    out += k;
    out += '=';
    out += v;
  }
  return out + "}";
}

Result<c::RecordBatch> SnapshotsTable(const TableMetadata& m) {
  Rows r;
  r.Add("committed_at", T(TypeId::kTimestampTz));
  r.Add("snapshot_id", T(TypeId::kLong));
  r.Add("parent_id", T(TypeId::kLong));
  r.Add("operation", T(TypeId::kString));
  r.Add("manifest_list", T(TypeId::kString));
  r.Add("summary", T(TypeId::kString));
  r.Add("sequence_number", T(TypeId::kLong));  // floe's addition
  for (const auto& s : m.snapshots) {
    size_t i = 0;
    r.Set(i++, MillisTs(s.timestamp_ms));
    r.Set(i++, Literal::Long(s.snapshot_id));
    r.Set(i++, OptLong(s.parent_snapshot_id));
    r.Set(i++, s.operation().empty() ? NullOf(TypeId::kString) : Str(s.operation()));
    r.Set(i++, Str(s.manifest_list));
    r.Set(i++, Str(RenderSummary(s.summary)));
    r.Set(i++, Literal::Long(s.sequence_number));
  }
  return r.Finish();
}

std::set<int64_t> CurrentAncestors(const TableMetadata& m) {
  std::set<int64_t> out;
  const Snapshot* s = m.CurrentSnapshot();
  while (s != nullptr && !out.contains(s->snapshot_id)) {
    out.insert(s->snapshot_id);
    s = s->parent_snapshot_id ? m.SnapshotById(*s->parent_snapshot_id) : nullptr;
  }
  return out;
}

Result<c::RecordBatch> HistoryTable(const TableMetadata& m) {
  std::set<int64_t> ancestors = CurrentAncestors(m);
  Rows r;
  r.Add("made_current_at", T(TypeId::kTimestampTz));
  r.Add("snapshot_id", T(TypeId::kLong));
  r.Add("parent_id", T(TypeId::kLong));
  r.Add("is_current_ancestor", T(TypeId::kBoolean));
  for (const auto& l : m.snapshot_log) {
    const Snapshot* s = m.SnapshotById(l.snapshot_id);
    r.Set(0, MillisTs(l.timestamp_ms));
    r.Set(1, Literal::Long(l.snapshot_id));
    r.Set(2, s ? OptLong(s->parent_snapshot_id) : NullOf(TypeId::kLong));
    r.Set(3, Literal::Boolean(ancestors.contains(l.snapshot_id)));
  }
  return r.Finish();
}

Result<c::RecordBatch> RefsTable(const TableMetadata& m) {
  Rows r;
  r.Add("name", T(TypeId::kString));
  r.Add("type", T(TypeId::kString));
  r.Add("snapshot_id", T(TypeId::kLong));
  r.Add("max_reference_age_in_ms", T(TypeId::kLong));
  r.Add("min_snapshots_to_keep", T(TypeId::kInt));
  r.Add("max_snapshot_age_in_ms", T(TypeId::kLong));
  for (const auto& [name, ref] : m.refs) {
    auto num = [&](const char* key, TypeId t) {
      if (!ref.extra.contains(key) || !ref.extra[key].is_number_integer()) return NullOf(t);
      int64_t v = ref.extra[key].get<int64_t>();
      return t == TypeId::kInt ? Literal::Int(static_cast<int32_t>(v)) : Literal::Long(v);
    };
    r.Set(0, Str(name));
    r.Set(1, Str(ref.type == "tag" ? "TAG" : "BRANCH"));
    r.Set(2, Literal::Long(ref.snapshot_id));
    r.Set(3, num("max-ref-age-ms", TypeId::kLong));
    r.Set(4, num("min-snapshots-to-keep", TypeId::kInt));
    r.Set(5, num("max-snapshot-age-ms", TypeId::kLong));
  }
  return r.Finish();
}

std::string RenderSummaries(const TableMetadata& m, const ManifestFile& mf) {
  const PartitionSpec* spec = m.SpecById(mf.partition_spec_id);
  Result<TypePtr> ptype = spec ? spec->PartitionType(m.CurrentSchema()) : Result<TypePtr>();
  std::string out = "[";
  for (size_t i = 0; i < mf.partitions.size(); ++i) {
    const FieldSummary& s = mf.partitions[i];
    if (i > 0) out += ", ";
    auto bound = [&](const std::optional<std::string>& b) -> std::string {
      if (!b) return "null";
      if (ptype && *ptype && i < (*ptype)->fields.size()) {
        auto lit = DeserializeBound(*(*ptype)->fields[i].type, *b);
        if (lit) return lit->ToDisplayString();
      }
      return Literal::Binary(*b).ToString();
    };
    out +=
        fmt::format("{{contains_null={}, contains_nan={}, lower_bound={}, upper_bound={}}}",
                    s.contains_null, s.contains_nan ? (*s.contains_nan ? "true" : "false") : "null",
                    bound(s.lower_bound), bound(s.upper_bound));
  }
  return out + "]";
}

Result<c::RecordBatch> ManifestsTable(const TableMetadata& m,
                                      const std::vector<ManifestFile>& manifests,
                                      bool with_reference_snapshot,
                                      const std::vector<int64_t>& reference_snapshot) {
  Rows r;
  r.Add("content", T(TypeId::kInt));
  r.Add("path", T(TypeId::kString));
  r.Add("length", T(TypeId::kLong));
  r.Add("partition_spec_id", T(TypeId::kInt));
  r.Add("added_snapshot_id", T(TypeId::kLong));
  r.Add("added_data_files_count", T(TypeId::kInt));
  r.Add("existing_data_files_count", T(TypeId::kInt));
  r.Add("deleted_data_files_count", T(TypeId::kInt));
  r.Add("added_delete_files_count", T(TypeId::kInt));
  r.Add("existing_delete_files_count", T(TypeId::kInt));
  r.Add("deleted_delete_files_count", T(TypeId::kInt));
  r.Add("partition_summaries", T(TypeId::kString));
  r.Add("sequence_number", T(TypeId::kLong));  // floe's additions
  r.Add("min_sequence_number", T(TypeId::kLong));
  if (with_reference_snapshot) r.Add("reference_snapshot_id", T(TypeId::kLong));
  for (size_t k = 0; k < manifests.size(); ++k) {
    const ManifestFile& mf = manifests[k];
    bool data = mf.content == ManifestContent::kData;
    size_t i = 0;
    r.Set(i++, Literal::Int(static_cast<int32_t>(mf.content)));
    r.Set(i++, Str(mf.manifest_path));
    r.Set(i++, Literal::Long(mf.manifest_length));
    r.Set(i++, Literal::Int(mf.partition_spec_id));
    r.Set(i++, Literal::Long(mf.added_snapshot_id));
    r.Set(i++, Literal::Int(data ? mf.added_files_count : 0));
    r.Set(i++, Literal::Int(data ? mf.existing_files_count : 0));
    r.Set(i++, Literal::Int(data ? mf.deleted_files_count : 0));
    r.Set(i++, Literal::Int(data ? 0 : mf.added_files_count));
    r.Set(i++, Literal::Int(data ? 0 : mf.existing_files_count));
    r.Set(i++, Literal::Int(data ? 0 : mf.deleted_files_count));
    r.Set(i++, Str(RenderSummaries(m, mf)));
    r.Set(i++, Literal::Long(mf.sequence_number));
    r.Set(i++, Literal::Long(mf.min_sequence_number));
    if (with_reference_snapshot) r.Set(i++, Literal::Long(reference_snapshot[k]));
  }
  return r.Finish();
}

Result<c::RecordBatch> PartitionsTable(const TableMetadata& m,
                                       const std::vector<SourcedEntry>& entries) {
  struct Agg {
    int32_t spec_id = 0;
    int64_t records = 0, files = 0, bytes = 0;
    int64_t pos_records = 0, pos_files = 0, eq_records = 0, eq_files = 0;
    std::optional<int64_t> last_snapshot;
    int64_t last_ms = -1;
  };
  std::map<std::string, Agg> parts;
  for (const auto& se : entries) {
    const DataFile& f = se.entry.file;
    Agg& a = parts[RenderPartition(m, f)];
    a.spec_id = f.spec_id;
    switch (f.content) {
      case FileContent::kData:
        a.records += f.record_count;
        a.files += 1;
        a.bytes += f.file_size_in_bytes;
        break;
      case FileContent::kPositionDeletes:
        a.pos_records += f.record_count;
        a.pos_files += 1;
        break;
      case FileContent::kEqualityDeletes:
        a.eq_records += f.record_count;
        a.eq_files += 1;
        break;
    }
    if (se.entry.snapshot_id) {
      const Snapshot* s = m.SnapshotById(*se.entry.snapshot_id);
      if (s != nullptr && s->timestamp_ms > a.last_ms) {
        a.last_ms = s->timestamp_ms;
        a.last_snapshot = s->snapshot_id;
      }
    }
  }
  Rows r;
  r.Add("partition", T(TypeId::kString));
  r.Add("spec_id", T(TypeId::kInt));
  r.Add("record_count", T(TypeId::kLong));
  r.Add("file_count", T(TypeId::kInt));
  r.Add("total_data_file_size_in_bytes", T(TypeId::kLong));
  r.Add("position_delete_record_count", T(TypeId::kLong));
  r.Add("position_delete_file_count", T(TypeId::kInt));
  r.Add("equality_delete_record_count", T(TypeId::kLong));
  r.Add("equality_delete_file_count", T(TypeId::kInt));
  r.Add("last_updated_at", T(TypeId::kTimestampTz));
  r.Add("last_updated_snapshot_id", T(TypeId::kLong));
  for (const auto& [p, a] : parts) {
    size_t i = 0;
    r.Set(i++, Str(p));
    r.Set(i++, Literal::Int(a.spec_id));
    r.Set(i++, Literal::Long(a.records));
    r.Set(i++, Literal::Int(static_cast<int32_t>(a.files)));
    r.Set(i++, Literal::Long(a.bytes));
    r.Set(i++, Literal::Long(a.pos_records));
    r.Set(i++, Literal::Int(static_cast<int32_t>(a.pos_files)));
    r.Set(i++, Literal::Long(a.eq_records));
    r.Set(i++, Literal::Int(static_cast<int32_t>(a.eq_files)));
    r.Set(i++, a.last_ms >= 0 ? MillisTs(a.last_ms) : NullOf(TypeId::kTimestampTz));
    r.Set(i++, OptLong(a.last_snapshot));
  }
  return r.Finish();
}

}  // namespace

bool IsMetadataTableName(std::string_view name) {
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

std::vector<std::string_view> MetadataTableNames() { return {kNames.begin(), kNames.end()}; }

Result<columnar::RecordBatch> ReadMetadataTable(const Table& table, const FileIO& io,
                                                std::string_view name) {
  const TableMetadata& m = table.metadata;
  if (!IsMetadataTableName(name)) {
    return NotFound("table '{}' has no metadata table '{}' (known: {})", table.id.ToString(), name,
                    fmt::join(kNames, ", "));
  }
  if (name == "snapshots") return SnapshotsTable(m);
  if (name == "history") return HistoryTable(m);
  if (name == "refs") return RefsTable(m);

  if (name == "all_manifests" || name == "all_data_files" || name == "all_files") {
    // Every manifest of every snapshot (the reachable set that expiry keeps), files deduplicated
    // by path.
    std::vector<ManifestFile> manifests;
    std::vector<int64_t> refs;
    std::set<std::string> seen_manifest;
    std::vector<ManifestFile> unique_manifests;
    for (const auto& s : m.snapshots) {
      FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> ms, table.Manifests(io, s));
      for (auto& mf : ms) {
        if (seen_manifest.insert(mf.manifest_path).second) unique_manifests.push_back(mf);
        manifests.push_back(std::move(mf));
        refs.push_back(s.snapshot_id);
      }
    }
    if (name == "all_manifests") return ManifestsTable(m, manifests, true, refs);
    std::vector<SourcedEntry> entries;
    if (!m.snapshots.empty()) {
      FLOE_ASSIGN_OR_RETURN(entries,
                            SnapshotEntries(table, io, m.snapshots[0], unique_manifests, false));
    }
    std::set<std::string> seen;
    std::vector<const DataFile*> files;
    for (const auto& se : entries) {
      if (name == "all_data_files" && se.entry.file.content != FileContent::kData) continue;
      if (seen.insert(se.entry.file.file_path).second) files.push_back(&se.entry.file);
    }
    return FilesTable(m, files);
  }

  const Snapshot* snap = m.CurrentSnapshot();
  std::vector<ManifestFile> manifests;
  if (snap != nullptr) {
    FLOE_ASSIGN_OR_RETURN(manifests, table.Manifests(io, *snap));
  }
  if (name == "manifests") return ManifestsTable(m, manifests, false, {});
  std::vector<SourcedEntry> entries;
  if (snap != nullptr) {
    FLOE_ASSIGN_OR_RETURN(entries, SnapshotEntries(table, io, *snap, manifests, name == "entries"));
  }
  if (name == "entries") return EntriesTable(m, entries);
  if (name == "position_deletes") return PositionDeletesTable(table, io, entries);
  if (name == "partitions") return PartitionsTable(m, entries);
  std::vector<const DataFile*> files;
  for (const auto& se : entries) {
    bool is_data = se.entry.file.content == FileContent::kData;
    if (name == "data_files" && !is_data) continue;
    if (name == "delete_files" && is_data) continue;
    files.push_back(&se.entry.file);
  }
  return FilesTable(m, files);
}

}  // namespace floe::iceberg
