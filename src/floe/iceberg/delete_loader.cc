#include "floe/iceberg/delete_loader.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/delete_index.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/io/request_trace.h"
#include "floe/parquet/read_file.h"

namespace floe::iceberg {
namespace {

// Gaps between a Puffin file's wanted blobs read through rather than split into another request.
constexpr int64_t kPuffinReadThroughBytes = int64_t{1} << 20;

// A value's part of an equality key: the type's single-value serialisation, NaN made one value.
void AppendKeyPart(const Literal& v, std::string* key) {
  if (v.is_null()) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  const auto* d = std::get_if<double>(&v.storage());
  const auto* f = std::get_if<float>(&v.storage());
  const bool nan = (d != nullptr && std::isnan(*d)) || (f != nullptr && std::isnan(*f));
  const std::string bytes = nan ? std::string("nan") : SerializeBound(v);
  const auto n = static_cast<uint32_t>(bytes.size());
  key->append(reinterpret_cast<const char*>(&n), sizeof(n));
  key->append(bytes);
}

Result<std::string> KeyAt(const columnar::RecordBatch& batch, const Schema& columns, int64_t row) {
  std::string key;
  for (size_t c = 0; c < columns.fields().size(); ++c) {
    FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(*batch.columns[c], row, *columns.fields()[c].type));
    AppendKeyPart(v, &key);
  }
  return key;
}

bool HasFieldIds(const columnar::RecordBatch& b) {
  return std::any_of(b.schema->fields.begin(), b.schema->fields.end(),
                     [](const columnar::Field& f) { return f.field_id >= 0; });
}

std::vector<parquet::RowRange> ToRanges(std::vector<int64_t> positions, int64_t rows) {
  // One delete file's positions come sorted (the spec orders them by file and position).
  if (!std::is_sorted(positions.begin(), positions.end()))
    std::sort(positions.begin(), positions.end());
  std::vector<parquet::RowRange> out;
  for (int64_t p : positions) {
    if (p < 0 || p >= rows) continue;
    if (!out.empty() && out.back().end >= p) {
      out.back().end = std::max(out.back().end, p + 1);
    } else {
      out.push_back({p, p + 1});
    }
  }
  return out;
}

}  // namespace

EqualityDeleteSet::EqualityDeleteSet(std::vector<int32_t> ids, Schema columns)
    : ids_(std::move(ids)), columns_(std::move(columns)) {}

Status EqualityDeleteSet::AddRows(const columnar::RecordBatch& batch) {
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    FLOE_ASSIGN_OR_RETURN(std::string key, KeyAt(batch, columns_, r));
    keys_.insert(std::move(key));
  }
  return {};
}

Result<std::vector<uint8_t>> EqualityDeleteSet::Deleted(const columnar::RecordBatch& batch) const {
  std::vector<uint8_t> out(static_cast<size_t>(batch.num_rows), 0);
  if (keys_.empty()) return out;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    FLOE_ASSIGN_OR_RETURN(std::string key, KeyAt(batch, columns_, r));
    out[static_cast<size_t>(r)] = keys_.contains(key) ? 1 : 0;
  }
  return out;
}

DeleteLoader::DeleteLoader(const FileIO& io, const std::vector<FileScanTask>& tasks,
                           const Schema& table_schema, ScanMetrics* metrics)
    : io_(io), table_schema_(table_schema), metrics_(metrics) {
  std::map<std::string, std::map<std::string, const DataFile*>> seen;  // puffin -> data file
  for (const FileScanTask& t : tasks) {
    for (const DataFile& d : t.deletes) {
      if (IsDeletionVector(d)) seen[d.file_path].emplace(d.referenced_data_file.value_or(""), &d);
    }
  }
  for (auto& [puffin, dvs] : seen) {
    for (auto& [data, dv] : dvs) dvs_by_puffin_[puffin].push_back(dv);
  }
}

bool DeleteLoader::HasPositionDeletes(const FileScanTask& task) {
  return std::any_of(task.deletes.begin(), task.deletes.end(),
                     [](const DataFile& d) { return d.content == FileContent::kPositionDeletes; });
}

bool DeleteLoader::HasEqualityDeletes(const FileScanTask& task) {
  return std::any_of(task.deletes.begin(), task.deletes.end(),
                     [](const DataFile& d) { return d.content == FileContent::kEqualityDeletes; });
}

void DeleteLoader::Count(int64_t requests, int64_t heads, int64_t bytes) {
  if (metrics_ == nullptr) return;
  ++metrics_->delete_files_opened;
  metrics_->delete_requests += requests;
  metrics_->delete_bytes_fetched += bytes;
  metrics_->requests += requests;
  metrics_->heads += heads;
  metrics_->bytes_fetched += bytes;
}

template <typename T, typename Load>
Result<std::shared_ptr<const T>> DeleteLoader::Once(std::map<std::string, Shared<T>>* cache,
                                                    const std::string& key, Load load) {
  std::promise<Result<std::shared_ptr<const T>>> promise;
  Shared<T> future;
  bool mine = false;
  {
    std::lock_guard lock(mu_);
    auto it = cache->find(key);
    if (it == cache->end()) {
      future = promise.get_future().share();
      cache->emplace(key, future);
      mine = true;
    } else {
      future = it->second;
    }
  }
  if (mine) promise.set_value(load());
  return future.get();
}

Result<parquet::FileContents> DeleteLoader::ReadDeleteFile(const DataFile& f,
                                                           const parquet::ReadFileOptions& o,
                                                           std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(StoreObject object, io_.Resolve(f.file_path));
  parquet::FileHints hints;
  hints.file_length = static_cast<uint64_t>(std::max<int64_t>(0, f.file_size_in_bytes));
  io::RequestPurpose scope("deletes", what);
  auto contents = parquet::ReadFileAll(*object.store, object.key, hints, o);
  if (!contents) {
    Error e = contents.error();
    e.message = fmt::format("reading {} '{}': {}", what, f.file_path, e.message);
    return std::unexpected(e);
  }
  Count(contents->read.fetch.requests, contents->read.fetch.heads,
        contents->read.fetch.bytes_fetched);
  return contents;
}

Result<std::shared_ptr<const DeleteLoader::Positions>> DeleteLoader::LoadPositionFile(
    const DataFile& f) {
  if (f.file_format != "PARQUET" && f.file_format != "parquet") {
    return Unsupported("position delete file '{}' is {}; floe reads Parquet delete files",
                       f.file_path, f.file_format);
  }
  parquet::ReadFileOptions o;
  o.fetch.resolve = [](const parquet::FileReader& r, const parquet::ReadOptions& base) {
    parquet::ReadOptions read = base;
    if (r.schema().FindFieldId(kDeleteFilePathFieldId) != nullptr) {
      read.field_ids = {kDeleteFilePathFieldId, kDeletePosFieldId};
    } else {
      read.columns = {"file_path", "pos"};  // a writer that set no field ids
    }
    return Result<parquet::ReadOptions>(std::move(read));
  };
  FLOE_ASSIGN_OR_RETURN(parquet::FileContents contents,
                        ReadDeleteFile(f, o, "position delete file"));
  auto out = std::make_shared<Positions>();
  for (const columnar::RecordBatch& b : contents.batches) {
    if (b.num_columns() != 2 || b.columns[0]->type.id != columnar::TypeId::kString ||
        b.columns[1]->type.id != columnar::TypeId::kInt64) {
      return Corrupt(
          "position delete file '{}' lacks its file_path (string) and pos (long) columns",
          f.file_path);
    }
    const columnar::Column& paths = *b.columns[0];
    const columnar::Column& pos = *b.columns[1];
    // Rows come sorted by file_path: the map is looked up once per run of one path.
    std::vector<int64_t>* run = nullptr;
    std::string_view run_path;
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (paths.IsNull(r) || pos.IsNull(r)) {
        return Corrupt("position delete file '{}': row {} has a null file_path or pos", f.file_path,
                       r);
      }
      const std::string_view path = paths.BytesAt(r);
      if (run == nullptr || path != run_path) {
        run = &(*out)[std::string(path)];
        run_path = path;
      }
      run->push_back(pos.Value<int64_t>(r));
    }
  }
  for (auto& [path, p] : *out) std::sort(p.begin(), p.end());
  return std::shared_ptr<const Positions>(std::move(out));
}

Result<std::shared_ptr<const DeleteLoader::Positions>> DeleteLoader::LoadPuffin(
    const std::string& puffin_path) {
  auto it = dvs_by_puffin_.find(puffin_path);
  if (it == dvs_by_puffin_.end())
    return Internal("no deletion vector of '{}' in the scan", puffin_path);
  std::vector<const DataFile*> dvs = it->second;
  std::sort(dvs.begin(), dvs.end(), [](const DataFile* a, const DataFile* b) {
    return *a->content_offset < *b->content_offset;
  });
  // One request per run of blobs no more than kPuffinReadThroughBytes apart.
  struct Run {
    int64_t begin, end;
  };
  std::vector<Run> runs;
  for (const DataFile* d : dvs) {
    const int64_t b = *d->content_offset, e = b + *d->content_size_in_bytes;
    if (e > d->file_size_in_bytes && d->file_size_in_bytes > 0) {
      return Corrupt(
          "deletion vector of '{}' at bytes {}+{} lies beyond its Puffin file '{}' ({} bytes)",
          d->referenced_data_file.value_or(""), b, e - b, puffin_path, d->file_size_in_bytes);
    }
    if (!runs.empty() && b - runs.back().end <= kPuffinReadThroughBytes) {
      runs.back().end = std::max(runs.back().end, e);
    } else {
      runs.push_back({b, e});
    }
  }
  FLOE_ASSIGN_OR_RETURN(StoreObject object, io_.Resolve(puffin_path));
  std::vector<io::ReadRequest> requests;
  requests.reserve(runs.size());
  for (const Run& r : runs) {
    io::ReadRequest q;
    q.key = object.key;
    q.range =
        io::Range::Bounded(static_cast<uint64_t>(r.begin), static_cast<uint64_t>(r.end - r.begin));
    io::RequestPurpose::Label("deletes", "deletion vectors", &q);
    requests.push_back(std::move(q));
  }
  std::vector<Result<Buffer>> got = object.store->ReadAll(std::move(requests));
  int64_t bytes = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i]) {
      Error e = got[i].error();
      e.message = "reading deletion vectors of '" + puffin_path + "': " + e.message;
      return std::unexpected(e);
    }
    if (static_cast<int64_t>(got[i]->size()) != runs[i].end - runs[i].begin) {
      return Corrupt("puffin file '{}': bytes {}+{} came back as {} bytes (a short file?)",
                     puffin_path, runs[i].begin, runs[i].end - runs[i].begin, got[i]->size());
    }
    bytes += static_cast<int64_t>(got[i]->size());
  }
  Count(static_cast<int64_t>(got.size()), 0, bytes);
  auto out = std::make_shared<Positions>();
  size_t run = 0;
  for (const DataFile* d : dvs) {
    const int64_t b = *d->content_offset;
    while (runs[run].end < b + *d->content_size_in_bytes) ++run;
    const Buffer& buf = *got[run];
    const std::string name =
        fmt::format("of '{}' in '{}' (bytes {}+{})", d->referenced_data_file.value_or(""),
                    puffin_path, b, *d->content_size_in_bytes);
    FLOE_ASSIGN_OR_RETURN(
        std::vector<int64_t> positions,
        DecodeDeletionVector(ByteView(buf.data() + (b - runs[run].begin),
                                      static_cast<size_t>(*d->content_size_in_bytes)),
                             name));
    if (static_cast<int64_t>(positions.size()) != d->record_count) {
      return Corrupt("deletion vector {} holds {} positions; its manifest entry says {}", name,
                     positions.size(), d->record_count);
    }
    (*out)[*d->referenced_data_file] = std::move(positions);
  }
  return std::shared_ptr<const Positions>(std::move(out));
}

Result<std::shared_ptr<const EqualityDeleteSet>> DeleteLoader::LoadEqualityFile(const DataFile& f) {
  if (f.file_format != "PARQUET" && f.file_format != "parquet") {
    return Unsupported("equality delete file '{}' is {}; floe reads Parquet delete files",
                       f.file_path, f.file_format);
  }
  if (f.equality_ids.empty()) {
    return Corrupt("equality delete file '{}' has no equality_ids", f.file_path);
  }
  std::vector<NestedField> fields;
  for (int32_t id : f.equality_ids) {
    auto it = std::find_if(table_schema_.fields().begin(), table_schema_.fields().end(),
                           [&](const NestedField& n) { return n.id == id; });
    if (it == table_schema_.fields().end()) {
      return Unsupported(
          "equality delete file '{}' compares field id {}, which is not a top-level column of the "
          "table's schema",
          f.file_path, id);
    }
    if (!it->type || !it->type->IsPrimitive()) {
      return Unsupported("equality delete file '{}' compares column '{}', which is not primitive",
                         f.file_path, it->name);
    }
    NestedField field = *it;
    field.required = false;
    fields.push_back(std::move(field));
  }
  Schema columns(table_schema_.schema_id(), fields);
  parquet::ReadFileOptions o;
  o.fetch.read.field_ids = f.equality_ids;
  o.fetch.resolve = [&fields](const parquet::FileReader& r, const parquet::ReadOptions& base) {
    parquet::ReadOptions read = base;
    bool ids = false;
    for (const columnar::Field& x : r.arrow_schema().fields) ids |= x.field_id >= 0;
    if (!ids) {
      read.field_ids.clear();
      for (const NestedField& n : fields) read.columns.push_back(n.name);
    }
    return Result<parquet::ReadOptions>(std::move(read));
  };
  FLOE_ASSIGN_OR_RETURN(parquet::FileContents contents,
                        ReadDeleteFile(f, o, "equality delete file"));
  auto out = std::make_shared<EqualityDeleteSet>(f.equality_ids, columns);
  for (const columnar::RecordBatch& b : contents.batches) {
    auto conformed = ConformToSchema(b, columns, HasFieldIds(b));
    if (!conformed) {
      return Corrupt("equality delete file '{}': {}", f.file_path, conformed.error().message);
    }
    FLOE_RETURN_IF_ERROR(out->AddRows(*conformed));
  }
  return std::shared_ptr<const EqualityDeleteSet>(std::move(out));
}

Result<std::vector<parquet::RowRange>> DeleteLoader::PositionMask(const FileScanTask& task) {
  std::vector<int64_t> positions;
  const std::string& path = task.file.file_path;
  for (const DataFile& d : task.deletes) {
    if (d.content != FileContent::kPositionDeletes) continue;
    std::shared_ptr<const Positions> loaded;
    if (IsDeletionVector(d)) {
      FLOE_ASSIGN_OR_RETURN(loaded,
                            Once(&puffins_, d.file_path, [&] { return LoadPuffin(d.file_path); }));
    } else {
      const std::string key = fmt::format("{}#{}", d.file_path, d.file_size_in_bytes);
      FLOE_ASSIGN_OR_RETURN(loaded,
                            Once(&position_files_, key, [&] { return LoadPositionFile(d); }));
    }
    auto it = loaded->find(path);
    if (it != loaded->end())
      positions.insert(positions.end(), it->second.begin(), it->second.end());
  }
  std::vector<parquet::RowRange> mask = ToRanges(std::move(positions), task.file.record_count);
  if (metrics_) {
    int64_t rows = 0;
    for (const parquet::RowRange& r : mask) rows += r.end - r.begin;
    metrics_->rows_deleted += rows;
  }
  return mask;
}

void DeleteLoader::Prefetch(const DataFile& d) {
  const std::string key = fmt::format("{}#{}", d.file_path, d.file_size_in_bytes);
  if (IsDeletionVector(d)) {
    (void)Once(&puffins_, d.file_path, [&] { return LoadPuffin(d.file_path); });
  } else if (d.content == FileContent::kPositionDeletes) {
    (void)Once(&position_files_, key, [&] { return LoadPositionFile(d); });
  } else if (d.content == FileContent::kEqualityDeletes) {
    (void)Once(&equality_files_, key, [&] { return LoadEqualityFile(d); });
  }
}

Result<std::vector<std::pair<std::string, int64_t>>> DeleteLoader::AllPositions(const DataFile& d) {
  std::shared_ptr<const Positions> loaded;
  if (IsDeletionVector(d)) {
    FLOE_ASSIGN_OR_RETURN(loaded,
                          Once(&puffins_, d.file_path, [&] { return LoadPuffin(d.file_path); }));
  } else {
    const std::string key = fmt::format("{}#{}", d.file_path, d.file_size_in_bytes);
    FLOE_ASSIGN_OR_RETURN(loaded, Once(&position_files_, key, [&] { return LoadPositionFile(d); }));
  }
  std::vector<std::pair<std::string, int64_t>> out;
  std::vector<std::string> paths;
  for (const auto& [path, positions] : *loaded) {
    // A Puffin file's vectors are all loaded at once: keep this DV's file only.
    if (IsDeletionVector(d) && path != d.referenced_data_file) continue;
    paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    for (int64_t p : loaded->at(path)) out.emplace_back(path, p);
  }
  return out;
}

Result<std::vector<std::shared_ptr<const EqualityDeleteSet>>> DeleteLoader::EqualityDeletes(
    const FileScanTask& task) {
  std::vector<std::shared_ptr<const EqualityDeleteSet>> out;
  for (const DataFile& d : task.deletes) {
    if (d.content != FileContent::kEqualityDeletes) continue;
    const std::string key = fmt::format("{}#{}", d.file_path, d.file_size_in_bytes);
    FLOE_ASSIGN_OR_RETURN(auto set,
                          Once(&equality_files_, key, [&] { return LoadEqualityFile(d); }));
    out.push_back(std::move(set));
  }
  return out;
}

}  // namespace floe::iceberg
