// ReadPlan: every byte range a Parquet read will need, decided before any is fetched: row groups
// pruned by statistics, then (an "index" step) pages pruned by the page index, which also fixes
// the row selection. Pure: metadata in, ranges out; the caller fetches and FileReader decodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/data_type.h"
#include "floe/parquet/byte_range.h"
#include "floe/parquet/column_chunk_reader.h"
#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/schema.h"

namespace floe::parquet {

// Rows are produced in batches of at most this many; a batch never spans two row groups.
inline constexpr int64_t kDefaultBatchRows = int64_t{64} * 1024;
// ...and of about this many decoded bytes, so that a wide projection's batch stays in the
// cache from its decode to its use: a 60-column batch of 64Ki rows is ~30 MB, and writing it
// costs memory bandwidth that 4 MiB batches do not (15-20% of a wide scan measured here).
inline constexpr int64_t kDefaultBatchBytes = 4 << 20;
// The fewest rows a batch is cut to by `batch_bytes`: per-batch costs are per column.
inline constexpr int64_t kMinBatchRows = 1024;

struct ReadOptions {
  // Fields to read: dotted Arrow paths ("a", "s.x") and/or field ids; both empty = every field.
  // Top-level fields come out in the order first named; a nested path keeps its ancestors with
  // only the selected children.
  std::vector<std::string> columns;
  std::vector<int32_t> field_ids;
  // ANDed; used to skip row groups and pages, not to filter rows.
  std::vector<ColumnPredicate> predicates;
  // Plan an index step (column + offset index ranges) and keep only the pages that can match
  // the predicates and lie before the limit. Without predicates or a limit it changes nothing.
  bool use_page_index = false;
  // With use_page_index: plan the index step for a row mask too (ReadFileOptions::excluded_rows),
  // whose pages holding only excluded rows are then dropped from the plan (the offset index
  // says where each page's rows are).
  bool page_index_for_mask = false;
  // At most this many rows, the first in file order; -1 for all. Later row groups are not planned.
  int64_t limit = -1;
  int64_t batch_rows = kDefaultBatchRows;
  // Fewer rows per batch (down to kMinBatchRows) when the projection's decoded row is wide
  // (EstimatedRowBytes); 0 = rows only.
  int64_t batch_bytes = kDefaultBatchBytes;
  // Check the CRC-32 of every page whose header carries one (a mismatch is an error naming the
  // page); CRC-32 runs at several GB/s, well above decompression.
  bool verify_checksums = true;
};

enum class RangeKind { kColumnChunk, kDictionaryPage, kDataPage, kColumnIndex, kOffsetIndex };
std::string_view RangeKindName(RangeKind kind);

struct PlannedRange {
  ByteRange range;
  RangeKind kind = RangeKind::kColumnChunk;
  int row_group = 0;
  int column = 0;  // leaf column

  friend bool operator==(const PlannedRange&, const PlannedRange&) = default;
};

struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;  // exclusive

  friend bool operator==(const RowRange&, const RowRange&) = default;
};

struct PagePlan {
  ByteRange range;  // header included
  int64_t first_row = 0;
  int64_t num_rows = 0;
};

struct ColumnChunkPlan {
  int column = 0;      // leaf column
  ByteRange chunk;     // the chunk's bytes, widened for writers that under-declare them
  bool paged = false;  // read only `dictionary` + `pages` instead of `chunk`
  std::optional<ByteRange> dictionary;
  std::vector<PagePlan> pages;
  int64_t total_pages = -1;  // data pages in the chunk, when its offset index was read
  // Every page of the offset index when the chunk is read whole yet its page index chose rows for
  // a predicate: VerifyPageIndex checks them (and a paged chunk's `pages`) against the headers.
  std::vector<PagePlan> indexed_pages;
  // The data step checked the chunk's page headers (FileReader::CheckPageHeaders).
  bool headers_checked = false;
};

struct RowGroupPlan {
  int row_group = 0;
  int64_t num_rows = 0;
  std::vector<RowRange> rows;  // the rows to produce: sorted, disjoint, non-empty
  // Of `rows`, those every predicate is known to hold for (AllMatch on the chunk statistics or
  // the page index): a filter need not look at them.
  std::vector<RowRange> certain;
  std::vector<ColumnChunkPlan> columns;  // one per projected leaf, in column order
  std::vector<PlannedRange> index;       // column / offset index ranges (the index step)
};

// About how many bytes one row of these leaves takes once decoded: values, offsets, dictionary
// codes and levels. Binary values count 16 bytes; their real length is unknown before decoding.
int64_t EstimatedRowBytes(const ParquetSchema& schema, std::span<const int> leaves);

struct ReadPlan {
  std::vector<FieldNode> fields;            // the projected fields, in output order
  columnar::SchemaPtr schema;               // their Arrow schema: the schema of every batch
  std::vector<int> columns;                 // projected leaves, ascending
  std::vector<ColumnPredicate> predicates;  // bound to their leaves
  std::vector<int> predicate_columns;       // the leaf of each predicate
  std::vector<RowGroupPlan> row_groups;     // those to read, in file order
  int64_t limit = -1;
  int64_t batch_rows = kDefaultBatchRows;
  bool verify_checksums = true;
  bool index_pending = false;  // IndexRanges() must be fetched and applied first
  // ReadOptions::page_index_for_mask: chunks keep their page locations even when every page is
  // read, so that a row mask applied after the index can drop pages.
  bool pages_for_mask = false;
  // Leaf -> matcher (ChunkReaderOptions::matcher), for flat leaves only: that field's column then
  // comes out as uint8, 1 where the row's value matches, 0 where not, null where it is null.
  std::map<int, ValueMatcher> matchers;

  struct Counts {
    int row_groups = 0;  // in the file
    int row_groups_pruned_by_stats = 0;
    int row_groups_pruned_by_page_index = 0;
    int64_t pages = 0;          // data pages of projected chunks whose offset index was read
    int64_t pages_skipped = 0;  // of those, not fetched
    int64_t rows = 0;           // rows the plan produces
    // Page indexes and chunk statistics left unused because they broke a rule
    // (page_index_check.h): those chunks are pruned and read without them.
    int64_t metadata_rejected = 0;
  } counts;
  std::string first_rejection;  // the first of those: file, column, row group and rule

  // The index step: column and offset index ranges, by offset. Empty unless index_pending.
  std::vector<PlannedRange> IndexRanges() const;
  // The data step: chunk, dictionary and page ranges, by offset. Final once !index_pending.
  std::vector<PlannedRange> DataRanges() const;
};

// What planning reads about a file.
struct PlanInput {
  std::string_view path;  // for messages
  uint64_t file_length = 0;
  uint64_t data_end = 0;  // where the footer starts: no planned chunk range passes it
  const FileMetaData* metadata = nullptr;
  const ParquetSchema* schema = nullptr;
};

// Projection, predicate binding and row group pruning; with use_page_index, the index step.
Result<ReadPlan> MakeReadPlan(const PlanInput& input, const ReadOptions& options);

// Parses the fetched page index, keeps the pages that can match and fixes the row selection;
// afterwards the plan's DataRanges() are final. A page index that breaks a rule of
// page_index_check.h is not used for that chunk (counted in counts.metadata_rejected): the
// chunk is then neither pruned by it nor paged.
Status ApplyPageIndex(const PlanInput& input, const FetchedBytes& index_bytes, ReadPlan* plan);

// The data step's check of what ApplyPageIndex could not see: that the page headers fetched are
// where the offset index points and agree with it (CheckPageAgainstIndex), for every paged chunk
// and every chunk whose page index chose rows. Corrupt, naming the file, column, row group and
// rule, when not: the plan must then not be decoded (a reader plans again without the index).
Status VerifyPageIndex(const PlanInput& input, const FetchedBytes& data_bytes,
                       const ReadPlan& plan);

// Whether a writer is known to leave the dictionary page header out of the chunk sizes
// (parquet-mr before 1.2.9, PARQUET-816), so chunk ranges need padding.
bool WriterUnderstatesChunkSize(std::string_view created_by);

// Bytes added after such a chunk: the largest dictionary page header other readers allow for.
inline constexpr int64_t kChunkPadding = 100;

}  // namespace floe::parquet
