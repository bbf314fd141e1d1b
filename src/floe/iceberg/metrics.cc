#include "floe/iceberg/metrics.h"

#include <charconv>

namespace floe::iceberg {

Result<MetricsMode> ParseMetricsMode(std::string_view text) {
  if (text == "none") return MetricsMode{MetricsMode::Kind::kNone, 0};
  if (text == "counts") return MetricsMode{MetricsMode::Kind::kCounts, 0};
  if (text == "full") return MetricsMode{MetricsMode::Kind::kFull, 0};
  if (text.starts_with("truncate(") && text.ends_with(")")) {
    int32_t n = 0;
    std::string_view inner = text.substr(9, text.size() - 10);
    auto [p, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), n);
    if (ec == std::errc() && p == inner.data() + inner.size() && n > 0) {
      return MetricsMode{MetricsMode::Kind::kTruncate, n};
    }
  }
  return InvalidInput("bad metrics mode '{}' (none, counts, truncate(N), full)", text);
}

Result<MetricsMode> ColumnMetricsMode(const TableMetadata& m, const std::string& column) {
  auto it = m.properties.find("write.metadata.metrics.column." + column);
  if (it != m.properties.end()) return ParseMetricsMode(it->second);
  return ParseMetricsMode(m.Property("write.metadata.metrics.default", "truncate(16)"));
}

std::string TruncateLower(const std::string& v, TypeId type, int32_t length) {
  if (type == TypeId::kString) {
    size_t i = 0;
    int32_t cps = 0;
    while (i < v.size() && cps < length) {
      ++i;
      while (i < v.size() && (static_cast<unsigned char>(v[i]) & 0xC0) == 0x80) ++i;
      ++cps;
    }
    return v.substr(0, i);
  }
  return v.substr(0, static_cast<size_t>(length));
}

std::optional<std::string> TruncateUpper(const std::string& v, TypeId type, int32_t length) {
  std::string cut = TruncateLower(v, type, length);
  if (cut.size() == v.size()) return v;
  if (type == TypeId::kString) {
    // Increment the last code point that can be incremented (skipping surrogates), dropping what
    // follows it.
    std::u32string cps;
    for (size_t i = 0; i < cut.size();) {
      auto c = static_cast<unsigned char>(cut[i]);
      int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
      char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
      for (int k = 1; k < len && i + k < cut.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(cut[i + k]) & 0x3F);
      cps.push_back(cp);
      i += len;
    }
    while (!cps.empty()) {
      char32_t next = cps.back() + 1;
      if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
      if (next <= 0x10FFFF) {
        cps.back() = next;
        std::string out;
        for (char32_t cp : cps) {
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
        }
        return out;
      }
      cps.pop_back();
    }
    return std::nullopt;
  }
  while (!cut.empty()) {
    auto last = static_cast<unsigned char>(cut.back());
    if (last < 0xFF) {
      cut.back() = static_cast<char>(last + 1);
      return cut;
    }
    cut.pop_back();
  }
  return std::nullopt;
}

namespace {

// The writer's PLAIN bytes of a bound as Iceberg's single-value serialisation.
std::optional<std::string> ToIcebergBound(const std::string& plain, const Type& t) {
  switch (t.id) {
    case TypeId::kBoolean:
      return plain.empty() ? std::nullopt
                           : std::optional<std::string>(std::string(1, plain[0] ? '\x01' : '\x00'));
    case TypeId::kDecimal: {
      // INT32/INT64 decimals are little-endian; FIXED ones big-endian already.
      if (plain.size() == 4 || plain.size() == 8) {
        int64_t v = 0;
        for (size_t i = plain.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(plain[i]);
        if (plain.size() == 4) v = static_cast<int32_t>(v);
        return Int128ToMinimalBigEndian(v);
      }
      auto lit = DeserializeBound(t, plain);
      if (!lit) return std::nullopt;
      return SerializeBound(*lit);
    }
    default:
      return plain;  // ints, floats, temporal types, strings, binary, uuid: same bytes
  }
}

}  // namespace

Status ApplyMetrics(const TableMetadata& m, const Schema& schema,
                    const parquet::WrittenFile& written, DataFile* f) {
  for (const auto& c : written.columns) {
    if (c.field_id < 0) continue;
    const NestedField* field = schema.FindById(c.field_id);
    if (field == nullptr) continue;
    f->column_sizes[c.field_id] = c.compressed_size;
    std::string name = schema.NameOf(c.field_id);
    FLOE_ASSIGN_OR_RETURN(MetricsMode mode, ColumnMetricsMode(m, name));
    if (mode.kind == MetricsMode::Kind::kNone) continue;
    f->value_counts[c.field_id] = c.num_values;
    f->null_value_counts[c.field_id] = c.null_count;
    if (c.nan_count) f->nan_value_counts[c.field_id] = *c.nan_count;
    if (mode.kind == MetricsMode::Kind::kCounts || !field->type->IsPrimitive()) continue;
    // A value under a list or map is one of many per row: Iceberg (as Java's writers) keeps no
    // bounds for it. Struct fields are one per row and keep theirs.
    if (c.max_repetition_level > 0) continue;
    std::optional<std::string> lo = c.min ? ToIcebergBound(*c.min, *field->type) : std::nullopt;
    std::optional<std::string> hi = c.max ? ToIcebergBound(*c.max, *field->type) : std::nullopt;
    bool truncatable = field->type->id == TypeId::kString || field->type->id == TypeId::kBinary;
    if (mode.kind == MetricsMode::Kind::kTruncate && truncatable) {
      if (lo) lo = TruncateLower(*lo, field->type->id, mode.length);
      if (hi) hi = TruncateUpper(*hi, field->type->id, mode.length);
    }
    if (lo) f->lower_bounds[c.field_id] = *lo;
    if (hi) f->upper_bounds[c.field_id] = *hi;
  }
  return {};
}

}  // namespace floe::iceberg
