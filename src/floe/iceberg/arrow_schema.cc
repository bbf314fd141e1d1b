#include "floe/iceberg/arrow_schema.h"

#include "floe/columnar/column_builder.h"

#include <cstring>

namespace floe::iceberg {

Result<columnar::DataType> ToColumnarType(const Type& t) {
  namespace c = floe::columnar;
  switch (t.id) {
    case TypeId::kBoolean:
      return c::Bool();
    case TypeId::kInt:
      return c::Int32();
    case TypeId::kLong:
      return c::Int64();
    case TypeId::kFloat:
      return c::Float32();
    case TypeId::kDouble:
      return c::Float64();
    case TypeId::kDecimal:
      return c::Decimal128(t.precision, t.scale);
    case TypeId::kDate:
      return c::Date32();
    case TypeId::kTime:
      return c::Time64(c::TimeUnit::kMicro);
    case TypeId::kTimestamp:
      return c::Timestamp(c::TimeUnit::kMicro);
    case TypeId::kTimestampTz:
      return c::Timestamp(c::TimeUnit::kMicro, "UTC");
    case TypeId::kTimestampNs:
      return c::Timestamp(c::TimeUnit::kNano);
    case TypeId::kTimestampTzNs:
      return c::Timestamp(c::TimeUnit::kNano, "UTC");
    case TypeId::kString:
      return c::String();
    case TypeId::kUuid:
      return c::FixedSizeBinary(16);
    case TypeId::kFixed:
      return c::FixedSizeBinary(t.length);
    case TypeId::kBinary:
      return c::Binary();
    case TypeId::kStruct: {
      std::vector<c::Field> fields;
      for (const auto& f : t.fields) {
        FLOE_ASSIGN_OR_RETURN(c::DataType ft, ToColumnarType(*f.type));
        fields.push_back(c::Field{f.name, std::move(ft), !f.required, f.id});
      }
      return c::Struct(std::move(fields));
    }
    case TypeId::kList: {
      FLOE_ASSIGN_OR_RETURN(c::DataType et, ToColumnarType(*t.element().type));
      return c::List(c::Field{"element", std::move(et), !t.element().required, t.element().id});
    }
    case TypeId::kMap: {
      FLOE_ASSIGN_OR_RETURN(c::DataType kt, ToColumnarType(*t.key().type));
      FLOE_ASSIGN_OR_RETURN(c::DataType vt, ToColumnarType(*t.value().type));
      return c::Map(c::Field{"key", std::move(kt), false, t.key().id},
                    c::Field{"value", std::move(vt), !t.value().required, t.value().id});
    }
  }
  return Unsupported("type {}", t.ToString());
}

Result<columnar::Schema> ToColumnarSchema(const Schema& schema) {
  columnar::Schema out;
  for (const auto& f : schema.fields()) {
    FLOE_ASSIGN_OR_RETURN(columnar::DataType t, ToColumnarType(*f.type));
    out.fields.push_back(columnar::Field{f.name, std::move(t), !f.required, f.id});
  }
  return out;
}

namespace {

Result<TypePtr> FromColumnarType(const columnar::DataType& t, const std::string& name,
                                 int32_t* next_id);

Result<NestedField> FromField(const columnar::Field& f, int32_t* next_id) {
  NestedField nf;
  nf.id = f.field_id >= 0 ? f.field_id : (*next_id)++;
  nf.name = f.name;
  nf.required = !f.nullable;
  FLOE_ASSIGN_OR_RETURN(nf.type, FromColumnarType(f.type, f.name, next_id));
  return nf;
}

Result<TypePtr> FromColumnarType(const columnar::DataType& t, const std::string& name,
                                 int32_t* next_id) {
  using columnar::TypeId;
  switch (t.id) {
    case TypeId::kBool:
      return Primitive(iceberg::TypeId::kBoolean);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
      return Primitive(iceberg::TypeId::kInt);
    case TypeId::kInt64:
    case TypeId::kUInt32:
      return Primitive(iceberg::TypeId::kLong);
    case TypeId::kFloat16:
    case TypeId::kFloat32:
      return Primitive(iceberg::TypeId::kFloat);
    case TypeId::kFloat64:
      return Primitive(iceberg::TypeId::kDouble);
    case TypeId::kDecimal128:
      return Decimal(t.precision, t.scale);
    case TypeId::kDate32:
      return Primitive(iceberg::TypeId::kDate);
    case TypeId::kTime64:
      return Primitive(iceberg::TypeId::kTime);
    case TypeId::kTimestamp:
      if (t.unit == columnar::TimeUnit::kNano) {
        return Primitive(t.timezone.empty() ? iceberg::TypeId::kTimestampNs
                                            : iceberg::TypeId::kTimestampTzNs);
      }
      return Primitive(t.timezone.empty() ? iceberg::TypeId::kTimestamp
                                          : iceberg::TypeId::kTimestampTz);
    case TypeId::kString:
      return Primitive(iceberg::TypeId::kString);
    case TypeId::kBinary:
      return Primitive(iceberg::TypeId::kBinary);
    case TypeId::kFixedSizeBinary:
      return Fixed(t.byte_width);
    case TypeId::kStruct: {
      std::vector<NestedField> fields;
      for (const auto& f : t.children) {
        FLOE_ASSIGN_OR_RETURN(NestedField nf, FromField(f, next_id));
        fields.push_back(std::move(nf));
      }
      return StructOf(std::move(fields));
    }
    case TypeId::kList: {
      const auto& item = t.children.at(0);
      int32_t id = item.field_id >= 0 ? item.field_id : (*next_id)++;
      FLOE_ASSIGN_OR_RETURN(TypePtr et, FromColumnarType(item.type, item.name, next_id));
      return ListOf(id, std::move(et), !item.nullable);
    }
    case TypeId::kMap: {
      const auto& kv = t.children.at(0).type.children;
      int32_t kid = kv.at(0).field_id >= 0 ? kv[0].field_id : (*next_id)++;
      int32_t vid = kv.at(1).field_id >= 0 ? kv[1].field_id : (*next_id)++;
      FLOE_ASSIGN_OR_RETURN(TypePtr kt, FromColumnarType(kv[0].type, "key", next_id));
      FLOE_ASSIGN_OR_RETURN(TypePtr vt, FromColumnarType(kv[1].type, "value", next_id));
      return MapOf(kid, std::move(kt), vid, std::move(vt), !kv[1].nullable);
    }
    default:
      return Unsupported("column '{}' of type {} has no Iceberg type", name, t.ToString());
  }
}

}  // namespace

Result<Schema> FromColumnarSchema(const columnar::Schema& schema, int32_t* next_id) {
  // Ids present in the input win; fresh ids start above the highest one.
  int32_t max_id = 0;
  auto visit = [&](auto&& self, const columnar::DataType& t) -> void {
    for (const auto& c : t.children) {
      max_id = std::max(max_id, c.field_id);
      self(self, c.type);
    }
  };
  for (const auto& f : schema.fields) {
    max_id = std::max(max_id, f.field_id);
    visit(visit, f.type);
  }
  *next_id = std::max(*next_id, max_id + 1);
  std::vector<NestedField> fields;
  for (const auto& f : schema.fields) {
    FLOE_ASSIGN_OR_RETURN(NestedField nf, FromField(f, next_id));
    fields.push_back(std::move(nf));
  }
  Schema s(0, std::move(fields));
  // Validate uniqueness of ids by a JSON round trip.
  FLOE_RETURN_IF_ERROR(Schema::FromJson(s.ToJson()));
  return s;
}

Result<Literal> LiteralAt(const columnar::Column& col, int64_t row, const Type& t) {
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

Result<columnar::ColumnPtr> LiteralColumn(const std::vector<Literal>& values, const Type& type) {
  FLOE_ASSIGN_OR_RETURN(columnar::DataType ct, ToColumnarType(type));
  const int64_t n = static_cast<int64_t>(values.size());
  auto fixed = [&](auto tag) -> Result<columnar::ColumnPtr> {
    using T = decltype(tag);
    columnar::FixedWidthBuilder<T> b(ct);
    for (const Literal& v : values) {
      if (v.is_null()) {
        b.AppendNull();
      } else if (const T* x = std::get_if<T>(&v.storage())) {
        b.Append(*x);
      } else {
        return Internal("a {} value in a {} column", v.ToString(), type.ToString());
      }
    }
    return b.Finish();
  };
  switch (type.id) {
    case TypeId::kInt:
    case TypeId::kDate:
      return fixed(int32_t{});
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return fixed(int64_t{});
    case TypeId::kFloat:
      return fixed(float{});
    case TypeId::kDouble:
      return fixed(double{});
    case TypeId::kBoolean: {
      columnar::BoolBuilder b;
      for (const Literal& v : values) {
        if (v.is_null()) {
          b.AppendNull();
        } else {
          b.Append(std::get<bool>(v.storage()));
        }
      }
      return b.Finish();
    }
    case TypeId::kDecimal: {
      columnar::FixedWidthBuilder<__int128> b(ct);
      for (const Literal& v : values) {
        if (v.is_null()) {
          b.AppendNull();
        } else {
          b.Append(v.AsDecimal().unscaled);
        }
      }
      return b.Finish();
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      columnar::BinaryBuilder b(ct);
      for (const Literal& v : values) {
        if (v.is_null()) {
          b.AppendNull();
        } else {
          FLOE_RETURN_IF_ERROR(b.Append(type.id == TypeId::kString ? v.AsString() : v.AsBytes()));
        }
      }
      return b.Finish();
    }
    default:
      (void)n;
      return Unsupported("a column of {} values", type.ToString());
  }
}

}  // namespace floe::iceberg
