// PageHeader: the Thrift header in front of every page of a column chunk, as plain floe data, with
// its parser (which reports the header's length, so the page follows in the same buffer) and
// serialiser. A parsed header has sizes >= 0 and the sub-header its page type needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/statistics.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

struct DataPageHeader {
  int32_t num_values = 0;  // levels, nulls included
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;

  friend bool operator==(const DataPageHeader&, const DataPageHeader&) = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;

  friend bool operator==(const DictionaryPageHeader&, const DictionaryPageHeader&) = default;
};

// Page layout: repetition levels, definition levels (both RLE, no length prefix, never
// compressed), then the values (compressed when is_compressed).
struct DataPageHeaderV2 {
  int32_t num_values = 0;  // levels, nulls included
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;

  friend bool operator==(const DataPageHeaderV2&, const DataPageHeaderV2&) = default;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;              // page bytes after the header, once decompressed
  int32_t compressed_page_size = 0;                // page bytes after the header, as stored
  std::optional<int32_t> crc;                      // CRC-32 of the stored page bytes
  std::optional<DataPageHeader> data_page_header;  // type == kDataPage
  std::optional<DictionaryPageHeader> dictionary_page_header;  // type == kDictionaryPage
  std::optional<DataPageHeaderV2> data_page_header_v2;         // type == kDataPageV2

  friend bool operator==(const PageHeader&, const PageHeader&) = default;
};

// Parses the header at the front of `bytes`; *header_len receives its length in bytes, so the
// page's stored bytes are bytes[*header_len, *header_len + compressed_page_size). Pages of an
// unknown type (a newer writer's) parse without error; the reader decides to skip them.
Result<PageHeader> ParsePageHeader(ByteView bytes, size_t* header_len);

Result<std::vector<uint8_t>> SerializePageHeader(const PageHeader& header);

}  // namespace floe::parquet
