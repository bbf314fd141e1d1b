#!/usr/bin/env python3
"""Float predicates in `floe query` against DuckDB: -0.0, NaN, +-inf and NULL.

floe follows DuckDB's SQL semantics (-0.0 equals 0.0; NaN equals NaN and sorts above every
number), and pruning must agree with evaluation: a predicate pushed into the scan (`f > 5`, which
prunes partitions, files by bounds, row groups and pages) must give the answer the same predicate
gives when it is not pushable (`f + 0 > 5`). Tables: one value per file, unpartitioned and
identity-partitioned on the double column; and one file cut into row groups and pages of a row or
two, so Parquet statistics and the page index decide. Each answer is compared with DuckDB's over
the same rows.

Usage: float_differential.py FLOE --workdir DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import duckdb

VALUES = ["-0.0", "0.0", "NaN", "1.0", "-1.0", "inf", "-inf", "", "2.5", "NaN", "0.0"]
CONSTANTS = ["0", "-0.0", "1", "5", "-5", "2.5", "'NaN'", "'inf'", "'-inf'"]
OPS = ["=", "<>", "<", "<=", ">", ">="]


def run(floe, warehouse, *args):
    r = subprocess.run([floe, "--warehouse", warehouse, "--quiet", *args], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: floe {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def predicates():
    out = []
    for op in OPS:
        for c in CONSTANTS:
            out.append(f"{{c}} {op} {c}")
    out += ["{c} IN (0, 1)", "{c} IN ('NaN', -1)", "{c} NOT IN (0, 'NaN')", "{c} BETWEEN -1 AND 1",
            "{c} BETWEEN 1 AND 'NaN'", "{c} IS NULL", "{c} IS NOT NULL", "NOT ({c} > 0)",
            "{c} > 0 OR {c} < -2", "{c} >= 0 AND {c} <= 1"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    wh = os.path.join(args.workdir, "wh")
    schema = json.dumps([{"name": "id", "type": "long"}, {"name": "f", "type": "double"},
                         {"name": "g", "type": "float"}])
    rows = [(i, v) for i, v in enumerate(VALUES)]

    def csv(path, part):
        with open(path, "w") as fh:
            fh.write("id,f,g\n")
            for i, v in part:
                fh.write(f"{i},{v},{v}\n")
        return path

    tables = {}
    for name, extra in [("per_file", []), ("per_file_part", ["--partition-by", "f"])]:
        run(args.floe, wh, "table", "create", f"fd.{name}", "--schema", schema, *extra)
        for i, v in rows:  # one append, so one data file, per value
            run(args.floe, wh, "table", "append", f"fd.{name}",
                csv(os.path.join(args.workdir, f"{name}_{i}.csv"), [(i, v)]))
        tables[name] = len(rows)
    run(args.floe, wh, "table", "create", "fd.pages", "--schema", schema, "--property",
        "write.parquet.row-group-row-limit=2", "--property", "write.parquet.page-row-limit=1")
    run(args.floe, wh, "table", "append", "fd.pages",
        csv(os.path.join(args.workdir, "pages.csv"), rows))
    tables["pages"] = len(rows)

    db = duckdb.connect()
    db.execute("CREATE TABLE t (id BIGINT, f DOUBLE, g REAL)")
    for i, v in rows:
        val = "NULL" if v == "" else f"'{v}'"
        db.execute(f"INSERT INTO t VALUES ({i}, {val}::DOUBLE, {val}::REAL)")

    checked = failures = 0
    statements = []
    for table in tables:
        for p in predicates():
            for col in ["f", "g"]:
                for form in [col, f"{col} + 0"]:  # pushed down, and evaluated only
                    where = p.format(c=form)
                    statements.append((table, where,
                                       f"SELECT count(*), sum(id) FROM fd.{table} WHERE {where}",
                                       f"SELECT count(*), sum(id) FROM t WHERE {where}"))
    script = "".join(s[2] + ";\n" for s in statements)
    r = subprocess.run([args.floe, "--warehouse", wh, "--quiet", "query", "--format", "json"],
                       input=script, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: floe query: {r.stderr.strip()}")
    answers = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    if len(answers) != len(statements):
        sys.exit(f"FAIL: {len(answers)} answers for {len(statements)} statements")
    for (table, where, _, ddb), got in zip(statements, answers):
        want = [list(x) for x in db.execute(ddb).fetchall()]
        have = [[None if v is None else int(v) for v in row] for row in got["rows"]]
        want = [[None if v is None else int(v) for v in row] for row in want]
        checked += 1
        if have != want:
            failures += 1
            print(f"MISMATCH {table}: WHERE {where}: floe {have}, duckdb {want}")
    print(f"{checked} float predicates checked against DuckDB, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
