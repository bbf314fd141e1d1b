#include "floe/parquet/read_planner.h"

#include <algorithm>
#include <cmath>

namespace floe::parquet {

namespace {

int64_t RoundUp4K(int64_t n) { return (n + 4095) / 4096 * 4096; }

void AtomicMax(std::atomic<int64_t>* a, int64_t v) {
  int64_t cur = a->load(std::memory_order_relaxed);
  while (cur < v && !a->compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

}  // namespace

int64_t TailEstimator::Estimate(int64_t file_length, bool with_page_index) const {
  int64_t seen = footer_max_.load(std::memory_order_relaxed);
  if (with_page_index) seen = std::max(seen, index_max_.load(std::memory_order_relaxed));
  int64_t tail = seen > 0 ? RoundUp4K(static_cast<int64_t>(
                                std::ceil(static_cast<double>(seen) * options_.tail_headroom)))
                          : options_.initial_tail_bytes;
  return std::clamp<int64_t>(tail, 8, std::max<int64_t>(file_length, 8));
}

void TailEstimator::Observe(int64_t tail_bytes, bool with_page_index) {
  AtomicMax(with_page_index ? &index_max_ : &footer_max_, tail_bytes);
}

FirstRead PlanFirstRead(const ReadPlannerOptions& options, int64_t file_length,
                        int64_t projected_bytes, int64_t tail_estimate) {
  FirstRead out;
  if (file_length <= options.whole_file_bytes) {
    out.whole_file = true;
    return out;
  }
  if (projected_bytes >= 0 && file_length <= options.max_request_bytes) {
    const int64_t needed = std::min(file_length, projected_bytes + tail_estimate);
    if (file_length - needed <= options.coalesce_gap) {
      out.whole_file = true;
      return out;
    }
  }
  out.tail_bytes = std::min(tail_estimate, file_length);
  return out;
}

std::vector<ByteRange> CoalesceCapped(std::vector<ByteRange> ranges, int64_t gap, int64_t max_bytes,
                                      double max_waste_ratio) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<ByteRange> out;
  int64_t wanted = 0;  // bytes of the last output range that some input range wants
  for (const ByteRange& r : ranges) {
    if (r.length <= 0) continue;
    if (!out.empty()) {
      ByteRange& last = out.back();
      if (r.end() <= last.end()) continue;  // inside the last range
      const int64_t end = r.end();
      const int64_t hole = std::max<int64_t>(0, r.offset - last.end());
      const int64_t added = std::min(r.length, end - last.end());
      const bool overlaps = r.offset <= last.end();
      const int64_t waste = (last.length - wanted) + hole;
      const bool cheap =
          max_waste_ratio <= 0 ||
          static_cast<double>(waste) <= max_waste_ratio * static_cast<double>(wanted + added);
      if (overlaps || (hole <= gap && end - last.offset <= max_bytes && cheap)) {
        last.length = end - last.offset;
        wanted += added;
        continue;
      }
    }
    out.push_back(r);
    wanted = r.length;
  }
  return out;
}

int64_t PageIndexStart(const FileMetaData& metadata) {
  int64_t start = -1;
  auto take = [&](const std::optional<int64_t>& offset) {
    if (offset && *offset >= 0 && (start < 0 || *offset < start)) start = *offset;
  };
  for (const RowGroup& rg : metadata.row_groups) {
    for (const ColumnChunk& c : rg.columns) {
      take(c.column_index_offset);
      take(c.offset_index_offset);
    }
  }
  return start;
}

}  // namespace floe::parquet
