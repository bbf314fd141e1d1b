// Builders that append values row by row (or in bulk) and produce an immutable Column.
// Not thread-safe; one builder per producing thread. Finish() leaves the builder empty and
// reusable.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "floe/columnar/column.h"

namespace floe::columnar {

// Validity bits, allocated lazily on the first null so all-valid columns carry no bitmap.
class ValidityBuilder {
 public:
  void AppendValid();
  void AppendNull();
  void AppendValid(int64_t n);
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  Buffer Finish();

 private:
  void Push(bool valid);
  std::vector<uint8_t> bits_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
};

template <typename T>
class FixedWidthBuilder {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit FixedWidthBuilder(DataType type) : type_(std::move(type)) {}
  void Reserve(int64_t n) { values_.reserve(values_.size() + n); }
  void Append(T v) {
    values_.push_back(v);
    validity_.AppendValid();
  }
  void AppendNull() {
    values_.push_back(T{});
    validity_.AppendNull();
  }
  void AppendValues(const T* v, int64_t n) {
    values_.insert(values_.end(), v, v + n);
    validity_.AppendValid(n);
  }
  int64_t length() const { return validity_.length(); }
  ColumnPtr Finish() {
    auto c = std::make_shared<Column>();
    c->type = type_;
    c->length = validity_.length();
    c->null_count = validity_.null_count();
    c->validity = validity_.Finish();
    std::vector<uint8_t> bytes(values_.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values_.data(), bytes.size());
    c->values = Buffer(std::move(bytes));
    values_.clear();
    return c;
  }

 private:
  DataType type_;
  std::vector<T> values_;
  ValidityBuilder validity_;
};

class BoolBuilder {
 public:
  void Append(bool v);
  void AppendNull();
  int64_t length() const { return validity_.length(); }
  ColumnPtr Finish();

 private:
  std::vector<uint8_t> bits_;
  ValidityBuilder validity_;
};

// kString, kBinary (int32 offsets) and kFixedSizeBinary.
class BinaryBuilder {
 public:
  explicit BinaryBuilder(DataType type = String());
  void Reserve(int64_t rows, int64_t bytes);
  // Fails when the column would pass 2 GiB of bytes (int32 offsets).
  Status Append(std::string_view v);
  void AppendNull();
  int64_t length() const { return validity_.length(); }
  ColumnPtr Finish();

 private:
  DataType type_;
  std::vector<uint8_t> data_;
  std::vector<int32_t> offsets_{0};
  ValidityBuilder validity_;
};

// A column of `rows` copies of one string or binary value (not fixed-size), with the one-entry
// dictionary and all-zero codes that let consumers work once: filled by doubling copies rather
// than row by row (a scan's `_file` column is the file's path on every row). Fails past 2 GiB.
Result<ColumnPtr> RepeatedBinary(const DataType& type, std::string_view value, int64_t rows);

// A column of `rows` NULLs of any type, nested ones with the children and offsets their layout
// needs (empty lists, structs of null fields).
ColumnPtr NullColumn(const DataType& type, int64_t rows);

}  // namespace floe::columnar
