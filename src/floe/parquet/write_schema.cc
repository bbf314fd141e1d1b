#include "floe/parquet/write_schema.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace floe::parquet {

namespace {

using columnar::TypeId;

struct Mapping {
  PhysicalType type = PhysicalType::kInt64;
  std::optional<int32_t> type_length;
  std::optional<LogicalType> logical;
  std::optional<ConvertedType> converted;
  ValueConversion conversion = ValueConversion::kInt64;
};

LogicalType::TimeUnit UnitOf(columnar::TimeUnit u) {
  switch (u) {
    case columnar::TimeUnit::kMilli:
      return LogicalType::TimeUnit::kMillis;
    case columnar::TimeUnit::kMicro:
      return LogicalType::TimeUnit::kMicros;
    case columnar::TimeUnit::kNano:
      return LogicalType::TimeUnit::kNanos;
  }
  return LogicalType::TimeUnit::kMicros;
}

Result<Mapping> MapType(const columnar::Field& field, const std::string& path, bool is_uuid) {
  const columnar::DataType& t = field.type;
  Mapping m;
  auto integer = [&](PhysicalType p, int8_t bits, bool is_signed, ConvertedType c,
                     ValueConversion conv) {
    m.type = p;
    m.logical = LogicalType::Integer(bits, is_signed);
    m.converted = c;
    m.conversion = conv;
    return m;
  };
  switch (t.id) {
    case TypeId::kBool:
      m.type = PhysicalType::kBoolean;
      m.conversion = ValueConversion::kBool;
      return m;
    case TypeId::kInt8:
      return integer(PhysicalType::kInt32, 8, true, ConvertedType::kInt8,
                     ValueConversion::kInt8ToInt32);
    case TypeId::kInt16:
      return integer(PhysicalType::kInt32, 16, true, ConvertedType::kInt16,
                     ValueConversion::kInt16ToInt32);
    case TypeId::kInt32:
      m.type = PhysicalType::kInt32;
      m.conversion = ValueConversion::kInt32;
      return m;
    case TypeId::kInt64:
      m.type = PhysicalType::kInt64;
      m.conversion = ValueConversion::kInt64;
      return m;
    case TypeId::kUInt8:
      return integer(PhysicalType::kInt32, 8, false, ConvertedType::kUint8,
                     ValueConversion::kUInt8ToInt32);
    case TypeId::kUInt16:
      return integer(PhysicalType::kInt32, 16, false, ConvertedType::kUint16,
                     ValueConversion::kUInt16ToInt32);
    case TypeId::kUInt32:
      return integer(PhysicalType::kInt32, 32, false, ConvertedType::kUint32,
                     ValueConversion::kUInt32ToInt32);
    case TypeId::kUInt64:
      return integer(PhysicalType::kInt64, 64, false, ConvertedType::kUint64,
                     ValueConversion::kUInt64ToInt64);
    case TypeId::kFloat32:
      m.type = PhysicalType::kFloat;
      m.conversion = ValueConversion::kFloat;
      return m;
    case TypeId::kFloat64:
      m.type = PhysicalType::kDouble;
      m.conversion = ValueConversion::kDouble;
      return m;
    case TypeId::kDecimal128: {
      if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
        return InvalidInput(
            "column '{}': {} is not a valid decimal (precision 1..38, scale "
            "0..precision)",
            path, t.ToString());
      }
      m.logical = LogicalType::Decimal(t.precision, t.scale);
      m.converted = ConvertedType::kDecimal;
      if (t.precision <= 9) {
        m.type = PhysicalType::kInt32;
        m.conversion = ValueConversion::kDecimalToInt32;
      } else if (t.precision <= 18) {
        m.type = PhysicalType::kInt64;
        m.conversion = ValueConversion::kDecimalToInt64;
      } else {
        m.type = PhysicalType::kFixedLenByteArray;
        m.type_length = DecimalFixedLength(t.precision);
        m.conversion = ValueConversion::kDecimalToFixed;
      }
      return m;
    }
    case TypeId::kDate32:
      m.type = PhysicalType::kInt32;
      m.logical = LogicalType::Of(LogicalType::Kind::kDate);
      m.converted = ConvertedType::kDate;
      m.conversion = ValueConversion::kInt32;
      return m;
    case TypeId::kTime64:
      if (t.unit == columnar::TimeUnit::kMilli) {
        return Unsupported("column '{}': {} (time in milliseconds is 32-bit in Parquet)", path,
                           t.ToString());
      }
      m.type = PhysicalType::kInt64;
      m.logical = LogicalType::Time(false, UnitOf(t.unit));
      if (t.unit == columnar::TimeUnit::kMicro) m.converted = ConvertedType::kTimeMicros;
      m.conversion = ValueConversion::kInt64;
      return m;
    case TypeId::kTimestamp:
      m.type = PhysicalType::kInt64;
      m.logical = LogicalType::Timestamp(!t.timezone.empty(), UnitOf(t.unit));
      if (t.unit == columnar::TimeUnit::kMicro) m.converted = ConvertedType::kTimestampMicros;
      if (t.unit == columnar::TimeUnit::kMilli) m.converted = ConvertedType::kTimestampMillis;
      m.conversion = ValueConversion::kInt64;
      return m;
    case TypeId::kString:
      m.type = PhysicalType::kByteArray;
      m.logical = LogicalType::Of(LogicalType::Kind::kString);
      m.converted = ConvertedType::kUtf8;
      m.conversion = ValueConversion::kByteArray;
      return m;
    case TypeId::kBinary:
      m.type = PhysicalType::kByteArray;
      m.conversion = ValueConversion::kByteArray;
      return m;
    case TypeId::kFixedSizeBinary:
      if (t.byte_width <= 0) {
        return InvalidInput("column '{}': fixed_size_binary needs a positive width, not {}", path,
                            t.byte_width);
      }
      m.type = PhysicalType::kFixedLenByteArray;
      m.type_length = t.byte_width;
      if (is_uuid) {
        if (t.byte_width != 16) {
          return InvalidInput("column '{}': a uuid is 16 bytes, not {}", path, t.byte_width);
        }
        m.logical = LogicalType::Of(LogicalType::Kind::kUuid);
      }
      m.conversion = ValueConversion::kFixed;
      return m;
    case TypeId::kList:
    case TypeId::kStruct:
    case TypeId::kMap:
      return Internal("column '{}': MapType of a nested type", path);
    case TypeId::kNull:
    case TypeId::kFloat16:
      break;
  }
  return Unsupported("column '{}': writing {} to Parquet", path, t.ToString());
}

}  // namespace

std::string LeafColumn::dotted_path() const {
  std::string out;
  for (const auto& p : path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

int32_t DecimalFixedLength(int32_t precision) {
  // The smallest n with 10^precision - 1 <= 2^(8n - 1) - 1.
  for (int32_t n = 1; n < 16; ++n) {
    if (static_cast<long double>(precision) * std::log2(10.0L) <= 8.0L * n - 1) return n;
  }
  return 16;
}

namespace {

// Appends the elements of `f` (and of everything under it) and its leaves. `def`/`rep` are the
// levels of the parent; `child_path` the child indices from the top-level column to `f`.
Status AddField(const columnar::Field& f, const std::string& name, bool nullable,
                std::vector<std::string> path, std::vector<int> child_path, int top_index,
                int16_t def, int16_t rep, std::span<const int32_t> uuid_field_ids,
                WriteSchema* out) {
  path.push_back(name);
  const std::string dotted = fmt::format("{}", fmt::join(path, "."));
  SchemaElement e;
  e.name = name;
  e.repetition_type = nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired;
  if (f.field_id >= 0) e.field_id = f.field_id;
  if (nullable) ++def;
  const columnar::DataType& t = f.type;
  switch (t.id) {
    case TypeId::kStruct: {
      if (t.children.empty()) {
        return Unsupported("column '{}': a struct without fields (Parquet has no empty group)",
                           dotted);
      }
      e.num_children = static_cast<int32_t>(t.children.size());
      out->elements.push_back(e);
      for (size_t k = 0; k < t.children.size(); ++k) {
        const columnar::Field& c = t.children[k];
        if (c.name.empty())
          return InvalidInput("column '{}': field {} has an empty name", dotted, k);
        for (size_t j = 0; j < k; ++j) {
          if (t.children[j].name == c.name) {
            return InvalidInput("column '{}': field name '{}' appears twice", dotted, c.name);
          }
        }
        std::vector<int> cp = child_path;
        cp.push_back(static_cast<int>(k));
        FLOE_RETURN_IF_ERROR(AddField(c, c.name, c.nullable, path, std::move(cp), top_index, def,
                                      rep, uuid_field_ids, out));
      }
      return {};
    }
    case TypeId::kList: {
      // The LogicalTypes spec's three levels: <name> (LIST) { repeated group list { element } }.
      if (t.children.size() != 1) return InvalidInput("column '{}': a list has one child", dotted);
      e.num_children = 1;
      e.logical_type = LogicalType::Of(LogicalType::Kind::kList);
      e.converted_type = ConvertedType::kList;
      out->elements.push_back(e);
      SchemaElement r;
      r.name = "list";
      r.repetition_type = FieldRepetitionType::kRepeated;
      r.num_children = 1;
      out->elements.push_back(r);
      path.emplace_back("list");
      child_path.push_back(0);
      const columnar::Field& c = t.children[0];
      return AddField(c, "element", c.nullable, std::move(path), std::move(child_path), top_index,
                      static_cast<int16_t>(def + 1), static_cast<int16_t>(rep + 1), uuid_field_ids,
                      out);
    }
    case TypeId::kMap: {
      // <name> (MAP) { repeated group key_value { required key; value } }.
      if (t.children.size() != 1 || t.children[0].type.id != TypeId::kStruct ||
          t.children[0].type.children.size() != 2) {
        return InvalidInput("column '{}': a map has one struct<key, value> child", dotted);
      }
      const columnar::Field& key = t.children[0].type.children[0];
      const columnar::Field& value = t.children[0].type.children[1];
      e.num_children = 1;
      e.logical_type = LogicalType::Of(LogicalType::Kind::kMap);
      e.converted_type = ConvertedType::kMap;
      out->elements.push_back(e);
      SchemaElement r;
      r.name = "key_value";
      r.repetition_type = FieldRepetitionType::kRepeated;
      r.num_children = 2;
      out->elements.push_back(r);
      path.emplace_back("key_value");
      const auto d = static_cast<int16_t>(def + 1);
      const auto rr = static_cast<int16_t>(rep + 1);
      std::vector<int> kp = child_path, vp = child_path;
      kp.insert(kp.end(), {0, 0});
      vp.insert(vp.end(), {0, 1});
      FLOE_RETURN_IF_ERROR(
          AddField(key, "key", false, path, std::move(kp), top_index, d, rr, uuid_field_ids, out));
      return AddField(value, "value", value.nullable, std::move(path), std::move(vp), top_index, d,
                      rr, uuid_field_ids, out);
    }
    default:
      break;
  }
  const bool is_uuid = f.field_id >= 0 && std::find(uuid_field_ids.begin(), uuid_field_ids.end(),
                                                    f.field_id) != uuid_field_ids.end();
  FLOE_ASSIGN_OR_RETURN(Mapping m, MapType(f, dotted, is_uuid));
  e.type = m.type;
  e.type_length = m.type_length;
  e.converted_type = m.converted;
  e.logical_type = m.logical;
  if (m.logical && m.logical->kind == LogicalType::Kind::kDecimal) {
    e.precision = m.logical->precision;
    e.scale = m.logical->scale;
  }
  out->elements.push_back(e);

  LeafColumn leaf;
  leaf.path = std::move(path);
  leaf.top_level_index = top_index;
  leaf.child_path = std::move(child_path);
  leaf.field_id = f.field_id;
  leaf.element = e;
  leaf.max_definition_level = def;
  leaf.max_repetition_level = rep;
  leaf.conversion = m.conversion;
  leaf.source_type = f.type;
  out->leaves.push_back(std::move(leaf));
  return {};
}

}  // namespace

Result<WriteSchema> MakeWriteSchema(const columnar::Schema& schema,
                                    std::span<const int32_t> uuid_field_ids) {
  WriteSchema out;
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema.num_fields();
  out.elements.push_back(root);
  for (int i = 0; i < schema.num_fields(); ++i) {
    const columnar::Field& f = schema.fields[static_cast<size_t>(i)];
    if (f.name.empty()) return InvalidInput("column {} has an empty name", i);
    for (int j = 0; j < i; ++j) {
      if (schema.fields[static_cast<size_t>(j)].name == f.name) {
        return InvalidInput("column name '{}' appears twice", f.name);
      }
    }
    FLOE_RETURN_IF_ERROR(AddField(f, f.name, f.nullable, {}, {}, i, 0, 0, uuid_field_ids, &out));
  }
  return out;
}

}  // namespace floe::parquet
