// Peer engines as arms of `floe bench --engines` (see peer_engines.h): the worker process, the
// question's request to it, and the proxy's counts of what it read.
#include "peer_engines.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "floe/sql/engine.h"

extern char** environ;

namespace floe::cli {

// tools/floe/peer_engine.py, embedded at build time (CMakeLists.txt generates its definition).
extern const char kPeerEnginePy[];

namespace {

// The interpreter for `engine`: FLOE_PEER_PYTHON, else the project's virtual environment that
// holds it, looked for in the directories above the running binary, else python3.
std::string PythonFor(const std::string& engine) {
  if (const char* p = std::getenv("FLOE_PEER_PYTHON"); p != nullptr && *p != '\0') return p;
  const std::string venv = engine == "duckdb" ? ".venv-tpch" : ".venv";
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  for (int up = 0; !ec && up < 6 && !dir.empty(); ++up, dir = dir.parent_path()) {
    const auto python = dir / venv / "bin" / "python";
    if (std::filesystem::exists(python, ec)) return python.string();
    if (dir == dir.parent_path()) break;
  }
  return "python3";
}

// One worker process: its stdin and stdout as pipes, its stderr in a log file.
class PeerProcess {
 public:
  static Result<std::unique_ptr<PeerProcess>> Start(const std::string& engine,
                                                    const std::string& python,
                                                    const std::string& log) {
    // A worker that dies makes a write to its pipe fail with EPIPE, reported as its end, rather
    // than killing floe with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return IOError("cannot create a pipe for the {} worker", engine);
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]);
      close(in[1]);
      return IOError("cannot create a pipe for the {} worker", engine);
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::string script = kPeerEnginePy;
    std::vector<std::string> args = {python, "-u", "-c", script};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
      close(in[1]);
      close(out[0]);
      return IOError("cannot start '{}' for the {} engine (log {}): {}", python, engine, log,
                     std::strerror(rc));
    }
    return std::unique_ptr<PeerProcess>(new PeerProcess(engine, log, pid, in[1], out[0]));
  }

  ~PeerProcess() {
    close(to_child_);  // end of input: the worker returns from its loop
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        close(from_child_);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    close(from_child_);
  }
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  // Sends one request and returns the worker's reply, or an error naming the engine: the reply's
  // own error, the worker's end (with the last line of its log), or no reply in `timeout_s`.
  Result<nlohmann::json> Ask(const nlohmann::json& request, int timeout_s) {
    if (!request.is_null()) {
      std::string line = request.dump() + "\n";
      for (size_t done = 0; done < line.size();) {
        ssize_t n = write(to_child_, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Ended();
        done += static_cast<size_t>(n);
      }
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    for (;;) {
      for (size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (!line.starts_with("@floe ")) continue;  // the engine's own output
        auto reply = nlohmann::json::parse(line.substr(6), nullptr, false);
        if (reply.is_discarded() || !reply.is_object())
          return IOError("the {} worker replied '{}'", engine_, line);
        if (reply.contains("error"))
          return std::unexpected(Error{
              ErrorKind::kIO, fmt::format("{}: {}", engine_, reply["error"].get<std::string>())});
        return reply;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return IOError("{} gave no answer in {} s (its log: {})", engine_, timeout_s, log_);
      pollfd p{from_child_, POLLIN, 0};
      int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      if (ready < 0 && errno != EINTR) return Ended();
      if (ready <= 0) continue;
      char chunk[65536];
      ssize_t n = read(from_child_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Ended();
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  PeerProcess(std::string engine, std::string log, pid_t pid, int to_child, int from_child)
      : engine_(std::move(engine)),
        log_(std::move(log)),
        pid_(pid),
        to_child_(to_child),
        from_child_(from_child) {}

  std::unexpected<Error> Ended() {
    std::ifstream in(log_);
    std::string line, last;
    while (std::getline(in, line))
      if (!line.empty()) last = line;
    return std::unexpected(
        Error{ErrorKind::kIO, fmt::format("the {} worker ended{}{} (its log: {})", engine_,
                                          last.empty() ? "" : ": ", last.substr(0, 300), log_)});
  }

  std::string engine_;
  std::string log_;
  pid_t pid_;
  int to_child_;
  int from_child_;
  std::string buffer_;
};

const char* OpName(iceberg::Op op) {
  switch (op) {
    case iceberg::Op::kTrue:
      return "true";
    case iceberg::Op::kFalse:
      return "false";
    case iceberg::Op::kAnd:
      return "and";
    case iceberg::Op::kOr:
      return "or";
    case iceberg::Op::kNot:
      return "not";
    case iceberg::Op::kIsNull:
      return "is_null";
    case iceberg::Op::kNotNull:
      return "not_null";
    case iceberg::Op::kEq:
      return "eq";
    case iceberg::Op::kNotEq:
      return "not_eq";
    case iceberg::Op::kLt:
      return "lt";
    case iceberg::Op::kLtEq:
      return "lt_eq";
    case iceberg::Op::kGt:
      return "gt";
    case iceberg::Op::kGtEq:
      return "gt_eq";
    case iceberg::Op::kIn:
      return "in";
    case iceberg::Op::kNotIn:
      return "not_in";
    case iceberg::Op::kStartsWith:
      return "starts_with";
    case iceberg::Op::kNotStartsWith:
      return "not_starts_with";
  }
  return "true";
}

nlohmann::json LiteralJson(const iceberg::Literal& v) {
  if (v.is_null()) return nullptr;
  switch (v.type()) {
    case iceberg::TypeId::kBoolean:
      return std::get<bool>(v.storage());
    case iceberg::TypeId::kInt:
      return v.AsInt();
    case iceberg::TypeId::kLong:
      return v.AsLong();
    case iceberg::TypeId::kFloat:
      return std::get<float>(v.storage());
    case iceberg::TypeId::kDouble:
      return std::get<double>(v.storage());
    default:
      return v.ToString();
  }
}

// The question for the worker: the statement and what it scans.
Result<nlohmann::json> Describe(const iceberg::Warehouse& w, const std::string& sql,
                                nlohmann::json* tables) {
  sql::Engine engine(w);
  FLOE_ASSIGN_OR_RETURN(auto scans, engine.DescribeScans(sql));
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : scans) {
    (*tables)[s.table] = s.metadata_location;
    out.push_back({{"table", s.table},
                   {"columns", s.columns},
                   {"filter", s.filter ? FilterJson(*s.filter) : nlohmann::json()}});
  }
  return out;
}

// Starts `engine`'s worker (a log beside the scratch files) and waits until it is ready.
Result<std::shared_ptr<PeerProcess>> StartWorker(const std::string& engine,
                                                 const PeerSetup& setup) {
  const std::string log = fmt::format("{}/{}.log", setup.scratch, engine);
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<PeerProcess> worker,
                        PeerProcess::Start(engine, PythonFor(engine), log));
  const char* home = std::getenv("HOME");
  nlohmann::json config = {
      {"engine", engine},
      {"catalog", setup.catalog},
      {"warehouse", setup.warehouse},
      {"s3", nullptr},
      {"jars",
       (std::filesystem::path(home != nullptr ? home : "/root") / ".cache/floe/jars").string()},
      {"scratch", setup.scratch},
      {"threads", setup.threads}};
  if (!setup.endpoint.empty()) {
    config["s3"] = {{"endpoint", setup.endpoint},
                    {"access_key", setup.access_key},
                    {"secret_key", setup.secret_key},
                    {"region", setup.region}};
  }
  if (const char* jars = std::getenv("FLOE_JARS"); jars != nullptr && *jars != '\0')
    config["jars"] = jars;
  // Spark's JVM start and its first Iceberg catalog take a while on two cores.
  FLOE_RETURN_IF_ERROR(worker->Ask(config, 600));
  return worker;
}

// The requests a statement made, counted by the proxy in a window around `run` (none without one).
template <typename Fn>
auto Counted(io::CountingProxy* proxy, Fn&& run)
    -> std::pair<decltype(run()), std::optional<io::RequestCounts>> {
  const std::string window = "floe-bench-peer";
  if (proxy != nullptr) proxy->StartWindow(window);
  auto got = run();
  std::optional<io::RequestCounts> counts;
  if (proxy != nullptr) counts = ProxyRequestCounts(proxy->Stats(window));
  return {std::move(got), counts};
}

}  // namespace

const std::vector<std::string>& PeerEngineNames() {
  static const std::vector<std::string> names = {"spark", "spark-aal", "duckdb", "pyiceberg"};
  return names;
}

nlohmann::json FilterJson(const iceberg::Expr& e) {
  nlohmann::json j = {{"op", OpName(e.op)}};
  if (e.is_predicate()) {
    j["column"] = e.column;
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : e.literals) values.push_back(LiteralJson(v));
    j["values"] = values;
  } else if (!e.children.empty()) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& c : e.children) args.push_back(FilterJson(*c));
    j["args"] = args;
  }
  return j;
}

io::RequestCounts ProxyRequestCounts(const io::ProxyStats& stats) {
  using K = io::S3RequestKind;
  const auto& r = stats.totals.requests;
  io::RequestCounts c;
  c.get = r[static_cast<int>(K::kGet)];
  c.head = r[static_cast<int>(K::kHead)];
  c.put = r[static_cast<int>(K::kPut)] + r[static_cast<int>(K::kPart)];
  c.multipart_parts = r[static_cast<int>(K::kPart)];
  c.post = r[static_cast<int>(K::kPost)];
  c.list = r[static_cast<int>(K::kList)];
  c.del = r[static_cast<int>(K::kDelete)];
  c.failed = stats.totals.errors;
  c.bytes_read = stats.totals.bytes_out;
  c.bytes_written = stats.totals.bytes_in;
  for (const auto& [key, counts] : stats.objects)
    if (counts.requests[static_cast<int>(K::kGet)] > 0) ++c.objects_read;
  return c;
}

int64_t DataFilesRead(const io::ProxyStats& stats) {
  int64_t n = 0;
  for (const auto& [key, counts] : stats.objects) {
    const std::string name = key.substr(key.rfind('/') + 1);
    if (name.ends_with(".parquet") && name.find("delete") == std::string::npos &&
        counts.requests[static_cast<int>(io::S3RequestKind::kGet)] > 0)
      ++n;
  }
  return n;
}

bench::EngineArm PeerEngineArm(const std::string& engine, const PeerSetup& setup) {
  bench::EngineArm arm;
  arm.name = engine;
  arm.questions = [engine, setup](const iceberg::Warehouse& w) -> Result<bench::QuestionFn> {
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<PeerProcess> worker, StartWorker(engine, setup));
    io::CountingProxy* proxy = setup.proxy;
    return bench::QuestionFn(
        [worker, proxy, w](const std::string& sql) -> Result<bench::QuestionOutcome> {
          nlohmann::json tables = nlohmann::json::object();
          FLOE_ASSIGN_OR_RETURN(nlohmann::json scans, Describe(w, sql, &tables));
          FLOE_RETURN_IF_ERROR(worker->Ask({{"op", "prepare"}, {"tables", tables}}, 600));
          const std::string window = "floe-bench-peer";
          proxy->StartWindow(window);
          FLOE_ASSIGN_OR_RETURN(nlohmann::json reply,
                                worker->Ask({{"op", "run"}, {"sql", sql}, {"scans", scans}}, 3600));
          const io::ProxyStats seen = proxy->Stats(window);
          bench::QuestionOutcome out;
          out.counts = ProxyRequestCounts(seen);
          out.data_files_opened = DataFilesRead(seen);
          out.rows = reply.value("rows", int64_t{0});
          out.first_value = reply.value("first", std::string());
          out.engine_ms = reply.value("ms", 0.0);
          return out;
        });
  };
  return arm;
}

bench::EngineWriterFactory SparkWriter(const PeerSetup& setup) {
  return [setup]() -> Result<bench::EngineWriter> {
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<PeerProcess> worker, StartWorker("spark", setup));
    io::CountingProxy* proxy = setup.proxy;
    bench::EngineWriter w;
    w.build = [worker](const bench::Design& d, const std::string& table,
                       const std::vector<std::string>& writes) -> Result<std::vector<std::string>> {
      nlohmann::json maintenance = nlohmann::json::array();
      for (const auto& m : d.maintenance) {
        nlohmann::json step = {{"strategy", m.strategy}, {"sort_by", m.sort_by}};
        if (m.target_file_size) step["target_file_size"] = *m.target_file_size;
        maintenance.push_back(step);
      }
      FLOE_ASSIGN_OR_RETURN(nlohmann::json reply, worker->Ask({{"op", "build"},
                                                               {"table", table},
                                                               {"writes", writes},
                                                               {"partition_by", d.partition_by},
                                                               {"sort_by", d.sort_by},
                                                               {"properties", d.TableProperties()},
                                                               {"maintenance", maintenance}},
                                                              3600));
      return reply.value("notes", std::vector<std::string>{});
    };
    w.change = [worker, proxy](const std::string& sql) -> Result<bench::QuestionOutcome> {
      auto [reply, counts] = Counted(proxy, [&] {
        return worker->Ask({{"op", "statement"}, {"sql", sql}}, 3600);
      });
      if (!reply) return std::unexpected(reply.error());
      bench::QuestionOutcome out;
      out.engine_ms = reply->value("ms", 0.0);
      out.counts = counts;
      return out;
    };
    w.file_ref = [](const std::string& path) { return "parquet.`" + path + "`"; };
    w.compact = [worker](const std::string& step, const std::string& table) -> Result<std::string> {
      // Iceberg's procedures, as Spark runs them: the counts are their first two columns.
      std::string sql, what;
      if (step == "rewrite_position_deletes") {
        sql = fmt::format("CALL system.rewrite_position_delete_files(table => '{}')", table);
        what = "delete files";
      } else {
        sql = fmt::format(
            "CALL system.rewrite_data_files(table => '{}', options => "
            "map('delete-file-threshold', '1'))",
            table);
        what = "data files";
      }
      FLOE_ASSIGN_OR_RETURN(nlohmann::json reply,
                            worker->Ask({{"op", "statement"}, {"sql", sql}}, 3600));
      const auto row = reply.value("row", std::vector<std::string>{});
      return fmt::format("Spark CALL {}: {} {} -> {}", step, row.size() > 0 ? row[0] : "?", what,
                         row.size() > 1 ? row[1] : "?");
    };
    return w;
  };
}

}  // namespace floe::cli
