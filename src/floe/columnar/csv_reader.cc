#include "floe/columnar/csv_reader.h"

#include "floe/base/calendar.h"

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

  explicit Sink(DataType t)
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

  // False when `s` is not a value of the type.
  bool Add(std::string_view s) {
    switch (type.id) {
      case TypeId::kBool:
        if (s == "true" || s == "1" || s == "TRUE" || s == "True") {
          bools.Append(true);
        } else if (s == "false" || s == "0" || s == "FALSE" || s == "False") {
          bools.Append(false);
        } else {
          return false;
        }
        return true;
      case TypeId::kInt32: {
        int32_t v;
        if (!ParseNumber(s, &v)) return false;
        Push(v);
        return true;
      }
      case TypeId::kInt64: {
        int64_t v;
        if (!ParseNumber(s, &v)) return false;
        Push(v);
        return true;
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        double v;
        std::string t(s);
        if (t == "NaN" || t == "nan") {
          v = std::nan("");
        } else if (t == "inf" || t == "Infinity") {
          v = INFINITY;
        } else if (t == "-inf" || t == "-Infinity") {
          v = -INFINITY;
        } else if (!ParseNumber(s, &v)) {
          return false;
        }
        if (type.id == TypeId::kFloat32) {
          Push(static_cast<float>(v));
        } else {
          Push(v);
        }
        return true;
      }
      case TypeId::kDecimal128: {
        auto v = ParseDecimalText(s, type.scale);
        if (!v) return false;
        Push(*v);
        return true;
      }
      case TypeId::kDate32: {
        auto d = ParseIsoDate(s);
        if (!d) return false;
        Push(*d);
        return true;
      }
      case TypeId::kTime64: {
        auto n = ParseIsoTimeNanos(s);
        if (!n) return false;
        Push(type.unit == TimeUnit::kNano ? *n : *n / 1000);
        return true;
      }
      case TypeId::kTimestamp: {
        auto parsed = ParseIsoTimestampNanos(s);
        if (!parsed) return false;
        int64_t n = *parsed;
        int64_t div = type.unit == TimeUnit::kNano    ? 1
                      : type.unit == TimeUnit::kMicro ? 1000
                                                      : 1000000;
        Push(n >= 0 ? n / div : -((-n + div - 1) / div));
        return true;
      }
      case TypeId::kString:
      case TypeId::kBinary:
      case TypeId::kFixedSizeBinary:
        return strings.Append(s).has_value();
      default:
        return false;
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
  for (const auto& f : schema.fields) {
    if (f.type.IsNested())
      return Unsupported("{}: CSV cannot fill nested column '{}'", name, f.name);
  }
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
    target[i] = *idx;
  }
  std::vector<Sink> sinks;
  for (const auto& f : schema.fields) sinks.emplace_back(f.type);
  std::vector<bool> present(schema.fields.size(), false);
  for (int t : target) present[t] = true;
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
      } else if (!sinks[target[i]].Add(rec[i])) {
        return InvalidInput("{}: line {}: '{}' is not a {} value for column '{}'", name, this_line,
                            rec[i], f.type.ToString(), f.name);
      }
    }
    for (size_t c = 0; c < schema.fields.size(); ++c) {
      if (!present[c]) {
        if (!schema.fields[c].nullable) {
          return InvalidInput("{}: the header lacks required column '{}'", name,
                              schema.fields[c].name);
        }
        sinks[c].Null();
      }
    }
    ++rows;
  }
  RecordBatch batch;
  batch.schema = std::make_shared<Schema>(schema);
  batch.num_rows = rows;
  for (auto& s : sinks) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, s.Finish());
    batch.columns.push_back(std::move(c));
  }
  return batch;
}

}  // namespace floe::columnar
