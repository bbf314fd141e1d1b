// ScanMetrics: what one scan (or one query's scans) cost and how -- the four numbers a bill is
// made of (data files opened, requests, bytes fetched; latency is the caller's clock) and the
// pruning that explains them. One object, made by whoever asks (a query, a bench arm), passed
// down by pointer through the table scan, the scan reader and the Parquet reader, each adding
// what it did. Counters are atomic, so the reading threads add without a lock; copies (a
// query's result) take a snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace floe {

// An int64 counter threads add to; reads as its value.
class MetricCounter {
 public:
  MetricCounter(int64_t v = 0) : v_(v) {}  // NOLINT(google-explicit-constructor): a number
  MetricCounter(const MetricCounter& o) : v_(o.value()) {}
  MetricCounter& operator=(const MetricCounter& o) {
    v_.store(o.value(), std::memory_order_relaxed);
    return *this;
  }
  MetricCounter& operator=(int64_t v) {
    v_.store(v, std::memory_order_relaxed);
    return *this;
  }
  MetricCounter& operator+=(int64_t n) {
    v_.fetch_add(n, std::memory_order_relaxed);
    return *this;
  }
  MetricCounter& operator++() { return *this += 1; }
  // Raises the counter to `n` if it is below (a peak).
  void RaiseTo(int64_t n) {
    int64_t cur = value();
    while (cur < n && !v_.compare_exchange_weak(cur, n, std::memory_order_relaxed)) {
    }
  }
  int64_t value() const { return v_.load(std::memory_order_relaxed); }
  operator int64_t() const { return value(); }  // NOLINT(google-explicit-constructor)
  friend std::ostream& operator<<(std::ostream& os, const MetricCounter& c) {
    return os << c.value();
  }

 private:
  std::atomic<int64_t> v_;
};

struct ScanMetrics {
  // Planning (the table scan).
  MetricCounter data_files_planned;
  MetricCounter data_files_skipped_partition;  // by partition values and manifest summaries
  MetricCounter data_files_skipped_bounds;     // by column bounds in the manifests
  MetricCounter data_files_skipped_index;      // by an OTree's cubes (iceberg/otree_index.h)
  MetricCounter data_files_skipped_sample;     // by TABLESAMPLE
  // Of those skipped, the ones only a join's keys ruled out (dynamic pruning: the build side's
  // key range or keys added to the scan's filter).
  MetricCounter data_files_skipped_join;
  // Reading (the scan reader and the Parquet reader).
  MetricCounter data_files_opened;  // files of which at least one byte was read
  MetricCounter row_groups_read;
  MetricCounter row_groups_skipped;
  MetricCounter pages_skipped;
  MetricCounter rows_read;  // rows decoded, before the residual's test
  MetricCounter rows;       // rows the scan produced
  // Deletes (merge-on-read): delete files read (a Puffin file once per scan), their requests and
  // bytes (also within the totals below), and the rows they took out.
  MetricCounter delete_files_opened;
  MetricCounter delete_requests;
  MetricCounter delete_bytes_fetched;
  MetricCounter rows_deleted;
  // What the reader itself sent (a CountingStore under the FileIO counts the same, plus anything
  // else that used the store).
  MetricCounter requests;  // GETs and HEADs
  MetricCounter heads;
  MetricCounter bytes_fetched;
  MetricCounter footer_cache_hits;
  MetricCounter peak_buffered_bytes;  // most fetched-but-undecoded bytes held at once
  // Page indexes and statistics the Parquet reader did not use because they broke a rule (the
  // rows were read without them), and the first reason.
  MetricCounter metadata_rejected;
  // Joins, aggregates and sorts past SET memory_limit: bytes written to spill files, and the
  // files (partitions, sorted runs) written.
  MetricCounter spilled_bytes;
  MetricCounter spill_partitions;

  ScanMetrics() = default;
  ScanMetrics(const ScanMetrics& o) = default;
  ScanMetrics& operator=(const ScanMetrics& o) = default;

  // Adds every counter of `o` (another scan of the same statement); peaks take the larger.
  void Add(const ScanMetrics& o) {
    for (auto [mine, theirs] : Counters(o)) *mine += theirs->value();
    peak_buffered_bytes.RaiseTo(o.peak_buffered_bytes);
    Warn(o.metadata_warning());
  }

  // The first warning wins.
  void Warn(const std::string& w) {
    if (w.empty()) return;
    std::lock_guard lock(warning_mu_);
    if (metadata_warning_.empty()) metadata_warning_ = w;
  }
  std::string metadata_warning() const {
    std::lock_guard lock(warning_mu_);
    return metadata_warning_;
  }

 private:
  // A mutex that copies as a new one: a copy of the metrics is taken once the scan is done.
  struct Mutex : std::mutex {
    Mutex() = default;
    Mutex(const Mutex&) : std::mutex() {}
    Mutex& operator=(const Mutex&) { return *this; }
  };
  // The summed counters of this and `o`, pairwise.
  std::vector<std::pair<MetricCounter*, const MetricCounter*>> Counters(const ScanMetrics& o) {
    std::vector<std::pair<MetricCounter*, const MetricCounter*>> out;
    auto both = [&](MetricCounter ScanMetrics::*m) { out.emplace_back(&(this->*m), &(o.*m)); };
    for (auto m : {&ScanMetrics::data_files_planned,
                   &ScanMetrics::data_files_skipped_partition,
                   &ScanMetrics::data_files_skipped_bounds,
                   &ScanMetrics::data_files_skipped_index,
                   &ScanMetrics::data_files_skipped_sample,
                   &ScanMetrics::data_files_skipped_join,
                   &ScanMetrics::data_files_opened,
                   &ScanMetrics::row_groups_read,
                   &ScanMetrics::row_groups_skipped,
                   &ScanMetrics::pages_skipped,
                   &ScanMetrics::rows_read,
                   &ScanMetrics::rows,
                   &ScanMetrics::delete_files_opened,
                   &ScanMetrics::delete_requests,
                   &ScanMetrics::delete_bytes_fetched,
                   &ScanMetrics::rows_deleted,
                   &ScanMetrics::requests,
                   &ScanMetrics::heads,
                   &ScanMetrics::bytes_fetched,
                   &ScanMetrics::footer_cache_hits,
                   &ScanMetrics::metadata_rejected,
                   &ScanMetrics::spilled_bytes,
                   &ScanMetrics::spill_partitions}) {
      both(m);
    }
    return out;
  }
  mutable Mutex warning_mu_;
  std::string metadata_warning_;
};

}  // namespace floe
