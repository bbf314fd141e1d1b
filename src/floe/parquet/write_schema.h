// WriteSchema: the Parquet schema a columnar::Schema is written as (physical, logical AND
// converted types, field ids) and how each leaf's Arrow-layout values become physical values.
// Plain data, built once per file.
//
// Type mapping (what Iceberg and Spark write):
//   bool -> BOOLEAN; int8/int16 -> INT32 INTEGER(8|16, signed) INT_8|INT_16; int32 -> INT32;
//   int64 -> INT64; uint8/16/32 -> INT32 INTEGER(.., unsigned) UINT_*; uint64 -> INT64 UINT_64;
//   float/double -> FLOAT/DOUBLE; decimal(p, s) -> INT32 when p <= 9, INT64 when p <= 18, else
//   FIXED_LEN_BYTE_ARRAY of the fewest bytes holding p digits, DECIMAL(p, s) both ways;
//   date32 -> INT32 DATE; time64[us|ns] -> INT64 TIME(false, MICROS|NANOS) (TIME_MICROS for us);
//   timestamp[ms|us|ns, tz?] -> INT64 TIMESTAMP(tz non-empty, unit) with TIMESTAMP_MILLIS|MICROS
//   for ms/us (the spec pairs them whatever isAdjustedToUTC says); string -> BYTE_ARRAY STRING
//   UTF8; binary -> BYTE_ARRAY; fixed_size_binary(n) -> FIXED_LEN_BYTE_ARRAY(n), annotated UUID
//   only when n == 16 and the field's id is listed as a uuid (columnar has no uuid type).
//   struct -> a group; list -> the LogicalTypes spec's three levels, `<name> (LIST) { repeated
//   group list { element } }`; map -> `<name> (MAP) { repeated group key_value { required key;
//   value } }`. Every field's id goes on its element (the repeated groups have none, as in
//   Iceberg's files). float16 and null are `unsupported`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/data_type.h"
#include "floe/parquet/file_metadata.h"

namespace floe::parquet {

// How a leaf's Arrow-layout values become the physical type's values.
enum class ValueConversion {
  kBool,   // bitmap -> BOOLEAN
  kInt32,  // int32, date32 as they are
  kInt64,  // int64, time64, timestamp as they are
  kFloat,
  kDouble,
  kInt8ToInt32,  // sign-extended
  kInt16ToInt32,
  kUInt8ToInt32,  // zero-extended
  kUInt16ToInt32,
  kUInt32ToInt32,   // same bits (compared unsigned)
  kUInt64ToInt64,   // same bits (compared unsigned)
  kDecimalToInt32,  // the low 32 bits of the 128-bit unscaled value
  kDecimalToInt64,  // the low 64 bits
  kDecimalToFixed,  // big-endian two's complement, the low type_length bytes
  kByteArray,       // string, binary
  kFixed,           // fixed_size_binary as it is
};

struct LeafColumn {
  std::vector<std::string> path;  // field names from the top-level field down to the leaf
  int top_level_index = 0;        // which column of a RecordBatch feeds this leaf
  // Child indices from the top-level column down to the leaf's column (a list's values child is
  // 0; a map's is 0, then 0 for the key, 1 for the value); empty for a flat column.
  std::vector<int> child_path;
  int32_t field_id = -1;
  SchemaElement element;  // the leaf's element: physical type, annotations, repetition
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  ValueConversion conversion = ValueConversion::kInt64;
  columnar::DataType source_type;

  bool nested() const { return !child_path.empty(); }
  PhysicalType physical_type() const { return *element.type; }
  int32_t type_length() const { return element.type_length.value_or(0); }
  // "a.b.c": how options and messages name the column.
  std::string dotted_path() const;
};

struct WriteSchema {
  std::vector<SchemaElement> elements;  // depth-first, elements[0] is the root
  std::vector<LeafColumn> leaves;       // in schema order, = the column chunks of a row group
};

// Maps `schema`; fixed_size_binary(16) fields whose id is in `uuid_field_ids` are UUIDs.
Result<WriteSchema> MakeWriteSchema(const columnar::Schema& schema,
                                    std::span<const int32_t> uuid_field_ids = {});

// Bytes of the FIXED_LEN_BYTE_ARRAY that holds any unscaled decimal of `precision` digits.
int32_t DecimalFixedLength(int32_t precision);

}  // namespace floe::parquet
