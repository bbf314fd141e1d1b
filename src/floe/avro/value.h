// Value: one generic Avro datum (the data of a manifest entry, a manifest-list row, ...).
// Plain data with value semantics; records keep fields in schema order, maps in file order.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace floe::avro {

struct Value;

struct RecordValue {
  std::vector<Value> fields;
  friend bool operator==(const RecordValue&, const RecordValue&) = default;
};
struct ArrayValue {
  std::vector<Value> items;
  friend bool operator==(const ArrayValue&, const ArrayValue&) = default;
};
struct MapValue {
  std::vector<std::pair<std::string, Value>> entries;
  friend bool operator==(const MapValue&, const MapValue&);
};
// bytes and fixed
struct BytesValue {
  std::string data;
  friend bool operator==(const BytesValue&, const BytesValue&) = default;
};
// enum: the symbol's index
struct EnumValue {
  int32_t index = 0;
  friend bool operator==(const EnumValue&, const EnumValue&) = default;
};

struct Value {
  using Storage = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                               BytesValue, EnumValue, RecordValue, ArrayValue, MapValue>;
  Storage v;

  Value() = default;
  Value(bool b) : v(b) {}
  Value(int32_t i) : v(i) {}
  Value(int64_t i) : v(i) {}
  Value(float f) : v(f) {}
  Value(double d) : v(d) {}
  Value(std::string s) : v(std::move(s)) {}
  Value(const char* s) : v(std::string(s)) {}
  Value(BytesValue b) : v(std::move(b)) {}
  Value(EnumValue e) : v(e) {}
  Value(RecordValue r) : v(std::move(r)) {}
  Value(ArrayValue a) : v(std::move(a)) {}
  Value(MapValue m) : v(std::move(m)) {}

  static Value Null() { return Value(); }
  static Value Bytes(std::string data) { return Value(BytesValue{std::move(data)}); }

  bool is_null() const { return std::holds_alternative<std::monostate>(v); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(v);
  }
  template <typename T>
  const T& as() const {
    return std::get<T>(v);
  }
  template <typename T>
  T& as() {
    return std::get<T>(v);
  }
  // Record field i.
  const Value& operator[](size_t i) const { return as<RecordValue>().fields.at(i); }

  friend bool operator==(const Value&, const Value&) = default;
};

// Defined once Value is complete: comparing entries instantiates std::pair<std::string, Value>,
// which the standard (and clang) refuses for an incomplete Value.
inline bool operator==(const MapValue& a, const MapValue& b) { return a.entries == b.entries; }

}  // namespace floe::avro
