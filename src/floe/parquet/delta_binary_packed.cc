#include "floe/parquet/delta_binary_packed.h"

#include <algorithm>
#include <limits>

#include "floe/parquet/bit_util_internal.h"

namespace floe::parquet {

namespace {

constexpr std::string_view kName = "DELTA_BINARY_PACKED";

struct Header {
  uint64_t block_size = 0;
  uint64_t miniblocks = 0;
  uint64_t total = 0;
  uint64_t first = 0;  // two's complement bits of the first value
  size_t length = 0;   // bytes the header took
};

Result<Header> ParseHeader(ByteView data) {
  const uint8_t* p = data.data();
  const uint8_t* end = p + data.size();
  Header h;
  uint64_t zigzag_first = 0;
  if (!internal::ReadUleb128(&p, end, &h.block_size) ||
      !internal::ReadUleb128(&p, end, &h.miniblocks) || !internal::ReadUleb128(&p, end, &h.total) ||
      !internal::ReadUleb128(&p, end, &zigzag_first)) {
    return Corrupt("{}: header is truncated or malformed", kName);
  }
  if (h.block_size == 0 || h.block_size % 128 != 0 ||
      h.block_size > std::numeric_limits<int32_t>::max()) {
    return Corrupt("{}: block size {} is not a positive multiple of 128", kName, h.block_size);
  }
  if (h.miniblocks == 0 || h.block_size % h.miniblocks != 0 ||
      (h.block_size / h.miniblocks) % 32 != 0) {
    return Corrupt("{}: {} miniblocks do not split a block of {} into multiples of 32", kName,
                   h.miniblocks, h.block_size);
  }
  if (h.total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Corrupt("{}: value count {} exceeds a page's limit", kName, h.total);
  }
  h.first = static_cast<uint64_t>(internal::ZigZagDecode(zigzag_first));
  h.length = static_cast<size_t>(p - data.data());
  return h;
}

}  // namespace

Status DeltaBinaryPackedDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) return Corrupt("{}: negative value count {}", kName, num_values);
  FLOE_ASSIGN_OR_RETURN(Header h, ParseHeader(data));
  data_ = data;
  pos_ = h.length;
  values_per_block_ = h.block_size;
  miniblocks_per_block_ = h.miniblocks;
  values_per_miniblock_ = h.block_size / h.miniblocks;
  total_values_ = static_cast<int64_t>(h.total);
  values_left_ = std::min(total_values_, num_values);
  deltas_left_ = total_values_ > 0 ? total_values_ - 1 : 0;
  first_pending_ = total_values_ > 0;
  last_value_ = h.first;
  miniblock_ = miniblocks_per_block_;  // no block read yet
  miniblock_left_ = 0;
  truncated_ = false;
  group_size_ = group_next_ = 0;
  return {};
}

Status DeltaBinaryPackedDecoder::NextMiniblock() {
  if (deltas_left_ == 0) return Corrupt("{}: all {} values already read", kName, total_values_);
  if (truncated_) {
    return Corrupt("{}: data ends in a miniblock ({} values still to come)", kName, deltas_left_);
  }
  const uint8_t* end = data_.data() + data_.size();
  if (miniblock_ >= miniblocks_per_block_) {
    const uint8_t* p = data_.data() + pos_;
    uint64_t zigzag_min = 0;
    if (!internal::ReadUleb128(&p, end, &zigzag_min)) {
      return Corrupt("{}: data ends in a block header ({} values still to come)", kName,
                     deltas_left_);
    }
    if (static_cast<uint64_t>(end - p) < miniblocks_per_block_) {
      return Corrupt("{}: data ends in the bit widths of a block", kName);
    }
    min_delta_ = static_cast<uint64_t>(internal::ZigZagDecode(zigzag_min));
    bit_widths_ = p;
    p += miniblocks_per_block_;
    pos_ = static_cast<size_t>(p - data_.data());
    miniblock_ = 0;
  } else {
    ++miniblock_;
    if (miniblock_ >= miniblocks_per_block_) return NextMiniblock();
  }
  bit_width_ = bit_widths_[miniblock_];
  if (bit_width_ > 64) {
    return Corrupt("{}: miniblock bit width {} exceeds 64", kName, bit_width_);
  }
  // A full miniblock is values_per_miniblock * width bits (a whole number of bytes, as the count
  // is a multiple of 32); only the last one holding values may end early here, and then only its
  // present values can be read.
  const uint64_t full = values_per_miniblock_ * static_cast<uint64_t>(bit_width_) / 8;
  const size_t remaining = data_.size() - pos_;
  packed_ = data_.data() + pos_;
  packed_bytes_ = static_cast<size_t>(std::min<uint64_t>(full, remaining));
  packed_index_ = 0;
  pos_ += packed_bytes_;
  const uint64_t expected =
      std::min<uint64_t>(values_per_miniblock_, static_cast<uint64_t>(deltas_left_));
  uint64_t values = expected;
  // Only a miniblock cut short by the page's end holds fewer (a division per miniblock otherwise).
  if (bit_width_ > 0 && packed_bytes_ < full) {
    values = std::min<uint64_t>(values, uint64_t{packed_bytes_} * 8 / bit_width_);
  }
  // Cut short: its present values can be read, but the stream ends here -- the next
  // miniblock's width byte (possibly 0, needing no data) must not be trusted.
  truncated_ = values < expected;
  if (values == 0) {
    return Corrupt("{}: data ends in a miniblock ({} values still to come)", kName, deltas_left_);
  }
  miniblock_left_ = static_cast<int64_t>(values);
  return {};
}

template <typename T>
Status DeltaBinaryPackedDecoder::DecodeValues(std::span<T> out) {
  const int64_t n = static_cast<int64_t>(out.size());
  if (n > values_left_) {
    return Corrupt("{}: {} values requested, the stream has {} left", kName, n, values_left_);
  }
  int64_t i = 0;
  if (n > 0 && first_pending_) {
    out[i++] = static_cast<T>(last_value_);
    first_pending_ = false;
  }
  // Adds the deltas d[0..k) to the running value into out[i..i+k).
  auto accumulate = [&](const uint64_t* d, size_t k) {
    // Locals: the stores through `dst` may alias the members for the compiler.
    uint64_t last = last_value_;
    const uint64_t min_delta = min_delta_;
    T* dst = out.data() + i;
    for (size_t j = 0; j < k; ++j) {
      last += min_delta + d[j];  // unsigned: wraps as the spec requires
      dst[j] = static_cast<T>(last);
    }
    last_value_ = last;
    i += static_cast<int64_t>(k);
  };
  // Takes k deltas off the packed stream.
  auto advance = [&](size_t k) {
    packed_index_ += k;
    miniblock_left_ -= static_cast<int64_t>(k);
    deltas_left_ -= static_cast<int64_t>(k);
  };
  uint64_t scratch[64];
  while (i < n) {
    if (group_next_ < group_size_) {
      const auto k = static_cast<size_t>(std::min<int64_t>(group_size_ - group_next_, n - i));
      accumulate(group_ + group_next_, k);
      group_next_ += static_cast<int>(k);
      continue;
    }
    if (miniblock_left_ == 0) FLOE_RETURN_IF_ERROR(NextMiniblock());
    const auto readable = static_cast<size_t>(data_.data() + data_.size() - packed_);
    const uint64_t bit = packed_index_ * static_cast<uint64_t>(bit_width_);
    // Whole groups of 32 by the width's own unrolled loop (reads may run on into the rest of the
    // page, never past it) straight into the output's deltas.
    const size_t want = static_cast<size_t>(std::min<int64_t>({miniblock_left_, n - i, 64}));
    const size_t fast = internal::UnpackGroups(packed_, readable, bit, bit_width_, scratch, want);
    if (fast > 0) {
      advance(fast);
      accumulate(scratch, fast);
      continue;
    }
    // The request ends inside a group, or the group is the stream's last: the group unpacked
    // whole, then handed out.
    const auto k = static_cast<size_t>(std::min<int64_t>(miniblock_left_, 32));
    if (k < 32 || internal::UnpackGroups(packed_, readable, bit, bit_width_, group_, 32) == 0) {
      internal::UnpackBits(packed_, packed_bytes_, bit, bit_width_, group_, k);
    }
    advance(k);
    group_size_ = static_cast<int>(k);
    group_next_ = 0;
  }
  values_left_ -= n;
  return {};
}

Status DeltaBinaryPackedDecoder::Decode(std::span<int32_t> out) {
  if (type_ != PhysicalType::kInt32) return WrongOutput("INT32");
  return DecodeValues(out);
}

Status DeltaBinaryPackedDecoder::Decode(std::span<int64_t> out) {
  if (type_ != PhysicalType::kInt64) return WrongOutput("INT64");
  return DecodeValues(out);
}

Status DeltaBinaryPackedDecoder::Skip(int64_t n) {
  int64_t scratch[256];
  while (n > 0) {
    int64_t k = std::min<int64_t>(n, 256);
    FLOE_RETURN_IF_ERROR(DecodeValues(std::span<int64_t>(scratch, static_cast<size_t>(k))));
    n -= k;
  }
  return {};
}

Result<size_t> DeltaBinaryPackedDecoder::EncodedLength(ByteView data) {
  FLOE_ASSIGN_OR_RETURN(Header h, ParseHeader(data));
  const uint8_t* p = data.data() + h.length;
  const uint8_t* end = data.data() + data.size();
  const uint64_t per_miniblock = h.block_size / h.miniblocks;
  uint64_t deltas = h.total > 0 ? h.total - 1 : 0;
  while (deltas > 0) {
    uint64_t zigzag_min = 0;
    if (!internal::ReadUleb128(&p, end, &zigzag_min)) {
      return Corrupt("{}: data ends in a block header ({} values still to come)", kName, deltas);
    }
    if (static_cast<uint64_t>(end - p) < h.miniblocks) {
      return Corrupt("{}: data ends in the bit widths of a block", kName);
    }
    const uint8_t* widths = p;
    p += h.miniblocks;
    for (uint64_t m = 0; m < h.miniblocks && deltas > 0; ++m) {
      if (widths[m] > 64) return Corrupt("{}: miniblock bit width {} exceeds 64", kName, widths[m]);
      uint64_t bytes = per_miniblock * widths[m] / 8;
      if (bytes > static_cast<uint64_t>(end - p)) {
        return Corrupt("{}: data ends in a miniblock ({} values still to come)", kName, deltas);
      }
      p += bytes;
      deltas -= std::min(deltas, per_miniblock);
    }
  }
  return static_cast<size_t>(p - data.data());
}

// ---- encoder --------------------------------------------------------------------------------

Status DeltaBinaryPackedEncoder::Put(std::span<const int32_t> values) {
  if (type_ != PhysicalType::kInt32) return WrongInput("INT32");
  values_.insert(values_.end(), values.begin(), values.end());
  return {};
}

Status DeltaBinaryPackedEncoder::Put(std::span<const int64_t> values) {
  if (type_ != PhysicalType::kInt64) return WrongInput("INT64");
  values_.insert(values_.end(), values.begin(), values.end());
  return {};
}

size_t DeltaBinaryPackedEncoder::EstimatedSize() const {
  // Header, then per block a 10-byte min delta and the widths; each value at most the type's
  // width, plus the last miniblock's padding.
  const size_t blocks = values_.size() / kBlockSize + 1;
  const size_t width = type_ == PhysicalType::kInt32 ? 4 : 8;
  return 32 + blocks * (10 + kMiniblocks) + (values_.size() + kBlockSize / kMiniblocks) * width;
}

Status DeltaBinaryPackedEncoder::Flush(std::vector<uint8_t>* out) {
  // Deltas are taken in the physical type's width (wrapping), so INT32 data never needs more
  // than 32 bits per delta -- the spec forbids wider -- and the decoder's 64-bit wrapping sum
  // truncates back to the same values.
  const bool is32 = type_ == PhysicalType::kInt32;
  const uint64_t mask = is32 ? 0xffffffffull : ~uint64_t{0};
  auto as_signed = [&](uint64_t bits) -> int64_t {
    return is32 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(bits)))
                : static_cast<int64_t>(bits);
  };
  const uint64_t per_miniblock = kBlockSize / kMiniblocks;
  internal::WriteUleb128(kBlockSize, out);
  internal::WriteUleb128(kMiniblocks, out);
  internal::WriteUleb128(values_.size(), out);
  internal::WriteUleb128(internal::ZigZagEncode(values_.empty() ? 0 : values_[0]), out);

  std::vector<int64_t> deltas;
  std::vector<uint64_t> packed(kBlockSize);
  uint64_t prev = values_.empty() ? 0 : static_cast<uint64_t>(values_[0]);
  for (size_t start = 1; start < values_.size(); start += kBlockSize) {
    const size_t count = std::min<size_t>(kBlockSize, values_.size() - start);
    deltas.clear();
    for (size_t i = 0; i < count; ++i) {
      uint64_t v = static_cast<uint64_t>(values_[start + i]);
      deltas.push_back(as_signed((v - prev) & mask));
      prev = v;
    }
    const int64_t min_delta = *std::min_element(deltas.begin(), deltas.end());
    internal::WriteUleb128(internal::ZigZagEncode(min_delta), out);
    uint8_t widths[kMiniblocks] = {};
    for (size_t i = 0; i < count; ++i) {
      packed[i] = (static_cast<uint64_t>(deltas[i]) - static_cast<uint64_t>(min_delta)) & mask;
    }
    const size_t used = (count + per_miniblock - 1) / per_miniblock;
    for (size_t m = 0; m < used; ++m) {
      uint64_t max = 0;
      for (size_t i = m * per_miniblock; i < std::min<size_t>(count, (m + 1) * per_miniblock);
           ++i) {
        max = std::max(max, packed[i]);
      }
      widths[m] = static_cast<uint8_t>(internal::BitWidth(max));
    }
    out->insert(out->end(), widths, widths + kMiniblocks);  // unused miniblocks: width 0
    std::fill(packed.begin() + static_cast<ptrdiff_t>(count), packed.end(), 0);  // padding
    for (size_t m = 0; m < used; ++m) {
      internal::PackBits(packed.data() + m * per_miniblock, per_miniblock, widths[m], out);
    }
  }
  values_.clear();
  return {};
}

}  // namespace floe::parquet
