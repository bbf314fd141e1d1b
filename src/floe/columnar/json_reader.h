// Newline-delimited JSON (one object per line; also a file that is one array of objects, as
// DuckDB's read_json reads it) into columnar batches. InferJsonSchema guesses the columns from a
// sample: keys in first-seen order; BOOLEAN, BIGINT, DOUBLE (a mix of integers and doubles),
// VARCHAR, DATE / TIMESTAMP / TIMESTAMPTZ for strings that all parse as one, objects as STRUCT,
// arrays as LIST of their elements' unified type; values of conflicting types make the column
// VARCHAR holding each value's JSON text. Missing keys and null are NULL. ReadJson reads into a
// known schema (a table's), keys matched by name. Errors name the file and line. Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::columnar {

struct JsonReadOptions {
  // A top-level key that is not a column is an error (appending to a table) or ignored (reading
  // with a schema sniffed from a sample).
  bool unknown_keys_are_errors = true;
  int64_t batch_rows = 65536;
};

// From the first `sample_rows` records of `text` (the whole file, decompressed).
Result<Schema> InferJsonSchema(std::string_view text, const std::string& name,
                               int64_t sample_rows = 20000);

Result<std::vector<RecordBatch>> ReadJson(std::string_view text, const Schema& schema,
                                          const std::string& name,
                                          const JsonReadOptions& options = {});

}  // namespace floe::columnar
