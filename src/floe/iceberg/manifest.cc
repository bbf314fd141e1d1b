#include "floe/iceberg/manifest.h"

#include <array>
#include <cmath>
#include <initializer_list>

#include "floe/avro/container.h"

namespace floe::iceberg {
namespace {

using avro::ArrayValue;
using avro::FieldSchema;
using avro::MapValue;
using avro::RecordValue;
using avro::Value;
using json = nlohmann::ordered_json;

avro::SchemaPtr Long() { return avro::Primitive(avro::Type::kLong); }
avro::SchemaPtr Int() { return avro::Primitive(avro::Type::kInt); }

FieldSchema F(std::string name, avro::SchemaPtr s, int32_t id, bool optional = false,
              std::string doc = {}) {
  FieldSchema f;
  f.name = std::move(name);
  f.schema = optional ? avro::Optional(std::move(s)) : std::move(s);
  f.field_id = id;
  f.doc = std::move(doc);
  if (optional) f.default_value = json(nullptr);
  return f;
}

// Iceberg's map<int, V> in Avro: an array of key/value records, marked logicalType map.
avro::SchemaPtr IntMap(int32_t key_id, int32_t value_id, avro::SchemaPtr value) {
  auto rec = avro::Record("k" + std::to_string(key_id) + "_v" + std::to_string(value_id),
                          {F("key", Int(), key_id), F("value", std::move(value), value_id)});
  auto arr = avro::ArrayOf(rec);
  auto mutable_arr = std::const_pointer_cast<avro::Schema>(arr);
  mutable_arr->logical_type = "map";
  return arr;
}

int DecimalBytes(int precision) {
  return static_cast<int>(std::ceil((precision * std::log2(10.0) + 1) / 8));
}

Result<avro::SchemaPtr> AvroTypeFor(const Type& t, int32_t field_id) {
  switch (t.id) {
    case TypeId::kBoolean:
      return avro::Primitive(avro::Type::kBoolean);
    case TypeId::kInt:
      return Int();
    case TypeId::kLong:
      return Long();
    case TypeId::kFloat:
      return avro::Primitive(avro::Type::kFloat);
    case TypeId::kDouble:
      return avro::Primitive(avro::Type::kDouble);
    case TypeId::kDate:
      return avro::Primitive(avro::Type::kInt, "date");
    case TypeId::kTime:
      return avro::Primitive(avro::Type::kLong, "time-micros");
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      auto s = std::const_pointer_cast<avro::Schema>(
          avro::Primitive(avro::Type::kLong, "timestamp-micros"));
      s->extra["adjust-to-utc"] = t.id == TypeId::kTimestampTz;
      return avro::SchemaPtr(s);
    }
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      auto s = std::const_pointer_cast<avro::Schema>(
          avro::Primitive(avro::Type::kLong, "timestamp-nanos"));
      s->extra["adjust-to-utc"] = t.id == TypeId::kTimestampTzNs;
      return avro::SchemaPtr(s);
    }
    case TypeId::kString:
      return avro::Primitive(avro::Type::kString);
    case TypeId::kBinary:
      return avro::Primitive(avro::Type::kBytes);
    case TypeId::kUuid:
      return avro::Fixed("uuid_fixed_" + std::to_string(field_id), 16, "uuid");
    case TypeId::kFixed:
      return avro::Fixed("fixed_" + std::to_string(field_id), t.length);
    case TypeId::kDecimal:
      return avro::Fixed("decimal_" + std::to_string(field_id), DecimalBytes(t.precision),
                         "decimal", json{{"precision", t.precision}, {"scale", t.scale}});
    default:
      return Unsupported("partition values of type {}", t.ToString());
  }
}

Result<avro::SchemaPtr> PartitionRecord(const Type& partition_type) {
  std::vector<FieldSchema> fields;
  for (const auto& f : partition_type.fields) {
    FLOE_ASSIGN_OR_RETURN(avro::SchemaPtr s, AvroTypeFor(*f.type, f.id));
    fields.push_back(F(f.name, std::move(s), f.id, /*optional=*/true));
  }
  return avro::Record("r102", std::move(fields));
}

// v2: delete manifests also carry the fields of delete files (143-145); data manifests keep the v2
// data_file of earlier floe versions, byte for byte. v3: every manifest carries first_row_id (142)
// and the delete files' fields, as the spec's v3 data_file lists them.
Result<avro::SchemaPtr> EntrySchema(const Type& partition_type, bool deletes, int format_version) {
  FLOE_ASSIGN_OR_RETURN(avro::SchemaPtr partition, PartitionRecord(partition_type));
  auto bytes = avro::Primitive(avro::Type::kBytes);
  std::vector<FieldSchema> df = {
      F("content", Int(), 134, false,
        "Contents of the file: 0=data, 1=position deletes, 2=equality deletes"),
      F("file_path", avro::Primitive(avro::Type::kString), 100, false,
        "Location URI with FS scheme"),
      F("file_format", avro::Primitive(avro::Type::kString), 101, false,
        "File format name: avro, orc, or parquet"),
      F("partition", partition, 102, false,
        "Partition data tuple, schema based on the partition spec"),
      F("record_count", Long(), 103, false, "Number of records in the file"),
      F("file_size_in_bytes", Long(), 104, false, "Total file size in bytes"),
      F("column_sizes", IntMap(117, 118, Long()), 108, true,
        "Map of column id to total size on disk"),
      F("value_counts", IntMap(119, 120, Long()), 109, true,
        "Map of column id to total count, including null and NaN"),
      F("null_value_counts", IntMap(121, 122, Long()), 110, true,
        "Map of column id to null value count"),
      F("nan_value_counts", IntMap(138, 139, Long()), 137, true,
        "Map of column id to number of NaN values in the column"),
      F("lower_bounds", IntMap(126, 127, bytes), 125, true, "Map of column id to lower bound"),
      F("upper_bounds", IntMap(129, 130, bytes), 128, true, "Map of column id to upper bound"),
      F("key_metadata", bytes, 131, true, "Encryption key metadata blob"),
      F("split_offsets", avro::ArrayOf(Long(), json{{"element-id", 133}}), 132, true,
        "Splittable offsets"),
      F("equality_ids", avro::ArrayOf(Int(), json{{"element-id", 136}}), 135, true,
        "Equality comparison field IDs"),
      F("sort_order_id", Int(), 140, true, "Sort order ID"),
  };
  if (format_version >= 3) {
    df.push_back(F("first_row_id", Long(), 142, true, "The _row_id of the first row in the file"));
  }
  if (deletes || format_version >= 3) {
    df.push_back(F("referenced_data_file", avro::Primitive(avro::Type::kString), 143, true,
                   "Fully qualified location of a data file that all deletes reference"));
    df.push_back(
        F("content_offset", Long(), 144, true, "The offset in the file where the content starts"));
    df.push_back(F("content_size_in_bytes", Long(), 145, true,
                   "The length of referenced content stored in the file"));
  }
  return avro::Record("manifest_entry", {F("status", Int(), 0), F("snapshot_id", Long(), 1, true),
                                         F("sequence_number", Long(), 3, true),
                                         F("file_sequence_number", Long(), 4, true),
                                         F("data_file", avro::Record("r2", std::move(df)), 2)});
}

avro::SchemaPtr ManifestListSchema(int format_version) {
  auto bytes = avro::Primitive(avro::Type::kBytes);
  auto summary = avro::Record(
      "r508", {F("contains_null", avro::Primitive(avro::Type::kBoolean), 509),
               F("contains_nan", avro::Primitive(avro::Type::kBoolean), 518, true),
               F("lower_bound", bytes, 510, true), F("upper_bound", bytes, 511, true)});
  std::vector<FieldSchema> fields = {
      F("manifest_path", avro::Primitive(avro::Type::kString), 500, false,
        "Location URI with FS scheme"),
      F("manifest_length", Long(), 501, false, "Total file size in bytes"),
      F("partition_spec_id", Int(), 502, false, "Spec ID used to write"),
      F("content", Int(), 517, false, "Contents of the manifest: 0=data, 1=deletes"),
      F("sequence_number", Long(), 515, false, "Sequence number when the manifest was added"),
      F("min_sequence_number", Long(), 516, false, "Lowest sequence number in the manifest"),
      F("added_snapshot_id", Long(), 503, false, "Snapshot ID that added the manifest"),
      F("added_files_count", Int(), 504, false, "Added entry count"),
      F("existing_files_count", Int(), 505, false, "Existing entry count"),
      F("deleted_files_count", Int(), 506, false, "Deleted entry count"),
      F("added_rows_count", Long(), 512, false, "Added rows count"),
      F("existing_rows_count", Long(), 513, false, "Existing rows count"),
      F("deleted_rows_count", Long(), 514, false, "Deleted rows count"),
      F("partitions", avro::ArrayOf(summary, json{{"element-id", 508}}), 507, true,
        "Summary for each partition"),
      F("key_metadata", bytes, 519, true, "Encryption key metadata blob")};
  if (format_version >= 3) {
    fields.push_back(F("first_row_id", Long(), 520, true,
                       "The first _row_id of the manifest's data files without one"));
  }
  return avro::Record("manifest_file", std::move(fields));
}

// --- literal <-> avro value ---

Result<Value> ToAvro(const Literal& v, const Type& t) {
  if (v.is_null()) return Value::Null();
  switch (t.id) {
    case TypeId::kBoolean:
      return Value(std::get<bool>(v.storage()));
    case TypeId::kInt:
    case TypeId::kDate:
      return Value(v.AsInt());
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Value(v.AsLong());
    case TypeId::kFloat:
      return Value(std::get<float>(v.storage()));
    case TypeId::kDouble:
      return Value(std::get<double>(v.storage()));
    case TypeId::kString:
      return Value(v.AsString());
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed:
      return Value::Bytes(v.AsBytes());
    case TypeId::kDecimal: {
      std::string minimal = Int128ToMinimalBigEndian(v.AsDecimal().unscaled);
      size_t n = static_cast<size_t>(DecimalBytes(t.precision));
      if (minimal.size() > n)
        return InvalidInput("decimal {} too wide for {}", v.ToString(), t.ToString());
      char pad = (static_cast<uint8_t>(minimal[0]) & 0x80) ? '\xff' : '\0';
      return Value::Bytes(std::string(n - minimal.size(), pad) + minimal);
    }
    default:
      return Unsupported("partition value of type {}", t.ToString());
  }
}

Result<Literal> FromAvro(const Value& v, const Type& t) {
  if (v.is_null()) return Literal::Null(t.id);
  auto wrong = [&]() { return Corrupt("partition value does not match type {}", t.ToString()); };
  switch (t.id) {
    case TypeId::kBoolean:
      if (!v.is<bool>()) return wrong();
      return Literal::Boolean(v.as<bool>());
    case TypeId::kInt:
    case TypeId::kDate:
      if (!v.is<int32_t>()) return wrong();
      return t.id == TypeId::kInt ? Literal::Int(v.as<int32_t>()) : Literal::Date(v.as<int32_t>());
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      int64_t x;
      if (v.is<int64_t>()) {
        x = v.as<int64_t>();
      } else if (v.is<int32_t>()) {
        x = v.as<int32_t>();
      } else {
        return wrong();
      }
      return *Literal::OfInteger(t.id, x);
    }
    case TypeId::kFloat:
      if (!v.is<float>()) return wrong();
      return Literal::Float(v.as<float>());
    case TypeId::kDouble:
      if (v.is<float>()) return Literal::Double(v.as<float>());
      if (!v.is<double>()) return wrong();
      return Literal::Double(v.as<double>());
    case TypeId::kString:
      if (!v.is<std::string>()) return wrong();
      return Literal::String(v.as<std::string>());
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kDecimal: {
      if (!v.is<avro::BytesValue>()) return wrong();
      const std::string& b = v.as<avro::BytesValue>().data;
      if (t.id == TypeId::kDecimal) return DeserializeBound(t, b);
      if (t.id == TypeId::kUuid) return Literal::Uuid(b);
      return t.id == TypeId::kFixed ? Literal::Fixed(b) : Literal::Binary(b);
    }
    default:
      return wrong();
  }
}

// --- reading by field id ---

// The value of the field with `id` in a record, or nullptr when the writer's schema lacks it.
const Value* FieldById(const avro::Schema& s, const Value& v, int32_t id) {
  auto idx = s.FieldIndexById(id);
  if (!idx || !v.is<RecordValue>()) return nullptr;
  return &v.as<RecordValue>().fields[*idx];
}

const avro::Schema* FieldSchemaById(const avro::Schema& s, int32_t id) {
  auto idx = s.FieldIndexById(id);
  return idx ? s.fields[*idx].schema.get() : nullptr;
}

// Strips a [null, T] union to T.
const avro::Schema& Unwrap(const avro::Schema& s) {
  if (auto b = s.NonNullBranch()) return *s.branches[*b];
  return s;
}

std::optional<int64_t> OptLong(const avro::Schema& s, const Value& v, int32_t id) {
  const Value* f = FieldById(s, v, id);
  if (f == nullptr || f->is_null()) return std::nullopt;
  if (f->is<int64_t>()) return f->as<int64_t>();
  if (f->is<int32_t>()) return f->as<int32_t>();
  return std::nullopt;
}

template <typename V>
Result<std::map<int32_t, V>> ReadIntMap(const avro::Schema& s, const Value& v, int32_t id) {
  std::map<int32_t, V> out;
  const Value* f = FieldById(s, v, id);
  if (f == nullptr || f->is_null()) return out;
  auto bad = [&]() { return Corrupt("manifest field {} is not a map of int keys", id); };
  if (f->is<MapValue>()) {  // some writers use a string-keyed Avro map
    for (const auto& entry : f->as<MapValue>().entries) {
      const std::string& k = entry.first;
      const Value& val = entry.second;
      int32_t key;
      try {
        key = std::stoi(k);
      } catch (...) {
        return bad();
      }
      if constexpr (std::is_same_v<V, int64_t>) {
        if (!val.is<int64_t>()) return bad();
        out[key] = val.as<int64_t>();
      } else {
        if (!val.is<avro::BytesValue>()) return bad();
        out[key] = val.as<avro::BytesValue>().data;
      }
    }
    return out;
  }
  if (!f->is<ArrayValue>()) return bad();
  for (const auto& kv : f->as<ArrayValue>().items) {
    if (!kv.is<RecordValue>() || kv.as<RecordValue>().fields.size() != 2 || !kv[0].is<int32_t>()) {
      return bad();
    }
    if constexpr (std::is_same_v<V, int64_t>) {
      if (!kv[1].is<int64_t>()) return bad();
      out[kv[0].as<int32_t>()] = kv[1].as<int64_t>();
    } else {
      if (!kv[1].is<avro::BytesValue>()) return bad();
      out[kv[0].as<int32_t>()] = kv[1].as<avro::BytesValue>().data;
    }
  }
  return out;
}

template <typename V>
Value WriteIntMap(const std::map<int32_t, V>& m) {
  if (m.empty()) return Value::Null();
  ArrayValue a;
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<V, int64_t>) {
      a.items.push_back(Value(RecordValue{{Value(k), Value(v)}}));
    } else {
      a.items.push_back(Value(RecordValue{{Value(k), Value::Bytes(v)}}));
    }
  }
  return Value(std::move(a));
}

Value OptBytes(const std::optional<std::string>& b) { return b ? Value::Bytes(*b) : Value::Null(); }

std::string SpecFieldsJson(const PartitionSpec& spec) { return spec.ToJson()["fields"].dump(); }

}  // namespace

Result<std::string> WriteManifest(const ManifestContext& ctx,
                                  const std::vector<ManifestEntry>& entries) {
  if (ctx.schema == nullptr || ctx.spec == nullptr) return Internal("manifest context incomplete");
  if (ctx.format_version < 2 || ctx.format_version > 3) {
    return Unsupported("writing format version {} manifests (floe writes v2 and v3)",
                       ctx.format_version);
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr ptype, ctx.spec->PartitionType(*ctx.schema));
  const bool deletes = ctx.content == ManifestContent::kDeletes;
  const bool v3 = ctx.format_version >= 3;
  FLOE_ASSIGN_OR_RETURN(avro::SchemaPtr schema, EntrySchema(*ptype, deletes, ctx.format_version));
  avro::ContainerWriter w(
      schema, {{"schema", ctx.schema->ToJson().dump()},
               {"schema-id", std::to_string(ctx.schema->schema_id())},
               {"partition-spec", SpecFieldsJson(*ctx.spec)},
               {"partition-spec-id", std::to_string(ctx.spec->spec_id())},
               {"format-version", std::to_string(ctx.format_version)},
               {"content", ctx.content == ManifestContent::kData ? "data" : "deletes"}});
  for (const auto& e : entries) {
    const DataFile& f = e.file;
    if (f.partition.size() != ptype->fields.size()) {
      return InvalidInput("data file '{}' has {} partition values for a spec of {} fields",
                          f.file_path, f.partition.size(), ptype->fields.size());
    }
    RecordValue partition;
    for (size_t i = 0; i < f.partition.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Value pv, ToAvro(f.partition[i], *ptype->fields[i].type));
      partition.fields.push_back(std::move(pv));
    }
    ArrayValue splits, eq_ids;
    for (int64_t o : f.split_offsets) splits.items.emplace_back(o);
    for (int32_t id : f.equality_ids) eq_ids.items.emplace_back(id);
    RecordValue df{{Value(static_cast<int32_t>(f.content)), Value(f.file_path),
                    Value(f.file_format), Value(std::move(partition)), Value(f.record_count),
                    Value(f.file_size_in_bytes), WriteIntMap(f.column_sizes),
                    WriteIntMap(f.value_counts), WriteIntMap(f.null_value_counts),
                    WriteIntMap(f.nan_value_counts), WriteIntMap(f.lower_bounds),
                    WriteIntMap(f.upper_bounds), OptBytes(f.key_metadata),
                    f.split_offsets.empty() ? Value::Null() : Value(std::move(splits)),
                    f.equality_ids.empty() ? Value::Null() : Value(std::move(eq_ids)),
                    f.sort_order_id ? Value(*f.sort_order_id) : Value::Null()}};
    auto opt_long = [](const std::optional<int64_t>& x) { return x ? Value(*x) : Value::Null(); };
    if (v3) {
      // Delete files never carry one (spec: "First Row ID Inheritance").
      df.fields.push_back(f.content == FileContent::kData ? opt_long(f.first_row_id)
                                                          : Value::Null());
    }
    if (deletes || v3) {
      df.fields.push_back(f.referenced_data_file ? Value(*f.referenced_data_file) : Value::Null());
      df.fields.push_back(opt_long(f.content_offset));
      df.fields.push_back(opt_long(f.content_size_in_bytes));
    }
    if (!deletes && IsDeletionVector(f)) {
      return InvalidInput("deletion vector '{}' needs a delete manifest", f.file_path);
    }
    RecordValue entry{{Value(static_cast<int32_t>(e.status)), opt_long(e.snapshot_id),
                       opt_long(e.sequence_number), opt_long(e.file_sequence_number),
                       Value(std::move(df))}};
    FLOE_RETURN_IF_ERROR(w.Append(Value(std::move(entry))));
  }
  return w.Finish();
}

namespace {

Error BadManifest(const std::string& name, std::string_view what) {
  return Corrupt("manifest '{}': {}", name, what).error();
}

// Where a manifest's writer schema keeps the entry's parts.
struct EntryShape {
  const avro::Schema* entry = nullptr;      // the manifest_entry record
  const avro::Schema* data_file = nullptr;  // field 2, unwrapped
  const avro::Schema* partition = nullptr;  // field 102 of data_file, unwrapped
};

Result<EntryShape> ShapeOf(const avro::Schema& es, const std::string& name) {
  const avro::Schema* dfs_ptr = FieldSchemaById(es, 2);
  if (es.type != avro::Type::kRecord || dfs_ptr == nullptr) {
    return std::unexpected(BadManifest(name, "no data_file field (id 2)"));
  }
  const avro::Schema& dfs = Unwrap(*dfs_ptr);
  const avro::Schema* ps_ptr = FieldSchemaById(dfs, 102);
  if (ps_ptr == nullptr) return std::unexpected(BadManifest(name, "no partition field (id 102)"));
  return EntryShape{&es, &dfs, &Unwrap(*ps_ptr)};
}

// The partition tuple of data file `path` from its field 102 (`pv`; null when the writer lacks it).
Result<std::vector<Literal>> PartitionOf(const EntryShape& shape, const Value* pv,
                                         const Type& partition_type, std::string_view path,
                                         const std::string& name) {
  std::vector<Literal> out;
  out.reserve(partition_type.fields.size());
  for (const auto& pf : partition_type.fields) {
    const Value* x = pv ? FieldById(*shape.partition, *pv, pf.id) : nullptr;
    if (x == nullptr) {
      out.push_back(Literal::Null(pf.type->id));
      continue;
    }
    auto lit = FromAvro(*x, *pf.type);
    if (!lit) {
      return std::unexpected(
          BadManifest(name, fmt::format("data file '{}': partition field '{}': {}", path, pf.name,
                                        lit.error().message)));
    }
    out.push_back(std::move(*lit));
  }
  return out;
}

// One decoded entry as a ManifestEntry, with what it inherits from `list_entry`.
Result<ManifestEntry> EntryOf(const EntryShape& shape, const Value& v,
                              const ManifestFile& list_entry, const Type& partition_type,
                              const std::string& name) {
  const avro::Schema& es = *shape.entry;
  const avro::Schema& dfs = *shape.data_file;
  auto bad = [&](std::string_view what) { return std::unexpected(BadManifest(name, what)); };
  ManifestEntry e;
  const Value* status = FieldById(es, v, 0);
  if (status == nullptr || !status->is<int32_t>() || status->as<int32_t>() < 0 ||
      status->as<int32_t>() > 2) {
    return bad("entry without a valid status");
  }
  e.status = static_cast<EntryStatus>(status->as<int32_t>());
  e.snapshot_id = OptLong(es, v, 1);
  e.sequence_number = OptLong(es, v, 3);
  e.file_sequence_number = OptLong(es, v, 4);
  // Inheritance (spec: "Sequence Number Inheritance"): null fields of entries take the
  // manifest's values; in v1 everything is sequence number 0.
  if (!e.snapshot_id) e.snapshot_id = list_entry.added_snapshot_id;
  if (!e.sequence_number && (e.status == EntryStatus::kAdded || list_entry.sequence_number == 0)) {
    e.sequence_number = list_entry.sequence_number;
  }
  if (!e.file_sequence_number &&
      (e.status == EntryStatus::kAdded || list_entry.sequence_number == 0)) {
    e.file_sequence_number = list_entry.sequence_number;
  }
  const Value* dfv = FieldById(es, v, 2);
  if (dfv == nullptr || !dfv->is<RecordValue>()) return bad("entry without data_file");
  DataFile& f = e.file;
  f.spec_id = list_entry.partition_spec_id;
  if (auto c = OptLong(dfs, *dfv, 134)) {
    if (*c < 0 || *c > 2) return bad("data file with unknown content type");
    f.content = static_cast<FileContent>(*c);
  }
  const Value* path = FieldById(dfs, *dfv, 100);
  const Value* format = FieldById(dfs, *dfv, 101);
  if (path == nullptr || !path->is<std::string>()) return bad("data file without file_path");
  f.file_path = path->as<std::string>();
  if (format != nullptr && format->is<std::string>()) f.file_format = format->as<std::string>();
  auto rc = OptLong(dfs, *dfv, 103);
  auto size = OptLong(dfs, *dfv, 104);
  if (!rc || !size)
    return bad(fmt::format("data file '{}' lacks record_count or size", f.file_path));
  f.record_count = *rc;
  f.file_size_in_bytes = *size;
  FLOE_ASSIGN_OR_RETURN(f.partition, PartitionOf(shape, FieldById(dfs, *dfv, 102), partition_type,
                                                 f.file_path, name));
  auto maps = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(f.column_sizes, ReadIntMap<int64_t>(dfs, *dfv, 108));
    FLOE_ASSIGN_OR_RETURN(f.value_counts, ReadIntMap<int64_t>(dfs, *dfv, 109));
    FLOE_ASSIGN_OR_RETURN(f.null_value_counts, ReadIntMap<int64_t>(dfs, *dfv, 110));
    FLOE_ASSIGN_OR_RETURN(f.nan_value_counts, ReadIntMap<int64_t>(dfs, *dfv, 137));
    FLOE_ASSIGN_OR_RETURN(f.lower_bounds, ReadIntMap<std::string>(dfs, *dfv, 125));
    FLOE_ASSIGN_OR_RETURN(f.upper_bounds, ReadIntMap<std::string>(dfs, *dfv, 128));
    return {};
  }();
  if (!maps) return bad(fmt::format("data file '{}': {}", f.file_path, maps.error().message));
  if (const Value* km = FieldById(dfs, *dfv, 131); km && km->is<avro::BytesValue>()) {
    f.key_metadata = km->as<avro::BytesValue>().data;
  }
  if (const Value* so = FieldById(dfs, *dfv, 132); so && so->is<ArrayValue>()) {
    for (const auto& x : so->as<ArrayValue>().items) {
      if (x.is<int64_t>()) f.split_offsets.push_back(x.as<int64_t>());
    }
  }
  if (const Value* eq = FieldById(dfs, *dfv, 135); eq && eq->is<ArrayValue>()) {
    for (const auto& x : eq->as<ArrayValue>().items) {
      if (x.is<int32_t>()) f.equality_ids.push_back(x.as<int32_t>());
    }
  }
  if (auto so = OptLong(dfs, *dfv, 140)) f.sort_order_id = static_cast<int32_t>(*so);
  if (f.content == FileContent::kData) f.first_row_id = OptLong(dfs, *dfv, 142);
  if (const Value* r = FieldById(dfs, *dfv, 143); r && r->is<std::string>()) {
    f.referenced_data_file = r->as<std::string>();
  }
  f.content_offset = OptLong(dfs, *dfv, 144);
  f.content_size_in_bytes = OptLong(dfs, *dfv, 145);
  if (IsDeletionVector(f) &&
      (!f.referenced_data_file || !f.content_offset || !f.content_size_in_bytes ||
       *f.content_offset < 0 || *f.content_size_in_bytes < 0)) {
    return bad(
        fmt::format("deletion vector in '{}' lacks its referenced_data_file, content_offset or "
                    "content_size_in_bytes",
                    f.file_path));
  }
  return e;
}

// --- reading entries in place (ReadManifestIf) ---

// One primitive read through any unions: its Avro type (kNull for a null branch) and value.
// Types other than int, long, string, bytes and fixed are skipped and reported by type only.
struct Scalar {
  avro::Type type = avro::Type::kNull;
  int64_t number = 0;
  std::string_view bytes;
};

// `depth` as DecodeValue's: where the value lies in the entry.
Result<Scalar> ReadScalar(const avro::Schema& schema, avro::Decoder& in, int depth) {
  const avro::Schema* s = &schema;
  while (s->type == avro::Type::kUnion) {
    ++depth;
    FLOE_ASSIGN_OR_RETURN(int64_t b, in.ReadLong());
    if (b < 0 || static_cast<size_t>(b) >= s->branches.size()) {
      return Corrupt("avro union branch {} out of range", b);
    }
    s = s->branches[static_cast<size_t>(b)].get();
  }
  Scalar out{s->type};
  switch (s->type) {
    case avro::Type::kInt: {
      FLOE_ASSIGN_OR_RETURN(out.number, in.ReadInt());
      return out;
    }
    case avro::Type::kLong: {
      FLOE_ASSIGN_OR_RETURN(out.number, in.ReadLong());
      return out;
    }
    case avro::Type::kString:
    case avro::Type::kBytes: {
      FLOE_ASSIGN_OR_RETURN(out.bytes, in.ReadBytes());
      return out;
    }
    case avro::Type::kFixed: {
      FLOE_ASSIGN_OR_RETURN(out.bytes, in.ReadFixed(static_cast<size_t>(s->size)));
      return out;
    }
    default:
      FLOE_RETURN_IF_ERROR(avro::SkipValue(*s, in, depth));
      return out;
  }
}

// OptLong's reading of a scalar.
std::optional<int64_t> LongOf(const Scalar& x) {
  if (x.type == avro::Type::kInt || x.type == avro::Type::kLong) return x.number;
  return std::nullopt;
}

// What the in-place reader does with one field of the entry or data_file record.
enum class Slot : uint8_t {
  kSkip,
  kStatus,
  kDataFile,
  kContent,
  kPath,
  kRecordCount,
  kFileSize,
  kPartition,
  kFirstRowId,
  kColumnSizes,
  kValueCounts,
  kNullCounts,
  kNanCounts,
  kLowerBounds,
  kUpperBounds,
};

bool IsMetricsMap(Slot s) { return s >= Slot::kColumnSizes; }

// A metrics map field that ReadIntMap accepts exactly when each item is (int, long) -- or (int,
// bytes|fixed) for bounds: null, or an array of two-field records, possibly within a union. Other
// shapes (Avro's string-keyed map) are left to the general reader.
bool PlainIntMap(const avro::Schema& s) {
  auto array_ok = [](const avro::Schema& a) {
    return a.type == avro::Type::kArray && a.items && a.items->type == avro::Type::kRecord &&
           a.items->fields.size() == 2;
  };
  if (s.type != avro::Type::kUnion) return array_ok(s);
  for (const auto& b : s.branches) {
    if (b->type != avro::Type::kNull && !array_ok(*b)) return false;
  }
  return true;
}

// The slots of a record's fields (the first field of an id decides, as FieldIndexById finds it).
std::vector<Slot> SlotsOf(const avro::Schema& record,
                          std::initializer_list<std::pair<int32_t, Slot>> wanted) {
  std::vector<Slot> slots(record.fields.size(), Slot::kSkip);
  for (const auto& [id, slot] : wanted) {
    if (auto i = record.FieldIndexById(id)) slots[*i] = slot;
  }
  return slots;
}

// What the in-place reader sees of an entry (ManifestIndex).
struct ManifestEntryHead {
  EntryStatus status = EntryStatus::kAdded;
  FileContent content = FileContent::kData;
  int64_t record_count = 0;
  std::optional<int64_t> first_row_id;  // as written (142), before inheritance
  std::vector<Literal> partition;       // as DataFile::partition
  MetricsView metrics;
};

// Reads a manifest's entries in place: per entry only the fields a filter needs (status, content,
// the path's and counts' presence, partition, metrics), every other field skipped but checked,
// and nothing built per entry but the partition tuple. Errors are not reported from here: on
// any failure the caller turns to the general reader, which names it.
class InPlaceReader {
 public:
  InPlaceReader(const EntryShape& shape, const ManifestFile& list_entry, const Type& partition_type,
                const std::string& name)
      : shape_(shape), list_entry_(list_entry), partition_type_(partition_type), name_(name) {}

  // False when the writer's schema has a shape this reader leaves to the general one.
  bool Prepare() {
    entry_slots_ = SlotsOf(*shape_.entry, {{0, Slot::kStatus}, {2, Slot::kDataFile}});
    file_slots_ = SlotsOf(*shape_.data_file, {{134, Slot::kContent},
                                              {100, Slot::kPath},
                                              {103, Slot::kRecordCount},
                                              {104, Slot::kFileSize},
                                              {102, Slot::kPartition},
                                              {142, Slot::kFirstRowId},
                                              {108, Slot::kColumnSizes},
                                              {109, Slot::kValueCounts},
                                              {110, Slot::kNullCounts},
                                              {137, Slot::kNanCounts},
                                              {125, Slot::kLowerBounds},
                                              {128, Slot::kUpperBounds}});
    for (size_t i = 0; i < file_slots_.size(); ++i) {
      if (IsMetricsMap(file_slots_[i]) && !PlainIntMap(*shape_.data_file->fields[i].schema)) {
        return false;
      }
    }
    return true;
  }

  // Reads the entry at `in`'s position into head_; false on anything the general reader must see.
  bool ReadHead(avro::Decoder& in) {
    head_.status = EntryStatus::kAdded;
    head_.content = FileContent::kData;
    head_.record_count = 0;
    head_.first_row_id.reset();
    head_.partition.clear();
    for (auto* v : {&counts_[0], &counts_[1], &counts_[2], &counts_[3]}) v->clear();
    lower_.clear();
    upper_.clear();
    bool status = false, data_file = false;
    const auto& fields = shape_.entry->fields;
    for (size_t i = 0; i < fields.size(); ++i) {
      switch (entry_slots_[i]) {
        case Slot::kStatus: {
          auto x = ReadScalar(*fields[i].schema, in, 1);
          if (!x || x->type != avro::Type::kInt || x->number < 0 || x->number > 2) return false;
          head_.status = static_cast<EntryStatus>(x->number);
          status = true;
          break;
        }
        case Slot::kDataFile:
          if (!ReadDataFile(*fields[i].schema, in)) return false;
          data_file = true;
          break;
        default:
          if (!avro::SkipValue(*fields[i].schema, in, 1)) return false;
      }
    }
    if (!status || !data_file) return false;
    head_.metrics = MetricsView{counts_[1], counts_[2], counts_[3], lower_, upper_};
    return true;
  }

  ManifestEntryHead& head() { return head_; }

 private:
  bool ReadDataFile(const avro::Schema& schema, avro::Decoder& in) {
    const avro::Schema* s = &schema;
    int depth = 1;  // of the record, as DecodeValue counts from the entry
    while (s->type == avro::Type::kUnion) {
      ++depth;
      auto b = in.ReadLong();
      if (!b || *b < 0 || static_cast<size_t>(*b) >= s->branches.size()) return false;
      s = s->branches[static_cast<size_t>(*b)].get();
    }
    if (s != shape_.data_file) return false;
    bool path = false, record_count = false, file_size = false, partition = false;
    const auto& fields = s->fields;
    for (size_t i = 0; i < fields.size(); ++i) {
      const avro::Schema& fs = *fields[i].schema;
      const Slot slot = file_slots_[i];
      switch (slot) {
        case Slot::kContent: {
          auto x = ReadScalar(fs, in, depth + 1);
          if (!x) return false;
          if (auto c = LongOf(*x)) {
            if (*c < 0 || *c > 2) return false;
            head_.content = static_cast<FileContent>(*c);
          }
          break;
        }
        case Slot::kPath: {
          auto x = ReadScalar(fs, in, depth + 1);
          if (!x || x->type != avro::Type::kString) return false;
          path_ = x->bytes;
          path = true;
          break;
        }
        case Slot::kRecordCount:
        case Slot::kFileSize: {
          auto x = ReadScalar(fs, in, depth + 1);
          if (!x || !LongOf(*x)) return false;
          if (slot == Slot::kRecordCount) head_.record_count = *LongOf(*x);
          (slot == Slot::kRecordCount ? record_count : file_size) = true;
          break;
        }
        case Slot::kFirstRowId: {
          auto x = ReadScalar(fs, in, depth + 1);
          if (!x) return false;
          head_.first_row_id = LongOf(*x);
          break;
        }
        case Slot::kPartition: {
          // Small (one value per partition field): decoded generally, converted as EntryOf does.
          auto v = avro::DecodeValue(fs, in, depth + 1);
          if (!v) return false;
          partition_value_ = std::move(*v);
          partition = true;
          break;
        }
        case Slot::kSkip:
          if (!avro::SkipValue(fs, in, depth + 1)) return false;
          break;
        default: {
          const size_t k = static_cast<size_t>(slot) - static_cast<size_t>(Slot::kColumnSizes);
          if (!ReadMetrics(fs, in, k, depth + 1)) return false;
        }
      }
    }
    if (!path || !record_count || !file_size) return false;
    // As EntryOf: a data_file record without field 102 has all-null partition values.
    auto p =
        PartitionOf(shape_, partition ? &partition_value_ : nullptr, partition_type_, path_, name_);
    if (!p) return false;
    head_.partition = std::move(*p);
    return true;
  }

  // Map `k` of kColumnSizes .. kUpperBounds: counts_[k] for the counts, lower_/upper_ for bounds.
  // `depth`: the field's, as DecodeValue counts from the entry.
  bool ReadMetrics(const avro::Schema& schema, avro::Decoder& in, size_t k, int depth) {
    const avro::Schema* s = &schema;
    while (s->type == avro::Type::kUnion) {
      ++depth;
      auto b = in.ReadLong();
      if (!b || *b < 0 || static_cast<size_t>(*b) >= s->branches.size()) return false;
      s = s->branches[static_cast<size_t>(*b)].get();
    }
    if (s->type == avro::Type::kNull) return true;
    if (s->type != avro::Type::kArray) return false;
    const avro::Schema& key_schema = *s->items->fields[0].schema;
    const avro::Schema& value_schema = *s->items->fields[1].schema;
    const bool bounds = k >= 4;
    // Blocks as avro's ReadBlocks reads them, with its checks.
    int64_t total = 0;
    for (;;) {
      auto count = in.ReadLong();
      if (!count) return false;
      if (*count == 0) return true;
      int64_t n = *count;
      if (n < 0) {
        if (n == INT64_MIN) return false;
        n = -n;
        auto block_bytes = in.ReadLong();
        if (!block_bytes || *block_bytes < 0 ||
            static_cast<uint64_t>(*block_bytes) > in.remaining()) {
          return false;
        }
      }
      if (static_cast<uint64_t>(n) > in.remaining() || total + n > (int64_t{1} << 26)) {
        return false;
      }
      total += n;
      // Iceberg's own shape, (int, long) or (int, bytes) without unions, read directly.
      if (key_schema.type == avro::Type::kInt &&
          value_schema.type == (bounds ? avro::Type::kBytes : avro::Type::kLong)) {
        for (int64_t i = 0; i < n; ++i) {
          auto key = in.ReadInt();
          if (!key) return false;
          if (bounds) {
            auto value = in.ReadBytes();
            if (!value) return false;
            (k == 4 ? lower_ : upper_).emplace_back(*key, *value);
          } else {
            auto value = in.ReadLong();
            if (!value) return false;
            counts_[k].emplace_back(*key, *value);
          }
        }
        continue;
      }
      for (int64_t i = 0; i < n; ++i) {
        auto key = ReadScalar(key_schema, in, depth + 2);
        if (!key || key->type != avro::Type::kInt) return false;
        auto value = ReadScalar(value_schema, in, depth + 2);
        if (!value) return false;
        const auto id = static_cast<int32_t>(key->number);
        if (bounds) {
          if (value->type != avro::Type::kBytes && value->type != avro::Type::kFixed) return false;
          (k == 4 ? lower_ : upper_).emplace_back(id, value->bytes);
        } else {
          if (value->type != avro::Type::kLong) return false;
          counts_[k].emplace_back(id, value->number);
        }
      }
    }
  }

  const EntryShape& shape_;
  const ManifestFile& list_entry_;
  const Type& partition_type_;
  const std::string& name_;
  std::vector<Slot> entry_slots_, file_slots_;
  // The current entry's parts; kept across entries so their storage is reused.
  ManifestEntryHead head_;
  std::string_view path_;
  Value partition_value_;
  std::vector<std::pair<int32_t, int64_t>> counts_[4];  // column sizes, values, nulls, NaNs
  std::vector<std::pair<int32_t, std::string_view>> lower_, upper_;
};

// First-row-id inheritance (spec: "First Row ID Inheritance"), one entry at a time in file order:
// a data file without a first_row_id in a manifest with one takes the manifest's next free id.
class FirstRowIds {
 public:
  explicit FirstRowIds(const ManifestFile& list_entry) : next_(list_entry.first_row_id) {}

  // The first row id of a data file of `record_count` rows written with `written`.
  std::optional<int64_t> Next(FileContent content, int64_t record_count,
                              std::optional<int64_t> written) {
    if (content != FileContent::kData) return std::nullopt;
    if (written || !next_) return written;
    const int64_t id = *next_;
    *next_ += record_count;
    return id;
  }

 private:
  std::optional<int64_t> next_;
};

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(const Buffer& bytes, const std::string& name,
                                                const ManifestFile& list_entry,
                                                const Type& partition_type) {
  FLOE_ASSIGN_OR_RETURN(avro::ContainerReader reader, avro::ContainerReader::Open(bytes, name));
  FLOE_ASSIGN_OR_RETURN(EntryShape shape, ShapeOf(*reader.schema(), name));
  FLOE_ASSIGN_OR_RETURN(std::vector<Value> values, reader.ReadAll());
  std::vector<ManifestEntry> out;
  out.reserve(values.size());
  FirstRowIds row_ids(list_entry);
  for (const Value& v : values) {
    FLOE_ASSIGN_OR_RETURN(ManifestEntry e, EntryOf(shape, v, list_entry, partition_type, name));
    e.file.first_row_id = row_ids.Next(e.file.content, e.file.record_count, e.file.first_row_id);
    out.push_back(std::move(e));
  }
  return out;
}

struct ManifestIndex::Row {
  uint32_t block = 0;   // in blocks_
  uint32_t offset = 0;  // of the entry's bytes in its block
  EntryStatus status = EntryStatus::kAdded;
  FileContent content = FileContent::kData;
  std::optional<int64_t> first_row_id;  // inherited as ReadManifest inherits it
  std::vector<Literal> partition;
  // Where the entry's pairs start in values_, nulls_, nans_, lower_, upper_ (the next row's
  // starts, or the ends, close them).
  std::array<uint32_t, 5> begin{};
};

ManifestIndex::ManifestIndex() = default;
ManifestIndex::~ManifestIndex() = default;
ManifestIndex::ManifestIndex(ManifestIndex&&) noexcept = default;
ManifestIndex& ManifestIndex::operator=(ManifestIndex&&) noexcept = default;

size_t ManifestIndex::size() const { return rows_.size(); }
EntryStatus ManifestIndex::status(size_t i) const { return rows_[i].status; }
FileContent ManifestIndex::content(size_t i) const { return rows_[i].content; }
const std::vector<Literal>& ManifestIndex::partition(size_t i) const { return rows_[i].partition; }

MetricsView ManifestIndex::metrics(size_t i) const {
  const Row& r = rows_[i];
  auto range = [&](const auto& pool, size_t k) {
    const size_t end = i + 1 < rows_.size() ? rows_[i + 1].begin[k] : pool.size();
    return std::span(pool.data() + r.begin[k], end - r.begin[k]);
  };
  return MetricsView{range(values_, 0), range(nulls_, 1), range(nans_, 2), range(lower_, 3),
                     range(upper_, 4)};
}

Result<ManifestEntry> ManifestIndex::Entry(size_t i) const {
  if (!read_in_place_) return entries_[i];
  const Row& r = rows_[i];
  avro::Decoder in(AsBytes(*blocks_[r.block]));
  in.Seek(r.offset);
  FLOE_ASSIGN_OR_RETURN(Value v, avro::DecodeValue(*schema_, in));
  const EntryShape shape{entry_schema_, data_file_schema_, partition_schema_};
  FLOE_ASSIGN_OR_RETURN(ManifestEntry e, EntryOf(shape, v, list_entry_, partition_type_, name_));
  e.file.first_row_id = r.first_row_id;
  return e;
}

void ManifestIndex::AddRow(uint32_t block, uint32_t offset, EntryStatus status, FileContent content,
                           std::optional<int64_t> first_row_id, std::vector<Literal> partition,
                           const MetricsView& m) {
  Row r{block,
        offset,
        status,
        content,
        first_row_id,
        std::move(partition),
        {static_cast<uint32_t>(values_.size()), static_cast<uint32_t>(nulls_.size()),
         static_cast<uint32_t>(nans_.size()), static_cast<uint32_t>(lower_.size()),
         static_cast<uint32_t>(upper_.size())}};
  values_.insert(values_.end(), m.value_counts.begin(), m.value_counts.end());
  nulls_.insert(nulls_.end(), m.null_value_counts.begin(), m.null_value_counts.end());
  nans_.insert(nans_.end(), m.nan_value_counts.begin(), m.nan_value_counts.end());
  lower_.insert(lower_.end(), m.lower_bounds.begin(), m.lower_bounds.end());
  upper_.insert(upper_.end(), m.upper_bounds.begin(), m.upper_bounds.end());
  rows_.push_back(std::move(r));
}

Result<ManifestIndex> IndexManifest(const Buffer& bytes, const std::string& name,
                                    const ManifestFile& list_entry, const Type& partition_type) {
  FLOE_ASSIGN_OR_RETURN(avro::ContainerReader reader, avro::ContainerReader::Open(bytes, name));
  FLOE_ASSIGN_OR_RETURN(EntryShape shape, ShapeOf(*reader.schema(), name));
  ManifestIndex index;
  index.schema_ = reader.schema();
  index.entry_schema_ = shape.entry;
  index.data_file_schema_ = shape.data_file;
  index.partition_schema_ = shape.partition;
  index.list_entry_ = list_entry;
  index.partition_type_ = partition_type;
  index.name_ = name;
  InPlaceReader in_place(shape, list_entry, partition_type, name);
  if (in_place.Prepare()) {
    FirstRowIds row_ids(list_entry);
    auto blocks = reader.ReadBlocks();
    bool whole = blocks.has_value();
    for (size_t b = 0; whole && b < blocks->size(); ++b) {
      auto& block = (*blocks)[b];
      index.blocks_.push_back(std::make_unique<std::string>(std::move(block.data)));
      avro::Decoder in(AsBytes(*index.blocks_.back()));
      for (int64_t i = 0; whole && i < block.count; ++i) {
        const size_t start = in.position();
        whole = in_place.ReadHead(in);
        if (whole) {
          ManifestEntryHead& h = in_place.head();
          index.AddRow(static_cast<uint32_t>(b), static_cast<uint32_t>(start), h.status, h.content,
                       row_ids.Next(h.content, h.record_count, h.first_row_id),
                       std::move(h.partition), h.metrics);
        }
      }
      if (in.remaining() != 0) whole = false;
    }
    if (whole) {
      index.read_in_place_ = true;
      return index;
    }
  }
  // The general reader: it names any error in the file (which the in-place reader only noticed)
  // and reads the shapes that reader leaves to it.
  FLOE_ASSIGN_OR_RETURN(index.entries_, ReadManifest(bytes, name, list_entry, partition_type));
  index.blocks_.clear();
  index.rows_.clear();
  index.values_.clear();
  index.nulls_.clear();
  index.nans_.clear();
  index.lower_.clear();
  index.upper_.clear();
  std::vector<std::pair<int32_t, int64_t>> values, nulls, nans;
  std::vector<std::pair<int32_t, std::string_view>> lower, upper;
  for (const ManifestEntry& e : index.entries_) {
    auto flat = [](const auto& m, auto& out) {
      out.clear();
      for (const auto& [k, v] : m) out.emplace_back(k, v);
    };
    flat(e.file.value_counts, values);
    flat(e.file.null_value_counts, nulls);
    flat(e.file.nan_value_counts, nans);
    flat(e.file.lower_bounds, lower);  // views into index.entries_, which no longer changes
    flat(e.file.upper_bounds, upper);
    index.AddRow(0, 0, e.status, e.file.content, e.file.first_row_id, e.file.partition,
                 MetricsView{values, nulls, nans, lower, upper});
  }
  return index;
}

Result<std::string> WriteManifestList(const ManifestListContext& ctx,
                                      const std::vector<ManifestFile>& manifests) {
  if (ctx.format_version < 2 || ctx.format_version > 3) {
    return Unsupported("writing format version {} manifest lists (floe writes v2 and v3)",
                       ctx.format_version);
  }
  const bool v3 = ctx.format_version >= 3;
  if (v3 && !ctx.first_row_id) return Internal("a v3 manifest list needs its first-row-id");
  std::vector<std::pair<std::string, std::string>> meta = {
      {"snapshot-id", std::to_string(ctx.snapshot_id)}};
  meta.emplace_back("parent-snapshot-id",
                    ctx.parent_snapshot_id ? std::to_string(*ctx.parent_snapshot_id) : "null");
  meta.emplace_back("sequence-number", std::to_string(ctx.sequence_number));
  if (v3) meta.emplace_back("first-row-id", std::to_string(*ctx.first_row_id));
  meta.emplace_back("format-version", std::to_string(ctx.format_version));
  avro::ContainerWriter w(ManifestListSchema(ctx.format_version), std::move(meta));
  for (const auto& m : manifests) {
    ArrayValue parts;
    for (const auto& s : m.partitions) {
      parts.items.emplace_back(RecordValue{{Value(s.contains_null),
                                            s.contains_nan ? Value(*s.contains_nan) : Value::Null(),
                                            OptBytes(s.lower_bound), OptBytes(s.upper_bound)}});
    }
    RecordValue row{{Value(m.manifest_path), Value(m.manifest_length), Value(m.partition_spec_id),
                     Value(static_cast<int32_t>(m.content)), Value(m.sequence_number),
                     Value(m.min_sequence_number), Value(m.added_snapshot_id),
                     Value(m.added_files_count), Value(m.existing_files_count),
                     Value(m.deleted_files_count), Value(m.added_rows_count),
                     Value(m.existing_rows_count), Value(m.deleted_rows_count),
                     Value(std::move(parts)), OptBytes(m.key_metadata)}};
    if (v3) {
      const bool data = m.content == ManifestContent::kData;
      if (data && !m.first_row_id) {
        return Internal("data manifest '{}' has no first_row_id in a v3 manifest list",
                        m.manifest_path);
      }
      row.fields.push_back(data ? Value(*m.first_row_id) : Value::Null());
    }
    FLOE_RETURN_IF_ERROR(w.Append(Value(std::move(row))));
  }
  return w.Finish();
}

Result<std::vector<ManifestFile>> ReadManifestList(const Buffer& bytes, const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(avro::ContainerReader reader, avro::ContainerReader::Open(bytes, name));
  const avro::Schema& s = *reader.schema();
  if (s.type != avro::Type::kRecord)
    return Corrupt("manifest list '{}' rows are not records", name);
  FLOE_ASSIGN_OR_RETURN(std::vector<Value> rows, reader.ReadAll());
  std::vector<ManifestFile> out;
  for (const Value& v : rows) {
    ManifestFile m;
    const Value* path = FieldById(s, v, 500);
    auto length = OptLong(s, v, 501);
    if (path == nullptr || !path->is<std::string>() || !length) {
      return Corrupt("manifest list '{}': row without manifest_path or manifest_length", name);
    }
    m.manifest_path = path->as<std::string>();
    m.manifest_length = *length;
    m.partition_spec_id = static_cast<int32_t>(OptLong(s, v, 502).value_or(0));
    m.content = static_cast<ManifestContent>(OptLong(s, v, 517).value_or(0));
    m.sequence_number = OptLong(s, v, 515).value_or(0);
    m.min_sequence_number = OptLong(s, v, 516).value_or(0);
    m.added_snapshot_id = OptLong(s, v, 503).value_or(0);
    m.added_files_count = static_cast<int32_t>(OptLong(s, v, 504).value_or(0));
    m.existing_files_count = static_cast<int32_t>(OptLong(s, v, 505).value_or(0));
    m.deleted_files_count = static_cast<int32_t>(OptLong(s, v, 506).value_or(0));
    m.added_rows_count = OptLong(s, v, 512).value_or(0);
    m.existing_rows_count = OptLong(s, v, 513).value_or(0);
    m.deleted_rows_count = OptLong(s, v, 514).value_or(0);
    const Value* parts = FieldById(s, v, 507);
    const avro::Schema* parts_schema = FieldSchemaById(s, 507);
    if (parts != nullptr && parts->is<ArrayValue>() && parts_schema != nullptr) {
      const avro::Schema& item = *Unwrap(*parts_schema).items;
      for (const auto& p : parts->as<ArrayValue>().items) {
        FieldSummary fs;
        if (const Value* x = FieldById(item, p, 509); x && x->is<bool>())
          fs.contains_null = x->as<bool>();
        if (const Value* x = FieldById(item, p, 518); x && x->is<bool>())
          fs.contains_nan = x->as<bool>();
        if (const Value* x = FieldById(item, p, 510); x && x->is<avro::BytesValue>()) {
          fs.lower_bound = x->as<avro::BytesValue>().data;
        }
        if (const Value* x = FieldById(item, p, 511); x && x->is<avro::BytesValue>()) {
          fs.upper_bound = x->as<avro::BytesValue>().data;
        }
        m.partitions.push_back(std::move(fs));
      }
    }
    if (m.content == ManifestContent::kData) m.first_row_id = OptLong(s, v, 520);
    if (const Value* km = FieldById(s, v, 519); km && km->is<avro::BytesValue>()) {
      m.key_metadata = km->as<avro::BytesValue>().data;
    }
    out.push_back(std::move(m));
  }
  return out;
}

int64_t AssignFirstRowIds(std::vector<ManifestFile>& manifests, int64_t next_row_id) {
  for (ManifestFile& m : manifests) {
    if (m.content != ManifestContent::kData || m.first_row_id) continue;
    m.first_row_id = next_row_id;
    next_row_id += m.added_rows_count + m.existing_rows_count;
  }
  return next_row_id;
}

std::vector<FieldSummary> SummarizePartitions(const Type& partition_type,
                                              const std::vector<ManifestEntry>& entries) {
  std::vector<FieldSummary> out(partition_type.fields.size());
  std::vector<std::optional<Literal>> lo(out.size()), hi(out.size());
  for (const auto& e : entries) {
    if (e.status == EntryStatus::kDeleted) continue;
    for (size_t i = 0; i < out.size() && i < e.file.partition.size(); ++i) {
      const Literal& v = e.file.partition[i];
      if (v.is_null()) {
        out[i].contains_null = true;
        continue;
      }
      bool is_nan = (v.type() == TypeId::kFloat && std::isnan(std::get<float>(v.storage()))) ||
                    (v.type() == TypeId::kDouble && std::isnan(std::get<double>(v.storage())));
      TypeId t = partition_type.fields[i].type->id;
      if (t == TypeId::kFloat || t == TypeId::kDouble)
        out[i].contains_nan = out[i].contains_nan.value_or(false) || is_nan;
      if (is_nan) continue;
      if (!lo[i] || Compare(v, *lo[i]) == std::partial_ordering::less) lo[i] = v;
      if (!hi[i] || Compare(v, *hi[i]) == std::partial_ordering::greater) hi[i] = v;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (lo[i]) out[i].lower_bound = SerializeBound(*lo[i]);
    if (hi[i]) out[i].upper_bound = SerializeBound(*hi[i]);
  }
  return out;
}

}  // namespace floe::iceberg
