#include "floe/columnar/arrow_c_data.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "floe/columnar/take.h"

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

// --- import ---

namespace {

// How an imported column's values differ from floe's layout of its type.
enum class Conversion {
  kNone,
  kLargeOffsets,  // "U", "Z", "+L": 64-bit offsets
  kView,          // "vu", "vz": 16-byte views over variadic buffers
  kDate64,        // "tdm": int64 milliseconds -> int32 days
  kTime32Second,  // "tts": int32 seconds -> int64 microseconds
  kTime32Milli,   // "ttm": int32 milliseconds -> int64 microseconds
  kSeconds,       // "tss": int64 seconds -> microseconds
};

struct ImportedType {
  DataType type;
  Conversion conversion = Conversion::kNone;
};

std::string FieldName(const ArrowSchema& s) { return s.name != nullptr ? s.name : ""; }

std::optional<int32_t> ParseInt(std::string_view text) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The key-value metadata of the interface: int32 count, then int32-length-prefixed key and value.
std::optional<int32_t> FieldIdFromMetadata(const char* metadata) {
  if (metadata == nullptr) return std::nullopt;
  auto read_int = [&](const char*& p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    p += 4;
    return v;
  };
  const char* p = metadata;
  int32_t n = read_int(p);
  for (int32_t i = 0; i < n; ++i) {
    int32_t key_len = read_int(p);
    if (key_len < 0) return std::nullopt;
    std::string_view key(p, static_cast<size_t>(key_len));
    p += key_len;
    int32_t value_len = read_int(p);
    if (value_len < 0) return std::nullopt;
    std::string_view value(p, static_cast<size_t>(value_len));
    p += value_len;
    if (key == "PARQUET:field_id") return ParseInt(value);
  }
  return std::nullopt;
}

Result<ImportedType> ImportType(const ArrowSchema& s);

Result<std::vector<Field>> ImportChildren(const ArrowSchema& s) {
  std::vector<Field> out;
  for (int64_t i = 0; i < s.n_children; ++i) {
    if (s.children == nullptr || s.children[i] == nullptr) {
      return InvalidInput("Arrow field '{}' lists {} children but gives no child {}", FieldName(s),
                          s.n_children, i);
    }
    FLOE_ASSIGN_OR_RETURN(Field f, ImportField(*s.children[i]));
    out.push_back(std::move(f));
  }
  return out;
}

Result<ImportedType> ImportType(const ArrowSchema& s) {
  if (s.format == nullptr) return InvalidInput("Arrow field '{}' has no format", FieldName(s));
  std::string_view f = s.format;
  auto unsupported = [&]() -> std::unexpected<Error> {
    return Unsupported("column '{}': Arrow type '{}' has no floe column type", FieldName(s), f);
  };
  if (f.size() == 1) {
    switch (f[0]) {
      case 'n':
        return ImportedType{DataType{}};
      case 'b':
        return ImportedType{Bool()};
      case 'c':
        return ImportedType{Int8()};
      case 'C':
        return ImportedType{UInt8()};
      case 's':
        return ImportedType{Int16()};
      case 'S':
        return ImportedType{UInt16()};
      case 'i':
        return ImportedType{Int32()};
      case 'I':
        return ImportedType{UInt32()};
      case 'l':
        return ImportedType{Int64()};
      case 'L':
        return ImportedType{UInt64()};
      case 'e':
        return ImportedType{Float16()};
      case 'f':
        return ImportedType{Float32()};
      case 'g':
        return ImportedType{Float64()};
      case 'u':
        return ImportedType{String()};
      case 'z':
        return ImportedType{Binary()};
      case 'U':
        return ImportedType{String(), Conversion::kLargeOffsets};
      case 'Z':
        return ImportedType{Binary(), Conversion::kLargeOffsets};
      default:
        return unsupported();
    }
  }
  if (f == "vu") return ImportedType{String(), Conversion::kView};
  if (f == "vz") return ImportedType{Binary(), Conversion::kView};
  if (f.starts_with("d:")) {
    std::string_view rest = f.substr(2);
    size_t c1 = rest.find(',');
    if (c1 == std::string_view::npos) return unsupported();
    size_t c2 = rest.find(',', c1 + 1);
    auto precision = ParseInt(rest.substr(0, c1));
    auto scale = ParseInt(rest.substr(c1 + 1, c2 == std::string_view::npos ? c2 : c2 - c1 - 1));
    if (!precision || !scale) return unsupported();
    if (c2 != std::string_view::npos && rest.substr(c2 + 1) != "128") return unsupported();
    return ImportedType{Decimal128(*precision, *scale)};
  }
  if (f.starts_with("w:")) {
    auto width = ParseInt(f.substr(2));
    if (!width || *width <= 0) return unsupported();
    return ImportedType{FixedSizeBinary(*width)};
  }
  if (f == "tdD") return ImportedType{Date32()};
  if (f == "tdm") return ImportedType{Date32(), Conversion::kDate64};
  if (f == "tts") return ImportedType{Time64(TimeUnit::kMicro), Conversion::kTime32Second};
  if (f == "ttm") return ImportedType{Time64(TimeUnit::kMicro), Conversion::kTime32Milli};
  if (f == "ttu") return ImportedType{Time64(TimeUnit::kMicro)};
  if (f == "ttn") return ImportedType{Time64(TimeUnit::kNano)};
  if (f.size() >= 4 && f.starts_with("ts") && f[3] == ':') {
    std::string tz = f.size() > 4 ? "UTC" : "";
    switch (f[2]) {
      case 's':
        return ImportedType{Timestamp(TimeUnit::kMicro, tz), Conversion::kSeconds};
      case 'm':
        return ImportedType{Timestamp(TimeUnit::kMilli, tz)};
      case 'u':
        return ImportedType{Timestamp(TimeUnit::kMicro, tz)};
      case 'n':
        return ImportedType{Timestamp(TimeUnit::kNano, tz)};
      default:
        return unsupported();
    }
  }
  if (f == "+l" || f == "+L") {
    FLOE_ASSIGN_OR_RETURN(auto children, ImportChildren(s));
    if (children.size() != 1) return InvalidInput("list column '{}' needs one child", FieldName(s));
    return ImportedType{List(std::move(children[0])),
                        f == "+L" ? Conversion::kLargeOffsets : Conversion::kNone};
  }
  if (f == "+s") {
    FLOE_ASSIGN_OR_RETURN(auto children, ImportChildren(s));
    return ImportedType{Struct(std::move(children))};
  }
  if (f == "+m") {
    FLOE_ASSIGN_OR_RETURN(auto children, ImportChildren(s));
    if (children.size() != 1 || children[0].type.id != TypeId::kStruct ||
        children[0].type.children.size() != 2) {
      return InvalidInput("map column '{}' needs one struct<key, value> child", FieldName(s));
    }
    const auto& kv = children[0].type.children;
    return ImportedType{Map(kv[0], kv[1])};
  }
  return unsupported();
}

// --- arrays ---

// Owns an imported array until the last buffer using it goes.
struct ForeignArray {
  ArrowArray array{};
  ForeignArray() = default;
  ForeignArray(const ForeignArray&) = delete;
  ForeignArray& operator=(const ForeignArray&) = delete;
  ~ForeignArray() {
    if (array.release != nullptr) array.release(&array);
  }
};
using ForeignPtr = std::shared_ptr<const ForeignArray>;

Buffer Foreign(const void* data, size_t size, const ForeignPtr& owner) {
  if (data == nullptr || size == 0) return {};
  return Buffer::Wrap(static_cast<const uint8_t*>(data), size, owner);
}

// `length` bits of `bits` from bit `offset`, as a bitmap starting at bit 0: in place when the
// offset is whole bytes, else copied.
Buffer Bits(const void* bits, int64_t offset, int64_t length, const ForeignPtr& owner) {
  const auto* b = static_cast<const uint8_t*>(bits);
  if (offset % 8 == 0)
    return Foreign(b + offset / 8, static_cast<size_t>(BitmapBytes(length)), owner);
  std::vector<uint8_t> out(static_cast<size_t>(BitmapBytes(length)), 0);
  for (int64_t i = 0; i < length; ++i) {
    if (GetBit(b, offset + i)) SetBit(out.data(), i);
  }
  return Buffer(std::move(out));
}

int64_t CountNulls(const uint8_t* bits, int64_t length) {
  int64_t valid = 0;
  for (int64_t i = 0; i < length; ++i) valid += GetBit(bits, i) ? 1 : 0;
  return length - valid;
}

const void* BufferAt(const ArrowArray& a, int64_t i) {
  return i < a.n_buffers && a.buffers != nullptr ? a.buffers[i] : nullptr;
}

Result<ColumnPtr> ImportArray(const ArrowArray& a, const ArrowSchema& s, const ForeignPtr& owner);

// Rows [begin, end) of a child, as a column of its own (a copy unless it is the whole child).
Result<ColumnPtr> ChildRange(ColumnPtr child, int64_t begin, int64_t end) {
  if (begin == 0 && end == child->length) return child;
  if (begin < 0 || end > child->length || begin > end) {
    return InvalidInput("Arrow array's offsets reach past its child ({} of {} rows)", end,
                        child->length);
  }
  std::vector<int64_t> rows(static_cast<size_t>(end - begin));
  std::iota(rows.begin(), rows.end(), begin);
  return Take(*child, rows);
}

// Offsets of rows [a.offset, a.offset + a.length) rebased to start at 0, as int32, with the range
// of the values (or child rows) they span.
Result<Buffer> RebasedOffsets(const ArrowArray& a, bool large, const ForeignPtr& owner,
                              int64_t* begin, int64_t* end, const std::string& name) {
  const void* raw = BufferAt(a, 1);
  if (raw == nullptr) {
    *begin = *end = 0;
    return Buffer(std::vector<uint8_t>(static_cast<size_t>((a.length + 1) * 4), 0));
  }
  if (!large) {
    const auto* o = static_cast<const int32_t*>(raw) + a.offset;
    *begin = o[0];
    *end = o[a.length];
    if (*begin < 0 || *end < *begin) {
      return InvalidInput("column '{}': Arrow offsets run backwards ({} to {})", name, *begin,
                          *end);
    }
    if (o[0] == 0) return Foreign(o, static_cast<size_t>((a.length + 1) * 4), owner);
    std::vector<int32_t> out(static_cast<size_t>(a.length + 1));
    for (int64_t i = 0; i <= a.length; ++i) out[i] = o[i] - o[0];
    return Buffer::Adopt(std::move(out));
  }
  const auto* o = static_cast<const int64_t*>(raw) + a.offset;
  *begin = o[0];
  *end = o[a.length];
  if (*begin < 0 || *end < *begin) {
    return InvalidInput("column '{}': Arrow offsets run backwards ({} to {})", name, *begin, *end);
  }
  if (o[a.length] - o[0] > std::numeric_limits<int32_t>::max()) {
    return Unsupported("column '{}': {} bytes in one batch exceed 32-bit offsets", name,
                       o[a.length] - o[0]);
  }
  std::vector<int32_t> out(static_cast<size_t>(a.length + 1));
  for (int64_t i = 0; i <= a.length; ++i) out[i] = static_cast<int32_t>(o[i] - o[0]);
  return Buffer::Adopt(std::move(out));
}

// String and binary views (16 bytes a row: length, then the bytes inline up to 12, else a prefix,
// a variadic buffer's index and an offset into it) as contiguous bytes and offsets.
Status ImportViews(const ArrowArray& a, Column* c, const std::string& name) {
  const auto* views = static_cast<const uint8_t*>(BufferAt(a, 1));
  int64_t n_data = a.n_buffers - 3;  // validity, views, data buffers..., their sizes
  std::vector<int32_t> offsets(static_cast<size_t>(a.length + 1), 0);
  ByteVector bytes;
  for (int64_t i = 0; i < a.length; ++i) {
    offsets[i] = static_cast<int32_t>(bytes.size());
    if (c->IsNull(i) || views == nullptr) continue;
    const uint8_t* v = views + (a.offset + i) * 16;
    int32_t len;
    std::memcpy(&len, v, 4);
    if (len < 0) return InvalidInput("column '{}': negative view length", name);
    const uint8_t* src = v + 4;
    if (len > 12) {
      int32_t index, off;
      std::memcpy(&index, v + 8, 4);
      std::memcpy(&off, v + 12, 4);
      if (index < 0 || index >= n_data || off < 0) {
        return InvalidInput("column '{}': a view points to no data buffer", name);
      }
      const auto* sizes = static_cast<const int64_t*>(BufferAt(a, a.n_buffers - 1));
      if (sizes != nullptr && off + static_cast<int64_t>(len) > sizes[index]) {
        return InvalidInput("column '{}': a view reaches past its data buffer", name);
      }
      src = static_cast<const uint8_t*>(BufferAt(a, 2 + index)) + off;
    }
    if (bytes.size() + static_cast<size_t>(len) > std::numeric_limits<int32_t>::max()) {
      return Unsupported("column '{}': over 2 GiB of strings in one batch", name);
    }
    bytes.insert(bytes.end(), src, src + len);
  }
  offsets[a.length] = static_cast<int32_t>(bytes.size());
  c->offsets = Buffer::Adopt(std::move(offsets));
  c->values = Buffer(std::move(bytes));
  return {};
}

// Fixed-width values converted from the producer's unit to floe's.
template <typename From, typename To, typename F>
Buffer Converted(const void* raw, int64_t offset, int64_t length, F f) {
  std::vector<To> out(static_cast<size_t>(length));
  const auto* in = static_cast<const From*>(raw);
  for (int64_t i = 0; i < length; ++i) {
    if (in != nullptr) out[i] = f(in[offset + i]);
  }
  return Buffer::Adopt(std::move(out));
}

Result<ColumnPtr> ImportDictionary(const ArrowArray& a, const ArrowSchema& s,
                                   const ForeignPtr& owner) {
  if (a.dictionary == nullptr) {
    return InvalidInput("dictionary column '{}' has no dictionary array", FieldName(s));
  }
  ArrowSchema index_schema = s;
  index_schema.dictionary = nullptr;
  ArrowArray index_array = a;
  index_array.dictionary = nullptr;
  FLOE_ASSIGN_OR_RETURN(ColumnPtr indices, ImportArray(index_array, index_schema, owner));
  FLOE_ASSIGN_OR_RETURN(ColumnPtr values, ImportArray(*a.dictionary, *s.dictionary, owner));
  int width = indices->type.FixedWidth();
  if (width == 0 || indices->type.id == TypeId::kFloat16 || indices->type.id == TypeId::kFloat32 ||
      indices->type.id == TypeId::kFloat64) {
    return InvalidInput("dictionary column '{}' has non-integer indices", FieldName(s));
  }
  std::vector<int64_t> rows(static_cast<size_t>(indices->length));
  for (int64_t i = 0; i < indices->length; ++i) {
    int64_t v = 0;
    if (indices->IsValid(i)) {
      switch (width) {
        case 1:
          v = indices->type.id == TypeId::kUInt8 ? indices->Value<uint8_t>(i)
                                                 : indices->Value<int8_t>(i);
          break;
        case 2:
          v = indices->type.id == TypeId::kUInt16 ? indices->Value<uint16_t>(i)
                                                  : indices->Value<int16_t>(i);
          break;
        case 4:
          v = indices->type.id == TypeId::kUInt32 ? indices->Value<uint32_t>(i)
                                                  : indices->Value<int32_t>(i);
          break;
        default:
          v = indices->Value<int64_t>(i);
      }
      if (v < 0 || v >= values->length) {
        return InvalidInput("dictionary column '{}': index {} outside its {} values", FieldName(s),
                            v, values->length);
      }
    }
    rows[i] = v;
  }
  if (values->length == 0) {  // every row is null
    return ColumnPtr(std::make_shared<Column>(
        Column{values->type, indices->length, indices->length,
               Buffer(std::vector<uint8_t>(BitmapBytes(indices->length), 0))}));
  }
  FLOE_ASSIGN_OR_RETURN(ColumnPtr taken, Take(*values, rows));
  if (indices->null_count == 0) return taken;
  auto out = std::make_shared<Column>(*taken);
  std::vector<uint8_t> validity(static_cast<size_t>(BitmapBytes(out->length)), 0);
  int64_t nulls = 0;
  for (int64_t i = 0; i < out->length; ++i) {
    if (indices->IsValid(i) && taken->IsValid(i)) {
      SetBit(validity.data(), i);
    } else {
      ++nulls;
    }
  }
  out->validity = Buffer(std::move(validity));
  out->null_count = nulls;
  return ColumnPtr(out);
}

Result<ColumnPtr> ImportArray(const ArrowArray& a, const ArrowSchema& s, const ForeignPtr& owner) {
  std::string name = FieldName(s);
  if (a.length < 0 || a.offset < 0) {
    return InvalidInput("column '{}': negative Arrow length or offset", name);
  }
  if (s.dictionary != nullptr) return ImportDictionary(a, s, owner);
  FLOE_ASSIGN_OR_RETURN(ImportedType t, ImportType(s));
  auto c = std::make_shared<Column>();
  c->type = t.type;
  c->length = a.length;
  if (t.type.id == TypeId::kNull) {
    c->null_count = a.length;
    return ColumnPtr(c);
  }
  int64_t min_buffers = t.conversion == Conversion::kView ? 3
                        : t.type.IsBinaryLike()           ? 3
                        : t.type.id == TypeId::kStruct    ? 1
                                                          : 2;
  if (a.n_buffers < min_buffers || a.buffers == nullptr) {
    return InvalidInput("column '{}': Arrow array has {} buffers, {} expected", name, a.n_buffers,
                        min_buffers);
  }
  if (const void* validity = BufferAt(a, 0); validity != nullptr && a.null_count != 0) {
    c->validity = Bits(validity, a.offset, a.length, owner);
    c->null_count = CountNulls(c->validity.data(), a.length);
    if (c->null_count == 0) c->validity = {};
  }
  const int64_t off = a.offset;
  const int64_t n = a.length;
  switch (t.type.id) {
    case TypeId::kBool:
      c->values = BufferAt(a, 1) != nullptr ? Bits(BufferAt(a, 1), off, n, owner)
                                            : Buffer(std::vector<uint8_t>(BitmapBytes(n), 0));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      if (t.conversion == Conversion::kView) {
        FLOE_RETURN_IF_ERROR(ImportViews(a, c.get(), name));
      } else {
        int64_t begin = 0, end = 0;
        FLOE_ASSIGN_OR_RETURN(
            c->offsets, RebasedOffsets(a, t.conversion == Conversion::kLargeOffsets, owner, &begin,
                                       &end, name));
        if (end > begin && BufferAt(a, 2) == nullptr) {
          return InvalidInput("column '{}': Arrow string array has no data buffer", name);
        }
        c->values = Foreign(static_cast<const uint8_t*>(BufferAt(a, 2)) + begin,
                            static_cast<size_t>(end - begin), owner);
      }
      break;
    case TypeId::kList:
    case TypeId::kMap: {
      if (a.n_children != 1 || a.children == nullptr || a.children[0] == nullptr) {
        return InvalidInput("column '{}': Arrow list array needs one child", name);
      }
      int64_t begin = 0, end = 0;
      FLOE_ASSIGN_OR_RETURN(c->offsets, RebasedOffsets(a, t.conversion == Conversion::kLargeOffsets,
                                                       owner, &begin, &end, name));
      FLOE_ASSIGN_OR_RETURN(ColumnPtr child, ImportArray(*a.children[0], *s.children[0], owner));
      FLOE_ASSIGN_OR_RETURN(child, ChildRange(std::move(child), begin, end));
      c->children.push_back(std::move(child));
      break;
    }
    case TypeId::kStruct:
      if (a.n_children != s.n_children || (a.n_children > 0 && a.children == nullptr)) {
        return InvalidInput("column '{}': Arrow struct array has {} children, its type {}", name,
                            a.n_children, s.n_children);
      }
      for (int64_t i = 0; i < a.n_children; ++i) {
        FLOE_ASSIGN_OR_RETURN(ColumnPtr child, ImportArray(*a.children[i], *s.children[i], owner));
        if (child->length < off + n) {
          return InvalidInput("column '{}': a struct child is shorter than the struct", name);
        }
        FLOE_ASSIGN_OR_RETURN(child, ChildRange(std::move(child), off, off + n));
        c->children.push_back(std::move(child));
      }
      break;
    default: {
      const void* raw = BufferAt(a, 1);
      switch (t.conversion) {
        case Conversion::kDate64:
          c->values = Converted<int64_t, int32_t>(raw, off, n, [](int64_t ms) {
            return static_cast<int32_t>(ms >= 0 ? ms / 86400000 : (ms - 86399999) / 86400000);
          });
          break;
        case Conversion::kTime32Second:
          c->values = Converted<int32_t, int64_t>(raw, off, n,
                                                  [](int32_t v) { return int64_t{v} * 1000000; });
          break;
        case Conversion::kTime32Milli:
          c->values =
              Converted<int32_t, int64_t>(raw, off, n, [](int32_t v) { return int64_t{v} * 1000; });
          break;
        case Conversion::kSeconds:
          c->values =
              Converted<int64_t, int64_t>(raw, off, n, [](int64_t v) { return v * 1000000; });
          break;
        default: {
          auto width = static_cast<int64_t>(
              t.type.id == TypeId::kFixedSizeBinary ? t.type.byte_width : t.type.FixedWidth());
          if (raw == nullptr && n > 0) {
            return InvalidInput("column '{}': Arrow array has no values buffer", name);
          }
          c->values = Foreign(static_cast<const uint8_t*>(raw) + off * width,
                              static_cast<size_t>(n * width), owner);
        }
      }
    }
  }
  return ColumnPtr(c);
}

}  // namespace

Result<Field> ImportField(const ArrowSchema& s) {
  Field field;
  field.name = FieldName(s);
  field.nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0;
  if (auto id = FieldIdFromMetadata(s.metadata)) field.field_id = *id;
  if (s.dictionary != nullptr) {
    FLOE_ASSIGN_OR_RETURN(Field values, ImportField(*s.dictionary));
    field.type = std::move(values.type);
    return field;
  }
  FLOE_ASSIGN_OR_RETURN(ImportedType t, ImportType(s));
  field.type = std::move(t.type);
  return field;
}

Result<Schema> ImportSchema(const ArrowSchema& s) {
  if (s.format == nullptr || std::string_view(s.format) != "+s") {
    return InvalidInput("an Arrow record batch schema is a struct ('+s'), not '{}'",
                        s.format != nullptr ? s.format : "");
  }
  FLOE_ASSIGN_OR_RETURN(auto fields, ImportChildren(s));
  return Schema{std::move(fields)};
}

Result<RecordBatch> ImportBatch(ArrowArray* array, const ArrowSchema& arrow_schema,
                                SchemaPtr schema) {
  auto owner = std::make_shared<ForeignArray>();
  owner->array = *array;
  array->release = nullptr;
  const ArrowArray& a = owner->array;
  if (a.release == nullptr) return InvalidInput("the Arrow array was already released");
  if (a.n_children != arrow_schema.n_children ||
      a.n_children != static_cast<int64_t>(schema->fields.size())) {
    return InvalidInput("an Arrow batch of {} columns under a schema of {}", a.n_children,
                        schema->fields.size());
  }
  FLOE_ASSIGN_OR_RETURN(ColumnPtr root, ImportArray(a, arrow_schema, owner));
  if (root->null_count > 0) return InvalidInput("an Arrow record batch has null rows");
  RecordBatch batch;
  batch.schema = std::move(schema);
  batch.num_rows = a.length;
  batch.columns = root->children;
  FLOE_RETURN_IF_ERROR(batch.Validate());
  return batch;
}

}  // namespace floe::columnar
