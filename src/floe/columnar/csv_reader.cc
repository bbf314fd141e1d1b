#include "floe/columnar/csv_reader.h"

#include "floe/base/calendar.h"
#include "floe/base/uuid.h"

#include <charconv>
#include <cmath>
#include <map>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

// Splits one record starting at `pos`; advances `pos` past its line end. `line` counts lines.
Result<std::vector<std::string>> NextRecord(std::string_view text, size_t* pos, char delim,
                                            const std::string& name, int64_t* line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, was_quoted = false;
  size_t i = *pos;
  int64_t start_line = *line;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (quoted) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cur.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (ch == '\n') ++*line;
        cur.push_back(ch);
      }
      continue;
    }
    if (ch == '"' && cur.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (ch == delim) {
      fields.push_back(std::move(cur));
      cur.clear();
      was_quoted = false;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++i;
      break;
    } else {
      cur.push_back(ch);
    }
  }
  if (quoted) return InvalidInput("{}: line {}: a quoted field never ends", name, start_line);
  fields.push_back(std::move(cur));
  *pos = i;
  ++*line;
  return fields;
}

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// One column being filled: raw little-endian values plus validity, or strings.
struct Sink {
  DataType type;
  std::vector<uint8_t> values;
  ValidityBuilder validity;
  BinaryBuilder strings;
  BoolBuilder bools;

  explicit Sink(const DataType& t)
      : type(t), strings(t.IsBinaryLike() || t.id == TypeId::kFixedSizeBinary ? t : String()) {}

  template <typename T>
  void Push(T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    values.insert(values.end(), p, p + sizeof(T));
    validity.AppendValid();
  }

  void Null() {
    if (type.IsBinaryLike() || type.id == TypeId::kFixedSizeBinary) {
      strings.AppendNull();
    } else if (type.id == TypeId::kBool) {
      bools.AppendNull();
    } else {
      values.insert(values.end(), type.FixedWidth(), 0);
      validity.AppendNull();
    }
  }

  // An error saying why `s` is not a value of the type (the caller names the file, line and
  // column).
  Status Add(std::string_view s) {
    auto not_a = [&]() { return InvalidInput("'{}' is not a {} value", s, type.ToString()); };
    switch (type.id) {
      case TypeId::kBool:
        if (s == "true" || s == "1" || s == "TRUE" || s == "True") {
          bools.Append(true);
        } else if (s == "false" || s == "0" || s == "FALSE" || s == "False") {
          bools.Append(false);
        } else {
          return not_a();
        }
        return {};
      case TypeId::kInt32: {
        int32_t v;
        if (!ParseNumber(s, &v)) return not_a();
        Push(v);
        return {};
      }
      case TypeId::kInt64: {
        int64_t v;
        if (!ParseNumber(s, &v)) return not_a();
        Push(v);
        return {};
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        double v;
        if (s == "NaN" || s == "nan") {
          v = std::nan("");
        } else if (s == "inf" || s == "Infinity") {
          v = INFINITY;
        } else if (s == "-inf" || s == "-Infinity") {
          v = -INFINITY;
        } else if (!ParseNumber(s, &v)) {
          return not_a();
        }
        if (type.id == TypeId::kFloat32) {
          Push(static_cast<float>(v));
        } else {
          Push(v);
        }
        return {};
      }
      case TypeId::kDecimal128: {
        auto v = ParseDecimalText(s, type.scale);
        if (!v) return not_a();
        if (!DecimalFits(*v, type.precision)) {
          return InvalidInput("'{}' has more digits than {} holds", s, type.ToString());
        }
        Push(*v);
        return {};
      }
      case TypeId::kDate32: {
        auto d = ParseIsoDate(s);
        if (!d) return not_a();
        Push(*d);
        return {};
      }
      case TypeId::kTime64: {
        auto n = ParseIsoTimeNanos(s);
        if (!n) return not_a();
        Push(type.unit == TimeUnit::kNano ? *n : *n / 1000);
        return {};
      }
      case TypeId::kTimestamp: {
        const int64_t per_second = type.unit == TimeUnit::kNano    ? 1000000000
                                   : type.unit == TimeUnit::kMicro ? 1000000
                                                                   : 1000;
        FLOE_ASSIGN_OR_RETURN(int64_t v, ParseIsoTimestamp(s, per_second, type.ToString()));
        Push(v);
        return {};
      }
      case TypeId::kFixedSizeBinary:
        if (type.byte_width == 16 && s.size() == 36) {  // a uuid in its text form
          auto u = ParseUuid(s);
          if (!u) return not_a();
          return strings.Append(*u);
        }
        if (!strings.Append(s)) return not_a();
        return {};
      case TypeId::kString:
      case TypeId::kBinary:
        if (!strings.Append(s)) return not_a();
        return {};
      default:
        return not_a();
    }
  }

  Result<ColumnPtr> Finish() {
    if (type.IsBinaryLike() || type.id == TypeId::kFixedSizeBinary) return strings.Finish();
    if (type.id == TypeId::kBool) return bools.Finish();
    auto c = std::make_shared<Column>();
    c->type = type;
    c->length = validity.length();
    c->null_count = validity.null_count();
    c->validity = validity.Finish();
    c->values = Buffer(std::move(values));
    return ColumnPtr(c);
  }
};

}  // namespace

Result<RecordBatch> ReadCsv(std::string_view text, const Schema& schema, const std::string& name,
                            const CsvOptions& options) {
  size_t pos = 0;
  int64_t line = 1;
  if (text.starts_with("\xEF\xBB\xBF")) pos = 3;  // UTF-8 byte order mark
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> header,
                        NextRecord(text, &pos, options.delimiter, name, &line));
  std::vector<int> target(header.size(), -1);
  for (size_t i = 0; i < header.size(); ++i) {
    auto idx = schema.IndexOf(header[i]);
    if (!idx)
      return InvalidInput("{}: header column '{}' is not in the table schema", name, header[i]);
    if (schema.fields[*idx].type.IsNested()) {
      return Unsupported("{}: CSV cannot fill nested column '{}' ({})", name, header[i],
                         schema.fields[*idx].type.ToString());
    }
    for (size_t j = 0; j < i; ++j) {
      if (target[j] == *idx) {
        return InvalidInput("{}: header column '{}' appears twice (columns {} and {})", name,
                            header[i], j + 1, i + 1);
      }
    }
    target[i] = *idx;
  }
  std::vector<Sink> sinks;
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
  while (pos < text.size()) {
    int64_t this_line = line;
    FLOE_ASSIGN_OR_RETURN(std::vector<std::string> rec,
                          NextRecord(text, &pos, options.delimiter, name, &line));
    if (rec.size() == 1 && rec[0].empty()) continue;  // blank line
    if (rec.size() != header.size()) {
      return InvalidInput("{}: line {} has {} fields; the header has {}", name, this_line,
                          rec.size(), header.size());
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

}  // namespace floe::columnar
