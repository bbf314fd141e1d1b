#include "floe/parquet/page_index_check.h"

#include <fmt/format.h>

#include "floe/parquet/page_header.h"

namespace floe::parquet {

namespace {

std::string Show(const std::optional<PredicateValue>& v) {
  return v ? PredicateValueToString(*v) : "none";
}

// -1, 0, 1 when both are set and ordered; nullopt otherwise (an absent bound, a NaN).
std::optional<int> CompareBounds(const std::optional<PredicateValue>& a,
                                 const std::optional<PredicateValue>& b) {
  if (!a || !b) return std::nullopt;
  return ComparePredicateValues(*a, *b);
}

}  // namespace

Status CheckOffsetIndex(const OffsetIndex& index, const PageIndexContext& c) {
  const auto& p = index.page_locations;
  if (p.empty()) return Corrupt("the offset index lists no pages");
  if (p[0].first_row_index != 0) {
    return Corrupt("the offset index's first page starts at row {}, not 0", p[0].first_row_index);
  }
  if (p[0].offset < c.meta->data_page_offset) {
    return Corrupt(
        "the offset index's first page is at offset {}, before the first data page at {}",
        p[0].offset, c.meta->data_page_offset);
  }
  for (size_t i = 0; i < p.size(); ++i) {
    const ByteRange page{p[i].offset, p[i].compressed_page_size};
    if (p[i].compressed_page_size <= 0) {
      return Corrupt("offset index page {} is {} bytes long", i, p[i].compressed_page_size);
    }
    if (!c.chunk.Contains(page)) {
      return Corrupt("offset index page {} {} lies outside the column chunk {}", i, page.ToString(),
                     c.chunk.ToString());
    }
    if (p[i].first_row_index >= c.row_group_rows) {
      return Corrupt("offset index page {} starts at row {}, past the row group's {} rows", i,
                     p[i].first_row_index, c.row_group_rows);
    }
    if (i == 0) continue;
    if (p[i].first_row_index <= p[i - 1].first_row_index) {
      return Corrupt("offset index page {} starts at row {}, not after page {} (row {})", i,
                     p[i].first_row_index, i - 1, p[i - 1].first_row_index);
    }
    if (p[i].offset < p[i - 1].offset + p[i - 1].compressed_page_size) {
      return Corrupt("offset index page {} at offset {} overlaps page {} [{}, +{})", i, p[i].offset,
                     i - 1, p[i - 1].offset, p[i - 1].compressed_page_size);
    }
  }
  return {};
}

std::optional<std::string> BoundsContradiction(const ValueBounds& b) {
  if (b.null_count && *b.null_count < 0) {
    return fmt::format("a null count of {}", *b.null_count);
  }
  if (b.null_count && b.num_values >= 0 && *b.null_count > b.num_values) {
    return fmt::format("{} nulls among {} values", *b.null_count, b.num_values);
  }
  if (b.all_null && (b.min || b.max)) return std::string("bounds on a page of nulls only");
  if (auto order = CompareBounds(b.min, b.max); order && *order > 0) {
    return fmt::format("a min of {} above its max of {}", Show(b.min), Show(b.max));
  }
  return std::nullopt;
}

Status CheckColumnIndex(const ColumnIndex& ci, const OffsetIndex& oi, const PageIndexContext& c) {
  const size_t n = oi.page_locations.size();
  if (ci.num_pages() != n) {
    return Corrupt("the column index has {} pages, the offset index {}", ci.num_pages(), n);
  }
  const ColumnDescriptor& leaf = *c.leaf;
  const bool flat = leaf.max_rep == 0;
  const std::vector<ValueBounds> bounds = PageBounds(leaf, *c.metadata, ci);
  // Statistics cut to a prefix (strings, binary) may lie outside the pages' own cut bounds.
  ValueBounds chunk;
  if (leaf.domain != StatsDomain::kBytes) chunk = ChunkBounds(leaf, *c.metadata, *c.meta);
  const bool ascending = ci.boundary_order == BoundaryOrder::kAscending;
  const bool descending = ci.boundary_order == BoundaryOrder::kDescending;
  std::optional<size_t> last;  // the last page with bounds, for the boundary order
  for (size_t i = 0; i < n; ++i) {
    const int64_t rows = oi.PageRows(i, c.row_group_rows);
    const bool null_page = ci.null_pages[i];
    if (null_page && (!ci.min_values[i].empty() || !ci.max_values[i].empty())) {
      return Corrupt("column index page {} holds only nulls yet has bounds", i);
    }
    if (null_page && leaf.max_def == 0) {
      return Corrupt("column index page {} of a required column holds only nulls", i);
    }
    if (ci.null_counts) {
      const int64_t nulls = (*ci.null_counts)[i];
      if (nulls < 0 || (flat && nulls > rows)) {
        return Corrupt("column index page {} has {} nulls in {} rows", i, nulls, rows);
      }
      if (leaf.max_def == 0 && nulls != 0) {
        return Corrupt("column index page {} of a required column has {} nulls", i, nulls);
      }
      if (flat && null_page != (nulls == rows)) {
        return Corrupt("column index page {} has {} nulls in {} rows but is {}marked all null", i,
                       nulls, rows, null_page ? "" : "not ");
      }
    }
    if (ci.nan_counts) {
      const int64_t nans = (*ci.nan_counts)[i];
      if (nans < 0 || (flat && nans > rows)) {
        return Corrupt("column index page {} has {} NaNs in {} rows", i, nans, rows);
      }
    }
    ValueBounds b = bounds[i];
    if (flat) b.num_values = rows;
    if (auto why = BoundsContradiction(b)) {
      return Corrupt("column index page {} has {}", i, *why);
    }
    if (auto below = CompareBounds(b.min, chunk.min); below && *below < 0) {
      return Corrupt("column index page {} has a min of {}, below the chunk's min of {}", i,
                     Show(b.min), Show(chunk.min));
    }
    if (auto above = CompareBounds(b.max, chunk.max); above && *above > 0) {
      return Corrupt("column index page {} has a max of {}, above the chunk's max of {}", i,
                     Show(b.max), Show(chunk.max));
    }
    if (null_page || (!b.min && !b.max)) continue;
    if (last && (ascending || descending)) {
      const ValueBounds& prev = bounds[*last];
      const int sign = ascending ? 1 : -1;
      auto min_order = CompareBounds(prev.min, b.min);
      auto max_order = CompareBounds(prev.max, b.max);
      if ((min_order && *min_order * sign > 0) || (max_order && *max_order * sign > 0)) {
        return Corrupt(
            "the column index is {} but page {}'s bounds [{}, {}] are not in order "
            "after page {}'s [{}, {}]",
            ascending ? "ASCENDING" : "DESCENDING", i, Show(b.min), Show(b.max), *last,
            Show(prev.min), Show(prev.max));
      }
    }
    last = i;
  }
  return {};
}

Status CheckPageAgainstIndex(ByteView page, const PageLocation& location, int64_t rows,
                             const ColumnDescriptor& leaf) {
  size_t header_len = 0;
  auto h = ParsePageHeader(page, &header_len);
  if (!h) {
    return Corrupt("no page header at offset {}, where the offset index points: {}",
                   location.offset, h.error().message);
  }
  if (h->type != PageType::kDataPage && h->type != PageType::kDataPageV2) {
    return Corrupt("the offset index points at a {} page at offset {}", PageTypeName(h->type),
                   location.offset);
  }
  const int64_t total = static_cast<int64_t>(header_len) + h->compressed_page_size;
  if (total != location.compressed_page_size) {
    return Corrupt("the page at offset {} takes {} bytes with its header, the offset index says {}",
                   location.offset, total, location.compressed_page_size);
  }
  const bool v2 = h->type == PageType::kDataPageV2;
  const int64_t values = v2 ? h->data_page_header_v2->num_values : h->data_page_header->num_values;
  if (leaf.max_rep == 0 ? values != rows : values < rows) {
    return Corrupt("the page at offset {} holds {} values, the offset index gives it {} rows",
                   location.offset, values, rows);
  }
  if (v2 && h->data_page_header_v2->num_rows != rows) {
    return Corrupt("the page at offset {} holds {} rows, the offset index says {}", location.offset,
                   h->data_page_header_v2->num_rows, rows);
  }
  return {};
}

}  // namespace floe::parquet
