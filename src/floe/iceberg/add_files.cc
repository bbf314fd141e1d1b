#include "floe/iceberg/add_files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/parallel_for.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/metrics.h"
#include "floe/iceberg/runtime.h"
#include "floe/parquet/strategy_reader.h"

namespace floe::iceberg {

namespace {

using parquet::ColumnDescriptor;
using parquet::FieldNode;
using parquet::PhysicalType;
using parquet::StatsDomain;

// Whether a file column of type `file` may be read as a table column of type `table`: the same
// type or a promotion the spec allows (int -> long, float -> double, decimal widening).
bool Promotable(const Type& file, const Type& table) {
  if (TypesEqual(file, table)) return true;
  if (file.id == TypeId::kInt && table.id == TypeId::kLong) return true;
  if (file.id == TypeId::kFloat && table.id == TypeId::kDouble) return true;
  if (file.id == TypeId::kDecimal && table.id == TypeId::kDecimal)
    return file.scale == table.scale && file.precision <= table.precision;
  // A 16-byte fixed column without the UUID annotation holds what a uuid column holds.
  return file.id == TypeId::kFixed && file.length == 16 && table.id == TypeId::kUuid;
}

// Matches a file's schema tree to the table's, recording which table field each leaf column is.
class SchemaMatcher {
 public:
  SchemaMatcher(const std::string& location, const std::string& table_name, bool by_id)
      : location_(location), table_(table_name), by_id_(by_id) {}

  Status MatchStruct(const std::vector<FieldNode>& nodes, const std::vector<NestedField>& fields,
                     const std::string& prefix) {
    std::set<int32_t> matched;
    for (const FieldNode& node : nodes) {
      const std::string path = prefix + node.field.name;
      const NestedField* target = nullptr;
      for (const NestedField& f : fields) {
        if (by_id_ ? f.id == node.field.field_id : f.name == node.field.name) target = &f;
      }
      if (target == nullptr) {
        if (by_id_) {
          return InvalidInput("{}: column '{}' (field id {}) is not in table {}'s schema",
                              location_, path, node.field.field_id, table_);
        }
        return InvalidInput("{}: column '{}' is not in table {}'s schema", location_, path, table_);
      }
      matched.insert(target->id);
      FLOE_RETURN_IF_ERROR(Match(node, *target, path));
    }
    for (const NestedField& f : fields) {
      if (f.required && !matched.contains(f.id)) {
        return InvalidInput("{}: required column '{}' of table {} is not in the file", location_,
                            prefix + f.name, table_);
      }
    }
    return {};
  }

  // File leaf column index -> table field id.
  const std::map<int, int32_t>& leaves() const { return leaves_; }

 private:
  Status Mismatch(const std::string& path, const std::string& file_type, const Type& table) {
    return InvalidInput("{}: column '{}' is {} in the file but {} in table {}", location_, path,
                        file_type, table.ToString(), table_);
  }

  Status Match(const FieldNode& node, const NestedField& target, const std::string& path) {
    const Type& t = *target.type;
    switch (node.kind) {
      case FieldNode::Kind::kLeaf: {
        columnar::Schema one;
        one.fields.push_back(node.field);
        int32_t next_id = 1;
        auto converted = FromColumnarSchema(one, &next_id);
        if (!converted || converted->fields().empty()) {
          return InvalidInput("{}: column '{}' has a type floe cannot read as an Iceberg column",
                              location_, path);
        }
        const Type& ft = *converted->fields()[0].type;
        if (!t.IsPrimitive() || !Promotable(ft, t)) return Mismatch(path, ft.ToString(), t);
        leaves_[node.leaf] = target.id;
        return {};
      }
      case FieldNode::Kind::kStruct:
        if (t.id != TypeId::kStruct) return Mismatch(path, "a struct", t);
        return MatchStruct(node.children, t.fields, path + ".");
      case FieldNode::Kind::kList:
        if (t.id != TypeId::kList || node.children.size() != 1) return Mismatch(path, "a list", t);
        return Match(node.children[0], t.element(), path + ".element");
      case FieldNode::Kind::kMap: {
        if (t.id != TypeId::kMap || node.children.size() != 1 ||
            node.children[0].children.size() != 2) {
          return Mismatch(path, "a map", t);
        }
        const FieldNode& entries = node.children[0];
        FLOE_RETURN_IF_ERROR(Match(entries.children[0], t.key(), path + ".key"));
        return Match(entries.children[1], t.value(), path + ".value");
      }
    }
    return {};
  }

  const std::string& location_;
  const std::string& table_;
  bool by_id_;
  std::map<int, int32_t> leaves_;
};

std::optional<int64_t> ReadLittleEndian(const std::string& b, size_t width) {
  if (b.size() != width) return std::nullopt;
  uint64_t u = 0;
  for (size_t i = width; i-- > 0;) u = (u << 8) | static_cast<unsigned char>(b[i]);
  if (width == 4) return static_cast<int32_t>(static_cast<uint32_t>(u));
  return static_cast<int64_t>(u);
}

// Converts `v` in `from` to `to` (timestamp units); a lower bound rounds down, an upper one up.
std::optional<int64_t> ConvertUnit(int64_t v, int64_t from_per_s, int64_t to_per_s, bool upper) {
  if (from_per_s == to_per_s) return v;
  if (from_per_s < to_per_s) {
    int64_t out = 0;
    if (__builtin_mul_overflow(v, to_per_s / from_per_s, &out)) return std::nullopt;
    return out;
  }
  const int64_t d = from_per_s / to_per_s;
  int64_t q = v / d;
  int64_t r = v % d;
  if (r != 0 && ((r < 0) != upper)) q += upper ? 1 : -1;
  return q;
}

int64_t PerSecond(columnar::TimeUnit u) {
  switch (u) {
    case columnar::TimeUnit::kMilli:
      return 1000;
    case columnar::TimeUnit::kMicro:
      return 1000000;
    case columnar::TimeUnit::kNano:
      return 1000000000;
  }
  return 1000000;
}

// A footer statistic (PLAIN bytes of the leaf's physical type) as a value of the table column's
// type, or nullopt when it cannot be one exactly.
std::optional<Literal> StatLiteral(const ColumnDescriptor& d, const Type& t, const std::string& b,
                                   bool upper) {
  switch (d.domain) {
    case StatsDomain::kBool:
      if (b.empty() || t.id != TypeId::kBoolean) return std::nullopt;
      return Literal::Boolean(b[0] != 0);
    case StatsDomain::kSigned: {
      std::optional<int64_t> v = d.physical == PhysicalType::kInt32   ? ReadLittleEndian(b, 4)
                                 : d.physical == PhysicalType::kInt64 ? ReadLittleEndian(b, 8)
                                                                      : std::nullopt;
      if (!v) return std::nullopt;
      int64_t x = *v;
      if (__builtin_mul_overflow(x, d.stats_multiplier, &x)) return std::nullopt;
      if (d.type.id == columnar::TypeId::kTime64) {  // Iceberg's time is in microseconds
        auto c = ConvertUnit(x, PerSecond(d.type.unit), 1000000, upper);
        if (!c) return std::nullopt;
        x = *c;
      } else if (d.type.id == columnar::TypeId::kTimestamp) {
        const bool nanos = t.id == TypeId::kTimestampNs || t.id == TypeId::kTimestampTzNs;
        auto c = ConvertUnit(x, PerSecond(d.type.unit), nanos ? 1000000000 : 1000000, upper);
        if (!c) return std::nullopt;
        x = *c;
      }
      return Literal::OfInteger(t.id, x);
    }
    case StatsDomain::kFloat: {
      double x = 0;
      if (d.physical == PhysicalType::kFloat && b.size() == 4) {
        float f = 0;
        std::memcpy(&f, b.data(), 4);
        x = f;
      } else if (d.physical == PhysicalType::kDouble && b.size() == 8) {
        std::memcpy(&x, b.data(), 8);
      } else {
        return std::nullopt;
      }
      if (std::isnan(x)) return std::nullopt;
      if (t.id == TypeId::kFloat) return Literal::Float(static_cast<float>(x));
      if (t.id == TypeId::kDouble) return Literal::Double(x);
      return std::nullopt;
    }
    case StatsDomain::kBytes:
      switch (t.id) {
        case TypeId::kString:
          return Literal::String(b);
        case TypeId::kBinary:
          return Literal::Binary(b);
        case TypeId::kFixed:
          return Literal::Fixed(b);
        case TypeId::kUuid:
          if (b.size() != 16) return std::nullopt;
          return Literal::Uuid(b);
        default:
          return std::nullopt;
      }
    case StatsDomain::kDecimal: {
      if (t.id != TypeId::kDecimal) return std::nullopt;
      Int128 v = 0;
      if (d.physical == PhysicalType::kInt32 || d.physical == PhysicalType::kInt64) {
        auto x = ReadLittleEndian(b, d.physical == PhysicalType::kInt32 ? 4 : 8);
        if (!x) return std::nullopt;
        v = *x;
      } else {
        if (b.empty() || b.size() > 16) return std::nullopt;
        v = static_cast<signed char>(b[0]) < 0 ? -1 : 0;
        for (unsigned char c : b)
          v = static_cast<Int128>((static_cast<unsigned __int128>(v) << 8) | c);
      }
      return Literal::Decimal(v, t.scale);
    }
    case StatsDomain::kUnsigned:  // no signed Iceberg type holds every value: left out
    case StatsDomain::kNone:
      return std::nullopt;
  }
  return std::nullopt;
}

// One leaf's metrics over the whole file, combined from its column chunks.
struct LeafMetrics {
  const ColumnDescriptor* leaf = nullptr;
  int32_t field_id = -1;
  int64_t compressed_size = 0;
  int64_t values = 0;
  std::optional<int64_t> nulls = 0;  // nullopt: a chunk did not say
  std::optional<int64_t> nans = 0;
  std::optional<Literal> lower, upper;
  bool bounds_known = true;  // every chunk with a non-null value gave both bounds
  bool exact = true;         // no bound was truncated
};

Status CombineChunk(const parquet::ColumnChunk& chunk, const Type& type, parquet::ColumnOrder order,
                    LeafMetrics* m) {
  const parquet::ColumnMetaData& md = *chunk.meta_data;
  m->compressed_size += md.total_compressed_size;
  m->values += md.num_values;
  const std::optional<parquet::Statistics>& s = md.statistics;
  if (m->nulls) {
    if (s && s->null_count) {
      *m->nulls += *s->null_count;
    } else {
      m->nulls.reset();
    }
  }
  const bool floating = type.id == TypeId::kFloat || type.id == TypeId::kDouble;
  if (floating && m->nans) {
    if (s && s->nan_count) {
      *m->nans += *s->nan_count;
    } else {
      m->nans.reset();
    }
  }
  if (!m->bounds_known) return {};
  // A chunk of nulls only needs no bounds.
  if (s && s->null_count && *s->null_count == md.num_values) return {};
  if (!s) {
    m->bounds_known = false;
    return {};
  }
  const ColumnDescriptor& d = *m->leaf;
  std::optional<std::string> lo, hi;
  bool exact = true;
  const bool ordered = order == parquet::ColumnOrder::kTypeDefinedOrder ||
                       (order == parquet::ColumnOrder::kIeee754TotalOrder && floating);
  if (s->min_value && s->max_value && ordered) {
    lo = s->min_value;
    hi = s->max_value;
    exact = s->is_min_value_exact.value_or(true) && s->is_max_value_exact.value_or(true);
  } else if (s->min && s->max &&
             (d.domain == StatsDomain::kSigned || d.domain == StatsDomain::kBool)) {
    // The deprecated fields compare signed byte-wise: right for signed integers and booleans only.
    lo = s->min;
    hi = s->max;
  }
  std::optional<Literal> l = lo ? StatLiteral(d, type, *lo, false) : std::nullopt;
  std::optional<Literal> h = hi ? StatLiteral(d, type, *hi, true) : std::nullopt;
  if (!l || !h) {
    m->bounds_known = false;
    return {};
  }
  if (!m->lower || Compare(*l, *m->lower) == std::partial_ordering::less) m->lower = l;
  if (!m->upper || Compare(*h, *m->upper) == std::partial_ordering::greater) m->upper = h;
  m->exact = m->exact && exact;
  return {};
}

}  // namespace

namespace {

nlohmann::json MappedField(int32_t id, const std::string& name, const Type& t) {
  nlohmann::json j = {{"field-id", id}, {"names", nlohmann::json::array({name})}};
  nlohmann::json children = nlohmann::json::array();
  if (t.id == TypeId::kStruct) {
    for (const NestedField& f : t.fields) children.push_back(MappedField(f.id, f.name, *f.type));
  } else if (t.id == TypeId::kList) {
    children.push_back(MappedField(t.element().id, "element", *t.element().type));
  } else if (t.id == TypeId::kMap) {
    children.push_back(MappedField(t.key().id, "key", *t.key().type));
    children.push_back(MappedField(t.value().id, "value", *t.value().type));
  }
  if (!children.empty()) j["fields"] = std::move(children);
  return j;
}

}  // namespace

std::string NameMappingJson(const Schema& schema) {
  nlohmann::json out = nlohmann::json::array();
  for (const NestedField& f : schema.fields()) out.push_back(MappedField(f.id, f.name, *f.type));
  return out.dump();
}

Result<FooterDataFile> DataFileFromFooter(const TableMetadata& m, const std::string& table_name,
                                          const std::string& location, uint64_t file_length,
                                          const parquet::FileReader& reader) {
  const parquet::FileMetaData& meta = reader.metadata();
  if (meta.encrypted) return Unsupported("{}: the file is encrypted", location);
  const parquet::ParquetSchema& ps = reader.schema();
  const Schema& schema = m.CurrentSchema();
  for (size_t i = 0; i < ps.fields().size(); ++i) {
    if (const auto& err = ps.FieldError(static_cast<int>(i))) {
      return Unsupported("{}: column '{}' cannot be read: {}", location, ps.fields()[i].field.name,
                         err->message);
    }
  }
  FooterDataFile out;
  for (const FieldNode& n : ps.fields()) out.has_field_ids |= n.field.field_id >= 0;
  SchemaMatcher matcher(location, table_name, out.has_field_ids);
  FLOE_RETURN_IF_ERROR(matcher.MatchStruct(ps.fields(), schema.fields(), ""));

  DataFile& f = out.file;
  f.file_path = location;
  f.file_format = "PARQUET";
  f.spec_id = m.default_spec_id;
  f.record_count = meta.num_rows;
  f.file_size_in_bytes = static_cast<int64_t>(file_length);

  std::vector<LeafMetrics> leaves(ps.leaves().size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    leaves[i].leaf = &ps.leaves()[i];
    auto it = matcher.leaves().find(static_cast<int>(i));
    if (it != matcher.leaves().end()) leaves[i].field_id = it->second;
  }
  for (const parquet::RowGroup& rg : meta.row_groups) {
    if (rg.columns.size() != leaves.size()) {
      return Corrupt("{}: a row group has {} column chunks for {} columns", location,
                     rg.columns.size(), leaves.size());
    }
    for (const parquet::ColumnChunk& c : rg.columns) {
      if (c.encrypted || !c.meta_data)
        return Unsupported("{}: a column chunk is encrypted", location);
      if (c.file_path) {
        return Unsupported("{}: a column chunk lives in another file ('{}')", location,
                           *c.file_path);
      }
    }
    if (!rg.columns.empty()) f.split_offsets.push_back(rg.columns[0].meta_data->chunk_start());
    for (size_t i = 0; i < leaves.size(); ++i) {
      LeafMetrics& lm = leaves[i];
      if (lm.field_id < 0) continue;
      const NestedField* field = schema.FindById(lm.field_id);
      const parquet::ColumnOrder order = i < meta.column_orders.size()
                                             ? meta.column_orders[i]
                                             : parquet::ColumnOrder::kUnrecognized;
      FLOE_RETURN_IF_ERROR(CombineChunk(rg.columns[i], *field->type, order, &lm));
    }
  }
  std::sort(f.split_offsets.begin(), f.split_offsets.end());

  for (const LeafMetrics& lm : leaves) {
    if (lm.field_id < 0 || lm.leaf->max_rep > 0) continue;
    FooterDataFile::Values& v = out.values[lm.field_id];
    if (lm.bounds_known) {
      v.lower = lm.lower;
      v.upper = lm.upper;
    }
    v.exact = lm.bounds_known && lm.exact;
    v.nulls = lm.nulls;
    v.nans = lm.nans;
  }
  // The table's metrics mode, as ApplyMetrics (metrics.h) applies it to a file floe writes.
  for (const LeafMetrics& lm : leaves) {
    if (lm.field_id < 0) continue;
    const NestedField* field = schema.FindById(lm.field_id);
    f.column_sizes[lm.field_id] = lm.compressed_size;
    FLOE_ASSIGN_OR_RETURN(MetricsMode mode, ColumnMetricsMode(m, schema.NameOf(lm.field_id)));
    if (mode.kind == MetricsMode::Kind::kNone) continue;
    f.value_counts[lm.field_id] = lm.values;
    if (lm.nulls) f.null_value_counts[lm.field_id] = *lm.nulls;
    const bool floating = field->type->id == TypeId::kFloat || field->type->id == TypeId::kDouble;
    if (floating && lm.nans) f.nan_value_counts[lm.field_id] = *lm.nans;
    if (mode.kind == MetricsMode::Kind::kCounts) continue;
    // A value under a list or map is one of many per row: no bounds (as ApplyMetrics).
    if (lm.leaf->max_rep > 0 || !lm.bounds_known || !lm.lower || !lm.upper) continue;
    std::optional<std::string> lo = SerializeBound(*lm.lower);
    std::optional<std::string> hi = SerializeBound(*lm.upper);
    const TypeId tid = field->type->id;
    if (mode.kind == MetricsMode::Kind::kTruncate &&
        (tid == TypeId::kString || tid == TypeId::kBinary)) {
      lo = TruncateLower(*lo, tid, mode.length);
      hi = TruncateUpper(*hi, tid, mode.length);
    }
    if (lo) f.lower_bounds[lm.field_id] = *lo;
    if (hi) f.upper_bounds[lm.field_id] = *hi;
  }
  return out;
}

namespace {

std::string UrlUnescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (ec == std::errc() && p == s.data() + i + 3) {
        out.push_back(static_cast<char>(v));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// A partition value written as text (a Hive directory, a partition filter) as a value of `t`.
Result<Literal> ParseValue(const std::string& text, const Type& t, std::string_view what) {
  auto bad = [&]() { return InvalidInput("{}: '{}' is not a {} value", what, text, t.ToString()); };
  switch (t.id) {
    case TypeId::kInt:
    case TypeId::kLong: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (text.empty() || ec != std::errc() || p != text.data() + text.size()) return bad();
      auto lit = Literal::OfInteger(t.id, v);
      if (!lit) return bad();
      return *lit;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) return bad();
      return t.id == TypeId::kFloat ? Literal::Float(static_cast<float>(v)) : Literal::Double(v);
    }
    case TypeId::kString:
      return Literal::String(text);
    case TypeId::kDecimal: {
      std::string_view s = text;
      bool neg = !s.empty() && s[0] == '-';
      if (neg || (!s.empty() && s[0] == '+')) s.remove_prefix(1);
      size_t dot = s.find('.');
      std::string_view whole = s.substr(0, dot);
      std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
      if (whole.empty() && frac.empty()) return bad();
      if (static_cast<int32_t>(frac.size()) > t.scale) return bad();
      Int128 v = 0;
      for (std::string_view part : {whole, frac}) {
        for (char c : part) {
          if (c < '0' || c > '9') return bad();
          v = v * 10 + (c - '0');
        }
      }
      for (int32_t k = static_cast<int32_t>(frac.size()); k < t.scale; ++k) v *= 10;
      return Literal::Decimal(neg ? -v : v, t.scale);
    }
    default: {
      auto lit = CastLiteral(Literal::String(text), t);
      if (!lit) return bad();
      return *lit;
    }
  }
}

struct Candidate {
  std::string location;
  io::StorePtr store;
  std::string key;
  uint64_t size = 0;
};

// Every file a location names, with its length from the listing.
Status ListLocation(const FileIO& io, const std::string& text, std::vector<Candidate>* out) {
  FLOE_ASSIGN_OR_RETURN(Location loc, Location::Parse(text));
  FLOE_ASSIGN_OR_RETURN(StoreObject object, io.Resolve(loc.ToString()));
  FLOE_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> listed, object.store->ListAll(object.key));
  const std::string folder = object.key.empty() ? "" : object.key + "/";
  size_t before = out->size();
  bool folder_seen = false;
  for (const io::ObjectInfo& o : listed) {
    if (o.key == object.key) {
      out->push_back({object.LocationOf(o.key), object.store, o.key, o.size});
      return {};
    }
  }
  for (const io::ObjectInfo& o : listed) {
    if (!o.key.starts_with(folder)) continue;
    folder_seen = true;
    std::string_view rest = std::string_view(o.key).substr(folder.size());
    bool hidden = false;
    for (size_t i = 0; i < rest.size(); ++i) {
      if ((i == 0 || rest[i - 1] == '/') && (rest[i] == '.' || rest[i] == '_')) hidden = true;
    }
    if (hidden || !o.key.ends_with(".parquet")) continue;
    out->push_back({object.LocationOf(o.key), object.store, o.key, o.size});
  }
  if (!folder_seen) return NotFound("'{}' names no file and no folder of files", text);
  if (out->size() == before) return InvalidInput("folder '{}' holds no .parquet files", text);
  return {};
}

// `col=value` directories of a location, innermost last.
std::map<std::string, std::optional<std::string>> HiveValues(const std::string& location) {
  std::map<std::string, std::optional<std::string>> out;
  auto loc = Location::Parse(location);
  if (!loc) return out;
  std::string_view p = loc->path;
  size_t start = 0;
  for (size_t slash = p.find('/'); slash != std::string_view::npos; slash = p.find('/', start)) {
    std::string_view seg = p.substr(start, slash - start);
    start = slash + 1;
    size_t eq = seg.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string value = UrlUnescape(seg.substr(eq + 1));
    out[UrlUnescape(seg.substr(0, eq))] =
        value == "__HIVE_DEFAULT_PARTITION__" ? std::nullopt : std::optional<std::string>(value);
  }
  return out;
}

std::string Show(const Literal& v) { return v.is_null() ? "null" : v.ToString(); }

// The partition value of `file` for field `pf`: from a `col=value` directory of its path (identity
// fields), else from the column's values in the footer when they admit one value.
Result<Literal> PartitionValue(const TableMetadata& m, const PartitionField& pf,
                               const FooterDataFile& fd,
                               const std::map<std::string, std::optional<std::string>>& hive) {
  const DataFile& file = fd.file;
  const Schema& schema = m.CurrentSchema();
  const NestedField* src = schema.FindById(pf.source_id);
  if (src == nullptr) return Internal("partition source {} not in the schema", pf.source_id);
  const std::string col = schema.NameOf(pf.source_id);
  FLOE_ASSIGN_OR_RETURN(TypePtr result_type, pf.transform.ResultType(*src->type));
  if (pf.transform.kind == TransformKind::kVoid) return Literal::Null(result_type->id);
  auto found = fd.values.find(pf.source_id);
  const bool in_file = found != fd.values.end();

  // From the column's values: one partition when transform(min) == transform(max) for a
  // transform that keeps order, min == max for one that does not (bucket).
  std::optional<Literal> from_bounds;
  std::string why;
  if (!in_file) {
    from_bounds = Literal::Null(result_type->id);  // every row reads null
  } else {
    const FooterDataFile::Values& v = found->second;
    const bool floating = src->type->id == TypeId::kFloat || src->type->id == TypeId::kDouble;
    if (!v.nulls) {
      why = "the footer does not say how many nulls it holds";
    } else if (*v.nulls == file.record_count) {
      from_bounds = Literal::Null(result_type->id);
    } else if (*v.nulls > 0) {
      why = fmt::format("it holds nulls and values ({} of {} rows null)", *v.nulls,
                        file.record_count);
    } else if (floating && v.nans.value_or(1) > 0) {
      why = "it may hold NaN";
    } else if (!v.lower || !v.upper || !v.exact) {
      why = "the footer has no exact bounds for it";
    } else {
      FLOE_ASSIGN_OR_RETURN(Literal tl, pf.transform.Apply(*v.lower));
      FLOE_ASSIGN_OR_RETURN(Literal th, pf.transform.Apply(*v.upper));
      const bool one = pf.transform.PreservesOrder() ? tl == th : *v.lower == *v.upper;
      if (one) {
        from_bounds = tl;
      } else {
        why = fmt::format("its values span {} to {}", v.lower->ToString(), v.upper->ToString());
      }
    }
  }

  std::optional<std::string> dir_key;
  if (pf.transform.kind == TransformKind::kIdentity) {
    if (hive.contains(col)) {
      dir_key = col;
    } else if (hive.contains(pf.name)) {
      dir_key = pf.name;
    }
  }
  if (dir_key) {
    const std::optional<std::string>& text = hive.at(*dir_key);
    Literal v = Literal::Null(result_type->id);
    if (text) {
      FLOE_ASSIGN_OR_RETURN(
          v, ParseValue(*text, *result_type,
                        fmt::format("{}: directory {}={}", file.file_path, *dir_key, *text)));
    }
    // A column the file lacks reads as its identity partition value (the spec's column
    // projection), as Hive's layouts keep it: only in the directory.
    if (in_file && from_bounds && *from_bounds != v) {
      return InvalidInput("{}: its directory says {}={} but its {} values are {}", file.file_path,
                          *dir_key, text.value_or("null"), col, Show(*from_bounds));
    }
    return v;
  }
  if (from_bounds) return *from_bounds;
  return InvalidInput(
      "{}: cannot tell its value of partition field '{}': no {}=VALUE directory in its path, and "
      "for column '{}' {}",
      file.file_path, pf.name, col, col, why);
}

}  // namespace

Result<AddFilesResult> AddFiles(catalog::Catalog& catalog, const FileIO& io,
                                const catalog::TableIdentifier& id,
                                const std::vector<std::string>& locations,
                                const AddFilesOptions& options) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, io, id));
  const std::string table_name = id.ToString();
  const TableMetadata& m = table.metadata;
  const PartitionSpec& spec = m.DefaultSpec();
  if (locations.empty()) return InvalidInput("add_files: no files given");

  // Which partition field each filter key names, and the value it keeps.
  std::vector<std::pair<size_t, Literal>> filters;
  for (const auto& [key, text] : options.partition_filter) {
    if (spec.unpartitioned()) {
      return InvalidInput("partition filter '{}': table {} is not partitioned", key, table_name);
    }
    std::optional<size_t> field;
    for (size_t i = 0; i < spec.fields().size(); ++i) {
      const PartitionField& pf = spec.fields()[i];
      if (pf.name == key || m.CurrentSchema().NameOf(pf.source_id) == key) field = i;
    }
    if (!field) {
      std::vector<std::string> names;
      for (const PartitionField& pf : spec.fields()) names.push_back(pf.name);
      return InvalidInput("partition filter '{}': table {} has no such partition field ({})", key,
                          table_name, fmt::join(names, ", "));
    }
    const PartitionField& pf = spec.fields()[*field];
    const NestedField* src = m.CurrentSchema().FindById(pf.source_id);
    FLOE_ASSIGN_OR_RETURN(TypePtr type, pf.transform.ResultType(*src->type));
    FLOE_ASSIGN_OR_RETURN(Literal v,
                          ParseValue(text, *type, fmt::format("partition filter '{}'", key)));
    filters.emplace_back(*field, std::move(v));
  }

  std::vector<Candidate> candidates;
  for (const std::string& loc : locations) FLOE_RETURN_IF_ERROR(ListLocation(io, loc, &candidates));
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.location < b.location; });
  if (options.check_duplicate_files) {
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (candidates[i].location == candidates[i - 1].location) {
        return InvalidInput("{} is given twice", candidates[i].location);
      }
    }
  }

  // The footers, all at once: one GET each (the length came from the listing).
  struct Read {
    Result<FooterDataFile> file = Internal("not read");
    int64_t requests = 0;
  };
  std::vector<Read> reads(candidates.size());
  ParallelFor(io.runtime().decode_pool(), candidates.size(), [&](size_t i) {
    const Candidate& c = candidates[i];
    if (c.size == 0) {
      reads[i].file = Corrupt("{}: an empty file is not Parquet", c.location);
      return;
    }
    auto footer = parquet::OpenFooter(*c.store, c.key, c.size);
    if (!footer) {
      Error e = footer.error();
      if (e.message.find(c.location) == std::string::npos &&
          e.message.find(c.key) == std::string::npos)
        e.message = fmt::format("{}: {}", c.location, e.message);
      reads[i].file = std::unexpected(std::move(e));
      return;
    }
    reads[i].requests = footer->stats.requests;
    reads[i].file = DataFileFromFooter(m, table_name, c.location, c.size, footer->reader);
  });

  AddFilesResult out;
  bool any_without_ids = false;
  std::set<std::string> partitions;
  for (Read& read : reads) {
    out.footer_requests += read.requests;
    if (!read.file) return std::unexpected(read.file.error());
    FooterDataFile& fd = *read.file;
    DataFile& f = fd.file;
    const auto hive = HiveValues(f.file_path);
    for (const PartitionField& pf : spec.fields()) {
      FLOE_ASSIGN_OR_RETURN(Literal v, PartitionValue(m, pf, fd, hive));
      f.partition.push_back(std::move(v));
    }
    bool keep = true;
    for (const auto& [field, value] : filters) keep = keep && f.partition[field] == value;
    if (!keep) continue;
    any_without_ids |= !fd.has_field_ids;
    partitions.insert(spec.PartitionPath(f.partition));
    out.rows += f.record_count;
    out.bytes += f.file_size_in_bytes;
    out.files.push_back(std::move(f));
  }
  out.changed_partitions = static_cast<int64_t>(partitions.size());

  if (options.check_duplicate_files && !out.files.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> live, table.LiveEntries(io));
    std::set<std::string> have;
    for (const ManifestEntry& e : live) have.insert(CanonicalLocation(e.file.file_path));
    for (const DataFile& f : out.files) {
      if (have.contains(CanonicalLocation(f.file_path))) {
        return InvalidInput(
            "{} is already a data file of table {} (--allow-duplicates, or "
            "check_duplicate_files => false in CALL, adds it again)",
            f.file_path, table_name);
      }
    }
  }
  if (out.files.empty()) {
    out.table = std::move(table);
    return out;
  }

  SnapshotUpdate update;
  update.added = out.files;
  update.expected_schema_id = m.current_schema_id;
  update.expected_spec_id = m.default_spec_id;
  if (any_without_ids && !m.properties.contains(std::string(kNameMappingProperty))) {
    update.properties_if_absent[std::string(kNameMappingProperty)] =
        NameMappingJson(m.CurrentSchema());
  }
  FLOE_ASSIGN_OR_RETURN(out.table, CommitSnapshot(catalog, io, id, update));
  const Snapshot* snap = out.table.metadata.CurrentSnapshot();
  if (snap != nullptr) out.snapshot_id = snap->snapshot_id;
  if (!update.properties_if_absent.empty()) {
    auto it = out.table.metadata.properties.find(std::string(kNameMappingProperty));
    out.name_mapping_set = it != out.table.metadata.properties.end() &&
                           it->second == update.properties_if_absent.begin()->second;
  }
  return out;
}

}  // namespace floe::iceberg
