// The chapter's worksheets. Rows are the chapter's; `floe demo --scale F` scales them.
#include "floe/bench/builtin.h"

namespace floe::bench {

const std::vector<BuiltinWorksheet>& BuiltinWorksheets() {
  static const std::vector<BuiltinWorksheet> sheets = {
      {"events",
       R"(name: events
description: >-
  Append-only bookshop events, 2M rows over 9 days from 500 customers, arriving in 4 writes in
  time order (the chapter's first workload).
table: bookshop.events
source: {generator: events, rows: 2000000, seed: 42, writes: 4}
designs:
  - name: A
    description: unpartitioned, unsorted
  - name: B
    description: day-partitioned, sorted by customer in each write
    partition_by: day(event_ts)
    sort_by: customer_id
questions:
  - name: one day's revenue
    sql: >-
      SELECT sum(amount) FROM {table} WHERE event_ts >= TIMESTAMP '2024-01-05 00:00:00'
      AND event_ts < TIMESTAMP '2024-01-06 00:00:00'
    daily: 24
  - name: one customer's events
    sql: SELECT * FROM {table} WHERE customer_id = 123
    daily: 2000
)",
       {{"A",
         "one day's revenue",
         "12 req, 7.2 MB, 209 ms (4 files, 9.4 MB)",
         {.requests = 12, .bytes = 7.2e6, .median_ms = 209}},
        {"B",
         "one day's revenue",
         "6 req, 0.2 MB, 110 ms (12 files, 4.8 MB)",
         {.requests = 6, .bytes = 0.2e6, .median_ms = 110}},
        {"A",
         "one customer's events",
         "16 req, 7.7 MB, 154 ms",
         {.requests = 16, .bytes = 7.7e6, .median_ms = 154}},
        {"B",
         "one customer's events",
         "36 req, 1.1 MB, 119 ms",
         {.requests = 36, .bytes = 1.1e6, .median_ms = 119}}}},
      {"orders",
       R"(name: orders
description: >-
  A million orders bucketed eight ways on order_id, and five nightly MERGEs that each update one
  percent of them (the chapter's second workload): copy-on-write against merge-on-read, then a
  compaction. The decision is a schedule, not a mode.
table: bookshop.orders
source: {generator: orders, rows: 1000000, seed: 42, writes: 1}
designs:
  - name: copy-on-write
    description: a MERGE rewrites every data file holding a changed row
    partition_by: bucket(8, order_id)
  - name: merge-on-read
    description: >-
      a MERGE writes the new rows and a position delete file per data file it touches (format 2)
    partition_by: bucket(8, order_id)
    properties: {write.merge.mode: merge-on-read}
  - name: merge-on-read v3
    description: the same with deletion vectors (format 3)
    partition_by: bucket(8, order_id)
    properties: {write.merge.mode: merge-on-read, format-version: '3'}
changes:
  sql: >-
    MERGE INTO {table} t USING {changes} s ON t.order_id = s.order_id
    WHEN MATCHED THEN UPDATE SET status = s.status, updated_ts = s.updated_ts
  fraction: 0.01
  rounds: 5
  daily: 1
questions:
  - name: orders by status
    sql: SELECT status, count(*) FROM {table} GROUP BY status
    daily: 100
  - name: one order's status
    sql: SELECT status, updated_ts FROM {table} WHERE order_id = {row:0.37}
    daily: 1000
)",
       {{"copy-on-write", "(changes)", "median 1014 ms (950-1105); 8 data files, 0 delete files"},
        {"merge-on-read", "(changes)",
         "median 762 ms (725-851); 56 data files, 8 delete files, 60,000 positions"},
        {"copy-on-write", "orders by status", "24 req, 109 ms", {.requests = 24, .median_ms = 109}},
        {"merge-on-read",
         "orders by status",
         "192 req, 239 ms",
         {.requests = 192, .median_ms = 239}},
        {"copy-on-write", "orders by status (after compaction)", "median 112 ms"},
        {"merge-on-read", "orders by status (after compaction)", "median 105 ms"}}},
      {"dimension",
       R"(name: dimension
description: >-
  A 60-column customer dimension, 1M rows written in 8 batches that each cover the whole id range
  (the chapter's third workload), built five ways.
table: bookshop.customers
source: {generator: customers, rows: 1000000, seed: 42, writes: 8}
designs:
  - name: unsorted
    description: 8 writes x 4 tasks, no sort
    tasks_per_write: 4
  - name: sorted per write
    description: sort order id declared, applied within each write task
    sort_by: id
    tasks_per_write: 4
  # The compacted designs write like "unsorted" and then sort-rewrite by id: the rewrite's sort
  # is global, so a per-write sort before it would change nothing but the build time.
  - name: sort-rewritten, 1 file
    description: sort compaction by id into one file
    tasks_per_write: 4
    maintenance:
      - rewrite: sort
        sort_by: id
  # The chapter's middle layout: Spark's rewrite with a 2 MB target wrote 86 files of about 68 KB
  # (Spark's writer cuts far below its target). floe cuts files at their target, so the layout
  # is asked for by the size that gives about as many files here (89 of ~85 KB at scale 1).
  - name: sort-rewritten, 106KB
    description: >-
      sort compaction by id at a 106 KB target: about the chapter's 86 small sorted files, which
      Spark made of a 2 MB target
    tasks_per_write: 4
    maintenance:
      - rewrite: sort
        sort_by: id
        target_file_size: 106KB
  # floe's own design. The lookup wants one row's 60 columns side by side (small row groups);
  # the scans of id, segment and country want those columns in one run (one large row group).
  # Parquet allows both: small row groups, with the three scanned columns' chunks of every row
  # group written together behind them (floe.write.parquet.colocated-columns; any Parquet reader
  # finds chunks by their offsets, so DuckDB, pyarrow and Spark read the file as usual).
  - name: floe
    description: >-
      sort compaction by id into one file of 64 KB row groups, the chunks of id, segment and
      country co-located behind them: a lookup reads its row group's 57 other columns in one
      range and its three co-located chunks in a second; a scan of those three reads one range
    tasks_per_write: 4
    row_group_size: 64KB
    colocated_columns: [id, segment, country]
    maintenance:
      - rewrite: sort
        sort_by: id
questions:
  - name: point lookup by id
    sql: SELECT * FROM {table} WHERE id = {row:0.424242}
    daily: 10000
  - name: two-column filter
    sql: SELECT count(*) FROM {table} WHERE segment = 'vip' AND country = 'DE'
    daily: 100
  - name: three-column projection
    sql: SELECT id, segment, country FROM {table}
    daily: 10
)",
       {{"unsorted",
         "point lookup by id",
         "32 files, 0.4 MB, 82 ms",
         {.files_opened = 32, .bytes = 0.4e6, .median_ms = 82}},
        {"sort-rewritten, 106KB",
         "point lookup by id",
         "1 file, 0.0 MB, 52 ms (86 files)",
         {.files_opened = 1, .median_ms = 52}},
        {"sort-rewritten, 1 file",
         "point lookup by id",
         "1 file (4 req), 1.6 MB, 103 ms",
         {.files_opened = 1, .requests = 4, .bytes = 1.6e6, .median_ms = 103}},
        {"unsorted",
         "two-column filter",
         "48 req, 1.4 MB, 96 ms",
         {.requests = 48, .bytes = 1.4e6, .median_ms = 96}},
        {"sort-rewritten, 106KB",
         "two-column filter",
         "258 req, 7.1 MB, 230 ms",
         {.requests = 258, .bytes = 7.1e6, .median_ms = 230}},
        {"sort-rewritten, 1 file",
         "two-column filter",
         "3 req, 1.8 MB, 71 ms",
         {.requests = 3, .bytes = 1.8e6, .median_ms = 71}},
        {"unsorted",
         "three-column projection",
         "128 req, 0.4 MB",
         {.requests = 128, .bytes = 0.4e6}}}},
      {"clustering",
       R"(name: clustering
description: >-
  Clustering on write (Qbeast's Iceberg experiment, with the read side it leaves out): 10M rows of
  TPC-DS store_sales written eight ways, clustered on item, customer, date and store, at an 8 MB
  target file size; each design built three times, interleaved, for its write time. The questions
  are ranges on the first 1 to 4 clustering columns that each select about 1% of the rows, and a
  1% sample.
table: tpcds.store_sales
source: {generator: store_sales, rows: 10000000, seed: 42, writes: 1}
build_rounds: 3
designs:
  - name: unclustered
    description: one append, rows as they come
    target_file_size: 8MB
  - name: linear sort
    description: sorted by the four columns within the write
    sort_by: ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk
    target_file_size: 8MB
  - name: Z-order
    description: Iceberg's Z-order key, within the write
    target_file_size: 8MB
    properties: {floe.layout: 'zorder(ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk)'}
  - name: Hilbert
    description: a Hilbert curve over quantile ranges, within the write
    target_file_size: 8MB
    properties: {floe.layout: 'hilbert(ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk)'}
  - name: OTree on append
    description: Qbeast's OTree index built as the rows are appended
    target_file_size: 8MB
    properties: {floe.layout: 'otree(ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk)'}
  - name: Z-order rewrite
    description: appended unclustered, then rewritten in Z-order
    target_file_size: 8MB
    maintenance:
      - rewrite: sort
        sort_by: zorder(ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk)
  - name: Hilbert rewrite
    description: appended unclustered, then rewritten along a Hilbert curve
    target_file_size: 8MB
    maintenance:
      - rewrite: sort
        sort_by: hilbert(ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk)
  - name: OTree optimized
    description: an OTree appended, then re-indexed (floe table optimize)
    target_file_size: 8MB
    properties: {floe.layout: 'otree(ss_item_sk, ss_customer_sk, ss_sold_date_sk, ss_store_sk)'}
    maintenance:
      - rewrite: sort
questions:
  - name: 1 column, 1% of rows
    sql: >-
      SELECT count(*), sum(ss_net_paid) FROM {table}
      WHERE ss_item_sk BETWEEN {quantile:ss_item_sk:0.37} AND {quantile:ss_item_sk:0.38}
  - name: 2 columns, 1% of rows
    sql: >-
      SELECT count(*), sum(ss_net_paid) FROM {table}
      WHERE ss_item_sk BETWEEN {quantile:ss_item_sk:0.37} AND {quantile:ss_item_sk:0.47}
      AND ss_customer_sk BETWEEN {quantile:ss_customer_sk:0.37} AND {quantile:ss_customer_sk:0.47}
  - name: 3 columns, 1% of rows
    sql: >-
      SELECT count(*), sum(ss_net_paid) FROM {table}
      WHERE ss_item_sk BETWEEN {quantile:ss_item_sk:0.37} AND {quantile:ss_item_sk:0.5854}
      AND ss_customer_sk BETWEEN {quantile:ss_customer_sk:0.37}
      AND {quantile:ss_customer_sk:0.5854}
      AND ss_sold_date_sk BETWEEN {quantile:ss_sold_date_sk:0.37}
      AND {quantile:ss_sold_date_sk:0.5854}
  - name: 4 columns, about 1% of rows
    sql: >-
      SELECT count(*), sum(ss_net_paid) FROM {table}
      WHERE ss_item_sk BETWEEN {quantile:ss_item_sk:0.37} AND {quantile:ss_item_sk:0.6862}
      AND ss_customer_sk BETWEEN {quantile:ss_customer_sk:0.37}
      AND {quantile:ss_customer_sk:0.6862}
      AND ss_sold_date_sk BETWEEN {quantile:ss_sold_date_sk:0.37}
      AND {quantile:ss_sold_date_sk:0.6862}
      AND ss_store_sk BETWEEN {quantile:ss_store_sk:0.37} AND {quantile:ss_store_sk:0.6862}
  - name: a 1% sample
    sql: SELECT count(*), avg(ss_net_paid) FROM {table} TABLESAMPLE (1 PERCENT)
)",
       {},
       false},
  };
  return sheets;
}

const BuiltinWorksheet* FindBuiltinWorksheet(std::string_view name) {
  for (const auto& sheet : BuiltinWorksheets())
    if (sheet.name == name) return &sheet;
  return nullptr;
}

}  // namespace floe::bench
