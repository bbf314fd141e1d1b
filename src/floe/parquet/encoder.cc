#include "floe/parquet/encoder.h"

#include "floe/parquet/byte_stream_split.h"
#include "floe/parquet/delta_binary_packed.h"
#include "floe/parquet/delta_byte_array.h"
#include "floe/parquet/delta_length_byte_array.h"
#include "floe/parquet/plain.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"

namespace floe::parquet {

Status Encoder::WrongInput(std::string_view what) const {
  return Internal("{} encoder given {} values, which it does not take", EncodingName(encoding()),
                  what);
}

Status Encoder::Put(std::span<const bool>) { return WrongInput("BOOLEAN"); }
Status Encoder::Put(std::span<const int32_t>) { return WrongInput("INT32"); }
Status Encoder::Put(std::span<const int64_t>) { return WrongInput("INT64"); }
Status Encoder::Put(std::span<const float>) { return WrongInput("FLOAT"); }
Status Encoder::Put(std::span<const double>) { return WrongInput("DOUBLE"); }
Status Encoder::PutFixedWidth(std::span<const uint8_t>) { return WrongInput("fixed-width"); }
Status Encoder::PutByteArrays(std::span<const int32_t>, ByteView) {
  return WrongInput("BYTE_ARRAY");
}

Result<std::unique_ptr<Encoder>> MakeEncoder(Encoding encoding, PhysicalType type,
                                             int32_t type_length) {
  if (!IsKnownPhysicalType(type)) {
    return InvalidInput("no encoder for physical type {}", PhysicalTypeName(type));
  }
  if (type == PhysicalType::kFixedLenByteArray && type_length <= 0) {
    return InvalidInput("FIXED_LEN_BYTE_ARRAY needs a positive type_length, not {}", type_length);
  }
  switch (encoding) {
    case Encoding::kPlain:
      return std::make_unique<PlainEncoder>(type, type_length);
    case Encoding::kRle:
      if (type == PhysicalType::kBoolean) return std::make_unique<RleBooleanEncoder>();
      break;
    case Encoding::kDeltaBinaryPacked:
      if (type == PhysicalType::kInt32 || type == PhysicalType::kInt64) {
        return std::make_unique<DeltaBinaryPackedEncoder>(type);
      }
      break;
    case Encoding::kDeltaLengthByteArray:
      if (type == PhysicalType::kByteArray) return std::make_unique<DeltaLengthByteArrayEncoder>();
      break;
    case Encoding::kDeltaByteArray:
      if (type == PhysicalType::kByteArray || type == PhysicalType::kFixedLenByteArray) {
        return std::make_unique<DeltaByteArrayEncoder>(type, type_length);
      }
      break;
    case Encoding::kByteStreamSplit:
      if (type == PhysicalType::kFloat || type == PhysicalType::kDouble ||
          type == PhysicalType::kInt32 || type == PhysicalType::kInt64 ||
          type == PhysicalType::kFixedLenByteArray) {
        return std::make_unique<ByteStreamSplitEncoder>(type, type_length);
      }
      break;
    default:
      break;
  }
  return Unsupported("writing {} encoding for {} values", EncodingName(encoding),
                     PhysicalTypeName(type));
}

}  // namespace floe::parquet
