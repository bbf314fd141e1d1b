// ByteRange and FetchedBytes: the file ranges a read plan asks for, and the buffers a caller
// fetched for them (one buffer may cover many ranges: a coalesced GET, a whole small file).
// Lookups hand out zero-copy slices; once filled, FetchedBytes may be read from any thread.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::parquet {

struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;

  int64_t end() const { return offset + length; }
  bool Contains(const ByteRange& r) const { return r.offset >= offset && r.end() <= end(); }
  // "[4, +120)"
  std::string ToString() const;

  friend bool operator==(const ByteRange&, const ByteRange&) = default;
  friend auto operator<=>(const ByteRange&, const ByteRange&) = default;
};

// Merges ranges (in any order) that overlap or lie at most `max_gap` bytes apart; the result is
// sorted and disjoint. A read path fetches these and hands the buffers to FetchedBytes.
std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, int64_t max_gap);

class FetchedBytes {
 public:
  // Records `bytes` as the contents of [offset, offset + bytes.size()).
  void Add(int64_t offset, Buffer bytes);
  // The bytes of `range` from any one buffer that covers all of it, or nullopt.
  std::optional<Buffer> Find(const ByteRange& range) const;
  // Whether some buffer covers `range`.
  bool Covers(const ByteRange& range) const { return Find(range).has_value(); }
  // The bytes of `range` or an error naming `what` and the range.
  Result<Buffer> Get(const ByteRange& range, std::string_view what) const;

  // Private copies of the parts of every buffer that fall inside `range`, by offset (overlaps
  // are kept as they are): what a cache keeps of a file's index and footer region.
  std::vector<std::pair<int64_t, Buffer>> CopiesWithin(const ByteRange& range) const;

  int64_t total_bytes() const;
  size_t num_buffers() const { return parts_.size(); }

 private:
  std::multimap<int64_t, Buffer> parts_;  // by file offset: lookups in O(log n)
  int64_t longest_ = 0;                   // bounds the backward search of Find
};

}  // namespace floe::parquet
