// Dictionaries for the writer: a column chunk's distinct values in first-seen order, each value's
// index for RLE_DICTIONARY pages, and the PLAIN dictionary page. Values compare by their bytes
// (-0.0, +0.0 and NaN payloads stay distinct, so all read back exactly). Not thread safe.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace floe::parquet {

// INT32, INT64, FLOAT, DOUBLE (T = int32_t, int64_t, float, double).
template <typename T>
class NumericDictionary {
 public:
  NumericDictionary();

  // Writes the index of each value to indices[i], adding values not seen before; the indices of
  // the entries added are appended to *added (so the caller can hash them or bound them).
  void Insert(std::span<const T> values, int32_t* indices, std::vector<int32_t>* added);

  int32_t size() const { return static_cast<int32_t>(values_.size()); }
  const T& value(int32_t index) const { return values_[static_cast<size_t>(index)]; }
  const std::vector<T>& values() const { return values_; }
  // Bytes of the dictionary page before compression.
  int64_t plain_size() const { return static_cast<int64_t>(values_.size() * sizeof(T)); }
  void WritePlain(std::vector<uint8_t>* out) const;
  void Reset();

 private:
  void Grow();

  std::vector<T> values_;
  std::vector<int32_t> slots_;  // open addressing, -1 = empty; load factor <= 1/2
  uint64_t mask_ = 0;
  int shift_ = 0;  // 64 - log2(slots): the hash's top bits pick the slot
};

// BYTE_ARRAY (fixed_width 0) or FIXED_LEN_BYTE_ARRAY of fixed_width bytes.
class BytesDictionary {
 public:
  explicit BytesDictionary(int32_t fixed_width = 0);

  void Insert(std::span<const std::string_view> values, int32_t* indices,
              std::vector<int32_t>* added);

  int32_t size() const { return static_cast<int32_t>(hashes_.size()); }
  std::string_view value(int32_t index) const {
    const size_t i = static_cast<size_t>(index);
    return {data_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
  }
  int64_t plain_size() const { return plain_size_; }
  void WritePlain(std::vector<uint8_t>* out) const;
  void Reset();

 private:
  void Grow();

  int32_t fixed_width_;
  std::vector<char> data_;
  std::vector<uint32_t> offsets_{0};
  std::vector<uint64_t> hashes_;
  std::vector<int32_t> slots_;
  uint64_t mask_ = 0;
  int64_t plain_size_ = 0;
};

// The values section of an RLE_DICTIONARY data page: a byte holding the bit width of the largest
// index, then the RLE / bit-packed hybrid of the indices (runs of 8 or more equal indices as RLE
// runs, the rest bit-packed in groups of 8). Each index must be >= 0.
void EncodeDictionaryIndices(std::span<const int32_t> indices, std::vector<uint8_t>* out);

extern template class NumericDictionary<int32_t>;
extern template class NumericDictionary<int64_t>;
extern template class NumericDictionary<float>;
extern template class NumericDictionary<double>;

}  // namespace floe::parquet
