#!/usr/bin/env python3
"""`floe gen store_sales` against TPC-DS's own generator: DuckDB's tpcds extension (dsdgen).

For each scale factor, dsdgen's store_sales and floe's of the same row count are set side by side,
column by column, and must agree on what a layout's measurements depend on: the columns in order
and their types (integer keys, decimal(7,2) money), each column's NULL share, range and number of
distinct values, the money columns' means, and the tickets (8 to 16 line items sharing a customer,
each a different item). Printed: the table of both; the exit status says whether every figure
agreed within its tolerance.

Run by ctest with .venv-tpch's Python (the tpcds extension is published for DuckDB up to 1.5).
Usage: store_sales_tpcds.py FLOE --workdir DIR [--sf 0.1 1]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

import duckdb
import duckdb_extension_tpcds

# Each figure's tolerance, relative to dsdgen's value (absolute for shares).
NULL_SHARE = 0.005  # 4.5% +- 0.5 points
RANGE = 0.12  # min and max of a key, of its max (store keys are sparse: half the stores appear)
DISTINCT = 0.12
MEAN = 0.05


def dsdgen(sf, out):
    ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_tpcds.__file__), "extensions",
                                 "*", "tpcds.duckdb_extension"))[0]
    c = duckdb.connect()
    c.execute(f"LOAD '{ext}'")
    c.execute(f"CALL dsdgen(sf={sf})")
    c.execute(f"COPY store_sales TO '{out}' (FORMAT parquet)")
    return c.execute("SELECT count(*) FROM store_sales").fetchone()[0]


def profile(c, source):
    cols = c.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
    out = {"columns": [(name, typ) for name, typ, *_ in cols]}
    for name, typ, *_ in cols:
        mean = "avg(" + name + ")" if typ.startswith("DECIMAL") else "NULL"
        out[name] = c.execute(
            f"SELECT avg(({name} IS NULL)::INT), min({name}), max({name}), "
            f"count(DISTINCT {name}), {mean} FROM {source}").fetchone()
    out["tickets"] = c.execute(
        f"SELECT avg(n), min(n), max(n), max(customers), max(n - items) FROM ("
        f"SELECT count(*) n, count(DISTINCT ss_customer_sk) customers, "
        f"count(DISTINCT ss_item_sk) items FROM {source} GROUP BY ss_ticket_number "
        f"HAVING ss_ticket_number < (SELECT max(ss_ticket_number) FROM {source}))").fetchone()
    return out


def integer(typ):
    return typ in ("INTEGER", "BIGINT")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--sf", type=float, nargs="+", default=[0.1, 1])
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    failures = []

    def check(what, ok, got, want):
        mark = "ok" if ok else "DIFFERS"
        print(f"    {what:42} floe {got!s:>22}  dsdgen {want!s:>22}  {mark}")
        if not ok:
            failures.append(what)

    def near(got, want, tol):
        got, want = float(got), float(want)
        return abs(got - want) <= tol * max(abs(want), 1.0)

    for sf in args.sf:
        ref = os.path.join(args.workdir, f"dsdgen-{sf}.parquet")
        rows = dsdgen(sf, ref)
        gen = os.path.join(args.workdir, f"floe-{sf}")
        r = subprocess.run([args.floe, "gen", "store_sales", "--rows", str(rows), "--out", gen],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"floe gen store_sales --rows {rows} failed: {r.stderr.strip()}")
        c = duckdb.connect()
        want = profile(c, f"read_parquet('{ref}')")
        got = profile(c, f"read_parquet('{gen}/*.parquet')")
        print(f"scale factor {sf}: {rows} rows")
        check("columns", [n for n, _ in got["columns"]] == [n for n, _ in want["columns"]],
              len(got["columns"]), len(want["columns"]))
        for (name, gt), (_, wt) in zip(got["columns"], want["columns"]):
            check(f"{name} type", gt == wt or (integer(gt) and integer(wt)), gt, wt)
            g, w = got[name], want[name]
            check(f"{name} NULL share", abs(g[0] - w[0]) <= NULL_SHARE, f"{g[0]:.4f}",
                  f"{w[0]:.4f}")
            if integer(wt):
                check(f"{name} min", abs(g[1] - w[1]) <= RANGE * w[2], g[1], w[1])
                check(f"{name} max", near(g[2], w[2], RANGE), g[2], w[2])
                check(f"{name} distinct", near(g[3], w[3], DISTINCT), g[3], w[3])
            else:
                check(f"{name} mean", near(g[4], w[4], MEAN), f"{g[4]:.2f}", f"{w[4]:.2f}")
        g, w = got["tickets"], want["tickets"]
        check("lines per ticket (mean)", near(g[0], w[0], 0.02), f"{g[0]:.2f}", f"{w[0]:.2f}")
        check("lines per ticket (min, max)", (g[1], g[2]) == (w[1], w[2]), (g[1], g[2]),
              (w[1], w[2]))
        check("customers per ticket (max)", g[3] == w[3], g[3], w[3])
        check("repeated items per ticket (max)", g[4] == w[4], g[4], w[4])
    if failures:
        sys.exit(f"floe's store_sales differs from dsdgen's in {len(failures)} figures: "
                 + ", ".join(failures))
    print("floe's store_sales agrees with dsdgen's")


if __name__ == "__main__":
    main()
