// `floe gen events|orders|customers|store_sales --rows N --out PATH [--files K] [--seed S]
// [--overwrite]`: writes a generated workload as K Parquet files (the workload's writes: events 4,
// customers 8) under PATH, a local directory or a store URI. The generators are the bench module's.
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "cli.h"
#include "floe/base/clock.h"
#include "floe/base/progress.h"
#include "floe/bench/generators.h"
#include "floe/parquet/writer.h"

namespace floe::cli {
namespace {

struct GenArgs {
  std::string workload;
  int64_t rows = 0;
  std::string out;
  bool overwrite = false;
  int files = 0;
  uint64_t seed = 42;
};

int64_t BufferBytes(const columnar::Column& c) {
  int64_t n =
      static_cast<int64_t>(c.validity.size() + c.values.size() + c.offsets.size() + c.codes.size());
  for (const auto& child : c.children) n += BufferBytes(*child);
  if (c.dictionary) n += BufferBytes(*c.dictionary);
  return n;
}

// The generators build every row in memory before writing: refuse a row count that would not
// fit (it was OOM-killed at 21 GB), estimated from a sample of the workload's rows.
Status CheckFitsInMemory(bench::Workload workload, const GenArgs& a) {
  if (a.rows == 0) return {};
  bench::GenOptions sample;
  sample.rows = 8192;
  sample.seed = a.seed;
  FLOE_ASSIGN_OR_RETURN(auto batches, bench::Generate(workload, sample));
  int64_t bytes = 0, rows = 0;
  for (const auto& b : batches) {
    rows += b.num_rows;
    for (const auto& c : b.columns) bytes += BufferBytes(*c);
  }
  const double need = static_cast<double>(bytes) / std::max<int64_t>(rows, 1) * 2 *
                      static_cast<double>(a.rows);  // the rows, then their encoded files
  const double have = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  if (need > 0.75 * have) {
    return InvalidInput(
        "--rows {}: {} rows are generated in memory and would need about {:.1f} GB; this machine "
        "has {:.1f} GB",
        a.rows, a.workload, need / 1e9, have / 1e9);
  }
  return {};
}

// Whether `key` is a file floe gen writes: <workload>-NNNNN.parquet.
bool IsGenFile(std::string_view key) {
  for (std::string_view w : {"events", "orders", "customers", "store_sales"}) {
    if (!key.starts_with(w) || key.size() != w.size() + 1 + 5 + 8 || key[w.size()] != '-' ||
        !key.ends_with(".parquet")) {
      continue;
    }
    const std::string_view digits = key.substr(w.size() + 1, 5);
    if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return true;
    }
  }
  return false;
}

// An output folder must be empty -- files of an earlier run would mix with this one's -- unless
// --overwrite, which deletes what an earlier floe gen wrote there, and refuses (deleting nothing)
// when anything else is there.
Status ClearOutput(io::ObjectStore& store, const GenArgs& a) {
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> existing, store.ListAll(""));
  if (existing.empty()) return {};
  if (!a.overwrite) {
    return InvalidInput(
        "--out {} is not empty ({} files, e.g. '{}'): floe gen writes into an empty folder; "
        "--overwrite replaces the files an earlier floe gen wrote there",
        a.out, existing.size(), existing.front().key);
  }
  for (const io::ObjectInfo& o : existing) {
    if (!IsGenFile(o.key)) {
      return InvalidInput(
          "--overwrite: '{}' under {} is not a file floe gen writes; nothing was deleted", o.key,
          a.out);
    }
  }
  for (const io::ObjectInfo& o : existing) FLOE_RETURN_IF_ERROR(store.Delete(o.key));
  return {};
}

int Gen(const GlobalOptions& g, const GenArgs& a) {
  Stopwatch watch;
  auto workload = bench::ParseWorkload(a.workload);
  if (!workload) return ReportError(workload.error());
  if (a.rows < 0) return ReportError(Error{ErrorKind::kInvalidInput, "--rows must be >= 1"});
  if (a.files < 0 || a.files > 100000) {
    return ReportError(
        Error{ErrorKind::kInvalidInput, fmt::format("--files {}: expected 1 to 100000", a.files)});
  }
  if (auto fits = CheckFitsInMemory(*workload, a); !fits) return ReportError(fits.error());
  auto store = OpenStoreFor(g, a.out, false);
  if (!store) return ReportError(store.error());
  if (auto cleared = ClearOutput(**store, a); !cleared) return ReportError(cleared.error());
  bench::GenOptions o;
  o.rows = a.rows;
  o.seed = a.seed;
  o.writes = a.files;
  auto batches = bench::Generate(*workload, o);
  if (!batches) return ReportError(batches.error());
  int64_t total = 0, rows = 0;
  Progress progress("writing", batches->size(), "files");
  for (size_t i = 0; i < batches->size(); ++i) {
    const auto& b = (*batches)[i];
    parquet::MemorySink sink;
    auto writer = parquet::ParquetWriter::Open(b.schema, &sink);
    if (!writer) return ReportError(writer.error());
    if (auto s = (*writer)->Write(b); !s) return ReportError(s.error());
    auto written = (*writer)->Close();
    if (!written) return ReportError(written.error());
    std::string key = fmt::format("{}-{:05d}.parquet", a.workload, i);
    Buffer bytes = sink.ToBuffer();
    if (auto put = (*store)->Put(key, bytes.view()); !put) return ReportError(put.error());
    total += written->file_size;
    rows += b.num_rows;
    progress.Advance();
  }
  progress.Finish();
  fmt::print("generated {} {} rows (seed {}) -> {} files, {:.2f} MB under {} in {:.1f} s\n", rows,
             a.workload, a.seed, batches->size(), total / 1e6, a.out, watch.ElapsedSeconds());
  return 0;
}

}  // namespace

void AddGenCommand(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<GenArgs>();
  auto* cmd = app.add_subcommand(
      "gen", "Generate a workload table (events, orders, customers, store_sales) as Parquet files");
  cmd->add_option("workload", args->workload, "events, orders, customers or store_sales")
      ->required();
  cmd->add_option("--rows", args->rows,
                  "Rows (default: events 2000000, others 1000000, as in the chapter)");
  cmd->add_option("--out", args->out, "Output directory or store URI")->required();
  cmd->add_option("--files", args->files,
                  "Files = writes (default: events 4 in time order, customers 8 each spanning "
                  "the whole id range, orders and store_sales 1)");
  cmd->add_option("--seed", args->seed, "Seed; the same seed gives the same bytes (default 42)");
  cmd->add_flag("--overwrite", args->overwrite,
                "Replace the files an earlier floe gen wrote to --out (default: --out must be "
                "empty)");
  cmd->callback([&options, args] {
    int rc = Gen(options, *args);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
