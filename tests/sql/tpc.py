#!/usr/bin/env python3
"""A TPC benchmark's queries on Iceberg tables floe writes, answered as DuckDB answers them.

DuckDB's TPC-H or TPC-DS extension (in .venv-tpch: they are published for DuckDB releases up to
1.5) generates the data at scale factor --sf as Parquet files and gives the queries; floe loads each
table (`floe table create --like`, `floe table append`) into the namespace named after the suite
and runs every query (its tables qualified with that namespace); the main environment's DuckDB runs
the same queries over the same Parquet files. Rows are compared in order when the query has ORDER
BY, as multisets otherwise; decimals exactly where floe keeps them decimal, floats (and decimal
arithmetic floe does in doubles) to 1e-9 relative. tests/sql/tpch.py and tpcds.py run it.
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

# Each suite: the extension, its generator and query table functions, and its tables.
SUITES = {
    "tpch": {
        "generator": "dbgen",
        "tables": ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region",
                   "supplier"],
    },
    "tpcds": {
        "generator": "dsdgen",
        "tables": ["call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer",
                   "customer_address", "customer_demographics", "date_dim",
                   "household_demographics", "income_band", "inventory", "item", "promotion",
                   "reason", "ship_mode", "store", "store_returns", "store_sales", "time_dim",
                   "warehouse", "web_page", "web_returns", "web_sales", "web_site"],
    },
}

# Run by the extension's Python: SUITE SF OUT writes OUT/TABLE.parquet and OUT/qNN.sql.
GENERATE = r"""
import duckdb, glob, importlib, os, sys
suite, sf, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
generator = {"tpch": "dbgen", "tpcds": "dsdgen"}[suite]
package = importlib.import_module(f"duckdb_extension_{suite}")
ext = glob.glob(os.path.join(os.path.dirname(package.__file__), "extensions", "*",
                             f"{suite}.duckdb_extension"))[0]
c = duckdb.connect()
c.execute(f"LOAD '{ext}'")
c.execute(f"CALL {generator}(sf={sf})")
for (t,) in c.execute("SHOW TABLES").fetchall():
    c.execute(f"COPY {t} TO '{out}/{t}.parquet' (FORMAT parquet)")
for n, q in c.execute(f"SELECT query_nr, query FROM {suite}_queries()").fetchall():
    open(f"{out}/q{n:02d}.sql", "w").write(q)
"""

_TOKEN = re.compile(r"""\s+|--[^\n]*|'(?:[^']|'')*'|"[^"]*"|[A-Za-z_][A-Za-z0-9_]*|.""", re.S)
_CLAUSE_ENDS = {"where", "group", "order", "having", "limit", "union", "intersect", "except",
                "window", "qualify", "select"}


def qualify(sql, tables, namespace):
    """`sql` with each base table named in a FROM list or after JOIN written NAMESPACE.TABLE.

    Only table positions are touched: TPC-DS also has columns named like tables (q31's
    store_sales, q49's item)."""
    tables = set(tables)
    out = []
    # Per parenthesis depth: [in a FROM list, a table name may come next].
    frames = [[False, False]]
    tokens = [m.group(0) for m in _TOKEN.finditer(sql)]
    for i, tok in enumerate(tokens):
        low = tok.lower()
        frame = frames[-1]
        if tok.isspace() or tok.startswith("--"):
            out.append(tok)
            continue
        if tok == "(":
            frame[1] = False
            frames.append([False, False])
        elif tok == ")":
            if len(frames) > 1:
                frames.pop()
        elif low in ("from", "join"):
            frame[0], frame[1] = True, True
        elif tok == "," and frame[0]:
            frame[1] = True
        elif low in _CLAUSE_ENDS:
            frame[0] = frame[1] = False
        elif frame[1]:
            frame[1] = False
            rest = "".join(tokens[i + 1:i + 3]).lstrip()
            if low in tables and not rest.startswith("."):
                tok = f"{namespace}.{tok}"
        out.append(tok)
    return "".join(out)


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


def generate(python, suite, sf, out):
    """The suite's Parquet tables and queries at scale factor `sf`, written to `out`."""
    os.makedirs(out, exist_ok=True)
    subprocess.run([python, "-c", GENERATE, suite, str(sf), out], check=True)


def main(suite):
    import duckdb

    tables = SUITES[suite]["tables"]
    ap = argparse.ArgumentParser(description=f"{suite}'s queries on floe, checked against DuckDB")
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--sf", type=float, default=0.1)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--tpc-python", default=os.path.join(root, ".venv-tpch", "bin", "python"),
                    help="a Python with DuckDB's TPC extensions")
    ap.add_argument("--set", action="append", default=[],
                    help="NAME=VALUE for every query (memory_limit=2MB: the answers when spilled)")
    ap.add_argument("--keep", action="store_true",
                    help="reuse the workdir's tables when it has them (to rerun queries)")
    ap.add_argument("queries", nargs="*", type=int)
    args = ap.parse_intermixed_args()
    data = os.path.join(args.workdir, "data")
    env = dict(os.environ, FLOE_WAREHOUSE=os.path.join(args.workdir, "wh"))
    loaded = os.path.join(args.workdir, "loaded")
    reuse = args.keep and os.path.exists(loaded)
    if not reuse:
        shutil.rmtree(args.workdir, ignore_errors=True)
        generate(args.tpc_python, suite, args.sf, data)
        os.makedirs(env["FLOE_WAREHOUSE"])

    def floe(*a, check=True):
        return subprocess.run([args.floe, "--quiet", *a], env=env, capture_output=True, text=True,
                              check=check)

    con = duckdb.connect()
    for t in tables:
        path = os.path.join(data, f"{t}.parquet")
        if not reuse:
            floe("table", "create", f"{suite}.{t}", "--like", path)
            floe("table", "append", f"{suite}.{t}", path)
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{path}')")
    open(loaded, "w").close()
    failures = 0
    numbers = args.queries or sorted(int(f[1:3]) for f in os.listdir(data) if re.match(r"q\d+\.sql$", f))
    for n in numbers:
        sql = open(os.path.join(data, f"q{n:02d}.sql")).read()
        floe_sql = qualify(sql, tables, suite)
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
    print(f"{len(numbers) - failures}/{len(numbers)} {suite.upper()} queries agree with DuckDB "
          f"(scale factor {args.sf})")
    return 1 if failures else 0
