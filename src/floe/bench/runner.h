// Runner: builds every design of a worksheet into a warehouse and measures every question on every
// design -- files, requests and bytes exact (a CountingStore around the warehouse store), from a
// cold first run (footer and metadata caches emptied) and from the measured runs, and latency
// under the protocol (designs interleaved per question). A worksheet with changes runs them first
// (a warm-up round, then measured rounds with the designs interleaved; each round its own rows),
// measures the questions, compacts, and measures them again. Questions are asked
// through a caller-supplied QuestionFn (the SQL engine in the CLI, fakes in tests), so this module
// does not depend on `sql`. Not thread-safe; one RunBench at a time per warehouse directory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/bench/cost_model.h"
#include "floe/bench/protocol.h"
#include "floe/bench/worksheet.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/warehouse.h"
#include "floe/io/counting_store.h"

namespace floe::bench {

struct QuestionOutcome {
  int64_t data_files_opened = 0;
  int64_t rows = 0;         // result rows
  std::string first_value;  // the first cell of the result, for the report
  // The statement's requests and bytes when the engine's reads do not go through the warehouse's
  // store (another engine, counted by a proxy); unset: the CountingStore's counts are used.
  std::optional<io::RequestCounts> counts;
  // The statement's time as the engine measured it (its own work, not the caller's preparations
  // around it); unset: the runner's clock around the call.
  std::optional<double> engine_ms;
  // What floe's scans did (files skipped and why, row groups, pages, deletes); unset for another
  // engine, which reports only what its proxy counts.
  std::optional<ScanMetrics> scan;
};

// Answers one SQL statement against the warehouse it was made for.
using QuestionFn = std::function<Result<QuestionOutcome>(const std::string& sql)>;
// Makes a QuestionFn for a warehouse (whose store is already counted and simulated).
using QuestionFnFactory = std::function<Result<QuestionFn>(const iceberg::Warehouse& warehouse)>;

// Another engine measured beside floe on the same tables (Spark, DuckDB, pyiceberg: the CLI's
// peer_engines): its QuestionFn gets each question as floe runs it and reports its own counts.
struct EngineArm {
  std::string name;
  QuestionFnFactory questions;
};

// An engine that writes designs itself (Design::built_by: Spark, as the chapter built its tables).
// The runner drops and records the design's table as for floe's designs and hands the engine the
// source as one local Parquet file per write; floe and the other engines then read the table like
// any other. Its change rounds and compaction steps run on that engine too.
struct EngineWriter {
  // Creates `table` as design `d` says (partitioning, sort order, properties), appends each of
  // `writes` in order, then runs the design's maintenance steps; returns notes for the report.
  std::function<Result<std::vector<std::string>>(const Design& d, const std::string& table,
                                                 const std::vector<std::string>& writes)>
      build;
  // A change statement in the worksheet's SQL, `{changes}` already spelled by `file_ref`; the
  // outcome's engine_ms is the statement's time, its counts set when the engine's requests are
  // counted (through a proxy).
  std::function<Result<QuestionOutcome>(const std::string& sql)> change;
  // How the engine's SQL reads a Parquet file (Spark: parquet.`/path`).
  std::function<std::string(const std::string& path)> file_ref;
  // A compaction step of ChangeSpec::compaction on `table`; returns a note of what it did.
  std::function<Result<std::string>(const std::string& step, const std::string& table)> compact;
};
using EngineWriterFactory = std::function<Result<EngineWriter>()>;

struct BenchOptions {
  // Where the designs' tables go: a local directory of bench's own (see BuildDesign), or a store
  // URI (s3://bucket/prefix) with `catalog` naming its catalog (sqlite:PATH or rest:URL).
  std::string warehouse;
  std::string catalog;
  io::S3Options s3;
  // Where a worksheet's `source: {table: ...}` lives: the user's warehouse (--warehouse,
  // --catalog), not bench's own. Empty uri: `warehouse` itself.
  iceberg::WarehouseOptions source_warehouse;
  // A local directory for the change rounds' Parquet files; empty: <warehouse>/floe-bench-changes
  // (a local warehouse only).
  std::string scratch;
  // Wraps the measuring store (the simulated-S3 decorator); identity when empty. Building never
  // goes through it.
  std::function<Result<io::StorePtr>(io::StorePtr)> decorate;
  ProtocolOptions protocol;
  // Engines measured beside floe on every question (after the changes, when there are any): their
  // arms interleave with floe's under the protocol.
  std::vector<EngineArm> engines;
  // The engines designs may be built by (Design::built_by other than floe), by name; each is made
  // once, when a design needs it.
  std::map<std::string, EngineWriterFactory> writers;
  double scale = 1;  // multiplies the source's rows (demo --scale)
  Prices prices;
  // Progress lines on stderr (floe::Progress); off in tests.
  bool progress = true;
};

struct DesignBuild {
  std::string table;
  int64_t data_files = 0;
  int64_t bytes = 0;  // data files only
  int64_t rows = 0;
  double seconds = 0;              // the write time (the median of write_seconds)
  Spread write_seconds;            // over the worksheet's build_rounds
  std::vector<std::string> notes;  // e.g. "rewrite sort by id: 32 files -> 1"
};

struct Measurement {
  std::string error;  // non-empty: the question failed on this design
  int64_t data_files_opened = 0;
  // The requests and bytes of a measured run (the last round), with the process's footer and
  // metadata caches as the warm-up left them: what the latency beside them paid.
  io::RequestCounts counts;
  // Those of the first run, with both caches emptied before it: what a query pays when nothing
  // about the table is cached (an engine that keeps no footer or metadata cache between queries).
  io::RequestCounts cold_counts;
  int64_t rows = 0;
  std::string first_value;
  Spread latency;
  // floe's scans in the last measured run, and that run's time: the stats object `floe query
  // --stats` prints, in the JSON report. Unset for another engine.
  std::optional<ScanMetrics> scan;
  double last_ms = 0;
  std::string verdict;  // protocol verdict among the designs: "best", "~best" or ""
  // Another engine's measurement whose answer (rows, first value) is not floe's: floe's, as
  // "rows N, first V", for the report. Empty when they agree (or for floe itself).
  std::string differs_from_floe;
};

// What a table holds, from its current snapshot's summary.
struct TableState {
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t deleted_positions = 0;  // position deletes and deletion vectors' positions
  int64_t bytes = 0;              // data files
};

// The worksheet's changes on one design.
struct ChangesOutcome {
  std::string error;         // non-empty: a change or a compaction step failed here
  Spread latency;            // one change statement, over the measured rounds
  io::RequestCounts counts;  // the last measured round's requests and bytes
  bool counted = true;       // false: an engine whose requests nothing counted
  TableState after_changes;  // after the warm-up and the measured rounds
  double compaction_ms = 0;  // every compaction step
  io::RequestCounts compaction_counts;
  bool compaction_counted = true;  // false: run by an engine whose requests nothing counted
  std::vector<std::string> compaction_notes;
  TableState after_compaction;
};

struct BenchResult {
  Worksheet sheet;
  std::vector<DesignBuild> builds;                // per design
  std::vector<std::vector<Measurement>> results;  // [question][design] (after the changes)
  // BenchOptions::engines' names, and their measurements [engine][question][design] (verdicts
  // among one engine's designs).
  std::vector<std::string> engines;
  std::vector<std::vector<std::vector<Measurement>>> engine_results;
  // With changes: per design, and the questions measured again after compaction.
  std::vector<ChangesOutcome> changes;
  std::vector<std::vector<Measurement>> compacted;  // [question][design]
  std::string schedule;                             // the compaction schedule, in one paragraph
  Prices prices;                                    // what the costs were priced at
  std::vector<MonthlyCost> costs;                   // per design
  int best_design = -1;                             // by weighted latency, then cost
  std::string recommendation;                       // the trade-off in one sentence
  bool simulated = false;
};

// The source rows as batches (one per write of the source), scaled (a generator's; Parquet files
// and tables are read whole). A source table is read from `warehouse` (required for one) at its
// pinned snapshot, with its deletes applied.
Result<std::vector<columnar::RecordBatch>> LoadSource(const SourceSpec& source, double scale,
                                                      iceberg::Warehouse* warehouse = nullptr);

// Builds design `d` of `sheet` from `rows` into the warehouse `w`. A table of the same name that
// an earlier bench run made there (the warehouse's floe-bench-tables.txt lists them) is dropped
// first; any other table of that name is a conflict error and is left as it is.
// With `writer`, that engine writes the table (Design::built_by), from the rows as one Parquet file
// per write under `scratch` (a local directory), removed afterwards.
Result<DesignBuild> BuildDesign(iceberg::Warehouse& w, const Worksheet& sheet, const Design& d,
                                const std::vector<columnar::RecordBatch>& rows,
                                const EngineWriter* writer = nullptr,
                                const std::string& scratch = "");

Result<BenchResult> RunBench(const Worksheet& sheet, const BenchOptions& options,
                             const QuestionFnFactory& questions);

// Fills costs, best_design and recommendation from builds and results.
void Recommend(BenchResult& result, const Prices& prices);

}  // namespace floe::bench
