#include "floe/layout/row_order.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <ranges>
#include <string_view>

namespace floe::layout {
namespace {

namespace c = floe::columnar;

// One key's values for every row, in a representation whose natural order is the key's: integers
// as int64; floats as int64 with IEEE 754's total order (so NaN and -0.0 need no case); decimals
// as int128; bytes as views into the column.
struct Keys {
  enum Kind { kInt, kInt128, kBytes } kind = kInt;
  bool descending = false;
  bool nulls_first = true;
  std::vector<uint8_t> null;
  std::vector<int64_t> ints;
  std::vector<__int128> wide;
  std::vector<std::string_view> bytes;

  int CompareRows(int64_t a, int64_t b) const {
    const bool na = null[a], nb = null[b];
    if (na || nb) {
      if (na == nb) return 0;
      return na == nulls_first ? -1 : 1;  // null order holds whatever the direction
    }
    int r = 0;
    switch (kind) {
      case kInt:
        r = ints[a] < ints[b] ? -1 : ints[a] > ints[b] ? 1 : 0;
        break;
      case kInt128:
        r = wide[a] < wide[b] ? -1 : wide[a] > wide[b] ? 1 : 0;
        break;
      case kBytes: {
        const int cmp = bytes[a].compare(bytes[b]);  // char_traits<char>: unsigned bytes
        r = cmp < 0 ? -1 : cmp > 0 ? 1 : 0;
        break;
      }
    }
    return descending ? -r : r;
  }
};

// IEEE 754 totalOrder as a signed integer: flip the magnitude bits of negatives. -NaN sorts
// first, NaN last, -0.0 just below 0.0 -- Iceberg's order for floating-point sort fields.
int64_t TotalOrder(double d) {
  const int64_t bits = std::bit_cast<int64_t>(d);
  return bits < 0 ? bits ^ INT64_MAX : bits;
}

Result<Keys> Extract(const SortColumn& s) {
  const c::Column& col = *s.column;
  Keys k;
  k.descending = s.descending;
  k.nulls_first = s.nulls_first;
  const int64_t n = col.length;
  k.null.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) k.null[i] = col.IsNull(i);
  auto ints = [&](auto tag) {
    using T = decltype(tag);
    k.kind = Keys::kInt;
    k.ints.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) k.ints[i] = static_cast<int64_t>(col.Value<T>(i));
  };
  switch (col.type.id) {
    case c::TypeId::kBool:
      k.kind = Keys::kInt;
      k.ints.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) k.ints[i] = !k.null[i] && col.BoolAt(i) ? 1 : 0;
      return k;
    case c::TypeId::kInt8:
      ints(int8_t{});
      return k;
    case c::TypeId::kInt16:
      ints(int16_t{});
      return k;
    case c::TypeId::kInt32:
    case c::TypeId::kDate32:
      ints(int32_t{});
      return k;
    case c::TypeId::kUInt8:
      ints(uint8_t{});
      return k;
    case c::TypeId::kUInt16:
      ints(uint16_t{});
      return k;
    case c::TypeId::kUInt32:
      ints(uint32_t{});
      return k;
    case c::TypeId::kInt64:
    case c::TypeId::kTime64:
    case c::TypeId::kTimestamp:
      ints(int64_t{});
      return k;
    case c::TypeId::kFloat32:
      k.kind = Keys::kInt;
      k.ints.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) k.ints[i] = TotalOrder(col.Value<float>(i));
      return k;
    case c::TypeId::kFloat64:
      k.kind = Keys::kInt;
      k.ints.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) k.ints[i] = TotalOrder(col.Value<double>(i));
      return k;
    case c::TypeId::kDecimal128:
      k.kind = Keys::kInt128;
      k.wide.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) k.wide[i] = col.Value<__int128>(i);
      return k;
    case c::TypeId::kString:
    case c::TypeId::kBinary:
    case c::TypeId::kFixedSizeBinary:
      k.kind = Keys::kBytes;
      k.bytes.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        if (!k.null[i]) k.bytes[i] = col.BytesAt(i);
      }
      return k;
    default:
      return Unsupported("sorting by a {} column", col.type.ToString());
  }
}

// Below this many rows a comparison sort is as quick as the radix sort's passes.
constexpr size_t kRadixMinRows = 2048;

// Sorts `rows` stably by one integer key -- by its value, then NULLs first or last -- with an LSD
// radix sort: each value rebased to the least one among the rows (descending: to the greatest,
// negated), so only the bits that vary are passed over, 16 a pass. The rows with a NULL key are
// moved to their end by a stable partition, which as the more significant part of the key comes
// after the values' passes.
void RadixSortByKey(const Keys& k, std::vector<int64_t>* rows, std::vector<int64_t>* scratch) {
  uint64_t lo = UINT64_MAX;
  uint64_t hi = 0;
  bool any_null = false;
  // Values as unsigned with their order kept (the sign bit flipped).
  auto ordered = [&](int64_t r) {
    return static_cast<uint64_t>(k.ints[static_cast<size_t>(r)]) ^ (uint64_t{1} << 63);
  };
  for (const int64_t r : *rows) {
    if (k.null[static_cast<size_t>(r)] != 0) {
      any_null = true;
      continue;
    }
    const uint64_t v = ordered(r);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  auto digit_of = [&](int64_t r) -> uint64_t {
    if (k.null[static_cast<size_t>(r)] != 0) return 0;
    return k.descending ? hi - ordered(r) : ordered(r) - lo;
  };
  const uint64_t range = lo <= hi ? hi - lo : 0;
  std::vector<int64_t>& in = *rows;
  std::vector<int64_t>& out = *scratch;
  out.resize(in.size());
  std::vector<size_t> start((size_t{1} << 16) + 1);
  for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += 16) {
    std::fill(start.begin(), start.end(), 0);
    for (const int64_t r : in) ++start[((digit_of(r) >> shift) & 0xffff) + 1];
    for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (const int64_t r : in) out[start[(digit_of(r) >> shift) & 0xffff]++] = r;
    in.swap(out);
  }
  if (any_null) {
    auto is_null = [&](int64_t r) { return k.null[static_cast<size_t>(r)] != 0; };
    if (k.nulls_first) {
      std::stable_partition(in.begin(), in.end(), is_null);
    } else {
      std::stable_partition(in.begin(), in.end(), [&](int64_t r) { return !is_null(r); });
    }
  }
}

}  // namespace

Status SortRows(const std::vector<SortColumn>& columns, std::vector<int64_t>* rows) {
  std::vector<Keys> keys;
  keys.reserve(columns.size());
  for (const SortColumn& s : columns) {
    FLOE_ASSIGN_OR_RETURN(Keys k, Extract(s));
    keys.push_back(std::move(k));
  }
  for (int64_t r : *rows) {
    for (const SortColumn& s : columns) {
      if (r < 0 || r >= s.column->length)
        return Internal("row {} outside a sort key of {} rows", r, s.column->length);
    }
  }
  const bool integers =
      std::all_of(keys.begin(), keys.end(), [](const Keys& k) { return k.kind == Keys::kInt; });
  if (integers && rows->size() >= kRadixMinRows) {
    // Stable sorts from the least significant key to the most: the comparator's order.
    std::vector<int64_t> scratch;
    for (const Keys& k : std::ranges::reverse_view(keys)) RadixSortByKey(k, rows, &scratch);
    return {};
  }
  std::stable_sort(rows->begin(), rows->end(), [&](int64_t a, int64_t b) {
    for (const Keys& k : keys) {
      const int r = k.CompareRows(a, b);
      if (r != 0) return r < 0;
    }
    return false;
  });
  return {};
}

Result<std::vector<int64_t>> SortIndices(const std::vector<SortColumn>& keys, int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  FLOE_RETURN_IF_ERROR(SortRows(keys, &rows));
  return rows;
}

}  // namespace floe::layout
