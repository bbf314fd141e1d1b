#!/usr/bin/env python3
"""The chapter's questions: floe against DuckDB over the same Parquet files, and floe on simulated S3.

1. `floe demo --rounds 1 --warmup 0` builds the chapter's tables (events A and B; the dimension
   unsorted, sort-rewritten into one file, and floe's design) in a fresh local warehouse.
2. Local files, floe vs DuckDB: one long-lived `floe query` process, fed statements over a pipe,
   and one long-lived DuckDB connection over `read_parquet([...the table's data files...])`. Each
   round runs every question in both, each question twice in a row; the second run is timed (both
   warm: floe's footer and metadata caches, DuckDB's object cache), inside the engine (floe's
   reported wall_ms; DuckDB's execute + fetchall), so process start-up is excluded. Both use all cores (DuckDB's default threads; floe's default).
   Protocol: --warmup rounds, then --rounds rounds, the engines' order alternating; median and
   min-max per question; ratio DuckDB median / floe median (> 1: floe faster). Answers are checked
   equal.
3. SimulatedStore: one `floe query --simulate-s3` process per question, cold then warm, printing
   requests, bytes and latency of each.

usage: run.py [--floe build/release/floe] [--scale 1] [--rounds 7] [--warmup 2] [--dir DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import duckdb

QUESTIONS = [
    ("events", ["a", "b"], "one day's revenue",
     "SELECT sum(amount) FROM {table} WHERE event_ts >= TIMESTAMP '2024-01-05 00:00:00' "
     "AND event_ts < TIMESTAMP '2024-01-06 00:00:00'"),
    ("events", ["a", "b"], "one customer's events",
     "SELECT count(*), sum(amount), sum(quantity), count(DISTINCT product_id) FROM {table} "
     "WHERE customer_id = 123"),
    ("customers", ["unsorted", "sort_rewritten_1_file", "floe"], "point lookup by id",
     "SELECT * FROM {table} WHERE id = {lookup}"),
    ("customers", ["unsorted", "sort_rewritten_1_file", "floe"], "two-column filter",
     "SELECT count(*) FROM {table} WHERE segment = 'vip' AND country = 'DE'"),
    ("customers", ["unsorted", "sort_rewritten_1_file", "floe"], "three-column aggregate",
     "SELECT segment, country, count(*), min(id) FROM {table} GROUP BY segment, country "
     "ORDER BY 3 DESC LIMIT 5"),
]


def floe_json(floe, args, sql_lines):
    """Runs statements in one floe process; one parsed JSON object per statement."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(";\n".join(sql_lines) + ";\n")
        path = f.name
    try:
        out = subprocess.run([floe, "query", "--format", "json", "--stats", "-f", path] + args,
                             capture_output=True, text=True)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        sys.exit(f"run.py: floe query failed: {out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


class FloeSession:
    """One long-lived `floe query` process fed statements over a pipe, as DuckDB's connection is
    one long-lived connection: each statement's JSON line is read back as it finishes."""

    def __init__(self, floe, args):
        self.proc = subprocess.Popen([floe, "query", "--format", "json", "--stats"] + args,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, sql_lines):
        out = []
        for sql in sql_lines:
            self.proc.stdin.write(sql + ";\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            if not line.startswith("{"):
                sys.exit(f"run.py: floe query failed on: {sql}")
            out.append(json.loads(line))
        return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def fmt(xs):
    return f"{statistics.median(xs):7.1f} ms ({min(xs):.1f}-{max(xs):.1f})"


def norm(rows):
    """Answers compared loosely: numbers rounded, everything as text."""
    out = []
    for row in rows:
        cells = []
        for v in row:
            if isinstance(v, float):
                v = round(v, 2)
            cells.append(str(v))
        out.append(cells)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--floe", default=os.path.join(here, "..", "..", "build", "release", "floe"))
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--dir", default=None, help="reuse or keep the demo folder here")
    args = ap.parse_args()
    d = args.dir or tempfile.mkdtemp(prefix="floe-bench-query-")
    w = os.path.join(d, "warehouse")
    if not os.path.isdir(w):
        t0 = time.time()
        out = subprocess.run([args.floe, "demo", "--out", d, "--scale", str(args.scale), "--rounds", "1",
                              "--warmup", "0", "--quiet"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"run.py: floe demo failed: {out.stderr.strip()}")
        print(f"built the chapter's tables at scale {args.scale} in {time.time() - t0:.0f} s ({w})")
    wh = ["--warehouse", w]
    lookup = int(0.424242 * 1_000_000 * args.scale)

    cases = []  # (label, floe sql, duckdb sql)
    for ns_table, designs, name, sql in QUESTIONS:
        for design in designs:
            table = f"bookshop.{ns_table}_{design}"
            files = [r[0] for r in floe_json(args.floe, wh, [f"SELECT file_path FROM {table}.files"])[0]["rows"]]
            files = [f[len("file://"):] if f.startswith("file://") else f for f in files]
            scan = "read_parquet([" + ", ".join(f"'{f}'" for f in files) + "])"
            q = sql.replace("{lookup}", str(lookup))
            cases.append((f"{name} / {design}", q.replace("{table}", table), q.replace("{table}", scan)))

    session = FloeSession(args.floe, wh)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    floe_ms = {c[0]: [] for c in cases}
    duck_ms = {c[0]: [] for c in cases}
    stats = {}
    for r in range(args.warmup + args.rounds):
        def run_floe():
            got = session.run([s for c in cases for s in (c[1], c[1])])
            for i, c in enumerate(cases):
                warm = got[2 * i + 1]
                if r >= args.warmup:
                    floe_ms[c[0]].append(warm["stats"]["wall_ms"])
                stats[c[0]] = (warm["rows"], warm["stats"])

        def run_duck():
            for c in cases:
                con.execute(c[2]).fetchall()
                t0 = time.perf_counter()
                rows = con.execute(c[2]).fetchall()
                ms = (time.perf_counter() - t0) * 1000
                if r >= args.warmup:
                    duck_ms[c[0]].append(ms)
                if c[0] in stats and r == args.warmup + args.rounds - 1:
                    f_rows = norm(stats[c[0]][0])
                    d_rows = norm([list(x) for x in rows])
                    if len(f_rows) != len(d_rows) or (len(f_rows) == 1 and f_rows[0][0] != d_rows[0][0]):
                        print(f"  answers differ for {c[0]}: floe {f_rows[:2]} duckdb {d_rows[:2]}")

        for fn in ((run_floe, run_duck) if r % 2 == 0 else (run_duck, run_floe)):
            fn()

    session.close()
    print(f"\nlocal files, warm, {args.rounds} rounds after {args.warmup} warm-up "
          f"(floe {subprocess.run([args.floe, '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"duckdb {duckdb.__version__}):")
    print(f"{'question / design':48} {'floe':>24} {'duckdb':>24} {'duckdb/floe':>11}")
    ratios = []
    for c in cases:
        f, dk = floe_ms[c[0]], duck_ms[c[0]]
        ratio = statistics.median(dk) / statistics.median(f)
        ratios.append(ratio)
        print(f"{c[0]:48} {fmt(f):>24} {fmt(dk):>24} {ratio:10.2f}x")
    geo = 1.0
    for x in ratios:
        geo *= x
    geo **= 1 / len(ratios)
    print(f"geometric mean of the ratios: {geo:.2f}x (> 1: floe faster than DuckDB)")

    print("\nsimulated S3 (floe's defaults), one process per question: cold run, then warm run")
    print(f"{'question / design':48} {'files':>5} {'cold req':>8} {'cold bytes':>11} {'cold ms':>8} "
          f"{'warm req':>8} {'warm bytes':>11} {'warm ms':>8}")
    for c in cases:
        cold, warm = floe_json(args.floe, wh + ["--simulate-s3"], [c[1], c[1]])
        cs, ws = cold["stats"], warm["stats"]
        creq = sum(cs["requests"].values())
        wreq = sum(ws["requests"].values())
        print(f"{c[0]:48} {ws['data_files_opened']:5} {creq:8} {cs['bytes_fetched']:11,} {cs['wall_ms']:8.1f} "
              f"{wreq:8} {ws['bytes_fetched']:11,} {ws['wall_ms']:8.1f}")


if __name__ == "__main__":
    main()
