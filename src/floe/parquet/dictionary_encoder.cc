#include "floe/parquet/dictionary_encoder.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "floe/parquet/bit_util_internal.h"

namespace floe::parquet {

namespace {

constexpr size_t kInitialSlots = 1024;

// Fibonacci hashing: one multiply, the top bits are well mixed even for small integer keys.
inline uint64_t Slot(uint64_t key, int shift) { return (key * 0x9E3779B97F4A7C15ULL) >> shift; }

template <typename T>
inline uint64_t KeyBits(T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

}  // namespace

// ---- numbers --------------------------------------------------------------------------------

template <typename T>
NumericDictionary<T>::NumericDictionary() {
  Reset();
}

template <typename T>
void NumericDictionary<T>::Reset() {
  values_.clear();
  slots_.assign(kInitialSlots, -1);
  mask_ = kInitialSlots - 1;
  shift_ = 64 - std::countr_zero(kInitialSlots);
}

template <typename T>
void NumericDictionary<T>::Grow() {
  const size_t n = slots_.size() * 2;
  slots_.assign(n, -1);
  mask_ = n - 1;
  shift_ = 64 - std::countr_zero(n);
  for (size_t i = 0; i < values_.size(); ++i) {
    uint64_t s = Slot(KeyBits(values_[i]), shift_);
    while (slots_[s] >= 0) s = (s + 1) & mask_;
    slots_[s] = static_cast<int32_t>(i);
  }
}

template <typename T>
void NumericDictionary<T>::Insert(std::span<const T> values, int32_t* indices,
                                  std::vector<int32_t>* added) {
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t key = KeyBits(values[i]);
    uint64_t s = Slot(key, shift_);
    int32_t found;
    while (true) {
      found = slots_[s];
      if (found < 0) {
        found = static_cast<int32_t>(values_.size());
        values_.push_back(values[i]);
        slots_[s] = found;
        added->push_back(found);
        if (values_.size() * 2 > slots_.size()) Grow();
        break;
      }
      if (KeyBits(values_[static_cast<size_t>(found)]) == key) break;
      s = (s + 1) & mask_;
    }
    indices[i] = found;
  }
}

template <typename T>
void NumericDictionary<T>::WritePlain(std::vector<uint8_t>* out) const {
  const auto* bytes = reinterpret_cast<const uint8_t*>(values_.data());
  out->insert(out->end(), bytes, bytes + values_.size() * sizeof(T));
}

template class NumericDictionary<int32_t>;
template class NumericDictionary<int64_t>;
template class NumericDictionary<float>;
template class NumericDictionary<double>;

// ---- byte arrays ----------------------------------------------------------------------------

BytesDictionary::BytesDictionary(int32_t fixed_width) : fixed_width_(fixed_width) { Reset(); }

void BytesDictionary::Reset() {
  data_.clear();
  offsets_.assign(1, 0);
  hashes_.clear();
  slots_.assign(kInitialSlots, -1);
  mask_ = kInitialSlots - 1;
  plain_size_ = 0;
}

void BytesDictionary::Grow() {
  const size_t n = slots_.size() * 2;
  slots_.assign(n, -1);
  mask_ = n - 1;
  for (size_t i = 0; i < hashes_.size(); ++i) {
    uint64_t s = hashes_[i] & mask_;
    while (slots_[s] >= 0) s = (s + 1) & mask_;
    slots_[s] = static_cast<int32_t>(i);
  }
}

void BytesDictionary::Insert(std::span<const std::string_view> values, int32_t* indices,
                             std::vector<int32_t>* added) {
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string_view v = values[i];
    const uint64_t h = XXH3_64bits(v.data(), v.size());
    uint64_t s = h & mask_;
    int32_t found;
    while (true) {
      found = slots_[s];
      if (found < 0) {
        found = static_cast<int32_t>(hashes_.size());
        data_.insert(data_.end(), v.begin(), v.end());
        offsets_.push_back(static_cast<uint32_t>(data_.size()));
        hashes_.push_back(h);
        plain_size_ += static_cast<int64_t>(v.size()) + (fixed_width_ > 0 ? 0 : 4);
        slots_[s] = found;
        added->push_back(found);
        if (hashes_.size() * 2 > slots_.size()) Grow();
        break;
      }
      if (hashes_[static_cast<size_t>(found)] == h && value(found) == v) break;
      s = (s + 1) & mask_;
    }
    indices[i] = found;
  }
}

void BytesDictionary::WritePlain(std::vector<uint8_t>* out) const {
  out->reserve(out->size() + static_cast<size_t>(plain_size_));
  for (int32_t i = 0; i < size(); ++i) {
    std::string_view v = value(i);
    if (fixed_width_ == 0) {
      uint32_t len = static_cast<uint32_t>(v.size());
      const auto* l = reinterpret_cast<const uint8_t*>(&len);
      out->insert(out->end(), l, l + 4);
    }
    out->insert(out->end(), v.begin(), v.end());
  }
}

// ---- index pages ----------------------------------------------------------------------------

namespace {

// Appends `n` values of `width` bits (1..32), LSB first, zero-padded to whole bytes.
void PackIndices(const int32_t* v, size_t n, int width, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + (n * static_cast<size_t>(width) + 7) / 8);
  uint8_t* dst = out->data() + at;
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    acc |= static_cast<uint64_t>(static_cast<uint32_t>(v[i])) << bits;
    bits += width;
    while (bits >= 8) {
      *dst++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) *dst = static_cast<uint8_t>(acc);
}

}  // namespace

void EncodeDictionaryIndices(std::span<const int32_t> indices, std::vector<uint8_t>* out) {
  int32_t max = 0;
  for (int32_t i : indices) max = std::max(max, i);
  const int width = internal::BitWidth(static_cast<uint64_t>(max));
  out->push_back(static_cast<uint8_t>(width));
  const size_t n = indices.size();
  if (n == 0) return;
  const int32_t* v = indices.data();
  const size_t value_bytes = static_cast<size_t>((width + 7) / 8);
  auto literal = [&](size_t begin, size_t end) {  // end - begin a multiple of 8, or the tail
    if (end <= begin) return;
    const size_t groups = (end - begin + 7) / 8;
    internal::WriteUleb128(static_cast<uint64_t>(groups) << 1 | 1, out);
    if (width == 0) return;
    PackIndices(v + begin, end - begin, width, out);
    const size_t padded = (groups * 8 * static_cast<size_t>(width) + 7) / 8;
    const size_t written = ((end - begin) * static_cast<size_t>(width) + 7) / 8;
    out->resize(out->size() + padded - written, 0);  // the last group's padding values
  };
  size_t literal_start = 0;
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && v[j] == v[i]) ++j;
    if (j - i >= 8) {
      // Fill the pending literals up to a whole group with this run's first values.
      const size_t pending = i - literal_start;
      const size_t take = pending % 8 == 0 ? 0 : 8 - pending % 8;
      if (j - i - take >= 8) {
        literal(literal_start, i + take);
        const uint64_t run = j - i - take;
        internal::WriteUleb128(run << 1, out);
        const uint32_t value = static_cast<uint32_t>(v[i]);
        for (size_t b = 0; b < value_bytes; ++b)
          out->push_back(static_cast<uint8_t>(value >> (8 * b)));
        literal_start = j;
      }
    }
    i = j;
  }
  literal(literal_start, n);
}

}  // namespace floe::parquet
