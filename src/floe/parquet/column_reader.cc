#include "floe/parquet/column_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "floe/parquet/bit_packed.h"
#include "floe/parquet/bit_util_internal.h"
#include "floe/parquet/decoder.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"

namespace floe::parquet {

namespace {

// Appends `n` decoded values of the column's type to `out`.
Status DecodeInto(Decoder* decoder, int64_t n, ColumnValues* out) {
  const size_t count = static_cast<size_t>(n);
  switch (out->type) {
    case PhysicalType::kBoolean: {
      std::unique_ptr<bool[]> values(new bool[count + 1]);
      FLOE_RETURN_IF_ERROR(decoder->Decode(std::span<bool>(values.get(), count)));
      out->booleans.insert(out->booleans.end(), values.get(), values.get() + count);
      return {};
    }
    case PhysicalType::kInt32: {
      size_t at = out->int32s.size();
      out->int32s.resize(at + count);
      return decoder->Decode(std::span(out->int32s).subspan(at));
    }
    case PhysicalType::kInt64: {
      size_t at = out->int64s.size();
      out->int64s.resize(at + count);
      return decoder->Decode(std::span(out->int64s).subspan(at));
    }
    case PhysicalType::kFloat: {
      size_t at = out->floats.size();
      out->floats.resize(at + count);
      return decoder->Decode(std::span(out->floats).subspan(at));
    }
    case PhysicalType::kDouble: {
      size_t at = out->doubles.size();
      out->doubles.resize(at + count);
      return decoder->Decode(std::span(out->doubles).subspan(at));
    }
    case PhysicalType::kInt96:
    case PhysicalType::kFixedLenByteArray: {
      size_t at = out->fixed.size();
      out->fixed.resize(at + count * static_cast<size_t>(out->type_length));
      return decoder->DecodeFixedWidth(std::span(out->fixed).subspan(at));
    }
    case PhysicalType::kByteArray:
      return decoder->DecodeByteArrays(n, &out->byte_arrays);
  }
  return Internal("unknown physical type");
}

// Appends dictionary[indices[i]] for each index (already checked to be in range).
Status Gather(const ColumnValues& dict, std::span<const int32_t> indices, ColumnValues* out) {
  switch (out->type) {
    case PhysicalType::kBoolean:
      for (int32_t i : indices) out->booleans.push_back(dict.booleans[i]);
      return {};
    case PhysicalType::kInt32:
      for (int32_t i : indices) out->int32s.push_back(dict.int32s[i]);
      return {};
    case PhysicalType::kInt64:
      for (int32_t i : indices) out->int64s.push_back(dict.int64s[i]);
      return {};
    case PhysicalType::kFloat:
      for (int32_t i : indices) out->floats.push_back(dict.floats[i]);
      return {};
    case PhysicalType::kDouble:
      for (int32_t i : indices) out->doubles.push_back(dict.doubles[i]);
      return {};
    case PhysicalType::kInt96:
    case PhysicalType::kFixedLenByteArray: {
      const size_t w = static_cast<size_t>(out->type_length);
      for (int32_t i : indices) {
        auto src = dict.fixed.begin() + static_cast<ptrdiff_t>(i * w);
        out->fixed.insert(out->fixed.end(), src, src + static_cast<ptrdiff_t>(w));
      }
      return {};
    }
    case PhysicalType::kByteArray:
      for (int32_t i : indices) {
        FLOE_RETURN_IF_ERROR(out->byte_arrays.Append(AsBytes(dict.byte_arrays.Value(i))));
      }
      return {};
  }
  return Internal("unknown physical type");
}

bool IsDictionaryEncoding(Encoding e) {
  return e == Encoding::kRleDictionary || e == Encoding::kPlainDictionary;
}

}  // namespace

int64_t ColumnValues::num_non_null() const {
  switch (type) {
    case PhysicalType::kBoolean:
      return static_cast<int64_t>(booleans.size());
    case PhysicalType::kInt32:
      return static_cast<int64_t>(int32s.size());
    case PhysicalType::kInt64:
      return static_cast<int64_t>(int64s.size());
    case PhysicalType::kFloat:
      return static_cast<int64_t>(floats.size());
    case PhysicalType::kDouble:
      return static_cast<int64_t>(doubles.size());
    case PhysicalType::kInt96:
    case PhysicalType::kFixedLenByteArray:
      return type_length > 0 ? static_cast<int64_t>(fixed.size()) / type_length : 0;
    case PhysicalType::kByteArray:
      return byte_arrays.size();
  }
  return 0;
}

Result<ColumnReader> ColumnReader::Open(ByteView chunk, const ColumnChunk& column,
                                        const SchemaElement& leaf, int16_t max_definition_level,
                                        int16_t max_repetition_level,
                                        const ColumnReaderOptions& options) {
  if (column.encrypted || !column.meta_data) {
    return Unsupported("column '{}' is encrypted", leaf.name);
  }
  if (max_repetition_level > 0 || max_definition_level > 1) {
    return Unsupported(
        "column '{}' is nested (max repetition level {}, max definition level {}); "
        "only flat columns are read yet",
        leaf.name, max_repetition_level, max_definition_level);
  }
  ColumnReader r;
  r.chunk_ = chunk;
  r.meta_ = *column.meta_data;
  r.type_length_ = r.meta_.type == PhysicalType::kInt96 ? 12 : leaf.type_length.value_or(0);
  r.max_def_ = max_definition_level;
  r.options_ = options;
  FLOE_ASSIGN_OR_RETURN(r.codec_, MakeCodec(r.meta_.codec));
  return r;
}

Result<ColumnValues> ColumnReader::ReadAll() {
  ColumnValues out;
  out.type = meta_.type;
  out.type_length = type_length_;
  ColumnValues dict;
  dict.type = meta_.type;
  dict.type_length = type_length_;
  bool has_dict = false;
  const int level_width = internal::BitWidth(static_cast<uint64_t>(max_def_));
  std::vector<uint8_t> decompressed;
  std::vector<int32_t> indices;

  size_t pos = 0;
  for (int page = 0; out.num_levels < meta_.num_values; ++page) {
    const size_t page_start = pos;
    auto at = [&](Error e) {
      e.message = fmt::format("page {} at chunk byte {}: {}", page, page_start, e.message);
      return std::unexpected(std::move(e));
    };
    if (pos >= chunk_.size()) {
      return Corrupt("column chunk ends after {} of its {} values", out.num_levels,
                     meta_.num_values);
    }
    size_t header_len = 0;
    auto header = ParsePageHeader(chunk_.subspan(pos), &header_len);
    if (!header) return at(std::move(header).error());
    const size_t stored_size = static_cast<size_t>(header->compressed_page_size);
    if (stored_size > chunk_.size() - pos - header_len) {
      return at(
          Error{ErrorKind::kCorrupt, fmt::format("page claims {} bytes, the chunk has {} left",
                                                 stored_size, chunk_.size() - pos - header_len)});
    }
    ByteView stored = chunk_.subspan(pos + header_len, stored_size);
    pos += header_len + stored_size;
    if (options_.verify_checksums && header->crc) {
      uint32_t crc = static_cast<uint32_t>(
          crc32(crc32(0, nullptr, 0), stored.data(), static_cast<uInt>(stored.size())));
      if (crc != static_cast<uint32_t>(*header->crc)) {
        return at(Error{ErrorKind::kCorrupt,
                        fmt::format("CRC-32 of the page is {:08x}, its header says {:08x}", crc,
                                    static_cast<uint32_t>(*header->crc))});
      }
    }

    // Decompresses `bytes` into `size` bytes (a no-op view when stored uncompressed).
    auto inflate = [&](ByteView bytes, int64_t size, bool compressed) -> Result<ByteView> {
      if (size < 0) return Corrupt("negative uncompressed size {}", size);
      if (!compressed || meta_.codec == CompressionCodec::kUncompressed) {
        if (static_cast<int64_t>(bytes.size()) != size) {
          return Corrupt("page is stored uncompressed in {} bytes, its header says {}",
                         bytes.size(), size);
        }
        return bytes;
      }
      if (bytes.empty() && size == 0) return bytes;  // empty v2 values sections
      decompressed.resize(static_cast<size_t>(size));
      FLOE_RETURN_IF_ERROR(codec_->Decompress(bytes, decompressed));
      return ByteView(decompressed);
    };

    switch (header->type) {
      case PageType::kDictionaryPage: {
        const auto& h = *header->dictionary_page_header;
        if (has_dict) return at(Error{ErrorKind::kCorrupt, "a second dictionary page"});
        if (h.encoding != Encoding::kPlain && h.encoding != Encoding::kPlainDictionary) {
          return at(Error{ErrorKind::kUnsupported,
                          fmt::format("dictionary page in {}", EncodingName(h.encoding))});
        }
        auto data = inflate(stored, header->uncompressed_page_size, true);
        if (!data) return at(std::move(data).error());
        auto decoder = MakeDecoder(Encoding::kPlain, meta_.type, type_length_);
        if (!decoder) return at(std::move(decoder).error());
        Status st = (*decoder)->SetData(h.num_values, *data);
        if (st) st = DecodeInto(decoder->get(), h.num_values, &dict);
        if (!st) return at(std::move(st).error());
        has_dict = true;
        break;
      }
      case PageType::kDataPage:
      case PageType::kDataPageV2: {
        const bool v2 = header->type == PageType::kDataPageV2;
        const int64_t num =
            v2 ? header->data_page_header_v2->num_values : header->data_page_header->num_values;
        const Encoding encoding =
            v2 ? header->data_page_header_v2->encoding : header->data_page_header->encoding;
        if (num > meta_.num_values - out.num_levels) {
          return at(
              Error{ErrorKind::kCorrupt, fmt::format("page holds {} values, the chunk only {} more",
                                                     num, meta_.num_values - out.num_levels)});
        }
        ByteView levels;  // definition levels section
        ByteView values;  // values section, decompressed
        Encoding level_encoding = Encoding::kRle;
        if (v2) {
          const auto& h = *header->data_page_header_v2;
          const size_t rep = static_cast<size_t>(h.repetition_levels_byte_length);
          const size_t def = static_cast<size_t>(h.definition_levels_byte_length);
          levels = stored.subspan(rep, def);
          auto data =
              inflate(stored.subspan(rep + def),
                      int64_t{header->uncompressed_page_size} - static_cast<int64_t>(rep + def),
                      h.is_compressed);
          if (!data) return at(std::move(data).error());
          values = *data;
        } else {
          auto data = inflate(stored, header->uncompressed_page_size, true);
          if (!data) return at(std::move(data).error());
          values = *data;
          level_encoding = header->data_page_header->definition_level_encoding;
          if (max_def_ > 0) {
            if (level_encoding == Encoding::kRle) {
              auto parts = SplitLengthPrefixed(values, "definition levels");
              if (!parts) return at(std::move(parts).error());
              levels = parts->first;
              values = parts->second;
            } else if (level_encoding == Encoding::kBitPacked) {
              uint64_t len = BitPackedLevelDecoder::EncodedLength(num, level_width);
              if (len > values.size()) {
                return at(Error{ErrorKind::kCorrupt,
                                "BIT_PACKED definition levels overrun "
                                "the page"});
              }
              levels = values.first(static_cast<size_t>(len));
              values = values.subspan(static_cast<size_t>(len));
            } else {
              return at(Error{ErrorKind::kUnsupported, fmt::format("definition levels in {}",
                                                                   EncodingName(level_encoding))});
            }
          }
        }

        int64_t non_null = num;
        if (max_def_ > 0) {
          size_t first = out.def_levels.size();
          out.def_levels.resize(first + static_cast<size_t>(num));
          std::span<int16_t> page_levels = std::span(out.def_levels).subspan(first);
          Status st;
          if (level_encoding == Encoding::kBitPacked) {
            BitPackedLevelDecoder d;
            st = d.Reset(levels, level_width, num);
            if (st) st = d.Decode(page_levels);
          } else {
            RleBitPackedHybridDecoder d;
            st = d.Reset(levels, level_width);
            if (st) st = d.Decode(page_levels);
          }
          if (!st) return at(std::move(st).error());
          non_null = 0;
          for (int16_t l : page_levels) {
            if (l > max_def_ || l < 0) {
              return at(
                  Error{ErrorKind::kCorrupt,
                        fmt::format("definition level {} exceeds the maximum {}", l, max_def_)});
            }
            non_null += l == max_def_ ? 1 : 0;
          }
        }
        if (v2 && non_null != num - header->data_page_header_v2->num_nulls) {
          return at(Error{ErrorKind::kCorrupt,
                          fmt::format("levels show {} nulls, the page header says {}",
                                      num - non_null, header->data_page_header_v2->num_nulls)});
        }

        auto decoder = MakeDecoder(encoding, meta_.type, type_length_);
        if (!decoder) return at(std::move(decoder).error());
        Status st = (*decoder)->SetData(non_null, values);
        if (st) {
          if (IsDictionaryEncoding(encoding)) {
            if (!has_dict) {
              return at(Error{ErrorKind::kCorrupt, "dictionary-encoded page without a dictionary"});
            }
            indices.resize(static_cast<size_t>(non_null));
            st = (*decoder)->DecodeIndices(indices, static_cast<int32_t>(dict.num_non_null()));
            if (st) st = Gather(dict, indices, &out);
          } else {
            st = DecodeInto(decoder->get(), non_null, &out);
          }
        }
        if (!st) return at(std::move(st).error());
        out.num_levels += num;
        break;
      }
      default:
        break;  // index pages and unknown page types hold nothing to read
    }
  }
  return out;
}

}  // namespace floe::parquet
