#!/usr/bin/env python3
"""`floe bench --engines spark,duckdb,pyiceberg`: each worksheet question asked on floe and on the
engines users run, against the same tables on the S3 server (run by ctest with the project's
.venv; FLOE_S3_ENV names the server's env file). floe starts its counting proxy in front of the
server itself.

Checked, from the JSON and the report floe writes:
- every engine answers every question on every design, and its answer is the one pyarrow computes
  from the table's rows (read whole by pyiceberg, filtered by pyarrow);
- the data files Spark and pyiceberg read are exactly the files Iceberg's planning keeps for the
  question's filter (pyiceberg's plan_files, asked here), DuckDB's at least those and at most all;
  floe's own at most those, with no HEAD;
- requests are the proxy's, by kind: each engine's GETs at least one per file it read;
- design C is built by Spark (`built_by: spark`: CREATE TABLE ... PARTITIONED BY, WRITE ORDERED
  BY, an INSERT per write, through the proxy) and read by every engine like floe's designs;
- the report has the engines' table; bad --engines input is a one-line error with exit 2 and no
  table created.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

from floe_cli import FLOE, check
from floe_services import aws_env, create_bucket, s3_env

try:
    import pyarrow.compute as pc
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.expressions import And, EqualTo, GreaterThanOrEqual, LessThan
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"bench_engines: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

SHEET = """name: engines
table: b.ev
source: {generator: events, rows: 20000, seed: 3, writes: 4}
designs:
  - name: A
  - name: B
    partition_by: day(event_ts)
    sort_by: customer_id
  - name: C
    built_by: spark
    partition_by: day(event_ts)
    sort_by: customer_id
questions:
  - name: customer
    sql: SELECT count(*) FROM {table} WHERE customer_id = 7
    daily: 10
  - name: day
    sql: >-
      SELECT sum(quantity) FROM {table} WHERE event_ts >= TIMESTAMP '2024-01-03 00:00:00'
      AND event_ts < TIMESTAMP '2024-01-04 00:00:00'
    daily: 5
"""
DAY = (datetime.datetime(2024, 1, 3, tzinfo=datetime.timezone.utc),
       datetime.datetime(2024, 1, 4, tzinfo=datetime.timezone.utc))
ENGINES = ["floe", "spark", "spark-aal", "duckdb", "pyiceberg"]


def main():
    s3 = s3_env()
    env = aws_env(s3)
    bucket = f"floe-engines-{os.getpid()}"
    with tempfile.TemporaryDirectory() as work:
        create_bucket(s3["FLOE_S3_ENDPOINT"], s3, bucket)
        catalog = os.path.join(work, "catalog.db")
        sheet = os.path.join(work, "engines.yaml")
        with open(sheet, "w") as f:
            f.write(SHEET)
        base = [FLOE, "--catalog", f"sqlite:{catalog}", "--s3-endpoint", s3["FLOE_S3_ENDPOINT"],
                "--s3-path-style", "--quiet", "bench", sheet]

        # Bad input first: nothing may be built.
        r = subprocess.run(base + ["--engines", "spark"], capture_output=True, text=True, env=env)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--tables-at s3://" in r.stderr,
              f"--engines without an S3 warehouse exits 2 with one line ({r.stderr.strip()})")
        r = subprocess.run(base + ["--tables-at", f"s3://{bucket}/wh", "--engines", "spark,trino"],
                           capture_output=True, text=True, env=env)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "'trino'" in r.stderr,
              f"an unknown engine exits 2 naming it ({r.stderr.strip()})")
        check(not os.path.exists(catalog), "and neither built a table")
        # An engine whose process cannot run: a one-line error naming it, exit 1, no crash. (Design
        # C is built by Spark, so Spark's worker is the first to start, and to end.)
        r = subprocess.run(base + ["--tables-at", f"s3://{bucket}/dead", "--engines", "duckdb"],
                           capture_output=True, text=True, env=dict(env, FLOE_PEER_PYTHON="/bin/false"))
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and "spark worker ended" in r.stderr,
              f"an engine that dies is a one-line error ({r.returncode}: {r.stderr.strip()})")

        out_json = os.path.join(work, "engines.json")
        report = os.path.join(work, "report")
        r = subprocess.run(base + ["--tables-at", f"s3://{bucket}/wh", "--engines",
                                   "spark,spark-aal,duckdb,pyiceberg", "--rounds", "2", "--warmup", "1",
                                   "--json", out_json, "--out", report],
                           capture_output=True, text=True, env=env)
        check(r.returncode == 0, f"floe bench --engines runs ({r.stderr.strip()[-500:]})")
        print(r.stdout)
        doc = json.load(open(out_json))
        rows = doc["engines"]
        check(len(rows) == len(ENGINES) * 3 * 2,
              f"one row per engine x design x question ({len(rows)})")
        errors = [(x["engine"], x["design"], x["question"], x["error"]) for x in rows if "error" in x]
        check(not errors, f"every engine answers every question ({errors})")
        check(all("differs_from_floe" not in x for x in rows), "and agrees with floe")

        cat = SqlCatalog("floe", uri=f"sqlite:///{catalog}", **{
            "s3.endpoint": s3["FLOE_S3_ENDPOINT"], "s3.access-key-id": s3["FLOE_S3_ACCESS_KEY"],
            "s3.secret-access-key": s3["FLOE_S3_SECRET_KEY"], "s3.region": s3["FLOE_S3_REGION"],
            "s3.force-virtual-addressing": "false"})
        filters = {"customer": EqualTo("customer_id", 7),
                   "day": And(GreaterThanOrEqual("event_ts", DAY[0].isoformat()),
                              LessThan("event_ts", DAY[1].isoformat()))}
        for design in ("A", "B", "C"):
            table = cat.load_table(f"b.ev_{design.lower()}")
            everything = table.scan().to_arrow()
            total_files = len(list(table.scan().plan_files()))
            ts = everything.column("event_ts")
            want = {
                "customer": str(pc.sum(pc.equal(everything.column("customer_id"), 7)).as_py()),
                "day": str(pc.sum(pc.filter(everything.column("quantity"),
                                            pc.and_(pc.greater_equal(ts, DAY[0]),
                                                    pc.less(ts, DAY[1])))).as_py()),
            }
            for question, expr in filters.items():
                planned = len(list(table.scan(row_filter=expr).plan_files()))
                got = {x["engine"]: x for x in rows
                       if x["design"] == design and x["question"] == question}
                where = f"design {design}, question {question}"
                for e in ENGINES:
                    check(got[e]["rows"] == 1 and got[e]["first_value"] == want[question],
                          f"{e} answers {want[question]} on {where} ({got[e]['first_value']})")
                    gets = got[e]["requests"]["GET"]
                    check(gets >= got[e]["data_files_opened"],
                          f"{e}: {gets} GETs for {got[e]['data_files_opened']} files on {where}")
                for e in ("spark", "spark-aal", "pyiceberg"):
                    check(got[e]["data_files_opened"] == planned,
                          f"{e} reads the {planned} files Iceberg plans on {where} "
                          f"({got[e]['data_files_opened']})")
                duck = got["duckdb"]["data_files_opened"]
                check(planned <= duck <= total_files,
                      f"DuckDB reads between {planned} and {total_files} files on {where} ({duck})")
                check(got["floe"]["data_files_opened"] <= planned
                      and got["floe"]["requests"]["HEAD"] == 0,
                      f"floe reads at most those, with no HEAD, on {where} "
                      f"({got['floe']['data_files_opened']}, {got['floe']['requests']})")
            if design != "A":
                day = {x["engine"]: x["data_files_opened"] for x in rows
                       if x["design"] == design and x["question"] == "day"}
                check(all(n < total_files for n in day.values()),
                      f"every engine prunes {design}'s day partitions for one day ({day} of "
                      f"{total_files})")
            snaps = table.metadata.snapshots
            by_spark = sum(1 for x in snaps if x.summary is not None and x.summary["spark.app.id"])
            check(by_spark == (len(snaps) if design == "C" else 0),
                  f"design {design} written by {'Spark' if design == 'C' else 'floe'} "
                  f"({by_spark} of {len(snaps)} snapshots by Spark)")
        md = open(os.path.join(report, "engines.md")).read()
        check("| spark | B |" in md and "| pyiceberg | A |" in md and "GET/HEAD/other" in md,
              "the report has the engines' table")
        check("On each engine" in r.stdout or "on each engine" in r.stdout,
              "and so do the terminal's tables")


if __name__ == "__main__":
    main()
