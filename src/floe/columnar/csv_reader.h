// CSV into columnar batches of a known schema (the table's): RFC 4180 quoting in any dialect
// (csv_dialect.h), a header line naming the columns (matched by name; missing columns are null)
// or none (columns by position), empty fields as NULL. Values are parsed
// as the column's type: integers, decimals, floats, booleans (true/false/1/0), dates (YYYY-MM-DD),
// times, timestamps (ISO 8601, 'T' or ' ', optional offset). A bad value is an invalid-input error
// naming the file, line and column.
#pragma once

#include <string>
#include <string_view>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/columnar/csv_dialect.h"

namespace floe::columnar {

struct CsvOptions {
  CsvDialect dialect;
  std::string null_value;  // a field equal to this is NULL (the empty field always is)
  // With a header: match its names to the schema's (true), or skip it and take the columns by
  // position (false: the schema was sniffed from this file, its names made unique).
  bool match_by_name = true;
};

Result<RecordBatch> ReadCsv(std::string_view text, const Schema& schema, const std::string& name,
                            const CsvOptions& options = {});

// A file of unknown dialect read as `schema` (a table's): the dialect sniffed, the first line a
// header also when it names only columns of the schema. An empty file is zero rows.
Result<RecordBatch> ReadCsvAs(std::string_view text, const Schema& schema, const std::string& name);

}  // namespace floe::columnar
