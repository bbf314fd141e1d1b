#include "floe/parquet/footer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/parquet/metadata_checksum.h"

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

std::string ColumnName(const ColumnMetaData& meta, size_t c) {
  return meta.path_in_schema.empty() ? fmt::format("#{}", c)
                                     : fmt::format("{}", fmt::join(meta.path_in_schema, "."));
}

// Every range the footer points at must lie inside the file's data region or the file; a reader
// would otherwise plan a GET past the end or into the footer. Column chunks never share bytes and
// hold their first data page: a chunk whose offsets say otherwise would be read from another
// chunk's pages, which may decode (and pass their checksums) as the wrong values.
Status CheckRanges(const FileMetaData& m, uint64_t data_end, uint64_t file_length) {
  auto inside = [](int64_t offset, int64_t length, uint64_t end) {
    return offset >= 0 && length >= 0 && static_cast<uint64_t>(offset) <= end &&
           static_cast<uint64_t>(length) <= end - static_cast<uint64_t>(offset);
  };
  struct Placed {
    int64_t offset, end;
    size_t row_group, column;
  };
  std::vector<Placed> chunks;
  const int64_t data_start = static_cast<int64_t>(kParquetMagic.size());
  for (size_t r = 0; r < m.row_groups.size(); ++r) {
    const RowGroup& rg = m.row_groups[r];
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& chunk = rg.columns[c];
      if (chunk.file_path || !chunk.meta_data) continue;  // elsewhere, or encrypted
      const ColumnMetaData& meta = *chunk.meta_data;
      const std::string column = ColumnName(meta, c);
      const int64_t start = meta.chunk_start();
      // A chunk without values may have no data page (data_page_offset 0) and is never read.
      const bool has_values = meta.num_values > 0;
      if ((has_values && start < data_start) ||
          !inside(start, meta.total_compressed_size, data_end)) {
        return Corrupt(
            "column '{}' of row group {} claims bytes [{}, +{}) outside the data region "
            "[4, {})",
            column, r, start, meta.total_compressed_size, data_end);
      }
      if (has_values && (meta.data_page_offset < start ||
                         meta.data_page_offset >= start + meta.total_compressed_size)) {
        return Corrupt(
            "column '{}' of row group {} has its first data page at {}, outside its "
            "bytes [{}, +{})",
            column, r, meta.data_page_offset, start, meta.total_compressed_size);
      }
      if (has_values) {
        chunks.push_back({start, start + meta.total_compressed_size, r, c});
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
  std::sort(chunks.begin(), chunks.end(),
            [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < chunks.size(); ++i) {
    const Placed& a = chunks[i - 1];
    const Placed& b = chunks[i];
    if (b.offset < a.end) {
      const auto& ma = *m.row_groups[a.row_group].columns[a.column].meta_data;
      const auto& mb = *m.row_groups[b.row_group].columns[b.column].meta_data;
      return Corrupt(
          "column '{}' of row group {} [{}, +{}) overlaps column '{}' of row group {} [{}, +{})",
          ColumnName(mb, b.column), b.row_group, b.offset, b.end - b.offset,
          ColumnName(ma, a.column), a.row_group, a.offset, a.end - a.offset);
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
  if (auto st = CheckFooterChecksum(bytes, *metadata); !st) {
    return InFile(path, std::move(st).error());
  }
  // A row group list cut short by a flipped list header parses; the file's row count then tells.
  // (Some writers leave num_rows 0: repeated_no_annotation.parquet in parquet-testing.)
  int64_t rows = 0;
  for (const RowGroup& rg : metadata->row_groups) {
    if (rg.num_rows < 0 || rows > INT64_MAX - rg.num_rows) {
      return Corrupt("parquet file '{}': a row group of {} rows", path, rg.num_rows);
    }
    rows += rg.num_rows;
  }
  if (metadata->num_rows != 0 && metadata->num_rows != rows) {
    return Corrupt("parquet file '{}': the footer says {} rows, its row groups hold {}", path,
                   metadata->num_rows, rows);
  }
  out.metadata = std::move(*metadata);
  return out;
}

}  // namespace floe::parquet
