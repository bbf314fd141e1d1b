// The footer from a tail buffer: given the file length (from the manifest, never a HEAD) and its
// last N bytes, parse the FileMetaData or say exactly how long a tail holds it -- at most one more
// suffix GET. Checks both magics where visible and that every range lies inside the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/file_metadata.h"

namespace floe::parquet {

// "PAR1" at the start and end of every unencrypted Parquet file.
inline constexpr std::string_view kParquetMagic = "PAR1";
// The end of a file whose footer is encrypted.
inline constexpr std::string_view kEncryptedFooterMagic = "PARE";
// Metadata length (4 bytes, little endian) + magic: the fixed trailer behind the metadata.
inline constexpr uint64_t kFooterTrailerLength = 8;
// Larger footers are refused rather than fetched: no real file is near this, a corrupt length is.
inline constexpr uint64_t kMaxFooterLength = uint64_t{256} << 20;

struct FooterTail {
  // The parsed footer, when the tail held all of it.
  std::optional<FileMetaData> metadata;
  // Length of the tail (counted back from the end of the file) that holds the whole footer:
  // metadata length + 8, or just 8 when the tail was too short to show the length. When
  // `metadata` is absent this exceeds the tail given; fetch that many bytes and call again.
  uint64_t tail_length_needed = kFooterTrailerLength;
  // Serialised FileMetaData length; 0 until the tail shows it.
  uint32_t metadata_length = 0;
  // File offset of the serialised FileMetaData (= where the data region ends).
  uint64_t metadata_offset = 0;
};

// `tail` is the last tail.size() bytes of a file of `file_length` bytes at `path`.
Result<FooterTail> ParseFooter(std::string_view path, uint64_t file_length, ByteView tail);

}  // namespace floe::parquet
