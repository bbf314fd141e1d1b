#include "floe/iceberg/schema_conform.h"

#include <cstring>
#include <optional>
#include <vector>

#include "floe/base/calendar.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

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
        // Only the nulls a reader sees count: a struct's child is null where the struct is (a
        // null list's range, if any, holds nothing visible either).
        int64_t visible = 0;
        if (want.id == T::kStruct) {
          for (int64_t r = 0; r < col->length; ++r) {
            visible += col->IsValid(r) && conformed->IsNull(r);
          }
        } else {
          const int32_t* offsets = col->Offsets();
          for (int64_t r = 0; r < col->length; ++r) {
            if (!col->IsValid(r)) continue;
            for (int32_t k = offsets[r]; k < offsets[r + 1]; ++k) visible += conformed->IsNull(k);
          }
        }
        if (visible > 0) {
          return InvalidInput("column '{}' is required but the input has {} nulls", child, visible);
        }
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

}  // namespace

Result<c::RecordBatch> ConformToSchema(const c::RecordBatch& batch, const Schema& schema,
                                       bool by_field_id) {
  FLOE_ASSIGN_OR_RETURN(c::Schema want, ToColumnarSchema(schema));
  c::RecordBatch out;
  out.num_rows = batch.num_rows;
  out.schema = std::make_shared<c::Schema>(want);
  for (const auto& f : want.fields) {
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

}  // namespace floe::iceberg
