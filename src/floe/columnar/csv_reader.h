// CSV into columnar batches of a known schema (the table's): RFC 4180 quoting, a header line naming
// the columns (matched by name; missing columns are null), empty fields as NULL. Values are parsed
// as the column's type: integers, decimals, floats, booleans (true/false/1/0), dates (YYYY-MM-DD),
// times, timestamps (ISO 8601, 'T' or ' ', optional offset). A bad value is an invalid-input error
// naming the file, line and column.
#pragma once

#include <string>
#include <string_view>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::columnar {

struct CsvOptions {
  char delimiter = ',';
  std::string null_value;  // a field equal to this is NULL (the empty field always is)
};

Result<RecordBatch> ReadCsv(std::string_view text, const Schema& schema, const std::string& name,
                            const CsvOptions& options = {});

}  // namespace floe::columnar
