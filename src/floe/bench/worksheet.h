// Worksheet: what `floe bench` measures, read from YAML -- the table's source (a generator or
// Parquet files), the candidate designs (partitioning, sort order, write batching, file, row-group
// and page sizes, bloom filters, maintenance steps), the questions (SQL with a daily count) and the
// row-level changes between them (the orders workload's MERGE rounds).
// Plain data; a bad worksheet is one error naming the key ("designs[2].target_file_size: ...").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::bench {

struct SourceSpec {
  std::string generator;             // events | orders | customers | store_sales
  std::vector<std::string> parquet;  // or: Parquet files/folders (local paths or store URIs)
  // or: an existing table of the run's warehouse (NAMESPACE.TABLE), read at `snapshot_id` (by
  // default its current snapshot, pinned when the run starts, so every design gets the same rows).
  std::string table;
  std::optional<int64_t> snapshot_id;
  int64_t rows = 0;  // generator: 0 = its default
  uint64_t seed = 42;
  int writes = 0;  // appends the rows arrive in (0: the generator's default, or one per file)
};

// A step after the writes. Only "rewrite" (strategy sort or binpack) exists.
struct MaintenanceStep {
  std::string kind = "rewrite";
  std::string strategy = "sort";
  std::string sort_by;                      // empty: the design's sort order
  std::optional<int64_t> target_file_size;  // empty: the design's
};

struct Design {
  std::string name;
  std::string description;
  // The engine that writes the table: floe, or spark (Spark SQL as the chapter built its tables:
  // CREATE TABLE ... PARTITIONED BY, WRITE ORDERED BY, INSERT per write, CALL rewrite_data_files;
  // its change rounds and compaction run there too). BenchOptions::writers supplies the engine.
  std::string built_by = "floe";
  std::string partition_by;  // Iceberg transform syntax (docs/cli.md's SPEC)
  std::string sort_by;       // ORDER, applied within each write task
  int writes = 0;            // 0: the source's
  int tasks_per_write = 1;   // each write split into this many tasks, each writing its own files
  std::optional<int64_t> target_file_size;     // write.target-file-size-bytes
  std::optional<int64_t> row_group_size;       // write.parquet.row-group-size-bytes
  std::optional<int64_t> page_size;            // write.parquet.page-size-bytes
  std::optional<int64_t> page_row_limit;       // write.parquet.page-row-limit
  std::vector<std::string> bloom_columns;      // write.parquet.bloom-filter-enabled.column.*
  std::vector<std::string> colocated_columns;  // floe.write.parquet.colocated-columns
  std::map<std::string, std::string> properties;
  std::vector<MaintenanceStep> maintenance;

  // The table properties the design sets.
  std::map<std::string, std::string> TableProperties() const;
};

// Row-level changes the table takes between builds and reads (the orders workload's nightly
// MERGE): each round's rows come from the source's generator (GenerateChanges), written to a
// Parquet file that `{changes}` in the SQL stands for (as read_parquet('...')); one warm-up round,
// then `rounds` measured rounds with the designs interleaved. The questions are measured after
// them, and again after the compaction steps.
struct ChangeSpec {
  std::string sql;         // {table}: the design's table, {changes}: the round's rows
  double fraction = 0.01;  // of the source's rows, per round
  int rounds = 5;
  double daily = 1;  // such changes a day: the cadence the compaction schedule is priced against
  // Run in order after the rounds: rewrite_position_deletes, rewrite_data_files (which rewrites
  // every data file that has deletes).
  std::vector<std::string> compaction = {"rewrite_position_deletes", "rewrite_data_files"};
};

struct Question {
  std::string name;
  std::string sql;   // `{table}` stands for the design's table
  double daily = 1;  // times per day (the weight)
};

struct Worksheet {
  std::string name;
  std::string description;
  std::string table = "bench.t";  // NAMESPACE.TABLE; each design gets NAMESPACE.TABLE_<design>
  SourceSpec source;
  std::vector<Design> designs;
  std::vector<Question> questions;
  std::optional<ChangeSpec> changes;
  // Times each design is built (the designs interleaved, the order rotating): the report gives
  // the write time's median and min-max; the last build is the table the questions read.
  int build_rounds = 1;
};

// Parses YAML text; `origin` (a file name) prefixes errors.
Result<Worksheet> ParseWorksheet(std::string_view yaml, std::string_view origin = "worksheet");
Result<Worksheet> LoadWorksheet(const std::string& path);

// "2MB" (10^6), "512MiB" (2^20), "64KiB", "1GB", plain bytes "1048576"; also "2 MB".
Result<int64_t> ParseSize(std::string_view text);
// 2097152 -> "2 MiB", 5900000 -> "5.9 MB"
std::string FormatBytes(double bytes);

// The table name of a design: "<ns>.<table>_<slug of design name>".
std::string DesignTableName(const Worksheet& sheet, const Design& design);
// The F-quantile (0 <= F <= 1) of a source column's values, as a SQL literal.
using QuantileFn = std::function<Result<std::string>(const std::string& column, double f)>;

// The question's SQL with {table} replaced by the design's table, each {row:F} (0 <= F < 1) by
// floor(F x source_rows): a key that exists at any --scale, e.g. `WHERE id = {row:0.424242}`, and
// each {quantile:COLUMN:F} by `quantile`: a range that selects a known share of the rows at any
// scale, e.g. `k BETWEEN {quantile:k:0.37} AND {quantile:k:0.38}` (about 1%).
Result<std::string> QuestionSql(const Question& q, const std::string& table, int64_t source_rows,
                                const QuantileFn& quantile = nullptr);

}  // namespace floe::bench
