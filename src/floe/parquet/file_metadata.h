// FileMetaData: the Parquet footer as plain floe data, with its Thrift compact parser and
// serialiser. A parsed FileMetaData has passed the checks every reader would otherwise repeat
// (required fields, a well-formed schema tree, one chunk per leaf); bad input is `corrupt`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/logical_type.h"
#include "floe/parquet/statistics.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

struct KeyValue {
  std::string key;
  std::optional<std::string> value;

  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// One node of the schema tree; FileMetaData::schema lists them depth-first, root first.
// A group has num_children; a leaf (a column) has type.
struct SchemaElement {
  std::optional<PhysicalType> type;
  std::optional<int32_t> type_length;                  // FIXED_LEN_BYTE_ARRAY byte width
  std::optional<FieldRepetitionType> repetition_type;  // absent on the root only
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;

  bool is_leaf() const { return num_children.value_or(0) == 0 && type.has_value(); }

  friend bool operator==(const SchemaElement&, const SchemaElement&) = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;

  friend bool operator==(const PageEncodingStats&, const PageEncodingStats&) = default;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  int64_t num_values = 0;               // levels, so nulls included
  int64_t total_uncompressed_size = 0;  // all pages, page headers included
  int64_t total_compressed_size = 0;    // all pages, page headers included: the chunk's bytes
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
  std::optional<int64_t> bloom_filter_offset;
  std::optional<int32_t> bloom_filter_length;  // header included
  std::optional<SizeStatistics> size_statistics;
  std::optional<GeospatialStatistics> geospatial_statistics;

  // First byte of the chunk: the dictionary page when there is one, else the first data page.
  // Some writers store dictionary_page_offset = 0 for "none"; that is read as absent.
  int64_t chunk_start() const;

  friend bool operator==(const ColumnMetaData&, const ColumnMetaData&) = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;     // chunk stored in another file (summary files)
  int64_t file_offset = 0;                  // deprecated; not to be trusted
  std::optional<ColumnMetaData> meta_data;  // absent only for encrypted columns
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
  bool encrypted = false;  // carries crypto metadata; floe cannot decrypt it

  friend bool operator==(const ColumnChunk&, const ColumnChunk&) = default;
};

struct SortingColumn {
  int32_t column_idx = 0;
  bool descending = false;
  bool nulls_first = false;

  friend bool operator==(const SortingColumn&, const SortingColumn&) = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;  // one per leaf column, in schema order
  int64_t total_byte_size = 0;       // uncompressed
  int64_t num_rows = 0;
  std::vector<SortingColumn> sorting_columns;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;

  friend bool operator==(const RowGroup&, const RowGroup&) = default;
};

// How min/max of a column compare (statistics and column index).
enum class ColumnOrder : int32_t {
  kTypeDefinedOrder = 1,
  kIeee754TotalOrder = 2,
  kUnrecognized = -1,  // a newer order: min/max of that column must be ignored
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;  // depth-first, schema[0] is the root
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  std::vector<ColumnOrder> column_orders;  // one per leaf column, or empty
  bool encrypted = false;                  // an encrypted file with a plaintext footer

  // Number of leaf columns in the schema (= columns in every row group).
  int64_t num_columns() const;

  friend bool operator==(const FileMetaData&, const FileMetaData&) = default;
};

// Parses a Thrift-compact FileMetaData occupying all of `bytes` (trailing bytes are ignored).
Result<FileMetaData> ParseFileMetaData(ByteView bytes);

// Serialises for a footer; ParseFileMetaData(SerializeFileMetaData(m)) == m for valid metadata.
Result<std::vector<uint8_t>> SerializeFileMetaData(const FileMetaData& metadata);

}  // namespace floe::parquet
