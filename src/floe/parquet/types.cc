#include "floe/parquet/types.h"

#include <fmt/format.h>

namespace floe::parquet {

namespace {

template <typename E>
std::string Unnamed(const char* enum_name, E value) {
  return fmt::format("{}({})", enum_name, static_cast<int32_t>(value));
}

}  // namespace

std::string PhysicalTypeName(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean:
      return "BOOLEAN";
    case PhysicalType::kInt32:
      return "INT32";
    case PhysicalType::kInt64:
      return "INT64";
    case PhysicalType::kInt96:
      return "INT96";
    case PhysicalType::kFloat:
      return "FLOAT";
    case PhysicalType::kDouble:
      return "DOUBLE";
    case PhysicalType::kByteArray:
      return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return Unnamed("Type", type);
}

std::string ConvertedTypeName(ConvertedType type) {
  static constexpr const char* kNames[] = {"UTF8",
                                           "MAP",
                                           "MAP_KEY_VALUE",
                                           "LIST",
                                           "ENUM",
                                           "DECIMAL",
                                           "DATE",
                                           "TIME_MILLIS",
                                           "TIME_MICROS",
                                           "TIMESTAMP_MILLIS",
                                           "TIMESTAMP_MICROS",
                                           "UINT_8",
                                           "UINT_16",
                                           "UINT_32",
                                           "UINT_64",
                                           "INT_8",
                                           "INT_16",
                                           "INT_32",
                                           "INT_64",
                                           "JSON",
                                           "BSON",
                                           "INTERVAL"};
  auto i = static_cast<int32_t>(type);
  if (i >= 0 && i < static_cast<int32_t>(std::size(kNames))) return kNames[i];
  return Unnamed("ConvertedType", type);
}

std::string FieldRepetitionTypeName(FieldRepetitionType repetition) {
  switch (repetition) {
    case FieldRepetitionType::kRequired:
      return "REQUIRED";
    case FieldRepetitionType::kOptional:
      return "OPTIONAL";
    case FieldRepetitionType::kRepeated:
      return "REPEATED";
  }
  return Unnamed("FieldRepetitionType", repetition);
}

std::string EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return Unnamed("Encoding", encoding);
}

std::string CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return "UNCOMPRESSED";
    case CompressionCodec::kSnappy:
      return "SNAPPY";
    case CompressionCodec::kGzip:
      return "GZIP";
    case CompressionCodec::kLzo:
      return "LZO";
    case CompressionCodec::kBrotli:
      return "BROTLI";
    case CompressionCodec::kLz4:
      return "LZ4";
    case CompressionCodec::kZstd:
      return "ZSTD";
    case CompressionCodec::kLz4Raw:
      return "LZ4_RAW";
  }
  return Unnamed("CompressionCodec", codec);
}

std::string PageTypeName(PageType type) {
  switch (type) {
    case PageType::kDataPage:
      return "DATA_PAGE";
    case PageType::kIndexPage:
      return "INDEX_PAGE";
    case PageType::kDictionaryPage:
      return "DICTIONARY_PAGE";
    case PageType::kDataPageV2:
      return "DATA_PAGE_V2";
  }
  return Unnamed("PageType", type);
}

std::string BoundaryOrderName(BoundaryOrder order) {
  switch (order) {
    case BoundaryOrder::kUnordered:
      return "UNORDERED";
    case BoundaryOrder::kAscending:
      return "ASCENDING";
    case BoundaryOrder::kDescending:
      return "DESCENDING";
  }
  return Unnamed("BoundaryOrder", order);
}

bool IsKnownPhysicalType(PhysicalType type) {
  auto i = static_cast<int32_t>(type);
  return i >= 0 && i <= static_cast<int32_t>(PhysicalType::kFixedLenByteArray);
}

int PhysicalTypeByteWidth(PhysicalType type) {
  switch (type) {
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    default:
      return 0;
  }
}

}  // namespace floe::parquet
