// DataType, Field and Schema of columnar batches: Arrow's logical types, as far as Iceberg and
// Parquet need them. Plain values, cheap to copy; a Field may carry the Iceberg/Parquet field id.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::columnar {

enum class TypeId {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kDecimal128,  // 16-byte little-endian two's complement, precision/scale
  kDate32,      // days since 1970-01-01
  kTime64,      // since midnight, unit micro or nano
  kTimestamp,   // since the epoch, unit milli/micro/nano, optional time zone ("UTC")
  kString,      // UTF-8, int32 offsets
  kBinary,      // int32 offsets
  kFixedSizeBinary,
  kList,    // one child
  kStruct,  // n children
  kMap,     // one child: struct<key, value>
};

enum class TimeUnit { kMilli, kMicro, kNano };

struct Field;

struct DataType {
  TypeId id = TypeId::kNull;
  int32_t precision = 0;             // kDecimal128
  int32_t scale = 0;                 // kDecimal128
  int32_t byte_width = 0;            // kFixedSizeBinary
  TimeUnit unit = TimeUnit::kMicro;  // kTime64, kTimestamp
  std::string timezone;              // kTimestamp: "UTC" when adjusted to UTC, else empty
  std::vector<Field> children;       // kList, kStruct, kMap

  // Bytes per value of the values buffer; 0 for variable-length and nested types, and for kBool
  // (a bitmap).
  int FixedWidth() const;
  bool IsBinaryLike() const { return id == TypeId::kString || id == TypeId::kBinary; }
  bool IsNested() const {
    return id == TypeId::kList || id == TypeId::kStruct || id == TypeId::kMap;
  }
  // "int64", "decimal(10, 2)", "timestamp[us, UTC]", "list<item: string>".
  std::string ToString() const;
  // The name floe's SQL and outputs give the type, in Iceberg's and Spark's spelling: "long",
  // "int", "string", "timestamptz", "decimal(10, 2)", "fixed(16)", "list<string>",
  // "struct<a: int>", "map<string, long>"; Arrow's unsigned and 8/16-bit integers as "tinyint",
  // "smallint", "uint32", ...
  std::string SqlName() const;

  friend bool operator==(const DataType&, const DataType&);
};

struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  int32_t field_id = -1;  // -1: none

  friend bool operator==(const Field&, const Field&) = default;
};

DataType Bool();
DataType Int8();
DataType Int16();
DataType Int32();
DataType Int64();
DataType UInt8();
DataType UInt16();
DataType UInt32();
DataType UInt64();
DataType Float16();
DataType Float32();
DataType Float64();
DataType Decimal128(int32_t precision, int32_t scale);
DataType Date32();
DataType Time64(TimeUnit unit);
DataType Timestamp(TimeUnit unit, std::string timezone = {});
DataType String();
DataType Binary();
DataType FixedSizeBinary(int32_t byte_width);
DataType List(Field item);
DataType Struct(std::vector<Field> fields);
DataType Map(Field key, Field value);

struct Schema {
  std::vector<Field> fields;

  int num_fields() const { return static_cast<int>(fields.size()); }
  // Index of the top-level field named `name`, or nullopt.
  std::optional<int> IndexOf(std::string_view name) const;
  std::string ToString() const;

  friend bool operator==(const Schema&, const Schema&) = default;
};

using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace floe::columnar
