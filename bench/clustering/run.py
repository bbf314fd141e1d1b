#!/usr/bin/env python3
"""Clustering on the write path -- the write-time half of Qbeast's Iceberg post, on floe, with the
read side the post leaves out; and floe's Z-order rewrite against Spark's on the same rows.

`floe gen store_sales --rows N` (TPC-DS store_sales' shape) is written, in one warehouse, as:
  unclustered   table create + append (the baseline every ratio is against)
  sort          a linear sort order on the clustering columns (write.sort-order), appended
  zorder        floe.layout = zorder(cols), appended
  hilbert       floe.layout = hilbert(cols), appended
  otree         floe.layout = otree(cols): the OTree index built on append (Qbeast's "OTree on
                append"), cube size from the target file size
  rewrite-z     an unclustered table rewritten: floe table rewrite --strategy zorder --rewrite-all
  rewrite-h     the same, --strategy hilbert
  otree-opt     an OTree table appended, then re-indexed: floe table optimize (timed alone)
Each arm runs once to warm up, then ROUNDS rounds with the arms interleaved (the order rotating);
a round's time is the `floe` process's wall time (start-up, reading the input, clustering,
encoding, writing, the commit). Printed: each arm's median (min-max) and its ratio to the
unclustered write's median.

Read side: for each layout, range queries on the first 1, 2, 3 and 4 clustering columns, each
column's range cut so that the query selects about 1% of the rows; printed are the data files
each opens (of the table's files; the ideal is 1% of them, at least 1) and bytes fetched; and a
1% sample (TABLESAMPLE (1 PERCENT)): files and bytes each layout reads for it.

With --spark: Spark 4.1 + Iceberg 1.11 local[2] (one long-lived session, its start not timed)
rewrites a copy of the same rows with `rewrite_data_files(strategy => 'sort', sort_order =>
'zorder(cols)')`, interleaved with floe's `floe table rewrite --strategy zorder` of its copy, both
rewrite-all at the same target file size; printed: both medians and floe's speed-up.

Usage: bench/clustering/run.py FLOE_BINARY [--rows 4000000] [--rounds 5] [--columns A,B]
       [--target-file-size BYTES] [--spark] [--spark-rounds 3] [--jars DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "interop"))

DEFAULT_COLUMNS = "ss_item_sk,ss_customer_sk,ss_sold_date_sk,ss_store_sk"


def spread(xs):
    return f"{statistics.median(xs):7.0f} ms ({min(xs):.0f}-{max(xs):.0f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--columns", default="ss_item_sk,ss_customer_sk",
                    help="clustering columns (default ss_item_sk,ss_customer_sk)")
    ap.add_argument("--target-file-size", type=int, default=4 << 20)
    ap.add_argument("--spark", action="store_true")
    ap.add_argument("--spark-rounds", type=int, default=3)
    ap.add_argument("--jars", default=None)
    args = ap.parse_args()
    cols = args.columns.split(",")
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")

        def floe(*a):
            r = subprocess.run([args.floe, "--warehouse", wh, "--quiet", "--no-simulate-s3", *a],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"floe {' '.join(a)[:300]} failed: {r.stderr.strip()}")
            return r.stdout

        def timed(*a):
            start = time.perf_counter()
            floe(*a)
            return (time.perf_counter() - start) * 1000

        gen = os.path.join(work, "gen")
        floe("gen", "store_sales", "--rows", str(args.rows), "--out", gen)
        src = os.path.join(gen, sorted(os.listdir(gen))[0])
        target = ["--property", f"write.target-file-size-bytes={args.target_file_size}"]
        layouts = {
            "unclustered": [],
            "sort": ["--sort-by", ", ".join(cols)],
            "zorder": ["--property", f"floe.layout=zorder({', '.join(cols)})"],
            "hilbert": ["--property", f"floe.layout=hilbert({', '.join(cols)})"],
            "otree": ["--property", f"floe.layout=otree({', '.join(cols)})"],
        }
        counter = [0]

        def fresh(layout):
            counter[0] += 1
            name = f"b.{layout.replace('-', '_')}_{counter[0]}"
            floe("table", "create", name, "--like", src, *target, *layouts[layout])
            return name

        def write_arm(layout):
            name = fresh(layout)
            return timed("table", "append", name, src), name

        def rewrite_arm(strategy):
            name = fresh("unclustered")
            floe("table", "append", name, src)
            return timed("table", "rewrite", name, "--strategy", strategy, "--columns",
                         ",".join(cols), "--rewrite-all",
                         "--target-file-size", str(args.target_file_size)), name

        def optimize_arm():
            name = fresh("otree")
            floe("table", "append", name, src)
            return timed("table", "optimize", name), name

        arms = {
            "unclustered": lambda: write_arm("unclustered"),
            "sort": lambda: write_arm("sort"),
            "zorder": lambda: write_arm("zorder"),
            "hilbert": lambda: write_arm("hilbert"),
            "otree": lambda: write_arm("otree"),
            "rewrite-z": lambda: rewrite_arm("zorder"),
            "rewrite-h": lambda: rewrite_arm("hilbert"),
            "otree-opt": optimize_arm,
        }
        names = list(arms)
        ms = {a: [] for a in names}
        tables = {}
        for r in range(args.rounds + 1):
            for a in names[r % len(names):] + names[:r % len(names)]:
                t, name = arms[a]()
                if a in tables:  # keep the warehouse small: the last table of each arm
                    floe("table", "drop", tables[a], "--purge")
                tables[a] = name
                if r > 0:
                    ms[a].append(t)
        base = statistics.median(ms["unclustered"])
        print(f"bench/clustering: store_sales, {args.rows} rows, clustering columns {', '.join(cols)}, "
              f"target file size {args.target_file_size} B; {args.rounds} interleaved rounds "
              f"after a warm-up; local files, whole-process wall time")
        for a in names:
            print(f"  {a:12}: {spread(ms[a])}  {statistics.median(ms[a]) / base:5.2f}x unclustered")

        # The read side: range queries selecting about 1% of the rows.
        def quantiles(col, lo, hi):
            q = json.loads(floe("query", "--format", "json", "-e",
                                f"SELECT quantile_cont({col}, {lo}), quantile_cont({col}, {hi}) "
                                f"FROM {tables['unclustered']}"))["rows"][0]
            return int(float(q[0])), int(float(q[1]))

        def opened(a, sql):
            out = json.loads(floe("query", "--format", "json", "--stats", "-e", sql))
            files = json.loads(floe("query", "--format", "json", "-e",
                                    f"SELECT count(*) FROM {tables[a]}.files"))["rows"][0][0]
            return out, files

        print("  reads: data files opened / bytes fetched, for range queries selecting ~1% of rows")
        for k in range(1, min(4, len(cols)) + 1):
            frac = 0.01 ** (1.0 / k)  # each of k columns keeps this share: about 1% in all
            conds = []
            for c in cols[:k]:
                lo, hi = quantiles(c, 0.37, 0.37 + frac)
                conds.append(f"{c} BETWEEN {lo} AND {hi}")
            where = " AND ".join(conds)
            line = []
            for a in names:
                out, files = opened(a, f"SELECT count(*) FROM {tables[a]} WHERE {where}")
                st = out["stats"]
                line.append(f"{a} {st['data_files_opened']}/{files} "
                            f"({st['bytes_fetched'] / 1e6:.1f} MB)")
                rows = out["rows"][0][0]
            print(f"    {k} column{'s' if k > 1 else ' '} ({rows} rows): " + ", ".join(line))
        line = []
        for a in names:
            out, files = opened(a, f"SELECT count(*) FROM {tables[a]} TABLESAMPLE (1 PERCENT)")
            st = out["stats"]
            line.append(f"{a} {st['data_files_opened']}/{files} {out['rows'][0][0]} rows "
                        f"({st['bytes_fetched'] / 1e6:.1f} MB)")
        print("    a 1% sample: " + ", ".join(line))

        if args.spark:
            import floe_spark  # noqa: E402
            jars = args.jars or floe_spark.DEFAULT_JARS
            fl = fresh("unclustered")
            floe("table", "append", fl, src)
            spark = floe_spark.session(wh, work, jars, "floe-bench-clustering")
            sql = spark.sql
            sql("CREATE NAMESPACE IF NOT EXISTS floe.sp")
            spark.read.parquet(src).createOrReplaceTempView("src")
            sql(f"CREATE TABLE floe.sp.ss USING iceberg TBLPROPERTIES "
                f"('write.target-file-size-bytes'='{args.target_file_size}') AS SELECT * FROM src")
            zo = f"zorder({', '.join(cols)})"

            def spark_rewrite():
                start = time.perf_counter()
                sql(f"CALL floe.system.rewrite_data_files(table => 'sp.ss', strategy => 'sort', "
                    f"sort_order => '{zo}', options => map('rewrite-all', 'true', "
                    f"'target-file-size-bytes', '{args.target_file_size}'))")
                return (time.perf_counter() - start) * 1000

            def floe_rewrite():
                return timed("table", "rewrite", fl, "--strategy", "zorder", "--columns",
                             ",".join(cols), "--rewrite-all",
                             "--target-file-size", str(args.target_file_size))

            sp, fz = [], []
            for r in range(args.spark_rounds + 1):
                pair = [(spark_rewrite, sp), (floe_rewrite, fz)]
                for fn, out in (pair if r % 2 == 0 else pair[::-1]):
                    time.sleep(1.0)  # the JVM's left-over work is not billed to the next arm
                    t = fn()
                    if r > 0:
                        out.append(t)
            spark.stop()
            print(f"  Z-order rewrite of the same {args.rows} rows ({args.spark_rounds} interleaved "
                  f"rounds after a warm-up): Spark 4.1 local[2] {spread(sp)}, floe {spread(fz)}: "
                  f"floe {statistics.median(sp) / statistics.median(fz):.1f}x faster "
                  f"(target >= 5x)")


if __name__ == "__main__":
    main()
