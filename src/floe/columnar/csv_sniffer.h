// Guesses how a CSV file is written and what its columns are, as DuckDB's read_csv does, from a
// sample of its start (20,000 lines or 8 MB): the dialect (delimiter among , ; | and tab; quote "
// or ' or none; escape by doubling the quote or by backslash), whether the first line is a header,
// the column names and types (text_types.h). Pure and thread-safe; what the caller fixes (a
// delimiter, header, ...) is taken as given and only the rest is guessed.
//
// The header rule: the first line is a header when one of its values does not fit the type the
// other rows give that column (a word above numbers); when every column is text, it is a header
// when its values are all non-empty and none is a number, date or boolean. Header names that are
// empty become columnN and a repeated name gets _1, _2 (a, a_1); without a header the columns are
// column0, column1, ... (DuckDB's names).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/columnar/csv_dialect.h"

namespace floe::columnar {

// What the caller knows already; each unset field is sniffed.
struct CsvSniffOptions {
  std::optional<char> delimiter;
  std::optional<char> quote;  // '\0' for none
  std::optional<char> escape;
  std::optional<bool> header;
  int64_t skip = 0;
  std::string null_value;  // a field equal to this is NULL (an empty field always is)
  size_t sample_lines = 20000;
  size_t sample_bytes = 8 << 20;
};

struct CsvSniff {
  CsvDialect dialect;
  Schema schema;  // every column nullable, in file order
};

// `text` is the whole file (decompressed); only its sample is read. `name` names it in errors.
Result<CsvSniff> SniffCsv(std::string_view text, const std::string& name,
                          const CsvSniffOptions& options = {});

}  // namespace floe::columnar
