// FileReader: reads a Parquet file without doing IO: opens from a tail of any size (or says how
// long a tail it needs), plans byte ranges (read_plan.h) and decodes the buffers a caller fetched
// into Arrow-layout RecordBatches. Immutable and shareable; each BatchReader serves one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/parquet/byte_range.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/read_plan.h"
#include "floe/parquet/schema.h"

namespace floe::parquet {

class BatchReader;

class FileReader {
 public:
  struct Opened;

  // `tail` holds the last tail.size() bytes of the file at `path` (a name for messages) of
  // `file_length` bytes. When it is too short, the result carries no reader and says how many
  // bytes from the end to fetch instead (one more suffix read).
  static Result<Opened> Open(std::string path, uint64_t file_length, ByteView tail);

  // From metadata parsed elsewhere; `data_end` is where the footer starts (0: unknown).
  static Result<FileReader> Make(std::string path, uint64_t file_length, FileMetaData metadata,
                                 uint64_t data_end = 0);

  const std::string& path() const;
  uint64_t file_length() const;
  const FileMetaData& metadata() const;
  const ParquetSchema& schema() const;
  // Every top-level field; unreadable ones have type null (schema().FieldError says why).
  const columnar::Schema& arrow_schema() const { return schema().arrow_schema(); }

  // The byte ranges a read needs (see ReadPlan); nothing is fetched.
  Result<ReadPlan> Plan(const ReadOptions& options = {}) const;
  // After fetching plan->IndexRanges(): prunes pages; plan->DataRanges() is then final.
  Status ApplyPageIndex(const FetchedBytes& index_bytes, ReadPlan* plan) const;

  // After fetching plan->DataRanges(): when the pages fetched contradict the page index the plan
  // used (VerifyPageIndex), `plan` becomes the plan of `options` without the page index, the
  // rejection counted and named in its counts, and true comes back: the caller then fetches the
  // ranges of the new plan it lacks. A page index never decides an answer its pages disprove.
  Result<bool> ReplanIfIndexDisagrees(const ReadOptions& options, const FetchedBytes& bytes,
                                      ReadPlan* plan) const;

  // After the last fetch: walks the page headers of every chunk `plan` reads whole, once, so the
  // readers of its batches (several per chunk when a scan splits it over threads or reads it in
  // two passes) need not (CheckPageHeaders in column_chunk_reader.h). Corrupt, naming the file,
  // column and page, when a chunk's headers do not add up.
  Status CheckPageHeaders(const FetchedBytes& bytes, ReadPlan* plan) const;

  // Decodes the fetched data ranges of `plan` batch by batch.
  Result<BatchReader> Decode(ReadPlan plan, FetchedBytes bytes) const;
  // Convenience: every batch at once.
  Result<std::vector<columnar::RecordBatch>> ReadAll(ReadPlan plan, FetchedBytes bytes) const;

  struct Impl;

 private:
  explicit FileReader(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

struct FileReader::Opened {
  std::optional<FileReader> reader;  // absent when the tail was too short
  uint64_t tail_length_needed = 0;   // bytes from the end of the file that hold the footer
};

// Produces the batches of a plan in file order. Rows a plan left out (pruned pages, the limit)
// are never materialised.
class BatchReader {
 public:
  // The next batch, or nullopt after the last.
  Result<std::optional<columnar::RecordBatch>> Next();

  struct State;
  explicit BatchReader(std::unique_ptr<State> state);
  BatchReader(BatchReader&&) noexcept;
  BatchReader& operator=(BatchReader&&) noexcept;
  ~BatchReader();

 private:
  std::unique_ptr<State> s_;
};

}  // namespace floe::parquet
