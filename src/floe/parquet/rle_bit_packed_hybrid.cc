#include "floe/parquet/rle_bit_packed_hybrid.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

#include "floe/parquet/bit_util_internal.h"

namespace floe::parquet {

Result<std::pair<ByteView, ByteView>> SplitLengthPrefixed(ByteView data, std::string_view what) {
  if (data.size() < 4) {
    return Corrupt("{}: {} bytes cannot hold the 4-byte length prefix", what, data.size());
  }
  uint32_t length = internal::LoadLittleEndian<uint32_t>(data.data());
  if (length > data.size() - 4) {
    return Corrupt("{}: length prefix says {} bytes, {} remain", what, length, data.size() - 4);
  }
  return std::pair{data.subspan(4, length), data.subspan(4 + length)};
}

// ---- decoder --------------------------------------------------------------------------------

Status RleBitPackedHybridDecoder::Reset(ByteView data, int bit_width) {
  if (bit_width < 0 || bit_width > kMaxRleBitWidth) {
    return Corrupt("RLE/bit-packed hybrid: bit width {} is outside 0..{}", bit_width,
                   kMaxRleBitWidth);
  }
  data_ = data;
  pos_ = 0;
  bit_width_ = bit_width;
  run_left_ = 0;
  return {};
}

Status RleBitPackedHybridDecoder::NextRun(int64_t decoded, int64_t wanted) {
  // Runs of zero values are legal and skipped; each header takes a byte, so this ends.
  while (true) {
    const uint8_t* p = data_.data() + pos_;
    const uint8_t* end = data_.data() + data_.size();
    if (p == end) {
      return Corrupt("RLE/bit-packed hybrid: data ends after {} of {} values", decoded, wanted);
    }
    uint64_t header = 0;
    if (!internal::ReadUleb128(&p, end, &header)) {
      return Corrupt("RLE/bit-packed hybrid: run header at byte {} is malformed", pos_);
    }
    pos_ = static_cast<size_t>(p - data_.data());
    const size_t remaining = data_.size() - pos_;
    if (header & 1) {
      const uint64_t groups = header >> 1;
      rle_ = false;
      packed_ = data_.data() + pos_;
      packed_index_ = 0;
      if (bit_width_ == 0) {
        packed_bytes_ = 0;
        run_left_ = static_cast<int64_t>(
            std::min<uint64_t>(groups, std::numeric_limits<int64_t>::max() / 8) * 8);
      } else {
        // groups * 8 values * bit_width bits = groups * bit_width bytes; keep only what exists.
        uint64_t bytes =
            groups > remaining ? remaining : std::min<uint64_t>(groups * bit_width_, remaining);
        uint64_t values = std::min<uint64_t>(groups * 8, bytes * 8 / bit_width_);
        packed_bytes_ = static_cast<size_t>(bytes);
        run_left_ = static_cast<int64_t>(values);
        pos_ += packed_bytes_;
      }
    } else {
      rle_ = true;
      run_left_ = static_cast<int64_t>(
          std::min<uint64_t>(header >> 1, std::numeric_limits<int64_t>::max()));
      const size_t value_bytes = static_cast<size_t>((bit_width_ + 7) / 8);
      if (value_bytes > remaining) {
        return Corrupt("RLE/bit-packed hybrid: data ends inside a run's value at byte {}", pos_);
      }
      uint64_t v = 0;
      for (size_t i = 0; i < value_bytes; ++i) v |= uint64_t{data_[pos_ + i]} << (8 * i);
      pos_ += value_bytes;
      if (internal::BitWidth(v) > bit_width_) {
        return Corrupt("RLE/bit-packed hybrid: run value {} does not fit {} bits", v, bit_width_);
      }
      rle_value_ = v;
    }
    if (run_left_ > 0) return {};
  }
}

namespace {

// Value `J` of a group of 8 values of W bits that starts at `g`: one unaligned 8-byte load from
// its first byte (a value of <= 32 bits at bit offset <= 7 fits), shifted and masked, all
// constants known at compile time.
template <int W, typename T, size_t... J>
inline void Unpack8(const uint8_t* g, T* d, std::index_sequence<J...>) {
  constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
  ((d[J] = static_cast<T>((internal::LoadLittleEndian<uint64_t>(g + J * W / 8) >> (J * W % 8)) &
                          kMask)),
   ...);
}

// Unpacks values [index, index + n) of a bit-packed run; the caller checked that each value's
// first byte has 8 bytes of the run from it.
template <int W, typename T>
void UnpackFast(const uint8_t* packed, uint64_t index, int64_t n, T* dst) {
  constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
  auto one = [&](uint64_t at) {
    const uint64_t bit = at * W;
    return static_cast<T>((internal::LoadLittleEndian<uint64_t>(packed + (bit >> 3)) >> (bit & 7)) &
                          kMask);
  };
  int64_t i = 0;
  for (; i < n && (index + static_cast<uint64_t>(i)) % 8 != 0; ++i) dst[i] = one(index + i);
  // Whole groups: 8 values of W bits are exactly W bytes.
  for (; i + 8 <= n; i += 8) {
    Unpack8<W>(packed + (index + static_cast<uint64_t>(i)) / 8 * W, dst + i,
               std::make_index_sequence<8>{});
  }
  for (; i < n; ++i) dst[i] = one(index + i);
}

template <typename T>
using Unpacker = void (*)(const uint8_t*, uint64_t, int64_t, T*);

template <typename T, int... W>
constexpr std::array<Unpacker<T>, sizeof...(W) + 1> MakeUnpackers(
    std::integer_sequence<int, W...>) {
  return {nullptr, &UnpackFast<W + 1, T>...};
}

// Indexed by bit width 1..32 (0 unused): the width picks a fully specialised loop.
template <typename T>
constexpr auto kUnpackers = MakeUnpackers<T>(std::make_integer_sequence<int, kMaxRleBitWidth>{});

}  // namespace

template <typename T>
Status RleBitPackedHybridDecoder::Decode(std::span<T> out) {
  const int64_t wanted = static_cast<int64_t>(out.size());
  int64_t done = 0;
  uint64_t scratch[64];
  while (done < wanted) {
    if (run_left_ == 0) FLOE_RETURN_IF_ERROR(NextRun(done, wanted));
    int64_t k = std::min(run_left_, wanted - done);
    if (rle_) {
      std::fill(out.begin() + done, out.begin() + done + k, static_cast<T>(rle_value_));
      done += k;
      run_left_ -= k;
      continue;
    }
    if (bit_width_ > 0 && bit_width_ <= 32) {
      // Fast path: a value of <= 32 bits starting at any bit of a byte lies within the 8 bytes
      // from that byte, so one unaligned load, shift and mask decode it, written straight to
      // `out`. The window may reach past the run into the rest of the data (later runs), which
      // the mask drops; only values whose window passes the end of the data take the slow path.
      // (Writers emit many short bit-packed runs between RLE runs of a frequent value: bounded
      // by the run, each of their values took the slow path.)
      const uint64_t w = static_cast<uint64_t>(bit_width_);
      const uint64_t readable = static_cast<uint64_t>(data_.data() + data_.size() - packed_);
      const uint64_t safe_bits = readable >= 8 ? (readable - 8) * 8 : 0;
      // Values whose first bit is below safe_bits + 1 (and so whose byte + 8 <= readable).
      const uint64_t safe_values = readable >= 8 ? safe_bits / w + 1 : 0;
      int64_t fast = 0;
      if (packed_index_ < safe_values) {
        fast = static_cast<int64_t>(
            std::min<uint64_t>(static_cast<uint64_t>(k), safe_values - packed_index_));
      }
      kUnpackers<T>[bit_width_](packed_, packed_index_, fast, out.data() + done);
      packed_index_ += static_cast<uint64_t>(fast);
      done += fast;
      run_left_ -= fast;
      k -= fast;
    }
    while (k > 0) {
      size_t chunk = static_cast<size_t>(std::min<int64_t>(k, 64));
      internal::UnpackBits(packed_, packed_bytes_, packed_index_ * bit_width_, bit_width_, scratch,
                           chunk);
      for (size_t i = 0; i < chunk; ++i) out[done + i] = static_cast<T>(scratch[i]);
      packed_index_ += chunk;
      done += static_cast<int64_t>(chunk);
      run_left_ -= static_cast<int64_t>(chunk);
      k -= static_cast<int64_t>(chunk);
    }
  }
  return {};
}

template Status RleBitPackedHybridDecoder::Decode(std::span<bool>);
template Status RleBitPackedHybridDecoder::Decode(std::span<uint8_t>);
template Status RleBitPackedHybridDecoder::Decode(std::span<int16_t>);
template Status RleBitPackedHybridDecoder::Decode(std::span<int32_t>);
template Status RleBitPackedHybridDecoder::Decode(std::span<uint32_t>);

Status RleBitPackedHybridDecoder::Skip(int64_t n) {
  int64_t done = 0;
  while (done < n) {
    if (run_left_ == 0) FLOE_RETURN_IF_ERROR(NextRun(done, n));
    int64_t k = std::min(run_left_, n - done);
    if (!rle_) packed_index_ += static_cast<uint64_t>(k);
    run_left_ -= k;
    done += k;
  }
  return {};
}

// ---- encoder --------------------------------------------------------------------------------

void RleBitPackedHybridEncoder::Put(std::span<const int16_t> values) {
  for (int16_t v : values) values_.push_back(static_cast<uint16_t>(v));
}

void RleBitPackedHybridEncoder::Put(std::span<const int32_t> values) {
  for (int32_t v : values) values_.push_back(static_cast<uint32_t>(v));
}

size_t RleBitPackedHybridEncoder::MaxEncodedSize() const {
  // Worst case: everything bit-packed in one run (header <= 5 bytes) plus group padding, or
  // alternating short runs; 2 bytes per 8 values covers the headers of the latter.
  size_t n = values_.size();
  return static_cast<size_t>(internal::BytesForBits(uint64_t{n + 8} * bit_width_)) + n / 4 + 16;
}

void RleBitPackedHybridEncoder::Flush(std::vector<uint8_t>* out) {
  const size_t n = values_.size();
  const size_t value_bytes = static_cast<size_t>((bit_width_ + 7) / 8);
  std::vector<uint64_t> literals;  // pending bit-packed values
  auto flush_literals = [&](bool pad) {
    if (literals.empty()) return;
    if (pad) literals.resize((literals.size() + 7) / 8 * 8, 0);
    internal::WriteUleb128((uint64_t{literals.size()} / 8) << 1 | 1, out);
    internal::PackBits(literals.data(), literals.size(), bit_width_, out);
    literals.clear();
  };
  size_t i = 0;
  while (i < n) {
    size_t run = 1;
    while (i + run < n && values_[i + run] == values_[i]) ++run;
    if (run >= 8) {
      // Top up pending literals to a whole group with values from this run first.
      size_t take = literals.size() % 8 == 0 ? 0 : 8 - literals.size() % 8;
      for (size_t t = 0; t < take; ++t) literals.push_back(values_[i]);
      flush_literals(false);
      i += take;
      run -= take;
      internal::WriteUleb128(uint64_t{run} << 1, out);
      for (size_t b = 0; b < value_bytes; ++b) {
        out->push_back(static_cast<uint8_t>(values_[i] >> (8 * b)));
      }
      i += run;
    } else {
      for (size_t t = 0; t < run; ++t) literals.push_back(values_[i + t]);
      i += run;
    }
  }
  flush_literals(true);  // the padding values are never read: readers know the count
  values_.clear();
}

// ---- booleans -------------------------------------------------------------------------------

Status RleBooleanDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) return Corrupt("RLE BOOLEAN: negative value count {}", num_values);
  values_left_ = num_values;
  if (num_values == 0 && data.empty()) return rle_.Reset({}, 1);
  FLOE_ASSIGN_OR_RETURN(auto parts, SplitLengthPrefixed(data, "RLE BOOLEAN values"));
  return rle_.Reset(parts.first, 1);
}

Status RleBooleanDecoder::Decode(std::span<bool> out) {
  if (static_cast<int64_t>(out.size()) > values_left_) {
    return Corrupt("RLE BOOLEAN: {} values requested, the page has {} left", out.size(),
                   values_left_);
  }
  FLOE_RETURN_IF_ERROR(rle_.Decode(out));
  values_left_ -= static_cast<int64_t>(out.size());
  return {};
}

Status RleBooleanDecoder::Skip(int64_t n) {
  if (n > values_left_) {
    return Corrupt("RLE BOOLEAN: {} values skipped, the page has {} left", n, values_left_);
  }
  FLOE_RETURN_IF_ERROR(rle_.Skip(n));
  values_left_ -= n;
  return {};
}

Status RleBooleanEncoder::Put(std::span<const bool> values) {
  for (bool b : values) rle_.Put(b ? 1 : 0);
  return {};
}

Status RleBooleanEncoder::Flush(std::vector<uint8_t>* out) {
  size_t start = out->size();
  out->resize(start + 4);
  rle_.Flush(out);
  uint32_t length = static_cast<uint32_t>(out->size() - start - 4);
  std::memcpy(out->data() + start, &length, 4);
  return {};
}

}  // namespace floe::parquet
