#include "floe/columnar/csv_reader.h"

#include "floe/base/calendar.h"
#include "floe/base/uuid.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/csv_sniffer.h"
#include "floe/columnar/text_types.h"
#include "floe/columnar/text_value_builder.h"

namespace floe::columnar {

Result<RecordBatch> ReadCsv(std::string_view text, const Schema& schema, const std::string& name,
                            const CsvOptions& options) {
  CsvTokenizer tok(StripBom(text), options.dialect, name);
  tok.SkipLines(options.dialect.skip);
  std::vector<std::string_view> rec;
  // target[i]: the schema column field i of a record fills.
  std::vector<int> target;
  size_t width = schema.fields.size();
  if (options.dialect.header) {
    FLOE_ASSIGN_OR_RETURN(bool any, tok.Next(&rec));
    if (!any) rec.clear();
    width = rec.size();
  }
  if (options.dialect.header && options.match_by_name) {
    target.assign(rec.size(), -1);
    for (size_t i = 0; i < rec.size(); ++i) {
      std::string h(TrimBlanks(rec[i]));
      auto idx = schema.IndexOf(h);
      if (!idx) return InvalidInput("{}: header column '{}' is not in the table schema", name, h);
      if (schema.fields[*idx].type.IsNested()) {
        return Unsupported("{}: CSV cannot fill nested column '{}' ({})", name, h,
                           schema.fields[*idx].type.ToString());
      }
      for (size_t j = 0; j < i; ++j) {
        if (target[j] == *idx) {
          return InvalidInput("{}: header column '{}' appears twice (columns {} and {})", name, h,
                              j + 1, i + 1);
        }
      }
      target[i] = *idx;
    }
  } else {
    if (options.dialect.header && rec.size() != schema.fields.size() && !rec.empty()) {
      return InvalidInput("{}: the header has {} fields; {} columns were expected", name,
                          rec.size(), schema.fields.size());
    }
    width = schema.fields.size();
    for (size_t i = 0; i < width; ++i) {
      if (schema.fields[i].type.IsNested()) {
        return Unsupported("{}: CSV cannot fill nested column '{}' ({})", name,
                           schema.fields[i].name, schema.fields[i].type.ToString());
      }
      target.push_back(static_cast<int>(i));
    }
  }
  std::vector<TextValueBuilder> sinks;
  sinks.reserve(schema.fields.size());
  for (const auto& f : schema.fields) sinks.emplace_back(f.type);
  std::vector<bool> present(schema.fields.size(), false);
  for (int t : target) present[t] = true;
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    if (!present[c] && !schema.fields[c].nullable) {
      return InvalidInput("{}: the header lacks required column '{}'", name, schema.fields[c].name);
    }
  }
  int64_t rows = 0;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool any, tok.Next(&rec));
    if (!any) break;
    const int64_t this_line = tok.record_line();
    if (rec.size() == 1 && rec[0].empty() && !tok.any_quoted()) continue;  // blank line
    if (rec.size() != width) {
      return InvalidInput("{}: line {} has {} fields; {} has {}", name, this_line, rec.size(),
                          options.dialect.header ? "the header" : "the table", width);
    }
    for (size_t i = 0; i < rec.size(); ++i) {
      const Field& f = schema.fields[target[i]];
      if (rec[i].empty() || (!options.null_value.empty() && rec[i] == options.null_value)) {
        if (!f.nullable)
          return InvalidInput("{}: line {}: column '{}' is required but empty", name, this_line,
                              f.name);
        sinks[target[i]].Null();
      } else if (auto added = sinks[target[i]].Add(rec[i]); !added) {
        return InvalidInput("{}: line {}: {} for column '{}'", name, this_line,
                            added.error().message, f.name);
      }
    }
    ++rows;
  }
  RecordBatch batch;
  batch.schema = std::make_shared<Schema>(schema);
  batch.num_rows = rows;
  for (size_t c = 0; c < sinks.size(); ++c) {
    if (!present[c]) {
      batch.columns.push_back(NullColumn(schema.fields[c].type, rows));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(ColumnPtr col, sinks[c].Finish());
    batch.columns.push_back(std::move(col));
  }
  return batch;
}

Result<RecordBatch> ReadCsvAs(std::string_view text, const Schema& schema,
                              const std::string& name) {
  CsvOptions options;
  if (StripBom(text).find_first_not_of("\r\n") == std::string_view::npos) {
    options.dialect.header = false;  // nothing to sniff: zero rows
    return ReadCsv(StripBom(text), schema, name, options);
  }
  FLOE_ASSIGN_OR_RETURN(CsvSniff sniff, SniffCsv(text, name));
  options.dialect = sniff.dialect;
  if (!options.dialect.header) {
    // A first line that names only columns of the table is its header, whatever its types say.
    CsvTokenizer tok(StripBom(text), options.dialect, name);
    std::vector<std::string_view> first;
    FLOE_ASSIGN_OR_RETURN(bool any, tok.Next(&first));
    options.dialect.header =
        any && std::all_of(first.begin(), first.end(), [&](std::string_view v) {
          return schema.IndexOf(std::string(TrimBlanks(v))).has_value();
        });
  }
  return ReadCsv(text, schema, name, options);
}

}  // namespace floe::columnar
