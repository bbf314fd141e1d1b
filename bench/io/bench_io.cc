// floe_bench_io: requests/s and MB/s of ranged GETs (64 KiB by default) through SubmitReads at
// concurrency 1, 8, 32 and 64, against a LocalStore, the SimulatedStore over it (the embedded
// default store), and an S3 server when one is configured. Protocol: one warm-up batch per arm,
// then arms interleaved for N rounds (order alternating), median and min-max per cell. For the
// simulated store the model's own figure for the same batch ("ideal") is printed beside the
// measurement, so measured/ideal is the store's overhead.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/base/clock.h"
#include "floe/io/local_store.h"
#include "floe/io/s3_store.h"
#include "floe/io/simulated_store.h"
#include "floe/io/store_uri.h"

namespace floe::bench {
namespace {

struct Flags {
  int rounds = 5;
  int requests = 256;
  uint64_t object_size = 8ull << 20;
  int objects = 8;
  uint64_t range_size = 64 << 10;
  std::vector<int> concurrency = {1, 8, 32, 64};
  std::string dir;
  std::string simulate;
  std::string s3_endpoint;
  std::string s3_env;
  std::string s3_bucket = "floe-bench";
  uint64_t seed = 42;
};

struct Arm {
  std::string name;
  io::StorePtr store;
  bool simulated = false;
};

struct Cell {
  std::vector<double> ms;        // one per round
  std::vector<double> ideal_ms;  // simulated arm: the model's time for the same batch and draws
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Reads KEY=VALUE lines (optionally "export KEY=VALUE", optionally quoted), as s3_server.sh writes.
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

std::vector<io::ReadRequest> MakeRequests(const Flags& f, uint64_t seed) {
  std::mt19937_64 rng(seed);
  uint64_t slots = std::max<uint64_t>(1, f.object_size / f.range_size);
  std::vector<io::ReadRequest> out;
  for (int i = 0; i < f.requests; ++i) {
    int object = static_cast<int>(rng() % f.objects);
    uint64_t offset = (rng() % slots) * f.range_size;
    out.push_back(
        {fmt::format("bench-io/obj{:03}", object), io::Range::Bounded(offset, f.range_size)});
  }
  return out;
}

// One batch; returns its wall time in ms, or exits on a read error.
double RunBatch(const Arm& arm, std::vector<io::ReadRequest> requests, int concurrency) {
  std::atomic<uint64_t> bytes{0};
  std::atomic<int> errors{0};
  std::string first_error;
  std::mutex mu;
  Stopwatch watch;
  auto pending = arm.store->SubmitReads(
      std::move(requests),
      [&](size_t, Result<Buffer> r) {
        if (r) {
          bytes += r->size();
        } else if (errors++ == 0) {
          std::lock_guard lock(mu);
          first_error = r.error().ToString();
        }
      },
      io::BatchOptions{concurrency});
  pending->Wait();
  double ms = watch.ElapsedMs();
  if (errors > 0) {
    fmt::print(stderr, "floe_bench_io: {} reads failed on {}: {}\n", errors.load(), arm.name,
               first_error);
    std::exit(1);
  }
  return ms;
}

Status Populate(const Flags& f, io::ObjectStore& store) {
  for (int i = 0; i < f.objects; ++i) {
    std::mt19937_64 rng(f.seed + i);
    std::vector<uint8_t> data(f.object_size);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    FLOE_RETURN_IF_ERROR(store.Put(fmt::format("bench-io/obj{:03}", i), data));
  }
  return {};
}

// The S3 arm, if an endpoint is configured (flag, env file, or FLOE_S3_ENV); empty store if not.
Result<io::StorePtr> OpenS3(const Flags& f, std::string* description) {
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
  *description = fmt::format("{} bucket {}", s3.endpoint, f.s3_bucket);
  return io::OpenStore(fmt::format("s3://{}/bench-io-run", f.s3_bucket), s3);
}

int Main(int argc, char** argv) {
  Flags f;
  CLI::App app{"floe_bench_io: ranged-GET throughput of the object stores"};
  app.add_option("--rounds", f.rounds, "Measured rounds per cell (after one warm-up)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--requests", f.requests, "Ranged GETs per cell")->check(CLI::Range(1, 1000000));
  app.add_option("--object-size", f.object_size, "Size of each object read from (e.g. 8MiB)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--objects", f.objects, "Objects to spread the reads over")
      ->check(CLI::Range(1, 10000));
  app.add_option("--range-size", f.range_size, "Bytes per GET (e.g. 64KiB)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--concurrency", f.concurrency, "Concurrency levels (max_in_flight)")
      ->delimiter(',');
  app.add_option("--dir", f.dir, "Directory for the local store (default: a temp dir, removed)");
  app.add_option("--simulate", f.simulate, "Simulated-S3 settings (default: the defaults)");
  app.add_option("--s3-endpoint", f.s3_endpoint, "S3-compatible endpoint to add as an arm");
  app.add_option("--s3-env", f.s3_env,
                 "Env file from scripts/s3_server.sh (default: $FLOE_S3_ENV if set)");
  app.add_option("--s3-bucket", f.s3_bucket, "Bucket for the S3 arm (created if missing)");
  CLI11_PARSE(app, argc, argv);
  if (f.range_size == 0 || f.object_size < f.range_size) {
    fmt::print(stderr, "floe_bench_io: --range-size must be 1..--object-size\n");
    return 2;
  }
  auto sim_options = io::ParseSimulationOptions(f.simulate);
  if (!sim_options) {
    fmt::print(stderr, "floe_bench_io: {}\n", sim_options.error().ToString());
    return 2;
  }

  bool temp_dir = f.dir.empty();
  if (temp_dir) {
    f.dir = (std::filesystem::temp_directory_path() / fmt::format("floe-bench-io-{}", getpid()))
                .string();
  }
  auto local = io::LocalStore::Open(f.dir);
  if (!local) {
    fmt::print(stderr, "floe_bench_io: {}\n", local.error().ToString());
    return 1;
  }
  if (auto st = Populate(f, **local); !st) {
    fmt::print(stderr, "floe_bench_io: {}\n", st.error().ToString());
    return 1;
  }
  std::vector<Arm> arms;
  arms.push_back({"local", *local, false});
  arms.push_back({"simulated", std::make_shared<io::SimulatedStore>(*local, *sim_options), true});
  std::string s3_description;
  auto s3 = OpenS3(f, &s3_description);
  if (!s3) {
    fmt::print("s3 arm skipped: {}\n", s3.error().ToString());
  } else if (*s3) {
    if (auto st = Populate(f, **s3); !st) {
      fmt::print("s3 arm skipped: {}\n", st.error().ToString());
    } else {
      arms.push_back({"s3", *s3, false});
    }
  }

  fmt::print("floe_bench_io: {} B ranged GETs, {} per cell, {} objects of {} B, {} rounds\n",
             f.range_size, f.requests, f.objects, f.object_size, f.rounds);
  fmt::print("  local: {}\n  simulated: {}\n", (*local)->Uri(),
             io::FormatSimulationOptions(*sim_options));
  if (!s3_description.empty()) fmt::print("  s3: {}\n", s3_description);
#ifndef NDEBUG
  fmt::print("  (debug build: local-store figures are not representative)\n");
#endif
  std::fflush(stdout);

  // Warm-up: one batch per arm at the highest concurrency (page cache, threads, connections).
  int max_c = *std::max_element(f.concurrency.begin(), f.concurrency.end());
  for (const Arm& arm : arms) RunBatch(arm, MakeRequests(f, f.seed), max_c);

  // cells[arm][concurrency index]
  std::vector<std::vector<Cell>> cells(arms.size(), std::vector<Cell>(f.concurrency.size()));
  for (int round = 0; round < f.rounds; ++round) {
    for (size_t c = 0; c < f.concurrency.size(); ++c) {
      std::vector<io::ReadRequest> requests = MakeRequests(f, f.seed + 1000 * round + c);
      for (size_t k = 0; k < arms.size(); ++k) {
        size_t a = round % 2 == 0 ? k : arms.size() - 1 - k;  // A,B then B,A
        if (!arms[a].simulated) {
          cells[a][c].ms.push_back(RunBatch(arms[a], requests, f.concurrency[c]));
          continue;
        }
        // A fresh simulated store per batch, seeded so that the model can replay the same
        // latency draws: measured / ideal is then the store's own overhead, not jitter.
        io::SimulationOptions o = *sim_options;
        o.seed = sim_options->seed + 1000 * round + c;
        Arm run{arms[a].name, std::make_shared<io::SimulatedStore>(*local, o), true};
        cells[a][c].ms.push_back(RunBatch(run, requests, f.concurrency[c]));
        cells[a][c].ideal_ms.push_back(
            io::ModelBatchMs(o, f.requests, f.range_size, f.concurrency[c]));
      }
    }
    fmt::print(stderr, "round {}/{} done\n", round + 1, f.rounds);
  }

  double mb_per_request = static_cast<double>(f.range_size) / 1e6;
  fmt::print("\n{:<10} {:>5} | {:>9} {:>21} | {:>8} | {:>9} {:>8} {:>9}\n", "store", "conc",
             "req/s", "(min-max)", "MB/s", "ideal r/s", "meas/id", "ms/batch");
  fmt::print("{:-<10}-{:->5}-+-{:->9}-{:->21}-+-{:->8}-+-{:->9}-{:->8}-{:->9}\n", "", "", "", "",
             "", "", "", "");
  for (size_t a = 0; a < arms.size(); ++a) {
    for (size_t c = 0; c < f.concurrency.size(); ++c) {
      const Cell& cell = cells[a][c];
      double med = Median(cell.ms);
      auto [lo, hi] = std::minmax_element(cell.ms.begin(), cell.ms.end());
      double rps = f.requests / (med / 1000);
      std::string range =
          fmt::format("({:.0f}-{:.0f})", f.requests / (*hi / 1000), f.requests / (*lo / 1000));
      std::string ideal = "";
      std::string ratio = "";
      if (arms[a].simulated) {
        std::vector<double> ratios;
        for (size_t i = 0; i < cell.ms.size(); ++i) ratios.push_back(cell.ms[i] / cell.ideal_ms[i]);
        ideal = fmt::format("{:.0f}", f.requests / (Median(cell.ideal_ms) / 1000));
        ratio = fmt::format("{:.3f}", Median(ratios));
      }
      fmt::print("{:<10} {:>5} | {:>9.0f} {:>21} | {:>8.1f} | {:>9} {:>8} {:>9.1f}\n", arms[a].name,
                 f.concurrency[c], rps, range, rps * mb_per_request, ideal, ratio, med);
    }
  }

  if (temp_dir) {
    std::error_code ec;
    std::filesystem::remove_all(f.dir, ec);
  }
  for (const Arm& arm : arms) {
    if (arm.name != "s3") continue;
    for (int i = 0; i < f.objects; ++i)
      (void)arm.store->Delete(fmt::format("bench-io/obj{:03}", i));
  }
  return 0;
}

}  // namespace
}  // namespace floe::bench

int main(int argc, char** argv) { return floe::bench::Main(argc, argv); }
