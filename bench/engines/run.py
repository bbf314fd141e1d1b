#!/usr/bin/env python3
"""The Iceberg thread's benchmark on real engines: a full scan of the same rows in tables of K data
files, read by floe, Spark 4.1 + Iceberg 1.11 (S3FileIO, defaults), pyiceberg 0.12 and DuckDB 1.5.5
(iceberg + httpfs extensions), every request through `floe proxy` with S3's timing (its
--simulate-s3 model: 25 ms median first byte, 90 MB/s per request) in front of the S3 server the
tests use (versitygw, started here).

Rows come from `floe gen events`; floe writes one table per K, partitioned bucket(K, event_ts),
so each has up to K data files (one per non-empty bucket; the count is read from the table). The question is `SELECT count(*), sum(quantity)` (a column must be
read). Every arm runs one warm-up, then ROUNDS rounds with the arms interleaved (order rotating),
each in a window of the proxy's: per data file GETs and HEADs (the thread's "S3 Request Analysis":
requests on data files / (rounds x files)) and the query's wall time, median (min-max). Spark runs
in one long-lived local[2] session and DuckDB in one long-lived process, so start-up is not timed;
floe's time is its statement's wall_ms (process start-up excluded, metadata fetched each round);
pyiceberg's is load_table + scan().to_arrow() in one process; DuckDB's external file cache is off
(it would answer later rounds from memory, with no request).
Prints a table per K and floe's speed-up over each engine.
Usage: bench/engines/run.py FLOE_BINARY [--rows 2000000] [--files 250,500] [--rounds 3]
       [--engines floe,spark,spark-aal,pyiceberg,duckdb] [--aal-cache] [--simulate SPEC]
spark-aal is the same Spark session reading through a second catalog on the same tables with
S3FileIO's `s3.analytics-accelerator.enabled` (AWS's Analytics Accelerator Library, shipped in
iceberg-aws-bundle 1.11).
"""
import argparse
import glob
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
import floe_services  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("floe")
ap.add_argument("--rows", type=int, default=2000000)
ap.add_argument("--files", default="250,500")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--engines", default="floe,spark,spark-aal,pyiceberg,duckdb")
ap.add_argument("--aal-cache", action="store_true",
                help="spark-aal keeps the library's default caches (blocks and object sizes, kept "
                     "in the JVM between scans)")
ap.add_argument("--simulate", default="", help="the proxy's --simulate-s3 settings ('' = defaults)")
args = ap.parse_args()
ENGINES = args.engines.split(",")
SIZES = [int(k) for k in args.files.split(",")]

DUCK_WORKER = r'''
import duckdb, glob, json, os, sys, time
site = os.path.dirname(os.path.dirname(duckdb.__file__))
con = duckdb.connect()
con.execute("SET threads = 2")
# DuckDB keeps remote files in memory across queries; every engine here reads from the store.
con.execute("SET enable_external_file_cache = false")
con.execute("SET enable_progress_bar = false")
for ext in ("avro", "httpfs", "iceberg"):
    con.execute("LOAD '%s'" % glob.glob(os.path.join(site, "duckdb_extension_" + ext, "extensions",
                                                      "*", ext + ".duckdb_extension"))[0])
ep, key, secret, region = sys.argv[1:5]
con.execute(f"CREATE SECRET s (TYPE s3, KEY_ID '{key}', SECRET '{secret}', REGION '{region}', "
            f"ENDPOINT '{ep}', URL_STYLE 'path', USE_SSL false)")
for line in sys.stdin:
    location = line.strip()
    t = time.perf_counter()
    r = con.execute(f"SELECT count(*), sum(quantity) FROM iceberg_scan('{location}')").fetchone()
    print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "rows": r[0], "sum": int(r[1])}),
          flush=True)
'''


# AWS's Analytics Accelerator Library on, its block and object-size caches expiring at once: it
# would otherwise answer a repeated scan from the JVM's memory (as DuckDB's file cache, off too).
AAL = {"s3.analytics-accelerator.enabled": "true",
       **{"s3.analytics-accelerator." + k: "1" for k in (
           "physicalio.cache.timeout", "physicalio.memory.cleanup.frequency",
           "physicalio.metadatastore.ttl")}}


def get_json(url, method="GET"):
    return json.loads(urllib.request.urlopen(urllib.request.Request(url, method=method)).read())


def spread(xs):
    return f"{statistics.median(xs):.0f} ms ({min(xs):.0f}-{max(xs):.0f})"


def main():
    work = tempfile.mkdtemp(prefix="floe-engines-")
    state = os.path.join(work, "s3")
    subprocess.run([os.path.join(ROOT, "scripts", "s3_server.sh"), "start", state], check=True,
                   stdout=subprocess.DEVNULL)
    s3 = dict(l.strip().split("=", 1) for l in open(os.path.join(state, "env")) if "=" in l)
    env = floe_services.aws_env(s3)
    proxy, uri = floe_services.start_proxy(args.floe, s3["FLOE_S3_ENDPOINT"], work, args.simulate)
    spark = duck = None
    try:
        floe_services.create_bucket(uri, s3, "engines")
        catalog = os.path.join(work, "catalog.db")
        base = [args.floe, "--warehouse", "s3://engines/wh", "--catalog", f"sqlite:{catalog}",
                "--s3-endpoint", uri, "--s3-path-style", "--no-simulate-s3", "--quiet"]

        def floe(*a):
            r = subprocess.run(base + list(a), capture_output=True, text=True, env=env)
            if r.returncode != 0:
                raise SystemExit(f"floe {' '.join(a)} failed: {r.stderr.strip()}")
            return r.stdout

        gen = os.path.join(work, "gen")
        subprocess.run([args.floe, "gen", "events", "--rows", str(args.rows), "--files", "1",
                        "--out", gen, "--quiet"], check=True)
        source = glob.glob(os.path.join(gen, "*.parquet"))[0]
        nfiles = {}
        for k in SIZES:
            floe("table", "create", f"db.t{k}", "--like", source, "--partition-by",
                 f"bucket({k}, event_ts)")
            floe("table", "append", f"db.t{k}", source)
            out = floe("query", "--format", "csv", "-e", f"SELECT count(*) FROM db.t{k}.files")
            nfiles[k] = int(out.strip().splitlines()[-1])
            print(f"table db.t{k}: {args.rows} rows in {nfiles[k]} data files (bucket({k}))",
                  flush=True)

        if "spark-aal" in ENGINES:
            # Iceberg's JdbcCatalog keys tables by catalog name: the twin catalog sees the same
            # tables through rows of its own (read-only here; nothing commits through it).
            import sqlite3
            with sqlite3.connect(catalog) as db:
                cols = [r[1] for r in db.execute("PRAGMA table_info(iceberg_tables)")]
                rest = ", ".join(c for c in cols if c != "catalog_name")
                db.execute(f"INSERT INTO iceberg_tables (catalog_name, {rest}) "
                           f"SELECT 'floeaal', {rest} FROM iceberg_tables WHERE catalog_name = 'floe'")
        if "spark" in ENGINES or "spark-aal" in ENGINES:
            import floe_spark
            spark = floe_spark.session("s3://engines/wh", work, name="floe-engines", catalog_db=catalog,
                                       s3={"endpoint": uri, "access_key": s3["FLOE_S3_ACCESS_KEY"],
                                           "secret_key": s3["FLOE_S3_SECRET_KEY"],
                                           "region": s3["FLOE_S3_REGION"]},
                                       twins={"floeaal": {"s3.analytics-accelerator.enabled": "true"}
                                              if args.aal_cache else AAL})
        if "pyiceberg" in ENGINES:
            from pyiceberg.catalog.sql import SqlCatalog
            pycat = SqlCatalog("floe", uri=f"sqlite:///{catalog}", **{
                "s3.endpoint": uri, "s3.access-key-id": s3["FLOE_S3_ACCESS_KEY"],
                "s3.secret-access-key": s3["FLOE_S3_SECRET_KEY"], "s3.region": s3["FLOE_S3_REGION"],
                "s3.force-virtual-addressing": "false"})
        if "duckdb" in ENGINES:
            duck = subprocess.Popen([os.path.join(ROOT, ".venv-tpch", "bin", "python"), "-c",
                                     DUCK_WORKER, uri.replace("http://", ""),
                                     s3["FLOE_S3_ACCESS_KEY"], s3["FLOE_S3_SECRET_KEY"],
                                     s3["FLOE_S3_REGION"]],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def run(engine, k):
            """One query; returns (ms, count, sum)."""
            t = f"db.t{k}"
            if engine == "floe":
                out = json.loads(floe("query", "--stats", "--format", "json", "-e",
                                      f"SELECT count(*), sum(quantity) FROM {t}"))
                return out["stats"]["wall_ms"], out["rows"][0][0], int(out["rows"][0][1])
            if engine in ("spark", "spark-aal"):
                cat = "floe" if engine == "spark" else "floeaal"
                t0 = time.perf_counter()
                r = spark.sql(f"SELECT count(*) c, sum(quantity) s FROM {cat}.{t}").collect()[0]
                return (time.perf_counter() - t0) * 1000, r["c"], int(r["s"])
            if engine == "pyiceberg":
                t0 = time.perf_counter()
                a = pycat.load_table(t).scan(selected_fields=("quantity",)).to_arrow()
                s = a.column("quantity").to_pylist()
                return (time.perf_counter() - t0) * 1000, a.num_rows, sum(x or 0 for x in s)
            location = metadata_location(t)
            duck.stdin.write(location + "\n")
            duck.stdin.flush()
            line = duck.stdout.readline()
            while line and not line.startswith("{"):
                line = duck.stdout.readline()
            if not line:
                raise SystemExit("the DuckDB worker ended")
            r = json.loads(line)
            return r["ms"], r["rows"], r["sum"]

        def metadata_location(t):
            import sqlite3
            ns, name = t.split(".")
            with sqlite3.connect(catalog) as db:
                return db.execute("SELECT metadata_location FROM iceberg_tables WHERE table_namespace=? "
                                  "AND table_name=?", (ns, name)).fetchone()[0]

        results = {}
        for k in SIZES:
            for e in ENGINES:  # warm-up
                run(e, k)
            times = {e: [] for e in ENGINES}
            per_file = {e: [0, 0] for e in ENGINES}
            answers = set()
            for r in range(args.rounds):
                order = ENGINES[r % len(ENGINES):] + ENGINES[:r % len(ENGINES)]
                for e in order:
                    get_json(f"{uri}/_floe/window?name=w", "POST")
                    ms, count, total = run(e, k)
                    seen = get_json(f"{uri}/_floe/stats?window=w&objects=1")
                    for key, c in seen["objects"].items():
                        if key.endswith(".parquet"):
                            per_file[e][0] += c["requests"]["GET"]
                            per_file[e][1] += c["requests"]["HEAD"]
                    times[e].append(ms)
                    answers.add((count, total))
            if len(answers) != 1:
                raise SystemExit(f"engines disagree at {k} files: {answers}")
            results[k] = (times, per_file)
            print(f"\n{nfiles[k]} data files, {args.rows} rows, answer {answers.pop()}")
            print(f"{'engine':<10} {'GET/file':>9} {'HEAD/file':>9}  scan")
            for e in ENGINES:
                n = args.rounds * nfiles[k]
                print(f"{e:<10} {per_file[e][0] / n:>9.2f} {per_file[e][1] / n:>9.2f}  {spread(times[e])}")
            if "floe" in ENGINES:
                for e in ENGINES:
                    if e != "floe":
                        print(f"floe vs {e}: {statistics.median(times[e]) / statistics.median(times['floe']):.1f}x")
    finally:
        if spark is not None:
            spark.stop()
        if duck is not None:
            duck.kill()
        proxy.send_signal(signal.SIGTERM)
        proxy.wait(timeout=30)
        subprocess.run([os.path.join(ROOT, "scripts", "s3_server.sh"), "stop", state],
                       stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
