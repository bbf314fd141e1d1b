// ParquetSchema: a file's schema tree mapped to Arrow-layout columnar types with field ids, plus
// what the reader needs to rebuild nested values from levels (each node's definition/repetition
// thresholds) and to compare statistics (each leaf's value domain). Immutable after Make; share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/data_type.h"
#include "floe/parquet/file_metadata.h"

namespace floe::parquet {

// How a leaf's decoded physical values become its Arrow values.
//   - TIME(MILLIS) on INT32 widens to time64[us] (floe's columnar has no time32).
//   - INT96 (legacy Impala/Spark timestamps) reads as timestamp[ns], no time zone, as pyarrow does.
//   - FLOAT16 stays float16: Arrow's half float has the same two little-endian bytes.
//   - Annotations that do not fit their physical type, and unknown ones, fall back to the physical
//     type (INT32 -> int32, BYTE_ARRAY -> binary, FIXED_LEN_BYTE_ARRAY -> fixed_size_binary[n]).
enum class ReadConversion {
  kCopy,            // same bytes: int32/int64/float/double/uint32/uint64/date32/time64/timestamp
  kBool,            // BOOLEAN -> bitmap
  kInt32ToInt8,     // INT(8, signed) stored in INT32
  kInt32ToInt16,    // INT(16, signed)
  kInt32ToUInt8,    // INT(8, unsigned)
  kInt32ToUInt16,   // INT(16, unsigned)
  kMillisToMicros,  // TIME(MILLIS) INT32 -> time64[us]
  kInt32ToDecimal,  // DECIMAL on INT32
  kInt64ToDecimal,  // DECIMAL on INT64
  kBytesToDecimal,  // DECIMAL on FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY: big-endian two's complement
  kInt96ToNanos,    // INT96 -> timestamp[ns]
  kBinary,          // BYTE_ARRAY -> string / binary
  kFixed,           // FIXED_LEN_BYTE_ARRAY -> fixed_size_binary / float16
  kNull,            // UNKNOWN logical type: the column only holds nulls
};

// The order in which a leaf's min/max statistics compare, in its Arrow value domain.
enum class StatsDomain {
  kNone,      // no usable order (INT96, INTERVAL, null): never prunes
  kBool,      // false < true
  kSigned,    // int64 (signed integers, dates, times, timestamps)
  kUnsigned,  // uint64 (unsigned integers)
  kFloat,     // double (FLOAT, DOUBLE, FLOAT16), NaN never a bound
  kBytes,     // unsigned lexicographic bytes (strings, binary, fixed_size_binary)
  kDecimal,   // 128-bit unscaled integers at the column's scale
};

// One leaf column of the file: a ColumnChunk in every row group.
struct ColumnDescriptor {
  int column = 0;          // index among the leaves (= column chunk index in a row group)
  int schema_index = 0;    // index into FileMetaData::schema
  std::string path;        // Parquet path_in_schema, dotted ("a.list.element")
  std::string field_path;  // dotted Arrow path of the leaf's field ("a.element")
  int top_field = 0;       // index of the top-level field holding it
  int16_t max_def = 0;
  int16_t max_rep = 0;
  PhysicalType physical = PhysicalType::kBoolean;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width; 12 for INT96
  columnar::DataType type;  // the Arrow type of its values
  ReadConversion conversion = ReadConversion::kCopy;
  StatsDomain domain = StatsDomain::kNone;
  int64_t stats_multiplier = 1;  // statistics in the Arrow unit: 1000 for TIME(MILLIS)
};

// One Arrow field of the mapped schema, with the level thresholds that place its values. For an
// entry (def, rep) of the levels of `leaf` (the first leaf below the node):
//   - the entry starts a value ("slot") of this node iff rep <= rep_slot and def >= def_slot;
//   - that value is non-null iff def >= def_valid.
// A list's (and map's) entries are its child's slots between two of its own.
struct FieldNode {
  enum class Kind { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  columnar::Field field;
  std::string path;  // dotted Arrow path
  int16_t def_slot = 0;
  int16_t rep_slot = 0;
  int16_t def_valid = 0;
  int leaf = -1;            // kLeaf: its column; otherwise the first leaf below it
  std::vector<int> leaves;  // every leaf below (itself for a leaf), in column order
  std::vector<FieldNode> children;
};

class ParquetSchema {
 public:
  // Maps the (already validated) schema of `metadata`. A top-level field whose type floe cannot
  // read does not fail the file: its error is kept (FieldError) and reported when it is read.
  static Result<ParquetSchema> Make(const FileMetaData& metadata);

  const std::vector<FieldNode>& fields() const { return fields_; }
  const std::vector<ColumnDescriptor>& leaves() const { return leaves_; }
  // The Arrow schema of every top-level field (an unreadable field appears with type null).
  const columnar::Schema& arrow_schema() const { return arrow_schema_; }
  // Why top-level field `i` cannot be read, or nullopt.
  const std::optional<Error>& FieldError(int i) const { return errors_[i]; }

  // The node at a dotted Arrow path ("a", "s.x", "l.element"), or nullptr.
  const FieldNode* FindPath(std::string_view path) const;
  // The node carrying Parquet field id `id` (the first, in schema order), or nullptr.
  const FieldNode* FindFieldId(int32_t id) const;

 private:
  std::vector<FieldNode> fields_;
  std::vector<ColumnDescriptor> leaves_;
  std::vector<std::optional<Error>> errors_;
  columnar::Schema arrow_schema_;
};

// The Arrow type, conversion and statistics domain of a leaf element, without its levels.
struct LeafType {
  columnar::DataType type;
  ReadConversion conversion = ReadConversion::kCopy;
  StatsDomain domain = StatsDomain::kNone;
  int64_t stats_multiplier = 1;
};
Result<LeafType> MapLeafType(const SchemaElement& element);

}  // namespace floe::parquet
