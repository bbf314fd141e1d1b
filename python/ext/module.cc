// floe._floe: the extension module under the Python package (python/floe/__init__.py). A thin
// layer: a warehouse session (the iceberg module's Warehouse and a SQL engine over it), tables by
// name, appends from Arrow streams, and results as Arrow streams (sql/result_stream.h). Data
// crosses as Arrow C Data Interface capsules, both ways, so nothing is copied where the layouts
// agree. floe's errors become floe.FloeError with floe's one-line message. The GIL is released
// while floe works.
#include <cctype>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "floe/base/clock.h"
#include "floe/base/thread_pool.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/arrow_c_data.h"
#include "floe/columnar/arrow_c_stream.h"
#include "floe/exec/table_scan.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/warehouse.h"
#include "floe/iceberg/write_plan.h"
#include "floe/iceberg/write_task.h"
#include "floe/io/counting_store.h"
#include "floe/sql/engine.h"
#include "floe/sql/result_stream.h"
#include "floe/sql/table_filter.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace floe::python {
namespace {

// Carries a floe Error to the translator that raises floe.FloeError.
struct FloeException : std::exception {
  explicit FloeException(Error e) : error(std::move(e)) {}
  const char* what() const noexcept override { return error.message.c_str(); }
  Error error;
};

template <typename T>
T Check(Result<T> r) {
  if (!r) throw FloeException{r.error()};
  return std::move(*r);
}
void Check(const Status& s) {
  if (!s) throw FloeException{s.error()};
}

// Capsules as the Arrow PyCapsule interface names them, releasing what they hold when Python
// drops them unread.
nb::capsule StreamCapsule(ArrowArrayStream* stream) {
  return nb::capsule(stream, "arrow_array_stream", [](void* p) noexcept {
    auto* s = static_cast<ArrowArrayStream*>(p);
    if (s->release != nullptr) s->release(s);
    delete s;
  });
}

nb::capsule SchemaCapsule(const columnar::Schema& schema) {
  auto* out = new ArrowSchema{};
  if (auto st = columnar::ExportSchema(schema, out); !st) {
    delete out;
    throw FloeException{st.error()};
  }
  return nb::capsule(out, "arrow_schema", [](void* p) noexcept {
    auto* s = static_cast<ArrowSchema*>(p);
    if (s->release != nullptr) s->release(s);
    delete s;
  });
}

// The requests and bytes of every store the warehouse opened (its own, and any other root a
// table reaches), summed: a statement's are the difference across it.
class StoreCounters {
 public:
  Result<io::StorePtr> Wrap(io::StorePtr store) {
    auto counting = std::make_shared<io::CountingStore>(std::move(store));
    std::lock_guard lock(mu_);
    stores_.push_back(counting);
    return io::StorePtr(counting);
  }
  io::RequestCounts Total() const {
    std::lock_guard lock(mu_);
    io::RequestCounts t;
    for (const auto& s : stores_) t += s->Snapshot();
    return t;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<io::CountingStore>> stores_;
};

// One Python Warehouse: the warehouse, its store counters, and the SQL engine whose session
// (SET) statements change. Statements with effects run on it, one at a time; queries run on a
// copy of it, each on a thread of its own, so results may be read in any order.
struct Session {
  iceberg::Warehouse warehouse;
  io::S3Options s3;  // as the warehouse was opened: what a write plan hands its tasks
  std::shared_ptr<StoreCounters> counters;
  std::unique_ptr<sql::Engine> engine;
  std::mutex mu;
};

// A statement's result: an Arrow stream of its rows (one reader), its numbers and its message.
class PyResult {
 public:
  PyResult(std::shared_ptr<Session> session, std::unique_ptr<sql::ResultStream> stream,
           io::RequestCounts before, Stopwatch watch)
      : session_(std::move(session)), stream_(std::move(stream)), before_(before), watch_(watch) {}

  nb::object ArrowStream(nb::object requested_schema) {
    if (consumed_) {
      throw FloeException{Error{ErrorKind::kInvalidInput,
                                "this result's rows were already read (run the query again)"}};
    }
    consumed_ = true;
    auto* out = new ArrowArrayStream{};
    std::shared_ptr<sql::ResultStream> stream = std::move(stream_);
    columnar::BatchSource next = [stream]() { return stream->Next(); };
    Check(columnar::ExportStream(stream->schema(), std::move(next), out));
    held_ = stream;
    return StreamCapsule(out);
  }

  nb::object ArrowSchemaCapsule() const {
    const sql::ResultStream* s = stream_ ? stream_.get() : held_.get();
    return SchemaCapsule(*s->schema());
  }

  // The four numbers and their detail: final once the rows have been read to the end.
  nb::dict Stats() {
    const sql::ResultStream* s = stream_ ? stream_.get() : held_.get();
    if (s->done() && !final_) {
      final_requests_ = session_->counters->Total().Since(before_);
      final_ms_ = watch_.ElapsedSeconds() * 1000.0;
      final_ = true;
    }
    ScanMetrics m = s->stats();
    io::RequestCounts r = final_ ? final_requests_ : session_->counters->Total().Since(before_);
    nb::dict d;
    d["complete"] = final_;
    d["data_files_opened"] = m.data_files_opened.value();
    nb::dict skipped;
    skipped["partition"] = m.data_files_skipped_partition.value();
    skipped["bounds"] = m.data_files_skipped_bounds.value();
    skipped["index"] = m.data_files_skipped_index.value();
    skipped["sample"] = m.data_files_skipped_sample.value();
    skipped["join"] = m.data_files_skipped_join.value();
    d["data_files_skipped"] = skipped;
    d["delete_files_opened"] = m.delete_files_opened.value();
    d["rows_deleted"] = m.rows_deleted.value();
    d["row_groups_read"] = m.row_groups_read.value();
    d["row_groups_skipped"] = m.row_groups_skipped.value();
    d["pages_skipped"] = m.pages_skipped.value();
    nb::dict req;
    req["GET"] = r.get;
    req["HEAD"] = r.head;
    req["PUT"] = r.put;
    req["POST"] = r.post;
    req["LIST"] = r.list;
    req["DELETE"] = r.del;
    d["requests"] = req;
    d["bytes_fetched"] = r.bytes_read;
    d["bytes_written"] = r.bytes_written;
    d["wall_ms"] = final_ ? final_ms_ : watch_.ElapsedSeconds() * 1000.0;
    return d;
  }

  std::string Message() const {
    const sql::ResultStream* s = stream_ ? stream_.get() : held_.get();
    return s->message();
  }

 private:
  std::shared_ptr<Session> session_;
  std::shared_ptr<sql::ResultStream> stream_;
  std::shared_ptr<sql::ResultStream> held_;  // after the stream was handed out, for stats
  bool consumed_ = false;
  io::RequestCounts before_;
  Stopwatch watch_;
  bool final_ = false;
  io::RequestCounts final_requests_;
  double final_ms_ = 0;
};

// Statements that change nothing and answer rows stream from a copy of the session's engine;
// the rest (DML, DDL, CALL, SET) run on the session's engine at once, one at a time.
bool IsQuery(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size()) {
    if (std::isspace(static_cast<unsigned char>(sql[i])) != 0 || sql[i] == '(') {
      ++i;
    } else if (sql.substr(i, 2) == "--") {
      i = sql.find('\n', i);
      if (i == std::string_view::npos) return false;
    } else if (sql.substr(i, 2) == "/*") {
      i = sql.find("*/", i);
      if (i == std::string_view::npos) return false;
      i += 2;
    } else {
      break;
    }
  }
  std::string word;
  while (i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i])) != 0) {
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i++])));
  }
  return word == "select" || word == "with" || word == "values" || word == "from" ||
         word == "table" || word == "describe" || word == "show" || word == "explain";
}

std::unique_ptr<PyResult> RunSql(const std::shared_ptr<Session>& session, std::string sql) {
  Stopwatch watch;
  io::RequestCounts before = session->counters->Total();
  std::unique_ptr<sql::ResultStream> stream;
  {
    nb::gil_scoped_release release;
    if (IsQuery(sql)) {
      std::unique_ptr<sql::Engine> engine;
      {
        std::lock_guard lock(session->mu);
        engine = std::make_unique<sql::Engine>(*session->engine);
      }
      stream = Check(sql::ResultStream::Start(std::move(engine), std::move(sql), {}));
    } else {
      // Runs to its end on the session's engine before returning: its effects (a commit, a
      // setting) hold whether or not its rows are read.
      std::lock_guard lock(session->mu);
      stream = sql::ResultStream::Finished(Check(session->engine->Execute(sql, {})));
    }
  }
  return std::make_unique<PyResult>(session, std::move(stream), before, watch);
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string QuoteTableName(const catalog::TableIdentifier& id) {
  std::string out;
  for (const auto& part : id.ns) out += QuoteIdentifier(part) + ".";
  return out + QuoteIdentifier(id.name);
}

// The ArrowArrayStream a capsule holds (as __arrow_c_stream__ gives it), taken over.
columnar::ImportedStream TakeStream(nb::capsule capsule) {
  auto* raw =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (raw == nullptr) throw nb::python_error();
  return Check(columnar::ImportedStream::Take(raw));
}

std::vector<columnar::RecordBatch> ReadAll(columnar::ImportedStream& stream) {
  std::vector<columnar::RecordBatch> out;
  while (true) {
    auto batch = Check(stream.Next());
    if (!batch) break;
    out.push_back(std::move(*batch));
  }
  return out;
}

// Batches floe made, handed out as one Arrow stream (read once).
class PyBatches {
 public:
  PyBatches(columnar::SchemaPtr schema, std::vector<columnar::RecordBatch> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}
  nb::object ArrowStream(nb::object /*requested_schema*/) {
    if (consumed_) {
      throw FloeException{Error{ErrorKind::kInvalidInput, "these rows were already read"}};
    }
    consumed_ = true;
    auto* out = new ArrowArrayStream{};
    auto left = std::make_shared<std::vector<columnar::RecordBatch>>(std::move(batches_));
    size_t next_index = 0;
    columnar::BatchSource next =
        [left, next_index]() mutable -> Result<std::optional<columnar::RecordBatch>> {
      if (next_index >= left->size()) return std::optional<columnar::RecordBatch>();
      return std::optional<columnar::RecordBatch>((*left)[next_index++]);
    };
    Check(columnar::ExportStream(schema_, std::move(next), out));
    return StreamCapsule(out);
  }

 private:
  columnar::SchemaPtr schema_;
  std::vector<columnar::RecordBatch> batches_;
  bool consumed_ = false;
};

// A planned write (iceberg/write_plan.h): plain data, as JSON across processes.
class PyWritePlan {
 public:
  explicit PyWritePlan(iceberg::WritePlan plan) : plan_(std::move(plan)) {}
  static PyWritePlan FromJson(const std::string& text) {
    return PyWritePlan(Check(iceberg::WritePlan::FromJson(text)));
  }
  std::string ToJson() const { return plan_.ToJson(); }
  std::string Table() const { return plan_.table.ToString(); }
  std::string WriteId() const { return plan_.write_id; }
  bool NeedsSample() const { return plan_.NeedsSample(); }
  double SampleFraction() const { return plan_.sample_fraction; }
  bool IsOTree() const { return plan_.otree_base.has_value(); }

  // The rows of `stream` this plan samples (all columns), as one Arrow stream.
  std::unique_ptr<PyBatches> Sample(nb::capsule stream_capsule) const {
    columnar::ImportedStream stream = TakeStream(stream_capsule);
    nb::gil_scoped_release release;
    std::vector<columnar::RecordBatch> out;
    columnar::SchemaPtr schema;
    for (columnar::RecordBatch& b : ReadAll(stream)) {
      columnar::RecordBatch s = Check(iceberg::SampleForPlan(plan_, b));
      schema = s.schema;
      if (s.num_rows > 0) out.push_back(std::move(s));
    }
    if (schema == nullptr) {
      schema = std::make_shared<const columnar::Schema>(
          Check(iceberg::ToColumnarSchema(plan_.metadata.CurrentSchema())));
    }
    return std::make_unique<PyBatches>(std::move(schema), std::move(out));
  }

  // This plan with its OTree layout fixed from the samples (streams of Sample's rows).
  PyWritePlan WithSamples(const std::vector<nb::capsule>& capsules) const {
    std::vector<columnar::ImportedStream> streams;
    streams.reserve(capsules.size());
    for (const nb::capsule& c : capsules) streams.push_back(TakeStream(c));
    nb::gil_scoped_release release;
    std::vector<columnar::RecordBatch> samples;
    for (columnar::ImportedStream& s : streams) {
      for (columnar::RecordBatch& b : ReadAll(s)) samples.push_back(std::move(b));
    }
    iceberg::WritePlan fixed = plan_;
    Check(iceberg::FixPlanLayout(&fixed, samples));
    return PyWritePlan(std::move(fixed));
  }

  const iceberg::WritePlan& plan() const { return plan_; }

 private:
  iceberg::WritePlan plan_;
};

// The FileIO tasks of this process read and write through, one per store root and S3 settings,
// kept for the process's life (an S3 store holds its connections).
struct StoreSettings {
  std::string endpoint;
  std::string region;
  bool path_style = false;
};
std::shared_ptr<iceberg::FileIO> TaskIO(const std::string& location, const StoreSettings& s3) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<iceberg::FileIO>> ios;
  auto loc = Check(iceberg::Location::Parse(location));
  const std::string key =
      loc.root + "|" + s3.endpoint + "|" + s3.region + "|" + (s3.path_style ? "path" : "host");
  std::lock_guard lock(mu);
  auto& io = ios[key];
  if (io == nullptr) {
    iceberg::WritePlan where;  // OpenPlanIO needs only the location and the S3 settings
    where.metadata.location = location;
    where.s3_endpoint = s3.endpoint;
    where.s3_region = s3.region;
    where.s3_path_style = s3.path_style;
    io = Check(iceberg::OpenPlanIO(where));
  }
  return io;
}
std::shared_ptr<iceberg::FileIO> TaskIO(const iceberg::WritePlan& plan) {
  return TaskIO(plan.metadata.location, {plan.s3_endpoint, plan.s3_region, plan.s3_path_style});
}

// One part of a scan split across processes: `paths` of the table at `metadata_location` (the
// snapshot the driver planned), the rows where `filter` holds, `columns` (all when empty).
std::unique_ptr<PyBatches> ReadFiles(const std::string& table_name,
                                     const std::string& metadata_location,
                                     std::optional<int64_t> snapshot_id,
                                     std::vector<std::string> paths, const std::string& filter,
                                     const std::vector<std::string>& columns,
                                     const std::string& s3_endpoint, const std::string& s3_region,
                                     bool s3_path_style) {
  nb::gil_scoped_release release;
  std::shared_ptr<iceberg::FileIO> io =
      TaskIO(metadata_location, {s3_endpoint, s3_region, s3_path_style});
  iceberg::Table table = Check(iceberg::LoadStaticTable(*io, metadata_location));
  table.id = Check(catalog::TableIdentifier::Parse(table_name));  // what the filter names
  exec::TableScanOptions o;
  const iceberg::Schema& schema = table.metadata.CurrentSchema();
  if (columns.empty()) {
    for (const auto& f : schema.fields()) o.field_ids.push_back(f.id);
  } else {
    for (const std::string& c : columns) {
      const iceberg::NestedField* f = schema.FindByName(c);
      if (f == nullptr) {
        throw FloeException{Error{ErrorKind::kNotFound, fmt::format("column '{}' not found in {}",
                                                                    c, metadata_location)}};
      }
      o.field_ids.push_back(f->id);
    }
  }
  if (!filter.empty()) o.filter = Check(sql::BindTableFilter(filter, table));
  o.snapshot_id = snapshot_id;
  o.only_files = std::move(paths);
  std::mutex mu;
  std::vector<columnar::RecordBatch> batches;
  ScanMetrics metrics;
  Check(exec::ScanTable(
      table, *io, o,
      [&](int, columnar::RecordBatch b) -> Status {
        std::lock_guard lock(mu);
        if (b.num_rows > 0) batches.push_back(std::move(b));
        return {};
      },
      &metrics));
  columnar::SchemaPtr out_schema;
  if (!batches.empty()) {
    out_schema = batches.front().schema;
  } else {
    std::vector<iceberg::NestedField> fields;
    for (int32_t id : o.field_ids) fields.push_back(*schema.FindById(id));
    out_schema = std::make_shared<const columnar::Schema>(
        Check(iceberg::ToColumnarSchema(iceberg::Schema(schema.schema_id(), std::move(fields)))));
  }
  return std::make_unique<PyBatches>(std::move(out_schema), std::move(batches));
}

nb::bytes WriteTask(const PyWritePlan& plan, nb::capsule stream_capsule, int64_t task) {
  columnar::ImportedStream stream = TakeStream(stream_capsule);
  std::string bytes;
  {
    nb::gil_scoped_release release;
    std::shared_ptr<iceberg::FileIO> io = TaskIO(plan.plan());
    columnar::BatchSource next = [&stream]() { return stream.Next(); };
    iceberg::WriteTaskResult r = Check(iceberg::RunWriteTask(*io, plan.plan(), task, next));
    bytes = r.Serialize(plan.plan());
  }
  return nb::bytes(bytes.data(), bytes.size());
}

std::vector<iceberg::WriteTaskResult> TaskResults(const iceberg::WritePlan& plan,
                                                  const std::vector<nb::bytes>& results) {
  std::vector<iceberg::WriteTaskResult> out;
  for (const nb::bytes& b : results) {
    out.push_back(Check(iceberg::WriteTaskResult::Deserialize(
        plan, std::string_view(static_cast<const char*>(b.data()), b.size()))));
  }
  return out;
}

// What one task's result holds, for a look at it: rows, and its files' paths, rows and bytes.
nb::dict TaskSummary(const PyWritePlan& plan, const nb::bytes& result) {
  auto r = Check(iceberg::WriteTaskResult::Deserialize(
      plan.plan(), std::string_view(static_cast<const char*>(result.data()), result.size())));
  nb::dict d;
  d["task"] = r.task;
  d["rows"] = r.rows;
  nb::list files;
  for (const auto& f : r.files) {
    nb::dict fd;
    fd["path"] = f.file_path;
    fd["rows"] = f.record_count;
    fd["bytes"] = f.file_size_in_bytes;
    files.append(fd);
  }
  d["files"] = files;
  return d;
}

class PyTable {
 public:
  PyTable(std::shared_ptr<Session> session, catalog::TableIdentifier id)
      : session_(std::move(session)), id_(std::move(id)) {}

  std::string Name() const { return id_.ToString(); }

  iceberg::Table Load() const {
    return Check(iceberg::LoadTable(*session_->warehouse.catalog, *session_->warehouse.io, id_));
  }

  // Appends the rows of an Arrow stream capsule in one commit.
  nb::dict Append(nb::capsule stream_capsule) {
    auto* raw = static_cast<ArrowArrayStream*>(
        PyCapsule_GetPointer(stream_capsule.ptr(), "arrow_array_stream"));
    if (raw == nullptr) throw nb::python_error();
    int64_t rows = 0;
    std::vector<iceberg::DataFile> files;
    int64_t snapshot_id = 0;
    {
      nb::gil_scoped_release release;
      auto stream = Check(columnar::ImportedStream::Take(raw));
      iceberg::Table table = Load();
      iceberg::TableDataWriter writer(table, *session_->warehouse.io);
      while (true) {
        auto batch = Check(stream.Next());
        if (!batch) break;
        Check(writer.Write(*batch));
      }
      rows = writer.rows();
      if (rows > 0) {
        files = Check(writer.Finish());
        iceberg::SnapshotUpdate update;
        update.added = files;
        auto committed = iceberg::CommitSnapshot(*session_->warehouse.catalog,
                                                 *session_->warehouse.io, id_, update);
        if (!committed) {
          for (const auto& f : files) (void)session_->warehouse.io->Delete(f.file_path);
          throw FloeException{committed.error()};
        }
        snapshot_id = committed->metadata.CurrentSnapshot()->snapshot_id;
      }
    }
    nb::dict d;
    d["rows"] = rows;
    d["data_files"] = files.size();
    int64_t bytes = 0;
    for (const auto& f : files) bytes += f.file_size_in_bytes;
    d["bytes"] = bytes;
    d["snapshot_id"] = rows > 0 ? nb::cast(snapshot_id) : nb::none();
    return d;
  }

  nb::object Schema() const {
    iceberg::Table t = [&] {
      nb::gil_scoped_release release;
      return Load();
    }();
    return SchemaCapsule(Check(iceberg::ToColumnarSchema(t.metadata.CurrentSchema())));
  }

  std::vector<nb::dict> Snapshots() const {
    iceberg::Table t = [&] {
      nb::gil_scoped_release release;
      return Load();
    }();
    std::vector<nb::dict> out;
    for (const auto& s : t.metadata.snapshots) {
      nb::dict d;
      d["snapshot_id"] = s.snapshot_id;
      d["parent_id"] = s.parent_snapshot_id ? nb::cast(*s.parent_snapshot_id) : nb::none();
      d["sequence_number"] = s.sequence_number;
      d["timestamp_ms"] = s.timestamp_ms;
      auto op = s.summary.find("operation");
      d["operation"] = op != s.summary.end() ? nb::cast(op->second) : nb::none();
      d["summary"] = s.summary;
      d["manifest_list"] = s.manifest_list;
      out.push_back(std::move(d));
    }
    return out;
  }

  nb::dict Describe() const {
    iceberg::Table t = [&] {
      nb::gil_scoped_release release;
      return Load();
    }();
    nb::dict d;
    d["name"] = id_.ToString();
    d["location"] = t.metadata.location;
    d["metadata_location"] = t.metadata_location;
    d["format_version"] = t.metadata.format_version;
    d["properties"] = t.metadata.properties;
    const iceberg::Snapshot* current = t.metadata.CurrentSnapshot();
    d["current_snapshot_id"] = current != nullptr ? nb::cast(current->snapshot_id) : nb::none();
    return d;
  }

  // A scan planned here and read elsewhere: the metadata file and snapshot it reads, and the
  // data files the filter keeps (path, rows, bytes).
  nb::dict PlanRead(const std::string& filter) const {
    iceberg::Table t;
    iceberg::ScanPlan plan;
    {
      nb::gil_scoped_release release;
      t = Load();
      iceberg::ScanOptions o;
      if (!filter.empty()) o.filter = Check(sql::BindTableFilter(filter, t));
      plan = Check(iceberg::PlanFiles(t, *session_->warehouse.io, o));
    }
    nb::dict d;
    d["table"] = id_.ToString();
    d["metadata_location"] = t.metadata_location;
    d["snapshot_id"] = plan.snapshot ? nb::cast(plan.snapshot->snapshot_id) : nb::none();
    nb::list files;
    for (const auto& task : plan.tasks) {
      files.append(nb::make_tuple(task.file.file_path, task.file.record_count,
                                  task.file.file_size_in_bytes));
    }
    d["files"] = files;
    d["s3_endpoint"] = session_->s3.endpoint;
    d["s3_region"] = session_->s3.region;
    d["s3_path_style"] = session_->s3.path_style;
    return d;
  }

  std::unique_ptr<PyResult> Scan(std::optional<std::string> filter,
                                 std::optional<std::vector<std::string>> columns) {
    std::string select;
    if (!columns || columns->empty()) {
      select = "*";
    } else {
      for (const auto& c : *columns) {
        if (!select.empty()) select += ", ";
        select += QuoteIdentifier(c);
      }
    }
    std::string sql = "SELECT " + select + " FROM " + QuoteTableName(id_);
    if (filter && !filter->empty()) sql += " WHERE " + *filter;
    return RunSql(session_, std::move(sql));
  }

 private:
  std::shared_ptr<Session> session_;
  catalog::TableIdentifier id_;
};

class PyWarehouse {
 public:
  PyWarehouse(std::string uri, std::optional<std::string> catalog, bool create,
              std::optional<std::string> s3_endpoint, std::optional<std::string> s3_region,
              bool s3_path_style) {
    iceberg::WarehouseOptions o;
    o.uri = std::move(uri);
    o.catalog = catalog.value_or("");
    o.create_if_missing = create;
    o.s3.endpoint = s3_endpoint.value_or("");
    o.s3.region = s3_region.value_or("");
    o.s3.path_style = s3_path_style;
    auto counters = std::make_shared<StoreCounters>();
    o.decorate = [counters](io::StorePtr store) { return counters->Wrap(std::move(store)); };
    nb::gil_scoped_release release;
    iceberg::Warehouse w = Check(iceberg::OpenWarehouse(o));
    session_ = std::make_shared<Session>();
    session_->warehouse = w;
    session_->s3 = o.s3;
    session_->counters = counters;
    session_->engine = std::make_unique<sql::Engine>(w);
  }

  PyTable CreateTable(const std::string& name, nb::capsule schema_capsule,
                      const std::string& partition_by, const std::string& sort_by,
                      const std::map<std::string, std::string>& properties,
                      std::optional<int> format_version) {
    auto* arrow =
        static_cast<ArrowSchema*>(PyCapsule_GetPointer(schema_capsule.ptr(), "arrow_schema"));
    if (arrow == nullptr) throw nb::python_error();
    auto id = Check(catalog::TableIdentifier::Parse(name));
    columnar::Schema columns = Check(columnar::ImportSchema(*arrow));
    int32_t next_id = 1;
    for (const auto& f : columns.fields) next_id = std::max(next_id, f.field_id + 1);
    iceberg::Schema schema = Check(iceberg::FromColumnarSchema(columns, &next_id));
    iceberg::PartitionSpec spec = Check(iceberg::PartitionSpec::Parse(partition_by, schema));
    iceberg::SortOrder order;
    if (!sort_by.empty()) order = Check(iceberg::SortOrder::Parse(sort_by, schema));
    nb::gil_scoped_release release;
    Check(iceberg::CreateTable(*session_->warehouse.catalog, *session_->warehouse.io, id,
                               {schema, spec, order, properties, "", format_version}));
    return PyTable(session_, id);
  }

  PyTable LoadTable(const std::string& name) {
    auto id = Check(catalog::TableIdentifier::Parse(name));
    nb::gil_scoped_release release;
    (void)Check(iceberg::LoadTable(*session_->warehouse.catalog, *session_->warehouse.io, id));
    return PyTable(session_, id);
  }

  std::vector<std::string> Tables(std::optional<std::string> ns) {
    nb::gil_scoped_release release;
    std::vector<std::string> namespaces;
    if (ns) {
      namespaces.push_back(*ns);
    } else {
      namespaces = Check(session_->warehouse.catalog->ListNamespaces());
    }
    std::vector<std::string> out;
    for (const auto& n : namespaces) {
      for (const auto& id : Check(session_->warehouse.catalog->ListTables(n))) {
        out.push_back(id.ToString());
      }
    }
    return out;
  }

  std::vector<std::string> Namespaces() {
    nb::gil_scoped_release release;
    return Check(session_->warehouse.catalog->ListNamespaces());
  }

  void DropTable(const std::string& name, bool purge) {
    auto id = Check(catalog::TableIdentifier::Parse(name));
    nb::gil_scoped_release release;
    Check(iceberg::DropTable(*session_->warehouse.catalog, *session_->warehouse.io, id, purge));
  }

  PyWritePlan PlanWrite(const std::string& name, int64_t expected_rows, int64_t sample_rows) {
    auto id = Check(catalog::TableIdentifier::Parse(name));
    nb::gil_scoped_release release;
    iceberg::PlanWriteOptions o;
    o.s3 = session_->s3;
    o.expected_rows = expected_rows;
    o.sample_rows = sample_rows;
    return PyWritePlan(
        Check(iceberg::PlanWrite(*session_->warehouse.catalog, *session_->warehouse.io, id, o)));
  }

  nb::dict CommitWrite(const PyWritePlan& plan, const std::vector<nb::bytes>& results) {
    // A result that does not parse is refused before anything is committed or removed.
    std::vector<iceberg::WriteTaskResult> parsed = TaskResults(plan.plan(), results);
    iceberg::CommittedWrite done;
    {
      nb::gil_scoped_release release;
      done = Check(iceberg::CommitWrite(*session_->warehouse.catalog, *session_->warehouse.io,
                                        plan.plan(), parsed));
    }
    nb::dict d;
    d["rows"] = done.rows;
    d["data_files"] = done.data_files;
    d["bytes"] = done.bytes;
    const iceberg::Snapshot* s = done.table.metadata.CurrentSnapshot();
    d["snapshot_id"] = done.data_files > 0 && s != nullptr ? nb::cast(s->snapshot_id) : nb::none();
    return d;
  }

  void AbortWrite(const PyWritePlan& plan, const std::vector<nb::bytes>& results) {
    std::vector<iceberg::WriteTaskResult> parsed = TaskResults(plan.plan(), results);
    nb::gil_scoped_release release;
    Check(iceberg::AbortWrite(*session_->warehouse.io, parsed));
  }

  std::unique_ptr<PyResult> Sql(std::string text) { return RunSql(session_, std::move(text)); }

  std::string Uri() const { return session_->warehouse.store->Uri(); }

 private:
  std::shared_ptr<Session> session_;
};

}  // namespace
}  // namespace floe::python

NB_MODULE(_floe, m) {
  using namespace floe::python;
  m.doc() = "floe's engine: Iceberg warehouses, tables and SQL, with data as Arrow streams";

  nb::exception<FloeException>(m, "FloeError", PyExc_RuntimeError);

  nb::class_<PyResult>(m, "Result")
      .def("__arrow_c_stream__", &PyResult::ArrowStream, "requested_schema"_a = nb::none())
      .def("__arrow_c_schema__", &PyResult::ArrowSchemaCapsule)
      .def_prop_ro("stats", &PyResult::Stats)
      .def_prop_ro("message", &PyResult::Message);

  nb::class_<PyBatches>(m, "Batches")
      .def("__arrow_c_stream__", &PyBatches::ArrowStream, "requested_schema"_a = nb::none());

  nb::class_<PyWritePlan>(m, "WritePlan")
      .def_static("from_json", &PyWritePlan::FromJson, "text"_a)
      .def("to_json", &PyWritePlan::ToJson)
      .def_prop_ro("table", &PyWritePlan::Table)
      .def_prop_ro("write_id", &PyWritePlan::WriteId)
      .def_prop_ro("needs_sample", &PyWritePlan::NeedsSample)
      .def_prop_ro("sample_fraction", &PyWritePlan::SampleFraction)
      .def_prop_ro("is_otree", &PyWritePlan::IsOTree)
      .def("sample", &PyWritePlan::Sample, "stream"_a)
      .def("with_samples", &PyWritePlan::WithSamples, "streams"_a);

  m.def("write_task", &WriteTask, "plan"_a, "stream"_a, "task"_a);
  m.def("threads", [] { return floe::Cores(); });
  m.def("task_summary", &TaskSummary, "plan"_a, "result"_a);
  m.def("read_files", &ReadFiles, "table"_a, "metadata_location"_a, "snapshot_id"_a, "paths"_a,
        "filter"_a, "columns"_a, "s3_endpoint"_a = "", "s3_region"_a = "",
        "s3_path_style"_a = false);

  nb::class_<PyTable>(m, "Table")
      .def_prop_ro("name", &PyTable::Name)
      .def("append", &PyTable::Append, "stream"_a)
      .def("schema_capsule", &PyTable::Schema)
      .def("snapshots", &PyTable::Snapshots)
      .def("describe", &PyTable::Describe)
      .def("scan", &PyTable::Scan, "filter"_a = nb::none(), "columns"_a = nb::none())
      .def("plan_read", &PyTable::PlanRead, "filter"_a = "");

  nb::class_<PyWarehouse>(m, "Warehouse")
      .def(nb::init<std::string, std::optional<std::string>, bool, std::optional<std::string>,
                    std::optional<std::string>, bool>(),
           "uri"_a, "catalog"_a = nb::none(), "create"_a = true, "s3_endpoint"_a = nb::none(),
           "s3_region"_a = nb::none(), "s3_path_style"_a = false)
      .def("create_table", &PyWarehouse::CreateTable, "name"_a, "schema"_a, "partition_by"_a = "",
           "sort_by"_a = "", "properties"_a = std::map<std::string, std::string>(),
           "format_version"_a = nb::none())
      .def("load_table", &PyWarehouse::LoadTable, "name"_a)
      .def("tables", &PyWarehouse::Tables, "namespace"_a = nb::none())
      .def("namespaces", &PyWarehouse::Namespaces)
      .def("drop_table", &PyWarehouse::DropTable, "name"_a, "purge"_a = false)
      .def("sql", &PyWarehouse::Sql, "text"_a)
      .def("plan_write", &PyWarehouse::PlanWrite, "name"_a, "expected_rows"_a = 0,
           "sample_rows"_a = 200000)
      .def("commit_write", &PyWarehouse::CommitWrite, "plan"_a, "results"_a)
      .def("abort_write", &PyWarehouse::AbortWrite, "plan"_a, "results"_a)
      .def_prop_ro("uri", &PyWarehouse::Uri);
}
