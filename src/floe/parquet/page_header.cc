#include "floe/parquet/page_header.h"

#include <algorithm>

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

namespace {

constexpr std::string_view kWhat = "PageHeader";

Result<DataPageHeader> FromThrift(const format::DataPageHeader& in) {
  if (!in.__isset.num_values || in.num_values < 0) {
    return Corrupt("{}: DATA_PAGE num_values is missing or negative", kWhat);
  }
  if (!in.__isset.encoding) return Corrupt("{}: DATA_PAGE has no encoding", kWhat);
  DataPageHeader out;
  out.num_values = in.num_values;
  out.encoding = static_cast<Encoding>(in.encoding);
  // Level encodings are only read when the column has levels; a missing one means RLE.
  if (in.__isset.definition_level_encoding) {
    out.definition_level_encoding = static_cast<Encoding>(in.definition_level_encoding);
  }
  if (in.__isset.repetition_level_encoding) {
    out.repetition_level_encoding = static_cast<Encoding>(in.repetition_level_encoding);
  }
  if (in.__isset.statistics) out.statistics = internal::FromThrift(in.statistics);
  return out;
}

Result<DictionaryPageHeader> FromThrift(const format::DictionaryPageHeader& in) {
  if (!in.__isset.num_values || in.num_values < 0) {
    return Corrupt("{}: DICTIONARY_PAGE num_values is missing or negative", kWhat);
  }
  DictionaryPageHeader out;
  out.num_values = in.num_values;
  // Some writers omit the dictionary encoding; the only one there is is PLAIN.
  out.encoding = in.__isset.encoding ? static_cast<Encoding>(in.encoding) : Encoding::kPlain;
  if (in.__isset.is_sorted) out.is_sorted = in.is_sorted;
  return out;
}

Result<DataPageHeaderV2> FromThrift(const format::DataPageHeaderV2& in, int32_t page_size) {
  if (!in.__isset.num_values || in.num_values < 0 || in.num_nulls < 0 || in.num_rows < 0 ||
      in.num_nulls > in.num_values) {
    return Corrupt(
        "{}: DATA_PAGE_V2 counts are missing or inconsistent (values {}, nulls {}, "
        "rows {})",
        kWhat, in.num_values, in.num_nulls, in.num_rows);
  }
  if (!in.__isset.encoding) return Corrupt("{}: DATA_PAGE_V2 has no encoding", kWhat);
  if (in.definition_levels_byte_length < 0 || in.repetition_levels_byte_length < 0 ||
      int64_t{in.definition_levels_byte_length} + in.repetition_levels_byte_length > page_size) {
    return Corrupt("{}: DATA_PAGE_V2 level lengths ({} + {}) do not fit the {}-byte page", kWhat,
                   in.repetition_levels_byte_length, in.definition_levels_byte_length, page_size);
  }
  DataPageHeaderV2 out;
  out.num_values = in.num_values;
  out.num_nulls = in.num_nulls;
  out.num_rows = in.num_rows;
  out.encoding = static_cast<Encoding>(in.encoding);
  out.definition_levels_byte_length = in.definition_levels_byte_length;
  out.repetition_levels_byte_length = in.repetition_levels_byte_length;
  out.is_compressed = in.is_compressed;
  if (in.__isset.statistics) out.statistics = internal::FromThrift(in.statistics);
  return out;
}

}  // namespace

Result<PageHeader> ParsePageHeader(ByteView bytes, size_t* header_len) {
  format::PageHeader in;
  size_t consumed = 0;
  FLOE_RETURN_IF_ERROR(internal::ReadThrift(bytes, &in, &consumed, kWhat));
  if (!in.__isset.type) return Corrupt("{}: page type is missing", kWhat);
  if (!in.__isset.uncompressed_page_size || !in.__isset.compressed_page_size ||
      in.uncompressed_page_size < 0 || in.compressed_page_size < 0) {
    return Corrupt("{}: page sizes are missing or negative (compressed {}, uncompressed {})", kWhat,
                   in.compressed_page_size, in.uncompressed_page_size);
  }
  PageHeader out;
  out.type = static_cast<PageType>(in.type);
  out.uncompressed_page_size = in.uncompressed_page_size;
  out.compressed_page_size = in.compressed_page_size;
  if (in.__isset.crc) out.crc = in.crc;
  if (in.__isset.data_page_header) {
    FLOE_ASSIGN_OR_RETURN(out.data_page_header, FromThrift(in.data_page_header));
  }
  if (in.__isset.dictionary_page_header) {
    FLOE_ASSIGN_OR_RETURN(out.dictionary_page_header, FromThrift(in.dictionary_page_header));
  }
  if (in.__isset.data_page_header_v2) {
    // Levels are stored uncompressed, so they must fit in both sizes.
    FLOE_ASSIGN_OR_RETURN(out.data_page_header_v2,
                          FromThrift(in.data_page_header_v2,
                                     std::min(in.compressed_page_size, in.uncompressed_page_size)));
  }
  switch (out.type) {
    case PageType::kDataPage:
      if (!out.data_page_header) return Corrupt("{}: DATA_PAGE without DataPageHeader", kWhat);
      break;
    case PageType::kDataPageV2:
      if (!out.data_page_header_v2) {
        return Corrupt("{}: DATA_PAGE_V2 without DataPageHeaderV2", kWhat);
      }
      break;
    case PageType::kDictionaryPage:
      if (!out.dictionary_page_header) {
        return Corrupt("{}: DICTIONARY_PAGE without DictionaryPageHeader", kWhat);
      }
      break;
    default:
      break;  // index pages and unknown page types carry nothing floe reads
  }
  *header_len = consumed;
  return out;
}

Result<std::vector<uint8_t>> SerializePageHeader(const PageHeader& in) {
  format::PageHeader out;
  out.type = static_cast<int32_t>(in.type);
  out.uncompressed_page_size = in.uncompressed_page_size;
  out.compressed_page_size = in.compressed_page_size;
  if (in.crc) out.__set_crc(*in.crc);
  if (in.data_page_header) {
    const auto& h = *in.data_page_header;
    format::DataPageHeader t;
    t.num_values = h.num_values;
    t.encoding = static_cast<int32_t>(h.encoding);
    t.definition_level_encoding = static_cast<int32_t>(h.definition_level_encoding);
    t.repetition_level_encoding = static_cast<int32_t>(h.repetition_level_encoding);
    if (h.statistics) t.__set_statistics(internal::ToThrift(*h.statistics));
    out.__set_data_page_header(t);
  }
  if (in.dictionary_page_header) {
    const auto& h = *in.dictionary_page_header;
    format::DictionaryPageHeader t;
    t.num_values = h.num_values;
    t.encoding = static_cast<int32_t>(h.encoding);
    if (h.is_sorted) t.__set_is_sorted(*h.is_sorted);
    out.__set_dictionary_page_header(t);
  }
  if (in.data_page_header_v2) {
    const auto& h = *in.data_page_header_v2;
    format::DataPageHeaderV2 t;
    t.num_values = h.num_values;
    t.num_nulls = h.num_nulls;
    t.num_rows = h.num_rows;
    t.encoding = static_cast<int32_t>(h.encoding);
    t.definition_levels_byte_length = h.definition_levels_byte_length;
    t.repetition_levels_byte_length = h.repetition_levels_byte_length;
    t.__set_is_compressed(h.is_compressed);
    if (h.statistics) t.__set_statistics(internal::ToThrift(*h.statistics));
    out.__set_data_page_header_v2(t);
  }
  return internal::WriteThrift(out, kWhat);
}

}  // namespace floe::parquet
