#include "floe/columnar/take.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "floe/base/parallel_for.h"
#include "floe/columnar/column_builder.h"

namespace floe::columnar {

namespace {

using Run = RowRun;

// fn(width), width() being w: a compile-time constant for the common widths, so that each value
// moves as one fixed-size copy, not a call.
template <typename Fn>
void ForWidth(int w, Fn&& fn) {
  switch (w) {
    case 1:
      return fn(std::integral_constant<size_t, 1>());
    case 2:
      return fn(std::integral_constant<size_t, 2>());
    case 4:
      return fn(std::integral_constant<size_t, 4>());
    case 8:
      return fn(std::integral_constant<size_t, 8>());
    case 16:
      return fn(std::integral_constant<size_t, 16>());
    default:
      return fn([w] { return static_cast<size_t>(w); });
  }
}

// The indices as runs of consecutive rows, when they come in runs: a selection that drops a few
// rows (a delete mask, a selective filter's complement) copies each run's bytes at once.
std::vector<Run> RunsOf(const std::vector<int64_t>& indices) {
  std::vector<Run> runs;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i + 1;
    while (j < indices.size() && indices[j] == indices[j - 1] + 1) ++j;
    runs.push_back(Run{indices[i], static_cast<int64_t>(j - i)});
    i = j;
  }
  return runs;
}

// How many runs RunsOf would give, without building them.
size_t CountRuns(const std::vector<int64_t>& indices) {
  size_t runs = indices.empty() ? 0 : 1;
  for (size_t i = 1; i < indices.size(); ++i) runs += indices[i] != indices[i - 1] + 1 ? 1 : 0;
  return runs;
}

// The indices as runs when they average at least 8 rows a run (worth copying run by run); else
// empty.
std::vector<Run> RunsIfWorth(const std::vector<int64_t>& indices) {
  if (CountRuns(indices) * 8 > indices.size()) return {};
  return RunsOf(indices);
}

// The flat (not nested) values of `c` at `runs`, `n` rows in all, into `out`.
Status TakeFlatRuns(const Column& c, const std::vector<Run>& runs, int64_t n, Column* out) {
  if (c.type.id == TypeId::kBool) {
    std::vector<uint8_t> bits(BitmapBytes(n), 0);
    int64_t at = 0;
    for (const Run& run : runs) {
      for (int64_t k = 0; k < run.length; ++k) {
        if (c.BoolAt(run.from + k)) SetBit(bits.data(), at + k);
      }
      at += run.length;
    }
    out->values = Buffer(std::move(bits));
    return {};
  }
  if (c.type.IsBinaryLike()) {
    const int32_t* in = c.Offsets();
    int64_t total = 0;
    for (const Run& run : runs) total += in[run.from + run.length] - in[run.from];
    if (total > INT32_MAX) return Unsupported("a {} column of more than 2 GiB", c.type.ToString());
    ByteVector data(static_cast<size_t>(total));
    std::vector<int32_t> offsets(static_cast<size_t>(n) + 1);
    offsets[0] = 0;
    int32_t bytes_at = 0;
    int64_t at = 0;
    for (const Run& run : runs) {
      const int32_t first = in[run.from];
      const int32_t shift = bytes_at - first;
      for (int64_t k = 1; k <= run.length; ++k) {
        offsets[static_cast<size_t>(at + k)] = in[run.from + k] + shift;
      }
      const int32_t bytes = in[run.from + run.length] - first;
      if (bytes > 0) std::memcpy(data.data() + bytes_at, c.values.data() + first, bytes);
      bytes_at += bytes;
      at += run.length;
    }
    out->values = Buffer(std::move(data));
    out->offsets = Buffer::Adopt(std::move(offsets));
    if (c.dictionary && c.codes.size() >= static_cast<size_t>(c.length) * 4) {
      ByteVector codes(static_cast<size_t>(n) * 4);
      at = 0;
      for (const Run& run : runs) {
        std::memcpy(codes.data() + at * 4, c.codes.data() + run.from * 4, run.length * 4);
        at += run.length;
      }
      out->dictionary = c.dictionary;
      out->codes = Buffer(std::move(codes));
    }
    return {};
  }
  const int w = c.type.FixedWidth();
  if (w <= 0) return Unsupported("reordering rows of a {} column", c.type.ToString());
  ByteVector data(static_cast<size_t>(n) * w);
  int64_t at = 0;
  for (const Run& run : runs) {
    std::memcpy(data.data() + at * w, c.values.data() + run.from * w, run.length * w);
    at += run.length;
  }
  out->values = Buffer(std::move(data));
  return {};
}

// Source bytes past which a scattered take asks for each row's value ahead of time: below, they
// sit in the cache (a join's small build side), and a request per row costs more than it saves.
constexpr size_t kPrefetchBytes = size_t{4} << 20;

// Rows at(0), ..., at(n - 1) of `c` (each a row of it), in that order; with `runs`, those same
// rows as runs (flat columns copy run by run). `scattered`: the rows jump about (a join's build
// rows, not a filter's ascending ones), so a large source's values are fetched a few rows early.
template <typename IndexAt>
Result<ColumnPtr> TakeAt(const Column& c, int64_t n, const IndexAt& row_at,
                         const std::vector<Run>* runs, bool scattered) {
  const bool prefetch = scattered && c.values.size() + c.offsets.size() > kPrefetchBytes;
  auto out = std::make_shared<Column>();
  out->type = c.type;
  out->length = n;
  if (c.null_count > 0) {
    std::vector<uint8_t> bits(BitmapBytes(n), 0);
    int64_t nulls = 0;
    for (int64_t r = 0; r < n; ++r) {
      if (c.IsValid(row_at(r))) {
        SetBit(bits.data(), r);
      } else {
        ++nulls;
      }
    }
    out->null_count = nulls;
    if (nulls > 0) out->validity = Buffer(std::move(bits));
  }
  if (runs != nullptr && !c.type.IsNested()) {
    FLOE_RETURN_IF_ERROR(TakeFlatRuns(c, *runs, n, out.get()));
    return ColumnPtr(out);
  }
  if (c.type.id == TypeId::kStruct) {
    for (const auto& child : c.children) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr t, TakeAt(*child, n, row_at, runs, scattered));
      out->children.push_back(std::move(t));
    }
    return ColumnPtr(out);
  }
  if (c.type.id == TypeId::kList || c.type.id == TypeId::kMap) {
    // Each row's run of child rows, in the new order; offsets restart from 0.
    if (c.children.size() != 1) return Internal("a {} column without its child", c.type.ToString());
    const int32_t* in = reinterpret_cast<const int32_t*>(c.offsets.data());
    std::vector<int32_t> offsets(n + 1, 0);
    std::vector<int64_t> child_rows;
    for (int64_t r = 0; r < n; ++r) {
      for (int32_t k = in [row_at(r)]; k < in[row_at(r) + 1]; ++k) child_rows.push_back(k);
      if (child_rows.size() > static_cast<size_t>(INT32_MAX))
        return Unsupported("a {} column of more than 2^31 elements", c.type.ToString());
      offsets[r + 1] = static_cast<int32_t>(child_rows.size());
    }
    std::vector<uint8_t> off(offsets.size() * 4);
    std::memcpy(off.data(), offsets.data(), off.size());
    out->offsets = Buffer(std::move(off));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr child, Take(*c.children[0], child_rows));
    out->children.push_back(std::move(child));
    return ColumnPtr(out);
  }
  if (c.type.id == TypeId::kBool) {
    std::vector<uint8_t> bits(BitmapBytes(n), 0);
    for (int64_t r = 0; r < n; ++r) {
      if (c.BoolAt(row_at(r))) SetBit(bits.data(), r);
    }
    out->values = Buffer(std::move(bits));
    return ColumnPtr(out);
  }
  if (c.type.IsBinaryLike()) {
    std::vector<int32_t> offsets(n + 1, 0);
    int64_t total = 0;
    const auto* value_offsets = reinterpret_cast<const int32_t*>(c.offsets.data());
    constexpr int64_t kAhead = 16;  // rows: a permutation's reads miss the cache
    for (int64_t r = 0; r < n; ++r) {
      if (prefetch && r + kAhead < n) __builtin_prefetch(value_offsets + row_at(r + kAhead));
      total += static_cast<int64_t>(c.BytesAt(row_at(r)).size());
    }
    if (total > INT32_MAX) return Unsupported("a {} column of more than 2 GiB", c.type.ToString());
    // Sized once, each value one memcpy (insert from char iterators copies byte by byte). A short
    // value is copied as 16 bytes at once where the source holds them -- one fixed-size move, not
    // a call -- into 16 bytes of slack past the end, cut off after.
    constexpr size_t kShort = 16;
    ByteVector data(static_cast<size_t>(total) + kShort);
    const uint8_t* src = c.values.data();
    const size_t src_size = c.values.size();
    size_t at = 0;
    for (int64_t r = 0; r < n; ++r) {
      if (prefetch && r + kAhead < n) __builtin_prefetch(src + value_offsets[row_at(r + kAhead)]);
      std::string_view v = c.BytesAt(row_at(r));
      const auto from = static_cast<size_t>(reinterpret_cast<const uint8_t*>(v.data()) - src);
      if (v.size() <= kShort && from + kShort <= src_size) {
        std::memcpy(data.data() + at, src + from, kShort);
      } else if (!v.empty()) {
        std::memcpy(data.data() + at, v.data(), v.size());
      }
      at += v.size();
      offsets[r + 1] = static_cast<int32_t>(at);
    }
    data.resize(static_cast<size_t>(total));
    std::vector<uint8_t> off(offsets.size() * 4);
    std::memcpy(off.data(), offsets.data(), off.size());
    out->offsets = Buffer(std::move(off));
    out->values = Buffer(std::move(data));
    if (c.dictionary && c.codes.size() >= static_cast<size_t>(c.length) * 4) {
      ByteVector codes(static_cast<size_t>(n) * 4);
      for (int64_t r = 0; r < n; ++r) {
        std::memcpy(codes.data() + r * 4, c.codes.data() + row_at(r) * 4, 4);
      }
      out->dictionary = c.dictionary;
      out->codes = Buffer(std::move(codes));
    }
    return ColumnPtr(out);
  }
  const int w = c.type.FixedWidth();
  if (w <= 0) return Unsupported("reordering rows of a {} column", c.type.ToString());
  ByteVector data(static_cast<size_t>(n) * w);
  // A permutation's reads of a large source miss the cache: each row's value is asked for
  // kAhead rows early.
  constexpr int64_t kAhead = 16;
  ForWidth(w, [&](auto width) {
    const size_t kW = width();
    const uint8_t* src = c.values.data();
    if (prefetch) {
      for (int64_t r = 0; r < n; ++r) {
        if (r + kAhead < n) __builtin_prefetch(src + row_at(r + kAhead) * kW);
        std::memcpy(data.data() + r * kW, src + row_at(r) * kW, kW);
      }
      return;
    }
    for (int64_t r = 0; r < n; ++r) std::memcpy(data.data() + r * kW, src + row_at(r) * kW, kW);
  });
  out->values = Buffer(std::move(data));
  return ColumnPtr(out);
}

Result<ColumnPtr> TakeWith(const Column& c, const std::vector<int64_t>& indices,
                           const std::vector<Run>* runs) {
  bool ascending = true;
  int64_t last = -1;
  for (int64_t i : indices) {
    if (i < 0 || i >= c.length)
      return Internal("take index {} outside a column of {} rows", i, c.length);
    ascending = ascending && i >= last;
    last = i;
  }
  return TakeAt(
      c, static_cast<int64_t>(indices.size()),
      [&indices](int64_t r) { return indices[static_cast<size_t>(r)]; }, runs, !ascending);
}

}  // namespace

Result<ColumnPtr> Take(const Column& c, const std::vector<int64_t>& indices) {
  if (!indices.empty() && indices.front() == 0 &&
      static_cast<int64_t>(indices.size()) == c.length && indices.back() == c.length - 1 &&
      CountRuns(indices) == 1) {
    return std::make_shared<Column>(c);  // every row in order: the same buffers
  }
  const std::vector<Run> runs = RunsIfWorth(indices);
  return TakeWith(c, indices, runs.empty() ? nullptr : &runs);
}

Result<std::vector<ColumnPtr>> TakeColumns(const std::vector<ColumnPtr>& columns,
                                           const std::vector<int64_t>& indices) {
  std::vector<ColumnPtr> out(columns.size());
  const Column* first = nullptr;
  for (const ColumnPtr& c : columns) {
    if (c) {
      first = c.get();
      break;
    }
  }
  if (first == nullptr) return out;
  const auto n = static_cast<int64_t>(indices.size());
  const bool whole = n > 0 && n == first->length && indices.front() == 0 &&
                     indices.back() == n - 1 && CountRuns(indices) == 1;
  const std::vector<Run> runs = whole ? std::vector<Run>{} : RunsIfWorth(indices);
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i]) continue;
    if (whole && columns[i]->length == n) {
      out[i] = columns[i];  // every row in order: the column itself
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(out[i], TakeWith(*columns[i], indices, runs.empty() ? nullptr : &runs));
  }
  return out;
}

namespace {

// Rows of a permutation reordered in blocks of this many: each block's rows then lie close.
constexpr int64_t kPermuteBlockRows = int64_t{1} << 15;
// From this many rows a permutation is done in two passes (PermuteInBlocks).
constexpr int64_t kTwoPassRows = int64_t{1} << 20;

// Whether `indices` lists each of `n` rows once.
bool IsPermutation(const std::vector<int64_t>& indices, int64_t n) {
  if (static_cast<int64_t>(indices.size()) != n) return false;
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int64_t i : indices) {
    if (i < 0 || i >= n || seen[static_cast<size_t>(i)]) return false;
    seen[static_cast<size_t>(i)] = true;
  }
  return true;
}

// A large random permutation in two passes, each touching memory close together: the rows are
// first moved, in order, into blocks of kPermuteBlockRows output rows (Scatter: the batch read in
// order, each block written in order), then each block is put in its final order by a gather
// within the block, which its cache holds -- where one gather over the whole batch misses the
// cache on every row.
Result<RecordBatch> PermuteInBlocks(std::vector<RecordBatch> parts,
                                    const std::vector<int64_t>& perm, ThreadPool* pool) {
  const SchemaPtr schema = parts.front().schema;
  const auto n = static_cast<int64_t>(perm.size());
  std::vector<int64_t> block_of(static_cast<size_t>(n));  // the output block of each input row
  for (int64_t i = 0; i < n; ++i) block_of[static_cast<size_t>(perm[i])] = i / kPermuteBlockRows;
  std::vector<int64_t> fill(static_cast<size_t>((n + kPermuteBlockRows - 1) / kPermuteBlockRows));
  for (size_t b = 0; b < fill.size(); ++b) fill[b] = static_cast<int64_t>(b) * kPermuteBlockRows;
  std::vector<int64_t>& dest = block_of;  // becomes each row's place in the blocked batch
  for (int64_t r = 0; r < n; ++r) {
    dest[static_cast<size_t>(r)] = fill[static_cast<size_t>(dest[static_cast<size_t>(r)])]++;
  }
  // Output row i comes from row `local[i]` of its block of the blocked batch (16 bits: a
  // quarter of the bytes every column's pass reads, next to whole row numbers).
  static_assert(kPermuteBlockRows <= int64_t{1} << 16);
  std::vector<uint16_t> local(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    local[static_cast<size_t>(i)] = static_cast<uint16_t>(
        dest[static_cast<size_t>(perm[i])] - i / kPermuteBlockRows * kPermuteBlockRows);
  }
  FLOE_ASSIGN_OR_RETURN(RecordBatch blocked, Scatter(std::move(parts), dest, pool));
  // Each blocked column freed once put in order: the batch, the blocked copy and the output are
  // not all held at once.
  RecordBatch out;
  out.schema = schema;
  out.num_rows = n;
  std::vector<Result<ColumnPtr>> taken(blocked.columns.size());
  auto one = [&](size_t i) {
    taken[i] = TakeAt(
        *blocked.columns[i], n,
        [&local](int64_t r) {
          return (r & ~(kPermuteBlockRows - 1)) + local[static_cast<size_t>(r)];
        },
        nullptr, /*scattered=*/false);  // within a block: in the cache
    blocked.columns[i].reset();
  };
  if (pool != nullptr && pool->size() > 0 && blocked.columns.size() > 1) {
    ParallelFor(*pool, blocked.columns.size(), one);
  } else {
    for (size_t i = 0; i < taken.size(); ++i) one(i);
  }
  for (auto& t : taken) {
    if (!t) return std::unexpected(t.error());
    out.columns.push_back(std::move(*t));
  }
  return out;
}

}  // namespace

Result<RecordBatch> Take(const RecordBatch& batch, const std::vector<int64_t>& indices,
                         ThreadPool* pool) {
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = static_cast<int64_t>(indices.size());
  const std::vector<Run> runs = RunsIfWorth(indices);
  const std::vector<Run>* by_runs = runs.empty() ? nullptr : &runs;
  if (by_runs == nullptr && batch.num_rows >= kTwoPassRows &&
      IsPermutation(indices, batch.num_rows)) {
    return PermuteInBlocks({batch}, indices, pool);
  }
  std::vector<Result<ColumnPtr>> taken(batch.columns.size());
  auto one = [&](size_t i) { taken[i] = TakeWith(*batch.columns[i], indices, by_runs); };
  // Columns at once on the pool when the rows are many and scattered (a sort's permutation: every
  // read a cache miss, so two cores wait on memory in parallel).
  if (pool != nullptr && pool->size() > 0 && by_runs == nullptr && indices.size() >= 65536 &&
      batch.columns.size() > 1) {
    ParallelFor(*pool, batch.columns.size(), one);
  } else {
    for (size_t i = 0; i < taken.size(); ++i) one(i);
  }
  for (auto& t : taken) {
    if (!t) return std::unexpected(t.error());
    out.columns.push_back(std::move(*t));
  }
  return out;
}

Result<RecordBatch> Permute(std::vector<RecordBatch> batches, const std::vector<int64_t>& perm,
                            ThreadPool* pool) {
  if (batches.empty()) return Internal("permuting no batches");
  int64_t rows = 0;
  for (const RecordBatch& b : batches) rows += b.num_rows;
  if (!IsPermutation(perm, rows))
    return Internal("permuting {} rows by {} indices that are not a permutation of them", rows,
                    perm.size());
  if (batches.size() == 1 || rows < kTwoPassRows) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch all, Concatenate(batches, pool));
    batches.clear();
    return Take(all, perm, pool);
  }
  return PermuteInBlocks(std::move(batches), perm, pool);
}

Result<RecordBatch> TakeRuns(const RecordBatch& batch, const std::vector<RowRun>& runs) {
  int64_t n = 0;
  for (const RowRun& r : runs) {
    if (r.from < 0 || r.length < 0 || r.from + r.length > batch.num_rows)
      return Internal("take rows [{}, {}) outside a batch of {} rows", r.from, r.from + r.length,
                      batch.num_rows);
    n += r.length;
  }
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = n;
  std::vector<int64_t> indices;  // the runs' rows one by one, for nulls and nested columns only
  for (const ColumnPtr& c : batch.columns) {
    if (c->null_count == 0 && !c->type.IsNested()) {
      auto col = std::make_shared<Column>();
      col->type = c->type;
      col->length = n;
      FLOE_RETURN_IF_ERROR(TakeFlatRuns(*c, runs, n, col.get()));
      out.columns.push_back(std::move(col));
      continue;
    }
    if (indices.empty()) {
      indices.reserve(static_cast<size_t>(n));
      for (const RowRun& r : runs) {
        for (int64_t k = 0; k < r.length; ++k) indices.push_back(r.from + k);
      }
    }
    FLOE_ASSIGN_OR_RETURN(ColumnPtr col, TakeWith(*c, indices, &runs));
    out.columns.push_back(std::move(col));
  }
  return out;
}

namespace {

Result<ColumnPtr> ConcatenateColumns(const std::vector<const Column*>& parts);

// The column whose parts are `parts` (one type, their rows in order) with row r moved to dest[r]
// (`dest` a permutation of their rows): read in order, written where each row goes; `inverse`
// (dest's, built once by the caller) for nested columns.
template <typename Index>
Result<ColumnPtr> ScatterColumn(const std::vector<const Column*>& parts,
                                const std::vector<Index>& dest,
                                const std::vector<int64_t>& inverse) {
  const auto n = static_cast<int64_t>(dest.size());
  const Column& first = *parts.front();
  if (first.type.IsNested()) {
    if (parts.size() == 1) return TakeWith(first, inverse, nullptr);
    FLOE_ASSIGN_OR_RETURN(ColumnPtr whole, ConcatenateColumns(parts));
    return TakeWith(*whole, inverse, nullptr);
  }
  auto out = std::make_shared<Column>();
  out->type = first.type;
  out->length = n;
  // fn(part, row of the part, its place): every row of every part, in order.
  auto each = [&](auto&& fn) {
    int64_t base = 0;
    for (const Column* p : parts) {
      const Index* to = dest.data() + base;
      for (int64_t r = 0; r < p->length; ++r) fn(*p, r, static_cast<size_t>(to[r]));
      base += p->length;
    }
  };
  int64_t nulls = 0;
  for (const Column* p : parts) nulls += p->null_count;
  if (nulls > 0) {
    std::vector<uint8_t> bits(BitmapBytes(n), 0);
    each([&](const Column& c, int64_t r, size_t to) {
      if (c.IsValid(r)) SetBit(bits.data(), static_cast<int64_t>(to));
    });
    out->null_count = nulls;
    out->validity = Buffer(std::move(bits));
  }
  if (first.type.id == TypeId::kBool) {
    std::vector<uint8_t> bits(BitmapBytes(n), 0);
    each([&](const Column& c, int64_t r, size_t to) {
      if (c.BoolAt(r)) SetBit(bits.data(), static_cast<int64_t>(to));
    });
    out->values = Buffer(std::move(bits));
    return ColumnPtr(out);
  }
  if (first.type.IsBinaryLike()) {
    std::vector<int32_t> offsets(static_cast<size_t>(n) + 1, 0);
    each([&](const Column& c, int64_t r, size_t to) {
      const int32_t* in = c.Offsets();
      offsets[to + 1] = in[r + 1] - in[r];
    });
    int64_t total = 0;
    for (size_t i = 1; i < offsets.size(); ++i) {
      total += offsets[i];
      if (total > INT32_MAX)
        return Unsupported("a {} column of more than 2 GiB", first.type.ToString());
      offsets[i] = static_cast<int32_t>(total);
    }
    ByteVector data(static_cast<size_t>(total));
    each([&](const Column& c, int64_t r, size_t to) {
      const int32_t* in = c.Offsets();
      const int32_t bytes = in[r + 1] - in[r];
      if (bytes > 0) std::memcpy(data.data() + offsets[to], c.values.data() + in[r], bytes);
    });
    out->values = Buffer(std::move(data));
    out->offsets = Buffer::Adopt(std::move(offsets));
    // Dictionary codes move too when every part holds them against one dictionary.
    const bool codes = std::all_of(parts.begin(), parts.end(), [&](const Column* p) {
      return p->dictionary && p->dictionary == first.dictionary &&
             p->codes.size() >= static_cast<size_t>(p->length) * 4;
    });
    if (codes) {
      ByteVector moved(static_cast<size_t>(n) * 4);
      each([&](const Column& c, int64_t r, size_t to) {
        std::memcpy(moved.data() + to * 4, c.codes.data() + r * 4, 4);
      });
      out->dictionary = first.dictionary;
      out->codes = Buffer(std::move(moved));
    }
    return ColumnPtr(out);
  }
  const int w = first.type.FixedWidth();
  if (w <= 0) return Unsupported("reordering rows of a {} column", first.type.ToString());
  ByteVector data(static_cast<size_t>(n) * w);
  ForWidth(w, [&](auto width) {
    const size_t kW = width();
    int64_t base = 0;
    for (const Column* p : parts) {
      const Index* to = dest.data() + base;
      const uint8_t* src = p->values.data();
      for (int64_t r = 0; r < p->length; ++r)
        std::memcpy(data.data() + static_cast<size_t>(to[r]) * kW, src + r * kW, kW);
      base += p->length;
    }
  });
  out->values = Buffer(std::move(data));
  return ColumnPtr(out);
}

}  // namespace

Result<RecordBatch> Scatter(RecordBatch batch, const std::vector<int64_t>& dest, ThreadPool* pool) {
  std::vector<RecordBatch> parts;
  parts.push_back(std::move(batch));
  return Scatter(std::move(parts), dest, pool);
}

Result<RecordBatch> Scatter(std::vector<RecordBatch> batches, const std::vector<int64_t>& dest,
                            ThreadPool* pool) {
  if (batches.empty()) return Internal("scattering no batches");
  const auto n = static_cast<int64_t>(dest.size());
  int64_t rows = 0;
  for (const RecordBatch& b : batches) rows += b.num_rows;
  if (n != rows) return Internal("scatter of {} rows given {} places", rows, n);
  std::vector<int64_t> inverse(static_cast<size_t>(n), -1);
  for (int64_t r = 0; r < n; ++r) {
    const int64_t d = dest[static_cast<size_t>(r)];
    if (d < 0 || d >= n || inverse[static_cast<size_t>(d)] >= 0)
      return Internal("scatter places row {} at {}: not a permutation of {} rows", r, d, n);
    inverse[static_cast<size_t>(d)] = r;
  }
  RecordBatch out;
  out.schema = batches[0].schema;
  out.num_rows = n;
  // Places as 32 bits when they fit: half the bytes read for every column.
  std::vector<uint32_t> narrow;
  if (n <= int64_t{UINT32_MAX}) narrow.assign(dest.begin(), dest.end());
  const size_t columns = batches[0].columns.size();
  std::vector<Result<ColumnPtr>> moved(columns);
  auto one = [&](size_t i) {
    std::vector<const Column*> parts;
    parts.reserve(batches.size());
    for (const RecordBatch& b : batches) parts.push_back(b.columns[i].get());
    moved[i] = narrow.empty() ? ScatterColumn(parts, dest, inverse)
                              : ScatterColumn(parts, narrow, inverse);
    // Its memory goes back now when the batches held it last.
    for (RecordBatch& b : batches) b.columns[i].reset();
  };
  if (pool != nullptr && pool->size() > 0 && columns > 1) {
    ParallelFor(*pool, columns, one);
  } else {
    for (size_t i = 0; i < columns; ++i) one(i);
  }
  for (auto& m : moved) {
    if (!m) return std::unexpected(m.error());
    out.columns.push_back(std::move(*m));
  }
  return out;
}

namespace {

// One column holding the rows of `parts` (same type), in order; nested types recursively.
Result<ColumnPtr> ConcatenateColumns(const std::vector<const Column*>& parts) {
  const DataType& t = parts[0]->type;
  auto col = std::make_shared<Column>();
  col->type = t;
  for (const Column* p : parts) col->length += p->length;
  int64_t row = 0;
  if (std::any_of(parts.begin(), parts.end(), [](const Column* p) { return p->null_count > 0; })) {
    std::vector<uint8_t> validity(BitmapBytes(col->length), 0xFF);
    for (const Column* p : parts) {
      if (p->null_count > 0) {
        for (int64_t r = 0; r < p->length; ++r) {
          if (!p->IsValid(r)) {
            ClearBit(validity.data(), row + r);
            ++col->null_count;
          }
        }
      }
      row += p->length;
    }
    if (col->null_count > 0) col->validity = Buffer(std::move(validity));
  }
  if (t.id == TypeId::kStruct) {
    for (size_t k = 0; k < t.children.size(); ++k) {
      std::vector<const Column*> kids;
      kids.reserve(parts.size());
      for (const Column* p : parts) kids.push_back(p->children.at(k).get());
      FLOE_ASSIGN_OR_RETURN(ColumnPtr child, ConcatenateColumns(kids));
      col->children.push_back(std::move(child));
    }
    return ColumnPtr(col);
  }
  if (t.id == TypeId::kList || t.id == TypeId::kMap) {
    std::vector<int32_t> offsets{0};
    std::vector<const Column*> kids;
    int64_t base = 0;
    for (const Column* p : parts) {
      const int32_t* in = reinterpret_cast<const int32_t*>(p->offsets.data());
      for (int64_t r = 0; r < p->length; ++r) {
        if (base + in[r + 1] - in[0] > INT32_MAX)
          return Unsupported("a {} column of more than 2^31 elements", t.ToString());
        offsets.push_back(static_cast<int32_t>(base + in[r + 1] - in[0]));
      }
      // Child rows before in[0] belong to no row of this part.
      std::vector<int64_t> used;
      for (int32_t k = in[0]; k < in[p->length]; ++k) used.push_back(k);
      base += in[p->length] - in[0];
      if (in[0] == 0 && in[p->length] == p->children.at(0)->length) {
        kids.push_back(p->children[0].get());
      } else {
        FLOE_ASSIGN_OR_RETURN(ColumnPtr trimmed, Take(*p->children.at(0), used));
        col->children.push_back(trimmed);  // kept alive until the concatenation below
        kids.push_back(trimmed.get());
      }
    }
    std::vector<uint8_t> off(offsets.size() * 4);
    std::memcpy(off.data(), offsets.data(), off.size());
    col->offsets = Buffer(std::move(off));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr child, ConcatenateColumns(kids));
    col->children.assign(1, child);
    return ColumnPtr(col);
  }
  if (t.id == TypeId::kBool) {
    std::vector<uint8_t> bits(BitmapBytes(col->length), 0);
    row = 0;
    for (const Column* p : parts) {
      for (int64_t r = 0; r < p->length; ++r) {
        if (p->BoolAt(r)) SetBit(bits.data(), row + r);
      }
      row += p->length;
    }
    col->values = Buffer(std::move(bits));
  } else if (t.IsBinaryLike()) {
    // Each part's bytes in one copy, its offsets moved by where they land.
    size_t total = 0;
    for (const Column* p : parts) {
      if (p->length > 0) total += static_cast<size_t>(p->Offsets()[p->length] - p->Offsets()[0]);
    }
    if (total > static_cast<size_t>(INT32_MAX))
      return Unsupported("a {} column of more than 2 GiB", t.ToString());
    ByteVector values(total);
    std::vector<int32_t> offsets(static_cast<size_t>(col->length) + 1);
    offsets[0] = 0;
    int32_t at = 0;
    row = 0;
    for (const Column* p : parts) {
      if (p->length == 0) continue;
      const int32_t* in = p->Offsets();
      const int32_t shift = at - in[0];
      for (int64_t r = 1; r <= p->length; ++r)
        offsets[static_cast<size_t>(row + r)] = in[r] + shift;
      const int32_t bytes = in[p->length] - in[0];
      if (bytes > 0)
        std::memcpy(values.data() + at, p->values.data() + in[0], static_cast<size_t>(bytes));
      at += bytes;
      row += p->length;
    }
    col->values = Buffer(std::move(values));
    col->offsets = Buffer::Adopt(std::move(offsets));
  } else {
    const auto width = static_cast<size_t>(t.FixedWidth());
    ByteVector values(static_cast<size_t>(col->length) * width);
    size_t at = 0;
    for (const Column* p : parts) {
      const size_t bytes = static_cast<size_t>(p->length) * width;
      if (bytes > 0) std::memcpy(values.data() + at, p->values.data(), bytes);
      at += bytes;
    }
    col->values = Buffer(std::move(values));
  }
  return ColumnPtr(col);
}

}  // namespace

Result<RecordBatch> Concatenate(const std::vector<RecordBatch>& batches, ThreadPool* pool) {
  if (batches.empty()) return Internal("concatenating no batches");
  if (batches.size() == 1) return batches[0];
  RecordBatch out;
  out.schema = batches[0].schema;
  for (const auto& b : batches) out.num_rows += b.num_rows;
  const auto columns = static_cast<size_t>(batches[0].num_columns());
  std::vector<Result<ColumnPtr>> made(columns);
  auto one = [&](size_t c) {
    std::vector<const Column*> parts;
    parts.reserve(batches.size());
    for (const auto& b : batches) parts.push_back(b.columns[c].get());
    made[c] = ConcatenateColumns(parts);
  };
  if (pool != nullptr && pool->size() > 0 && columns > 1 && out.num_rows >= 65536) {
    ParallelFor(*pool, columns, one);
  } else {
    for (size_t c = 0; c < columns; ++c) one(c);
  }
  for (auto& col : made) {
    if (!col) return std::unexpected(col.error());
    out.columns.push_back(std::move(*col));
  }
  return out;
}

Result<RecordBatch> ConcatenateNamed(const std::vector<RecordBatch>& batches,
                                     const std::vector<std::string>& names, ThreadPool* pool) {
  if (batches.empty()) return Internal("concatenating no batches");
  auto schema = std::make_shared<Schema>();
  std::vector<size_t> at;
  for (const std::string& name : names) {
    const std::optional<int> i = batches[0].schema->IndexOf(name);
    if (!i) continue;
    if (std::find(at.begin(), at.end(), static_cast<size_t>(*i)) != at.end()) continue;
    at.push_back(static_cast<size_t>(*i));
    schema->fields.push_back(batches[0].schema->fields[at.back()]);
  }
  std::vector<RecordBatch> some;
  some.reserve(batches.size());
  for (const RecordBatch& b : batches) {
    RecordBatch k;
    k.schema = schema;
    k.num_rows = b.num_rows;
    for (size_t i : at) k.columns.push_back(b.columns[i]);
    some.push_back(std::move(k));
  }
  return Concatenate(some, pool);
}

}  // namespace floe::columnar
