// Manifests and manifest lists: the Avro files that list a snapshot's data and delete files with
// their partition values and column metrics. Written exactly as the spec's v2 and v3 schemas give
// them (field ids, map records k<id>_v<id>, header keys); read from v1, v2 and v3 files by field
// id, with sequence-number and first-row-id inheritance applied. Plain data in, bytes out; IO
// lives with the caller.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::avro {
struct Schema;
}  // namespace floe::avro

namespace floe::iceberg {

enum class FileContent { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
enum class ManifestContent { kData = 0, kDeletes = 1 };
enum class EntryStatus { kExisting = 0, kAdded = 1, kDeleted = 2 };

struct OTreeFileEntry;  // otree_index.h

struct DataFile {
  FileContent content = FileContent::kData;
  std::string file_path;
  std::string file_format = "PARQUET";
  std::vector<Literal> partition;  // one per field of the file's partition spec
  int32_t spec_id = 0;             // from the manifest the file was listed in
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  std::map<int32_t, int64_t> nan_value_counts;
  std::map<int32_t, std::string> lower_bounds;  // spec's single-value serialisation
  std::map<int32_t, std::string> upper_bounds;
  std::optional<std::string> key_metadata;
  std::vector<int64_t> split_offsets;
  std::vector<int32_t> equality_ids;
  std::optional<int32_t> sort_order_id;
  // v3 row lineage (142): the row id of the file's first row; null in a new file's entry, which
  // inherits it from its manifest's first_row_id as it is read.
  std::optional<int64_t> first_row_id;
  // Delete files: the one data file a position delete file or deletion vector applies to (143),
  // and a deletion vector's blob in its Puffin file (144, 145).
  std::optional<std::string> referenced_data_file;
  std::optional<int64_t> content_offset;
  std::optional<int64_t> content_size_in_bytes;
  // Not in manifests: when the writer that PUT this file in this process started the PUT (Unix
  // ms). A commit need not check that such a file still exists while orphan removal's age floor
  // protects it (commit.cc).
  std::optional<int64_t> written_at_ms;
  // Not in manifests: the file's place in the table's OTree index when the writer laid it out as
  // one (otree_index.h); the commit that adds the file records it in the index.
  std::shared_ptr<const OTreeFileEntry> otree;
};

// Delete files: a deletion vector is a position delete in a Puffin file (v3).
inline bool IsDeletionVector(const DataFile& f) {
  return f.content == FileContent::kPositionDeletes &&
         (f.file_format == "PUFFIN" || f.file_format == "puffin");
}

// What names a delete file among a table's live ones: its path, and for a deletion vector also its
// blob's offset (one Puffin file holds the vectors of many data files).
inline std::string DeleteFileKey(const DataFile& f) {
  return f.file_path + '#' + std::to_string(f.content_offset.value_or(-1));
}

struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;  // null: inherit from the manifest list
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> file_sequence_number;
  DataFile file;
};

struct FieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;
};

// One row of a manifest list.
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int32_t existing_files_count = 0;
  int32_t deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
  std::vector<FieldSummary> partitions;
  std::optional<std::string> key_metadata;
  // v3 (520): the first row id handed to the manifest's data files without one; null for delete
  // manifests and for manifests of snapshots made before a table's upgrade to v3.
  std::optional<int64_t> first_row_id;
};

// What a manifest is written against.
struct ManifestContext {
  const Schema* schema = nullptr;
  const PartitionSpec* spec = nullptr;
  int format_version = 2;
  ManifestContent content = ManifestContent::kData;
};

// The manifest file's bytes (Avro, deflate).
Result<std::string> WriteManifest(const ManifestContext& ctx,
                                  const std::vector<ManifestEntry>& entries);

// Reads a manifest's entries. `list_entry` supplies inherited snapshot ids and sequence numbers;
// `partition_type` (from the table's spec of that id) types the partition values. `name` is for
// errors.
Result<std::vector<ManifestEntry>> ReadManifest(const Buffer& bytes, const std::string& name,
                                                const ManifestFile& list_entry,
                                                const Type& partition_type);

// What a manifest list is written for: its snapshot, and in v3 the snapshot's first-row-id.
struct ManifestListContext {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int format_version = 2;
  std::optional<int64_t> first_row_id;  // v3
};

// A manifest list's bytes, and its rows back.
Result<std::string> WriteManifestList(const ManifestListContext& ctx,
                                      const std::vector<ManifestFile>& manifests);
Result<std::vector<ManifestFile>> ReadManifestList(const Buffer& bytes, const std::string& name);

// A data file's column metrics as they lie in a manifest being read: (column id, value) pairs in
// file order, a later pair of an id overriding an earlier one (as DataFile's maps keep them).
// Views into the manifest's inflated bytes.
struct MetricsView {
  std::span<const std::pair<int32_t, int64_t>> value_counts;
  std::span<const std::pair<int32_t, int64_t>> null_value_counts;
  std::span<const std::pair<int32_t, int64_t>> nan_value_counts;
  std::span<const std::pair<int32_t, std::string_view>> lower_bounds;
  std::span<const std::pair<int32_t, std::string_view>> upper_bounds;
};

// A manifest's entries read in place (IndexManifest), for planning: each entry's head -- status,
// content, partition tuple, column metrics -- for a filter to judge, the full ManifestEntry built
// only for the entries asked for. Reading in place skips (yet checks) every field a head lacks
// and builds nothing per entry but its partition tuple, so judging all the entries of a manifest
// costs little more than inflating it. Immutable and self-contained (it holds the inflated blocks
// its views point into): share it across threads, cache it (decoded_metadata.h).
class ManifestIndex {
 public:
  ManifestIndex(ManifestIndex&&) noexcept;
  ManifestIndex& operator=(ManifestIndex&&) noexcept;
  ~ManifestIndex();

  size_t size() const;
  EntryStatus status(size_t i) const;
  FileContent content(size_t i) const;
  const std::vector<Literal>& partition(size_t i) const;
  MetricsView metrics(size_t i) const;  // valid as long as the index
  // Entry i as ReadManifest gives it.
  Result<ManifestEntry> Entry(size_t i) const;

 private:
  friend Result<ManifestIndex> IndexManifest(const Buffer&, const std::string&, const ManifestFile&,
                                             const Type&);
  struct Row;
  ManifestIndex();
  void AddRow(uint32_t block, uint32_t offset, EntryStatus status, FileContent content,
              std::optional<int64_t> first_row_id, std::vector<Literal> partition,
              const MetricsView& metrics);

  // What Entry needs: the writer's schema and the reader's inputs.
  std::shared_ptr<const avro::Schema> schema_;
  const avro::Schema* entry_schema_ = nullptr;
  const avro::Schema* data_file_schema_ = nullptr;
  const avro::Schema* partition_schema_ = nullptr;
  ManifestFile list_entry_;
  Type partition_type_;
  std::string name_;
  bool read_in_place_ = false;  // else entries_ holds what the general reader read
  std::vector<std::unique_ptr<std::string>> blocks_;  // inflated; fixed in memory for the views
  std::vector<ManifestEntry> entries_;
  std::vector<Row> rows_;
  std::vector<std::pair<int32_t, int64_t>> values_, nulls_, nans_;
  std::vector<std::pair<int32_t, std::string_view>> lower_, upper_;
};

// Reads a manifest in place, as ReadManifest reads it (the same entries, the same errors).
Result<ManifestIndex> IndexManifest(const Buffer& bytes, const std::string& name,
                                    const ManifestFile& list_entry, const Type& partition_type);

// Row id assignment as a v3 manifest list is written (spec: "First Row ID Assignment"): each data
// manifest without a first_row_id gets the next free id, `next_row_id` onwards, and reserves its
// added and existing rows (every file that may inherit an id from it). Returns the table's new
// next-row-id; the snapshot's added-rows is its growth.
int64_t AssignFirstRowIds(std::vector<ManifestFile>& manifests, int64_t next_row_id);

// The partition summaries of a manifest's live entries (for manifest-list pruning).
std::vector<FieldSummary> SummarizePartitions(const Type& partition_type,
                                              const std::vector<ManifestEntry>& entries);

}  // namespace floe::iceberg
