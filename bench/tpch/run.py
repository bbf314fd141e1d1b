#!/usr/bin/env python3
"""TPC-H's 22 queries at scale factor 1: floe on Iceberg tables it wrote vs DuckDB over the same
Parquet files (the tables' own data files), at 1 thread and at 2.

DuckDB's TPC-H extension (in .venv-tpch) generates the data and the queries, as tests/sql/tpch.py
does; floe loads each table (`floe table create --like`, `floe table append`) and DuckDB reads
the data files of floe's tables through views, so both engines decode the same bytes. Each engine
runs in a long-lived worker process of its own (floe through its Python package, DuckDB through
its own), so process start-up and catalog connection are not timed; a worker of N threads runs
on N cores (its CPU affinity, set before the engine starts: floe's decoding pool is sized by the
cores it may use, and DuckDB's threads by SET threads); each query runs once as a
warm-up on both, then ROUNDS times with the engines interleaved (the first to run alternating).
A query's time is its wall time until the last row is in Python's hands (pyarrow for floe,
fetchall for DuckDB); its memory is the worker's peak RSS during the query (the kernel's
high-water mark, reset before each run through /proc/self/clear_refs).

Prints, for each thread count, every query's medians (min-max), the ratio DuckDB time / floe time
(above 1: floe faster), peak RSS of each, and the geometric mean of the ratios.
Usage: bench/tpch/run.py FLOE_BINARY [--sf 1] [--workdir /tmp/floe-tpch] [--threads 1,2]
       [--rounds 5] [--json FILE] [QUERY ...]
The data and tables are kept in WORKDIR (its data/ and wh/) and reused by a later run of the same
scale factor. Exits non-zero when a query fails on either engine or the two answer with different
numbers of rows (answers themselves are checked by tests/sql/tpch.py).
"""
import argparse
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "sql"))
import tpc  # noqa: E402  (the generator, the table list and the tables' qualification)

WORKER = r'''
import json, os, sys, time
engine, warehouse, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
tables = json.loads(sys.argv[4])
# N threads means N cores for the whole process, before either engine starts: floe decodes a
# scan's files on a pool of its own (one thread per core the process may run on) besides the
# threads that consume the batches, which `SET read.threads` counts.
cpus = sorted(os.sched_getaffinity(0))
if len(cpus) < threads:
    print(f"bench/tpch: {threads} threads asked, {len(cpus)} CPUs here: {engine} runs on "
          f"{len(cpus)}", file=sys.stderr)
os.sched_setaffinity(0, cpus[:threads])

def peak_reset():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

def peak_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0

if engine == "floe":
    import floe, pyarrow
    wh = floe.Warehouse(warehouse)
    wh.sql(f"SET read.threads = {threads}")
    def run(sql):
        return pyarrow.table(wh.sql(sql)).num_rows
else:
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    for t, files in tables.items():
        listed = ", ".join("'" + f + "'" for f in files)
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet([{listed}])")
    def run(sql):
        return len(con.execute(sql).fetchall())

print("ready", flush=True)
for line in sys.stdin:
    sql = json.loads(line)
    peak_reset()
    start = time.perf_counter()
    try:
        rows = run(sql)
        out = {"s": time.perf_counter() - start, "rows": rows, "kib": peak_kib()}
    except Exception as e:  # reported, the run goes on
        out = {"error": str(e).splitlines()[0] if str(e) else type(e).__name__}
    print(json.dumps(out), flush=True)
'''


class Worker:
    def __init__(self, engine, python, env, warehouse, threads, tables):
        self.proc = subprocess.Popen(
            [python, "-c", WORKER, engine, warehouse, str(threads), json.dumps(tables)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        if self.proc.stdout.readline().strip() != "ready":
            sys.exit(f"bench/tpch: the {engine} worker did not start")

    def run(self, sql):
        self.proc.stdin.write(json.dumps(sql) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("bench/tpch: a worker ended")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def prepare(args):
    """Generates the data and loads floe's tables, unless WORKDIR already holds them."""
    stamp = os.path.join(args.workdir, "ready.json")
    if os.path.exists(stamp) and json.load(open(stamp)).get("sf") == args.sf:
        return
    # Only what an earlier run made here is replaced, never the rest of WORKDIR.
    for made in ("data", "wh"):
        shutil.rmtree(os.path.join(args.workdir, made), ignore_errors=True)
    data = os.path.join(args.workdir, "data")
    os.makedirs(data)
    tpc.generate(args.tpch_python, "tpch", args.sf, data)
    env = dict(os.environ, FLOE_WAREHOUSE=os.path.join(args.workdir, "wh"))
    os.makedirs(env["FLOE_WAREHOUSE"])
    for t in tpc.SUITES["tpch"]["tables"]:
        path = os.path.join(data, f"{t}.parquet")
        for step in (["create", f"tpch.{t}", "--like", path], ["append", f"tpch.{t}", path]):
            subprocess.run([args.floe, "--quiet", "table", *step], env=env, check=True,
                           stdout=subprocess.DEVNULL)
    json.dump({"sf": args.sf}, open(stamp, "w"))


def fmt(values):
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--workdir", default="/tmp/floe-tpch")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="also write every measurement to this file")
    ap.add_argument("--tpch-python", default=os.path.join(ROOT, ".venv-tpch", "bin", "python"))
    ap.add_argument("queries", nargs="*", type=int)
    args = ap.parse_intermixed_args()
    args.floe = os.path.abspath(args.floe)
    prepare(args)
    data = os.path.join(args.workdir, "data")
    warehouse = os.path.join(args.workdir, "wh")
    tables = {t: sorted(glob.glob(os.path.join(warehouse, "tpch.db", t, "data", "**", "*.parquet"),
                                  recursive=True)) for t in tpc.SUITES["tpch"]["tables"]}
    python = os.path.join(ROOT, ".venv", "bin", "python")
    env = dict(os.environ)
    package = os.path.join(os.path.dirname(args.floe), "python")
    env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
    numbers = args.queries or list(range(1, 23))
    queries = {}
    for n in numbers:
        sql = open(os.path.join(data, f"q{n:02d}.sql")).read()
        queries[n] = {"floe": tpc.qualify(sql, tpc.SUITES["tpch"]["tables"], "tpch"),
                      "duckdb": sql}
    results = {}
    failures = 0
    for threads in [int(t) for t in args.threads.split(",")]:
        workers = {e: Worker(e, python, env, warehouse, threads, tables) for e in ("floe", "duckdb")}
        print(f"\nTPC-H SF {args.sf:g}, {threads} thread(s): median (min-max) of {args.rounds} "
              f"runs after a warm-up; ratio = DuckDB / floe (above 1: floe faster)")
        print(f"{'query':<6} {'floe s':>22} {'DuckDB s':>22} {'ratio':>7} {'floe MiB':>9} "
              f"{'DuckDB MiB':>10}")
        ratios = []
        for n in numbers:
            times = {"floe": [], "duckdb": []}
            peaks = {"floe": [], "duckdb": []}
            rows = {}
            failed = None
            for rnd in range(args.rounds + 1):
                order = ["floe", "duckdb"] if rnd % 2 == 0 else ["duckdb", "floe"]
                for e in order:
                    out = workers[e].run(queries[n][e])
                    if "error" in out:
                        failed = f"{e}: {out['error']}"
                        break
                    rows[e] = out["rows"]
                    if rnd > 0:  # round 0 is the warm-up
                        times[e].append(out["s"])
                        peaks[e].append(out["kib"] / 1024)
                if failed:
                    break
            if failed:
                print(f"Q{n:02d}    failed ({failed})")
                results.setdefault(threads, {})[n] = {"error": failed}
                failures += 1
                continue
            if rows["floe"] != rows["duckdb"]:
                failed = f"floe gave {rows['floe']} rows, DuckDB {rows['duckdb']}"
                print(f"Q{n:02d}    failed ({failed})")
                results.setdefault(threads, {})[n] = {"error": failed}
                failures += 1
                continue
            ratio = statistics.median(times["duckdb"]) / statistics.median(times["floe"])
            ratios.append(ratio)
            print(f"Q{n:02d}    {fmt(times['floe']):>22} {fmt(times['duckdb']):>22} {ratio:>6.2f}x "
                  f"{max(peaks['floe']):>9.0f} {max(peaks['duckdb']):>10.0f}", flush=True)
            results.setdefault(threads, {})[n] = {"times": times, "peak_mib": peaks,
                                                  "ratio": ratio}
        for w in workers.values():
            w.close()
        if ratios:
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"geometric mean of the ratios at {threads} thread(s): {geo:.2f}x "
                  f"(slowest query {min(ratios):.2f}x)")
    if args.json:
        json.dump(results, open(args.json, "w"), indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
