#include "floe/parquet/read_file.h"

#include <algorithm>
#include <future>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/parquet/record_assembler.h"
#include "floe/parquet/row_selection.h"

namespace floe::parquet {

namespace {

// Runs of masked rows shorter than this are decoded and dropped from the batches rather than
// passed over: at merge-on-read's usual scattered deletes, passing over each run (every column
// reader stopping and restarting) cost more than decoding its rows.
constexpr int64_t kMinSkippedRun = 128;

// The plan fields `keys` name, in key order; `all` says whether every key found one.
std::vector<size_t> FieldIndexes(const ReadPlan& plan, const std::vector<FieldKey>& keys,
                                 bool* all) {
  std::vector<size_t> out;
  *all = true;
  for (const FieldKey& k : keys) {
    bool found = false;
    for (size_t i = 0; i < plan.fields.size(); ++i) {
      if (k.Matches(plan.fields[i].field)) {
        out.push_back(i);
        found = true;
        break;
      }
    }
    *all &= found;
  }
  return out;
}

// The columns `idx` of `b`, in that order (a batch of no columns keeps its row count).
columnar::RecordBatch Columns(const columnar::RecordBatch& b, const std::vector<size_t>& idx) {
  columnar::RecordBatch out;
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t i : idx) {
    schema->fields.push_back(b.schema->fields[i]);
    out.columns.push_back(b.columns[i]);
  }
  out.schema = std::move(schema);
  out.num_rows = b.num_rows;
  return out;
}

// Runs `work(p)` for every p < n, p = 0 on the calling thread and the others on `pool` (on
// threads of their own when null); the first error wins.
Status OnThreads(ThreadPool* pool, size_t n, const std::function<Status(size_t)>& work) {
  std::vector<Status> done(n);
  if (pool != nullptr) {
    std::vector<std::future<void>> futures;
    futures.reserve(n);
    for (size_t p = 1; p < n; ++p) futures.push_back(pool->Submit([&, p] { done[p] = work(p); }));
    if (n > 0) done[0] = work(0);
    for (std::future<void>& f : futures) f.wait();
  } else {
    std::vector<std::thread> threads;
    for (size_t p = 1; p < n; ++p) threads.emplace_back([&, p] { done[p] = work(p); });
    if (n > 0) done[0] = work(0);
    for (std::thread& t : threads) t.join();
  }
  for (Status& st : done) FLOE_RETURN_IF_ERROR(std::move(st));
  return {};
}

// What the filter needs of one file's plan.
struct FilterShape {
  std::vector<size_t> filter;  // plan fields the filter reads, in RowFilter::fields order
  bool filter_complete = false;
  std::vector<size_t> output;  // plan fields the output carries
  bool output_complete = false;
  bool trust_certain = false;
};

// Late materialisation, step 1: decodes only the filter's fields of `plan`'s rows and returns one
// byte per row (in plan order, rows proven to match left out when trusted): 1 where the filter
// holds. nullopt when it cannot pay: a limit, a filter field the file lacks, or no field left to
// read later.
Result<std::optional<std::vector<uint8_t>>> MatchFilterFields(
    const FileReader& reader, const ReadPlan& plan, const FetchedBytes& bytes,
    const RowFilter& filter, const FilterShape& shape, size_t threads, ThreadPool* pool) {
  if (plan.limit >= 0 || shape.filter.empty() || !shape.filter_complete) return std::nullopt;
  if (shape.filter.size() == plan.fields.size() && !shape.output.empty()) return std::nullopt;
  ReadPlan first = plan;
  first.fields.clear();
  auto schema = std::make_shared<columnar::Schema>();
  std::set<int> leaves;
  for (size_t i : shape.filter) {
    const FieldNode& f = plan.fields[i];
    first.fields.push_back(f);
    schema->fields.push_back(f.field);
    leaves.insert(f.leaves.begin(), f.leaves.end());
  }
  // Field by field when the filter allows it: a flat field by a matcher, so a dictionary is
  // matched once per entry and the rows' values are never gathered from it.
  const bool per_field = filter.per_field.size() == filter.fields.size();
  std::vector<bool> matched(first.fields.size(), false);
  if (per_field) {
    for (size_t i = 0; i < first.fields.size(); ++i) {
      const FieldNode& f = first.fields[i];
      if (f.kind != FieldNode::Kind::kLeaf) continue;
      const ColumnDescriptor& leaf = reader.schema().leaves()[f.leaf];
      if (leaf.max_rep > 0 || leaf.conversion == ReadConversion::kNull) continue;
      auto field_schema = std::make_shared<columnar::Schema>();
      field_schema->fields.push_back(f.field);
      first.matchers[f.leaf] = [leaf, field_schema, test = filter.per_field[i]](
                                   DenseValues v) -> Result<std::vector<uint8_t>> {
        FLOE_ASSIGN_OR_RETURN(columnar::ColumnPtr c, ValuesAsColumn(leaf, std::move(v)));
        columnar::RecordBatch b;
        b.schema = field_schema;
        b.num_rows = c->length;
        b.columns = {std::move(c)};
        return test(b);
      };
      matched[i] = true;
    }
  }
  first.schema = schema;
  first.columns.assign(leaves.begin(), leaves.end());
  // Rows the statistics or page index prove match are not decoded to be filtered.
  for (RowGroupPlan& rg : first.row_groups) {
    std::erase_if(rg.columns, [&](const ColumnChunkPlan& c) { return !leaves.count(c.column); });
    if (shape.trust_certain) rg.rows = SubtractRows(rg.rows, rg.certain);
  }
  std::erase_if(first.row_groups, [](const RowGroupPlan& rg) { return rg.rows.empty(); });
  // Decodes one slice of `first` into its rows' match bytes, appended to *match.
  auto match_slice = [&](const ReadPlan& slice, std::vector<uint8_t>* match) -> Status {
    FLOE_ASSIGN_OR_RETURN(BatchReader batches, reader.Decode(slice, bytes));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<columnar::RecordBatch> b, batches.Next());
      if (!b) break;
      if (!per_field) {
        FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> m, filter.evaluate(*b));
        match->insert(match->end(), m.begin(), m.end());
        continue;
      }
      // Field by field: a matched field's flags (NULL never matches), else its own test.
      const size_t at = match->size();
      const size_t n = static_cast<size_t>(b->num_rows);
      match->resize(at + n, 1);
      uint8_t* m = match->data() + at;
      for (size_t i = 0; i < matched.size(); ++i) {
        const columnar::Column& col = *b->columns[i];
        if (matched[i]) {
          const uint8_t* flags = col.values.data();
          if (col.null_count == 0) {
            for (size_t r = 0; r < n; ++r) m[r] &= flags[r];
          } else {
            for (size_t r = 0; r < n; ++r) {
              m[r] &= flags[r] & (col.IsValid(static_cast<int64_t>(r)) ? 1 : 0);
            }
          }
          continue;
        }
        FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> mine, filter.per_field[i](Columns(*b, {i})));
        for (size_t r = 0; r < n; ++r) m[r] &= mine[r];
      }
    }
    return {};
  };
  // Slices in plan order on their own threads; their match bytes concatenate in that order.
  std::vector<ReadPlan> slices = SplitPlan(std::move(first), threads);
  std::vector<std::vector<uint8_t>> parts(slices.size());
  FLOE_RETURN_IF_ERROR(
      OnThreads(pool, slices.size(), [&](size_t p) { return match_slice(slices[p], &parts[p]); }));
  std::vector<uint8_t> match = std::move(parts[0]);
  for (size_t p = 1; p < parts.size(); ++p) {
    match.insert(match.end(), parts[p].begin(), parts[p].end());
  }
  return match;
}

// A plan narrowed to a filter's matches has a range for each run of them: with more than one
// run in this many rows, the flags serve better. A range costs each column a skip and a read
// (a few hundred nanoseconds), and a skip over delta-coded values decodes them anyway; decoding
// every row costs a few nanoseconds. Measured on TPC-H's lineitem probed by a year of orders
// (runs of ~4 matches every ~26 rows): narrowed 159 ms, by flags 140 ms.
constexpr int64_t kMinNarrowedPeriod = 64;
// The rows a large plan's first matching is judged on: a sixteenth of it, within these bounds.
constexpr int64_t kMinSampleRows = 16384;
constexpr int64_t kMaxSampleRows = 65536;

// What late materialisation made of a plan: the plan narrowed to its matching rows, or -- where
// that cannot pay -- the plan producing the output fields only, with one match flag per row
// that the decode applies to its batches (the filter is not evaluated twice). Neither: the plan
// as it was, filtered batch by batch.
struct Matched {
  std::optional<ReadPlan> plan;
  bool narrowed = false;
  std::vector<uint8_t> flags;  // when !narrowed: one per row of `plan`, in plan order
};

// About how many leaves' worth of a plan's rows a narrowed read decodes, as its first rows'
// matches (`counts`) show: each filter leaf whole, then each output leaf where a match is -- a
// delta-coded one in every block holding a match (its values are decoded to pass over them),
// another at its matching rows plus a range's cost per run (kMinNarrowedPeriod rows).
double NarrowedLeaves(const RowSelection& counts, const RowGroup& group,
                      const std::set<int>& filter_leaves, const std::set<int>& output_leaves) {
  const double touched = static_cast<double>(counts.touched) / static_cast<double>(counts.blocks);
  const double selected =
      std::min(1.0, static_cast<double>(counts.selected + kMinNarrowedPeriod * counts.ranges) /
                        static_cast<double>(counts.planned));
  double leaves = static_cast<double>(filter_leaves.size());
  for (int leaf : output_leaves) {
    bool delta = false;
    if (const auto& meta = group.columns.at(static_cast<size_t>(leaf)).meta_data) {
      for (Encoding e : meta->encodings) {
        delta = delta || e == Encoding::kDeltaBinaryPacked ||
                e == Encoding::kDeltaLengthByteArray || e == Encoding::kDeltaByteArray;
      }
    }
    leaves += delta ? touched : selected;
  }
  return leaves;
}

// Late materialisation, steps 2 and 3: the plan narrowed to the rows that match and the output
// fields, their pages without a match passed over undecoded (a point lookup on an unsorted file
// decodes one column, not sixty) -- unless that cannot pay: more than half the rows matching in
// short runs, or runs beginning every few rows (kMinNarrowedPeriod). Then the rows' match flags
// and the output fields alone (none for a count).
Result<Matched> NarrowToMatches(const FileReader& reader, const ReadPlan& plan,
                                const FetchedBytes& bytes, const RowFilter& filter,
                                const FilterShape& shape, size_t threads, ThreadPool* pool,
                                int64_t batch_rows) {
  if (!shape.output_complete) return Matched{};  // an output field the file lacks
  // Narrowing pays when it passes over many rows at a time: not when most rows match in short
  // runs, nor when runs begin every few rows (the ranges would cost more than the rows).
  auto cannot_pay = [](const RowSelection& counts) {
    const bool dense = 2 * counts.selected > counts.planned && counts.ranges * 64 > counts.selected;
    const bool scattered = counts.ranges * kMinNarrowedPeriod > counts.planned;
    return dense || scattered;
  };
  // A large plan is judged on its first rows before the filter's fields are decoded for all of
  // them. Matching first and narrowing decodes the filter's leaves, then the output's where
  // there is a match (NarrowedLeaves); filtering batch by batch decodes both once, then copies
  // the matching rows out of every batch. It is chosen when the first rows' matches are fewer
  // than half of them (so the copies are small), spread over their blocks (a run or more per
  // block), and narrowing would decode as much: lineitem probed by a year of orders (a match
  // every ~26 rows) 135 -> 99 ms. Where the first rows match whole, mostly, or hardly at all,
  // the plan is matched (Q01's 98% of lineitem in runs of ~100: narrowed 340 ms, batch by batch
  // 720).
  int64_t planned = 0;
  for (const RowGroupPlan& rg : plan.row_groups) {
    for (const RowRange& r : rg.rows) planned += r.end - r.begin;
  }
  if (planned >= 4 * kMinSampleRows && !filter.evaluate_once) {
    const ReadPlan head =
        HeadOfPlan(plan, std::clamp(planned / 16, kMinSampleRows, kMaxSampleRows));
    FLOE_ASSIGN_OR_RETURN(std::optional<std::vector<uint8_t>> sample,
                          MatchFilterFields(reader, head, bytes, filter, shape, threads, pool));
    if (!sample) return Matched{};
    std::optional<RowSelection> c = CountMatches(head, *sample, shape.trust_certain);
    if (c && c->blocks > 0 && c->ranges >= c->blocks && 2 * c->selected < c->planned) {
      std::set<int> filter_leaves, output_leaves;
      for (size_t i : shape.filter) {
        filter_leaves.insert(plan.fields[i].leaves.begin(), plan.fields[i].leaves.end());
      }
      for (size_t i : shape.output) {
        output_leaves.insert(plan.fields[i].leaves.begin(), plan.fields[i].leaves.end());
      }
      std::set<int> both = filter_leaves;
      both.insert(output_leaves.begin(), output_leaves.end());
      const RowGroup& group =
          reader.metadata().row_groups.at(static_cast<size_t>(head.row_groups.front().row_group));
      if (NarrowedLeaves(*c, group, filter_leaves, output_leaves) >=
          static_cast<double>(both.size())) {
        return Matched{};
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::optional<std::vector<uint8_t>> match,
                        MatchFilterFields(reader, plan, bytes, filter, shape, threads, pool));
  if (!match) return Matched{};
  std::optional<RowSelection> counts = CountMatches(plan, *match, shape.trust_certain);
  if (!counts) return Matched{};
  if (cannot_pay(*counts)) {
    return Matched{KeepFields(plan, shape.output), false,
                   MatchFlags(plan, std::move(*match), shape.trust_certain)};
  }
  std::optional<RowSelection> m = SelectMatches(plan, *match, shape.trust_certain);
  if (!m) return Matched{};
  return Matched{NarrowPlan(plan, shape.output, std::move(*m), batch_rows), true, {}};
}

// The batch rows left when the rows at `dropped` (sorted file positions) are taken out of a
// batch whose rows sit at `ranges` (ascending file positions, in batch order), as runs; `next`
// walks `dropped` across the batches of one plan, whose positions only grow.
std::vector<columnar::RowRun> KeptRuns(const std::vector<RowRange>& ranges,
                                       const std::vector<RowRange>& dropped, size_t* next) {
  std::vector<columnar::RowRun> kept;
  int64_t row = 0;  // the batch row at ranges[i].begin
  for (const RowRange& p : ranges) {
    int64_t pos = p.begin;
    while (pos < p.end) {
      while (*next < dropped.size() && dropped[*next].end <= pos) ++*next;
      int64_t stop = p.end;
      if (*next < dropped.size()) {
        if (dropped[*next].begin <= pos) {
          pos = std::min(p.end, dropped[*next].end);
          continue;
        }
        stop = std::min(stop, dropped[*next].begin);
      }
      const int64_t from = row + (pos - p.begin);
      if (!kept.empty() && kept.back().from + kept.back().length == from) {
        kept.back().length += stop - pos;
      } else {
        kept.push_back({from, stop - pos});
      }
      pos = stop;
    }
    row += p.end - p.begin;
  }
  return kept;
}

}  // namespace

Result<FileReadResult> ReadFile(io::ObjectStore& store, std::string_view key,
                                const FileHints& hints, const ReadFileOptions& options,
                                const FileBatchSink& sink) {
  // Bytes held from the fetch to the end of the decode: the projection's bytes and a tail when
  // the manifest says them, else the file.
  int64_t reserved = 0;
  if (options.budget) {
    const int64_t len = static_cast<int64_t>(hints.file_length);
    reserved = hints.projected_bytes >= 0
                   ? std::min(len, hints.projected_bytes + options.fetch.planner.initial_tail_bytes)
                   : len;
    reserved = std::max<int64_t>(reserved, 0);
    options.budget->Reserve(reserved);
  }
  struct Releaser {
    ByteBudget* b = nullptr;
    int64_t n = 0;
    ~Releaser() {
      if (b) b->Release(n);
    }
  } releaser{options.budget, reserved};

  // The row mask: the excluded rows and those still to come, once.
  StrategyReadOptions fetch_options = options.fetch;
  std::vector<int64_t> starts;
  std::optional<std::vector<RowRange>> mask;
  std::vector<RowRange> dropped;  // the mask's short runs, left in the plan (TakeLongRuns)
  auto resolve_mask = [&]() -> Status {
    if (mask) return {};
    mask = options.excluded_rows;
    if (!options.excluded_rows_later) return {};
    FLOE_ASSIGN_OR_RETURN(std::vector<RowRange> later, options.excluded_rows_later());
    if (!mask->empty()) {
      // The union of two sorted, disjoint lists: the rows of either.
      std::vector<RowRange> both;
      std::merge(mask->begin(), mask->end(), later.begin(), later.end(), std::back_inserter(both),
                 [](const RowRange& a, const RowRange& b) { return a.begin < b.begin; });
      std::vector<RowRange> merged;
      for (const RowRange& x : both) {
        if (!merged.empty() && x.begin <= merged.back().end) {
          merged.back().end = std::max(merged.back().end, x.end);
        } else {
          merged.push_back(x);
        }
      }
      later = std::move(merged);
    }
    mask = std::move(later);
    return {};
  };
  // A mask that may empty pages goes into the plan before any data is fetched, so those pages are
  // not. One the caller knows to be scattered is waited for only once the data has come: its own
  // reads (delete files) then overlap the data's instead of going before them when the footer is
  // already cached, and its rows come out of the decoded batches.
  const bool has_mask = !options.excluded_rows.empty() || options.excluded_rows_later;
  const bool mask_in_plan =
      has_mask && (options.mask_may_empty_pages || !options.excluded_rows_later);
  if (mask_in_plan) {
    fetch_options.read.page_index_for_mask = options.mask_may_empty_pages;
    fetch_options.adjust_plan = [&](const FileReader& r, ReadPlan* plan) -> Status {
      FLOE_RETURN_IF_ERROR(resolve_mask());
      if (mask->empty()) return {};
      if (starts.empty()) starts = FileRowStarts(r.metadata());
      dropped = *mask;
      ExcludeRows(TakeLongRuns(&dropped, kMinSkippedRun), starts, plan);
      return {};
    };
  }
  FLOE_ASSIGN_OR_RETURN(FetchedFile fetched, FetchFile(store, key, hints, fetch_options));
  if (has_mask && !mask_in_plan) {
    FLOE_RETURN_IF_ERROR(resolve_mask());
    dropped = *mask;
  }
  if (options.budget) {
    const int64_t held = fetched.bytes.total_bytes();
    options.budget->Adjust(reserved, held);
    releaser.n = held;
  }
  FileReadResult out;
  out.fetch = fetched.stats;
  out.footer_cached = fetched.footer_cached;
  out.row_groups_read = static_cast<int64_t>(fetched.plan.row_groups.size());
  out.first_rejection = fetched.plan.first_rejection;
  if (ScanMetrics* m = options.metrics) {
    const ReadPlan::Counts& counts = fetched.plan.counts;
    if (out.fetch.bytes_fetched > 0) ++m->data_files_opened;
    m->row_groups_read += out.row_groups_read;
    m->row_groups_skipped += counts.row_groups - out.row_groups_read;
    m->pages_skipped += counts.pages_skipped;
    m->metadata_rejected += counts.metadata_rejected;
    m->Warn(out.first_rejection);
    m->requests += out.fetch.requests;
    m->heads += out.fetch.heads;
    m->bytes_fetched += out.fetch.bytes_fetched;
    m->footer_cache_hits += out.footer_cached ? 1 : 0;
  }

  ReadPlan plan = std::move(fetched.plan);
  const RowFilter* filter = options.filter;
  FilterShape shape;
  bool narrowed = false;
  bool by_flags = false;       // the plan yields the output fields; `flags` says the rows kept
  std::vector<uint8_t> flags;  // one per row of the plan, in plan order
  if (filter) {
    shape.filter = FieldIndexes(plan, filter->fields, &shape.filter_complete);
    if (filter->output) {
      shape.output = FieldIndexes(plan, *filter->output, &shape.output_complete);
    } else {
      for (size_t i = 0; i < plan.fields.size(); ++i) shape.output.push_back(i);
      shape.output_complete = true;
    }
    shape.trust_certain = filter->predicates_are_filter &&
                          plan.predicates.size() == options.fetch.read.predicates.size();
    FLOE_ASSIGN_OR_RETURN(Matched m,
                          NarrowToMatches(fetched.reader, plan, fetched.bytes, *filter, shape,
                                          std::max<size_t>(1, options.filter_threads), options.pool,
                                          options.narrowed_batch_rows));
    if (m.plan) {
      plan = std::move(*m.plan);
      narrowed = m.narrowed;
      flags = std::move(m.flags);
      by_flags = !narrowed;
    }
  }
  out.schema = plan.schema;
  if (filter && !narrowed && !by_flags) {
    auto schema = std::make_shared<columnar::Schema>();
    for (size_t i : shape.output) schema->fields.push_back(plan.schema->fields[i]);
    out.schema = std::move(schema);
  }
  if (options.position_field) {
    auto schema = std::make_shared<columnar::Schema>(*out.schema);
    schema->fields.push_back(*options.position_field);
    out.schema = std::move(schema);
  }
  std::atomic<int64_t> rows_decoded{0};
  // The mask's short runs, left in the plan, come out of the decoded batches by position.
  if ((!dropped.empty() || options.position_field) && starts.empty()) {
    starts = FileRowStarts(fetched.reader.metadata());
  }
  // Decodes `slice` (whose first row is the plan's row `first`) in order; rows of a plan not
  // narrowed are filtered batch by batch.
  auto decode = [&](ReadPlan slice, FetchedBytes bytes, size_t first) -> Status {
    std::optional<RowPositions> positions;
    if (!dropped.empty() || options.position_field) positions.emplace(slice, starts);
    size_t next_dropped = 0;  // the slice's positions only grow
    std::vector<int64_t> at;
    std::vector<RowRange> ranges;
    FLOE_ASSIGN_OR_RETURN(BatchReader batches,
                          fetched.reader.Decode(std::move(slice), std::move(bytes)));
    while (!(options.stop && options.stop->load())) {
      FLOE_ASSIGN_OR_RETURN(std::optional<columnar::RecordBatch> b, batches.Next());
      if (!b) break;
      rows_decoded += b->num_rows;
      if (options.metrics) options.metrics->rows_read += b->num_rows;
      const bool by_filter = filter && !narrowed;
      const uint8_t* flags_here = by_flags ? flags.data() + first : nullptr;
      if (by_flags) {
        first += static_cast<size_t>(b->num_rows);
        if (first > flags.size()) {
          return Internal("'{}': the decode gave more rows than the filter matched ({})", key,
                          flags.size());
        }
      }
      if (!by_filter && !options.position_field && positions) {
        // Only the mask's short runs to drop: the rows kept, as runs of the batch's rows.
        ranges.clear();
        positions->NextRanges(b->num_rows, &ranges);
        const std::vector<columnar::RowRun> kept = KeptRuns(ranges, dropped, &next_dropped);
        if (kept.size() != 1 || kept[0].length != b->num_rows) {
          FLOE_ASSIGN_OR_RETURN(*b, columnar::TakeRuns(*b, kept));
        }
      } else if (by_filter || positions) {
        std::vector<uint8_t> evaluated;
        const uint8_t* match = flags_here;
        if (by_filter && !by_flags) {
          FLOE_ASSIGN_OR_RETURN(evaluated, filter->evaluate(Columns(*b, shape.filter)));
          match = evaluated.data();
        }
        if (positions) {
          at.clear();
          positions->Next(b->num_rows, &at);
        }
        std::vector<int64_t> keep;
        if (by_filter && dropped.empty()) {
          // The matching rows' numbers, without a branch per row.
          keep.resize(static_cast<size_t>(b->num_rows));
          size_t k = 0;
          for (int64_t r = 0; r < b->num_rows; ++r) {
            keep[k] = r;
            k += match[static_cast<size_t>(r)] != 0 ? 1 : 0;
          }
          keep.resize(k);
        } else {
          keep.reserve(static_cast<size_t>(b->num_rows));
        }
        for (int64_t r = 0; r < b->num_rows && !(by_filter && dropped.empty()); ++r) {
          if (by_filter && !match[static_cast<size_t>(r)]) continue;
          if (!dropped.empty()) {
            const int64_t p = at[static_cast<size_t>(r)];
            while (next_dropped < dropped.size() && dropped[next_dropped].end <= p) ++next_dropped;
            if (next_dropped < dropped.size() && dropped[next_dropped].begin <= p) continue;
          }
          keep.push_back(r);
        }
        if (static_cast<int64_t>(keep.size()) != b->num_rows) {
          FLOE_ASSIGN_OR_RETURN(*b, columnar::Take(*b, keep));
          if (options.position_field) {
            for (size_t i = 0; i < keep.size(); ++i) at[i] = at[static_cast<size_t>(keep[i])];
            at.resize(keep.size());
          }
        }
        if (by_filter && !by_flags) *b = Columns(*b, shape.output);
      }
      if (options.position_field) {
        columnar::FixedWidthBuilder<int64_t> column(options.position_field->type);
        column.AppendValues(at.data(), static_cast<int64_t>(at.size()));
        auto schema = std::make_shared<columnar::Schema>(*b->schema);
        schema->fields.push_back(*options.position_field);
        b->schema = std::move(schema);
        b->columns.push_back(column.Finish());
      }
      FLOE_RETURN_IF_ERROR(sink(std::move(*b)));
    }
    return {};
  };
  std::vector<ReadPlan> slices =
      SplitPlan(std::move(plan), std::max<size_t>(1, options.decode_threads));
  if (slices.size() <= 1) {
    FLOE_RETURN_IF_ERROR(decode(std::move(slices.at(0)), std::move(fetched.bytes), 0));
  } else {
    std::vector<size_t> firsts;  // each slice's first row among the plan's
    size_t rows = 0;
    for (const ReadPlan& slice : slices) {
      firsts.push_back(rows);
      for (const RowGroupPlan& rg : slice.row_groups) {
        for (const RowRange& r : rg.rows) rows += static_cast<size_t>(r.end - r.begin);
      }
    }
    FLOE_RETURN_IF_ERROR(OnThreads(options.pool, slices.size(), [&](size_t p) {
      return decode(std::move(slices[p]), fetched.bytes, firsts[p]);
    }));
  }
  out.rows_decoded = rows_decoded.load();
  return out;
}

Result<FileContents> ReadFileAll(io::ObjectStore& store, std::string_view key,
                                 const FileHints& hints, const ReadFileOptions& options) {
  FileContents out;
  if (options.decode_threads <= 1) {
    FLOE_ASSIGN_OR_RETURN(out.read,
                          ReadFile(store, key, hints, options, [&](columnar::RecordBatch b) {
                            out.batches.push_back(std::move(b));
                            return Status{};
                          }));
    return out;
  }
  // Batches come from several threads in any order, each a run of rows: ordered by the position
  // of their first row (a column added for it, dropped after, unless the caller asked for it).
  ReadFileOptions o = options;
  const bool own_positions = !o.position_field;
  if (own_positions) o.position_field = columnar::Field{"_pos", columnar::Int64(), false};
  std::mutex mu;
  FLOE_ASSIGN_OR_RETURN(out.read, ReadFile(store, key, hints, o, [&](columnar::RecordBatch b) {
                          std::lock_guard lock(mu);
                          out.batches.push_back(std::move(b));
                          return Status{};
                        }));
  std::erase_if(out.batches, [](const columnar::RecordBatch& b) { return b.num_rows == 0; });
  std::sort(out.batches.begin(), out.batches.end(),
            [](const columnar::RecordBatch& a, const columnar::RecordBatch& b) {
              return a.columns.back()->Value<int64_t>(0) < b.columns.back()->Value<int64_t>(0);
            });
  if (own_positions) {
    if (out.read.schema && !out.read.schema->fields.empty()) {
      auto schema = std::make_shared<columnar::Schema>(*out.read.schema);
      schema->fields.pop_back();
      out.read.schema = std::move(schema);
    }
    for (columnar::RecordBatch& b : out.batches) {
      b.columns.pop_back();
      auto schema = std::make_shared<columnar::Schema>(*b.schema);
      schema->fields.pop_back();
      b.schema = std::move(schema);
    }
  }
  return out;
}

}  // namespace floe::parquet
