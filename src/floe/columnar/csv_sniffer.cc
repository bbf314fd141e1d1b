#include "floe/columnar/csv_sniffer.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "floe/columnar/text_types.h"

namespace floe::columnar {
namespace {

// The start of the file the guesses are made on: whole lines only, so the last record is cut
// off at worst inside a quoted field (read leniently).
std::string_view Sample(std::string_view text, const CsvSniffOptions& o, bool* cut) {
  size_t pos = 0, lines = 0;
  while (pos < text.size() && lines < o.sample_lines + static_cast<size_t>(o.skip) &&
         pos < o.sample_bytes) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) {
      pos = text.size();
      break;
    }
    pos = eol + 1;
    ++lines;
  }
  *cut = pos < text.size();
  return text.substr(0, pos);
}

struct Candidate {
  CsvDialect dialect;
  int preference = 0;  // lower is preferred when all else is equal
  bool consistent = false;
  int64_t dirty = 0;
  size_t columns = 0;
  // The sample's records: kept for the chosen dialect only (twenty candidates' copies of an 8 MB
  // sample would cost more than the file).
  std::vector<std::vector<std::string>> rows;
  std::vector<int64_t> lines;  // the line each of `rows` starts on
};

// Tokenizes the sample with `c.dialect`; notes whether every record has the first one's width.
void Try(std::string_view sample, bool cut, const std::string& name, bool keep_rows, Candidate* c) {
  CsvTokenizer tok(sample, c->dialect, name);
  tok.SkipLines(c->dialect.skip);
  std::vector<std::string_view> fields;
  c->consistent = true;
  c->dirty = 0;
  c->rows.clear();
  c->lines.clear();
  size_t records = 0, last_width = 0, mismatches = 0;
  while (true) {
    auto more = tok.Next(&fields, cut);
    if (!more) {  // a quote never closed in a whole file: this dialect cannot be it
      c->consistent = false;
      return;
    }
    if (!*more) break;
    if (fields.size() == 1 && fields[0].empty() && !tok.any_quoted()) continue;  // blank line
    if (records++ == 0) c->columns = fields.size();
    if (fields.size() != c->columns) ++mismatches;
    last_width = fields.size();
    if (tok.dirty()) ++c->dirty;
    if (keep_rows) {
      c->rows.emplace_back(fields.begin(), fields.end());
      c->lines.push_back(tok.record_line());
    }
  }
  // A sample cut off mid-file may end in a partial record; it says nothing.
  if (cut && records > 1 && last_width != c->columns) {
    --mismatches;
    if (keep_rows) {
      c->rows.pop_back();
      c->lines.pop_back();
    }
  }
  c->consistent = mismatches == 0;
}

bool IsNull(std::string_view v, const CsvSniffOptions& o) {
  return v.empty() || (!o.null_value.empty() && v == o.null_value);
}

}  // namespace

Result<CsvSniff> SniffCsv(std::string_view text, const std::string& name,
                          const CsvSniffOptions& o) {
  text = StripBom(text);
  bool cut = false;
  const std::string_view sample = Sample(text, o, &cut);

  std::vector<char> delimiters = {',', '|', ';', '\t'};
  if (o.delimiter) delimiters = {*o.delimiter};
  std::vector<char> quotes = {'"', '\'', '\0'};
  if (o.quote) quotes = {*o.quote};
  std::vector<Candidate> candidates;
  for (char d : delimiters) {
    for (char q : quotes) {
      std::vector<char> escapes = {q, '\\'};
      if (q == '\0') escapes = {'\0'};
      if (o.escape) escapes = {*o.escape};
      for (char e : escapes) {
        Candidate c;
        c.dialect.delimiter = d;
        c.dialect.quote = q;
        c.dialect.escape = e;
        c.dialect.skip = o.skip;
        c.preference = static_cast<int>(candidates.size());
        candidates.push_back(std::move(c));
      }
    }
  }
  for (auto& c : candidates) Try(sample, cut, name, false, &c);
  // The best: consistent with more than one column, then cleanly quoted, then the widest, then
  // the first in the order above (comma, double quote, doubled-quote escape).
  auto key = [](const Candidate& c) {
    return std::make_tuple(c.consistent && c.columns > 1, -c.dirty, c.columns, -c.preference);
  };
  Candidate* best = candidates.data();
  for (auto& c : candidates) {
    if (key(c) > key(*best)) best = &c;
  }
  // One column (no delimiter fits): read each line whole, quotes as written.
  if (!(best->consistent && best->columns > 1)) {
    for (auto& c : candidates) {
      if (c.consistent && c.dialect.delimiter == delimiters[0]) {
        best = &c;
        break;
      }
    }
  }
  Try(sample, cut, name, true, best);
  if (!best->consistent) {
    const auto& rows = best->rows;
    for (size_t r = 1; r < rows.size(); ++r) {
      if (rows[r].size() != best->columns) {
        return InvalidInput(
            "{}: no delimiter gives every line the same number of fields (with '{}' line {} has "
            "{}, line {} has {})",
            name,
            best->dialect.delimiter == '\t' ? std::string("\\t")
                                            : std::string(1, best->dialect.delimiter),
            best->lines[0], best->columns, best->lines[r], rows[r].size());
      }
    }
    // No width mismatch: a quote that never closes stopped the sample; the tokenizer names it.
    CsvTokenizer tok(sample, best->dialect, name);
    tok.SkipLines(best->dialect.skip);
    std::vector<std::string_view> fields;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool more, tok.Next(&fields, cut));
      if (!more) break;
    }
    return InvalidInput("{}: a quoted field never ends", name);
  }

  CsvSniff out;
  out.dialect = best->dialect;
  const auto& rows = best->rows;
  const size_t ncol = std::max<size_t>(best->columns, 1);
  // Types from every row but the first, then the first row's fit.
  std::vector<uint32_t> rest(ncol, kTextAny);
  for (size_t r = 1; r < rows.size(); ++r) {
    for (size_t c = 0; c < ncol && c < rows[r].size(); ++c) {
      if (!IsNull(rows[r][c], o)) rest[c] &= TextTypesOf(rows[r][c]);
    }
  }
  bool header = false;
  if (o.header) {
    header = *o.header;
  } else if (!rows.empty()) {
    const auto& first = rows[0];
    bool misfit = false, all_text = true;
    for (size_t c = 0; c < ncol; ++c) {
      const bool typed = rest[c] != kTextAny && rest[c] != 0;
      if (typed) all_text = false;
      if (typed && !IsNull(first[c], o) && (TextTypesOf(first[c]) & rest[c]) == 0) misfit = true;
    }
    if (misfit) {
      header = true;
    } else if (all_text) {
      header = std::all_of(first.begin(), first.end(), [&](const std::string& v) {
        return !IsNull(v, o) && TextTypesOf(v) == 0;
      });
    }
  }
  out.dialect.header = header;
  std::vector<uint32_t> types = rest;
  if (!header && !rows.empty()) {
    for (size_t c = 0; c < ncol; ++c) {
      if (!IsNull(rows[0][c], o)) types[c] &= TextTypesOf(rows[0][c]);
    }
  }
  std::set<std::string> used;
  for (size_t c = 0; c < ncol; ++c) {
    std::string n = header && !rows.empty() ? std::string(TrimBlanks(rows[0][c])) : std::string();
    if (n.empty()) n = fmt::format("column{}", c);
    if (used.count(n)) {
      int k = 1;
      while (used.count(fmt::format("{}_{}", n, k))) ++k;
      n = fmt::format("{}_{}", n, k);
    }
    used.insert(n);
    out.schema.fields.push_back({n, NarrowestTextType(types[c]), true});
  }
  return out;
}

}  // namespace floe::columnar
