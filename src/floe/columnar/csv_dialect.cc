#include "floe/columnar/csv_dialect.h"

#include <fmt/format.h>

namespace floe::columnar {
namespace {

std::string Shown(char c) {
  if (c == '\0') return "(none)";
  if (c == '\t') return "'\\t'";
  return fmt::format("'{}'", c);
}

}  // namespace

std::string CsvDialect::ToString() const {
  return fmt::format("delimiter {} quote {} escape {} header {}", Shown(delimiter), Shown(quote),
                     Shown(escape), header ? "true" : "false");
}

std::string_view StripBom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

CsvTokenizer::CsvTokenizer(std::string_view text, const CsvDialect& dialect, std::string name)
    : text_(text), dialect_(dialect), name_(std::move(name)) {}

void CsvTokenizer::SkipLines(int64_t n) {
  for (int64_t i = 0; i < n && pos_ < text_.size(); ++i) {
    size_t eol = text_.find('\n', pos_);
    pos_ = eol == std::string_view::npos ? text_.size() : eol + 1;
    ++line_;
  }
}

Result<bool> CsvTokenizer::Next(std::vector<std::string_view>* fields, bool lenient_end) {
  fields->clear();
  any_quoted_ = dirty_ = false;
  if (pos_ >= text_.size()) return false;
  record_line_ = line_;
  size_t used_scratch = 0;
  const char delim = dialect_.delimiter, quote = dialect_.quote, escape = dialect_.escape;
  size_t i = pos_;
  const size_t n = text_.size();
  while (true) {
    // One field starting at i.
    if (quote != '\0' && i < n && text_[i] == quote) {
      any_quoted_ = true;
      if (used_scratch == scratch_.size()) scratch_.emplace_back();
      std::string& buf = scratch_[used_scratch++];
      buf.clear();
      const int64_t open_line = line_;
      ++i;
      bool closed = false;
      while (i < n) {
        const char ch = text_[i];
        if (ch == escape && escape != quote && i + 1 < n) {
          buf.push_back(text_[i + 1]);
          if (text_[i + 1] == '\n') ++line_;
          i += 2;
          continue;
        }
        if (ch == quote) {
          if (escape == quote && i + 1 < n && text_[i + 1] == quote) {
            buf.push_back(quote);
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        if (ch == '\n') ++line_;
        buf.push_back(ch);
        ++i;
      }
      if (!closed) {
        if (lenient_end) {
          pos_ = n;
          return false;
        }
        return InvalidInput("{}: line {}: a quoted field never ends", name_, open_line);
      }
      // Text after the closing quote up to the delimiter belongs to the field, as DuckDB
      // reads it leniently; a strict reader would refuse it.
      while (i < n && text_[i] != delim && text_[i] != '\n' && text_[i] != '\r') {
        buf.push_back(text_[i++]);
        dirty_ = true;
      }
      fields->emplace_back(buf);
    } else {
      size_t start = i;
      while (i < n && text_[i] != delim && text_[i] != '\n' && text_[i] != '\r') ++i;
      fields->push_back(text_.substr(start, i - start));
    }
    if (i < n && text_[i] == delim) {
      ++i;
      continue;
    }
    // End of record.
    if (i < n && text_[i] == '\r') ++i;
    if (i < n && text_[i] == '\n') ++i;
    ++line_;
    break;
  }
  pos_ = i;
  return true;
}

}  // namespace floe::columnar
