// Hilbert clustering, as Delta's liquid clustering orders rows: each column's values mapped to
// range ids -- up to `ranges` (1024, 10 bits) ranges whose boundaries are quantiles of a sample
// of the column, so that every range holds about as many rows however the values are
// distributed -- and rows ordered by the ids' position along a d-dimensional Hilbert curve
// (Skilling's transform, "Programming the Hilbert curve", 2004). Unlike Z-order's jumps, cells
// next on the curve are neighbours in space, so a file -- a run of the curve -- is a compact box.
// A column's values are compared by their Z-order ordered bytes (zorder.h: strings by their first
// 8 bytes). Fewer than 2 columns fall back to Z-order. Pure functions, thread safe.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/layout/zorder.h"

namespace floe::layout {

struct HilbertOptions {
  int ranges = 1024;             // range ids per column, 2 to 65536
  int64_t sample_rows = 100000;  // rows sampled (evenly spaced) for the range boundaries
  int var_length_contribution = 8;
};

// Up to `ranges` - 1 boundaries from a sample of a column's keys (sorted, distinct): quantiles.
std::vector<uint64_t> RangeBoundaries(std::vector<uint64_t> sample, int ranges);

// The range a key falls in: the number of boundaries at or below it.
uint32_t RangeId(const std::vector<uint64_t>& boundaries, uint64_t key);

// Skilling's transform of a point of `n` (2 to 16) coordinates of `bits` (1 to 16) bits each into
// its Hilbert index, in place and "transposed": the index's bits, most significant first, are
// bit bits-1 of coords[0], of coords[1], ..., then bit bits-2 of each, and so on.
void HilbertTranspose(uint32_t* coords, size_t n, int bits);

// Each column's range boundaries, from an evenly spaced sample of `rows` (2 to 16 columns).
struct HilbertRanges {
  std::vector<std::vector<uint64_t>> bounds;  // per column
  int bits = 10;                              // of a range id
  int var_length_contribution = 8;
};
Result<HilbertRanges> SampleRanges(const std::vector<const columnar::Column*>& columns,
                                   const std::vector<int64_t>& rows, const HilbertOptions& options);

// The Hilbert keys of `rows` over `columns` in `ranges` (sampled from these rows or others).
Result<KeyBytes> HilbertKeys(const std::vector<const columnar::Column*>& columns,
                             const std::vector<int64_t>& rows, const HilbertRanges& ranges);

}  // namespace floe::layout
