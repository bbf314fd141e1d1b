#!/usr/bin/env python3
"""DuckDB's Iceberg writer and floe on one REST catalog: deletion vectors both ways (run by ctest
with .venv-tpch, whose DuckDB 1.5.5 has the iceberg, avro and httpfs extensions from PyPI).

DuckDB's iceberg extension writes only through a catalog service, so this is where floe meets its
v3 tables: DuckDB creates a format-version 3 table in Iceberg's reference REST catalog (started by
ctest, scripts/rest_catalog.sh), inserts, DELETEs (a deletion vector in a Puffin file) and UPDATEs
(a vector and new rows); floe reads it row for row. Then floe deletes from DuckDB's table in
merge-on-read (its vector merged with DuckDB's, the old one removed) and updates it copy-on-write,
and DuckDB reads floe's result; and DuckDB reads a v3 table floe wrote and deleted from. Expected rows come from this
script's own model of the changes, never from either engine.
"""
import glob
import os
import random
import subprocess
import sys
import tempfile

from floe_cli import FLOE, check
from floe_services import rest_uri

try:
    import duckdb
except ImportError as e:  # fail, never skip, when the peer is missing
    print(f"duckdb_rest: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)


def connect(uri):
    con = duckdb.connect()
    site = os.path.dirname(os.path.dirname(duckdb.__file__))
    for ext in ("avro", "httpfs", "iceberg"):
        found = glob.glob(os.path.join(site, f"duckdb_extension_{ext}", "extensions", "*",
                                       f"{ext}.duckdb_extension"))
        if not found:
            raise SystemExit(f"duckdb_rest: no {ext} extension under {site}; run scripts/setup.sh")
        con.execute(f"LOAD '{found[0]}'")
    con.execute(f"ATTACH '' AS r (TYPE iceberg, ENDPOINT '{uri}', AUTHORIZATION_TYPE 'none')")
    return con


class Floe:
    def __init__(self, uri, warehouse):
        self.base = [FLOE, "--catalog", f"rest:{uri}", "--warehouse", warehouse, "--quiet"]

    def run(self, *args):
        r = subprocess.run(self.base + list(args), capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"floe {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
        return r.stdout

    def rows(self, table):
        out = self.run("query", "--format", "csv", "-e", f"SELECT id, s FROM {table} ORDER BY id")
        return [(int(a), b) for a, b in (l.split(",", 1) for l in out.strip().splitlines()[1:])]


def duck_rows(con, table):
    return [tuple(r) for r in con.execute(f"SELECT id, s FROM r.{table} ORDER BY id").fetchall()]


def main():
    uri = rest_uri()
    ns = f"dk{random.getrandbits(40):010x}"
    con = connect(uri)
    with tempfile.TemporaryDirectory() as work:
        f = Floe(uri, os.path.join(work, "wh"))
        con.execute(f"CREATE SCHEMA r.{ns}")

        # DuckDB's table: insert, delete, update.
        t = f"{ns}.duck"
        con.execute(f"CREATE TABLE r.{t} (id BIGINT, s VARCHAR) WITH ('format-version' = '3', "
                    "'write.delete.mode' = 'merge-on-read')")
        con.execute(f"INSERT INTO r.{t} SELECT i, 'v' || i FROM range(2000) r(i)")
        model = {i: f"v{i}" for i in range(2000)}
        con.execute(f"DELETE FROM r.{t} WHERE id % 3 = 0")
        model = {i: s for i, s in model.items() if i % 3 != 0}
        con.execute(f"UPDATE r.{t} SET s = 'u' || id WHERE id < 200")
        model.update({i: f"u{i}" for i in model if i < 200})
        expected = sorted(model.items())
        files = f.run("table", "files", t)
        check("deletion vector" in files, "DuckDB wrote deletion vectors (floe lists them)")
        check(f.rows(t) == expected, "floe reads DuckDB's v3 table (deletes, update) row for row")

        # floe deletes from DuckDB's table: its vectors merged with DuckDB's.
        # (Rows of one data file: DuckDB 1.5.5 applies the first vector of a Puffin file that
        # holds several -- as floe's and Iceberg Java's commits write them -- to every data file
        # that file serves; pyiceberg reads such files right, tests/interop/rest_catalog.py.)
        f.run("query", "-e", f"DELETE FROM {t} WHERE id % 5 = 0 AND id >= 200")
        model = {i: s for i, s in model.items() if i % 5 != 0 or i < 200}
        expected = sorted(model.items())
        check(f.rows(t) == expected, "floe reads its own DELETE on DuckDB's table")
        check(duck_rows(con, t) == expected, "DuckDB reads floe's DELETE on its table")
        targets = [l.rsplit(" of ", 1)[1] for l in f.run("table", "files", t).splitlines()
                   if "deletion vector" in l]
        check(len(targets) == len(set(targets)) > 0,
              f"floe merged its vector with DuckDB's: one per data file ({targets})")
        con.execute(f"DELETE FROM r.{t} WHERE id % 7 = 0")
        model = {i: s for i, s in model.items() if i % 7 != 0}
        expected = sorted(model.items())
        check(f.rows(t) == expected, "floe reads DuckDB's DELETE after its own")
        # A copy-on-write UPDATE by floe rewrites the file with every vector applied.
        f.run("query", "-e", f"UPDATE {t} SET s = 'x' || CAST(id AS VARCHAR) WHERE id > 1900")
        model.update({i: f"x{i}" for i in model if i > 1900})
        expected = sorted(model.items())
        check(duck_rows(con, t) == expected and f.rows(t) == expected,
              "floe's copy-on-write UPDATE on DuckDB's table, read by both")

        # floe's v3 table with deletion vectors, read by DuckDB.
        u = f"{ns}.floe"
        f.run("table", "create", u, "--format-version", "3", "--schema",
              '[{"name":"id","type":"long","required":true},{"name":"s","type":"string"}]',
              "--property", "write.delete.mode=merge-on-read")
        csv = os.path.join(work, "u.csv")
        with open(csv, "w") as out:
            out.write("id,s\n")
            for i in range(3000):
                out.write(f"{i},w{i}\n")
        f.run("table", "append", u, csv)
        f.run("query", "-e", f"DELETE FROM {u} WHERE id % 4 = 1")
        files = f.run("table", "files", u)
        check("deletion vector" in files, "floe wrote a deletion vector")
        expected = [(i, f"w{i}") for i in range(3000) if i % 4 != 1]
        check(duck_rows(con, u) == expected, "DuckDB reads floe's v3 table with its vector")
    print("duckdb_rest: all checks passed")


if __name__ == "__main__":
    main()
