#include "floe/parquet/metadata_checksum.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace floe::parquet {

namespace {

constexpr std::string_view kPlaceholder = "00000000";

std::optional<uint32_t> ParseHex8(std::string_view s) {
  if (s.size() != 8) return std::nullopt;
  uint32_t v = 0;
  for (char c : s) {
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<uint32_t>(c - 'a' + 10);
    } else {
      return std::nullopt;
    }
  }
  return v;
}

const std::optional<std::string>* Find(const FileMetaData& m, std::string_view key) {
  for (const KeyValue& kv : m.key_value_metadata) {
    if (kv.key == key) return &kv.value;
  }
  return nullptr;
}

// Where the value of the kFooterCrcKey entry lies in a serialised footer: the key, then the
// Thrift compact header of KeyValue.value (field 2, binary) and its length, 8.
std::optional<size_t> ValueOffset(ByteView footer) {
  std::string pattern(kFooterCrcKey);
  pattern += "\x18\x08";
  const std::string_view bytes = AsStringView(footer);
  const size_t at = bytes.rfind(pattern);
  if (at == std::string_view::npos || at + pattern.size() + 8 > bytes.size()) return std::nullopt;
  return at + pattern.size();
}

}  // namespace

uint32_t Crc32(ByteView bytes) { return libdeflate_crc32(0, bytes.data(), bytes.size()); }

std::string PageIndexCrcValue(
    const std::vector<std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>>>&
        crcs) {
  std::string out;
  for (const auto& row_group : crcs) {
    for (const auto& [column_index, offset_index] : row_group) {
      out += fmt::format("{:08x}{:08x}", column_index.value_or(0), offset_index.value_or(0));
    }
  }
  return out;
}

Result<std::string> SealFooter(std::vector<uint8_t>* footer) {
  auto at = ValueOffset(*footer);
  if (!at || std::memcmp(footer->data() + *at, kPlaceholder.data(), 8) != 0) {
    return Internal("footer without its {} placeholder", kFooterCrcKey);
  }
  const std::string value = fmt::format("{:08x}", Crc32(*footer));
  std::memcpy(footer->data() + *at, value.data(), 8);
  return value;
}

bool HasFloeChecksums(const FileMetaData& m) {
  return m.created_by && m.created_by->starts_with("floe version ");
}

Status CheckFooterChecksum(ByteView footer, const FileMetaData& m) {
  if (!HasFloeChecksums(m)) return {};
  const std::optional<std::string>* value = Find(m, kFooterCrcKey);
  if (value == nullptr) return {};  // written before floe recorded it
  const std::optional<uint32_t> recorded = *value ? ParseHex8(**value) : std::nullopt;
  const auto at = ValueOffset(footer);
  if (!recorded || !at || std::memcmp(footer.data() + *at, (*value)->data(), 8) != 0) {
    return Corrupt("the footer's {} entry is malformed", kFooterCrcKey);
  }
  std::vector<uint8_t> copy(footer.begin(), footer.end());
  std::memcpy(copy.data() + *at, kPlaceholder.data(), 8);
  const uint32_t actual = Crc32(copy);
  if (actual != *recorded) {
    return Corrupt("the footer's CRC-32 is {:08x}, its {} entry says {:08x}", actual, kFooterCrcKey,
                   *recorded);
  }
  return {};
}

std::optional<uint32_t> RecordedIndexCrc(const FileMetaData& m, size_t row_group, size_t column,
                                         bool column_index) {
  if (!HasFloeChecksums(m) || row_group >= m.row_groups.size()) return std::nullopt;
  const std::optional<std::string>* value = Find(m, kPageIndexCrcKey);
  if (value == nullptr || !*value) return std::nullopt;
  // floe's row groups all have one chunk per leaf.
  const size_t columns = m.row_groups[row_group].columns.size();
  const size_t at = ((row_group * columns + column) * 2 + (column_index ? 0 : 1)) * 8;
  if ((*value)->size() != m.row_groups.size() * columns * 16) return std::nullopt;
  return ParseHex8(std::string_view(**value).substr(at, 8));
}

}  // namespace floe::parquet
