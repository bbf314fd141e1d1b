// Columns and RecordBatches through the Arrow C Data Interface, both ways: exported, so pyarrow,
// Polars and DuckDB take floe's batches without a copy, and imported, so floe takes theirs. The
// structs are the interface's own (ABI-stable, defined by the Arrow specification). An exported
// array keeps its Column alive until the consumer calls `release`; buffers that are not 8-byte
// aligned are copied once at export. An imported array's buffers are used in place where floe's
// layout is Arrow's, and the producer's `release` is called when the last column using them goes.
#pragma once

#include <cstdint>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

extern "C" {
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE
}

namespace floe::columnar {

// The format string of the C Data Interface for `type` ("l", "u", "d:10,2", "tsu:UTC", "+l", ...).
Result<std::string> ArrowFormat(const DataType& type);

// Fills `out_schema` for a field. On error nothing is allocated.
Status ExportField(const Field& field, ArrowSchema* out_schema);
// Fills `out_array` for a column.
Status ExportColumn(const ColumnPtr& column, ArrowArray* out_array);
// A batch is exported as a struct array whose children are the columns (pyarrow's
// RecordBatch._import_from_c convention).
Status ExportSchema(const Schema& schema, ArrowSchema* out_schema);
Status ExportBatch(const RecordBatch& batch, ArrowArray* out_array);

// --- import ---
// Arrow types floe keeps no column of become the nearest it has, converted on import: large
// strings, binaries and lists (64-bit offsets) and string/binary views become their 32-bit-offset
// forms (an error past 2 GiB in one column of one batch); date64 becomes date32, time32 time64[us],
// timestamp[s] timestamp[us]; any time zone becomes "UTC" (Arrow's values are UTC instants);
// dictionary-encoded columns become their values. Others (unions, run-end encoded, durations,
// intervals, fixed-size lists, 256-bit decimals) are an unsupported error naming the column and
// its format. A field id is taken from the Parquet key `PARQUET:field_id` of the field's metadata.

// The field `schema` describes (the producer's schema is not released).
Result<Field> ImportField(const ArrowSchema& schema);
// The columns of a struct schema, as a record batch's schema is exported.
Result<Schema> ImportSchema(const ArrowSchema& schema);
// A struct array of `schema` (ImportSchema of the producer's `arrow_schema`) as a batch. Takes
// `array` over (its release is set to null) whether or not the import succeeds; the result is
// validated, so malformed buffers are an error, not an out-of-bounds read.
Result<RecordBatch> ImportBatch(ArrowArray* array, const ArrowSchema& arrow_schema,
                                SchemaPtr schema);

}  // namespace floe::columnar
