// Builds a column of a given type from values written as text, as CSV fields and JSON scalars
// are: integers, decimals, floats, booleans (true/false/1/0), dates (YYYY-MM-DD), times,
// timestamps (ISO 8601, 'T' or ' ', optional offset), uuids, strings. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column_builder.h"

namespace floe::columnar {

class TextValueBuilder {
 public:
  explicit TextValueBuilder(const DataType& t);

  void Null();
  // An error saying why `s` is not a value of the type ("'x' is not a bigint value"); the caller
  // names the file, line and column.
  Status Add(std::string_view s);
  Result<ColumnPtr> Finish();
  const DataType& type() const { return type_; }

 private:
  template <typename T>
  void Push(T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    values_.insert(values_.end(), p, p + sizeof(T));
    validity_.AppendValid();
  }

  DataType type_;
  std::vector<uint8_t> values_;
  ValidityBuilder validity_;
  BinaryBuilder strings_;
  BoolBuilder bools_;
};

}  // namespace floe::columnar
