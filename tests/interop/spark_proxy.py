#!/usr/bin/env python3
"""Spark's S3 requests counted by `floe proxy`, checked against the S3 server's own log (run by
ctest with the project's .venv, against the S3 server ctest starts: FLOE_S3_ENV).

floe writes a partitioned table to the S3 server (its SQLite catalog); Spark 4.1 + Iceberg 1.11
opens the same catalog through Iceberg's JdbcCatalog with S3FileIO pointed at `floe proxy`, and
scans the table in a window of the proxy's. The proxy's counts for the window must equal, operation
by operation, what the server's access log records for the bucket in that time; Spark's rows must
be the table's; and Spark's requests per data file are printed beside floe's for the same query
(the Iceberg thread's "S3 Request Analysis").
Usage: spark_proxy.py FLOE_BINARY [--jars DIR].
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floe_spark  # noqa: E402
from floe_services import aws_env, create_bucket, s3_env, start_proxy  # noqa: E402

try:
    import pyarrow.fs  # noqa: F401  (floe_services.create_bucket)
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"spark_proxy: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

ap = argparse.ArgumentParser()
ap.add_argument("floe")
ap.add_argument("--jars", default=floe_spark.DEFAULT_JARS)
args = ap.parse_args()

OPS = {"GET": ["s3_GetObject"], "HEAD": ["s3_HeadObject"], "PUT": ["s3_PutObject"],
       "LIST": ["s3_ListObjectsV2", "s3_ListObjects"], "DELETE": ["s3_DeleteObject"]}


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def logged(log_path, bucket):
    """The server's access log lines for `bucket`, by operation."""
    out = {}
    with open(log_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2 or parts[1] != bucket:
                continue
            op = next((p for p in parts if p.startswith("s3_")), None)
            if op:
                out[op] = out.get(op, 0) + 1
    return out


def get_json(url, method="GET"):
    return json.loads(urllib.request.urlopen(urllib.request.Request(url, method=method)).read())


def main():
    s3 = s3_env()
    log_path = os.path.join(s3["_dir"], "access.log")
    env = aws_env(s3)
    bucket = f"floe-spark-{os.getpid()}"
    with tempfile.TemporaryDirectory() as work:
        proxy, uri = start_proxy(args.floe, s3["FLOE_S3_ENDPOINT"], work)
        spark = None
        try:
            create_bucket(uri, s3, bucket)
            catalog = os.path.join(work, "catalog.db")
            base = [args.floe, "--warehouse", f"s3://{bucket}/wh", "--catalog", f"sqlite:{catalog}",
                    "--s3-endpoint", uri, "--s3-path-style", "--no-simulate-s3", "--quiet"]

            def floe(*a):
                r = subprocess.run(base + list(a), capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    raise SystemExit(f"floe {' '.join(a)} failed: {r.stderr.strip()}")
                return r.stdout

            csv = os.path.join(work, "e.csv")
            with open(csv, "w") as f:
                f.write("id,cat,amount\n")
                for i in range(20000):
                    f.write(f"{i},c{i % 5},{i % 1000}\n")
            floe("table", "create", "db.events", "--schema",
                 '[{"name":"id","type":"long","required":true},{"name":"cat","type":"string"},'
                 '{"name":"amount","type":"long"}]', "--partition-by", "bucket(4, id)")
            floe("table", "append", "db.events", csv)

            spark = floe_spark.session(f"s3://{bucket}/wh", work, jars=args.jars,
                                       name="floe-spark-proxy", catalog_db=catalog,
                                       s3={"endpoint": uri, "access_key": s3["FLOE_S3_ACCESS_KEY"],
                                           "secret_key": s3["FLOE_S3_SECRET_KEY"],
                                           "region": s3["FLOE_S3_REGION"]})
            query = "SELECT cat, sum(amount) AS s FROM floe.db.events GROUP BY cat ORDER BY cat"
            spark.sql(query).collect()  # warm: JVM classes and the catalog's connection

            time.sleep(1.0)  # the server writes its log after answering
            before = logged(log_path, bucket)
            get_json(f"{uri}/_floe/window?name=spark", "POST")
            got = [(r["cat"], r["s"]) for r in spark.sql(query).collect()]
            expected = sorted((f"c{c}", sum(i % 1000 for i in range(20000) if i % 5 == c))
                              for c in range(5))
            check(got == expected, "Spark reads floe's table on S3 through the proxy")
            seen = get_json(f"{uri}/_floe/stats?window=spark&objects=1")
            after = before
            for _ in range(50):
                time.sleep(0.1)
                after = logged(log_path, bucket)
                if sum(after.values()) - sum(before.values()) >= seen["total"]:
                    break
            delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
            for kind, ops in OPS.items():
                server = sum(delta.get(op, 0) for op in ops)
                check(seen["requests"][kind] == server,
                      f"Spark's {kind} requests: proxy {seen['requests'][kind]}, server {server}")
            check(seen["total"] == sum(delta.values()),
                  f"every request of Spark's scan counted ({seen['total']} / {sum(delta.values())})")
            per_file = sorted((v["requests"]["GET"], v["requests"]["HEAD"])
                              for k, v in seen["objects"].items() if k.endswith(".parquet"))
            check(len(per_file) == 4, f"Spark read the 4 data files ({len(per_file)})")
            get_json(f"{uri}/_floe/window?name=floe", "POST")
            out = json.loads(floe("query", "--stats", "--format", "json", "-e",
                                  "SELECT cat, sum(amount) FROM db.events GROUP BY cat"))
            ours = get_json(f"{uri}/_floe/stats?window=floe&objects=1")
            floe_per_file = sorted((v["requests"]["GET"], v["requests"]["HEAD"])
                                   for k, v in ours["objects"].items() if k.endswith(".parquet"))
            check(ours["total"] == sum(out["stats"]["requests"].values()),
                  "floe's own count of the same query matches the proxy")
            print(f"info: per data file (GET, HEAD): Spark {per_file}, floe {floe_per_file}; "
                  f"whole query: Spark {seen['requests']} {seen['bytes_out']} B, "
                  f"floe {ours['requests']} {ours['bytes_out']} B")
        finally:
            if spark is not None:
                spark.stop()
            proxy.send_signal(signal.SIGTERM)
            proxy.wait(timeout=30)
    print("spark_proxy: all checks passed")


if __name__ == "__main__":
    main()
