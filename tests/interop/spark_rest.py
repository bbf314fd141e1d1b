#!/usr/bin/env python3
"""Spark, floe and pyiceberg share one Iceberg REST catalog, each seeing the others' commits (run by
ctest with the project's .venv; Spark 4.1 + Iceberg 1.11 with the catalog `floe` of type rest).

The catalog is Iceberg's reference REST server started on loopback by ctest
(scripts/rest_catalog.sh; FLOE_REST_ENV names its env file). Spark creates a partitioned table
(PARTITIONED BY bucket, WRITE ORDERED BY) and inserts; floe and pyiceberg read it; floe appends
and deletes (merge-on-read, position delete files); Spark reads floe's commits and MERGEs into
the table; floe and pyiceberg read Spark's MERGE; floe compacts; Spark reads the compacted table.
Expected rows come from this script's model of the changes, never from an engine.
Usage: spark_rest.py FLOE_BINARY [--jars DIR].
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floe_spark  # noqa: E402
from floe_services import rest_uri  # noqa: E402

try:
    from pyiceberg.catalog.rest import RestCatalog
except ImportError as e:  # fail, never skip, when the peer is missing
    print(f"spark_rest: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

ap = argparse.ArgumentParser()
ap.add_argument("floe")
ap.add_argument("--jars", default=floe_spark.DEFAULT_JARS)
args = ap.parse_args()


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def main():
    uri = rest_uri()
    ns = f"sp{random.getrandbits(40):010x}"
    t = f"{ns}.orders"
    cat = RestCatalog("rest", uri=uri)
    with tempfile.TemporaryDirectory() as work:
        base = [args.floe, "--catalog", f"rest:{uri}", "--warehouse", os.path.join(work, "wh"),
                "--quiet"]

        def floe(*a):
            r = subprocess.run(base + list(a), capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"floe {' '.join(a)} failed ({r.returncode}): {r.stderr.strip()}")
            return r.stdout

        def floe_rows():
            out = floe("query", "--format", "csv", "-e",
                       f"SELECT order_id, status, qty FROM {t} ORDER BY order_id")
            return [(int(a), b, int(c)) for a, b, c in
                    (l.split(",") for l in out.strip().splitlines()[1:])]

        def py_rows():
            got = cat.load_table(t).scan().to_arrow().to_pylist()
            return sorted((r["order_id"], r["status"], r["qty"]) for r in got)

        spark = floe_spark.session(os.path.join(work, "wh"), work, jars=args.jars,
                                   name="floe-spark-rest", rest_uri=uri)

        def spark_rows():
            return sorted(tuple(r) for r in spark.sql(
                f"SELECT order_id, status, qty FROM floe.{t}").collect())

        spark.sql(f"CREATE NAMESPACE floe.{ns}")
        spark.sql(f"""CREATE TABLE floe.{t} (order_id BIGINT NOT NULL, status STRING, qty INT)
                      USING iceberg PARTITIONED BY (bucket(4, order_id))
                      TBLPROPERTIES ('format-version' = '2',
                                     'write.delete.mode' = 'merge-on-read')""")
        spark.sql(f"ALTER TABLE floe.{t} WRITE ORDERED BY order_id")
        model = {i: ("open", i % 9) for i in range(4000)}
        spark.createDataFrame([(i, s, q) for i, (s, q) in model.items()],
                              "order_id BIGINT, status STRING, qty INT") \
            .writeTo(f"floe.{t}").append()
        expected = sorted((i, s, q) for i, (s, q) in model.items())
        check(floe_rows() == expected, "floe reads Spark's table through the REST catalog")
        check(py_rows() == expected, "pyiceberg reads Spark's table")
        described = floe("table", "describe", t)
        check("bucket[4](order_id)" in described.replace(" ", "") or "bucket[4]" in described,
              "floe sees Spark's partition spec")

        csv = os.path.join(work, "more.csv")
        with open(csv, "w") as f:
            f.write("order_id,status,qty\n")
            for i in range(4000, 4500):
                f.write(f"{i},new,{i % 5}\n")
                model[i] = ("new", i % 5)
        floe("table", "append", t, csv)
        floe("query", "-e", f"DELETE FROM {t} WHERE order_id % 10 = 3")
        model = {i: v for i, v in model.items() if i % 10 != 3}
        expected = sorted((i, s, q) for i, (s, q) in model.items())
        spark.sql(f"REFRESH TABLE floe.{t}")
        check(spark_rows() == expected, "Spark reads floe's append and merge-on-read DELETE")

        src = spark.createDataFrame([(i, "shipped", 100) for i in range(0, 6000, 7)],
                                    "order_id BIGINT, status STRING, qty INT")
        src.createOrReplaceTempView("src")
        spark.sql(f"""MERGE INTO floe.{t} t USING src s ON t.order_id = s.order_id
                      WHEN MATCHED THEN UPDATE SET status = s.status, qty = s.qty
                      WHEN NOT MATCHED THEN INSERT *""")
        for i in range(0, 6000, 7):
            model[i] = ("shipped", 100)
        expected = sorted((i, s, q) for i, (s, q) in model.items())
        check(floe_rows() == expected, "floe reads Spark's MERGE")
        check(py_rows() == expected, "pyiceberg reads Spark's MERGE")

        floe("table", "rewrite", t, "--strategy", "sort", "--rewrite-all")
        spark.sql(f"REFRESH TABLE floe.{t}")
        check(spark_rows() == expected, "Spark reads floe's compaction")
        ops = [s.summary.operation.value for s in cat.load_table(t).snapshots()]
        check(ops[-1] == "replace" and len(ops) >= 5, f"every engine's commit is in one history {ops}")
        spark.stop()
    print("spark_rest: all checks passed")


if __name__ == "__main__":
    main()
