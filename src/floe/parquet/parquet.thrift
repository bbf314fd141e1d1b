// floe's Thrift description of the Parquet footer, page headers, page index and Bloom filter
// header, written from the Apache Parquet format specification (field ids and wire types are the
// spec's; everything else here is floe's own).
//
// How to read this file:
// - Fields the spec marks `required` are declared with default requiredness: the C++ writer
//   always emits them, while the reader tolerates their absence and records it in `__isset`.
//   floe's wrappers (file_metadata.cc, page_header.cc, ...) decide which missing fields are fatal
//   and say so by name, instead of Thrift throwing a bare "required field not set".
// - Fields holding one of the spec's enums are declared `i32`. The wire encoding is identical,
//   and an out-of-range value from a newer writer (or a corrupt file) then stays an integer the
//   wrapper can judge, instead of being cast into a C++ enum that cannot represent it.
// - Structs that matter only to encrypted files are declared just far enough to be skipped.
//
// Compiled at build time with `thrift --gen cpp:templates,...`; the generated code never leaves
// src/floe/parquet (see thrift_internal.h).

namespace cpp floe.parquet.format

// ---------------------------------------------------------------------------------------------
// Enumerations. Declared for reference and for compile-time checks against floe's enums
// (types.h); fields carry them as i32.

enum Type {
  BOOLEAN = 0
  INT32 = 1
  INT64 = 2
  INT96 = 3
  FLOAT = 4
  DOUBLE = 5
  BYTE_ARRAY = 6
  FIXED_LEN_BYTE_ARRAY = 7
}

enum ConvertedType {
  UTF8 = 0
  MAP = 1
  MAP_KEY_VALUE = 2
  LIST = 3
  ENUM = 4
  DECIMAL = 5
  DATE = 6
  TIME_MILLIS = 7
  TIME_MICROS = 8
  TIMESTAMP_MILLIS = 9
  TIMESTAMP_MICROS = 10
  UINT_8 = 11
  UINT_16 = 12
  UINT_32 = 13
  UINT_64 = 14
  INT_8 = 15
  INT_16 = 16
  INT_32 = 17
  INT_64 = 18
  JSON = 19
  BSON = 20
  INTERVAL = 21
}

enum FieldRepetitionType {
  REQUIRED = 0
  OPTIONAL = 1
  REPEATED = 2
}

// Value 1 (GROUP_VAR_INT) was never used and is not assigned.
enum Encoding {
  PLAIN = 0
  PLAIN_DICTIONARY = 2
  RLE = 3
  BIT_PACKED = 4
  DELTA_BINARY_PACKED = 5
  DELTA_LENGTH_BYTE_ARRAY = 6
  DELTA_BYTE_ARRAY = 7
  RLE_DICTIONARY = 8
  BYTE_STREAM_SPLIT = 9
}

enum CompressionCodec {
  UNCOMPRESSED = 0
  SNAPPY = 1
  GZIP = 2
  LZO = 3
  BROTLI = 4
  LZ4 = 5
  ZSTD = 6
  LZ4_RAW = 7
}

enum PageType {
  DATA_PAGE = 0
  INDEX_PAGE = 1
  DICTIONARY_PAGE = 2
  DATA_PAGE_V2 = 3
}

enum BoundaryOrder {
  UNORDERED = 0
  ASCENDING = 1
  DESCENDING = 2
}

enum EdgeInterpolationAlgorithm {
  SPHERICAL = 0
  VINCENTY = 1
  THOMAS = 2
  ANDOYER = 3
  KARNEY = 4
}

// ---------------------------------------------------------------------------------------------
// Statistics

struct SizeStatistics {
  1: optional i64 unencoded_byte_array_data_bytes
  2: optional list<i64> repetition_level_histogram
  3: optional list<i64> definition_level_histogram
}

struct BoundingBox {
  1: double xmin
  2: double xmax
  3: double ymin
  4: double ymax
  5: optional double zmin
  6: optional double zmax
  7: optional double mmin
  8: optional double mmax
}

struct GeospatialStatistics {
  1: optional BoundingBox bbox
  2: optional list<i32> geospatial_types
}

// min/max (1, 2) are the deprecated signed-order bounds; min_value/max_value (6, 5) follow the
// column order. Both are PLAIN-encoded without the BYTE_ARRAY length prefix.
struct Statistics {
  1: optional binary max
  2: optional binary min
  3: optional i64 null_count
  4: optional i64 distinct_count
  5: optional binary max_value
  6: optional binary min_value
  7: optional bool is_max_value_exact
  8: optional bool is_min_value_exact
  9: optional i64 nan_count
}

// ---------------------------------------------------------------------------------------------
// Logical types: a union of (mostly empty) annotation structs.

struct StringType {}
struct UUIDType {}
struct MapType {}
struct ListType {}
struct EnumType {}
struct DateType {}
struct Float16Type {}
struct NullType {}
struct JsonType {}
struct BsonType {}

struct DecimalType {
  1: i32 scale
  2: i32 precision
}

struct MilliSeconds {}
struct MicroSeconds {}
struct NanoSeconds {}
union TimeUnit {
  1: MilliSeconds MILLIS
  2: MicroSeconds MICROS
  3: NanoSeconds NANOS
}

struct TimestampType {
  1: bool isAdjustedToUTC
  2: TimeUnit unit
}

struct TimeType {
  1: bool isAdjustedToUTC
  2: TimeUnit unit
}

struct IntType {
  1: i8 bitWidth
  2: bool isSigned
}

struct VariantType {
  1: optional i8 specification_version
}

struct GeometryType {
  1: optional string crs
}

struct GeographyType {
  1: optional string crs
  2: optional i32 algorithm  // EdgeInterpolationAlgorithm
}

// Id 9 is reserved (INTERVAL). A member this file does not know is skipped by the reader and
// leaves the union empty; the wrapper reports that as an unrecognised logical type.
union LogicalType {
  1: StringType STRING
  2: MapType MAP
  3: ListType LIST
  4: EnumType ENUM
  5: DecimalType DECIMAL
  6: DateType DATE
  7: TimeType TIME
  8: TimestampType TIMESTAMP
  10: IntType INTEGER
  11: NullType UNKNOWN
  12: JsonType JSON
  13: BsonType BSON
  14: UUIDType UUID
  15: Float16Type FLOAT16
  16: VariantType VARIANT
  17: GeometryType GEOMETRY
  18: GeographyType GEOGRAPHY
}

// ---------------------------------------------------------------------------------------------
// Schema: a depth-first flattening of the schema tree; element 0 is the root.

struct SchemaElement {
  1: optional i32 type              // Type; unset on group nodes
  2: optional i32 type_length       // byte width of FIXED_LEN_BYTE_ARRAY
  3: optional i32 repetition_type   // FieldRepetitionType; unset on the root
  4: string name
  5: optional i32 num_children      // set on group nodes
  6: optional i32 converted_type    // ConvertedType
  7: optional i32 scale
  8: optional i32 precision
  9: optional i32 field_id
  10: optional LogicalType logicalType
}

// ---------------------------------------------------------------------------------------------
// Pages

struct DataPageHeader {
  1: i32 num_values                 // including nulls
  2: i32 encoding                   // Encoding
  3: i32 definition_level_encoding  // Encoding
  4: i32 repetition_level_encoding  // Encoding
  5: optional Statistics statistics
}

struct IndexPageHeader {}

struct DictionaryPageHeader {
  1: i32 num_values
  2: i32 encoding                   // Encoding
  3: optional bool is_sorted
}

// Levels are RLE without a length prefix and never compressed; only the values section may be.
struct DataPageHeaderV2 {
  1: i32 num_values
  2: i32 num_nulls
  3: i32 num_rows
  4: i32 encoding                   // Encoding
  5: i32 definition_levels_byte_length
  6: i32 repetition_levels_byte_length
  7: optional bool is_compressed = true
  8: optional Statistics statistics
}

struct PageHeader {
  1: i32 type                       // PageType
  2: i32 uncompressed_page_size     // excluding this header
  3: i32 compressed_page_size       // excluding this header
  4: optional i32 crc               // CRC-32 of the page bytes after the header
  5: optional DataPageHeader data_page_header
  6: optional IndexPageHeader index_page_header
  7: optional DictionaryPageHeader dictionary_page_header
  8: optional DataPageHeaderV2 data_page_header_v2
}

// ---------------------------------------------------------------------------------------------
// Bloom filter header: precedes the bitset of a column chunk's split-block Bloom filter.

struct SplitBlockAlgorithm {}
union BloomFilterAlgorithm {
  1: SplitBlockAlgorithm BLOCK
}

struct XxHash {}
union BloomFilterHash {
  1: XxHash XXHASH
}

struct Uncompressed {}
union BloomFilterCompression {
  1: Uncompressed UNCOMPRESSED
}

struct BloomFilterHeader {
  1: i32 numBytes                   // size of the bitset that follows
  2: BloomFilterAlgorithm algorithm
  3: BloomFilterHash hash
  4: BloomFilterCompression compression
}

// ---------------------------------------------------------------------------------------------
// Row groups and column chunks

struct KeyValue {
  1: string key
  2: optional string value
}

struct SortingColumn {
  1: i32 column_idx
  2: bool descending
  3: bool nulls_first
}

struct PageEncodingStats {
  1: i32 page_type                  // PageType
  2: i32 encoding                   // Encoding
  3: i32 count
}

struct ColumnMetaData {
  1: i32 type                       // Type
  2: list<i32> encodings            // Encoding
  3: list<string> path_in_schema
  4: i32 codec                      // CompressionCodec
  5: i64 num_values
  6: i64 total_uncompressed_size    // all pages, headers included
  7: i64 total_compressed_size      // all pages, headers included
  8: optional list<KeyValue> key_value_metadata
  9: i64 data_page_offset
  10: optional i64 index_page_offset
  11: optional i64 dictionary_page_offset
  12: optional Statistics statistics
  13: optional list<PageEncodingStats> encoding_stats
  14: optional i64 bloom_filter_offset
  15: optional i32 bloom_filter_length
  16: optional SizeStatistics size_statistics
  17: optional GeospatialStatistics geospatial_statistics
}

// Declared only so that encrypted-column metadata parses; floe does not decrypt.
struct EncryptionWithFooterKey {}
struct EncryptionWithColumnKey {
  1: list<string> path_in_schema
  2: optional binary key_metadata
}
union ColumnCryptoMetaData {
  1: EncryptionWithFooterKey ENCRYPTION_WITH_FOOTER_KEY
  2: EncryptionWithColumnKey ENCRYPTION_WITH_COLUMN_KEY
}

struct ColumnChunk {
  1: optional string file_path      // data in another file (summary files only)
  2: i64 file_offset = 0            // deprecated
  3: optional ColumnMetaData meta_data
  4: optional i64 offset_index_offset
  5: optional i32 offset_index_length
  6: optional i64 column_index_offset
  7: optional i32 column_index_length
  8: optional ColumnCryptoMetaData crypto_metadata
  9: optional binary encrypted_column_metadata
}

struct RowGroup {
  1: list<ColumnChunk> columns
  2: i64 total_byte_size
  3: i64 num_rows
  4: optional list<SortingColumn> sorting_columns
  5: optional i64 file_offset
  6: optional i64 total_compressed_size
  7: optional i16 ordinal
}

// ---------------------------------------------------------------------------------------------
// Column orders: how min/max in statistics and the column index compare.

struct TypeDefinedOrder {}
struct IEEE754TotalOrder {}
union ColumnOrder {
  1: TypeDefinedOrder TYPE_ORDER
  2: IEEE754TotalOrder IEEE_754_TOTAL_ORDER
}

// ---------------------------------------------------------------------------------------------
// Page index

struct PageLocation {
  1: i64 offset
  2: i32 compressed_page_size       // header included
  3: i64 first_row_index
}

struct OffsetIndex {
  1: list<PageLocation> page_locations
  2: optional list<i64> unencoded_byte_array_data_bytes
}

struct ColumnIndex {
  1: list<bool> null_pages
  2: list<binary> min_values
  3: list<binary> max_values
  4: i32 boundary_order             // BoundaryOrder
  5: optional list<i64> null_counts
  6: optional list<i64> repetition_level_histograms
  7: optional list<i64> definition_level_histograms
  8: optional list<i64> nan_counts
}

// ---------------------------------------------------------------------------------------------
// File metadata (the footer)

struct AesGcmV1 {
  1: optional binary aad_prefix
  2: optional binary aad_file_unique
  3: optional bool supply_aad_prefix
}
struct AesGcmCtrV1 {
  1: optional binary aad_prefix
  2: optional binary aad_file_unique
  3: optional bool supply_aad_prefix
}
union EncryptionAlgorithm {
  1: AesGcmV1 AES_GCM_V1
  2: AesGcmCtrV1 AES_GCM_CTR_V1
}

struct FileMetaData {
  1: i32 version
  2: list<SchemaElement> schema
  3: i64 num_rows
  4: list<RowGroup> row_groups
  5: optional list<KeyValue> key_value_metadata
  6: optional string created_by
  7: optional list<ColumnOrder> column_orders  // one per leaf column, in schema order
  8: optional EncryptionAlgorithm encryption_algorithm  // plaintext-footer encrypted files
  9: optional binary footer_signing_key_metadata
}
