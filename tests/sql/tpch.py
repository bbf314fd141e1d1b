#!/usr/bin/env python3
"""TPC-H's 22 queries on Iceberg tables floe writes, answered as DuckDB answers them.

DuckDB's TPC-H extension (in .venv-tpch: it is published for DuckDB releases up to 1.5) generates
the data at scale factor --sf as Parquet files and gives the 22 queries; floe loads each table
(`floe table create --like`, `floe table append`) and runs every query (its table names qualified
with the namespace `tpch`); the main environment's DuckDB runs the same queries over the same
Parquet files. Rows are compared in order when the query has ORDER BY, as multisets otherwise;
decimals exactly where floe keeps them decimal, floats (and decimal arithmetic, which floe does in
doubles) to 1e-9 relative.

Usage: tpch.py FLOE --workdir DIR [--sf 0.1] [--tpch-python PATH] [QUERY ...]
"""
import argparse
import datetime
import decimal
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import duckdb

TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]

GENERATE = r"""
import duckdb, glob, os, sys
import duckdb_extension_tpch
sf, out = float(sys.argv[1]), sys.argv[2]
ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_tpch.__file__), "extensions", "*",
                             "tpch.duckdb_extension"))[0]
c = duckdb.connect()
c.execute(f"LOAD '{ext}'")
c.execute(f"CALL dbgen(sf={sf})")
for (t,) in c.execute("SHOW TABLES").fetchall():
    c.execute(f"COPY {t} TO '{out}/{t}.parquet' (FORMAT parquet)")
for n, q in c.execute("SELECT query_nr, query FROM tpch_queries()").fetchall():
    open(f"{out}/q{n:02d}.sql", "w").write(q)
"""


def value(v):
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


def same(got, want):
    """floe's JSON value against DuckDB's Python value."""
    if isinstance(want, decimal.Decimal):
        if isinstance(got, str):  # a decimal floe kept exact
            return decimal.Decimal(got) == want
        want = float(want)
    if isinstance(want, float) or isinstance(got, float):
        if got is None or want is None or isinstance(got, str):
            return got is want
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
    return got == want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--sf", type=float, default=0.1)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--tpch-python", default=os.path.join(root, ".venv-tpch", "bin", "python"))
    ap.add_argument("--set", action="append", default=[],
                    help="NAME=VALUE for every query (memory_limit=2MB: the answers when spilled)")
    ap.add_argument("queries", nargs="*", type=int)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    data = os.path.join(args.workdir, "data")
    os.makedirs(data)
    subprocess.run([args.tpch_python, "-c", GENERATE, str(args.sf), data], check=True)
    env = dict(os.environ, FLOE_WAREHOUSE=os.path.join(args.workdir, "wh"))
    os.makedirs(env["FLOE_WAREHOUSE"])

    def floe(*a, check=True):
        return subprocess.run([args.floe, "--quiet", *a], env=env, capture_output=True, text=True,
                              check=check)

    con = duckdb.connect()
    for t in TABLES:
        path = os.path.join(data, f"{t}.parquet")
        floe("table", "create", f"tpch.{t}", "--like", path)
        floe("table", "append", f"tpch.{t}", path)
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{path}')")
    failures = 0
    numbers = args.queries or range(1, 23)
    for n in numbers:
        sql = open(os.path.join(data, f"q{n:02d}.sql")).read()
        # Table names in FROM lists and after JOIN get the namespace.
        floe_sql = re.sub(r"(\b(?:FROM|JOIN)\s+|,\s*\n\s*)(" + "|".join(TABLES) + r")\b(?!\.)",
                          r"\1tpch.\2", sql)
        start = time.monotonic()
        settings = [x for s in args.set for x in ("--set", s)]
        out = floe("query", "--format", "json", "--stats", *settings, "-e", floe_sql, check=False)
        took = time.monotonic() - start
        want = [[value(v) for v in row] for row in con.execute(sql).fetchall()]
        if out.returncode != 0:
            failures += 1
            print(f"Q{n:02d} FAIL (floe error) {out.stderr.strip()}", file=sys.stderr)
            continue
        answer = json.loads(out.stdout)
        got = answer["rows"]
        spilled = answer.get("stats", {}).get("spilled_bytes", 0)
        if "order by" not in sql.lower():
            got = sorted(got, key=lambda r: json.dumps(r, default=str))
            want = sorted(want, key=lambda r: json.dumps(r, default=str))
        ok = len(got) == len(want) and all(
            len(g) == len(w) and all(same(x, y) for x, y in zip(g, w)) for g, w in zip(got, want))
        if not ok:
            failures += 1
            print(f"Q{n:02d} FAIL\n  floe:   {got[:3]} ({len(got)} rows)\n  duckdb: {want[:3]} "
                  f"({len(want)} rows)", file=sys.stderr)
        else:
            spill = f", spilled {spilled} bytes" if spilled else ""
            print(f"Q{n:02d} ok ({len(got)} rows, {took:.2f} s with floe's start{spill})")
    print(f"{len(numbers) - failures}/{len(numbers)} TPC-H queries agree with DuckDB "
          f"(scale factor {args.sf})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
