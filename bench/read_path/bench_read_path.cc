// floe_bench_read_path: the Iceberg developers' experiment (REFERENCE.md) -- 20M rows in 250, 500,
// 1000 and 2000 Parquet files, a full scan and a 3-column projection, read through ReadScan under
// every read strategy on the SimulatedStore (defaults) and, when an endpoint is configured, a real
// S3 server. Prints requests per file (GET, HEAD), bytes, peak fetched bytes held, and the median
// time with min-max under the protocol (one warm-up per arm, arms interleaved, order alternating
// each round), ratios against floe, and the model's physical limit beside floe:
//   ceil(requests / concurrency) x first-byte latency + bytes / link bandwidth + local decode time.
// The footer cache is off for every arm: each round is a cold read, as the thread measured.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/base/clock.h"
#include "floe/columnar/column_builder.h"
#include "floe/exec/residual.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/io/counting_store.h"
#include "floe/io/local_store.h"
#include "floe/io/s3_store.h"
#include "floe/io/simulated_store.h"
#include "floe/io/store_uri.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/writer.h"

namespace floe::bench {
namespace {

struct Flags {
  int64_t rows = 20'000'000;
  std::vector<int> files = {250, 500, 1000, 2000};
  std::vector<std::string> strategies = {"floe", "parquet-mr", "aal", "eager", "arrow-rs"};
  int rounds = 3;
  std::string dir;
  std::string simulate;
  std::string s3_endpoint;
  std::string s3_env;
  std::string s3_bucket = "floe-bench";
  int request_budget = 64;
  int baseline_tasks = 4;
  int64_t whole_file_bytes = -1;  // floe's planner: files at most this long read whole; -1 default
};

// The table: 5 long columns shaped to the thread's ~7.5 bytes a row under zstd (594 KB for 80,000
// rows): a sequential id, a timestamp, a 16-value category, a quantity < 100, a 24-bit price.
constexpr int kColumns = 5;
const char* kNames[kColumns] = {"id", "ts", "category", "quantity", "price"};

iceberg::Schema TableSchema() {
  std::vector<iceberg::NestedField> f;
  for (int c = 0; c < kColumns; ++c) {
    f.push_back({c + 1, kNames[c], true, iceberg::Primitive(iceberg::TypeId::kLong)});
  }
  return iceberg::Schema(0, std::move(f));
}

uint64_t Mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 32);
}

Result<iceberg::DataFile> WriteFile(io::ObjectStore& store, const std::string& key, int64_t first,
                                    int64_t rows) {
  auto schema = std::make_shared<columnar::Schema>();
  for (int c = 0; c < kColumns; ++c) {
    schema->fields.push_back({kNames[c], columnar::Int64(), false, c + 1});
  }
  parquet::MemorySink sink;
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(schema, &sink));
  for (int64_t start = 0; start < rows; start += 65'536) {
    const int64_t n = std::min<int64_t>(65'536, rows - start);
    columnar::RecordBatch b;
    b.schema = schema;
    b.num_rows = n;
    std::vector<columnar::FixedWidthBuilder<int64_t>> cols;
    for (int c = 0; c < kColumns; ++c) cols.emplace_back(columnar::Int64());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = first + start + i;
      const uint64_t h = Mix(static_cast<uint64_t>(row));
      cols[0].Append(row);
      cols[1].Append(1'700'000'000'000'000 + row * 1000 + static_cast<int64_t>(h % 1000));
      cols[2].Append(static_cast<int64_t>((h >> 10) % 16));
      cols[3].Append(static_cast<int64_t>((h >> 20) % 100));
      cols[4].Append(static_cast<int64_t>((h >> 30) & 0xFFFFFF));
    }
    for (auto& c : cols) b.columns.push_back(c.Finish());
    FLOE_RETURN_IF_ERROR(writer->Write(b));
  }
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
  Buffer bytes = sink.ToBuffer();
  FLOE_RETURN_IF_ERROR(store.Put(key, bytes.view()));
  iceberg::DataFile f;
  f.file_path = key;
  f.record_count = rows;
  f.file_size_in_bytes = static_cast<int64_t>(bytes.size());
  for (const auto& rg : written.metadata.row_groups) {
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      if (rg.columns[c].meta_data) {
        f.column_sizes[static_cast<int32_t>(c + 1)] +=
            rg.columns[c].meta_data->total_compressed_size;
      }
    }
  }
  return f;
}

// The layout's files, written into `store` under "<n>/" on two threads.
Result<std::vector<iceberg::DataFile>> Layout(io::ObjectStore& store, int64_t rows, int n) {
  std::vector<iceberg::DataFile> files(static_cast<size_t>(n));
  std::atomic<int> next{0};
  std::mutex mu;
  std::optional<Error> error;
  auto work = [&] {
    for (int i; (i = next.fetch_add(1)) < n;) {
      const int64_t first = rows * i / n, last = rows * (i + 1) / n;
      auto f = WriteFile(store, fmt::format("{}/f{:05d}.parquet", n, i), first, last - first);
      std::lock_guard lock(mu);
      if (!f) {
        error = f.error();
        return;
      }
      files[static_cast<size_t>(i)] = std::move(*f);
    }
  };
  std::vector<std::thread> t;
  for (int w = 0; w < 2; ++w) t.emplace_back(work);
  for (auto& th : t) th.join();
  if (error) return std::unexpected(*error);
  return files;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Query {
  std::string name;
  iceberg::Schema projected;
};

struct Arm {
  parquet::ReadStrategy strategy;
  std::vector<double> ms;
  io::RequestCounts counts;  // of the last run
  int64_t peak_bytes = 0;
  int64_t rows = 0;
};

struct Target {
  std::string name;
  std::shared_ptr<io::CountingStore> counting;
  std::shared_ptr<iceberg::FileIO> io;
  bool simulated = false;
};

Result<Arm*> RunOnce(Arm* arm, const Target& t, const std::vector<iceberg::FileScanTask>& tasks,
                     const iceberg::Schema& projected, const Flags& f) {
  iceberg::ScanReadOptions o;
  o.strategy = arm->strategy;
  o.request_budget = f.request_budget;
  o.baseline_tasks = f.baseline_tasks;
  o.use_footer_cache = false;
  if (f.whole_file_bytes >= 0) o.planner.whole_file_bytes = f.whole_file_bytes;
  ScanMetrics stats;
  std::atomic<int64_t> rows{0};
  t.counting->Reset();
  Stopwatch sw;
  FLOE_RETURN_IF_ERROR(iceberg::ReadScan(
      tasks, projected, *t.io, o, iceberg::ScanHooks{exec::ResidualMatcher(), {}},
      [&](columnar::RecordBatch b) -> Status {
        rows += b.num_rows;
        return {};
      },
      &stats));
  arm->ms.push_back(sw.ElapsedMs());
  arm->counts = t.counting->Snapshot();
  arm->peak_bytes = std::max(arm->peak_bytes, stats.peak_buffered_bytes.value());
  arm->rows = rows.load();
  return arm;
}

std::map<std::string, std::string> ReadEnvFile(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("export ")) line = line.substr(7);
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    out[line.substr(0, eq)] = value;
  }
  return out;
}

Result<io::StorePtr> OpenS3(const Flags& f) {
  std::string env_file = f.s3_env;
  if (env_file.empty()) {
    if (const char* e = std::getenv("FLOE_S3_ENV")) env_file = e;
  }
  io::S3Options s3;
  if (!env_file.empty()) {
    auto env = ReadEnvFile(env_file);
    if (env.empty()) return InvalidInput("S3 env file '{}' is missing or empty", env_file);
    s3.endpoint = env["FLOE_S3_ENDPOINT"];
    s3.access_key_id = env["FLOE_S3_ACCESS_KEY"];
    s3.secret_access_key = env["FLOE_S3_SECRET_KEY"];
    s3.region = env["FLOE_S3_REGION"];
  }
  if (!f.s3_endpoint.empty()) s3.endpoint = f.s3_endpoint;
  if (s3.endpoint.empty()) return io::StorePtr();
  s3.path_style = true;
  s3.ApplyEnvironment();
  FLOE_ASSIGN_OR_RETURN(auto root, io::S3Store::Open(f.s3_bucket, "", s3));
  FLOE_RETURN_IF_ERROR(root->CreateBucket());
  return io::OpenStore(fmt::format("s3://{}/bench-read-path", f.s3_bucket), s3);
}

int Main(int argc, char** argv) {
  Flags f;
  CLI::App app{"floe_bench_read_path: the Iceberg thread's read experiment, every read strategy"};
  app.add_option("--rows", f.rows, "Rows of the table (the thread: 20M)")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--files", f.files, "File counts to lay the rows out in")->delimiter(',');
  app.add_option("--strategies", f.strategies, "Read strategies (first is the baseline of ratios)")
      ->delimiter(',');
  app.add_option("--rounds", f.rounds, "Measured rounds per arm (after one warm-up)")
      ->check(CLI::Range(1, 100));
  app.add_option("--dir", f.dir, "Directory for the generated files (default: a temp dir)");
  app.add_option("--simulate-s3", f.simulate, "SimulatedStore options (default: its defaults)");
  app.add_option("--request-budget", f.request_budget, "floe: requests in flight per scan");
  app.add_option("--baseline-tasks", f.baseline_tasks, "baselines: files read at once");
  app.add_option("--whole-file-bytes", f.whole_file_bytes,
                 "floe: files at most this long are read in one GET (default: the planner's, "
                 "2 MiB); for sweeping the threshold");
  app.add_option("--s3-endpoint", f.s3_endpoint, "S3-compatible endpoint to add as a target");
  app.add_option("--s3-env", f.s3_env, "Env file from scripts/s3_server.sh ($FLOE_S3_ENV)");
  CLI11_PARSE(app, argc, argv);

  std::vector<parquet::ReadStrategy> strategies;
  for (const std::string& s : f.strategies) {
    auto p = parquet::ParseReadStrategy(s);
    if (!p) {
      fmt::print(stderr, "floe_bench_read_path: {}\n", p.error().message);
      return 2;
    }
    strategies.push_back(*p);
  }
  auto sim = io::ParseSimulationOptions(f.simulate);
  if (!sim) {
    fmt::print(stderr, "floe_bench_read_path: --simulate-s3: {}\n", sim.error().message);
    return 2;
  }
  std::filesystem::path dir = f.dir.empty() ? std::filesystem::temp_directory_path() /
                                                  fmt::format("floe-bench-read-path-{}", getpid())
                                            : std::filesystem::path(f.dir);
  std::filesystem::create_directories(dir);
  auto local = io::LocalStore::Open(dir.string());
  if (!local) {
    fmt::print(stderr, "floe_bench_read_path: {}\n", local.error().message);
    return 1;
  }
  io::StorePtr local_store = *local;

  std::vector<Target> targets;
  {
    Target t;
    t.name = "simulated S3 (" + io::FormatSimulationOptions(*sim) + ")";
    t.counting = std::make_shared<io::CountingStore>(
        std::make_shared<io::SimulatedStore>(local_store, *sim));
    t.io = std::make_shared<iceberg::FileIO>(t.counting, "file://" + dir.string());
    t.simulated = true;
    targets.push_back(std::move(t));
  }
  auto s3 = OpenS3(f);
  if (!s3) {
    fmt::print(stderr, "floe_bench_read_path: S3: {}\n", s3.error().message);
    return 1;
  }
  if (*s3) {
    Target t;
    t.name = "S3 server " + (*s3)->Uri();
    t.counting = std::make_shared<io::CountingStore>(*s3);
    t.io = std::make_shared<iceberg::FileIO>(t.counting, (*s3)->Uri());
    targets.push_back(std::move(t));
  }
  // The local read: decode time for the physical limit.
  Target local_target;
  local_target.name = "local";
  local_target.counting = std::make_shared<io::CountingStore>(local_store);
  local_target.io =
      std::make_shared<iceberg::FileIO>(local_target.counting, "file://" + dir.string());

  const iceberg::Schema all = TableSchema();
  std::vector<Query> queries = {
      {"full scan", all},
      {"3 columns", iceberg::Schema(0, {*all.FindById(1), *all.FindById(3), *all.FindById(5)})}};

  fmt::print(
      "floe_bench_read_path: {} rows; request budget {} (floe), {} tasks (baselines); "
      "{} measured rounds after one warm-up per arm; footer cache off; floe reads files of at "
      "most {} bytes whole\n",
      f.rows, f.request_budget, f.baseline_tasks, f.rounds,
      f.whole_file_bytes >= 0 ? f.whole_file_bytes
                              : parquet::ReadPlannerOptions{}.whole_file_bytes);
  for (int n : f.files) {
    auto files = Layout(*local_store, f.rows, n);
    if (!files) {
      fmt::print(stderr, "floe_bench_read_path: writing {} files: {}\n", n, files.error().message);
      return 1;
    }
    int64_t total = 0;
    for (const auto& d : *files) total += d.file_size_in_bytes;
    fmt::print("\n== {} files, {:.0f} KB per file ({:.1f} MB in all)\n", n,
               static_cast<double>(total) / n / 1000, static_cast<double>(total) / 1e6);
    for (Target& t : targets) {
      std::vector<iceberg::FileScanTask> tasks;
      for (const auto& d : *files) {
        iceberg::FileScanTask task;
        task.file = d;
        task.file.file_path = t.io->LocationOf(d.file_path);
        task.residual = iceberg::True();
        tasks.push_back(std::move(task));
      }
      if (!t.simulated) {
        // Upload the layout to the S3 target once.
        for (const auto& d : *files) {
          auto bytes = local_store->Get(d.file_path);
          if (!bytes || !t.counting->inner()->Put(d.file_path, bytes->view())) {
            fmt::print(stderr, "floe_bench_read_path: uploading {} failed\n", d.file_path);
            return 1;
          }
        }
      }
      for (const Query& q : queries) {
        // Local decode time (floe on the plain local store), median of the rounds.
        std::vector<iceberg::FileScanTask> local_tasks = tasks;
        for (auto& lt : local_tasks)
          lt.file.file_path = local_target.io->LocationOf(*t.io->KeyOf(lt.file.file_path));
        Arm decode{parquet::ReadStrategy::kFloe, {}, {}, 0, 0};
        for (int r = 0; r <= f.rounds; ++r) {
          auto ok = RunOnce(&decode, local_target, local_tasks, q.projected, f);
          if (!ok) {
            fmt::print(stderr, "floe_bench_read_path: {}\n", ok.error().message);
            return 1;
          }
        }
        decode.ms.erase(decode.ms.begin());
        const double decode_ms = Median(decode.ms);

        std::vector<Arm> arms;
        for (auto s : strategies) arms.push_back(Arm{s, {}, {}, 0, 0});
        for (int r = -1; r < f.rounds; ++r) {  // r = -1: the warm-up of every arm
          for (size_t k = 0; k < arms.size(); ++k) {
            Arm& arm = arms[(r % 2 == 0) ? k : arms.size() - 1 - k];
            auto ok = RunOnce(&arm, t, tasks, q.projected, f);
            if (!ok) {
              fmt::print(stderr, "floe_bench_read_path: {}\n", ok.error().message);
              return 1;
            }
            if (r < 0) arm.ms.clear();
          }
        }
        fmt::print("\n-- {} / {} ({})\n", t.name, q.name, n);
        fmt::print("{:<11} {:>8} {:>8} {:>10} {:>10} {:>10} {:>19} {:>8}\n", "strategy", "GET/file",
                   "HEAD/fil", "MB", "peak MB", "rows", "median ms (min-max)",
                   "vs " + std::string(parquet::ReadStrategyName(arms[0].strategy)));
        const double base = Median(arms[0].ms);
        for (const Arm& a : arms) {
          const double med = Median(a.ms);
          fmt::print(
              "{:<11} {:>8.2f} {:>8.2f} {:>10.1f} {:>10.1f} {:>10} {:>8.0f} ({:.0f}-{:.0f}) "
              "{:>7.2f}x\n",
              parquet::ReadStrategyName(a.strategy), static_cast<double>(a.counts.get) / n,
              static_cast<double>(a.counts.head) / n,
              static_cast<double>(a.counts.bytes_read) / 1e6,
              static_cast<double>(a.peak_bytes) / 1e6, a.rows, med,
              *std::min_element(a.ms.begin(), a.ms.end()),
              *std::max_element(a.ms.begin(), a.ms.end()), med / base);
        }
        if (t.simulated) {
          const Arm& a = arms[0];
          const double requests = static_cast<double>(a.counts.get + a.counts.head);
          const double limit = std::ceil(requests / sim->concurrency) * sim->first_byte_ms +
                               static_cast<double>(a.counts.bytes_read) / (sim->total_mbps * 1e3) +
                               decode_ms;
          fmt::print(
              "physical limit for {}: ceil({:.0f} req / {}) x {} ms + {:.1f} MB / {} MB/s + "
              "decode {:.0f} ms = {:.0f} ms; measured / limit = {:.2f}\n",
              parquet::ReadStrategyName(a.strategy), requests, sim->concurrency, sim->first_byte_ms,
              static_cast<double>(a.counts.bytes_read) / 1e6, sim->total_mbps, decode_ms, limit,
              base / limit);
        }
        std::fflush(stdout);
      }
    }
  }
  if (f.dir.empty()) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace floe::bench

int main(int argc, char** argv) { return floe::bench::Main(argc, argv); }
