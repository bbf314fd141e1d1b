// Export of Columns and RecordBatches through the Arrow C Data Interface, so pyarrow, Polars and
// DuckDB take floe's batches without a copy. The structs are the interface's own (ABI-stable,
// defined by the Arrow specification). An exported array keeps its Column alive until the consumer
// calls `release`; buffers that are not 8-byte aligned are copied once at export.
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

}  // namespace floe::columnar
