#include "floe/iceberg/data_writer.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metrics.h"

#include "floe/iceberg/table_properties.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

Result<parquet::CompressionCodec> CodecByName(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (name == "zstd") return parquet::CompressionCodec::kZstd;
  if (name == "snappy") return parquet::CompressionCodec::kSnappy;
  if (name == "gzip") return parquet::CompressionCodec::kGzip;
  if (name == "uncompressed" || name == "none") return parquet::CompressionCodec::kUncompressed;
  if (name == "lz4" || name == "lz4_raw") return parquet::CompressionCodec::kLz4Raw;
  if (name == "brotli") return parquet::CompressionCodec::kBrotli;
  return InvalidInput(
      "write.parquet.compression-codec '{}' is not one of zstd, snappy, gzip, lz4, brotli, "
      "uncompressed",
      name);
}

// Widens a column to `want` where that loses nothing.
// `positional_children`: a map's entries struct, whose key and value match by position.
Result<c::ColumnPtr> Widen(const c::ColumnPtr& col, const c::DataType& want,
                           const std::string& name, bool positional_children = false) {
  if (col->type == want) return col;
  const c::DataType& have = col->type;
  auto copy_validity = [&](c::Column* out) {
    out->length = col->length;
    out->null_count = col->null_count;
    out->validity = col->validity;
    out->type = want;
  };
  auto widen_ints = [&](auto src_tag, auto dst_tag) -> c::ColumnPtr {
    using S = decltype(src_tag);
    using D = decltype(dst_tag);
    std::vector<uint8_t> data(col->length * sizeof(D));
    for (int64_t i = 0; i < col->length; ++i) {
      D v = static_cast<D>(col->Value<S>(i));
      std::memcpy(data.data() + i * sizeof(D), &v, sizeof(D));
    }
    auto out = std::make_shared<c::Column>();
    copy_validity(out.get());
    out->values = Buffer(std::move(data));
    return out;
  };
  using T = c::TypeId;
  if (want.id == T::kInt64 && have.id == T::kInt32) return widen_ints(int32_t{}, int64_t{});
  if (want.id == T::kInt64 && have.id == T::kUInt32) return widen_ints(uint32_t{}, int64_t{});
  if (want.id == T::kInt32 && have.id == T::kInt16) return widen_ints(int16_t{}, int32_t{});
  if (want.id == T::kInt32 && have.id == T::kInt8) return widen_ints(int8_t{}, int32_t{});
  if (want.id == T::kInt32 && have.id == T::kUInt16) return widen_ints(uint16_t{}, int32_t{});
  if (want.id == T::kInt32 && have.id == T::kUInt8) return widen_ints(uint8_t{}, int32_t{});
  if (want.id == T::kFloat64 && have.id == T::kFloat32) return widen_ints(float{}, double{});
  if (want.id == T::kTimestamp && have.id == T::kTimestamp &&
      want.timezone.empty() == have.timezone.empty()) {
    int64_t mul = 1, div = 1;
    auto per_sec = [](c::TimeUnit u) {
      return u == c::TimeUnit::kMilli ? 1000 : u == c::TimeUnit::kMicro ? 1000000 : 1000000000;
    };
    int64_t from = per_sec(have.unit), to = per_sec(want.unit);
    if (to >= from) {
      mul = to / from;
    } else {
      div = from / to;
    }
    std::vector<uint8_t> data(col->length * 8);
    for (int64_t i = 0; i < col->length; ++i) {
      int64_t v = col->Value<int64_t>(i);
      v = div > 1 ? FloorDiv(v, div) : v * mul;
      std::memcpy(data.data() + i * 8, &v, 8);
    }
    auto out = std::make_shared<c::Column>();
    copy_validity(out.get());
    out->values = Buffer(std::move(data));
    return c::ColumnPtr(out);
  }
  // decimal(P, S) -> decimal(P', S), P' >= P: the same 128-bit unscaled values.
  if (want.id == T::kDecimal128 && have.id == T::kDecimal128 && want.scale == have.scale &&
      want.precision >= have.precision) {
    auto out = std::make_shared<c::Column>(*col);
    out->type = want;
    return c::ColumnPtr(out);
  }
  if ((want.id == T::kString && have.id == T::kBinary) ||
      (want.id == T::kBinary && have.id == T::kString)) {
    auto out = std::make_shared<c::Column>(*col);
    out->type = want;
    return c::ColumnPtr(out);
  }
  // Nested columns: the same shape, children conformed one by one (they carry the table's field
  // ids and names, which a file written elsewhere lacks: list<item> and list<element> are one).
  if (want.IsNested() && have.id == want.id) {
    auto out = std::make_shared<c::Column>(*col);
    out->type = want;
    out->children.clear();
    const bool by_position = want.id != T::kStruct || positional_children;
    if (by_position && want.children.size() != have.children.size()) {
      return InvalidInput("column '{}' has type {}; the table wants {}", name, have.ToString(),
                          want.ToString());
    }
    for (size_t i = 0; i < want.children.size(); ++i) {
      const c::Field& wf = want.children[i];
      std::optional<size_t> j;
      if (by_position) {
        j = i;
      } else {
        for (size_t k = 0; k < have.children.size(); ++k) {
          if (have.children[k].name == wf.name) j = k;
        }
      }
      const std::string child = name + "." + wf.name;
      if (!j) {
        if (!wf.nullable || wf.type.IsNested())
          return InvalidInput("column '{}' is missing from the input", child);
        out->children.push_back(c::NullColumn(wf.type, col->length));
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(c::ColumnPtr conformed,
                            Widen(col->children[*j], wf.type, child, want.id == T::kMap));
      if (!wf.nullable && conformed->null_count > 0) {
        return InvalidInput("column '{}' is required but the input has {} nulls", child,
                            conformed->null_count);
      }
      out->children.push_back(std::move(conformed));
    }
    if (!by_position) {
      for (const auto& hf : have.children) {
        bool known = false;
        for (const auto& wf : want.children) known |= wf.name == hf.name;
        if (!known)
          return InvalidInput("input column '{}.{}' is not in the table schema", name, hf.name);
      }
    }
    return c::ColumnPtr(out);
  }
  return InvalidInput("column '{}' has type {}; the table wants {}", name, have.ToString(),
                      want.ToString());
}

// Orders rows by the table's sort order (on the untransformed source values for identity fields).
struct RowLess {
  const c::RecordBatch& batch;
  const std::vector<std::pair<int, SortField>>& fields;  // column index, field
  const std::vector<TypePtr>& types;

  bool operator()(int64_t a, int64_t b) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto& [col, f] = fields[i];
      const c::Column& column = *batch.columns[col];
      auto la = LiteralAt(column, a, *types[i]), lb = LiteralAt(column, b, *types[i]);
      if (!la || !lb) return false;
      Literal x = *la, y = *lb;
      if (f.transform.kind != TransformKind::kIdentity) {
        auto tx = f.transform.Apply(x), ty = f.transform.Apply(y);
        if (!tx || !ty) return false;
        x = *tx;
        y = *ty;
      }
      if (x.is_null() || y.is_null()) {
        if (x.is_null() == y.is_null()) continue;
        bool nulls_first = f.null_order == NullOrder::kNullsFirst;
        return x.is_null() ? nulls_first : !nulls_first;
      }
      auto cmp = Compare(x, y);
      if (cmp == std::partial_ordering::equivalent || cmp == std::partial_ordering::unordered)
        continue;
      bool less = cmp == std::partial_ordering::less;
      return f.direction == SortDirection::kAsc ? less : !less;
    }
    return false;
  }
};

}  // namespace

Result<parquet::WriterOptions> ParquetOptionsFor(const TableMetadata& m) {
  // Every value read below parses and lies in its range once this holds.
  FLOE_RETURN_IF_ERROR(ValidateTableProperties(m.properties));
  parquet::WriterOptions o;
  o.row_group_size_bytes =
      m.PropertyInt("write.parquet.row-group-size-bytes", o.row_group_size_bytes);
  o.page_size_bytes = m.PropertyInt("write.parquet.page-size-bytes", o.page_size_bytes);
  o.page_row_limit = m.PropertyInt("write.parquet.page-row-limit", o.page_row_limit);
  o.dictionary_size_limit = m.PropertyInt("write.parquet.dict-size-bytes", o.dictionary_size_limit);
  FLOE_ASSIGN_OR_RETURN(o.codec,
                        CodecByName(m.Property("write.parquet.compression-codec", "zstd")));
  if (auto it = m.properties.find("write.parquet.compression-level"); it != m.properties.end()) {
    o.compression_level = static_cast<int>(m.PropertyInt("write.parquet.compression-level", 3));
  }
  if (auto rows = m.PropertyInt("write.parquet.row-group-row-limit", 0); rows > 0)
    o.row_group_row_limit = rows;
  const std::string prefix = "write.parquet.bloom-filter-enabled.column.";
  for (const auto& [k, v] : m.properties) {
    if (k.starts_with(prefix) && v == "true") {
      parquet::BloomFilterColumn b;
      b.path = k.substr(prefix.size());
      auto fpp = m.Property("write.parquet.bloom-filter-fpp.column." + b.path, "");
      if (!fpp.empty()) std::from_chars(fpp.data(), fpp.data() + fpp.size(), b.fpp);
      o.bloom_filter_columns.push_back(b);
    }
  }
  o.bloom_filter_max_bytes =
      m.PropertyInt("write.parquet.bloom-filter-max-bytes", o.bloom_filter_max_bytes);
  // floe's own layout property (other engines ignore it): see WriterOptions::colocated_columns.
  const std::string colocated_list = m.Property(kColocatedColumnsProperty, "");
  std::string_view colocated = colocated_list;
  while (!colocated.empty()) {
    const size_t comma = colocated.find(',');
    std::string_view name = colocated.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      if (m.CurrentSchema().FindByName(name) == nullptr)
        return InvalidInput("table property {}: no column '{}'", kColocatedColumnsProperty, name);
      o.colocated_columns.emplace_back(name);
    }
    colocated = comma == std::string_view::npos ? "" : colocated.substr(comma + 1);
  }
  for (const auto& f : m.CurrentSchema().fields()) {
    if (f.type->id == TypeId::kUuid) o.uuid_field_ids.push_back(f.id);
  }
  return o;
}

Result<c::RecordBatch> ConformToSchema(const c::RecordBatch& batch, const Schema& schema,
                                       bool by_field_id) {
  FLOE_ASSIGN_OR_RETURN(c::Schema want, ToColumnarSchema(schema));
  c::RecordBatch out;
  out.num_rows = batch.num_rows;
  out.schema = std::make_shared<c::Schema>(want);
  for (size_t i = 0; i < want.fields.size(); ++i) {
    const c::Field& f = want.fields[i];
    std::optional<int> idx;
    if (by_field_id) {
      for (int k = 0; k < batch.schema->num_fields(); ++k) {
        if (batch.schema->fields[k].field_id == f.field_id) idx = k;
      }
    } else {
      idx = batch.schema->IndexOf(f.name);
    }
    if (!idx) {
      if (!f.nullable && !by_field_id)
        return InvalidInput("input has no column '{}', which the table requires", f.name);
      out.columns.push_back(c::NullColumn(f.type, batch.num_rows));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(c::ColumnPtr col, Widen(batch.columns[*idx], f.type, f.name));
    if (!f.nullable && col->null_count > 0 && !by_field_id) {
      return InvalidInput("column '{}' is required but the input has {} nulls", f.name,
                          col->null_count);
    }
    out.columns.push_back(std::move(col));
  }
  if (!by_field_id) {
    for (const auto& f : batch.schema->fields) {
      if (!want.IndexOf(f.name))
        return InvalidInput("input column '{}' is not in the table schema", f.name);
    }
  }
  return out;
}

Result<Literal> LiteralAt(const c::Column& col, int64_t row, const Type& t) {
  if (col.IsNull(row)) return Literal::Null(t.id);
  switch (t.id) {
    case TypeId::kBoolean:
      return Literal::Boolean(col.BoolAt(row));
    case TypeId::kInt:
      return Literal::Int(col.Value<int32_t>(row));
    case TypeId::kDate:
      return Literal::Date(col.Value<int32_t>(row));
    case TypeId::kLong:
      return Literal::Long(col.Value<int64_t>(row));
    case TypeId::kTime:
      return Literal::Time(col.Value<int64_t>(row));
    case TypeId::kTimestamp:
      return Literal::Timestamp(col.Value<int64_t>(row));
    case TypeId::kTimestampTz:
      return Literal::TimestampTz(col.Value<int64_t>(row));
    case TypeId::kTimestampNs:
      return Literal::TimestampNs(col.Value<int64_t>(row));
    case TypeId::kTimestampTzNs:
      return Literal::TimestampTzNs(col.Value<int64_t>(row));
    case TypeId::kFloat:
      return Literal::Float(col.Value<float>(row));
    case TypeId::kDouble:
      return Literal::Double(col.Value<double>(row));
    case TypeId::kString:
      return Literal::String(std::string(col.BytesAt(row)));
    case TypeId::kBinary:
      return Literal::Binary(std::string(col.BytesAt(row)));
    case TypeId::kFixed:
      return Literal::Fixed(std::string(col.BytesAt(row)));
    case TypeId::kUuid:
      return Literal::Uuid(std::string(col.BytesAt(row)));
    case TypeId::kDecimal: {
      Int128 v;
      std::memcpy(&v, col.values.data() + row * 16, 16);
      return Literal::Decimal(v, t.scale);
    }
    default:
      return Unsupported("values of type {}", t.ToString());
  }
}

TableDataWriter::TableDataWriter(Table table, const FileIO& io)
    : table_(std::move(table)), io_(io) {}

Status TableDataWriter::Write(const c::RecordBatch& batch) {
  // Conformed even when empty: a 0-row input of an unrelated schema is an error too.
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed,
                        ConformToSchema(batch, table_.metadata.CurrentSchema()));
  if (conformed.num_rows == 0) return {};
  rows_ += conformed.num_rows;
  batches_.push_back(std::move(conformed));
  return {};
}

Result<std::vector<DataFile>> TableDataWriter::Finish() {
  std::vector<DataFile> files;
  if (batches_.empty()) return files;
  const TableMetadata& m = table_.metadata;
  const Schema& schema = m.CurrentSchema();
  const PartitionSpec& spec = m.DefaultSpec();
  const SortOrder& order = m.DefaultSortOrder();
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch all, c::Concatenate(batches_));
  batches_.clear();
  FLOE_ASSIGN_OR_RETURN(parquet::WriterOptions popts, ParquetOptionsFor(m));
  const int64_t target = m.PropertyInt("write.target-file-size-bytes", int64_t{512} << 20);

  // Rows by partition (in partition-path order, so files come out deterministic).
  std::map<std::string, std::pair<std::vector<Literal>, std::vector<int64_t>>> groups;
  std::vector<std::pair<int, const PartitionField*>> pcols;
  for (const auto& pf : spec.fields()) {
    std::string name = schema.NameOf(pf.source_id);
    auto idx = all.schema->IndexOf(name);
    if (!idx) return Unsupported("partition source '{}' is not a top-level column", name);
    pcols.emplace_back(*idx, &pf);
  }
  for (int64_t r = 0; r < all.num_rows; ++r) {
    std::vector<Literal> key;
    for (const auto& [col, pf] : pcols) {
      FLOE_ASSIGN_OR_RETURN(Literal v,
                            LiteralAt(*all.columns[col], r, *schema.FindById(pf->source_id)->type));
      FLOE_ASSIGN_OR_RETURN(Literal p, pf->transform.Apply(v));
      key.push_back(std::move(p));
    }
    std::string path = spec.PartitionPath(key);
    auto& g = groups[path];
    if (g.second.empty()) g.first = std::move(key);
    g.second.push_back(r);
  }

  std::vector<std::pair<int, SortField>> sort_cols;
  std::vector<TypePtr> sort_types;
  for (const auto& f : order.fields()) {
    auto idx = all.schema->IndexOf(schema.NameOf(f.source_id));
    if (!idx)
      return Unsupported("sort column '{}' is not a top-level column", schema.NameOf(f.source_id));
    sort_cols.emplace_back(*idx, f);
    sort_types.push_back(schema.FindById(f.source_id)->type);
  }

  int file_index = 0;
  const std::string write_id = NewUuid();
  for (auto& [path, group] : groups) {
    auto& rows = group.second;
    if (!sort_cols.empty())
      std::stable_sort(rows.begin(), rows.end(), RowLess{all, sort_cols, sort_types});
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch part, c::Take(all, rows));
    constexpr int64_t kSlice = 8192;
    int64_t start = 0;
    while (start < part.num_rows) {
      parquet::MemorySink sink;
      FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(part.schema, &sink, popts));
      while (start < part.num_rows &&
             (writer->num_rows() == 0 || writer->estimated_file_size() < target)) {
        int64_t n = std::min(kSlice, part.num_rows - start);
        std::vector<int64_t> idx(n);
        for (int64_t i = 0; i < n; ++i) idx[i] = start + i;
        FLOE_ASSIGN_OR_RETURN(c::RecordBatch slice, c::Take(part, idx));
        FLOE_RETURN_IF_ERROR(writer->Write(slice));
        start += n;
      }
      FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
      std::string dir = m.location + "/data" + (path.empty() ? "" : "/" + path);
      std::string location = fmt::format("{}/{:05d}-{}.parquet", dir, file_index++, write_id);
      Buffer bytes = sink.ToBuffer();
      FLOE_RETURN_IF_ERROR(io_.Write(location, bytes.view()));
      if (on_file_written_) on_file_written_(static_cast<int64_t>(bytes.size()));
      DataFile f;
      f.file_path = location;
      f.partition = group.first;
      f.spec_id = spec.spec_id();
      f.record_count = written.num_rows;
      f.file_size_in_bytes = written.file_size;
      f.split_offsets = written.split_offsets;
      if (!order.unsorted()) f.sort_order_id = order.order_id();
      FLOE_RETURN_IF_ERROR(ApplyMetrics(m, schema, written, &f));
      files.push_back(std::move(f));
    }
  }
  return files;
}

}  // namespace floe::iceberg
