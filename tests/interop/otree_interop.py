#!/usr/bin/env python3
"""An OTree table (floe.layout = otree(a, s)) stays plain Iceberg (issue 20, point 3):

- floe writes it in two appends and re-indexes it (`floe table optimize`); its files carry their
  cubes in their key-value metadata and the index is a Puffin statistics file of the snapshot;
- pyiceberg, DuckDB (iceberg_scan, in .venv-tpch) and Spark 4.1 + Iceberg 1.11 read every row
  of it, as written, and Spark's own filters answer alike;
- Spark appends to it and expires its snapshots; floe then reads all rows (Spark's files, outside
  the index, are never pruned by it), samples them (about the share asked, Spark's rows among
  them), and appends again under the same revision.

usage: otree_interop.py FLOE_BINARY [--jars DIR]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floe_spark  # noqa: E402

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"otree_interop: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

ap = argparse.ArgumentParser()
ap.add_argument("floe")
ap.add_argument("--jars", default=floe_spark.DEFAULT_JARS)
args = ap.parse_args()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 20000


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def floe(wh, *a):
    r = subprocess.run([args.floe, "--warehouse", wh, "--quiet", *a], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"floe {' '.join(a)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def floe_rows(wh, sql):
    """The rows of a floe query, each a dict by column name."""
    out = json.loads(floe(wh, "query", "--format", "json", "-e", sql))
    return [dict(zip(out["columns"], r)) for r in out["rows"]]


def source(start, n, seed):
    rnd = random.Random(seed)
    return pa.table({
        "v": pa.array(range(start, start + n), pa.int64()),
        "a": pa.array([rnd.randrange(10000) for _ in range(n)], pa.int64()),
        "s": pa.array([f"k{rnd.randrange(500)}" for _ in range(n)], pa.string()),
        "b": pa.array([rnd.random() for _ in range(n)], pa.float64()),
    })


def duckdb_rows(metadata):
    """v of every row DuckDB's iceberg_scan reads, from .venv-tpch's DuckDB and extensions."""
    py = os.path.join(ROOT, ".venv-tpch", "bin", "python")
    code = """
import duckdb, glob, json, os, sys
con = duckdb.connect()
site = os.path.dirname(os.path.dirname(duckdb.__file__))
for ext in ("avro", "iceberg"):
    con.execute("LOAD '%s'" % glob.glob(os.path.join(site, "duckdb_extension_" + ext, "extensions",
                                                     "*", ext + ".duckdb_extension"))[0])
print("@rows " + json.dumps([r[0] for r in con.execute(
    "select v from iceberg_scan('%s') order by v" % sys.argv[1]).fetchall()]))
"""
    r = subprocess.run([py, "-c", code, metadata], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: DuckDB's iceberg_scan: {r.stderr.strip()[-600:]}")
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("@rows ")]
    if len(lines) != 1:
        raise SystemExit(f"FAIL: DuckDB's iceberg_scan printed {r.stdout[:300]!r}")
    return json.loads(lines[0][len("@rows "):])


with tempfile.TemporaryDirectory() as tmp:
    wh = os.path.join(tmp, "wh")
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    first, second = source(0, N // 2, 1), source(N // 2, N // 2, 2)
    pq.write_table(first, os.path.join(tmp, "first.parquet"))
    pq.write_table(second, os.path.join(tmp, "second.parquet"))
    floe(wh, "table", "create", "db.ot", "--like", os.path.join(tmp, "first.parquet"),
         "--property", "floe.layout=otree(a, s)", "--property", "floe.otree.target-rows-per-file=1000")
    floe(wh, "table", "append", "db.ot", os.path.join(tmp, "first.parquet"))
    floe(wh, "table", "append", "db.ot", os.path.join(tmp, "second.parquet"))
    floe(wh, "table", "optimize", "db.ot")
    want = sorted(first.column("v").to_pylist() + second.column("v").to_pylist())

    cat = SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
    t = cat.load_table("db.ot")
    revision = json.loads(t.properties["floe.otree.revision"])
    check(revision["id"] == 2 and [c["name"] for c in revision["columns"]] == ["a", "s"]
          and revision["columns"][1]["transform"] == "hash",
          f"optimize re-indexed under revision 2 of a (linear) and s (hashed): {revision}")
    stats = t.metadata.statistics
    check(any(s.statistics_path.endswith("-floe-otree-index.stats") for s in stats),
          "pyiceberg parses the index's statistics file entry")
    index = [s.statistics_path for s in stats if s.statistics_path.endswith("-floe-otree-index.stats")]
    with open(index[-1].removeprefix("file://"), "rb") as f:
        puffin = f.read()
    check(puffin.startswith(b"PFA1") and b"floe-otree-index-v1" in puffin,
          "the index is a Puffin file whose footer names its blob")
    files = t.inspect.files().to_pylist()
    check(len(files) >= 15, f"{len(files)} data files, a cube or a group of cubes each")
    kv = pq.ParquetFile(files[0]["file_path"].removeprefix("file://")).metadata.metadata
    check(b"floe.otree.cubes" in kv and b"floe.otree.weights" in kv,
          "a data file carries its cubes and weights in its key-value metadata")
    got = sorted(t.scan().to_arrow().column("v").to_pylist())
    check(got == want, f"pyiceberg reads the {len(want)} rows")
    check(duckdb_rows(t.metadata_location.removeprefix("file://")) == want,
          "DuckDB's iceberg_scan reads the same rows")

    spark = floe_spark.session(wh, work, args.jars, "floe-spark-otree")
    try:
        sql = spark.sql
        row = sql("SELECT count(*) AS n, sum(v) AS s FROM floe.db.ot").collect()[0]
        check((row.n, row.s) == (N, sum(want)), "Spark reads every row")
        for cond in ("s = 'k42'", "a BETWEEN 100 AND 400", "a < 500 AND s IN ('k1', 'k2', 'k3')"):
            spark_n = sql(f"SELECT count(*) AS n FROM floe.db.ot WHERE {cond}").collect()[0].n
            ours = floe_rows(wh, f"select count(*) as n from db.ot where {cond}")[0]["n"]
            check(spark_n == ours and spark_n > 0, f"Spark and floe agree on {cond}: {ours} rows")
        sql("INSERT INTO floe.db.ot SELECT id + 100000, id % 10000, concat('k', id % 500), 0.5 "
            "FROM range(5000)")
        sql("CALL floe.system.expire_snapshots(table => 'db.ot', retain_last => 1, "
            "older_than => TIMESTAMP '2999-01-01 00:00:00')")
    finally:
        spark.stop()

    total = floe_rows(wh, "select count(*) as n, sum(v) as s from db.ot")[0]
    check(total == {"n": N + 5000, "s": sum(want) + sum(range(100000, 105000))},
          "floe reads floe's and Spark's rows after Spark's append and expiry")
    k42 = floe_rows(wh, "select count(*) as n from db.ot where s = 'k42'")[0]["n"]
    check(k42 == sum(1 for s in first.column("s").to_pylist() + second.column("s").to_pylist()
                     if s == "k42") + 10, f"an indexed equality still finds every row ({k42})")
    sample = floe_rows(wh, "select count(*) as n, count_if(v >= 100000) as spark "
                           "from db.ot tablesample (10 percent)")[0]
    check(0.07 * (N + 5000) < sample["n"] < 0.13 * (N + 5000) and sample["spark"] > 0,
          f"a 10% sample takes {sample['n']} of {N + 5000} rows, {sample['spark']} of Spark's")
    floe(wh, "table", "append", "db.ot", os.path.join(tmp, "first.parquet"))
    t = cat.load_table("db.ot")
    check(json.loads(t.properties["floe.otree.revision"])["id"] == 2,
          "floe appends again under the same revision")
    check(len(t.scan().to_arrow()) == N + 5000 + N // 2, "pyiceberg reads the final table")
print("otree_interop: all checks passed")
