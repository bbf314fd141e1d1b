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

The seed's sweeps (--sweeps, comma separated, or all), each with the same interleaved protocol:
  rows-per-file  OTree on append at floe.otree.target-rows-per-file 50K, 100K, 500K, 1M, 5M
  columns        OTree on append over 1 to 8 columns (the four above, then ss_cdemo_sk,
                 ss_hdemo_sk, ss_addr_sk, ss_promo_sk)
  growth         unclustered and OTree writes of ROWS/4, ROWS and 4 x ROWS (data growing 4x and
                 16x): throughput in rows/s
  threads        unclustered and OTree writes on one core (taskset -c 0: floe sizes its pools by
                 the CPUs it may run on) and on two: throughput and the two-core speed-up
With --out DIR: report.md there, with an SVG chart per section (write time by technique, by rows
per file, by columns; throughput by size and by cores), median bars with min-max whiskers.

With --spark: Spark 4.1 + Iceberg 1.11 local[2] (one long-lived session, its start not timed)
rewrites a copy of the same rows with `rewrite_data_files(strategy => 'sort', sort_order =>
'zorder(cols)')`, interleaved with floe's `floe table rewrite --strategy zorder` of its copy, both
rewrite-all at the same target file size; printed: both medians and floe's speed-up.

Usage: bench/clustering/run.py FLOE_BINARY [--rows 4000000] [--rounds 5] [--columns A,B]
       [--target-file-size BYTES] [--sweeps all|rows-per-file,columns,growth,threads]
       [--out DIR] [--spark] [--spark-rounds 3] [--jars DIR]
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
EIGHT_COLUMNS = DEFAULT_COLUMNS.split(",") + ["ss_cdemo_sk", "ss_hdemo_sk", "ss_addr_sk",
                                              "ss_promo_sk"]
SWEEPS = ["rows-per-file", "columns", "growth", "threads"]


def spread(xs):
    return f"{statistics.median(xs):7.0f} ms ({min(xs):.0f}-{max(xs):.0f})"


def interleaved(arms, rounds, drop):
    """Runs each arm once to warm up, then `rounds` rounds with the arms' order rotating; an arm
    returns (ms, table). Keeps each arm's last table (drop() removes the one before)."""
    names = list(arms)
    ms = {a: [] for a in names}
    tables = {}
    for r in range(rounds + 1):
        for a in names[r % len(names):] + names[:r % len(names)]:
            t, name = arms[a]()
            if a in tables:
                drop(tables[a])
            tables[a] = name
            if r > 0:
                ms[a].append(t)
    return ms, tables


def esc(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def bar_chart(title, unit, rows, note=""):
    """A horizontal bar chart as SVG: rows of (label, [values]) drawn as the median with a min-max
    whisker, an axis with ticks below, the label left of each bar and its median right of it."""
    label_w = 8 + 7 * max(len(label) for label, _ in rows)
    plot_w, row_h, top = 420, 26, 34
    top_value = max(max(v) for _, v in rows) * 1.1
    height = top + row_h * len(rows) + 44
    width = label_w + plot_w + 110
    x = lambda v: label_w + plot_w * v / top_value  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="8" y="18" font-weight="bold">{esc(title)}</text>']
    for i, (label, values) in enumerate(rows):
        y = top + i * row_h
        med = statistics.median(values)
        out.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end">{esc(label)}</text>')
        out.append(f'<rect x="{label_w}" y="{y + 4}" width="{x(med) - label_w:.1f}" height="16" '
                   f'fill="#4a7fb0"/>')
        if len(values) > 1:
            out.append(f'<line x1="{x(min(values)):.1f}" x2="{x(max(values)):.1f}" y1="{y + 12}" '
                       f'y2="{y + 12}" stroke="#222"/>')
        out.append(f'<text x="{max(x(max(values)), x(med)) + 6:.1f}" y="{y + 15}">'
                   f'{med:,.0f}</text>')
    axis_y = top + row_h * len(rows) + 4
    out.append(f'<line x1="{label_w}" x2="{label_w + plot_w}" y1="{axis_y}" y2="{axis_y}" '
               f'stroke="#999"/>')
    for k in range(5):
        v = top_value * k / 4
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{axis_y}" y2="{axis_y + 4}" '
                   f'stroke="#999"/>')
        out.append(f'<text x="{x(v):.1f}" y="{axis_y + 16}" text-anchor="middle">{v:,.0f}</text>')
    out.append(f'<text x="{label_w + plot_w / 2}" y="{axis_y + 32}" text-anchor="middle">'
               f'{esc(unit)}{esc(note)}</text>')
    out.append("</svg>\n")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--columns", default="ss_item_sk,ss_customer_sk",
                    help="clustering columns (default ss_item_sk,ss_customer_sk)")
    ap.add_argument("--target-file-size", type=int, default=4 << 20)
    ap.add_argument("--sweeps", default="",
                    help="comma separated: " + ", ".join(SWEEPS) + " (or all)")
    ap.add_argument("--out", default=None, help="write report.md and SVG charts here")
    ap.add_argument("--spark", action="store_true")
    ap.add_argument("--spark-rounds", type=int, default=3)
    ap.add_argument("--jars", default=None)
    args = ap.parse_args()
    cols = args.columns.split(",")
    sweeps = SWEEPS if args.sweeps == "all" else [x for x in args.sweeps.split(",") if x]
    for x in sweeps:
        if x not in SWEEPS:
            sys.exit(f"--sweeps: '{x}' is not one of {', '.join(SWEEPS)} (or all)")
    report = [f"# Clustering on write: store_sales, {args.rows:,} rows\n"]
    charts = {}
    lines = []

    def say(line):  # printed, and kept for the report
        print(line, flush=True)
        lines.append(line)

    def chart(name, title, unit, rows, note=""):
        charts[name] = bar_chart(title, unit, rows, note)
        report.append(f"![{title}]({name}.svg)\n")
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")

        def floe(*a, cores=None):
            pin = ["taskset", "-c", cores] if cores else []
            r = subprocess.run([*pin, args.floe, "--warehouse", wh, "--quiet", "--no-simulate-s3",
                                *a], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"floe {' '.join(a)[:300]} failed: {r.stderr.strip()}")
            return r.stdout

        def timed(*a, cores=None):
            start = time.perf_counter()
            floe(*a, cores=cores)
            return (time.perf_counter() - start) * 1000

        def generate(rows):
            gen = os.path.join(work, f"gen-{rows}")
            if not os.path.isdir(gen):
                floe("gen", "store_sales", "--rows", str(rows), "--out", gen)
            return os.path.join(gen, sorted(os.listdir(gen))[0])

        src = generate(args.rows)
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

        def drop(table):  # keep the warehouse small: the last table of each arm
            floe("table", "drop", table, "--purge")

        ms, tables = interleaved(arms, args.rounds, drop)
        base = statistics.median(ms["unclustered"])
        say(f"bench/clustering: store_sales, {args.rows} rows, clustering columns {', '.join(cols)}, "
              f"target file size {args.target_file_size} B; {args.rounds} interleaved rounds "
              f"after a warm-up; local files, whole-process wall time")
        for a in names:
            say(f"  {a:12}: {spread(ms[a])}  {statistics.median(ms[a]) / base:5.2f}x unclustered")
        chart("write-time", "Write time by technique", "ms (median, min-max)",
              [(a, ms[a]) for a in names], f"; {args.rows:,} rows, {', '.join(cols)}")

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

        say("  reads: data files opened / bytes fetched, for range queries selecting ~1% of rows")
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
            say(f"    {k} column{'s' if k > 1 else ' '} ({rows} rows): " + ", ".join(line))
        line = []
        for a in names:
            out, files = opened(a, f"SELECT count(*) FROM {tables[a]} TABLESAMPLE (1 PERCENT)")
            st = out["stats"]
            line.append(f"{a} {st['data_files_opened']}/{files} {out['rows'][0][0]} rows "
                        f"({st['bytes_fetched'] / 1e6:.1f} MB)")
        say("    a 1% sample: " + ", ".join(line))

        def otree_table(columns, extra=()):
            counter[0] += 1
            name = f"b.sweep_{counter[0]}"
            floe("table", "create", name, "--like", src, *target, "--property",
                 f"floe.layout=otree({', '.join(columns)})", *extra)
            return name

        def otree_append(columns, extra=()):
            name = otree_table(columns, extra)
            return timed("table", "append", name, src), name

        def files_of(table):
            return json.loads(floe("query", "--format", "json", "-e",
                                   f"SELECT count(*) FROM {table}.files"))["rows"][0][0]

        if "rows-per-file" in sweeps:
            sizes = [50_000, 100_000, 500_000, 1_000_000, 5_000_000]
            arms = {f"{n // 1000}K": (lambda n=n: otree_append(
                cols, ["--property", f"floe.otree.target-rows-per-file={n}"])) for n in sizes}
            sw, st = interleaved(arms, args.rounds, drop)
            say(f"  OTree on append by rows per file (cube size; {', '.join(cols)}):")
            for a in arms:
                say(f"    {a:>6} rows/file: {spread(sw[a])}  "
                      f"{statistics.median(sw[a]) / base:5.2f}x unclustered, "
                      f"{files_of(st[a])} files")
            chart("rows-per-file", "OTree on append by rows per file", "ms (median, min-max)",
                  [(f"{a} rows/file", sw[a]) for a in arms])

        if "columns" in sweeps:
            arms = {k: (lambda k=k: otree_append(EIGHT_COLUMNS[:k])) for k in range(1, 9)}
            sw, _ = interleaved(arms, args.rounds, drop)
            one = statistics.median(sw[1])
            say("  OTree on append by clustering columns:")
            for k in arms:
                say(f"    {k} column{'s' if k > 1 else ' '}: {spread(sw[k])}  "
                      f"{statistics.median(sw[k]) / one:5.2f}x one column, "
                      f"{statistics.median(sw[k]) / base:5.2f}x unclustered")
            chart("columns", "OTree on append by clustering columns", "ms (median, min-max)",
                  [(f"{k} column{'s' if k > 1 else ''}", sw[k]) for k in arms])

        def layout_append(layout, rows, cores=None):
            source = generate(rows)
            counter[0] += 1
            name = f"b.{layout}_{counter[0]}"
            floe("table", "create", name, "--like", source, *target, *layouts[layout])
            return timed("table", "append", name, source, cores=cores), name

        if "growth" in sweeps:
            sizes = [args.rows // 4, args.rows, args.rows * 4]
            arms = {(lay, n): (lambda lay=lay, n=n: layout_append(lay, n))
                    for n in sizes for lay in ("unclustered", "otree")}
            sw, _ = interleaved(arms, args.rounds, drop)
            say("  throughput as the data grows 4x and 16x (rows/s, median):")
            bars = []
            for lay, n in arms:
                rate = [n / (t / 1000) for t in sw[(lay, n)]]
                first = statistics.median(sizes[0] / (t / 1000) for t in sw[(lay, sizes[0])])
                say(f"    {lay:11} {n:>10,} rows: {statistics.median(rate):12,.0f} rows/s "
                      f"({min(rate):,.0f}-{max(rate):,.0f}), "
                      f"{statistics.median(rate) / first:4.2f}x the smallest")
                bars.append((f"{lay} {n / 1e6:g}M", rate))
            chart("growth", "Throughput by size", "rows/s (median, min-max)", bars)

        if "threads" in sweeps:
            arms = {(lay, c): (lambda lay=lay, c=c: layout_append(lay, args.rows, c))
                    for lay in ("unclustered", "otree") for c in ("0", None)}
            sw, _ = interleaved(arms, args.rounds, drop)
            say("  one core (taskset -c 0) against two:")
            bars = []
            for lay in ("unclustered", "otree"):
                one = [args.rows / (t / 1000) for t in sw[(lay, "0")]]
                two = [args.rows / (t / 1000) for t in sw[(lay, None)]]
                say(f"    {lay:11}: 1 core {statistics.median(one):12,.0f} rows/s, 2 cores "
                      f"{statistics.median(two):12,.0f} rows/s: "
                      f"{statistics.median(two) / statistics.median(one):4.2f}x (target >= 1.8x)")
                bars += [(f"{lay}, 1 core", one), (f"{lay}, 2 cores", two)]
            chart("threads", "Throughput by cores", "rows/s (median, min-max)", bars)

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

            # The JVM keeps working after a job returns (JIT compilation, GC, cleaning up
            # shuffle files) on the same two cores: each arm starts once it has been idle for a
            # second (under 5% of a core), so that work is not billed to floe's arm after it.
            jvm = spark.sparkContext._gateway.proc.pid  # the JVM pyspark launched

            def jvm_cpu():
                with open(f"/proc/{jvm}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

            def quiesce():
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    before = jvm_cpu()
                    time.sleep(1.0)
                    if jvm_cpu() - before < 0.05:
                        return

            sp, fz = [], []
            for r in range(args.spark_rounds + 1):
                pair = [(spark_rewrite, sp), (floe_rewrite, fz)]
                for fn, out in (pair if r % 2 == 0 else pair[::-1]):
                    quiesce()
                    t = fn()
                    if r > 0:
                        out.append(t)
            spark.stop()
            say(f"  Z-order rewrite of the same {args.rows} rows ({args.spark_rounds} interleaved "
                  f"rounds after a warm-up): Spark 4.1 local[2] {spread(sp)}, floe {spread(fz)}: "
                  f"floe {statistics.median(sp) / statistics.median(fz):.1f}x faster "
                  f"(target >= 5x)")

        if args.out:
            os.makedirs(args.out, exist_ok=True)
            for name, svg in charts.items():
                with open(os.path.join(args.out, f"{name}.svg"), "w") as f:
                    f.write(svg)
            with open(os.path.join(args.out, "report.md"), "w") as f:
                f.write("\n".join(report[:1] + ["```"] + lines + ["```", ""] + report[1:]) + "\n")
            say(f"  report: {os.path.join(args.out, 'report.md')}")


if __name__ == "__main__":
    main()
