// The Parquet format's enumerations (physical type, encoding, codec, page type, ...) as floe enums
// with fixed int32 underlying types, so a newer writer's value survives parsing unchanged; code
// switching on one must handle unknown values (the *Name functions print "Encoding(12)").
#pragma once

#include <cstdint>
#include <string>

namespace floe::parquet {

// The spec's `Type`: how values are stored.
enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// Deprecated annotations, superseded by LogicalType but still written for old readers.
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class FieldRepetitionType : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // deprecated: Hadoop-framed LZ4
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum class BoundaryOrder : int32_t {
  kUnordered = 0,
  kAscending = 1,
  kDescending = 2,
};

// Names as the spec spells them ("FIXED_LEN_BYTE_ARRAY", "RLE_DICTIONARY", "ZSTD"), or
// "Encoding(42)" for a value the spec (as floe knows it) does not define.
std::string PhysicalTypeName(PhysicalType type);
std::string ConvertedTypeName(ConvertedType type);
std::string FieldRepetitionTypeName(FieldRepetitionType repetition);
std::string EncodingName(Encoding encoding);
std::string CompressionCodecName(CompressionCodec codec);
std::string PageTypeName(PageType type);
std::string BoundaryOrderName(BoundaryOrder order);

// Whether `type` is one of the eight physical types of the spec.
bool IsKnownPhysicalType(PhysicalType type);

// Bytes per value of a fixed-width physical type: 4, 8 or 12; 0 for BOOLEAN (bit-packed),
// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (whose width is the schema's type_length).
int PhysicalTypeByteWidth(PhysicalType type);

}  // namespace floe::parquet
