#include "floe/iceberg/row_level_change.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "floe/base/parallel_for.h"
#include "floe/base/uuid.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_loader.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/in_place_rewrite.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/row_lineage.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/iceberg/table_properties.h"

namespace floe::iceberg {

namespace c = columnar;

const char* OperationName(RowLevelOperation operation) {
  switch (operation) {
    case RowLevelOperation::kDelete:
      return "DELETE";
    case RowLevelOperation::kUpdate:
      return "UPDATE";
    case RowLevelOperation::kMerge:
      return "MERGE";
  }
  return "?";
}

namespace {

// The table property `write.<op>.<what>`, validated, lower case ("" when unset).
Result<std::string> OperationProperty(const TableMetadata& m, RowLevelOperation operation,
                                      const char* what) {
  std::string op = OperationName(operation);
  for (char& ch : op) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string key = fmt::format("write.{}.{}", op, what);
  auto it = m.properties.find(key);
  if (it == m.properties.end()) return std::string();
  FLOE_RETURN_IF_ERROR(ValidateTableProperty(key, it->second));
  std::string v = it->second;
  for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return v;
}

// A task's data file as a commit validates it: the file with its data sequence number.
ManifestEntry EntryOf(const FileScanTask& t) {
  ManifestEntry e;
  e.status = EntryStatus::kExisting;
  e.sequence_number = t.data_sequence_number;
  e.file = t.file;
  return e;
}

// Whether delete file `d` (of a task of `data_file`) deletes from that file alone: a deletion
// vector, or a position delete file that names it as its one referenced file.
bool FileScoped(const DataFile& d, const std::string& data_file) {
  if (d.content != FileContent::kPositionDeletes) return false;
  if (d.referenced_data_file) return *d.referenced_data_file == data_file;
  return false;
}

// The sorted, distinct positions of `a` and of the row ranges `b`.
std::vector<int64_t> UnionPositions(std::vector<int64_t> a,
                                    const std::vector<parquet::RowRange>& b) {
  for (const parquet::RowRange& r : b) {
    for (int64_t p = r.begin; p < r.end; ++p) a.push_back(p);
  }
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// Where a new delete file for data of `spec` and `partition` goes: beside the data files.
std::string DeleteFileLocation(const TableMetadata& m, const PartitionSpec& spec,
                               const std::vector<Literal>& partition, const char* extension) {
  const std::string path = spec.PartitionPath(partition);
  return fmt::format("{}/data{}/{}-deletes.{}", m.location, path.empty() ? "" : "/" + path,
                     NewUuid(), extension);
}

// The writer's view of the table: in v3 its schema carries the lineage columns, so rows keep
// their `_row_id` (row_lineage.h).
Table WriterTable(const Table& table) {
  Table w = table;
  if (w.metadata.format_version >= 3) {
    for (Schema& s : w.metadata.schemas) {
      if (s.schema_id() == w.metadata.current_schema_id) s = WithRowLineage(s);
    }
  }
  return w;
}

// The rows of `batches`, summed.
int64_t RowsIn(const std::vector<c::RecordBatch>& batches) {
  int64_t n = 0;
  for (const c::RecordBatch& b : batches) n += b.num_rows;
  return n;
}

// Copy-on-write: the rows of `tasks` (deletes applied) but those `deleted` names, written with
// `writer` -- taken from `read_rows` where those are a file's every row, else read. Returns the
// rows copied.
// A file whose replaced rows hold only some columns (RowLevelChange::partial_columns), rewritten
// from its rows: the replaced positions (ascending) and, by the table schema's column index, the
// values they take there.
struct Patch {
  std::vector<int64_t> positions;
  std::vector<std::pair<size_t, c::ColumnPtr>> columns;
};

Result<int64_t> CopySurvivors(const Table& table, const FileIO& io,
                              const std::vector<FileScanTask>& tasks,
                              const std::map<std::string, std::vector<int64_t>>& deleted,
                              const std::map<std::string, std::vector<c::RecordBatch>>& read_rows,
                              const std::map<std::string, Patch>& patches, TableDataWriter* writer,
                              ScanMetrics* metrics) {
  const Schema& schema = table.metadata.CurrentSchema();
  const bool lineage = table.metadata.format_version >= 3;
  std::vector<NestedField> fields = schema.fields();
  if (lineage) fields = WithRowLineage(schema).fields();
  const size_t kept_columns = fields.size();
  for (const NestedField& f : MetadataFields()) {
    if (f.id == kFilePathFieldId || f.id == kRowPositionFieldId) fields.push_back(f);
  }
  const Schema projected(schema.schema_id(), std::move(fields));
  std::unordered_map<std::string, std::vector<int64_t>> sorted;
  for (const auto& [path, positions] : deleted) {
    std::vector<int64_t>& s = sorted[path];
    s = positions;
    std::sort(s.begin(), s.end());
  }
  int64_t copied = 0;
  // Writes batch `b`'s rows of file `path` but the deleted ones; its columns past `columns` (the
  // position at `positions`, the file's path) are dropped.
  // Survivors of one file stay in its partition.
  auto write_kept = [&](c::RecordBatch b, const FileScanTask& task, size_t columns,
                        const c::Column& positions) -> Status {
    auto it = sorted.find(task.file.file_path);
    const std::vector<int64_t>* gone = it == sorted.end() ? nullptr : &it->second;
    // Its deleted rows are all replaced, only in some columns: they stay, with those set.
    if (auto patch = patches.find(task.file.file_path); patch != patches.end()) {
      gone = nullptr;
      for (const auto& [i, values] : patch->second.columns) {
        FLOE_ASSIGN_OR_RETURN(b.columns[i], WithReplacements(b.columns[i], positions,
                                                             patch->second.positions, values));
      }
    }
    std::optional<std::vector<int64_t>> keep;  // none: every row
    if (gone != nullptr) {
      keep.emplace();
      keep->reserve(static_cast<size_t>(b.num_rows));
      // A batch's positions ascend: one walk through the deleted ones beside them.
      const int64_t* pos = positions.Values<int64_t>();
      auto next = std::lower_bound(gone->begin(), gone->end(), pos[0]);
      for (int64_t r = 0; r < b.num_rows; ++r) {
        const int64_t p = pos[r];
        if (r > 0 && p < pos[r - 1]) next = std::lower_bound(gone->begin(), gone->end(), p);
        while (next != gone->end() && *next < p) ++next;
        if (next == gone->end() || *next != p) keep->push_back(r);
      }
    }
    b.columns.resize(columns);
    auto s = std::make_shared<c::Schema>(*b.schema);
    s->fields.resize(columns);
    b.schema = std::move(s);
    const int64_t kept = keep ? static_cast<int64_t>(keep->size()) : b.num_rows;
    if (kept == 0) return {};
    copied += kept;
    // The writer takes the kept rows as it encodes the file (on its threads).
    return writer->WriteInPartition(b, task.file.spec_id, task.file.partition, std::move(keep));
  };
  std::vector<FileScanTask> to_read;
  for (const FileScanTask& t : tasks) {
    auto have = read_rows.find(t.file.file_path);
    if (lineage || have == read_rows.end() || !t.deletes.empty() ||
        RowsIn(have->second) != t.file.record_count) {
      to_read.push_back(t);
      continue;
    }
    for (const c::RecordBatch& b : have->second) {
      if (b.num_rows == 0) continue;
      const size_t columns = b.columns.size() - 1;
      FLOE_RETURN_IF_ERROR(write_kept(b, t, columns, *b.columns[columns]));
    }
  }
  if (to_read.empty()) return copied;
  std::unordered_map<std::string, const FileScanTask*> by_path;
  for (const FileScanTask& t : to_read) by_path[t.file.file_path] = &t;
  ScanReadOptions options;
  ScanHooks hooks;
  hooks.table_schema = &schema;
  FLOE_RETURN_IF_ERROR(ReadScan(
      to_read, projected, io, options, hooks,
      [&](c::RecordBatch b) -> Status {
        if (b.num_rows == 0) return {};
        // A batch holds the rows of one file.
        const std::string path(b.columns[kept_columns]->BytesAt(0));
        auto task = by_path.find(path);
        if (task == by_path.end())
          return Internal("a rewrite read rows of '{}', not planned", path);
        const c::ColumnPtr positions = b.columns[kept_columns + 1];
        return write_kept(std::move(b), *task->second, kept_columns, *positions);
      },
      metrics));
  return copied;
}

// A file's replaced rows in position order: their positions (ascending) and the rows.
Result<std::pair<std::vector<int64_t>, c::RecordBatch>> InPositionOrder(
    const RowLevelChange::Replaced& r) {
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch all, c::Concatenate(r.rows));
  std::vector<int64_t> order(r.positions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return r.positions[static_cast<size_t>(a)] < r.positions[static_cast<size_t>(b)];
  });
  std::vector<int64_t> positions;
  positions.reserve(order.size());
  for (int64_t i : order) positions.push_back(r.positions[static_cast<size_t>(i)]);
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch rows, c::Take(all, order));
  return std::pair{std::move(positions), std::move(rows)};
}

// The patches of the files of `rest` whose replaced rows hold `change.partial_columns` only:
// every deleted position of such a file must be a replaced one.
Result<std::map<std::string, Patch>> PatchesFor(const Schema& schema, const RowLevelChange& change,
                                                const std::vector<FileScanTask>& rest) {
  std::vector<NestedField> fields;
  std::vector<size_t> index;  // of each field in the table schema
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const NestedField& f = schema.fields()[i];
    if (std::find(change.partial_columns.begin(), change.partial_columns.end(), f.id) !=
        change.partial_columns.end()) {
      fields.push_back(f);
      index.push_back(i);
    }
  }
  const Schema held(schema.schema_id(), std::move(fields));
  std::map<std::string, Patch> out;
  for (const FileScanTask& t : rest) {
    const std::string& path = t.file.file_path;
    auto rep = change.replaced.find(path);
    const std::vector<int64_t>& gone = change.deleted.at(path);
    if (rep == change.replaced.end() ||
        std::set<int64_t>(gone.begin(), gone.end()) !=
            std::set<int64_t>(rep->second.positions.begin(), rep->second.positions.end())) {
      return Internal("{}: rows of '{}' deleted that no row of some columns replaces",
                      OperationName(change.operation), path);
    }
    FLOE_ASSIGN_OR_RETURN(auto sorted, InPositionOrder(rep->second));
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed, ConformToSchema(sorted.second, held));
    Patch& p = out[path];
    p.positions = std::move(sorted.first);
    for (size_t h = 0; h < index.size(); ++h) {
      p.columns.emplace_back(index[h], conformed.columns[h]);
    }
  }
  return out;
}

Result<const PartitionSpec*> SpecOf(const TableMetadata& m, const DataFile& f) {
  const PartitionSpec* spec = m.SpecById(f.spec_id);
  if (spec == nullptr) {
    return Corrupt("data file '{}' names unknown partition spec {}", f.file_path, f.spec_id);
  }
  return spec;
}

// Runs fn(0) .. fn(n - 1) at once on the runtime's scan pool (each mostly waits on the store);
// returns the first error, after every call has returned.
Status AtOnce(const FileIO& io, size_t n, const std::function<Status(size_t)>& fn) {
  std::vector<Status> status(n);
  ParallelFor(io.runtime().scan_pool(), n, [&](size_t i) { status[i] = fn(i); });
  for (Status& st : status) {
    if (!st) return st;
  }
  return {};
}

void RemoveWritten(const FileIO& io, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) (void)io.Delete(p);
}

}  // namespace

Result<RowLevelPolicy> PolicyFor(const TableMetadata& m, const std::string& table,
                                 RowLevelOperation operation) {
  RowLevelPolicy p;
  FLOE_ASSIGN_OR_RETURN(std::string mode, OperationProperty(m, operation, "mode"));
  FLOE_ASSIGN_OR_RETURN(std::string isolation, OperationProperty(m, operation, "isolation-level"));
  p.mode = mode == "merge-on-read" ? RowLevelMode::kMergeOnRead : RowLevelMode::kCopyOnWrite;
  p.isolation = isolation == "snapshot" ? IsolationLevel::kSnapshot : IsolationLevel::kSerializable;
  auto g = m.properties.find("write.delete.granularity");
  if (g != m.properties.end()) {
    FLOE_RETURN_IF_ERROR(ValidateTableProperty(g->first, g->second));
    std::string v = g->second;
    for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    p.partition_granularity = v == "partition";
  }
  if (p.mode == RowLevelMode::kMergeOnRead && m.format_version < 2) {
    std::string op = OperationName(operation);
    for (char& ch : op) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return InvalidInput(
        "table '{}' is format version 1, which has no delete files: write.{}.mode = "
        "merge-on-read needs format version 2 or later (set the table property format-version "
        "to 2, or write.{}.mode to copy-on-write); nothing was changed",
        table, op, op);
  }
  return p;
}

Result<RowLevelResult> CommitRowLevelChange(catalog::Catalog& catalog, const FileIO& io,
                                            const Table& table, const RowLevelChange& change,
                                            ScanMetrics* metrics) {
  const TableMetadata& m = table.metadata;
  const std::string name = table.id.ToString();
  FLOE_ASSIGN_OR_RETURN(RowLevelPolicy policy, PolicyFor(m, name, change.operation));
  RowLevelResult result;
  result.mode = policy.mode;
  bool any_rows = false;
  for (const auto& b : change.new_rows) any_rows = any_rows || b.num_rows > 0;
  if (change.deleted.empty() && !any_rows) return result;

  // The data files the statement changes, as its scan planned them (with their deletes).
  std::vector<FileScanTask> tasks;
  if (!change.deleted.empty()) {
    ScanOptions so;
    so.filter = change.filter;
    so.snapshot_id = change.snapshot_id;
    FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanFiles(table, io, so));
    for (FileScanTask& t : plan.tasks) {
      if (!change.deleted.contains(t.file.file_path)) continue;
      t.residual = True();
      tasks.push_back(std::move(t));
    }
    if (tasks.size() != change.deleted.size()) {
      return Internal("{}: {} of the {} data files it read are not in the snapshot it read",
                      OperationName(change.operation), change.deleted.size() - tasks.size(),
                      change.deleted.size());
    }
  }
  for (const auto& [path, positions] : change.deleted) {
    std::set<int64_t> distinct(positions.begin(), positions.end());
    result.rows_removed += static_cast<int64_t>(distinct.size());
  }

  SnapshotUpdate u;
  CommitValidation v;
  v.from_snapshot_id = change.snapshot_id;
  v.conflict_filter = change.filter;
  v.no_conflicting_data = policy.isolation == IsolationLevel::kSerializable;
  for (const FileScanTask& t : tasks) v.files.push_back(EntryOf(t));

  std::vector<std::string> written;  // removed again if the commit fails
  std::vector<DataFile> rewritten;   // in place
  TableDataWriter writer(WriterTable(table), io);
  // Files rewritten in place: their replacement rows are in them.
  std::set<std::string> in_place;
  const bool partial = !change.partial_columns.empty();
  if (partial && policy.mode != RowLevelMode::kCopyOnWrite) {
    return Internal("{}: rows of some columns only, in merge-on-read",
                    OperationName(change.operation));
  }
  auto write_new_rows = [&]() -> Status {
    for (const c::RecordBatch& b : change.new_rows) {
      if (b.num_rows == 0) continue;
      result.rows_added += b.num_rows;
      FLOE_RETURN_IF_ERROR(writer.Write(b));
    }
    for (const auto& [path, r] : change.replaced) {
      // Partial rows are set in their files' rewrites (CopySurvivors).
      if (in_place.contains(path) || partial) continue;
      for (const c::RecordBatch& b : r.rows) {
        if (b.num_rows == 0) continue;
        result.rows_added += b.num_rows;
        FLOE_RETURN_IF_ERROR(writer.Write(b));
      }
    }
    return {};
  };
  // Copy-on-write: the files whose deleted positions are all replaced, rewritten in place where
  // they can be (in_place_rewrite.h). Not a small file (under half the target size) that shares
  // its partition with other files the statement rewrites: the usual rewrite merges those into
  // files of the target size, as Spark's does, where in place would keep every small file.
  auto rewrite_in_place = [&]() -> Status {
    const int64_t target = m.PropertyInt("write.target-file-size-bytes", int64_t{512} << 20);
    auto partition_of = [](const DataFile& f) {
      std::string key = std::to_string(f.spec_id);
      for (const Literal& v : f.partition) key += "\x1f" + (v.is_null() ? "\x1e" : v.ToString());
      return key;
    };
    std::map<std::string, int> per_partition;
    for (const FileScanTask& t : tasks) ++per_partition[partition_of(t.file)];
    // The files to rewrite so, then rewritten at once (each encodes its changed columns).
    std::vector<const FileScanTask*> files;
    std::vector<InPlaceChange> changes;
    std::vector<std::string> locations;
    for (const FileScanTask& t : tasks) {
      const std::string& path = t.file.file_path;
      if (t.file.file_size_in_bytes < target / 2 && per_partition.at(partition_of(t.file)) > 1) {
        continue;
      }
      auto rep = change.replaced.find(path);
      if (rep == change.replaced.end()) continue;
      const std::vector<int64_t>& gone = change.deleted.at(path);
      if (std::set<int64_t>(gone.begin(), gone.end()) !=
          std::set<int64_t>(rep->second.positions.begin(), rep->second.positions.end())) {
        continue;  // rows deleted too: they leave the file
      }
      InPlaceChange ch;
      // The rows the statement read, or none: the rewrite decodes the columns it needs.
      if (auto rows = change.read_rows.find(path); rows != change.read_rows.end()) {
        ch.rows = rows->second;
      }
      ch.columns = change.partial_columns;
      FLOE_ASSIGN_OR_RETURN(auto sorted, InPositionOrder(rep->second));
      ch.positions = std::move(sorted.first);
      ch.replacements = std::move(sorted.second);
      const PartitionSpec& spec = m.DefaultSpec();
      const std::string dir =
          m.location + "/data" +
          (spec.fields().empty() ? "" : "/" + spec.PartitionPath(t.file.partition));
      files.push_back(&t);
      changes.push_back(std::move(ch));
      locations.push_back(fmt::format("{}/00000-{}.parquet", dir, NewUuid()));
    }
    std::vector<std::optional<DataFile>> done(files.size());
    const Table writer_table = WriterTable(table);
    Status all = AtOnce(io, files.size(), [&](size_t i) -> Status {
      FLOE_ASSIGN_OR_RETURN(
          done[i], RewriteInPlace(writer_table, io, *files[i], changes[i], locations[i], metrics));
      return {};
    });
    for (size_t i = 0; i < files.size(); ++i) {
      if (!done[i]) continue;
      DataFile& f = *done[i];
      const int64_t replaced = changes[i].replacements.num_rows;
      written.push_back(f.file_path);
      result.bytes_written += f.file_size_in_bytes;
      result.rows_added += replaced;
      result.rows_copied += f.record_count - replaced;
      ++result.files_rewritten_in_place;
      in_place.insert(files[i]->file.file_path);
      rewritten.push_back(std::move(f));
    }
    return all;
  };
  auto finish_data = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer.Finish());
    for (const DataFile& f : files) {
      written.push_back(f.file_path);
      result.bytes_written += f.file_size_in_bytes;
    }
    files.insert(files.begin(), rewritten.begin(), rewritten.end());
    result.data_files_added = static_cast<int64_t>(files.size());
    u.added = std::move(files);
    return {};
  };

  Status built = [&]() -> Status {
    if (policy.mode == RowLevelMode::kCopyOnWrite) {
      FLOE_RETURN_IF_ERROR(rewrite_in_place());
      std::vector<FileScanTask> rest;
      for (const FileScanTask& t : tasks) {
        if (!in_place.contains(t.file.file_path)) rest.push_back(t);
      }
      std::map<std::string, Patch> patches;
      const std::map<std::string, std::vector<c::RecordBatch>> no_rows;  // partial: read again
      if (partial) {
        FLOE_ASSIGN_OR_RETURN(patches, PatchesFor(m.CurrentSchema(), change, rest));
      }
      for (const auto& [path, p] : patches) result.rows_added += std::ssize(p.positions);
      FLOE_ASSIGN_OR_RETURN(int64_t copied, CopySurvivors(table, io, rest, change.deleted,
                                                          partial ? no_rows : change.read_rows,
                                                          patches, &writer, metrics));
      for (const auto& [path, p] : patches) copied -= std::ssize(p.positions);
      result.rows_copied += copied;
      FLOE_RETURN_IF_ERROR(write_new_rows());
      FLOE_RETURN_IF_ERROR(finish_data());
      for (const FileScanTask& t : tasks) {
        u.deleted_paths.push_back(t.file.file_path);
        // A deletion vector goes with its data file (it would dangle).
        for (const DataFile& d : t.deletes) {
          if (IsDeletionVector(d)) u.removed_deletes.push_back(d);
        }
      }
      result.data_files_removed = static_cast<int64_t>(u.deleted_paths.size());
      u.operation = u.added.empty() ? "delete" : "overwrite";
      v.new_deletes = CommitValidation::NewDeletes::kForFiles;
      v.removed_by_delete = true;
      return {};
    }

    // Merge-on-read.
    FLOE_RETURN_IF_ERROR(write_new_rows());
    FLOE_RETURN_IF_ERROR(finish_data());
    u.deletes_keep_spec = true;
    DeleteLoader loader(io, tasks, m.CurrentSchema(), metrics);
    // Each data file's deletes are read and written at once (every step waits on the store).
    if (tasks.empty()) {
      // Only new rows (a MERGE that inserts): no deletes to write.
    } else if (m.format_version >= 3) {
      // One deletion vector per data file: its new positions, its old vector's and those of its
      // position delete files; all in one Puffin file.
      std::vector<std::vector<parquet::RowRange>> previous(tasks.size());
      FLOE_RETURN_IF_ERROR(AtOnce(io, tasks.size(), [&](size_t i) -> Status {
        if (!DeleteLoader::HasPositionDeletes(tasks[i])) return {};
        FLOE_ASSIGN_OR_RETURN(previous[i], loader.PositionMask(tasks[i]));
        return {};
      }));
      std::map<std::string, std::vector<int64_t>> positions;
      std::map<std::string, std::vector<Literal>> partitions;
      std::map<std::string, int32_t> specs;
      for (size_t i = 0; i < tasks.size(); ++i) {
        const FileScanTask& t = tasks[i];
        const std::string& path = t.file.file_path;
        positions[path] = UnionPositions(change.deleted.at(path), previous[i]);
        partitions[path] = t.file.partition;
        specs[path] = t.file.spec_id;
        for (const DataFile& d : t.deletes) {
          if (FileScoped(d, path)) u.removed_deletes.push_back(d);
        }
      }
      const FileScanTask& first = tasks.front();
      FLOE_ASSIGN_OR_RETURN(const PartitionSpec* spec, SpecOf(m, first.file));
      const std::string puffin = DeleteFileLocation(m, *spec, first.file.partition, "puffin");
      FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> dvs,
                            WriteDeletionVectors(io, puffin, positions, partitions));
      written.push_back(puffin);
      for (DataFile& d : dvs) d.spec_id = specs.at(*d.referenced_data_file);
      if (!dvs.empty()) result.bytes_written += dvs.front().file_size_in_bytes;
      u.added_deletes = std::move(dvs);
    } else {
      // Format 2: one position delete file per data file, holding that file's earlier
      // file-scoped deletes too (removed in the same commit; deletes of a whole partition stay as
      // they are) -- or, at partition granularity, one per partition beside the older ones.
      std::vector<std::vector<const FileScanTask*>> groups;
      if (policy.partition_granularity) {
        std::map<std::pair<int32_t, std::string>, size_t> index;
        for (const FileScanTask& t : tasks) {
          FLOE_ASSIGN_OR_RETURN(const PartitionSpec* spec, SpecOf(m, t.file));
          auto [it, added] = index.try_emplace(
              {t.file.spec_id, spec->PartitionPath(t.file.partition)}, groups.size());
          if (added) groups.emplace_back();
          groups[it->second].push_back(&t);
        }
      } else {
        for (const FileScanTask& t : tasks) groups.push_back({&t});
      }
      std::vector<DataFile> made(groups.size());
      std::vector<std::string> at(groups.size());
      std::vector<std::vector<DataFile>> merged(groups.size());
      const Status wrote = AtOnce(io, groups.size(), [&](size_t g) -> Status {
        std::vector<std::pair<std::string, int64_t>> pairs;
        for (const FileScanTask* t : groups[g]) {
          const std::string& path = t->file.file_path;
          for (int64_t p : change.deleted.at(path)) pairs.emplace_back(path, p);
          if (policy.partition_granularity) continue;
          for (const DataFile& d : t->deletes) {
            if (!FileScoped(d, path)) continue;
            FLOE_ASSIGN_OR_RETURN(auto previous, loader.AllPositions(d));
            for (auto& pp : previous) {
              if (pp.first == path) pairs.push_back(std::move(pp));
            }
            merged[g].push_back(d);
          }
        }
        const DataFile& first = groups[g].front()->file;
        FLOE_ASSIGN_OR_RETURN(const PartitionSpec* spec, SpecOf(m, first));
        at[g] = DeleteFileLocation(m, *spec, first.partition, "parquet");
        FLOE_ASSIGN_OR_RETURN(
            made[g], WritePositionDeleteFile(io, at[g], std::move(pairs), first.partition));
        made[g].spec_id = first.spec_id;
        return {};
      });
      for (const std::string& path : at) {
        if (!path.empty()) written.push_back(path);
      }
      FLOE_RETURN_IF_ERROR(wrote);
      for (size_t g = 0; g < groups.size(); ++g) {
        result.bytes_written += made[g].file_size_in_bytes;
        u.added_deletes.push_back(std::move(made[g]));
        for (DataFile& d : merged[g]) u.removed_deletes.push_back(std::move(d));
      }
    }
    // Iceberg's RowDelta: "delete" when it only adds deletes, "overwrite" with new rows too.
    u.operation = u.added.empty() ? "delete" : (u.added_deletes.empty() ? "append" : "overwrite");
    v.removed_by_delete = change.operation != RowLevelOperation::kDelete;
    if (change.operation != RowLevelOperation::kDelete) {
      v.new_deletes = CommitValidation::NewDeletes::kMatchingFilter;
    } else if (m.format_version >= 3) {
      v.new_deletes = CommitValidation::NewDeletes::kForFiles;  // one DV per data file
    }
    return {};
  }();
  if (!built) {
    RemoveWritten(io, written);
    return std::unexpected(built.error());
  }
  result.delete_files_added = static_cast<int64_t>(u.added_deletes.size());
  result.delete_files_removed = static_cast<int64_t>(u.removed_deletes.size());
  u.validation = std::move(v);
  auto committed = CommitSnapshot(catalog, io, table.id, u);
  if (!committed) {
    RemoveWritten(io, written);
    return std::unexpected(committed.error());
  }
  result.snapshot_id = committed->metadata.current_snapshot_id;
  return result;
}

}  // namespace floe::iceberg
