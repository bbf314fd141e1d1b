#include "floe/parquet/strategy_reader.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "floe/io/request_trace.h"
#include "floe/parquet/footer.h"

namespace floe::parquet {

namespace {

// What a data request of `plan` serves, for a trace: the row groups and columns of the chunks (or
// pages) it overlaps -- "row group 0: id, ts; row group 1: id".
using DetailFn = std::function<std::string(const ByteRange&)>;

DetailFn DataDetail(const ReadPlan& plan, const FileReader& reader) {
  if (!io::TraceAttached()) return nullptr;  // nobody reads it
  return [ranges = plan.DataRanges(), &reader](const ByteRange& r) {
    std::map<int, std::vector<int>> columns;  // row group -> leaf columns, in order
    for (const PlannedRange& p : ranges) {
      if (p.range.offset >= r.end() || p.range.end() <= r.offset) continue;
      auto& c = columns[p.row_group];
      if (std::find(c.begin(), c.end(), p.column) == c.end()) c.push_back(p.column);
    }
    std::string out;
    for (const auto& [rg, leaves] : columns) {
      out += fmt::format("{}row group {}:", out.empty() ? "" : "; ", rg);
      for (size_t i = 0; i < leaves.size(); ++i) {
        const auto& all = reader.schema().leaves();
        const int leaf = leaves[i];
        out += (i ? ", " : " ") + (leaf >= 0 && leaf < static_cast<int>(all.size())
                                       ? all[leaf].path
                                       : fmt::format("#{}", leaf));
      }
    }
    return out;
  };
}

// The requests of one file: every one counted, each holding a permit of the scan's gate (if any)
// while it is in flight, each saying what it is for (io::RequestPurpose) for a trace.
class Fetcher {
 public:
  Fetcher(io::ObjectStore& store, std::string_view key, RequestGate* gate, StoreReadStats* stats)
      : store_(store), key_(key), gate_(gate), stats_(stats) {}

  const std::string& key() const { return key_; }
  // What a FooterCache keeps the file under: its key in its store's root, since two stores (two
  // warehouses, or a table outside the warehouse) can hold one key.
  std::string cache_key() const { return store_.Uri() + "/" + key_; }

  Result<Buffer> Get(io::Range range, std::string_view purpose, std::string_view detail = {}) {
    const int held = gate_ ? gate_->Acquire(1) : 0;
    io::RequestPurpose scope(purpose, detail);
    Result<Buffer> r = store_.Get(key_, range);
    if (gate_) gate_->Release(held);
    ++stats_->requests;
    if (r) stats_->bytes_fetched += static_cast<int64_t>(r->size());
    return r;
  }

  Result<uint64_t> Head() {
    const int held = gate_ ? gate_->Acquire(1) : 0;
    io::RequestPurpose scope("length");
    Result<io::ObjectInfo> r = store_.Head(key_);
    if (gate_) gate_->Release(held);
    ++stats_->requests;
    ++stats_->heads;
    if (!r) return std::unexpected(std::move(r).error());
    return r->size;
  }

  // One bounded GET of [offset, offset + length) added to `have`; checks the length.
  Status GetInto(int64_t offset, int64_t length, FetchedBytes* have, std::string_view purpose,
                 std::string_view detail = {}) {
    FLOE_ASSIGN_OR_RETURN(Buffer b, Get(io::Range::Bounded(static_cast<uint64_t>(offset),
                                                           static_cast<uint64_t>(length)),
                                        purpose, detail));
    if (static_cast<int64_t>(b.size()) != length) {
      return Corrupt("parquet file '{}': read {} of the {} bytes at offset {}", Name(), b.size(),
                     length, offset);
    }
    have->Add(offset, std::move(b));
    return {};
  }

  // The ranges as one batch, at most `parallel` in flight (and within the gate's budget);
  // `detail` (optional) says what each one serves.
  Status GetBatch(const std::vector<ByteRange>& ranges, int parallel, FetchedBytes* have,
                  std::string_view purpose, const DetailFn& detail = nullptr) {
    if (ranges.empty()) return {};
    if (ranges.size() == 1) {
      return GetInto(ranges[0].offset, ranges[0].length, have, purpose,
                     detail ? detail(ranges[0]) : std::string());
    }
    std::vector<io::ReadRequest> requests;
    requests.reserve(ranges.size());
    for (const ByteRange& r : ranges) {
      io::ReadRequest q;
      q.key = key_;
      q.range =
          io::Range::Bounded(static_cast<uint64_t>(r.offset), static_cast<uint64_t>(r.length));
      io::RequestPurpose::Label(purpose, detail ? detail(r) : std::string(), &q);
      requests.push_back(std::move(q));
    }
    int want = std::min<int>(parallel, static_cast<int>(ranges.size()));
    const int held = gate_ ? gate_->Acquire(want) : want;
    auto results = store_.ReadAll(std::move(requests), io::BatchOptions{held});
    if (gate_) gate_->Release(held);
    Status status;
    for (size_t i = 0; i < results.size(); ++i) {
      ++stats_->requests;
      if (!results[i]) {
        if (status) status = std::unexpected(std::move(results[i]).error());
        continue;
      }
      stats_->bytes_fetched += static_cast<int64_t>(results[i]->size());
      if (static_cast<int64_t>(results[i]->size()) != ranges[i].length && status) {
        status = Corrupt("parquet file '{}': read {} of the {} bytes at offset {}", Name(),
                         results[i]->size(), ranges[i].length, ranges[i].offset);
      }
      have->Add(ranges[i].offset, std::move(*results[i]));
    }
    return status;
  }

  std::string Name() const { return io::JoinKey(store_.Uri(), key_); }

 private:
  io::ObjectStore& store_;
  std::string key_;
  RequestGate* gate_;
  StoreReadStats* stats_;
};

// The planned ranges `have` does not cover yet.
std::vector<ByteRange> Missing(const std::vector<PlannedRange>& ranges, const FetchedBytes& have) {
  std::vector<ByteRange> out;
  for (const PlannedRange& r : ranges) {
    if (r.range.length > 0 && !have.Covers(r.range)) out.push_back(r.range);
  }
  return out;
}

// The smallest range covering every one of `ranges` (they must be non-empty).
ByteRange Span(const std::vector<ByteRange>& ranges) {
  int64_t b = ranges.front().offset, e = ranges.front().end();
  for (const ByteRange& r : ranges) {
    b = std::min(b, r.offset);
    e = std::max(e, r.end());
  }
  return {b, e - b};
}

// Opens the footer from the tail `have` holds at [tail_offset, len); when the footer is longer,
// one more GET of exactly what is missing. Returns the reader and the footer's tail length.
Result<std::pair<FileReader, int64_t>> OpenFromTail(Fetcher& f, int64_t len, int64_t tail_offset,
                                                    FetchedBytes* have) {
  const std::string name = f.Name();
  FLOE_ASSIGN_OR_RETURN(Buffer tail, have->Get({tail_offset, len - tail_offset}, "footer tail"));
  FLOE_ASSIGN_OR_RETURN(auto opened,
                        FileReader::Open(name, static_cast<uint64_t>(len), tail.view()));
  if (opened.reader) {
    return std::pair{std::move(*opened.reader), static_cast<int64_t>(opened.tail_length_needed)};
  }
  const int64_t need = static_cast<int64_t>(opened.tail_length_needed);
  if (need > len) {
    return Corrupt("parquet file '{}': footer of {} bytes in a {}-byte file", name, need, len);
  }
  FLOE_ASSIGN_OR_RETURN(Buffer front,
                        f.Get(io::Range::Bounded(static_cast<uint64_t>(len - need),
                                                 static_cast<uint64_t>(tail_offset - (len - need))),
                              "footer", "the rest of a long footer"));
  std::vector<uint8_t> joined(static_cast<size_t>(need));
  if (front.size() + tail.size() != joined.size()) {
    return Corrupt("parquet file '{}': read {} of the {} footer bytes wanted", name,
                   front.size() + tail.size(), need);
  }
  std::memcpy(joined.data(), front.data(), front.size());
  std::memcpy(joined.data() + front.size(), tail.data(), tail.size());
  Buffer all(std::move(joined));
  have->Add(len - need, all);
  FLOE_ASSIGN_OR_RETURN(opened, FileReader::Open(name, static_cast<uint64_t>(len), all.view()));
  if (!opened.reader) {
    return Corrupt("parquet file '{}': the footer needs {} bytes after reading {}", name,
                   opened.tail_length_needed, need);
  }
  return std::pair{std::move(*opened.reader), need};
}

Result<ReadOptions> Resolve(const StrategyReadOptions& o, const FileReader& reader) {
  if (o.resolve) return o.resolve(reader, o.read);
  return o.read;
}

// The caller's last word on a plan before its data ranges are fetched.
Status Adjust(const StrategyReadOptions& o, const FileReader& reader, ReadPlan* plan) {
  if (o.adjust_plan) return o.adjust_plan(reader, plan);
  return {};
}

Result<FetchedFile> Finish(FileReader reader, ReadPlan plan, FetchedBytes bytes,
                           StoreReadStats stats) {
  FLOE_RETURN_IF_ERROR(reader.CheckPageHeaders(bytes, &plan));
  stats.plan = plan.counts;
  return FetchedFile{std::move(reader), std::move(plan), std::move(bytes), stats, false};
}

// Groups the data ranges of a plan by row group, in file order.
std::map<int, std::vector<PlannedRange>> ByRowGroup(const std::vector<PlannedRange>& ranges) {
  std::map<int, std::vector<PlannedRange>> out;
  for (const PlannedRange& r : ranges) out[r.row_group].push_back(r);
  return out;
}

// ---- parquet-mr (and eager above its threshold): 8-byte tail, footer, then row group by row
// group one GET per consecutive run of chunks (forward seeks <= 1 MiB read through), serially.
Result<FetchedFile> ReadParquetMr(Fetcher& f, int64_t len, const StrategyReadOptions& o,
                                  StoreReadStats* stats) {
  FetchedBytes have;
  if (len < static_cast<int64_t>(kFooterTrailerLength)) {
    return Corrupt("parquet file '{}': {} bytes is too short for a Parquet file", f.Name(), len);
  }
  FLOE_RETURN_IF_ERROR(f.GetInto(len - 8, 8, &have, "footer", "its length"));
  FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, len - 8, &have));
  FileReader reader = std::move(opened.first);
  FLOE_ASSIGN_OR_RETURN(ReadOptions read, Resolve(o, reader));
  read.use_page_index = false;  // Iceberg's Parquet reader filters row groups, not pages
  FLOE_ASSIGN_OR_RETURN(ReadPlan plan, reader.Plan(read));
  FLOE_RETURN_IF_ERROR(Adjust(o, reader, &plan));
  const DetailFn detail = DataDetail(plan, reader);
  for (auto& [rg, ranges] : ByRowGroup(plan.DataRanges())) {
    for (const ByteRange& r : CoalesceRanges(Missing(ranges, have), kParquetMrSeekReadThrough)) {
      FLOE_RETURN_IF_ERROR(
          f.GetInto(r.offset, r.length, &have, "data", detail ? detail(r) : std::string()));
    }
  }
  return Finish(std::move(reader), std::move(plan), std::move(have), *stats);
}

// Plans, fetches the page index (if the plan wants it and `have` lacks it) in one GET, applies it.
// `index_start` (optional) receives the lowest offset of the index ranges used, or -1.
Status PlanWithIndex(Fetcher& f, const StrategyReadOptions& o, const FileReader& reader,
                     const ReadOptions& read, FetchedBytes* have, ReadPlan* plan,
                     int64_t* index_start = nullptr) {
  FLOE_ASSIGN_OR_RETURN(*plan, reader.Plan(read));
  if (index_start) *index_start = -1;
  if (plan->index_pending) {
    if (index_start) {
      for (const PlannedRange& r : plan->IndexRanges()) {
        if (*index_start < 0 || r.range.offset < *index_start) *index_start = r.range.offset;
      }
    }
    std::vector<ByteRange> missing = Missing(plan->IndexRanges(), *have);
    if (!missing.empty()) {
      ByteRange span = Span(missing);
      FLOE_RETURN_IF_ERROR(f.GetInto(span.offset, span.length, have, "page index"));
    }
    FLOE_RETURN_IF_ERROR(reader.ApplyPageIndex(*have, plan));
  }
  FLOE_RETURN_IF_ERROR(Adjust(o, reader, plan));
  return {};
}

Result<FetchedFile> ReadWhole(Fetcher& f, int64_t len, const StrategyReadOptions& o,
                              bool use_page_index, StoreReadStats* stats) {
  FetchedBytes have;
  FLOE_ASSIGN_OR_RETURN(Buffer all, f.Get(io::Range::Whole(), "whole file"));
  if (static_cast<int64_t>(all.size()) != len) {
    return Corrupt("parquet file '{}': the object has {} bytes, the manifest says {}", f.Name(),
                   all.size(), len);
  }
  have.Add(0, std::move(all));
  FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, 0, &have));
  FLOE_ASSIGN_OR_RETURN(ReadOptions read, Resolve(o, opened.first));
  read.use_page_index = read.use_page_index && use_page_index;
  ReadPlan plan;
  FLOE_RETURN_IF_ERROR(PlanWithIndex(f, o, opened.first, read, &have, &plan));
  // The whole file is at hand: a plan made again without the page index needs no request.
  FLOE_ASSIGN_OR_RETURN(bool replanned, opened.first.ReplanIfIndexDisagrees(read, have, &plan));
  if (replanned) {
    FLOE_RETURN_IF_ERROR(Adjust(o, opened.first, &plan));
  }
  return Finish(std::move(opened.first), std::move(plan), std::move(have), *stats);
}

// ---- aal: HEAD, whole object <= 8 MiB, else a 32 KiB footer + 1 MiB page-index prefetch, then
// chunks in blocks of <= 8 MiB coalesced within 1 MiB, all in parallel.
Result<FetchedFile> ReadAal(Fetcher& f, const StrategyReadOptions& o, StoreReadStats* stats) {
  FLOE_ASSIGN_OR_RETURN(uint64_t size, f.Head());
  const int64_t len = static_cast<int64_t>(size);
  if (len <= kAalWholeObjectBytes) return ReadWhole(f, len, o, false, stats);
  FetchedBytes have;
  const int64_t footer_off = len - kAalFooterPrefetch;
  const int64_t index_off = std::max<int64_t>(0, footer_off - kAalPageIndexPrefetch);
  FLOE_RETURN_IF_ERROR(f.GetBatch(
      {{index_off, footer_off - index_off}, {footer_off, kAalFooterPrefetch}}, 2, &have, "footer"));
  // Join the two prefetches so the footer can be parsed from one buffer.
  FLOE_ASSIGN_OR_RETURN(Buffer a, have.Get({index_off, footer_off - index_off}, "prefetch"));
  FLOE_ASSIGN_OR_RETURN(Buffer b, have.Get({footer_off, kAalFooterPrefetch}, "footer"));
  std::vector<uint8_t> joined(a.size() + b.size());
  std::memcpy(joined.data(), a.data(), a.size());
  std::memcpy(joined.data() + a.size(), b.data(), b.size());
  have.Add(index_off, Buffer(std::move(joined)));
  FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, index_off, &have));
  FLOE_ASSIGN_OR_RETURN(ReadOptions read, Resolve(o, opened.first));
  read.use_page_index = false;  // the engine above (Iceberg's reader) filters row groups only
  FLOE_ASSIGN_OR_RETURN(ReadPlan plan, opened.first.Plan(read));
  FLOE_RETURN_IF_ERROR(Adjust(o, opened.first, &plan));
  FLOE_RETURN_IF_ERROR(f.GetBatch(
      CoalesceCapped(Missing(plan.DataRanges(), have), kAalCoalesceTolerance, kAalBlockBytes), 64,
      &have, "data", DataDetail(plan, opened.first)));
  return Finish(std::move(opened.first), std::move(plan), std::move(have), *stats);
}

// ---- arrow-rs: 512 KiB footer hint (second GET if the footer is longer), the page index in one
// GET when a predicate uses it, then row group by row group one range per projected chunk (or
// page), gaps <= 1 MiB coalesced, 10 in parallel.
Result<FetchedFile> ReadArrowRs(Fetcher& f, int64_t len, const StrategyReadOptions& o,
                                StoreReadStats* stats) {
  FetchedBytes have;
  const int64_t hint = std::min(len, kArrowRsFooterHint);
  FLOE_RETURN_IF_ERROR(f.GetInto(len - hint, hint, &have, "footer"));
  FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, len - hint, &have));
  FLOE_ASSIGN_OR_RETURN(ReadOptions read, Resolve(o, opened.first));
  ReadPlan plan;
  FLOE_RETURN_IF_ERROR(PlanWithIndex(f, o, opened.first, read, &have, &plan));
  auto fetch = [&]() -> Status {
    for (auto& [rg, ranges] : ByRowGroup(plan.DataRanges())) {
      FLOE_RETURN_IF_ERROR(f.GetBatch(CoalesceRanges(Missing(ranges, have), kArrowRsCoalesceGap),
                                      kArrowRsParallelRanges, &have, "data",
                                      DataDetail(plan, opened.first)));
    }
    return {};
  };
  FLOE_RETURN_IF_ERROR(fetch());
  FLOE_ASSIGN_OR_RETURN(bool replanned, opened.first.ReplanIfIndexDisagrees(read, have, &plan));
  if (replanned) {
    FLOE_RETURN_IF_ERROR(Adjust(o, opened.first, &plan));
    FLOE_RETURN_IF_ERROR(fetch());
  }
  return Finish(std::move(opened.first), std::move(plan), std::move(have), *stats);
}

// ---- floe.
// `prefetched_from` >= 0: `have` already holds the file from there to its end (the first read).
Result<FetchedFile> ReadFloe(Fetcher& f, int64_t len, const FileHints& hints,
                             const StrategyReadOptions& options, StoreReadStats* stats,
                             FetchedBytes have = {}, int64_t prefetched_from = -1) {
  const ReadPlannerOptions& p = options.planner;
  const bool with_index =
      options.read.use_page_index && (!options.read.predicates.empty() || options.read.limit >= 0 ||
                                      options.read.page_index_for_mask);
  std::optional<FileReader> reader;
  bool cached = false;
  int64_t footer_tail = 0;
  int64_t cached_from = len;  // where the footer (and what a cache keeps) begins
  if (prefetched_from >= 0) {
    FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, prefetched_from, &have));
    reader = std::move(opened.first);
    footer_tail = opened.second;
    cached_from = len - footer_tail;
  } else if (options.cache) {
    if (auto hit = options.cache->Find(f.cache_key(), static_cast<uint64_t>(len))) {
      reader = std::move(hit->reader);
      for (auto& [offset, bytes] : hit->tail) {
        cached_from = std::min(cached_from, offset);
        have.Add(offset, std::move(bytes));
      }
      cached = true;
    }
  }
  if (!reader) {
    const int64_t tail_estimate = options.tails ? options.tails->Estimate(len, with_index)
                                                : std::min(len, p.initial_tail_bytes);
    // With a predicate, row-group statistics and the page index may rule most of the projection
    // out, so column_sizes overstate what the query needs: past the whole-file threshold the
    // footer comes first (one request more when nothing can be pruned; megabytes fewer when the
    // file is sorted or clustered by the predicate's column).
    const FirstRead first =
        PlanFirstRead(p, len, with_index ? -1 : hints.projected_bytes, tail_estimate);
    int64_t tail_offset = 0;
    if (first.whole_file) {
      FLOE_ASSIGN_OR_RETURN(Buffer all, f.Get(io::Range::Whole(), "whole file"));
      if (static_cast<int64_t>(all.size()) != len) {
        return Corrupt("parquet file '{}': the object has {} bytes, the manifest says {}", f.Name(),
                       all.size(), len);
      }
      have.Add(0, std::move(all));
    } else {
      tail_offset = len - first.tail_bytes;
      FLOE_RETURN_IF_ERROR(
          f.GetInto(tail_offset, first.tail_bytes, &have, "footer", "the file's tail"));
    }
    FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, tail_offset, &have));
    reader = std::move(opened.first);
    footer_tail = opened.second;
    cached_from = len - footer_tail;
  }
  FLOE_ASSIGN_OR_RETURN(ReadOptions read, Resolve(options, *reader));
  ReadPlan plan;
  int64_t index_start = -1;
  const int64_t requests_before_index = stats->requests;
  FLOE_RETURN_IF_ERROR(PlanWithIndex(f, options, *reader, read, &have, &plan, &index_start));
  const int64_t index_requests = stats->requests - requests_before_index;
  if (!cached) {
    // What this file needed from its end: the footer, and the index ranges this read used (a
    // scan's files share their predicate columns).
    int64_t needed = footer_tail;
    if (index_start >= 0) needed = std::max(needed, len - index_start);
    if (options.tails) options.tails->Observe(needed, with_index);
  }
  // The wanted ranges become the requests the planner's objective prefers (read.objective).
  const int width = options.gate ? options.gate->capacity() : 64;
  auto fetch = [&]() {
    return f.GetBatch(PlanRequests(Missing(plan.DataRanges(), have), p, width).requests, width,
                      &have, "data", DataDetail(plan, *reader));
  };
  FLOE_RETURN_IF_ERROR(fetch());
  FLOE_ASSIGN_OR_RETURN(bool replanned, reader->ReplanIfIndexDisagrees(read, have, &plan));
  if (replanned) {
    FLOE_RETURN_IF_ERROR(Adjust(options, *reader, &plan));
    FLOE_RETURN_IF_ERROR(fetch());
  }
  // Cache the footer and the index pieces this read fetched; a warm read that had to fetch index
  // pieces the entry lacked (another query's columns) refreshes it.
  if (options.cache && (!cached || index_requests > 0)) {
    int64_t start = cached_from;
    if (const int64_t index = PageIndexStart(reader->metadata()); index >= 0)
      start = std::min(start, index);
    options.cache->Insert(f.cache_key(), static_cast<uint64_t>(len), *reader,
                          have.CopiesWithin({start, len - start}));
  }
  auto out = Finish(std::move(*reader), std::move(plan), std::move(have), *stats);
  if (out) out->footer_cached = cached;
  return out;
}

// A file of unknown length: one suffix read of `want` bytes into `have` -- all of a file that
// short -- and, when it came back full, one HEAD for the length. Returns the length and where the
// suffix begins.
Result<std::pair<int64_t, int64_t>> SuffixAndLength(Fetcher& f, int64_t want, FetchedBytes* have) {
  FLOE_ASSIGN_OR_RETURN(Buffer tail, f.Get(io::Range::Suffix(static_cast<uint64_t>(want)), "footer",
                                           "the file's tail"));
  int64_t len = static_cast<int64_t>(tail.size());  // the whole object came back
  if (static_cast<int64_t>(tail.size()) >= want) {
    FLOE_ASSIGN_OR_RETURN(uint64_t size, f.Head());
    len = static_cast<int64_t>(size);
    if (static_cast<int64_t>(tail.size()) > len) {
      return Corrupt("parquet file '{}': read {} tail bytes of a {}-byte file", f.Name(),
                     tail.size(), len);
    }
  }
  const int64_t from = len - static_cast<int64_t>(tail.size());
  have->Add(from, std::move(tail));
  return std::pair{len, from};
}

}  // namespace

Result<OpenedFooter> OpenFooter(io::ObjectStore& store, std::string_view key, uint64_t file_length,
                                int64_t tail_bytes) {
  StoreReadStats stats;
  Fetcher f(store, key, nullptr, &stats);
  tail_bytes = std::max(tail_bytes, static_cast<int64_t>(kFooterTrailerLength));
  FetchedBytes have;
  int64_t len = static_cast<int64_t>(file_length);
  int64_t from = 0;
  if (len > 0) {
    const int64_t n = std::min(tail_bytes, len);
    from = len - n;
    FLOE_RETURN_IF_ERROR(f.GetInto(from, n, &have, "footer"));
  } else {
    FLOE_ASSIGN_OR_RETURN(std::tie(len, from), SuffixAndLength(f, tail_bytes, &have));
  }
  FLOE_ASSIGN_OR_RETURN(auto opened, OpenFromTail(f, len, from, &have));
  return OpenedFooter{std::move(opened.first), std::move(have), stats};
}

Result<FetchedFile> FetchFile(io::ObjectStore& store, std::string_view key, const FileHints& hints,
                              const StrategyReadOptions& options) {
  StoreReadStats stats;
  Fetcher f(store, key, options.strategy == ReadStrategy::kFloe ? options.gate : nullptr, &stats);
  int64_t len = static_cast<int64_t>(hints.file_length);
  if (options.strategy == ReadStrategy::kAal) return ReadAal(f, options, &stats);
  if (len <= 0 && options.strategy == ReadStrategy::kFloe) {
    // No length from a manifest: the first read is a suffix, which is all of a small file.
    FetchedBytes have;
    int64_t from = 0;
    FLOE_ASSIGN_OR_RETURN(
        std::tie(len, from),
        SuffixAndLength(
            f, std::max(options.planner.initial_tail_bytes, int64_t{kFooterTrailerLength}), &have));
    return ReadFloe(f, len, hints, options, &stats, std::move(have), from);
  }
  if (len <= 0) {
    // No length from a manifest: the peers ask the store for it (one HEAD).
    FLOE_ASSIGN_OR_RETURN(uint64_t size, f.Head());
    len = static_cast<int64_t>(size);
  }
  switch (options.strategy) {
    case ReadStrategy::kFloe:
      return ReadFloe(f, len, hints, options, &stats);
    case ReadStrategy::kParquetMr:
      return ReadParquetMr(f, len, options, &stats);
    case ReadStrategy::kEager:
      if (len <= kEagerWholeFileBytes) return ReadWhole(f, len, options, false, &stats);
      return ReadParquetMr(f, len, options, &stats);
    case ReadStrategy::kArrowRs:
      return ReadArrowRs(f, len, options, &stats);
    case ReadStrategy::kAal:
      break;
  }
  return ReadAal(f, options, &stats);
}

}  // namespace floe::parquet
