#include "floe/iceberg/transform_column.h"

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/murmur3.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

// A literal of `type` (int, date: 32 bits; long, time, timestamps: 64) holding `v`.
bool IsInteger(TypeId t) {
  return t == TypeId::kInt || t == TypeId::kDate || t == TypeId::kLong || t == TypeId::kTime ||
         t == TypeId::kTimestamp || t == TypeId::kTimestampTz || t == TypeId::kTimestampNs ||
         t == TypeId::kTimestampTzNs;
}

// A column of `result` (32 or 64 bits wide) with `source`'s nulls, row r's value made by
// value(r), which returns the transformed value (never called for a null row).
template <typename Fn>
Result<c::ColumnPtr> IntegerColumn(const c::Column& source, const Type& result, Fn value) {
  FLOE_ASSIGN_OR_RETURN(c::DataType type, ToColumnarType(result));
  const int width = type.FixedWidth();
  if (width != 4 && width != 8) return Internal("a transform result of {} bytes", width);
  auto col = std::make_shared<c::Column>();
  col->type = type;
  col->length = source.length;
  col->null_count = source.null_count;
  col->validity = source.validity;
  ByteVector out(static_cast<size_t>(source.length) * static_cast<size_t>(width));
  for (int64_t r = 0; r < source.length; ++r) {
    int64_t v = 0;
    if (source.IsValid(r)) {
      FLOE_ASSIGN_OR_RETURN(v, value(r));
    }
    if (width == 4) {
      const auto v32 = static_cast<int32_t>(v);
      std::memcpy(out.data() + r * 4, &v32, 4);
    } else {
      std::memcpy(out.data() + r * 8, &v, 8);
    }
  }
  col->values = Buffer(std::move(out));
  return c::ColumnPtr(col);
}

}  // namespace

Result<columnar::ColumnPtr> TransformColumn(const Transform& transform,
                                            const columnar::ColumnPtr& source,
                                            const Type& source_type) {
  if (transform.kind == TransformKind::kIdentity) return source;
  FLOE_ASSIGN_OR_RETURN(TypePtr result, transform.ResultType(source_type));
  const TypeId id = source_type.id;
  // Integers (and dates, times, timestamps) straight from their values, the transform applied to
  // a literal on the stack: no literal column in between.
  if (transform.kind != TransformKind::kVoid && IsInteger(id) &&
      (source->type.FixedWidth() == 4 || source->type.FixedWidth() == 8)) {
    const bool narrow = source->type.FixedWidth() == 4;
    return IntegerColumn(*source, *result, [&](int64_t r) -> Result<int64_t> {
      const int64_t raw = narrow ? source->Value<int32_t>(r) : source->Value<int64_t>(r);
      std::optional<Literal> v = Literal::OfInteger(id, raw);
      if (!v) return Corrupt("partition source value {} out of range for its type", raw);
      FLOE_ASSIGN_OR_RETURN(Literal t, transform.Apply(*v));
      return t.type() == TypeId::kLong ? t.AsLong() : int64_t{t.AsInt()};
    });
  }
  // Strings and binaries bucketed by the hash of their bytes.
  if (transform.kind == TransformKind::kBucket && transform.param > 0 &&
      (id == TypeId::kString || id == TypeId::kBinary) && source->type.IsBinaryLike()) {
    return IntegerColumn(*source, *result, [&](int64_t r) -> Result<int64_t> {
      return (Murmur3Hash32(source->BytesAt(r)) & 0x7FFFFFFF) % transform.param;
    });
  }
  std::vector<Literal> values;
  values.reserve(static_cast<size_t>(source->length));
  for (int64_t r = 0; r < source->length; ++r) {
    FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(*source, r, source_type));
    FLOE_ASSIGN_OR_RETURN(Literal t, transform.Apply(v));
    values.push_back(std::move(t));
  }
  return LiteralColumn(values, *result);
}

}  // namespace floe::iceberg
