#include "floe/parquet/footer.h"

#include <cstring>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace floe::parquet {

namespace {

// Magic bytes for a message: printable as text, else as hex.
std::string ShowMagic(ByteView b) {
  std::string s;
  for (uint8_t c : b) {
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      s += fmt::format("\\x{:02x}", c);
    }
  }
  return s;
}

std::unexpected<Error> InFile(std::string_view path, Error e) {
  e.message = fmt::format("parquet file '{}': {}", path, e.message);
  return std::unexpected(std::move(e));
}

// Every range the footer points at must lie inside the file's data region or the file; a reader
// would otherwise plan a GET past the end or into the footer.
Status CheckRanges(const FileMetaData& m, uint64_t data_end, uint64_t file_length) {
  auto inside = [](int64_t offset, int64_t length, uint64_t end) {
    return offset >= 0 && length >= 0 && static_cast<uint64_t>(offset) <= end &&
           static_cast<uint64_t>(length) <= end - static_cast<uint64_t>(offset);
  };
  for (size_t r = 0; r < m.row_groups.size(); ++r) {
    const RowGroup& rg = m.row_groups[r];
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& chunk = rg.columns[c];
      if (chunk.file_path || !chunk.meta_data) continue;  // elsewhere, or encrypted
      const ColumnMetaData& meta = *chunk.meta_data;
      std::string column = meta.path_in_schema.empty()
                               ? fmt::format("#{}", c)
                               : fmt::format("{}", fmt::join(meta.path_in_schema, "."));
      if (!inside(meta.chunk_start(), meta.total_compressed_size, data_end)) {
        return Corrupt(
            "column '{}' of row group {} claims bytes [{}, +{}) outside the data region "
            "[4, {})",
            column, r, meta.chunk_start(), meta.total_compressed_size, data_end);
      }
      if (chunk.column_index_offset && chunk.column_index_length &&
          !inside(*chunk.column_index_offset, *chunk.column_index_length, file_length)) {
        return Corrupt("column '{}' of row group {} has a column index outside the file", column,
                       r);
      }
      if (chunk.offset_index_offset && chunk.offset_index_length &&
          !inside(*chunk.offset_index_offset, *chunk.offset_index_length, file_length)) {
        return Corrupt("column '{}' of row group {} has an offset index outside the file", column,
                       r);
      }
      if (meta.bloom_filter_offset &&
          !inside(*meta.bloom_filter_offset, meta.bloom_filter_length.value_or(0), file_length)) {
        return Corrupt("column '{}' of row group {} has a Bloom filter outside the file", column,
                       r);
      }
    }
  }
  return {};
}

}  // namespace

Result<FooterTail> ParseFooter(std::string_view path, uint64_t file_length, ByteView tail) {
  const uint64_t n = tail.size();
  const uint64_t magic_len = kParquetMagic.size();
  if (file_length < 2 * magic_len + 4) {
    return Corrupt("parquet file '{}': {} bytes is too short for a Parquet file (at least {})",
                   path, file_length, 2 * magic_len + 4);
  }
  if (n > file_length) {
    return InvalidInput("parquet file '{}': the tail given ({} bytes) is longer than the file ({})",
                        path, n, file_length);
  }
  FooterTail out;
  if (n < kFooterTrailerLength) return out;  // need the trailer first

  ByteView end_magic = tail.subspan(n - magic_len);
  if (AsStringView(end_magic) == kEncryptedFooterMagic) {
    return Unsupported("encrypted parquet file '{}' (footer magic PARE); floe does not decrypt",
                       path);
  }
  if (AsStringView(end_magic) != kParquetMagic) {
    return Corrupt("parquet file '{}': ends in '{}' instead of the magic 'PAR1'", path,
                   ShowMagic(end_magic));
  }
  if (n == file_length && AsStringView(tail.first(magic_len)) != kParquetMagic) {
    return Corrupt("parquet file '{}': starts with '{}' instead of the magic 'PAR1'", path,
                   ShowMagic(tail.first(magic_len)));
  }
  uint32_t length = 0;
  std::memcpy(&length, tail.data() + n - kFooterTrailerLength, sizeof(length));  // little endian
  out.metadata_length = length;
  if (uint64_t{length} + kFooterTrailerLength + magic_len > file_length) {
    return Corrupt("parquet file '{}': footer length {} does not fit in the {}-byte file", path,
                   length, file_length);
  }
  if (length > kMaxFooterLength) {
    return Unsupported("parquet file '{}': footer of {} bytes exceeds floe's limit of {}", path,
                       length, kMaxFooterLength);
  }
  out.tail_length_needed = uint64_t{length} + kFooterTrailerLength;
  out.metadata_offset = file_length - out.tail_length_needed;
  if (out.tail_length_needed > n) return out;

  ByteView bytes = tail.subspan(n - out.tail_length_needed, length);
  auto metadata = ParseFileMetaData(bytes);
  if (!metadata) return InFile(path, std::move(metadata).error());
  if (auto st = CheckRanges(*metadata, out.metadata_offset, file_length); !st) {
    return InFile(path, std::move(st).error());
  }
  out.metadata = std::move(*metadata);
  return out;
}

}  // namespace floe::parquet
