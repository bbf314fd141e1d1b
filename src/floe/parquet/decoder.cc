#include "floe/parquet/decoder.h"

#include "floe/parquet/byte_stream_split.h"
#include "floe/parquet/delta_binary_packed.h"
#include "floe/parquet/delta_byte_array.h"
#include "floe/parquet/delta_length_byte_array.h"
#include "floe/parquet/plain.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"
#include "floe/parquet/rle_dictionary.h"

namespace floe::parquet {

Status Decoder::WrongOutput(std::string_view what) const {
  return Internal("{} decoder asked for {} values, which it does not produce",
                  EncodingName(encoding()), what);
}

Status Decoder::Decode(std::span<bool>) { return WrongOutput("BOOLEAN"); }
Status Decoder::Decode(std::span<int32_t>) { return WrongOutput("INT32"); }
Status Decoder::Decode(std::span<int64_t>) { return WrongOutput("INT64"); }
Status Decoder::Decode(std::span<float>) { return WrongOutput("FLOAT"); }
Status Decoder::Decode(std::span<double>) { return WrongOutput("DOUBLE"); }
Status Decoder::DecodeFixedWidth(std::span<uint8_t>) { return WrongOutput("fixed-width"); }
Status Decoder::DecodeByteArrays(int64_t, ByteArrayBuilder*) { return WrongOutput("BYTE_ARRAY"); }
Status Decoder::DecodeIndices(std::span<int32_t>, int32_t) {
  return WrongOutput("dictionary index");
}

Result<std::unique_ptr<Decoder>> MakeDecoder(Encoding encoding, PhysicalType type,
                                             int32_t type_length) {
  if (!IsKnownPhysicalType(type)) {
    return InvalidInput("no decoder for physical type {}", PhysicalTypeName(type));
  }
  if (type == PhysicalType::kFixedLenByteArray && type_length <= 0) {
    return InvalidInput("FIXED_LEN_BYTE_ARRAY needs a positive type_length, not {}", type_length);
  }
  switch (encoding) {
    case Encoding::kPlain:
      return std::make_unique<PlainDecoder>(type, type_length);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      return std::make_unique<RleDictionaryDecoder>(encoding);
    case Encoding::kRle:
      if (type == PhysicalType::kBoolean) return std::make_unique<RleBooleanDecoder>();
      break;
    case Encoding::kDeltaBinaryPacked:
      if (type == PhysicalType::kInt32 || type == PhysicalType::kInt64) {
        return std::make_unique<DeltaBinaryPackedDecoder>(type);
      }
      break;
    case Encoding::kDeltaLengthByteArray:
      if (type == PhysicalType::kByteArray) return std::make_unique<DeltaLengthByteArrayDecoder>();
      break;
    case Encoding::kDeltaByteArray:
      if (type == PhysicalType::kByteArray || type == PhysicalType::kFixedLenByteArray) {
        return std::make_unique<DeltaByteArrayDecoder>(type, type_length);
      }
      break;
    case Encoding::kByteStreamSplit:
      if (type == PhysicalType::kFloat || type == PhysicalType::kDouble ||
          type == PhysicalType::kInt32 || type == PhysicalType::kInt64 ||
          type == PhysicalType::kFixedLenByteArray) {
        return std::make_unique<ByteStreamSplitDecoder>(type, type_length);
      }
      break;
    case Encoding::kBitPacked:
      break;
  }
  return Unsupported("{} encoding for {} values", EncodingName(encoding), PhysicalTypeName(type));
}

}  // namespace floe::parquet
