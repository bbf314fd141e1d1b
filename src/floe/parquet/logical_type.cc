#include "floe/parquet/logical_type.h"

#include <fmt/format.h>

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

namespace {

const char* TimeUnitName(LogicalType::TimeUnit unit) {
  switch (unit) {
    case LogicalType::TimeUnit::kMillis:
      return "MILLIS";
    case LogicalType::TimeUnit::kMicros:
      return "MICROS";
    case LogicalType::TimeUnit::kNanos:
      return "NANOS";
    case LogicalType::TimeUnit::kUnrecognized:
      break;
  }
  return "?";
}

}  // namespace

LogicalType LogicalType::Decimal(int32_t precision, int32_t scale) {
  LogicalType t = Of(Kind::kDecimal);
  t.precision = precision;
  t.scale = scale;
  return t;
}

LogicalType LogicalType::Time(bool is_adjusted_to_utc, TimeUnit unit) {
  LogicalType t = Of(Kind::kTime);
  t.is_adjusted_to_utc = is_adjusted_to_utc;
  t.unit = unit;
  return t;
}

LogicalType LogicalType::Timestamp(bool is_adjusted_to_utc, TimeUnit unit) {
  LogicalType t = Of(Kind::kTimestamp);
  t.is_adjusted_to_utc = is_adjusted_to_utc;
  t.unit = unit;
  return t;
}

LogicalType LogicalType::Integer(int8_t bit_width, bool is_signed) {
  LogicalType t = Of(Kind::kInteger);
  t.bit_width = bit_width;
  t.is_signed = is_signed;
  return t;
}

std::string LogicalType::ToString() const {
  switch (kind) {
    case Kind::kString:
      return "STRING";
    case Kind::kMap:
      return "MAP";
    case Kind::kList:
      return "LIST";
    case Kind::kEnum:
      return "ENUM";
    case Kind::kDecimal:
      return fmt::format("DECIMAL({},{})", precision, scale);
    case Kind::kDate:
      return "DATE";
    case Kind::kTime:
      return fmt::format("TIME({},{})", TimeUnitName(unit), is_adjusted_to_utc ? "UTC" : "local");
    case Kind::kTimestamp:
      return fmt::format("TIMESTAMP({},{})", TimeUnitName(unit),
                         is_adjusted_to_utc ? "UTC" : "local");
    case Kind::kInteger:
      return fmt::format("INTEGER({},{})", bit_width, is_signed ? "signed" : "unsigned");
    case Kind::kUnknown:
      return "UNKNOWN";
    case Kind::kJson:
      return "JSON";
    case Kind::kBson:
      return "BSON";
    case Kind::kUuid:
      return "UUID";
    case Kind::kFloat16:
      return "FLOAT16";
    case Kind::kVariant:
      return "VARIANT";
    case Kind::kGeometry:
      return "GEOMETRY";
    case Kind::kGeography:
      return "GEOGRAPHY";
    case Kind::kUnrecognized:
      break;
  }
  return "unrecognized logical type";
}

namespace internal {

namespace {

LogicalType::TimeUnit TimeUnitFromThrift(const format::TimeUnit& in) {
  if (in.__isset.MILLIS) return LogicalType::TimeUnit::kMillis;
  if (in.__isset.MICROS) return LogicalType::TimeUnit::kMicros;
  if (in.__isset.NANOS) return LogicalType::TimeUnit::kNanos;
  return LogicalType::TimeUnit::kUnrecognized;
}

format::TimeUnit TimeUnitToThrift(LogicalType::TimeUnit in) {
  format::TimeUnit out;
  switch (in) {
    case LogicalType::TimeUnit::kMillis:
      out.__set_MILLIS({});
      break;
    case LogicalType::TimeUnit::kMicros:
      out.__set_MICROS({});
      break;
    case LogicalType::TimeUnit::kNanos:
      out.__set_NANOS({});
      break;
    case LogicalType::TimeUnit::kUnrecognized:
      break;
  }
  return out;
}

}  // namespace

LogicalType LogicalTypeFromThrift(const format::LogicalType& in) {
  using Kind = LogicalType::Kind;
  const auto& is = in.__isset;
  if (is.STRING) return LogicalType::Of(Kind::kString);
  if (is.MAP) return LogicalType::Of(Kind::kMap);
  if (is.LIST) return LogicalType::Of(Kind::kList);
  if (is.ENUM) return LogicalType::Of(Kind::kEnum);
  if (is.DECIMAL) return LogicalType::Decimal(in.DECIMAL.precision, in.DECIMAL.scale);
  if (is.DATE) return LogicalType::Of(Kind::kDate);
  if (is.TIME) {
    return LogicalType::Time(in.TIME.isAdjustedToUTC, TimeUnitFromThrift(in.TIME.unit));
  }
  if (is.TIMESTAMP) {
    return LogicalType::Timestamp(in.TIMESTAMP.isAdjustedToUTC,
                                  TimeUnitFromThrift(in.TIMESTAMP.unit));
  }
  if (is.INTEGER) return LogicalType::Integer(in.INTEGER.bitWidth, in.INTEGER.isSigned);
  if (is.UNKNOWN) return LogicalType::Of(Kind::kUnknown);
  if (is.JSON) return LogicalType::Of(Kind::kJson);
  if (is.BSON) return LogicalType::Of(Kind::kBson);
  if (is.UUID) return LogicalType::Of(Kind::kUuid);
  if (is.FLOAT16) return LogicalType::Of(Kind::kFloat16);
  if (is.VARIANT) {
    LogicalType t = LogicalType::Of(Kind::kVariant);
    if (in.VARIANT.__isset.specification_version) {
      t.specification_version = in.VARIANT.specification_version;
    }
    return t;
  }
  if (is.GEOMETRY) {
    LogicalType t = LogicalType::Of(Kind::kGeometry);
    if (in.GEOMETRY.__isset.crs) t.crs = in.GEOMETRY.crs;
    return t;
  }
  if (is.GEOGRAPHY) {
    LogicalType t = LogicalType::Of(Kind::kGeography);
    if (in.GEOGRAPHY.__isset.crs) t.crs = in.GEOGRAPHY.crs;
    if (in.GEOGRAPHY.__isset.algorithm) t.edge_interpolation_algorithm = in.GEOGRAPHY.algorithm;
    return t;
  }
  return LogicalType::Of(Kind::kUnrecognized);
}

format::LogicalType LogicalTypeToThrift(const LogicalType& in) {
  using Kind = LogicalType::Kind;
  format::LogicalType out;
  switch (in.kind) {
    case Kind::kString:
      out.__set_STRING({});
      break;
    case Kind::kMap:
      out.__set_MAP({});
      break;
    case Kind::kList:
      out.__set_LIST({});
      break;
    case Kind::kEnum:
      out.__set_ENUM({});
      break;
    case Kind::kDecimal: {
      format::DecimalType d;
      d.scale = in.scale;
      d.precision = in.precision;
      out.__set_DECIMAL(d);
      break;
    }
    case Kind::kDate:
      out.__set_DATE({});
      break;
    case Kind::kTime: {
      format::TimeType t;
      t.isAdjustedToUTC = in.is_adjusted_to_utc;
      t.unit = TimeUnitToThrift(in.unit);
      out.__set_TIME(t);
      break;
    }
    case Kind::kTimestamp: {
      format::TimestampType t;
      t.isAdjustedToUTC = in.is_adjusted_to_utc;
      t.unit = TimeUnitToThrift(in.unit);
      out.__set_TIMESTAMP(t);
      break;
    }
    case Kind::kInteger: {
      format::IntType t;
      t.bitWidth = in.bit_width;
      t.isSigned = in.is_signed;
      out.__set_INTEGER(t);
      break;
    }
    case Kind::kUnknown:
      out.__set_UNKNOWN({});
      break;
    case Kind::kJson:
      out.__set_JSON({});
      break;
    case Kind::kBson:
      out.__set_BSON({});
      break;
    case Kind::kUuid:
      out.__set_UUID({});
      break;
    case Kind::kFloat16:
      out.__set_FLOAT16({});
      break;
    case Kind::kVariant: {
      format::VariantType t;
      if (in.specification_version) t.__set_specification_version(*in.specification_version);
      out.__set_VARIANT(t);
      break;
    }
    case Kind::kGeometry: {
      format::GeometryType t;
      if (in.crs) t.__set_crs(*in.crs);
      out.__set_GEOMETRY(t);
      break;
    }
    case Kind::kGeography: {
      format::GeographyType t;
      if (in.crs) t.__set_crs(*in.crs);
      if (in.edge_interpolation_algorithm) t.__set_algorithm(*in.edge_interpolation_algorithm);
      out.__set_GEOGRAPHY(t);
      break;
    }
    case Kind::kUnrecognized:
      break;  // written as an empty union, which a reader again sees as unrecognised
  }
  return out;
}

}  // namespace internal

}  // namespace floe::parquet
