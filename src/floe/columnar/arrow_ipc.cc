#include "floe/columnar/arrow_ipc.h"

#include <array>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/columnar/flatbuffer_writer.h"

namespace floe::columnar {
namespace {

// The numbers of Arrow's Schema.fbs, Message.fbs and File.fbs (the format specification):
// a union's member, enumerations' values, and each table's fields in declaration order.
enum ArrowType : uint8_t {
  kNullType = 1,
  kIntType = 2,
  kFloatingPointType = 3,
  kBinaryType = 4,
  kUtf8Type = 5,
  kBoolType = 6,
  kDecimalType = 7,
  kDateType = 8,
  kTimeType = 9,
  kTimestampType = 10,
  kListType = 12,
  kStructType = 13,
  kFixedSizeBinaryType = 15,
  kMapType = 17,
};
constexpr uint8_t kSchemaHeader = 1;       // MessageHeader.Schema
constexpr uint8_t kRecordBatchHeader = 3;  // MessageHeader.RecordBatch
constexpr int16_t kMetadataV5 = 4;         // MetadataVersion.V5
constexpr int16_t kLittleEndian = 0;
constexpr int16_t kDateDay = 0;
constexpr std::array<uint8_t, 8> kFileMagic = {'A', 'R', 'R', 'O', 'W', '1', 0, 0};
constexpr uint32_t kContinuation = 0xFFFFFFFF;
constexpr int64_t kAlignment = 8;

int64_t Padded(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

using Slot = FlatBufferWriter::Slot;

int16_t UnitOf(TimeUnit unit) {  // TimeUnit: SECOND, MILLISECOND, MICROSECOND, NANOSECOND
  switch (unit) {
    case TimeUnit::kMilli:
      return 1;
    case TimeUnit::kMicro:
      return 2;
    case TimeUnit::kNano:
      return 3;
  }
  return 2;
}

Status CheckType(const Field& field) {
  if (field.type.id == TypeId::kTime64 && field.type.unit == TimeUnit::kMilli) {
    return Unsupported("time64[ms] column '{}' has no Arrow IPC type (Arrow uses time32 for ms)",
                       field.name);
  }
  for (const Field& child : field.type.children) FLOE_RETURN_IF_ERROR(CheckType(child));
  return {};
}

// The Type union's member for `t`: a Field holds it before the member's table, written after.
uint8_t TypeMember(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull:
      return kNullType;
    case TypeId::kBool:
      return kBoolType;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return kIntType;
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return kFloatingPointType;
    case TypeId::kDecimal128:
      return kDecimalType;
    case TypeId::kDate32:
      return kDateType;
    case TypeId::kTime64:
      return kTimeType;
    case TypeId::kTimestamp:
      return kTimestampType;
    case TypeId::kString:
      return kUtf8Type;
    case TypeId::kBinary:
      return kBinaryType;
    case TypeId::kFixedSizeBinary:
      return kFixedSizeBinaryType;
    case TypeId::kList:
      return kListType;
    case TypeId::kStruct:
      return kStructType;
    case TypeId::kMap:
      return kMapType;
  }
  return kNullType;
}

// The Type union's table for `t`: the parameters of its type.
size_t WriteType(FlatBufferWriter& w, const DataType& t) {
  switch (t.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64: {
      const bool is_signed = t.id == TypeId::kInt8 || t.id == TypeId::kInt16 ||
                             t.id == TypeId::kInt32 || t.id == TypeId::kInt64;
      return w.Table({Slot::Scalar<int32_t>(0, t.FixedWidth() * 8),
                      Slot::Scalar<uint8_t>(1, is_signed ? 1 : 0)});
    }
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      // Precision: HALF, SINGLE, DOUBLE
      const int16_t precision = t.id == TypeId::kFloat16 ? 0 : t.id == TypeId::kFloat32 ? 1 : 2;
      return w.Table({Slot::Scalar<int16_t>(0, precision)});
    }
    case TypeId::kDecimal128:
      return w.Table({Slot::Scalar<int32_t>(0, t.precision), Slot::Scalar<int32_t>(1, t.scale),
                      Slot::Scalar<int32_t>(2, 128)});
    case TypeId::kDate32:
      return w.Table({Slot::Scalar<int16_t>(0, kDateDay)});
    case TypeId::kTime64:
      return w.Table({Slot::Scalar<int16_t>(0, UnitOf(t.unit)), Slot::Scalar<int32_t>(1, 64)});
    case TypeId::kTimestamp: {
      if (t.timezone.empty()) return w.Table({Slot::Scalar<int16_t>(0, UnitOf(t.unit))});
      std::vector<size_t> offsets;
      size_t table = w.Table({Slot::Scalar<int16_t>(0, UnitOf(t.unit)), Slot::Offset(1)}, &offsets);
      w.Link(offsets[0], w.String(t.timezone));
      return table;
    }
    case TypeId::kFixedSizeBinary:
      return w.Table({Slot::Scalar<int32_t>(0, t.byte_width)});
    case TypeId::kMap:
      return w.Table({Slot::Scalar<uint8_t>(0, 0)});  // keysSorted: false
    case TypeId::kNull:
    case TypeId::kBool:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kStruct:
      break;  // tables without fields
  }
  return w.Table({});
}

size_t WriteFields(FlatBufferWriter& w, const std::vector<Field>& fields);

// Field: name, nullable, type_type, type, dictionary, children, custom_metadata.
size_t WriteField(FlatBufferWriter& w, const Field& field) {
  std::vector<size_t> offsets;
  size_t table =
      w.Table({Slot::Offset(0), Slot::Scalar<uint8_t>(1, field.nullable ? 1 : 0),
               Slot::Scalar<uint8_t>(2, TypeMember(field.type)), Slot::Offset(3), Slot::Offset(5)},
              &offsets);
  w.Link(offsets[0], w.String(field.name));
  w.Link(offsets[1], WriteType(w, field.type));
  w.Link(offsets[2], WriteFields(w, field.type.children));
  return table;
}

size_t WriteFields(FlatBufferWriter& w, const std::vector<Field>& fields) {
  std::vector<size_t> elements;
  size_t vector = w.OffsetVector(fields.size(), &elements);
  for (size_t i = 0; i < fields.size(); ++i) w.Link(elements[i], WriteField(w, fields[i]));
  return vector;
}

// Schema: endianness, fields, custom_metadata, features.
size_t WriteSchema(FlatBufferWriter& w, const Schema& schema) {
  std::vector<size_t> offsets;
  size_t table = w.Table({Slot::Scalar<int16_t>(0, kLittleEndian), Slot::Offset(1)}, &offsets);
  w.Link(offsets[0], WriteFields(w, schema.fields));
  return table;
}

// Message: version, header_type, header, bodyLength, custom_metadata.
size_t WriteMessage(FlatBufferWriter& w, uint8_t header_type, int64_t body_length,
                    size_t* header_at) {
  std::vector<size_t> offsets;
  size_t table =
      w.Table({Slot::Scalar<int16_t>(0, kMetadataV5), Slot::Scalar<uint8_t>(1, header_type),
               Slot::Offset(2), Slot::Scalar<int64_t>(3, body_length)},
              &offsets);
  *header_at = offsets[0];
  return table;
}

struct Pair {  // FieldNode {length, null_count} and Buffer {offset, length} alike
  int64_t first;
  int64_t second;
};

// A record batch's body: its buffers in the pre-order of the schema's fields, each where the
// message says it is.
struct Body {
  std::vector<Pair> nodes;
  std::vector<Pair> buffers;
  std::vector<ByteView> pieces;  // the buffers' bytes, each to be padded to 8
  std::vector<std::vector<uint8_t>> owned;
  int64_t length = 0;

  void Add(ByteView bytes) {
    buffers.push_back({length, static_cast<int64_t>(bytes.size())});
    pieces.push_back(bytes);
    length += Padded(static_cast<int64_t>(bytes.size()));
  }
  void AddZeros(size_t n) {
    owned.emplace_back(n, 0);
    Add(ByteView(owned.back().data(), n));
  }
};

ByteView Prefix(const Buffer& b, int64_t n) { return ByteView(b.data(), static_cast<size_t>(n)); }

void AddColumn(const Column& c, Body* body) {
  const bool null_type = c.type.id == TypeId::kNull;
  body->nodes.push_back({c.length, null_type ? c.length : c.null_count});
  if (null_type) return;  // Null has no buffers
  if (c.null_count > 0) {
    body->Add(Prefix(c.validity, BitmapBytes(c.length)));
  } else {
    body->Add({});
  }
  auto offsets = [&] {
    if (c.offsets.empty()) {
      body->AddZeros(static_cast<size_t>(c.length + 1) * 4);  // an empty column built without
    } else {
      body->Add(Prefix(c.offsets, (c.length + 1) * 4));
    }
  };
  switch (c.type.id) {
    case TypeId::kBool:
      body->Add(Prefix(c.values, BitmapBytes(c.length)));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      offsets();
      body->Add(Prefix(c.values, c.offsets.empty() ? 0 : c.Offsets()[c.length]));
      break;
    case TypeId::kList:
    case TypeId::kMap:
      offsets();
      AddColumn(*c.children[0], body);
      break;
    case TypeId::kStruct:
      for (const ColumnPtr& child : c.children) AddColumn(*child, body);
      break;
    case TypeId::kFixedSizeBinary:
      body->Add(Prefix(c.values, c.length * c.type.byte_width));
      break;
    default:
      body->Add(Prefix(c.values, c.length * c.type.FixedWidth()));
      break;
  }
}

// The same layout as the schema's: kinds, widths and children, so the buffers are the ones the
// Schema message announced.
bool SameShape(const DataType& a, const DataType& b) {
  if (a.id != b.id || a.byte_width != b.byte_width || a.children.size() != b.children.size()) {
    return false;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameShape(a.children[i].type, b.children[i].type)) return false;
  }
  return true;
}

}  // namespace

ArrowIpcWriter::ArrowIpcWriter(SchemaPtr schema, IpcFormat format, Sink sink)
    : schema_(std::move(schema)), format_(format), sink_(std::move(sink)) {}

ArrowIpcWriter::~ArrowIpcWriter() = default;

Result<std::unique_ptr<ArrowIpcWriter>> ArrowIpcWriter::Open(SchemaPtr schema, IpcFormat format,
                                                             Sink sink) {
  for (const Field& f : schema->fields) FLOE_RETURN_IF_ERROR(CheckType(f));
  return std::unique_ptr<ArrowIpcWriter>(
      new ArrowIpcWriter(std::move(schema), format, std::move(sink)));
}

Status ArrowIpcWriter::Start() {
  if (started_) return {};
  started_ = true;
  if (format_ == IpcFormat::kFile) FLOE_RETURN_IF_ERROR(Put(kFileMagic));
  FlatBufferWriter fb;
  size_t header_at = 0;
  size_t message = WriteMessage(fb, kSchemaHeader, 0, &header_at);
  fb.Link(header_at, WriteSchema(fb, *schema_));
  return PutMessage(fb.Finish(message));
}

Status ArrowIpcWriter::Put(ByteView bytes) {
  if (bytes.empty()) return {};
  FLOE_RETURN_IF_ERROR(sink_(bytes));
  position_ += static_cast<int64_t>(bytes.size());
  return {};
}

Status ArrowIpcWriter::PutMessage(const std::vector<uint8_t>& flatbuffer) {
  // The flatbuffer is padded to 8 bytes, so the body after it starts aligned.
  const std::array<uint32_t, 2> prefix = {kContinuation, static_cast<uint32_t>(flatbuffer.size())};
  FLOE_RETURN_IF_ERROR(Put(ByteView(reinterpret_cast<const uint8_t*>(prefix.data()), 8)));
  return Put(flatbuffer);
}

Status ArrowIpcWriter::Write(const RecordBatch& batch) {
  if (closed_) return Internal("Arrow IPC: a batch written after Close");
  FLOE_RETURN_IF_ERROR(batch.Validate());
  FLOE_RETURN_IF_ERROR(Start());
  if (batch.num_columns() != schema_->num_fields()) {
    return InvalidInput("Arrow IPC: a batch of {} columns under a schema of {}",
                        batch.num_columns(), schema_->num_fields());
  }
  Body body;
  for (int i = 0; i < batch.num_columns(); ++i) {
    const Field& field = schema_->fields[static_cast<size_t>(i)];
    if (!SameShape(batch.column(i)->type, field.type)) {
      return InvalidInput("Arrow IPC: column '{}' is {} in a batch, {} in the schema", field.name,
                          batch.column(i)->type.ToString(), field.type.ToString());
    }
    AddColumn(*batch.column(i), &body);
  }
  // RecordBatch: length, nodes, buffers, compression, variadicBufferCounts.
  FlatBufferWriter fb;
  size_t header_at = 0;
  size_t message = WriteMessage(fb, kRecordBatchHeader, body.length, &header_at);
  std::vector<size_t> offsets;
  size_t record_batch = fb.Table(
      {Slot::Scalar<int64_t>(0, batch.num_rows), Slot::Offset(1), Slot::Offset(2)}, &offsets);
  fb.Link(header_at, record_batch);
  fb.Link(offsets[0], fb.StructVector(body.nodes.data(), body.nodes.size(), sizeof(Pair), 8));
  fb.Link(offsets[1], fb.StructVector(body.buffers.data(), body.buffers.size(), sizeof(Pair), 8));
  std::vector<uint8_t> metadata = fb.Finish(message);
  const int64_t offset = position_;
  FLOE_RETURN_IF_ERROR(PutMessage(metadata));
  static constexpr std::array<uint8_t, kAlignment> kZeros{};
  for (ByteView piece : body.pieces) {
    FLOE_RETURN_IF_ERROR(Put(piece));
    const auto size = static_cast<int64_t>(piece.size());
    FLOE_RETURN_IF_ERROR(Put(ByteView(kZeros.data(), static_cast<size_t>(Padded(size) - size))));
  }
  blocks_.push_back({offset, static_cast<int32_t>(8 + metadata.size()), body.length});
  rows_ += batch.num_rows;
  return {};
}

Status ArrowIpcWriter::Close() {
  if (closed_) return {};
  FLOE_RETURN_IF_ERROR(Start());
  closed_ = true;
  const std::array<uint32_t, 2> end_of_stream = {kContinuation, 0};
  FLOE_RETURN_IF_ERROR(Put(ByteView(reinterpret_cast<const uint8_t*>(end_of_stream.data()), 8)));
  if (format_ == IpcFormat::kStream) return {};
  // Footer: version, schema, dictionaries, recordBatches; Block {offset, metaDataLength, pad,
  // bodyLength}.
  std::vector<uint8_t> blocks(blocks_.size() * 24, 0);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    std::memcpy(&blocks[i * 24], &blocks_[i].offset, 8);
    std::memcpy(&blocks[i * 24 + 8], &blocks_[i].metadata_length, 4);
    std::memcpy(&blocks[i * 24 + 16], &blocks_[i].body_length, 8);
  }
  FlatBufferWriter fb;
  std::vector<size_t> offsets;
  size_t footer = fb.Table(
      {Slot::Scalar<int16_t>(0, kMetadataV5), Slot::Offset(1), Slot::Offset(2), Slot::Offset(3)},
      &offsets);
  fb.Link(offsets[0], WriteSchema(fb, *schema_));
  fb.Link(offsets[1], fb.StructVector(nullptr, 0, 24, 8));
  fb.Link(offsets[2], fb.StructVector(blocks.data(), blocks_.size(), 24, 8));
  std::vector<uint8_t> bytes = fb.Finish(footer);
  FLOE_RETURN_IF_ERROR(Put(bytes));
  const auto length = static_cast<int32_t>(bytes.size());
  FLOE_RETURN_IF_ERROR(Put(ByteView(reinterpret_cast<const uint8_t*>(&length), 4)));
  return Put(ByteView(kFileMagic.data(), 6));
}

}  // namespace floe::columnar
