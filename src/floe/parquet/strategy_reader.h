// Fetching one Parquet file's bytes under a ReadStrategy: `floe` (the read planner: whole small
// file, else one learned tail + one coalesced batch, footer cache, scan-wide request budget) or a
// peer's request pattern reproduced faithfully (parquet-mr, aal, eager, arrow-rs). The result is
// ready to decode. Thread-safe as far as the store is; shared helpers (cache, estimator, gate)
// are themselves thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "floe/base/result.h"
#include "floe/io/object_store.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/footer_cache.h"
#include "floe/parquet/read_plan.h"
#include "floe/parquet/read_planner.h"
#include "floe/parquet/read_strategy.h"
#include "floe/parquet/request_gate.h"

namespace floe::parquet {

// The peers' published constants (REFERENCE.md, "How peers read Parquet from object stores").
inline constexpr int64_t kParquetMrSeekReadThrough = 1 << 20;  // forward seeks <= 1 MiB read on
inline constexpr int64_t kEagerWholeFileBytes = 1 << 20;       // Iceberg PR 17284
inline constexpr int64_t kAalWholeObjectBytes = 8 << 20;
inline constexpr int64_t kAalFooterPrefetch = 32 << 10;
inline constexpr int64_t kAalPageIndexPrefetch = 1 << 20;
inline constexpr int64_t kAalBlockBytes = 8 << 20;
inline constexpr int64_t kAalCoalesceTolerance = 1 << 20;
inline constexpr int64_t kArrowRsFooterHint = 512 << 10;  // DataFusion's metadata_size_hint
inline constexpr int64_t kArrowRsCoalesceGap = 1 << 20;
inline constexpr int kArrowRsParallelRanges = 10;

// What one file's fetch did, for tests and the CLI's numbers.
struct StoreReadStats {
  int requests = 0;  // GETs and HEADs sent
  int heads = 0;
  int64_t bytes_fetched = 0;
  ReadPlan::Counts plan;
};

struct FileHints {
  uint64_t file_length = 0;      // from the manifest; 0 = unknown (a reader must find it out)
  int64_t projected_bytes = -1;  // projected columns' bytes from column_sizes; -1 = unknown
};

struct StrategyReadOptions {
  ReadStrategy strategy = ReadStrategy::kFloe;
  // Projection and predicates. Baselines that do not use the page index (parquet-mr, eager, aal
  // as Iceberg drives them) ignore use_page_index.
  ReadOptions read;
  ReadPlannerOptions planner;      // floe only
  FooterCache* cache = nullptr;    // floe only; null = no cache
  TailEstimator* tails = nullptr;  // floe only; null = planner.initial_tail_bytes every time
  RequestGate* gate = nullptr;     // floe only; null = no scan-wide budget
  // When set, called once the footer is known to adapt `read` to the file (e.g. keep only the
  // field ids the file has); its result replaces `read` for that file.
  std::function<Result<ReadOptions>(const FileReader&, const ReadOptions&)> resolve;
  // When set, called on every plan before its data ranges are fetched (a row mask narrows it).
  // An error stops the read.
  std::function<Status(const FileReader&, ReadPlan*)> adjust_plan;
};

struct FetchedFile {
  FileReader reader;
  ReadPlan plan;  // final: the page index, if any, is applied
  FetchedBytes bytes;
  StoreReadStats stats;        // requests, HEADs and bytes of this file
  bool footer_cached = false;  // floe: the footer came from the cache
};

// `key` is the object's key in `store`; messages name it with the store's URI. With no length
// in `hints`, floe reads a suffix of planner.initial_tail_bytes first (all of a small file; a
// larger one then needs one HEAD, the store API reporting no object size with a range read);
// the peers send a HEAD first.
Result<FetchedFile> FetchFile(io::ObjectStore& store, std::string_view key, const FileHints& hints,
                              const StrategyReadOptions& options);

struct OpenedFooter {
  FileReader reader;
  FetchedBytes tail;  // the bytes read: the footer, and all of a small file
  StoreReadStats stats;
};

// The footer of `key` alone, for tools that inspect a file: a suffix read of `tail_bytes` (one
// more when the footer is longer; a HEAD when `file_length` is 0 and the file is longer).
Result<OpenedFooter> OpenFooter(io::ObjectStore& store, std::string_view key, uint64_t file_length,
                                int64_t tail_bytes = int64_t{64} * 1024);

}  // namespace floe::parquet
