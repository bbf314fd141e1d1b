// Workload generators: the bookshop tables of the chapter (events, customers, orders) and TPC-DS
// store_sales, as RecordBatches. Seeded and deterministic: the same workload, rows, writes and seed
// give the same bytes on every machine (own PRNG, no std:: distributions). Value shapes are tuned
// so the written Parquet sizes land near the chapter's (see floe gen --help). Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::bench {

enum class Workload { kEvents, kOrders, kCustomers, kStoreSales };

Result<Workload> ParseWorkload(std::string_view name);
std::string_view WorkloadName(Workload workload);

struct GenOptions {
  int64_t rows = 0;  // 0: the workload's default (events 2M, orders 1M, customers 1M, ss 1M)
  uint64_t seed = 42;
  int writes = 0;  // batches = the writes of the chapter; 0: the workload's default
};

// The chapter's defaults: events 4 writes in time order; customers 8 writes, each covering the
// whole id range in random order; orders 1; store_sales 1.
int64_t DefaultRows(Workload workload);
int DefaultWrites(Workload workload);

// The workload's columns (names, types, nullability), without field ids.
columnar::SchemaPtr WorkloadSchema(Workload workload);

// The rows as `writes` batches, in the order they would be appended.
//   events:      event_ts (timestamp UTC, 9 days from 2024-01-01, time order), customer_id (500
//                customers), customer country/segment/channel (fixed per customer), event_type,
//                product_id, quantity, amount decimal(10,2) -> "one day's revenue" is
//                sum(amount) over a day, "one customer's events" is customer_id = c.
//   customers:   id (0..rows-1, each write holds ids = write mod writes, shuffled) and 59
//                low-cardinality attributes (skewed strings, small ints, flags, dates).
//   orders:      order_id, customer_id, status, order_ts, updated_ts, item_count, total, country.
//   store_sales: the 23 TPC-DS columns with their domains at the chosen row count.
Result<std::vector<columnar::RecordBatch>> Generate(Workload workload, const GenOptions& options);

// One round of changes to a table of `source`'s rows (as Generate made them), as a nightly
// reconciliation would bring them: `fraction` of the rows, chosen at random (the seed decides),
// no row in two rounds until every row has been in one, with their mutable columns changed.
// orders: status moves on (processing -> shipped -> delivered -> returned) and updated_ts by
// round + 1 days. Other workloads have no change generator (an unsupported error).
Result<columnar::RecordBatch> GenerateChanges(Workload workload,
                                              const std::vector<columnar::RecordBatch>& source,
                                              double fraction, int round, uint64_t seed);

// splitmix64: the generators' PRNG, exposed for tests and for samplers that must match it.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace floe::bench
