#include "floe/parquet/read_planner.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

namespace floe::parquet {

namespace {

int64_t RoundUp4K(int64_t n) { return (n + 4095) / 4096 * 4096; }

void AtomicMax(std::atomic<int64_t>* a, int64_t v) {
  int64_t cur = a->load(std::memory_order_relaxed);
  while (cur < v && !a->compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

// E[max of m independent standard normals], by integrating x * m * phi(x) * Phi(x)^(m-1) on a
// grid; worked out for each m the first time it is asked for (m up to kMaxWave: a wave is never
// wider than the store's pool). Tabulating every m at once took a short command's first plan
// 5 ms; a wave's width takes a few values.
constexpr int kMaxWave = 1024;

double ExpectedMaxNormal(int m) {
  m = std::clamp(m, 1, kMaxWave);
  struct Point {
    double x, pdf, cdf;
  };
  static const std::vector<Point> grid = [] {
    std::vector<Point> g;
    constexpr double kLo = -9, kHi = 9, kStep = 0.005;
    const double inv_sqrt_2pi = 1.0 / std::sqrt(2.0 * std::acos(-1.0));
    for (double x = kLo; x <= kHi; x += kStep) {
      g.push_back({x, inv_sqrt_2pi * std::exp(-0.5 * x * x), 0.5 * std::erfc(-x / std::sqrt(2.0))});
    }
    return g;
  }();
  // 0: not worked out yet (a race works it out twice, to the same value).
  static std::array<std::atomic<double>, kMaxWave + 1> known{};
  if (const double v = known[static_cast<size_t>(m)].load(std::memory_order_relaxed); v != 0) {
    return v;
  }
  constexpr double kStep = 0.005;
  double sum = 0;
  for (const Point& p : grid) {
    double power = 1;  // cdf^(m-1)
    for (int k = 1; k < m; ++k) power *= p.cdf;
    sum += p.x * m * p.pdf * power * kStep;
  }
  known[static_cast<size_t>(m)].store(sum, std::memory_order_relaxed);
  return sum;
}

// Requests from sorted, disjoint ranges: a range joins the open request when its gap is at most
// `gap` and the request stays within `cap` bytes.
RequestPlan Group(const std::vector<ByteRange>& ranges, int64_t gap, int64_t cap) {
  RequestPlan plan;
  for (const ByteRange& r : ranges) {
    if (!plan.requests.empty()) {
      ByteRange& last = plan.requests.back();
      if (r.offset - last.end() <= gap && r.end() - last.offset <= cap) {
        last.length = r.end() - last.offset;
        continue;
      }
    }
    plan.requests.push_back(r);
  }
  for (const ByteRange& r : plan.requests) plan.bytes += r.length;
  return plan;
}

// Whether `a` meets the objective better than `b`; `fastest` is the best modelled time of all
// candidates (the latency objective's ties are judged against it).
bool Better(const RequestPlan& a, const RequestPlan& b, const ReadPlannerOptions& options,
            double fastest) {
  const size_t na = a.requests.size(), nb = b.requests.size();
  switch (options.objective) {
    case ReadObjective::kLatency: {
      const double tie = fastest * (1 + std::max(0.0, options.latency_slack));
      const bool a_tied = a.modelled_ms <= tie, b_tied = b.modelled_ms <= tie;
      if (a_tied != b_tied) return a_tied;
      if (!a_tied) return a.modelled_ms < b.modelled_ms;
      if (na != nb) return na < nb;
      return a.modelled_ms < b.modelled_ms;
    }
    case ReadObjective::kRequests:
      if (na != nb) return na < nb;
      return a.modelled_ms < b.modelled_ms;
    case ReadObjective::kCost:
      if (a.dollars != b.dollars) return a.dollars < b.dollars;
      return a.modelled_ms < b.modelled_ms;
  }
  return false;
}

}  // namespace

std::string_view ReadObjectiveName(ReadObjective objective) {
  switch (objective) {
    case ReadObjective::kLatency:
      return "latency";
    case ReadObjective::kRequests:
      return "requests";
    case ReadObjective::kCost:
      return "cost";
  }
  return "latency";
}

std::optional<ReadObjective> ParseReadObjective(std::string_view name) {
  for (ReadObjective o :
       {ReadObjective::kLatency, ReadObjective::kRequests, ReadObjective::kCost}) {
    if (name == ReadObjectiveName(o)) return o;
  }
  return std::nullopt;
}

double ModelRequestsMs(const io::SimulationOptions& model, const std::vector<int64_t>& sizes,
                       int max_in_flight) {
  if (sizes.empty()) return 0;
  const int64_t n = static_cast<int64_t>(sizes.size());
  const int64_t lanes =
      std::max<int64_t>(1, std::min<int64_t>({n, max_in_flight, std::max(1, model.concurrency)}));
  const int64_t waves = (n + lanes - 1) / lanes;
  const double first_byte =
      model.first_byte_ms *
      std::exp(std::max(0.0, model.jitter_sigma) * ExpectedMaxNormal(static_cast<int>(lanes)));
  double longest = 0, total = 0;
  for (int64_t s : sizes) {
    longest = std::max(longest, static_cast<double>(s));
    total += static_cast<double>(s);
  }
  double transfer = 0;
  if (model.mbps > 0) {
    const double per_ms = model.mbps * 1000.0;  // bytes per ms per request
    transfer = std::max(longest / per_ms, total / per_ms / static_cast<double>(lanes));
  }
  if (model.total_mbps > 0) transfer = std::max(transfer, total / (model.total_mbps * 1000.0));
  return static_cast<double>(waves) * first_byte + transfer;
}

RequestPlan PlanRequests(std::vector<ByteRange> ranges, const ReadPlannerOptions& options,
                         int max_in_flight) {
  // Sorted and disjoint: overlapping and touching ranges are one range.
  std::sort(ranges.begin(), ranges.end());
  std::vector<ByteRange> merged;
  for (const ByteRange& r : ranges) {
    if (r.length <= 0) continue;
    if (!merged.empty() && r.offset <= merged.back().end()) {
      merged.back().length = std::max(merged.back().end(), r.end()) - merged.back().offset;
    } else {
      merged.push_back(r);
    }
  }
  const int64_t cap_limit = std::max<int64_t>(1, options.max_request_bytes);
  auto score = [&](RequestPlan& p) {
    std::vector<int64_t> sizes;
    sizes.reserve(p.requests.size());
    for (const ByteRange& r : p.requests) sizes.push_back(r.length);
    p.modelled_ms = ModelRequestsMs(options.store_model, sizes, max_in_flight);
    p.dollars = static_cast<double>(p.requests.size()) * options.get_price_per_1000 / 1000.0 +
                static_cast<double>(p.bytes) * options.transfer_price_per_gb / 1e9;
  };
  if (merged.size() <= 1) {
    RequestPlan p = Group(merged, 0, cap_limit);
    score(p);
    return p;
  }

  // Gap thresholds: no read-through, every distinct gap (or 16 quantiles), and any gap.
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < merged.size(); ++i) gaps.push_back(merged[i].offset - merged[i - 1].end());
  std::sort(gaps.begin(), gaps.end());
  gaps.erase(std::unique(gaps.begin(), gaps.end()), gaps.end());
  std::vector<int64_t> thresholds = {-1};
  constexpr size_t kQuantiles = 16;
  if (gaps.size() <= kQuantiles) {
    thresholds.insert(thresholds.end(), gaps.begin(), gaps.end());
  } else {
    for (size_t q = 1; q <= kQuantiles; ++q)
      thresholds.push_back(gaps[q * (gaps.size() - 1) / kQuantiles]);
  }
  // Request-size caps: the span in 1, 2, 3, 4, 6, 8, ... parts up to the batch's width.
  const int64_t span = merged.back().end() - merged.front().offset;
  const int64_t width = std::max(1, max_in_flight);
  std::vector<int64_t> caps;
  for (int64_t parts = 1; parts <= width; parts = parts < 4 ? parts + 1 : parts * 3 / 2) {
    caps.push_back(std::min(cap_limit, std::max<int64_t>(1, (span + parts - 1) / parts)));
  }
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());

  std::vector<RequestPlan> candidates;
  candidates.reserve(thresholds.size() * caps.size());
  double fastest = std::numeric_limits<double>::infinity();
  for (int64_t gap : thresholds) {
    for (int64_t cap : caps) {
      RequestPlan p = Group(merged, gap, cap);
      score(p);
      fastest = std::min(fastest, p.modelled_ms);
      candidates.push_back(std::move(p));
    }
  }
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (Better(candidates[i], candidates[best], options, fastest)) best = i;
  }
  return std::move(candidates[best]);
}

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
