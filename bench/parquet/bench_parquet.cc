// floe_bench_parquet: one timed Parquet write by floe of a generated table, for
// bench/parquet/run.py, which interleaves it with pyarrow writing the same rows (same formulas, see
// run.py) and prints the comparison. Data generation is not timed; the write (open, batches, close
// into memory) is.
//
//   floe_bench_parquet --table events|dim [--rows N] [--out file.parquet] [--codec zstd]
//                      [--level 3] [--row-group-rows 1048576]
// prints one JSON line: {"table", "rows", "write_seconds", "file_bytes", "input_bytes"}.
//
//   floe_bench_parquet --read FILE [--warmup W] [--repeat N]
// decodes every column of FILE on one thread (read from a local directory through the store API,
// as any table read is), batch by batch as a query consumes them -- each batch dropped before the
// next, as DuckDB's arm streams its aggregate -- and prints {"read_seconds", "rows", "file_bytes"}
// for the fastest of N, after W unmeasured runs (the protocol's pre-warm: the DuckDB arm runs in a
// process that has scanned before too).
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/columnar/column_builder.h"
#include "floe/io/local_store.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/read_file.h"
#include "floe/parquet/writer.h"

namespace {

using namespace floe;
using namespace floe::columnar;

// h(i, k): splitmix64's finaliser over i and a column salt; run.py computes the same in numpy.
inline uint64_t H(uint64_t i, uint64_t k) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + k * 0xD1B54A32D192ED03ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::shared_ptr<Schema> MakeSchema(std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->fields = std::move(fields);
  return s;
}

template <typename T>
ColumnPtr Numbers(DataType type, int64_t start, int64_t n, auto fn) {
  FixedWidthBuilder<T> b(type);
  b.Reserve(n);
  for (int64_t i = start; i < start + n; ++i)
    b.Append(static_cast<T>(fn(static_cast<uint64_t>(i))));
  return b.Finish();
}

// Values from a small dictionary of strings; null where null(i).
ColumnPtr Strings(int64_t start, int64_t n, const std::vector<std::string>& dict, auto pick,
                  auto null) {
  BinaryBuilder b(String());
  b.Reserve(n, n * 12);
  for (int64_t i = start; i < start + n; ++i) {
    const uint64_t u = static_cast<uint64_t>(i);
    if (null(u)) {
      b.AppendNull();
    } else if (!b.Append(dict[pick(u)])) {
      std::fprintf(stderr, "string column too large\n");
      std::exit(1);
    }
  }
  return b.Finish();
}

const std::vector<std::string> kEventTypes = {"view",   "click",  "add_to_cart", "purchase",
                                              "refund", "search", "login",       "logout"};

std::vector<std::string> Skus() {
  std::vector<std::string> out;
  char buf[32];
  for (int k = 0; k < 20000; ++k) {
    std::snprintf(buf, sizeof buf, "SKU-%06d", k);
    out.push_back(buf);
  }
  return out;
}

struct Table {
  SchemaPtr schema;
  std::vector<RecordBatch> batches;
  int64_t input_bytes = 0;
};

void Add(Table* t, std::vector<ColumnPtr> cols, int64_t n) {
  for (const auto& c : cols) {
    t->input_bytes +=
        static_cast<int64_t>(c->values.size() + c->offsets.size() + c->validity.size());
  }
  RecordBatch b;
  b.schema = t->schema;
  b.columns = std::move(cols);
  b.num_rows = n;
  t->batches.push_back(std::move(b));
}

constexpr int64_t kBatchRows = 1 << 16;

Table Events(int64_t rows) {
  Table t;
  t.schema = MakeSchema({{"ts", Timestamp(TimeUnit::kMicro, "UTC"), false, 1},
                         {"customer_id", Int64(), false, 2},
                         {"event_type", String(), false, 3},
                         {"amount", Float64(), false, 4},
                         {"sku", String(), false, 5},
                         {"quantity", Int32(), false, 6}});
  const auto skus = Skus();
  auto never = [](uint64_t) { return false; };
  for (int64_t start = 0; start < rows; start += kBatchRows) {
    const int64_t n = std::min(kBatchRows, rows - start);
    Add(&t,
        {Numbers<int64_t>(t.schema->fields[0].type, start, n,
                          [](uint64_t i) {
                            return static_cast<int64_t>(1700000000000000ull + i * 77760 +
                                                        H(i, 0) % 1000000);
                          }),
         Numbers<int64_t>(Int64(), start, n,
                          [](uint64_t i) { return static_cast<int64_t>(H(i, 1) % 500 + 1000); }),
         Strings(
             start, n, kEventTypes, [](uint64_t i) { return H(i, 2) % 8; }, never),
         Numbers<double>(Float64(), start, n,
                         [](uint64_t i) { return static_cast<double>(H(i, 3) % 100000) / 100.0; }),
         Strings(
             start, n, skus, [](uint64_t i) { return H(i, 4) % 20000; }, never),
         Numbers<int32_t>(Int32(), start, n,
                          [](uint64_t i) { return static_cast<int32_t>(H(i, 5) % 10 + 1); })},
        n);
  }
  return t;
}

// A 60-column customer dimension: id, then 59 mostly low-cardinality attributes cycling through
// string / int32 / int64 / double, cardinality 5, 20, 100, 1000; every eighth column 10% null.
Table Dimension(int64_t rows) {
  Table t;
  std::vector<Field> fields = {{"id", Int64(), false, 1}};
  static const int64_t kCard[4] = {5, 20, 100, 1000};
  for (int c = 0; c < 59; ++c) {
    const int kind = c % 4;
    const DataType type = kind == 0   ? String()
                          : kind == 1 ? Int32()
                          : kind == 2 ? Int64()
                                      : Float64();
    std::string name = "a";
    name += std::to_string(c);
    fields.push_back({name, type, true, c + 2});
  }
  t.schema = MakeSchema(fields);
  std::vector<std::vector<std::string>> dicts(59);
  for (int c = 0; c < 59; c += 4) {
    for (int64_t k = 0; k < kCard[(c / 4) % 4]; ++k) {
      std::string v = "a";
      v += std::to_string(c);
      v += "_";
      v += std::to_string(k);
      dicts[c].push_back(v);
    }
  }
  for (int64_t start = 0; start < rows; start += kBatchRows) {
    const int64_t n = std::min(kBatchRows, rows - start);
    std::vector<ColumnPtr> cols = {
        Numbers<int64_t>(Int64(), start, n, [](uint64_t i) { return static_cast<int64_t>(i); })};
    for (int c = 0; c < 59; ++c) {
      const uint64_t salt = static_cast<uint64_t>(c) + 10;
      const uint64_t card = static_cast<uint64_t>(kCard[(c / 4) % 4]);
      const bool nullable = c % 8 == 0;
      switch (c % 4) {
        case 0:
          cols.push_back(Strings(
              start, n, dicts[c], [&](uint64_t i) { return H(i, salt) % card; },
              [&](uint64_t i) { return nullable && H(i, salt + 100) % 10 == 0; }));
          break;
        case 1:
          cols.push_back(Numbers<int32_t>(Int32(), start, n, [&](uint64_t i) {
            return static_cast<int32_t>(H(i, salt) % card);
          }));
          break;
        case 2:
          cols.push_back(Numbers<int64_t>(Int64(), start, n, [&](uint64_t i) {
            return static_cast<int64_t>(H(i, salt) % (card * 10));
          }));
          break;
        default:
          cols.push_back(Numbers<double>(Float64(), start, n, [&](uint64_t i) {
            return static_cast<double>(H(i, salt) % 1000) / 10.0;
          }));
          break;
      }
    }
    Add(&t, std::move(cols), n);
  }
  return t;
}

// The full-scan arm: every column of `path` decoded, fastest of `repeat` after `warmup` runs.
int ReadMain(const std::string& path, int repeat, int warmup, int64_t batch_bytes) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string key = slash == std::string::npos ? path : path.substr(slash + 1);
  auto store = io::LocalStore::Open(dir);
  if (!store) {
    std::fprintf(stderr, "floe_bench_parquet: %s\n", store.error().ToString().c_str());
    return 1;
  }
  auto head = (*store)->Head(key);
  if (!head) {
    std::fprintf(stderr, "floe_bench_parquet: %s\n", head.error().ToString().c_str());
    return 1;
  }
  double best = 0;
  int64_t rows = 0;
  for (int r = -std::max(warmup, 0); r < std::max(repeat, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto scanned = [&]() -> Result<int64_t> {
      FLOE_ASSIGN_OR_RETURN(Buffer bytes, (*store)->Get(key));
      FLOE_ASSIGN_OR_RETURN(auto opened,
                            parquet::FileReader::Open(key, bytes.size(), bytes.view()));
      if (!opened.reader) return Corrupt("'{}' is not a whole Parquet file", key);
      parquet::ReadOptions options;
      options.batch_bytes = batch_bytes;
      FLOE_ASSIGN_OR_RETURN(parquet::ReadPlan plan, opened.reader->Plan(options));
      parquet::FetchedBytes all;
      all.Add(0, bytes);
      FLOE_ASSIGN_OR_RETURN(parquet::BatchReader batches,
                            opened.reader->Decode(std::move(plan), std::move(all)));
      int64_t n = 0;
      while (true) {
        FLOE_ASSIGN_OR_RETURN(auto batch, batches.Next());
        if (!batch) break;
        n += batch->num_rows;
      }
      return n;
    }();
    if (!scanned) {
      std::fprintf(stderr, "floe_bench_parquet: %s\n", scanned.error().ToString().c_str());
      return 1;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r < 0) continue;
    if (r == 0 || seconds < best) best = seconds;
    rows = *scanned;
  }
  std::printf("{\"read_seconds\": %.6f, \"rows\": %lld, \"file_bytes\": %lld}\n", best,
              static_cast<long long>(rows), static_cast<long long>(head->size));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // As the floe binary does (tools/floe/main.cc): freed column buffers stay in the heap for the
  // next batch instead of returning to the kernel and faulting in zeroed pages again.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  CLI::App app{"floe Parquet write benchmark (one timed write; see bench/parquet/run.py)"};
  std::string table = "events", out, codec = "zstd", read;
  int64_t rows = -1, row_group_rows = 1 << 20;
  int level = 3, repeat = 1, warmup = 0;
  app.add_option("--table", table, "events | dim")->check(CLI::IsMember({"events", "dim"}));
  app.add_option("--rows", rows, "rows (default: events 10M, dim 1M)");
  app.add_option("--out", out, "also write the file here");
  app.add_option("--codec", codec, "zstd | snappy | uncompressed")
      ->check(CLI::IsMember({"zstd", "snappy", "uncompressed"}));
  app.add_option("--level", level, "compression level");
  app.add_option("--row-group-rows", row_group_rows, "rows per row group");
  app.add_option("--repeat", repeat, "write this many times, report the fastest (for profiling)");
  app.add_option("--warmup", warmup, "--read: unmeasured decodes first (default 0)");
  int64_t batch_bytes = parquet::kDefaultBatchBytes;
  app.add_option("--batch-bytes", batch_bytes,
                 "--read: decoded bytes per batch, 0 = rows only (default: the reader's)");
  app.add_option("--read", read, "decode every column of this file instead of writing");
  CLI11_PARSE(app, argc, argv);
  if (!read.empty()) return ReadMain(read, repeat, warmup, batch_bytes);
  if (rows < 0) rows = table == "events" ? 10'000'000 : 1'000'000;

  const auto g0 = std::chrono::steady_clock::now();
  Table t = table == "events" ? Events(rows) : Dimension(rows);
  const auto g1 = std::chrono::steady_clock::now();

  parquet::WriterOptions o;
  o.codec = codec == "zstd"     ? parquet::CompressionCodec::kZstd
            : codec == "snappy" ? parquet::CompressionCodec::kSnappy
                                : parquet::CompressionCodec::kUncompressed;
  o.compression_level = level;
  o.row_group_row_limit = row_group_rows;

  double best = 0;
  parquet::MemorySink sink;
  std::optional<parquet::WrittenFile> written;
  for (int r = 0; r < std::max(repeat, 1); ++r) {
    sink = parquet::MemorySink();
    const auto t0 = std::chrono::steady_clock::now();
    auto writer = parquet::ParquetWriter::Open(t.schema, &sink, o);
    if (!writer) {
      std::fprintf(stderr, "floe_bench_parquet: %s\n", writer.error().ToString().c_str());
      return 1;
    }
    for (const auto& b : t.batches) {
      if (auto s = (*writer)->Write(b); !s) {
        std::fprintf(stderr, "floe_bench_parquet: %s\n", s.error().ToString().c_str());
        return 1;
      }
    }
    auto done = (*writer)->Close();
    if (!done) {
      std::fprintf(stderr, "floe_bench_parquet: %s\n", done.error().ToString().c_str());
      return 1;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r == 0 || seconds < best) best = seconds;
    written = std::move(*done);
  }
  if (!out.empty()) {
    std::ofstream(out, std::ios::binary)
        .write(reinterpret_cast<const char*>(sink.bytes().data()),
               static_cast<std::streamsize>(sink.bytes().size()));
  }
  std::printf(
      "{\"table\": \"%s\", \"rows\": %lld, \"write_seconds\": %.6f, \"gen_seconds\": %.3f, "
      "\"file_bytes\": %lld, \"input_bytes\": %lld, \"row_groups\": %zu}\n",
      table.c_str(), static_cast<long long>(rows), best,
      std::chrono::duration<double>(g1 - g0).count(), static_cast<long long>(written->file_size),
      static_cast<long long>(t.input_bytes), written->row_group_rows.size());
  return 0;
}
