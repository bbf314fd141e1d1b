// What running one SQL statement takes and gives: the options (how scans read, threads, where rows
// go) and the result (its rows, or a one-line message, with the numbers a bill is made of). Plain
// data, shared by the engine and the statements it runs (plan_runner, dml, merge, procedures).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/scan_reader.h"

namespace floe::sql {

// Receives a statement's result batches in order, one call at a time, with the output names.
using ResultSink = std::function<Status(const columnar::RecordBatch&)>;

struct QueryOptions {
  // How table scans read: strategy, request budget, the floe planner's objective, thresholds and
  // store model (its progress callback comes from `progress` below).
  iceberg::ScanReadOptions read;
  int threads = 0;  // 0: hardware concurrency
  // SET trace = 'FILE': where the caller (the CLI's session) writes each statement's requests;
  // empty: no trace. The engine itself only carries it.
  std::string trace;
  // The warehouse's runtime, whose cache capacities the settings change; the engine sets it.
  iceberg::Runtime* runtime = nullptr;
  // When set, result rows go here instead of into QueryResult::batches: a plan without an
  // aggregate or ORDER BY streams them as the scan produces them, so memory follows a batch, not
  // the answer (SELECT * of a 10M-row table held 3.4 GB); others deliver their final rows.
  ResultSink sink;
  // Called as a table scan reads its files (files read, files planned), from its threads.
  std::function<void(size_t done, size_t total)> progress;
  // Asked as table scans read, from their threads: true stops the statement with a kCancelled
  // error (the shell's Ctrl-C). Unset: never.
  std::function<bool()> cancelled;
  // SET memory_limit: the bytes a statement's joins, aggregates and sorts may hold before they
  // spill to temp_directory (exec/memory_budget.h); 0: 80% of the machine's memory.
  int64_t memory_limit = 0;
  // SET temp_directory: where they spill; empty: a fresh directory under $TMPDIR (else /tmp).
  std::string temp_directory;
};

struct QueryResult {
  columnar::SchemaPtr schema;  // output column names and types
  std::vector<columnar::RecordBatch> batches;
  ScanMetrics stats;    // of the statement's table scans
  std::string message;  // for statements without rows (CALL ...): a one-line summary
};

}  // namespace floe::sql
