#include "floe/columnar/arrow_c_data.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace floe::columnar {
namespace {

// --- schema ---

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* s) {
  if (s == nullptr || s->release == nullptr) return;
  auto* priv = static_cast<SchemaPrivate*>(s->private_data);
  for (ArrowSchema* child : priv->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete priv;
  s->release = nullptr;
}

std::string_view UnitChar(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMilli:
      return "m";
    case TimeUnit::kMicro:
      return "u";
    case TimeUnit::kNano:
      return "n";
  }
  return "u";
}

// --- array ---

struct ArrayPrivate {
  ColumnPtr column;            // keeps the buffers alive
  std::vector<Buffer> copies;  // realigned or synthesised buffers
  std::vector<const void*> buffers;
  std::vector<ArrowArray*> children;
};

void ReleaseArray(ArrowArray* a) {
  if (a == nullptr || a->release == nullptr) return;
  auto* priv = static_cast<ArrayPrivate*>(a->private_data);
  for (ArrowArray* child : priv->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete priv;
  a->release = nullptr;
}

const void* Aligned(const Buffer& b, ArrayPrivate* priv) {
  if (b.empty()) return nullptr;
  if (reinterpret_cast<uintptr_t>(b.data()) % 8 == 0) return b.data();
  priv->copies.push_back(Buffer::Copy(b.view()));
  return priv->copies.back().data();
}

// A zero offsets buffer for empty binary/list columns built without one.
const void* OffsetsOrZero(const Column& c, ArrayPrivate* priv) {
  if (!c.offsets.empty()) return Aligned(c.offsets, priv);
  priv->copies.emplace_back(std::vector<uint8_t>(4, 0));
  return priv->copies.back().data();
}

Status FillArray(const ColumnPtr& column, ArrowArray* out);

Status FillChildren(const std::vector<ColumnPtr>& children, ArrayPrivate* priv, ArrowArray* out) {
  for (const auto& child : children) {
    auto* c = new ArrowArray{};
    priv->children.push_back(c);
    FLOE_RETURN_IF_ERROR(FillArray(child, c));
  }
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->children = priv->children.empty() ? nullptr : priv->children.data();
  return {};
}

Status FillArray(const ColumnPtr& column, ArrowArray* out) {
  const Column& c = *column;
  auto* priv = new ArrayPrivate{};
  priv->column = column;
  *out = ArrowArray{};
  out->length = c.length;
  out->null_count = c.null_count;
  out->offset = 0;
  out->private_data = priv;
  out->release = ReleaseArray;
  const void* validity = c.null_count > 0 ? Aligned(c.validity, priv) : nullptr;
  switch (c.type.id) {
    case TypeId::kNull:
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      priv->buffers = {validity, OffsetsOrZero(c, priv), Aligned(c.values, priv)};
      break;
    case TypeId::kList:
    case TypeId::kMap:
      priv->buffers = {validity, OffsetsOrZero(c, priv)};
      FLOE_RETURN_IF_ERROR(FillChildren(c.children, priv, out));
      break;
    case TypeId::kStruct:
      priv->buffers = {validity};
      FLOE_RETURN_IF_ERROR(FillChildren(c.children, priv, out));
      break;
    default:
      priv->buffers = {validity, Aligned(c.values, priv)};
      break;
  }
  out->n_buffers = static_cast<int64_t>(priv->buffers.size());
  out->buffers = priv->buffers.empty() ? nullptr : priv->buffers.data();
  return {};
}

}  // namespace

Result<std::string> ArrowFormat(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull:
      return "n";
    case TypeId::kBool:
      return "b";
    case TypeId::kInt8:
      return "c";
    case TypeId::kUInt8:
      return "C";
    case TypeId::kInt16:
      return "s";
    case TypeId::kUInt16:
      return "S";
    case TypeId::kInt32:
      return "i";
    case TypeId::kUInt32:
      return "I";
    case TypeId::kInt64:
      return "l";
    case TypeId::kUInt64:
      return "L";
    case TypeId::kFloat16:
      return "e";
    case TypeId::kFloat32:
      return "f";
    case TypeId::kFloat64:
      return "g";
    case TypeId::kDecimal128:
      return fmt::format("d:{},{}", t.precision, t.scale);
    case TypeId::kDate32:
      return "tdD";
    case TypeId::kTime64:
      if (t.unit == TimeUnit::kMilli) return "ttm";  // time32[ms] would need 4-byte values
      return fmt::format("tt{}", UnitChar(t.unit));
    case TypeId::kTimestamp:
      return fmt::format("ts{}:{}", UnitChar(t.unit), t.timezone);
    case TypeId::kString:
      return "u";
    case TypeId::kBinary:
      return "z";
    case TypeId::kFixedSizeBinary:
      return fmt::format("w:{}", t.byte_width);
    case TypeId::kList:
      return "+l";
    case TypeId::kStruct:
      return "+s";
    case TypeId::kMap:
      return "+m";
  }
  return Unsupported("type {} has no Arrow C format", t.ToString());
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (field.type.id == TypeId::kTime64 && field.type.unit == TimeUnit::kMilli) {
    return Unsupported("time64[ms] column '{}' cannot be exported (Arrow uses time32 for ms)",
                       field.name);
  }
  FLOE_ASSIGN_OR_RETURN(std::string format, ArrowFormat(field.type));
  auto priv = std::make_unique<SchemaPrivate>();
  priv->format = std::move(format);
  priv->name = field.name;
  for (const Field& child : field.type.children) {
    auto c = std::make_unique<ArrowSchema>();
    if (auto s = ExportField(child, c.get()); !s) {
      for (ArrowSchema* done : priv->children) {
        done->release(done);
        delete done;
      }
      return s;
    }
    priv->children.push_back(c.release());
  }
  *out = ArrowSchema{};
  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = nullptr;
  out->flags = field.nullable ? ARROW_FLAG_NULLABLE : 0;
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->children = priv->children.empty() ? nullptr : priv->children.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = priv.release();
  return {};
}

Status ExportColumn(const ColumnPtr& column, ArrowArray* out) {
  FLOE_RETURN_IF_ERROR(column->Validate());
  auto s = FillArray(column, out);
  if (!s) ReleaseArray(out);
  return s;
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  return ExportField(Field{"", Struct(schema.fields), false, -1}, out);
}

Status ExportBatch(const RecordBatch& batch, ArrowArray* out) {
  FLOE_RETURN_IF_ERROR(batch.Validate());
  auto root = std::make_shared<Column>();
  root->type = Struct(batch.schema->fields);
  root->length = batch.num_rows;
  root->children = batch.columns;
  auto s = FillArray(root, out);
  if (!s) ReleaseArray(out);
  return s;
}

}  // namespace floe::columnar
