// Peer engines: Spark + Iceberg, DuckDB (iceberg extension) and pyiceberg as arms of
// `floe bench --engines`. Each runs in a long-lived Python process (tools/floe/peer_engine.py,
// embedded in the binary) that reads the designs' tables through floe's counting proxy; floe
// tells it each question, the tables' current metadata files and the scans the statement needs
// (pyiceberg has no SQL), opens a proxy window around the question and takes the requests, bytes
// and data files it read from the proxy, and the time from the engine's own clock.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/bench/runner.h"
#include "floe/iceberg/expression.h"
#include "floe/io/counting_proxy.h"
#include "floe/io/counting_store.h"

namespace floe::cli {

// The engines --engines takes besides floe.
const std::vector<std::string>& PeerEngineNames();

struct PeerSetup {
  std::string catalog;    // the designs' catalog, as --catalog spells it (a SQLite path absolute)
  std::string warehouse;  // s3://bucket/prefix, or file:/abs/dir
  // The proxy's endpoint, the S3 server's credentials and region; empty endpoint: a local
  // warehouse.
  std::string endpoint;
  std::string access_key;
  std::string secret_key;
  std::string region;
  io::CountingProxy* proxy = nullptr;  // counts each question's requests; outlives the arms
  std::string scratch;                 // a directory for the engines' logs and scratch files
  int threads = 2;                     // Spark's local[N], DuckDB's threads
};

// The arm of `engine` ("spark", "spark-aal" -- Spark reading through AWS's Analytics Accelerator
// Library --, "duckdb" or "pyiceberg"). Its process starts when the runner asks
// for its QuestionFn and ends with the last copy of that function. The Python interpreter is
// FLOE_PEER_PYTHON, else the project's virtual environment that has the engine (.venv-tpch for
// DuckDB 1.5.5 with its extensions, .venv for pyspark and pyiceberg) found above the binary, else
// python3.
bench::EngineArm PeerEngineArm(const std::string& engine, const PeerSetup& setup);

// Spark as the engine that writes the designs a worksheet says are `built_by: spark`: its own
// worker process on the designs' catalog and warehouse -- a local one (endpoint empty: Iceberg's
// HadoopFileIO) or S3 through setup.proxy, which then counts its change rounds' requests.
bench::EngineWriterFactory SparkWriter(const PeerSetup& setup);

// An iceberg filter as peer_engine.py reads it: {"op": "and"|"or"|"not", "args": [...]} or
// {"op": "eq"|..., "column": name, "values": [...]}; numbers and booleans as JSON, other values
// (dates, timestamps, decimals, strings) as floe prints them.
nlohmann::json FilterJson(const iceberg::Expr& e);

// A proxy window's counts as floe's RequestCounts (multipart parts counted in `put`).
io::RequestCounts ProxyRequestCounts(const io::ProxyStats& stats);
// The data files a proxy window read: objects ending in .parquet with a GET, delete files (a name
// with "delete" in it) left out.
int64_t DataFilesRead(const io::ProxyStats& stats);

}  // namespace floe::cli
