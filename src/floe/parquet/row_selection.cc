#include "floe/parquet/row_selection.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

namespace floe::parquet {

std::vector<RowRange> SubtractRows(const std::vector<RowRange>& a, const std::vector<RowRange>& b) {
  std::vector<RowRange> out;
  size_t j = 0;
  for (RowRange r : a) {
    while (j < b.size() && b[j].end <= r.begin) ++j;
    for (size_t k = j; k < b.size() && b[k].begin < r.end; ++k) {
      if (b[k].begin > r.begin) out.push_back({r.begin, b[k].begin});
      r.begin = std::max(r.begin, b[k].end);
    }
    if (r.begin < r.end) out.push_back(r);
  }
  return out;
}

std::vector<RowRange> IntersectRows(const std::vector<RowRange>& a,
                                    const std::vector<RowRange>& b) {
  std::vector<RowRange> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t begin = std::max(a[i].begin, b[j].begin);
    const int64_t end = std::min(a[i].end, b[j].end);
    if (begin < end) out.push_back({begin, end});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

std::optional<RowSelection> SelectMatches(const ReadPlan& plan, const std::vector<uint8_t>& match,
                                          bool trust_certain) {
  RowSelection m;
  size_t at = 0;
  for (const RowGroupPlan& rg : plan.row_groups) {
    std::vector<RowRange>& out = m.per_group.emplace_back();
    auto add = [&](int64_t begin, int64_t end) {
      if (!out.empty() && out.back().end == begin) {
        out.back().end = end;
      } else {
        out.push_back({begin, end});
        ++m.ranges;
      }
      m.selected += end - begin;
    };
    const std::vector<RowRange> none;
    const std::vector<RowRange>& certain = trust_certain ? rg.certain : none;
    size_t c = 0;
    for (const RowRange& r : rg.rows) {
      m.planned += r.end - r.begin;
      int64_t row = r.begin;
      while (row < r.end) {
        while (c < certain.size() && certain[c].end <= row) ++c;
        if (c < certain.size() && certain[c].begin <= row) {
          const int64_t end = std::min(r.end, certain[c].end);
          add(row, end);
          row = end;
          continue;
        }
        const int64_t end = c < certain.size() ? std::min(r.end, certain[c].begin) : r.end;
        if (at + static_cast<size_t>(end - row) > match.size()) return std::nullopt;
        // Runs of matches, found with memchr (most rows of a selective filter fail it).
        while (row < end) {
          const uint8_t* from = match.data() + at;
          const auto* hit =
              static_cast<const uint8_t*>(std::memchr(from, 1, static_cast<size_t>(end - row)));
          if (hit == nullptr) {
            at += static_cast<size_t>(end - row);
            row = end;
            break;
          }
          const int64_t skip = hit - from;
          int64_t run = 1;
          while (row + skip + run < end && hit[run]) ++run;
          add(row + skip, row + skip + run);
          at += static_cast<size_t>(skip + run);
          row += skip + run;
        }
      }
    }
  }
  if (at != match.size()) return std::nullopt;
  return m;
}

std::optional<RowSelection> CountMatches(const ReadPlan& plan, const std::vector<uint8_t>& match,
                                         bool trust_certain) {
  RowSelection m;
  size_t at = 0;
  // Counts the 1s of match[at, at + n) and the runs they form.
  auto count = [&](size_t n) {
    const uint8_t* b = match.data() + at;
    at += n;
    for (size_t i = 0; i < n; i += kMatchBlockRows) {
      const size_t len = std::min<size_t>(kMatchBlockRows, n - i);
      ++m.blocks;
      m.touched += std::memchr(b + i, 1, len) != nullptr ? 1 : 0;
    }
    // Eight bytes (each 0 or 1) at a time: their 1s, and the 1s whose byte before is 0 -- the
    // word shifted a byte up (little-endian) holds each byte's predecessor.
    int64_t ones = 0, starts = 0;
    uint64_t before = 0;  // the last byte of the previous word, in the low byte
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w = 0;
      std::memcpy(&w, b + i, 8);
      const uint64_t predecessors = (w << 8) | before;
      ones += std::popcount(w);
      starts += std::popcount(w & ~predecessors);
      before = w >> 56;
    }
    for (; i < n; ++i) {
      ones += b[i];
      starts += b[i] & (before ^ 1);
      before = b[i];
    }
    m.selected += ones;
    m.ranges += starts;
  };
  for (const RowGroupPlan& rg : plan.row_groups) {
    int64_t certain = 0;
    if (trust_certain) {
      for (const RowRange& c : rg.certain) {
        certain += c.end - c.begin;
        const int64_t blocks = (c.end - c.begin + kMatchBlockRows - 1) / kMatchBlockRows;
        m.blocks += blocks;
        m.touched += blocks;
      }
      m.ranges += static_cast<int64_t>(rg.certain.size());
    }
    int64_t rows = 0;
    for (const RowRange& r : rg.rows) rows += r.end - r.begin;
    m.planned += rows;
    m.selected += certain;
    const auto left = static_cast<size_t>(rows - certain);
    if (at + left > match.size()) return std::nullopt;
    count(left);
  }
  if (at != match.size()) return std::nullopt;
  return m;
}

std::vector<uint8_t> MatchFlags(const ReadPlan& plan, std::vector<uint8_t> match,
                                bool trust_certain) {
  const bool any_certain =
      trust_certain && std::any_of(plan.row_groups.begin(), plan.row_groups.end(),
                                   [](const RowGroupPlan& rg) { return !rg.certain.empty(); });
  if (!any_certain) return match;
  std::vector<uint8_t> flags;
  size_t at = 0;
  for (const RowGroupPlan& rg : plan.row_groups) {
    size_t c = 0;
    for (const RowRange& r : rg.rows) {
      int64_t row = r.begin;
      while (row < r.end) {
        while (c < rg.certain.size() && rg.certain[c].end <= row) ++c;
        if (c < rg.certain.size() && rg.certain[c].begin <= row) {
          const int64_t end = std::min(r.end, rg.certain[c].end);
          flags.insert(flags.end(), static_cast<size_t>(end - row), 1);
          row = end;
          continue;
        }
        const int64_t end = c < rg.certain.size() ? std::min(r.end, rg.certain[c].begin) : r.end;
        const auto n = static_cast<size_t>(end - row);
        const size_t take = std::min(n, match.size() - std::min(at, match.size()));
        flags.insert(flags.end(), match.begin() + static_cast<std::ptrdiff_t>(at),
                     match.begin() + static_cast<std::ptrdiff_t>(at + take));
        flags.insert(flags.end(), n - take, 0);
        at += take;
        row = end;
      }
    }
  }
  return flags;
}

namespace {

// `plan` without its row groups, producing only `fields`; the leaves those read.
ReadPlan FieldsOnly(const ReadPlan& plan, const std::vector<size_t>& fields,
                    std::set<int>* kept_leaves) {
  ReadPlan out = plan;
  out.row_groups.clear();
  out.fields.clear();
  auto out_schema = std::make_shared<columnar::Schema>();
  for (size_t i : fields) {
    const FieldNode& f = plan.fields[i];
    out.fields.push_back(f);
    out_schema->fields.push_back(f.field);
    kept_leaves->insert(f.leaves.begin(), f.leaves.end());
  }
  out.schema = out_schema;
  out.columns.assign(kept_leaves->begin(), kept_leaves->end());
  std::erase_if(out.matchers, [&](const auto& m) { return !kept_leaves->count(m.first); });
  return out;
}

// `rg` with only the chunks of `kept_leaves`, and `rows` and `certain` as given.
RowGroupPlan KeptRowGroup(const RowGroupPlan& rg, const std::set<int>& kept_leaves,
                          std::vector<RowRange> rows, std::vector<RowRange> certain) {
  RowGroupPlan out = rg;
  out.rows = std::move(rows);
  out.certain = std::move(certain);
  std::erase_if(out.columns,
                [&](const ColumnChunkPlan& c) { return !kept_leaves.count(c.column); });
  return out;
}

}  // namespace

ReadPlan HeadOfPlan(const ReadPlan& plan, int64_t rows) {
  ReadPlan head = plan;
  head.row_groups.clear();
  for (const RowGroupPlan& rg : plan.row_groups) {
    if (rows <= 0) break;
    RowGroupPlan piece = rg;
    piece.rows.clear();
    for (const RowRange& r : rg.rows) {
      if (rows <= 0) break;
      const int64_t n = std::min(rows, r.end - r.begin);
      piece.rows.push_back({r.begin, r.begin + n});
      rows -= n;
    }
    piece.certain = IntersectRows(piece.certain, piece.rows);
    head.row_groups.push_back(std::move(piece));
  }
  return head;
}

ReadPlan KeepFields(const ReadPlan& plan, const std::vector<size_t>& fields) {
  std::set<int> kept_leaves;
  ReadPlan kept = FieldsOnly(plan, fields, &kept_leaves);
  for (const RowGroupPlan& rg : plan.row_groups) {
    kept.row_groups.push_back(KeptRowGroup(rg, kept_leaves, rg.rows, rg.certain));
  }
  return kept;
}

ReadPlan NarrowPlan(const ReadPlan& plan, const std::vector<size_t>& fields, RowSelection selection,
                    int64_t batch_rows) {
  std::set<int> kept_leaves;
  ReadPlan narrowed = FieldsOnly(plan, fields, &kept_leaves);
  narrowed.batch_rows = std::min(plan.batch_rows, batch_rows);
  for (size_t g = 0; g < plan.row_groups.size(); ++g) {
    if (selection.per_group[g].empty()) continue;
    std::vector<RowRange>& rows = selection.per_group[g];
    std::vector<RowRange> certain = rows;
    narrowed.row_groups.push_back(
        KeptRowGroup(plan.row_groups[g], kept_leaves, std::move(rows), std::move(certain)));
  }
  return narrowed;
}

std::vector<int64_t> FileRowStarts(const FileMetaData& metadata) {
  std::vector<int64_t> out;
  int64_t at = 0;
  for (const RowGroup& rg : metadata.row_groups) {
    out.push_back(at);
    at += rg.num_rows;
  }
  return out;
}

void ExcludeRows(const std::vector<RowRange>& excluded,
                 const std::vector<int64_t>& row_group_starts, ReadPlan* plan) {
  if (excluded.empty()) return;
  int64_t rows = 0;
  for (RowGroupPlan& rg : plan->row_groups) {
    const int64_t start =
        rg.row_group >= 0 && static_cast<size_t>(rg.row_group) < row_group_starts.size()
            ? row_group_starts[static_cast<size_t>(rg.row_group)]
            : 0;
    std::vector<RowRange> local;
    for (const RowRange& r : excluded) {
      const int64_t begin = std::max<int64_t>(r.begin - start, 0);
      const int64_t end = std::min<int64_t>(r.end - start, rg.num_rows);
      if (begin < end) local.push_back({begin, end});
    }
    if (!local.empty()) {
      rg.rows = SubtractRows(rg.rows, local);
      rg.certain = SubtractRows(rg.certain, local);
      for (ColumnChunkPlan& c : rg.columns) {
        if (!c.paged) continue;
        const size_t before = c.pages.size();
        std::erase_if(c.pages, [&](const PagePlan& p) {
          return IntersectRows(rg.rows, {{p.first_row, p.first_row + p.num_rows}}).empty();
        });
        plan->counts.pages_skipped += static_cast<int64_t>(before - c.pages.size());
      }
    }
    for (const RowRange& r : rg.rows) rows += r.end - r.begin;
  }
  std::erase_if(plan->row_groups, [](const RowGroupPlan& rg) { return rg.rows.empty(); });
  plan->counts.rows = rows;
}

std::vector<RowRange> TakeLongRuns(std::vector<RowRange>* mask, int64_t min_run) {
  std::vector<RowRange> long_runs, short_runs;
  for (const RowRange& r : *mask)
    (r.end - r.begin >= min_run ? long_runs : short_runs).push_back(r);
  *mask = std::move(short_runs);
  return long_runs;
}

RowPositions::RowPositions(const ReadPlan& plan, const std::vector<int64_t>& row_group_starts) {
  for (const RowGroupPlan& rg : plan.row_groups) {
    const int64_t start =
        rg.row_group >= 0 && static_cast<size_t>(rg.row_group) < row_group_starts.size()
            ? row_group_starts[static_cast<size_t>(rg.row_group)]
            : 0;
    for (const RowRange& r : rg.rows) runs_.push_back({start + r.begin, start + r.end});
  }
}

void RowPositions::Next(int64_t n, std::vector<int64_t>* out) {
  while (n > 0 && run_ < runs_.size()) {
    const RowRange& r = runs_[run_];
    const int64_t k = std::min(n, r.end - r.begin - at_);
    for (int64_t i = 0; i < k; ++i) out->push_back(r.begin + at_ + i);
    at_ += k;
    n -= k;
    if (r.begin + at_ == r.end) {
      ++run_;
      at_ = 0;
    }
  }
}

void RowPositions::NextRanges(int64_t n, std::vector<RowRange>* out) {
  while (n > 0 && run_ < runs_.size()) {
    const RowRange& r = runs_[run_];
    const int64_t k = std::min(n, r.end - r.begin - at_);
    out->push_back({r.begin + at_, r.begin + at_ + k});
    at_ += k;
    n -= k;
    if (r.begin + at_ == r.end) {
      ++run_;
      at_ = 0;
    }
  }
}

std::vector<ReadPlan> SplitPlan(ReadPlan plan, size_t parts, int64_t min_rows) {
  int64_t total = 0;
  for (const RowGroupPlan& rg : plan.row_groups) {
    for (const RowRange& r : rg.rows) total += r.end - r.begin;
  }
  parts = std::min<size_t>(parts, static_cast<size_t>(std::max<int64_t>(1, total / min_rows)));
  std::vector<ReadPlan> out;
  if (parts <= 1) {
    out.push_back(std::move(plan));
    return out;
  }
  // The row groups (their row lists may be long: a narrowed plan's) are moved, never copied.
  std::vector<RowGroupPlan> groups = std::move(plan.row_groups);
  plan.row_groups.clear();
  out.assign(parts, plan);
  if (groups.size() >= parts) {
    // Contiguous blocks, so the slices taken in turn keep the plan's order.
    const size_t n = groups.size();
    for (size_t i = 0; i < n; ++i) out[i * parts / n].row_groups.push_back(std::move(groups[i]));
    return out;
  }
  // Fewer row groups than parts: equal shares of the rows, in order, cutting row groups.
  const int64_t share = (total + static_cast<int64_t>(parts) - 1) / static_cast<int64_t>(parts);
  size_t part = 0;
  int64_t taken = 0;  // rows given to `part` so far
  for (RowGroupPlan& rg : groups) {
    std::vector<RowRange> rows = std::move(rg.rows);
    rg.rows.clear();
    rg.certain.clear();  // decoding does not look at it
    RowGroupPlan piece = rg;
    for (RowRange r : rows) {
      while (r.begin < r.end) {
        const int64_t n = std::min(r.end - r.begin, share - taken);
        piece.rows.push_back({r.begin, r.begin + n});
        r.begin += n;
        taken += n;
        if (taken == share && part + 1 < parts) {
          out[part].row_groups.push_back(std::move(piece));
          piece = rg;
          ++part;
          taken = 0;
        }
      }
    }
    if (!piece.rows.empty()) out[part].row_groups.push_back(std::move(piece));
  }
  std::erase_if(out, [](const ReadPlan& p) { return p.row_groups.empty(); });
  return out;
}

}  // namespace floe::parquet
