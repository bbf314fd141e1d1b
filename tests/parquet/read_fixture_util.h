// Fixture files for the read-path tests: Parquet files written by floe's own ParquetWriter with
// predictable sizes (INT64 columns, PLAIN, uncompressed), so request counts and bytes are exact.
// Column c0 (field id 1) holds first_id + row (sorted); the others pseudo-random values.
// Test-only; shared by tests/parquet and tests/iceberg.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/columnar/column_builder.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/writer.h"

namespace floe::parquet::testing {

struct FixtureFile {
  Buffer bytes;
  WrittenFile written;
  int64_t size() const { return static_cast<int64_t>(bytes.size()); }
};

inline int64_t FixtureValue(int64_t row, int column) {
  uint64_t x = static_cast<uint64_t>(row) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(column);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<int64_t>(x);
}

// `columns` INT64 columns named c0..c<n-1> with field ids 1..n; rows written in batches of
// 10,000. PLAIN and uncompressed unless `options` says otherwise.
inline Result<FixtureFile> WriteInt64File(int columns, int64_t rows, int64_t first_id = 0,
                                          WriterOptions options = {}, bool plain = true) {
  if (plain) {
    options.codec = CompressionCodec::kUncompressed;
    options.enable_dictionary = false;
    options.delta_binary_packed_for_integers = false;
  }
  auto schema = std::make_shared<columnar::Schema>();
  for (int c = 0; c < columns; ++c) {
    schema->fields.push_back({"c" + std::to_string(c), columnar::Int64(), false, c + 1});
  }
  MemorySink sink;
  FLOE_ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(schema, &sink, options));
  for (int64_t start = 0; start < rows; start += 10'000) {
    const int64_t n = std::min<int64_t>(10'000, rows - start);
    columnar::RecordBatch batch;
    batch.schema = schema;
    batch.num_rows = n;
    for (int c = 0; c < columns; ++c) {
      columnar::FixedWidthBuilder<int64_t> b(columnar::Int64());
      for (int64_t i = 0; i < n; ++i) {
        b.Append(c == 0 ? first_id + start + i : FixtureValue(start + i, c));
      }
      batch.columns.push_back(b.Finish());
    }
    FLOE_RETURN_IF_ERROR(writer->Write(batch));
  }
  FixtureFile out;
  FLOE_ASSIGN_OR_RETURN(out.written, writer->Close());
  out.bytes = sink.ToBuffer();
  return out;
}

}  // namespace floe::parquet::testing
