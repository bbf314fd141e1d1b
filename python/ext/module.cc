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
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "floe/base/clock.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/arrow_c_data.h"
#include "floe/columnar/arrow_c_stream.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/warehouse.h"
#include "floe/io/counting_store.h"
#include "floe/sql/engine.h"
#include "floe/sql/result_stream.h"

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
    for (const auto& s : stores_) {
      io::RequestCounts c = s->Snapshot();
      t.head += c.head;
      t.get += c.get;
      t.put += c.put;
      t.post += c.post;
      t.list += c.list;
      t.del += c.del;
      t.bytes_read += c.bytes_read;
      t.bytes_written += c.bytes_written;
    }
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
  std::shared_ptr<StoreCounters> counters;
  std::unique_ptr<sql::Engine> engine;
  std::mutex mu;
};

io::RequestCounts Minus(const io::RequestCounts& a, const io::RequestCounts& b) {
  io::RequestCounts d;
  d.head = a.head - b.head;
  d.get = a.get - b.get;
  d.put = a.put - b.put;
  d.post = a.post - b.post;
  d.list = a.list - b.list;
  d.del = a.del - b.del;
  d.bytes_read = a.bytes_read - b.bytes_read;
  d.bytes_written = a.bytes_written - b.bytes_written;
  return d;
}

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
    return nb::capsule(out, "arrow_array_stream", [](void* p) noexcept {
      auto* s = static_cast<ArrowArrayStream*>(p);
      if (s->release != nullptr) s->release(s);
      delete s;
    });
  }

  nb::object ArrowSchemaCapsule() const {
    auto* out = new ArrowSchema{};
    const sql::ResultStream* s = stream_ ? stream_.get() : held_.get();
    if (auto st = columnar::ExportSchema(*s->schema(), out); !st) {
      delete out;
      throw FloeException{st.error()};
    }
    return nb::capsule(out, "arrow_schema", [](void* p) noexcept {
      auto* s = static_cast<ArrowSchema*>(p);
      if (s->release != nullptr) s->release(s);
      delete s;
    });
  }

  // The four numbers and their detail: final once the rows have been read to the end.
  nb::dict Stats() {
    const sql::ResultStream* s = stream_ ? stream_.get() : held_.get();
    if (s->done() && !final_) {
      final_requests_ = Minus(session_->counters->Total(), before_);
      final_ms_ = watch_.ElapsedSeconds() * 1000.0;
      final_ = true;
    }
    ScanMetrics m = s->stats();
    io::RequestCounts r = final_ ? final_requests_ : Minus(session_->counters->Total(), before_);
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
    columnar::Schema schema = Check(iceberg::ToColumnarSchema(t.metadata.CurrentSchema()));
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

  nb::class_<PyTable>(m, "Table")
      .def_prop_ro("name", &PyTable::Name)
      .def("append", &PyTable::Append, "stream"_a)
      .def("schema_capsule", &PyTable::Schema)
      .def("snapshots", &PyTable::Snapshots)
      .def("describe", &PyTable::Describe)
      .def("scan", &PyTable::Scan, "filter"_a = nb::none(), "columns"_a = nb::none());

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
      .def_prop_ro("uri", &PyWarehouse::Uri);
}
