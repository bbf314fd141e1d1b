// ReadParquetFile: the synchronous read path over an ObjectStore, on top of FileReader. A known
// length means no HEAD: one tail read (the whole of a small file), then coalesced reads of what the
// plan lists and the tail does not hold. Thread safe as far as the store is.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/io/object_store.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/read_plan.h"

namespace floe::parquet {

struct StoreReadOptions {
  ReadOptions read;
  // First read from the end of the file: the footer of most files, all of a small file.
  uint64_t tail_bytes = uint64_t{64} * 1024;
  // Planned ranges closer than this are fetched by one request.
  int64_t coalesce_gap = 1 << 20;
};

// What one read did, for tests and the CLI's numbers.
struct StoreReadStats {
  int requests = 0;  // GETs and HEADs sent
  int heads = 0;
  int64_t bytes_fetched = 0;
  ReadPlan::Counts plan;
};

struct ParquetFileContents {
  columnar::SchemaPtr schema;
  std::vector<columnar::RecordBatch> batches;
  StoreReadStats stats;
};

// Opens the footer of `key` in `store`: with `file_length` > 0 one bounded tail read (and one
// more when the footer is longer); with 0, one suffix read, which gives the length only when it
// returns the whole file -- a larger file then needs one HEAD (the store API reports no object
// size with a range read). `tail` receives the bytes read, to be reused by ReadParquetFile.
Result<FileReader> OpenParquetFile(io::ObjectStore& store, std::string_view key,
                                   uint64_t file_length, uint64_t tail_bytes, FetchedBytes* tail,
                                   StoreReadStats* stats);

// Reads the projected, pruned rows of `key` (see ReadOptions).
Result<ParquetFileContents> ReadParquetFile(io::ObjectStore& store, std::string_view key,
                                            uint64_t file_length,
                                            const StoreReadOptions& options = {});

// Fetches `ranges` (coalesced by `gap`, leaving out those `have` already covers) into `have`.
Status FetchRanges(io::ObjectStore& store, std::string_view key,
                   const std::vector<PlannedRange>& ranges, int64_t gap, FetchedBytes* have,
                   StoreReadStats* stats);

}  // namespace floe::parquet
