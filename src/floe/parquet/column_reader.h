// ColumnReader (minimal): decodes all pages of one in-memory column chunk into plain arrays, so the
// layers below are tested end to end on real files until the planned batch reader replaces it.
// Flat columns only (max repetition 0, max definition <= 1); nested or encrypted is `unsupported`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/byte_array_builder.h"
#include "floe/parquet/compression.h"
#include "floe/parquet/file_metadata.h"

namespace floe::parquet {

// A column's values with nulls left out (dense), plus the levels that place them. Only the
// member of the column's physical type is filled.
struct ColumnValues {
  PhysicalType type = PhysicalType::kBoolean;
  int32_t type_length = 0;          // FIXED_LEN_BYTE_ARRAY width (12 for INT96)
  int64_t num_levels = 0;           // values including nulls (= rows, for a flat column)
  std::vector<int16_t> def_levels;  // one per level; empty when the column is required
  std::vector<bool> booleans;
  std::vector<int32_t> int32s;
  std::vector<int64_t> int64s;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<uint8_t> fixed;  // INT96 / FIXED_LEN_BYTE_ARRAY, type_length bytes per value
  ByteArrayBuilder byte_arrays;

  int64_t num_non_null() const;
};

struct ColumnReaderOptions {
  bool verify_checksums = false;  // check each page's CRC-32 when the writer stored one
};

class ColumnReader {
 public:
  // `chunk` holds the column chunk's bytes, starting at meta.chunk_start(); `leaf` is the
  // chunk's schema element; `max_definition_level` its level in the schema (0 or 1 here).
  static Result<ColumnReader> Open(ByteView chunk, const ColumnChunk& column,
                                   const SchemaElement& leaf, int16_t max_definition_level,
                                   int16_t max_repetition_level,
                                   const ColumnReaderOptions& options = {});

  // Decodes all pages. Errors name the page ("page 3 at byte 1234: ...").
  Result<ColumnValues> ReadAll();

 private:
  ColumnReader() = default;

  ByteView chunk_;
  ColumnMetaData meta_;
  int32_t type_length_ = 0;
  int16_t max_def_ = 0;
  ColumnReaderOptions options_;
  std::unique_ptr<Codec> codec_;
};

}  // namespace floe::parquet
