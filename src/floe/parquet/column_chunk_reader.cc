#include "floe/parquet/column_chunk_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "floe/parquet/bit_packed.h"
#include "floe/parquet/bit_util_internal.h"
#include "floe/parquet/decoder.h"
#include "floe/parquet/metadata_checksum.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/record_assembler.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"

namespace floe::parquet {

namespace {

constexpr uint64_t kJulianEpochDay = 2440588;  // 1970-01-01 as a Julian day number
constexpr uint64_t kNanosPerDay = 86400ULL * 1000000000ULL;

bool IsDictionaryEncoding(Encoding e) {
  return e == Encoding::kRleDictionary || e == Encoding::kPlainDictionary;
}

int ValueWidth(const ColumnDescriptor& leaf) {
  if (leaf.conversion == ReadConversion::kBool) return 1;
  if (leaf.conversion == ReadConversion::kBinary) return 0;
  if (leaf.conversion == ReadConversion::kNull) return 1;
  return leaf.type.FixedWidth();
}

// Makes room for `extra` more elements, growing geometrically: callers append a page's worth
// at a time, and reserving the exact size each time would copy the batch once per page.
// The move is a memcpy: vector's own reallocation copies element by element under an allocator
// with its own construct (ByteVector's), a byte at a time.
template <typename V>
void Grow(V* v, size_t extra) {
  const size_t need = v->size() + extra;
  if (need <= v->capacity()) return;
  using T = typename V::value_type;
  static_assert(std::is_trivially_copyable_v<T>);
  V bigger;
  bigger.reserve(std::max(need, v->capacity() * 2));
  if (!v->empty()) {
    bigger.resize(v->size());
    std::memcpy(bigger.data(), v->data(), v->size() * sizeof(T));
  }
  v->swap(bigger);
}

template <typename T>
void PutValue(ByteVector* out, T v) {
  size_t at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &v, sizeof(T));
}

void PutInt128(ByteVector* out, __int128 v) { PutValue(out, v); }

// A big-endian two's complement integer of any length as 128 bits.
Result<__int128> BigEndianToInt128(const uint8_t* p, size_t n) {
  if (n == 0) return __int128{0};
  size_t skip = 0;
  if (n > 16) {
    // Longer encodings are fine when the extra leading bytes only extend the sign.
    const uint8_t fill = (p[n - 16] & 0x80) ? 0xff : 0x00;
    for (size_t i = 0; i < n - 16; ++i) {
      if (p[i] != fill) return Corrupt("decimal value of {} bytes does not fit 128 bits", n);
    }
    skip = n - 16;
  }
  unsigned __int128 v = (p[skip] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = skip; i < n; ++i) v = (v << 8) | p[i];
  return static_cast<__int128>(v);
}

// Decodes `count` values of type S onto the end of `out` as type T (wider), in place: decoded
// into the upper part of the space the T values take, then widened front to back -- value i's
// write ends where value i+1's source begins at the latest, and it is read first.
template <typename S, typename T, typename Widen>
Status DecodeWidened(Decoder* decoder, size_t count, DenseValues* out, Widen widen) {
  static_assert(sizeof(T) > sizeof(S));
  const size_t at = out->data.size();
  out->data.resize(at + count * sizeof(T));
  uint8_t* base = out->data.data() + at;
  uint8_t* src = base + count * (sizeof(T) - sizeof(S));
  FLOE_RETURN_IF_ERROR(decoder->Decode(std::span<S>(reinterpret_cast<S*>(src), count)));
  for (size_t i = 0; i < count; ++i) {
    S v;
    std::memcpy(&v, src + i * sizeof(S), sizeof(S));
    const T w = widen(v);
    std::memcpy(base + i * sizeof(T), &w, sizeof(T));
  }
  out->count += static_cast<int64_t>(count);
  return {};
}

// Decodes `count` INT32 values onto the end of `out` as T (narrower: the logical type bounds them).
template <typename T>
Status DecodeNarrowed(Decoder* decoder, size_t count, DenseValues* out) {
  std::vector<int32_t> tmp(count);
  FLOE_RETURN_IF_ERROR(decoder->Decode(std::span<int32_t>(tmp)));
  const size_t at = out->data.size();
  out->data.resize(at + count * sizeof(T));
  uint8_t* dst = out->data.data() + at;
  for (size_t i = 0; i < count; ++i) {
    const auto v = static_cast<T>(tmp[i]);
    std::memcpy(dst + i * sizeof(T), &v, sizeof(T));
  }
  out->count += static_cast<int64_t>(count);
  return {};
}

// Decodes `n` values from `decoder` and appends them in the leaf's Arrow representation.
Status DecodeValues(Decoder* decoder, int64_t n, const ColumnDescriptor& leaf, DenseValues* out) {
  if (n == 0) return {};
  const size_t count = static_cast<size_t>(n);
  switch (leaf.conversion) {
    case ReadConversion::kCopy: {
      const size_t at = out->data.size();
      out->data.resize(at + count * static_cast<size_t>(out->width));
      uint8_t* dst = out->data.data() + at;
      Status st;
      switch (leaf.physical) {
        case PhysicalType::kInt32:
          st = decoder->Decode(std::span<int32_t>(reinterpret_cast<int32_t*>(dst), count));
          break;
        case PhysicalType::kInt64:
          st = decoder->Decode(std::span<int64_t>(reinterpret_cast<int64_t*>(dst), count));
          break;
        case PhysicalType::kFloat:
          st = decoder->Decode(std::span<float>(reinterpret_cast<float*>(dst), count));
          break;
        case PhysicalType::kDouble:
          st = decoder->Decode(std::span<double>(reinterpret_cast<double*>(dst), count));
          break;
        default:
          return Internal("copy conversion of {} values", PhysicalTypeName(leaf.physical));
      }
      FLOE_RETURN_IF_ERROR(st);
      break;
    }
    case ReadConversion::kBool: {
      std::unique_ptr<bool[]> tmp(new bool[count]);
      FLOE_RETURN_IF_ERROR(decoder->Decode(std::span<bool>(tmp.get(), count)));
      const size_t at = out->data.size();
      out->data.resize(at + count);
      for (size_t i = 0; i < count; ++i) out->data[at + i] = tmp[i] ? 1 : 0;
      break;
    }
    case ReadConversion::kInt32ToInt8:
      return DecodeNarrowed<int8_t>(decoder, count, out);
    case ReadConversion::kInt32ToInt16:
      return DecodeNarrowed<int16_t>(decoder, count, out);
    case ReadConversion::kInt32ToUInt8:
      return DecodeNarrowed<uint8_t>(decoder, count, out);
    case ReadConversion::kInt32ToUInt16:
      return DecodeNarrowed<uint16_t>(decoder, count, out);
    case ReadConversion::kMillisToMicros:
      return DecodeWidened<int32_t, int64_t>(decoder, count, out,
                                             [](int32_t v) { return int64_t{v} * 1000; });
    case ReadConversion::kInt32ToDecimal:
      return DecodeWidened<int32_t, __int128>(decoder, count, out,
                                              [](int32_t v) { return __int128{v}; });
    case ReadConversion::kInt64ToDecimal:
      return DecodeWidened<int64_t, __int128>(decoder, count, out,
                                              [](int64_t v) { return __int128{v}; });
    case ReadConversion::kBytesToDecimal: {
      out->data.reserve(out->data.size() + count * 16);
      if (leaf.physical == PhysicalType::kFixedLenByteArray) {
        const size_t w = static_cast<size_t>(leaf.type_length);
        std::vector<uint8_t> tmp(count * w);
        FLOE_RETURN_IF_ERROR(decoder->DecodeFixedWidth(tmp));
        for (size_t i = 0; i < count; ++i) {
          FLOE_ASSIGN_OR_RETURN(__int128 v, BigEndianToInt128(tmp.data() + i * w, w));
          PutInt128(&out->data, v);
        }
      } else {
        ByteArrayBuilder tmp;
        FLOE_RETURN_IF_ERROR(decoder->DecodeByteArrays(n, &tmp));
        for (int64_t i = 0; i < n; ++i) {
          std::string_view b = tmp.Value(i);
          FLOE_ASSIGN_OR_RETURN(
              __int128 v, BigEndianToInt128(reinterpret_cast<const uint8_t*>(b.data()), b.size()));
          PutInt128(&out->data, v);
        }
      }
      break;
    }
    case ReadConversion::kInt96ToNanos: {
      std::vector<uint8_t> tmp(count * 12);
      FLOE_RETURN_IF_ERROR(decoder->DecodeFixedWidth(tmp));
      out->data.reserve(out->data.size() + count * 8);
      for (size_t i = 0; i < count; ++i) {
        uint64_t nanos;
        uint32_t julian;
        std::memcpy(&nanos, tmp.data() + i * 12, 8);
        std::memcpy(&julian, tmp.data() + i * 12 + 8, 4);
        // Days past the int64 nanosecond range (years before 1677 or after 2262) wrap modulo
        // 2^64, the day read as unsigned -- as pyarrow reads them, so the two agree.
        uint64_t v = (uint64_t{julian} - kJulianEpochDay) * kNanosPerDay + nanos;
        PutValue(&out->data, static_cast<int64_t>(v));
      }
      break;
    }
    case ReadConversion::kBinary: {
      // Decode straight onto the end of `out` (same layout) rather than into a temporary.
      ByteArrayBuilder b;
      b.Adopt(std::move(out->offsets), std::move(out->data));
      Status st = decoder->DecodeByteArrays(n, &b);
      b.Release(&out->offsets, &out->data);
      FLOE_RETURN_IF_ERROR(st);
      break;
    }
    case ReadConversion::kFixed: {
      const size_t at = out->data.size();
      out->data.resize(at + count * static_cast<size_t>(leaf.type_length));
      FLOE_RETURN_IF_ERROR(decoder->DecodeFixedWidth(std::span<uint8_t>(
          out->data.data() + at, count * static_cast<size_t>(leaf.type_length))));
      break;
    }
    case ReadConversion::kNull:
      return Corrupt("column of logical type UNKNOWN (always null) holds {} values", n);
  }
  out->count += n;
  return {};
}

// Fixed-width gather with the width known at compile time, so each copy is one load and store
// instead of a memcpy call.
template <size_t W>
void GatherFixed(const uint8_t* dict, std::span<const int32_t> indices, uint8_t* dst) {
  for (int32_t i : indices) {
    std::memcpy(dst, dict + static_cast<size_t>(i) * W, W);
    dst += W;
  }
}

// Bytes of slack behind a padded dictionary's data and a gather's output: a value of up to this
// many bytes is copied as a whole block of them, one fixed-size move instead of a library call.
constexpr size_t kGatherSlack = 16;

// Appends dict[indices[i]] for each (already range-checked) index. `values_to_come`: about how
// many more values the caller will append to `out` after these (a sizing hint). `padded`:
// binary dictionaries only, dict.data followed by kGatherSlack bytes.
Status Gather(const DenseValues& dict, std::span<const int32_t> indices, DenseValues* out,
              int64_t values_to_come, const uint8_t* padded) {
  if (dict.width > 0) {
    const size_t w = static_cast<size_t>(dict.width);
    const size_t at = out->data.size();
    Grow(&out->data, indices.size() * w);
    out->data.resize(at + indices.size() * w);
    uint8_t* dst = out->data.data() + at;
    const uint8_t* src = dict.data.data();
    switch (w) {
      case 1:
        GatherFixed<1>(src, indices, dst);
        break;
      case 2:
        GatherFixed<2>(src, indices, dst);
        break;
      case 4:
        GatherFixed<4>(src, indices, dst);
        break;
      case 8:
        GatherFixed<8>(src, indices, dst);
        break;
      case 16:
        GatherFixed<16>(src, indices, dst);
        break;
      default:
        for (int32_t i : indices) {
          std::memcpy(dst, src + static_cast<size_t>(i) * w, w);
          dst += w;
        }
    }
  } else {
    const int32_t* doff = dict.offsets.data();
    uint64_t total = out->data.size();
    for (int32_t i : indices) total += static_cast<uint64_t>(doff[i + 1] - doff[i]);
    if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Unsupported("byte array values exceed 2 GiB in one batch (int32 offsets)");
    }
    // Size both arrays once, then copy with raw pointers: no per-value capacity checks.
    const size_t at = out->data.size();
    const size_t oat = out->offsets.size();
    // Binary data cannot be sized up front by row count: size it for the rest of the batch at
    // this page's mean length, so the batch is not copied on every doubling.
    const size_t bytes = static_cast<size_t>(total) - at;
    // Capped: a hint must not reserve gigabytes for a batch of large values; past it the
    // doubling takes over.
    constexpr size_t kMaxHintBytes = size_t{64} << 20;
    // The mean rounded up, and room for the slack: a reallocation copies the batch so far
    // element by element (a custom allocator defeats the library's memmove).
    const size_t more =
        indices.empty() ? 0
                        : std::min(kMaxHintBytes, (bytes + indices.size() - 1) / indices.size() *
                                                      static_cast<size_t>(values_to_come));
    if (at + bytes + kGatherSlack > out->data.capacity()) {
      out->data.reserve(std::max(at + bytes + more + kGatherSlack, out->data.capacity() * 2));
    }
    Grow(&out->offsets, indices.size());
    out->data.resize(static_cast<size_t>(total) + kGatherSlack);
    out->offsets.resize(oat + indices.size());
    uint8_t* dst = out->data.data();
    int32_t* o = out->offsets.data() + oat;
    const uint8_t* src = padded != nullptr ? padded : dict.data.data();
    int32_t end = static_cast<int32_t>(at);
    for (int32_t i : indices) {
      const int32_t len = doff[i + 1] - doff[i];
      if (padded != nullptr && len <= static_cast<int32_t>(kGatherSlack)) {
        std::memcpy(dst + end, src + doff[i], kGatherSlack);  // the slack absorbs the excess
      } else {
        std::memcpy(dst + end, src + doff[i], static_cast<size_t>(len));
      }
      end += len;
      *o++ = end;
    }
    out->data.resize(static_cast<size_t>(total));
  }
  out->count += static_cast<int64_t>(indices.size());
  return {};
}

}  // namespace

Status DenseValues::AppendRange(const DenseValues& src, int64_t begin, int64_t n) {
  if (n <= 0) return {};
  if (begin < 0 || begin + n > src.count) {
    return Internal("value range [{}, +{}) outside the {} values decoded", begin, n, src.count);
  }
  if (width > 0) {
    const size_t w = static_cast<size_t>(width);
    const uint8_t* b = src.data.data() + static_cast<size_t>(begin) * w;
    data.insert(data.end(), b, b + static_cast<size_t>(n) * w);
  } else {
    const int32_t from = src.offsets[begin];
    const int32_t to = src.offsets[begin + n];
    if (data.size() + static_cast<uint64_t>(to - from) >
        static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Unsupported("byte array values exceed 2 GiB in one batch (int32 offsets)");
    }
    const int64_t shift = static_cast<int64_t>(data.size()) - from;
    codes_complete = false;
    codes.clear();
    data.insert(data.end(), src.data.data() + from, src.data.data() + to);
    offsets.reserve(offsets.size() + static_cast<size_t>(n));
    for (int64_t i = begin + 1; i <= begin + n; ++i) {
      offsets.push_back(static_cast<int32_t>(src.offsets[i] + shift));
    }
  }
  count += n;
  return {};
}

void DenseValues::Clear() {
  count = 0;
  data.clear();
  offsets.assign(1, 0);
  codes.clear();
  code_dictionary.reset();
  codes_complete = true;
}

struct ColumnChunkReader::State {
  ColumnDescriptor leaf;
  CompressionCodec codec_id = CompressionCodec::kUncompressed;
  int64_t num_values = 0;
  int64_t rg_rows = 0;
  ChunkSource src;
  ChunkReaderOptions options;
  std::unique_ptr<Codec> codec;
  int def_width = 0;
  int rep_width = 0;

  size_t pos = 0;           // whole mode: next page header within src.chunk
  size_t next_page = 0;     // page mode: next of src.pages
  int page_number = -1;     // of the page loaded last, for messages
  int64_t page_offset = 0;  // file offset of the page loaded last
  int64_t levels_seen = 0;  // whole mode: levels of the data pages loaded or passed over
  int64_t row = 0;          // next row to hand out

  bool dict_loaded = false;
  bool has_dict = false;
  DenseValues dict;
  std::vector<uint8_t> dict_padded;  // binary dictionaries: dict.data and kGatherSlack zeros
  std::vector<uint8_t> dict_match;   // options.matcher: the answer for each dictionary entry
  bool dict_matched = false;
  // A small binary dictionary as a column, for the codes of the values gathered from it.
  std::shared_ptr<const columnar::Column> dict_column;
  bool dict_column_built = false;

  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  // Flat leaf: every definition level of the loaded page is max_def (`def` is not filled).
  bool page_all_defined = false;
  int64_t page_levels = 0;
  int64_t lpos = 0;
  int64_t vpos = 0;
  bool page_ends_record = true;  // the loaded page cannot continue into the next one
  int value_width = 0;           // DenseValues::width of the leaf

  // The loaded page's values are decoded on demand, straight into the batch that takes them (or
  // passed over), rather than into a page buffer first and copied. `decoder` reads the page body
  // (in `scratch` or the chunk), which stays put until the next page is loaded.
  std::unique_ptr<Decoder> decoder;
  bool dict_page = false;    // the loaded page holds dictionary indices
  int64_t rows_to_come = 0;  // rows the current ReadRows still wants after the levels emitted

  std::vector<uint8_t> scratch;
  std::vector<uint8_t> dict_scratch;  // the dictionary page's body: never the data page's
  std::vector<int32_t> indices;

  std::unexpected<Error> At(Error e) const {
    e.message = page_number < 0
                    ? fmt::format("the dictionary page at offset {}: {}", page_offset, e.message)
                    : fmt::format("page {} at offset {}: {}", page_number, page_offset, e.message);
    return std::unexpected(std::move(e));
  }

  Result<ByteView> Inflate(ByteView bytes, int64_t size, bool compressed) {
    return Inflate(bytes, size, compressed, &scratch);
  }

  Result<ByteView> Inflate(ByteView bytes, int64_t size, bool compressed,
                           std::vector<uint8_t>* into) {
    if (size < 0) return Corrupt("negative uncompressed size {}", size);
    if (!compressed || codec_id == CompressionCodec::kUncompressed) {
      if (static_cast<int64_t>(bytes.size()) != size) {
        return Corrupt("page is stored uncompressed in {} bytes, its header says {}", bytes.size(),
                       size);
      }
      return bytes;
    }
    if (bytes.empty() && size == 0) return bytes;
    into->resize(static_cast<size_t>(size));
    FLOE_RETURN_IF_ERROR(codec->Decompress(bytes, *into));
    return ByteView(*into);
  }

  Status CheckCrc(const PageHeader& h, ByteView stored) const {
    if (!options.verify_checksums || !h.crc) return {};
    const uint32_t crc = Crc32(stored);
    if (crc != static_cast<uint32_t>(*h.crc)) {
      return Corrupt("CRC-32 of the page is {:08x}, its header says {:08x}", crc,
                     static_cast<uint32_t>(*h.crc));
    }
    return {};
  }

  // Parses the header at the front of `bytes`; *stored receives the page's stored bytes.
  Result<PageHeader> Header(ByteView bytes, ByteView* stored, size_t* total) const {
    size_t header_len = 0;
    FLOE_ASSIGN_OR_RETURN(PageHeader h, ParsePageHeader(bytes, &header_len));
    const size_t size = static_cast<size_t>(h.compressed_page_size);
    if (size > bytes.size() - header_len) {
      return Corrupt("page claims {} bytes, the chunk has {} left", size,
                     bytes.size() - header_len);
    }
    *stored = bytes.subspan(header_len, size);
    *total = header_len + size;
    return h;
  }

  Status DecodeDictionary(const PageHeader& h, ByteView stored) {
    if (has_dict) return Corrupt("a second dictionary page");
    const auto& dh = *h.dictionary_page_header;
    if (dh.encoding != Encoding::kPlain && dh.encoding != Encoding::kPlainDictionary) {
      return Unsupported("dictionary page in {}", EncodingName(dh.encoding));
    }
    if (dh.num_values < 0) return Corrupt("dictionary of {} values", dh.num_values);
    FLOE_RETURN_IF_ERROR(CheckCrc(h, stored));
    FLOE_ASSIGN_OR_RETURN(ByteView data,
                          Inflate(stored, h.uncompressed_page_size, true, &dict_scratch));
    FLOE_ASSIGN_OR_RETURN(auto plain,
                          MakeDecoder(Encoding::kPlain, leaf.physical, leaf.type_length));
    FLOE_RETURN_IF_ERROR(plain->SetData(dh.num_values, data));
    dict.Clear();
    dict.width = ValueWidth(leaf);
    if (leaf.conversion != ReadConversion::kNull) {
      FLOE_RETURN_IF_ERROR(DecodeValues(plain.get(), dh.num_values, leaf, &dict));
    }
    has_dict = true;
    dict_matched = false;
    if (dict.width == 0) {
      dict_padded.assign(dict.data.begin(), dict.data.end());
      dict_padded.resize(dict.data.size() + kGatherSlack, 0);
    }
    dict_column.reset();
    dict_column_built = false;
    return {};
  }

  // Decodes one section of levels into `out` (num values, max level `max`).
  Status DecodeLevels(ByteView data, Encoding encoding, int width, int16_t max, int64_t num,
                      std::vector<int16_t>* out, std::string_view what) {
    out->resize(static_cast<size_t>(num));
    if (encoding == Encoding::kBitPacked) {
      BitPackedLevelDecoder d;
      FLOE_RETURN_IF_ERROR(d.Reset(data, width, num));
      FLOE_RETURN_IF_ERROR(d.Decode(std::span<int16_t>(*out)));
    } else if (encoding == Encoding::kRle) {
      RleBitPackedHybridDecoder d;
      FLOE_RETURN_IF_ERROR(d.Reset(data, width));
      FLOE_RETURN_IF_ERROR(d.Decode(std::span<int16_t>(*out)));
    } else {
      return Unsupported("{} levels in {}", what, EncodingName(encoding));
    }
    for (int16_t l : *out) {
      if (l < 0 || l > max) return Corrupt("{} level {} exceeds the maximum {}", what, l, max);
    }
    return {};
  }

  // True when RLE-hybrid `data` opens with a run of at least `num` copies of `value`.
  static bool OneRleRun(ByteView data, int width, int64_t num, int16_t value) {
    const uint8_t* p = data.data();
    const uint8_t* end = p + data.size();
    uint64_t header = 0;
    if (!internal::ReadUleb128(&p, end, &header) || (header & 1) != 0) return false;
    if (header >> 1 < static_cast<uint64_t>(num)) return false;
    const size_t value_bytes = static_cast<size_t>((width + 7) / 8);
    if (static_cast<size_t>(end - p) < value_bytes) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < value_bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
    return v == static_cast<uint64_t>(value);
  }

  // Splits a v1 levels section off the front of `*body`.
  Result<ByteView> TakeV1Levels(ByteView* body, Encoding encoding, int width, int64_t num,
                                std::string_view what) {
    if (encoding == Encoding::kBitPacked) {
      uint64_t len = BitPackedLevelDecoder::EncodedLength(num, width);
      if (len > body->size()) return Corrupt("BIT_PACKED {} levels overrun the page", what);
      ByteView levels = body->first(static_cast<size_t>(len));
      *body = body->subspan(static_cast<size_t>(len));
      return levels;
    }
    if (encoding != Encoding::kRle)
      return Unsupported("{} levels in {}", what, EncodingName(encoding));
    FLOE_ASSIGN_OR_RETURN(auto parts, SplitLengthPrefixed(*body, what));
    *body = parts.second;
    return parts.first;
  }

  Status DecodeData(const PageHeader& h, ByteView stored, bool first_of_run) {
    const bool v2 = h.type == PageType::kDataPageV2;
    const int64_t num = v2 ? h.data_page_header_v2->num_values : h.data_page_header->num_values;
    const Encoding encoding = v2 ? h.data_page_header_v2->encoding : h.data_page_header->encoding;
    if (num < 0) return Corrupt("page of {} values", num);
    if (!src.paged && num > num_values - levels_seen) {
      return Corrupt("page holds {} values, the chunk only {} more", num, num_values - levels_seen);
    }
    FLOE_RETURN_IF_ERROR(CheckCrc(h, stored));
    ByteView rep_bytes, def_bytes, body;
    Encoding rep_enc = Encoding::kRle, def_enc = Encoding::kRle;
    if (v2) {
      const auto& d = *h.data_page_header_v2;
      if (d.repetition_levels_byte_length < 0 || d.definition_levels_byte_length < 0) {
        return Corrupt("negative level section lengths");
      }
      const size_t rl = static_cast<size_t>(d.repetition_levels_byte_length);
      const size_t dl = static_cast<size_t>(d.definition_levels_byte_length);
      if (rl + dl > stored.size()) {
        return Corrupt("level sections of {} bytes overrun the {}-byte page", rl + dl,
                       stored.size());
      }
      rep_bytes = stored.first(rl);
      def_bytes = stored.subspan(rl, dl);
      FLOE_ASSIGN_OR_RETURN(
          body, Inflate(stored.subspan(rl + dl),
                        int64_t{h.uncompressed_page_size} - static_cast<int64_t>(rl + dl),
                        d.is_compressed));
    } else {
      FLOE_ASSIGN_OR_RETURN(body, Inflate(stored, h.uncompressed_page_size, true));
      rep_enc = h.data_page_header->repetition_level_encoding;
      def_enc = h.data_page_header->definition_level_encoding;
      if (leaf.max_rep > 0) {
        FLOE_ASSIGN_OR_RETURN(rep_bytes,
                              TakeV1Levels(&body, rep_enc, rep_width, num, "repetition"));
      }
      if (leaf.max_def > 0) {
        FLOE_ASSIGN_OR_RETURN(def_bytes,
                              TakeV1Levels(&body, def_enc, def_width, num, "definition"));
      }
    }
    if (leaf.max_rep > 0) {
      FLOE_RETURN_IF_ERROR(
          DecodeLevels(rep_bytes, rep_enc, rep_width, leaf.max_rep, num, &rep, "repetition"));
      if (num > 0 && rep[0] != 0 && (first_of_run || v2)) {
        return Corrupt("the page starts with repetition level {}; a row must start at 0", rep[0]);
      }
    } else {
      rep.clear();
    }
    int64_t non_null = num;
    page_all_defined = false;
    if (leaf.max_def > 0 && leaf.max_rep == 0 && def_enc == Encoding::kRle &&
        OneRleRun(def_bytes, def_width, num, leaf.max_def)) {
      // The common no-nulls page: its levels are one run of max_def; skip expanding them.
      page_all_defined = true;
      def.clear();
    } else if (leaf.max_def > 0) {
      FLOE_RETURN_IF_ERROR(
          DecodeLevels(def_bytes, def_enc, def_width, leaf.max_def, num, &def, "definition"));
      non_null = std::count(def.begin(), def.end(), leaf.max_def);
    } else {
      def.clear();
    }
    if (v2) {
      const auto& d = *h.data_page_header_v2;
      if (num - non_null != d.num_nulls) {
        return Corrupt("levels show {} nulls, the page header says {}", num - non_null,
                       d.num_nulls);
      }
      int64_t rows = leaf.max_rep > 0 ? std::count(rep.begin(), rep.end(), 0) : num;
      if (rows != d.num_rows) {
        return Corrupt("levels show {} rows, the page header says {}", rows, d.num_rows);
      }
    }
    decoder.reset();
    dict_page = false;
    if (leaf.conversion == ReadConversion::kNull) {
      if (non_null > 0) return Corrupt("column of logical type UNKNOWN holds {} values", non_null);
    } else {
      FLOE_ASSIGN_OR_RETURN(decoder, MakeDecoder(encoding, leaf.physical, leaf.type_length));
      FLOE_RETURN_IF_ERROR(decoder->SetData(non_null, body));
      dict_page = IsDictionaryEncoding(encoding);
      if (dict_page && !has_dict) return Corrupt("dictionary-encoded page without a dictionary");
    }
    page_levels = num;
    lpos = 0;
    vpos = 0;
    page_ends_record = src.paged || v2 || leaf.max_rep == 0;
    return {};
  }

  Status LoadDictionaryForPages() {
    if (dict_loaded) return {};
    dict_loaded = true;
    if (src.dictionary.empty()) return {};
    page_number = -1;
    page_offset = src.dictionary_offset;
    ByteView stored;
    size_t total = 0;
    auto h = Header(src.dictionary.view(), &stored, &total);
    if (!h) return At(std::move(h).error());
    if (h->type != PageType::kDictionaryPage) {
      return At(Error{
          ErrorKind::kCorrupt,
          fmt::format("expected the dictionary page, found a {} page", PageTypeName(h->type))});
    }
    if (auto st = DecodeDictionary(*h, stored); !st) return At(std::move(st).error());
    return {};
  }

  // Loads the next data page; false at the end of the chunk. In page mode a page that starts
  // after `row` means rows were left out; that is only allowed when `may_jump`.
  Result<bool> LoadPage(bool may_jump) {
    if (src.paged) {
      FLOE_RETURN_IF_ERROR(LoadDictionaryForPages());
      if (next_page >= src.pages.size()) return false;
      const ChunkSource::Page& p = src.pages[next_page];
      page_number = static_cast<int>(next_page++);
      page_offset = p.offset;
      if (p.first_row < row || (p.first_row > row && !may_jump)) {
        return Internal("page of rows [{}, +{}) follows row {}", p.first_row, p.num_rows, row);
      }
      row = p.first_row;
      ByteView stored;
      size_t total = 0;
      auto h = Header(p.bytes.view(), &stored, &total);
      if (!h) return At(std::move(h).error());
      if (total != p.bytes.size()) {
        return At(Error{ErrorKind::kCorrupt,
                        fmt::format("the page takes {} bytes with its header, the offset index "
                                    "says {}",
                                    total, p.bytes.size())});
      }
      if (h->type != PageType::kDataPage && h->type != PageType::kDataPageV2) {
        return At(Error{ErrorKind::kCorrupt, fmt::format("the offset index points at a {} page",
                                                         PageTypeName(h->type))});
      }
      if (auto st = DecodeData(*h, stored, true); !st) return At(std::move(st).error());
      const int64_t rows = leaf.max_rep > 0 ? std::count(rep.begin(), rep.end(), 0) : page_levels;
      if (rows != p.num_rows) {
        return At(
            Error{ErrorKind::kCorrupt,
                  fmt::format("page holds {} rows, the offset index says {}", rows, p.num_rows)});
      }
      return true;
    }
    while (true) {
      if (levels_seen >= num_values) return false;
      if (pos >= src.chunk.size()) {
        return Corrupt("column chunk ends after {} of its {} values", levels_seen, num_values);
      }
      ++page_number;
      page_offset = src.chunk_offset + static_cast<int64_t>(pos);
      ByteView stored;
      size_t total = 0;
      auto h = Header(src.chunk.view().subspan(pos), &stored, &total);
      if (!h) return At(std::move(h).error());
      pos += total;
      if (h->type == PageType::kDictionaryPage) {
        if (auto st = DecodeDictionary(*h, stored); !st) return At(std::move(st).error());
        continue;
      }
      if (h->type != PageType::kDataPage && h->type != PageType::kDataPageV2) continue;
      if (auto st = DecodeData(*h, stored, levels_seen == 0); !st) {
        return At(std::move(st).error());
      }
      levels_seen += page_levels;
      return true;
    }
  }

  // Whole-chunk mode: passes over the next data page without decompressing it when all its rows
  // come before `target` and its row count shows in the header. True when one was passed.
  Result<bool> PassPage(int64_t target) {
    if (src.paged) {
      if (next_page >= src.pages.size()) return false;
      const ChunkSource::Page& p = src.pages[next_page];
      if (p.first_row + p.num_rows > target || p.first_row < row) return false;
      ++next_page;
      row = p.first_row + p.num_rows;
      return true;
    }
    while (true) {
      if (levels_seen >= num_values || pos >= src.chunk.size()) return false;
      ByteView stored;
      size_t total = 0;
      const int64_t offset = src.chunk_offset + static_cast<int64_t>(pos);
      auto h = Header(src.chunk.view().subspan(pos), &stored, &total);
      if (!h) return false;  // LoadPage reports it
      if (h->type == PageType::kDictionaryPage) {
        ++page_number;
        page_offset = offset;
        pos += total;
        if (auto st = DecodeDictionary(*h, stored); !st) return At(std::move(st).error());
        continue;
      }
      if (h->type != PageType::kDataPage && h->type != PageType::kDataPageV2) {
        ++page_number;
        pos += total;
        continue;
      }
      const bool v2 = h->type == PageType::kDataPageV2;
      const int64_t num = v2 ? h->data_page_header_v2->num_values : h->data_page_header->num_values;
      int64_t rows = -1;
      if (leaf.max_rep == 0) rows = num;
      if (v2) rows = h->data_page_header_v2->num_rows;
      if (rows < 0 || num < 0 || row + rows > target || num > num_values - levels_seen) {
        return false;
      }
      ++page_number;
      pos += total;
      levels_seen += num;
      row += rows;
      return true;
    }
  }

  // Consumes up to `n` rows (whole rows: a row's continuation levels come with it), appending
  // them to `out` unless it is null. With `load`, pages are loaded as needed (never jumping over
  // rows); without, it stops at the end of the loaded page. Returns the rows consumed.
  Result<int64_t> Consume(int64_t n, LeafBatch* out, bool load) {
    const bool repeated = leaf.max_rep > 0;
    int64_t taken = 0;
    while (true) {
      if (lpos == page_levels) {
        if (!load || (taken == n && page_ends_record)) break;
        FLOE_ASSIGN_OR_RETURN(bool loaded, LoadPage(false));
        if (!loaded) break;
        continue;
      }
      const int64_t start = lpos;
      bool stop = false;
      if (!repeated) {
        const int64_t k = std::min(n - taken, page_levels - lpos);
        if (k == 0) break;
        lpos += k;
        taken += k;
        row += k;
      } else {
        int64_t i = lpos;
        while (i < page_levels) {
          if (rep[i] == 0) {
            if (taken == n) {
              stop = true;
              break;
            }
            ++taken;
            ++row;
          }
          ++i;
        }
        lpos = i;
      }
      rows_to_come = n - taken;
      FLOE_RETURN_IF_ERROR(Emit(start, out));
      if (stop) break;
    }
    if (out != nullptr) out->num_rows += taken;
    return taken;
  }

  // Decodes the loaded page's next `n` values onto the end of `out`, or passes over them.
  Status TakeValues(int64_t n, DenseValues* out) {
    if (n == 0 || leaf.conversion == ReadConversion::kNull) return {};
    if (decoder == nullptr) return Internal("values requested of a page without a decoder");
    if (out == nullptr) return decoder->Skip(n);
    if (options.matcher != nullptr) return TakeMatches(n, out);
    if (dict_page) {
      const uint8_t* padded = dict.width == 0 ? dict_padded.data() : nullptr;
      FLOE_ASSIGN_OR_RETURN(bool keep, KeepCodes(out));
      if (keep) {
        // The indices are decoded straight into the codes the column will carry.
        const size_t at = out->codes.size();
        out->codes.resize(at + static_cast<size_t>(n));
        std::span<int32_t> idx(out->codes.data() + at, static_cast<size_t>(n));
        FLOE_RETURN_IF_ERROR(decoder->DecodeIndices(idx, static_cast<int32_t>(dict.count)));
        return Gather(dict, idx, out, rows_to_come, padded);
      }
      indices.resize(static_cast<size_t>(n));
      FLOE_RETURN_IF_ERROR(decoder->DecodeIndices(indices, static_cast<int32_t>(dict.count)));
      return Gather(dict, indices, out, rows_to_come, padded);
    }
    out->codes_complete = false;
    out->codes.clear();
    return DecodeValues(decoder.get(), n, leaf, out);
  }

  // Before a gather from the dictionary: whether `out` keeps the values' entries (codes), so the
  // column can carry them (Column::dictionary) -- binary leaves of a small dictionary, while every
  // value of the batch came from it.
  Result<bool> KeepCodes(DenseValues* out) {
    constexpr int64_t kMaxEntries = 1 << 16;
    if (!out->codes_complete || leaf.conversion != ReadConversion::kBinary ||
        dict.count > kMaxEntries) {
      out->codes_complete = false;
      out->codes.clear();
      return false;
    }
    if (!dict_column_built) {
      FLOE_ASSIGN_OR_RETURN(dict_column, ValuesAsColumn(leaf, dict));
      dict_column_built = true;
    }
    if (out->code_dictionary && out->code_dictionary != dict_column) {
      out->codes_complete = false;  // values from two dictionaries (never within a chunk)
      out->codes.clear();
      return false;
    }
    out->code_dictionary = dict_column;
    return true;
  }

  // As TakeValues, but appends whether each value matches (options.matcher), one byte each.
  Status TakeMatches(int64_t n, DenseValues* out) {
    const size_t at = out->data.size();
    if (dict_page) {
      if (!dict_matched) {
        FLOE_ASSIGN_OR_RETURN(dict_match, (*options.matcher)(dict));
        if (static_cast<int64_t>(dict_match.size()) != dict.count) {
          return Internal("matcher gave {} answers for {} dictionary values", dict_match.size(),
                          dict.count);
        }
        dict_matched = true;
      }
      indices.resize(static_cast<size_t>(n));
      FLOE_RETURN_IF_ERROR(decoder->DecodeIndices(indices, static_cast<int32_t>(dict.count)));
      out->data.resize(at + static_cast<size_t>(n));
      uint8_t* o = out->data.data() + at;
      const uint8_t* m = dict_match.data();
      for (int64_t i = 0; i < n; ++i) o[i] = m[indices[static_cast<size_t>(i)]];
    } else {
      DenseValues values;
      values.width = value_width;
      FLOE_RETURN_IF_ERROR(DecodeValues(decoder.get(), n, leaf, &values));
      FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> m, (*options.matcher)(std::move(values)));
      if (static_cast<int64_t>(m.size()) != n) {
        return Internal("matcher gave {} answers for {} values", m.size(), n);
      }
      out->data.insert(out->data.end(), m.begin(), m.end());
    }
    out->count += n;
    return {};
  }

  // Hands levels [start, lpos) of the loaded page and their values to `out` (or drops them).
  Status Emit(int64_t start, LeafBatch* out) {
    int64_t non_null = lpos - start;
    if (leaf.max_def > 0 && !page_all_defined) {
      const int16_t max_def = leaf.max_def;
      const int16_t* d = def.data();
      int64_t c = 0;
      for (int64_t i = start; i < lpos; ++i) c += d[i] == max_def;
      non_null = c;
    }
    if (out != nullptr) {
      if (leaf.max_def > 0) {
        // While every level of the batch is max_def, leave `def` empty (def_when_empty says so)
        // and spare the copy here and the validity pass in the assembler.
        const bool elided = out->def.empty();
        if (page_all_defined) {
          if (!elided)
            out->def.insert(out->def.end(), static_cast<size_t>(lpos - start), leaf.max_def);
        } else {
          if (elided && out->num_levels > 0) {
            out->def.assign(static_cast<size_t>(out->num_levels), leaf.max_def);
          }
          out->def.insert(out->def.end(), def.begin() + start, def.begin() + lpos);
        }
      }
      if (leaf.max_rep > 0) {
        out->rep.insert(out->rep.end(), rep.begin() + start, rep.begin() + lpos);
      }
      out->num_levels += lpos - start;
    }
    // Values are decoded here, after the page was loaded: name the page in errors about its
    // bytes, as LoadPage does. A batch outgrowing int32 offsets is no fault of the page.
    if (auto st = TakeValues(non_null, out != nullptr ? &out->values : nullptr); !st) {
      Error e = std::move(st).error();
      if (e.kind == ErrorKind::kCorrupt) return At(std::move(e));
      return std::unexpected(std::move(e));
    }
    vpos += non_null;
    return {};
  }
};

Status CheckPageHeaders(ByteView chunk, int64_t chunk_offset, int64_t num_values) {
  int64_t values = 0;
  size_t at = 0;
  for (int page = 0; values < num_values; ++page) {
    if (at >= chunk.size()) {
      return Corrupt("column chunk ends after {} of its {} values", values, num_values);
    }
    const int64_t offset = chunk_offset + static_cast<int64_t>(at);
    size_t header_len = 0;
    auto h = ParsePageHeader(chunk.subspan(at), &header_len);
    if (!h) return Corrupt("page {} at offset {}: {}", page, offset, h.error().message);
    const size_t size = static_cast<size_t>(h->compressed_page_size);
    if (size > chunk.size() - at - header_len) {
      return Corrupt("page {} at offset {}: page claims {} bytes, the chunk has {} left", page,
                     offset, size, chunk.size() - at - header_len);
    }
    at += header_len + size;
    int64_t n = 0;
    if (h->type == PageType::kDataPage) n = h->data_page_header->num_values;
    if (h->type == PageType::kDataPageV2) n = h->data_page_header_v2->num_values;
    if (n < 0 || n > num_values - values) {
      return Corrupt("page {} at offset {}: page holds {} values, the chunk only {} more", page,
                     offset, n, num_values - values);
    }
    values += n;
  }
  return {};
}

ColumnChunkReader::ColumnChunkReader(std::unique_ptr<State> state) : s_(std::move(state)) {}
ColumnChunkReader::ColumnChunkReader(ColumnChunkReader&&) noexcept = default;
ColumnChunkReader& ColumnChunkReader::operator=(ColumnChunkReader&&) noexcept = default;
ColumnChunkReader::~ColumnChunkReader() = default;

Result<ColumnChunkReader> ColumnChunkReader::Make(const ColumnDescriptor& leaf,
                                                  const ColumnMetaData& meta,
                                                  int64_t row_group_rows, ChunkSource source,
                                                  const ChunkReaderOptions& options) {
  auto s = std::make_unique<State>();
  s->leaf = leaf;
  s->codec_id = meta.codec;
  s->num_values = meta.num_values;
  s->rg_rows = row_group_rows;
  s->src = std::move(source);
  s->options = options;
  s->def_width = internal::BitWidth(static_cast<uint64_t>(leaf.max_def));
  s->rep_width = internal::BitWidth(static_cast<uint64_t>(leaf.max_rep));
  FLOE_ASSIGN_OR_RETURN(s->codec, MakeCodec(meta.codec));
  s->value_width = ValueWidth(leaf);
  s->dict.width = s->value_width;
  if (!s->src.paged && !s->src.headers_checked) {
    FLOE_RETURN_IF_ERROR(
        CheckPageHeaders(s->src.chunk.view(), s->src.chunk_offset, meta.num_values));
  }
  return ColumnChunkReader(std::move(s));
}

int64_t ColumnChunkReader::next_row() const { return s_->row; }

Status ColumnChunkReader::SkipTo(int64_t target) {
  State& s = *s_;
  if (target < s.row) return Internal("cannot skip back from row {} to row {}", s.row, target);
  while (s.row < target) {
    if (s.lpos == s.page_levels) {
      FLOE_ASSIGN_OR_RETURN(bool passed, s.PassPage(target));
      if (passed) continue;
      FLOE_ASSIGN_OR_RETURN(bool loaded, s.LoadPage(true));
      if (!loaded) return Corrupt("column chunk ends at row {}, before row {}", s.row, target);
      if (s.row > target) {
        return Internal("row {} is not in the pages supplied (the next starts at row {})", target,
                        s.row);
      }
      continue;
    }
    FLOE_RETURN_IF_ERROR(s.Consume(target - s.row, nullptr, false));
  }
  // A v1 page may end inside the last row passed over: its continuation opens the next page.
  if (s.lpos == s.page_levels && !s.page_ends_record) {
    FLOE_ASSIGN_OR_RETURN(bool loaded, s.LoadPage(false));
    if (loaded) {
      const int64_t start = s.lpos;
      while (s.lpos < s.page_levels && s.rep[s.lpos] != 0) ++s.lpos;
      FLOE_RETURN_IF_ERROR(s.Emit(start, nullptr));
    }
  }
  return {};
}

void ColumnChunkReader::ReserveRows(int64_t n, LeafBatch* out) const {
  const State& s = *s_;
  const bool matching = s.options.matcher != nullptr;
  if (out->values.count == 0 && out->values.data.empty()) {
    out->values.width = matching ? 1 : s.value_width;
  }
  if (s.leaf.max_rep != 0 || n <= 0) return;
  // A flat leaf yields at most one value and one level per row.
  const size_t rows = static_cast<size_t>(n);
  if (s.leaf.max_def > 0) Grow(&out->def, rows);
  if (matching) {
    Grow(&out->values.data, rows);
  } else if (s.leaf.conversion == ReadConversion::kBinary) {
    Grow(&out->values.offsets, rows);
    if (out->values.codes_complete) Grow(&out->values.codes, rows);
  } else if (s.leaf.conversion != ReadConversion::kNull) {
    // Capped for wide FIXED_LEN_BYTE_ARRAY values; past it the doubling takes over.
    Grow(&out->values.data,
         std::min(rows * static_cast<size_t>(out->values.width), size_t{64} << 20));
  }
}

Result<int64_t> ColumnChunkReader::ReadRows(int64_t n, LeafBatch* out) {
  State& s = *s_;
  out->def_when_empty = s.leaf.max_def;
  // Sized once rather than grown (and copied) page by page.
  ReserveRows(n, out);
  return s.Consume(n, out, true);
}

}  // namespace floe::parquet
