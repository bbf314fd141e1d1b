#include "floe/columnar/data_type.h"

#include <fmt/format.h>

namespace floe::columnar {
namespace {

DataType Simple(TypeId id) {
  DataType t;
  t.id = id;
  return t;
}

std::string_view UnitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "?";
}

}  // namespace

int DataType::FixedWidth() const {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kFloat16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
      return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return 8;
    case TypeId::kDecimal128:
      return 16;
    case TypeId::kFixedSizeBinary:
      return byte_width;
    default:
      return 0;
  }
}

bool operator==(const DataType& a, const DataType& b) {
  if (a.id != b.id) return false;
  switch (a.id) {
    case TypeId::kDecimal128:
      return a.precision == b.precision && a.scale == b.scale;
    case TypeId::kFixedSizeBinary:
      return a.byte_width == b.byte_width;
    case TypeId::kTime64:
      return a.unit == b.unit;
    case TypeId::kTimestamp:
      return a.unit == b.unit && a.timezone == b.timezone;
    case TypeId::kList:
    case TypeId::kStruct:
    case TypeId::kMap:
      return a.children == b.children;
    default:
      return true;
  }
}

std::string DataType::ToString() const {
  switch (id) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat16:
      return "float16";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kDecimal128:
      return fmt::format("decimal({}, {})", precision, scale);
    case TypeId::kDate32:
      return "date32";
    case TypeId::kTime64:
      return fmt::format("time64[{}]", UnitName(unit));
    case TypeId::kTimestamp:
      return timezone.empty() ? fmt::format("timestamp[{}]", UnitName(unit))
                              : fmt::format("timestamp[{}, {}]", UnitName(unit), timezone);
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kFixedSizeBinary:
      return fmt::format("fixed_size_binary[{}]", byte_width);
    case TypeId::kList:
      return fmt::format("list<{}: {}>", children.at(0).name, children.at(0).type.ToString());
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) s += ", ";
        s += children[i].name + ": " + children[i].type.ToString();
      }
      return s + ">";
    }
    case TypeId::kMap: {
      const auto& entries = children.at(0).type.children;
      return fmt::format("map<{}, {}>", entries.at(0).type.ToString(),
                         entries.at(1).type.ToString());
    }
  }
  return "?";
}

std::string DataType::SqlName() const {
  switch (id) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return "boolean";
    case TypeId::kInt8:
      return "tinyint";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "int";
    case TypeId::kInt64:
      return "long";
    case TypeId::kFloat16:
      return "float16";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kDate32:
      return "date";
    case TypeId::kTime64:
      return "time";
    case TypeId::kTimestamp:
      return std::string(timezone.empty() ? "timestamp" : "timestamptz") +
             (unit == TimeUnit::kNano ? "_ns" : "");
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kFixedSizeBinary:
      return fmt::format("fixed({})", byte_width);
    case TypeId::kList:
      return fmt::format("list<{}>", children.at(0).type.SqlName());
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) s += ", ";
        s += children[i].name + ": " + children[i].type.SqlName();
      }
      return s + ">";
    }
    case TypeId::kMap: {
      const auto& entries = children.at(0).type.children;
      return fmt::format("map<{}, {}>", entries.at(0).type.SqlName(), entries.at(1).type.SqlName());
    }
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kDecimal128:
      return ToString();
  }
  return "?";
}

DataType Bool() { return Simple(TypeId::kBool); }
DataType Int8() { return Simple(TypeId::kInt8); }
DataType Int16() { return Simple(TypeId::kInt16); }
DataType Int32() { return Simple(TypeId::kInt32); }
DataType Int64() { return Simple(TypeId::kInt64); }
DataType UInt8() { return Simple(TypeId::kUInt8); }
DataType UInt16() { return Simple(TypeId::kUInt16); }
DataType UInt32() { return Simple(TypeId::kUInt32); }
DataType UInt64() { return Simple(TypeId::kUInt64); }
DataType Float16() { return Simple(TypeId::kFloat16); }
DataType Float32() { return Simple(TypeId::kFloat32); }
DataType Float64() { return Simple(TypeId::kFloat64); }
DataType Date32() { return Simple(TypeId::kDate32); }
DataType String() { return Simple(TypeId::kString); }
DataType Binary() { return Simple(TypeId::kBinary); }

DataType Decimal128(int32_t precision, int32_t scale) {
  DataType t = Simple(TypeId::kDecimal128);
  t.precision = precision;
  t.scale = scale;
  return t;
}

DataType Time64(TimeUnit unit) {
  DataType t = Simple(TypeId::kTime64);
  t.unit = unit;
  return t;
}

DataType Timestamp(TimeUnit unit, std::string timezone) {
  DataType t = Simple(TypeId::kTimestamp);
  t.unit = unit;
  t.timezone = std::move(timezone);
  return t;
}

DataType FixedSizeBinary(int32_t byte_width) {
  DataType t = Simple(TypeId::kFixedSizeBinary);
  t.byte_width = byte_width;
  return t;
}

DataType List(Field item) {
  DataType t = Simple(TypeId::kList);
  t.children.push_back(std::move(item));
  return t;
}

DataType Struct(std::vector<Field> fields) {
  DataType t = Simple(TypeId::kStruct);
  t.children = std::move(fields);
  return t;
}

DataType Map(Field key, Field value) {
  DataType t = Simple(TypeId::kMap);
  key.nullable = false;
  t.children.push_back(Field{"entries", Struct({std::move(key), std::move(value)}), false, -1});
  return t;
}

std::optional<int> Schema::IndexOf(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string Schema::ToString() const {
  std::string s;
  for (const auto& f : fields) {
    s += fmt::format("{}: {}{}\n", f.name, f.type.ToString(), f.nullable ? "" : " not null");
  }
  return s;
}

}  // namespace floe::columnar
