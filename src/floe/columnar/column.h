// Column: one immutable array in Arrow's memory layout (validity bitmap, values or offsets + data,
// children for nested types), and RecordBatch, equal-length columns under a Schema.
// Columns are shared read-only between threads via ColumnPtr; buffers are Buffers, so a column may
// point straight into a decoded page without a copy.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/columnar/data_type.h"

namespace floe::columnar {

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline int64_t BitmapBytes(int64_t bits) { return (bits + 7) / 8; }

struct Column;
using ColumnPtr = std::shared_ptr<const Column>;

struct Column {
  DataType type;
  int64_t length = 0;
  int64_t null_count = 0;
  Buffer validity;  // bit i set = row i valid; empty when null_count == 0
  Buffer values;    // fixed width: length x width; kBool: bitmap; string/binary: the bytes
  Buffer offsets;   // string/binary/list/map: length + 1 int32 offsets
  std::vector<ColumnPtr> children;
  // Optional, on string and binary columns decoded from dictionary pages: row i's value is entry
  // codes[i] (int32, one per row; any code where the row is NULL) of `dictionary`, a column of
  // the same type without nulls. values/offsets are complete either way; consumers may use this
  // to work once per distinct value. Whoever changes values drops it.
  ColumnPtr dictionary;
  Buffer codes;

  bool IsValid(int64_t i) const { return validity.empty() || GetBit(validity.data(), i); }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  template <typename T>
  const T* Values() const {
    return reinterpret_cast<const T*>(values.data());
  }
  template <typename T>
  T Value(int64_t i) const {
    T v;
    std::memcpy(&v, values.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  bool BoolAt(int64_t i) const { return GetBit(values.data(), i); }
  const int32_t* Offsets() const { return reinterpret_cast<const int32_t*>(offsets.data()); }
  std::string_view BytesAt(int64_t i) const {
    if (type.id == TypeId::kFixedSizeBinary) {
      return {reinterpret_cast<const char*>(values.data()) + i * type.byte_width,
              static_cast<size_t>(type.byte_width)};
    }
    int32_t b, e;
    std::memcpy(&b, offsets.data() + i * 4, 4);
    std::memcpy(&e, offsets.data() + (i + 1) * 4, 4);
    return {reinterpret_cast<const char*>(values.data()) + b, static_cast<size_t>(e - b)};
  }

  // Checks the buffers against the type and length (sizes, offsets monotone and in range), so a
  // column built from untrusted bytes can be rejected instead of read out of bounds.
  Status Validate() const;
};

struct RecordBatch {
  SchemaPtr schema;
  std::vector<ColumnPtr> columns;
  int64_t num_rows = 0;

  const ColumnPtr& column(int i) const { return columns[i]; }
  int num_columns() const { return static_cast<int>(columns.size()); }
  Status Validate() const;
};

// Renders one value for messages and tests: "NULL", 42, 'abc', 2024-01-03, ...
std::string ValueToString(const Column& column, int64_t row);

}  // namespace floe::columnar
