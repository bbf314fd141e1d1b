// How a CSV file is spelled (delimiter, quote, escape, header, lines to skip) and the one tokenizer
// every CSV path uses: the sniffer tries dialects with it, the reader reads with the one chosen.
// RFC 4180 quoting; a quote opens a quoted field only at the start of a field; CRLF or LF ends a
// record; a last record without a newline is kept. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::columnar {

struct CsvDialect {
  char delimiter = ',';
  char quote = '"';   // '\0': no quoting
  char escape = '"';  // inside quotes: equal to `quote` means a doubled quote; else e.g. '\\'
  bool header = true;
  int64_t skip = 0;  // lines skipped before the header (or the first row)

  // "delimiter ',' quote '\"' escape '\"' header true", as the sniffer's result is shown.
  std::string ToString() const;
};

// Splits the text into records one at a time. Fields are views into `text` when they hold no
// quote, else into a scratch buffer owned by the tokenizer: valid until the next call.
class CsvTokenizer {
 public:
  // `text` without its byte-order mark (StripBom). `name` names the file in errors.
  CsvTokenizer(std::string_view text, const CsvDialect& dialect, std::string name);

  // The next record's fields into `fields`; false at the end of the text. A quoted field that never
  // ends is an error naming the file and the line it opened on; with `lenient_end` (a sample cut
  // off mid-file) it ends the text instead.
  Result<bool> Next(std::vector<std::string_view>* fields, bool lenient_end = false);
  // The line the record last returned starts on (1-based, counting every line of the file).
  int64_t record_line() const { return record_line_; }
  // Whether any field of the record last returned was quoted, and whether one had text after its
  // closing quote (kept, as DuckDB keeps it, but a sign the dialect guessed is wrong).
  bool any_quoted() const { return any_quoted_; }
  bool dirty() const { return dirty_; }
  size_t position() const { return pos_; }
  // Skips `n` lines (not records: a quote does not hold them together), as DuckDB's skip does.
  void SkipLines(int64_t n);

 private:
  std::string_view text_;
  CsvDialect dialect_;
  std::string name_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  int64_t record_line_ = 0;
  bool any_quoted_ = false;
  bool dirty_ = false;
  std::deque<std::string> scratch_;  // a deque: a field's view stays valid as it grows
};

// The text without a leading UTF-8 byte-order mark.
std::string_view StripBom(std::string_view text);

}  // namespace floe::columnar
