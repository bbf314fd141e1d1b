#include "floe/parquet/byte_range.h"

#include <algorithm>

#include <fmt/format.h>

namespace floe::parquet {

std::string ByteRange::ToString() const { return fmt::format("[{}, +{})", offset, length); }

std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, int64_t max_gap) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<ByteRange> out;
  for (const ByteRange& r : ranges) {
    if (r.length <= 0) continue;
    if (!out.empty() && r.offset <= out.back().end() + max_gap) {
      out.back().length = std::max(out.back().end(), r.end()) - out.back().offset;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

void FetchedBytes::Add(int64_t offset, Buffer bytes) {
  longest_ = std::max(longest_, static_cast<int64_t>(bytes.size()));
  parts_.emplace(offset, std::move(bytes));
}

std::optional<Buffer> FetchedBytes::Find(const ByteRange& range) const {
  if (range.offset < 0 || range.length < 0) return std::nullopt;
  // Buffers starting at or before the range, nearest first; none starting before
  // range.end() - longest_ can reach its end.
  auto it = parts_.upper_bound(range.offset);
  while (it != parts_.begin()) {
    --it;
    const int64_t start = it->first;
    if (start + longest_ < range.end()) break;
    if (start + static_cast<int64_t>(it->second.size()) >= range.end()) {
      return it->second.Slice(static_cast<size_t>(range.offset - start),
                              static_cast<size_t>(range.length));
    }
  }
  return std::nullopt;
}

Result<Buffer> FetchedBytes::Get(const ByteRange& range, std::string_view what) const {
  auto b = Find(range);
  if (!b) return InvalidInput("the bytes {} of {} were not supplied", range.ToString(), what);
  return std::move(*b);
}

std::vector<std::pair<int64_t, Buffer>> FetchedBytes::CopiesWithin(const ByteRange& range) const {
  std::vector<std::pair<int64_t, Buffer>> out;
  for (const auto& [start, bytes] : parts_) {
    const int64_t lo = std::max(start, range.offset);
    const int64_t hi = std::min(start + static_cast<int64_t>(bytes.size()), range.end());
    if (lo >= hi) continue;
    out.emplace_back(
        lo, Buffer::Copy(
                bytes.Slice(static_cast<size_t>(lo - start), static_cast<size_t>(hi - lo)).view()));
  }
  return out;
}

int64_t FetchedBytes::total_bytes() const {
  int64_t n = 0;
  for (const auto& [offset, bytes] : parts_) n += static_cast<int64_t>(bytes.size());
  return n;
}

}  // namespace floe::parquet
