#!/usr/bin/env python3
"""Merge-on-read read cost on the chapter's orders shape, the table built by Spark.

Spark 4.1 + Iceberg 1.11 (local[2], floe's SQLite catalog through JdbcCatalog) writes
bench.orders: ROWS orders partitioned by bucket(8, order_id), merge-on-read (v2, position deletes
at file granularity, as Spark writes them since Iceberg 1.8), then five MERGEs, each updating
1.2% of the orders (distinct ones, so the deletes hold 6% of the rows: 60,000 positions at 1M
rows, the chapter's count). bench.orders_compacted holds the same rows in 8 files (Spark's CTAS).
Then, for `SELECT sum(amount), count(customer_id), max(ts)` over each:

  1. simulated S3 (floe's --simulate-s3 model, every file in flight at once): data files, delete
     files, requests, bytes and latency (median and spread over interleaved rounds after a warm-up
     run of each) of the merge-on-read table against the compacted one. The requests must be one
     GET per data file, delete file, manifest, manifest list and metadata file, exactly; the
     script fails otherwise.
  2. local files: the cost of applying the deletes -- the merge-on-read snapshot against a snapshot
     of the same data files with the delete files removed (Iceberg's RewriteFiles through the Java
     API), the same rows plus the deleted ones.

Usage: bench/mor/run.py FLOE_BINARY [--rows 1000000] [--rounds 7] [--jars DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "interop"))
import floe_spark  # noqa: E402

QUERY = "SELECT sum(amount), count(customer_id), max(ts) FROM {}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--jars", default=floe_spark.DEFAULT_JARS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")
        os.makedirs(wh)
        spark = floe_spark.session(wh, work, args.jars, "floe-bench-mor")
        sql = spark.sql
        build(spark, args.rows)
        shape = {t: spark_shape(sql, t) for t in ("bench.orders", "bench.orders_compacted")}
        mor_snapshot = sql("SELECT snapshot_id FROM floe.bench.orders.snapshots "
                           "ORDER BY committed_at DESC LIMIT 1").collect()[0][0]
        without_deletes = remove_deletes(spark, "bench.orders")
        spark.stop()

        def run(table, simulate, version=None):
            name = table + (f" FOR VERSION AS OF {version}" if version else "")
            cmd = [args.floe, "--warehouse", wh, "--quiet",
                   "--simulate-s3" if simulate else "--no-simulate-s3",
                   "query", "--format", "json", "--stats", "-e", QUERY.format(name)]
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            return out["rows"], out["stats"]

        print(f"bench/mor: {args.rows} orders, bucket(8, order_id), five MERGEs (Spark 4.1 + "
              f"Iceberg 1.11); {args.rounds} interleaved rounds after a warm-up")
        for t, s in shape.items():
            print(f"  {t}: {s['data_files']} data files ({s['data_bytes'] / 1e6:.1f} MB), "
                  f"{s['delete_files']} delete files holding {s['positions']} positions, "
                  f"{s['manifests']} manifests")

        # 1. Simulated S3: merge-on-read against compacted.
        pair = ["bench.orders", "bench.orders_compacted"]
        at = {"bench.orders": mor_snapshot, "bench.orders_compacted": None}
        answers = {t: run(t, True, at[t])[0] for t in pair}  # warm-up
        if answers[pair[0]] != answers[pair[1]]:
            sys.exit(f"bench/mor: the tables disagree: {answers}")
        ms = {t: [] for t in pair}
        stats = {}
        for r in range(args.rounds):
            for t in (pair if r % 2 == 0 else pair[::-1]):
                _, stats[t] = run(t, True, at[t])
                ms[t].append(stats[t]["wall_ms"])
        failed = False
        for t in pair:
            st, s = stats[t], shape[t]
            gets = s["data_files"] + s["delete_files"] + s["manifests"] + 2
            exact = (st["requests"]["GET"] == gets and st["requests"]["HEAD"] == 0
                     and st["data_files_opened"] == s["data_files"])
            failed |= not exact
            print(f"  simulated S3 {t}: {st['data_files_opened']} data files, "
                  f"{st.get('delete_files_opened', 0)} delete files, {st['requests']['GET']} GETs "
                  f"({'=' if exact else '!='} {s['data_files']} + {s['delete_files']} + "
                  f"{s['manifests']} manifests + list + metadata), "
                  f"{st['bytes_fetched'] / 1e6:.2f} MB, {spread(ms[t])}")
        ratio = statistics.median(ms[pair[0]]) / statistics.median(ms[pair[1]])
        print(f"  latency merge-on-read / compacted: {ratio:.2f}x (target <= 1.2x; the "
              f"chapter's Spark: 2.2x, 239 vs 109 ms)")

        # 2. Local files: the deletes applied against the same data files without them.
        versions = {"with deletes": mor_snapshot, "without": without_deletes}
        for v in versions.values():
            run("bench.orders", False, v)  # warm-up
        local = {k: [] for k in versions}
        for r in range(args.rounds):
            for k in (list(versions) if r % 2 == 0 else list(versions)[::-1]):
                _, st = run("bench.orders", False, versions[k])
                local[k].append(st["wall_ms"])
        for k in versions:
            print(f"  local, {k}: {spread(local[k])}")
        print(f"  applying {shape['bench.orders']['positions']} positions costs "
              f"{statistics.median(local['with deletes']) / statistics.median(local['without']):.2f}x "
              f"the same scan without deletes")
        if failed:
            sys.exit("bench/mor: the requests are not one per file")


def build(spark, rows):
    sql = spark.sql
    mor = ("'format-version'='2', 'write.delete.mode'='merge-on-read', "
           "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read'")
    cols = "order_id bigint, customer_id bigint, status string, amount decimal(10,2), ts timestamp"
    gen = ("SELECT id AS order_id, (id * 7919) % {n} AS customer_id, "
           "element_at(array('new', 'paid', 'shipped', 'returned'), CAST(id % 4 AS INT) + 1) "
           "AS status, CAST((id % 100000) / 100.0 AS decimal(10,2)) AS amount, "
           "timestamp_seconds(1704067200 + id * 30) AS ts FROM range({a}, {b})")
    sql("CREATE NAMESPACE IF NOT EXISTS floe.bench")
    sql(f"CREATE TABLE floe.bench.orders ({cols}) USING iceberg PARTITIONED BY "
        f"(bucket(8, order_id)) TBLPROPERTIES ({mor})")
    sql("INSERT INTO floe.bench.orders " + gen.format(n=rows, a=0, b=rows))
    per_merge = rows * 12 // 1000
    for k in range(5):
        # Orders spread over the whole key range, none updated twice.
        sql(f"MERGE INTO floe.bench.orders t USING (SELECT (id * 83) % {rows} AS order_id "
            f"FROM range({k * per_merge}, {(k + 1) * per_merge})) s ON t.order_id = s.order_id "
            f"WHEN MATCHED THEN UPDATE SET t.status = 'updated', t.amount = t.amount + 1")
    sql("CREATE TABLE floe.bench.orders_compacted USING iceberg PARTITIONED BY "
        "(bucket(8, order_id)) AS SELECT * FROM floe.bench.orders")


def spark_shape(sql, table):
    one = lambda q: sql(q).collect()[0][0] or 0  # noqa: E731
    return {"data_files": one(f"SELECT count(*) FROM floe.{table}.files WHERE content = 0"),
            "data_bytes": one(f"SELECT sum(file_size_in_bytes) FROM floe.{table}.files "
                              "WHERE content = 0"),
            "delete_files": one(f"SELECT count(DISTINCT file_path) FROM floe.{table}.delete_files"),
            "positions": one(f"SELECT sum(record_count) FROM floe.{table}.delete_files"),
            # Manifests listing live files: one that only records removals is not read.
            "manifests": one(f"SELECT count(*) FROM floe.{table}.manifests WHERE "
                             "added_data_files_count + existing_data_files_count + "
                             "added_delete_files_count + existing_delete_files_count > 0")}


def remove_deletes(spark, table):
    """Commits a snapshot of `table` without its delete files (same data files); its id."""
    jvm = spark._jvm
    t = floe_spark.iceberg_catalog(spark).loadTable(
        jvm.org.apache.iceberg.catalog.TableIdentifier.parse(table))
    rewrite = t.newRewrite()
    seen = set()
    tasks = t.newScan().planFiles().iterator()
    while tasks.hasNext():
        deletes = tasks.next().deletes().iterator()
        while deletes.hasNext():
            d = deletes.next()
            if d.location() not in seen:
                seen.add(d.location())
                rewrite.deleteFile(d)
    rewrite.commit()
    t.refresh()
    return t.currentSnapshot().snapshotId()


def spread(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return (f"median {statistics.median(values):.1f} ms (IQR {q[0]:.1f}-{q[2]:.1f}, "
            f"min {min(values):.1f}, max {max(values):.1f})")


if __name__ == "__main__":
    main()
