// floe's CRC-32s of a file's footer and page index, kept in the footer's key-value metadata:
// Parquet itself protects only page bytes (PageHeader.crc), so a flipped min, max or null count
// in the footer statistics or a column index would prune rows away with nothing to tell. Other
// readers ignore the two entries. Checked only in files floe wrote (created_by), because tools
// that rewrite a file (pyarrow) copy key-value metadata into footers of their own. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/file_metadata.h"

namespace floe::parquet {

// CRC-32 (zlib's, as PageHeader.crc) of the serialised footer with this entry's value read as
// "00000000"; 8 lowercase hex digits. The last entry of the key-value metadata.
inline constexpr std::string_view kFooterCrcKey = "floe.footer.crc32";
// Per column chunk, row group by row group, 16 hex digits: the CRC-32 of its serialised
// ColumnIndex, then of its OffsetIndex ("00000000" where it has none).
inline constexpr std::string_view kPageIndexCrcKey = "floe.page_index.crc32";

uint32_t Crc32(ByteView bytes);

// Writer side: the kPageIndexCrcKey value for these CRCs (row group by row group, column by
// column; nullopt where a chunk has no index).
std::string PageIndexCrcValue(
    const std::vector<std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>>>&
        crcs);

// Writer side: `footer` is the serialised FileMetaData whose last key-value entry is
// kFooterCrcKey with the value "00000000"; writes the footer's CRC into it. Returns the value.
Result<std::string> SealFooter(std::vector<uint8_t>* footer);

// Whether `metadata` (parsed from `footer`, all of the serialised FileMetaData) carries floe's
// checksums and they must be checked: written by floe.
bool HasFloeChecksums(const FileMetaData& metadata);

// Ok when the footer has no checksum to check or its CRC matches; corrupt otherwise.
Status CheckFooterChecksum(ByteView footer, const FileMetaData& metadata);

// The CRC-32 floe recorded for a chunk's column index (`column_index`) or offset index, or
// nullopt when the file records none.
std::optional<uint32_t> RecordedIndexCrc(const FileMetaData& metadata, size_t row_group,
                                         size_t column, bool column_index);

}  // namespace floe::parquet
