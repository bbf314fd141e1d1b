#!/usr/bin/env python3
"""floe on a REST catalog that vends storage credentials (run by ctest with the project's .venv).

The catalog is Iceberg's reference REST server with its warehouse on the S3 server ctest starts
(FLOE_S3_ENV), reaching it with Iceberg's S3FileIO, and Iceberg's RESTServerCatalogAdapter
vending its keys with every table it loads or creates (include-credentials): scripts/
rest_catalog.sh start STATE --s3 ENV s3://BUCKET/PATH. floe runs with *wrong* S3 keys in its
environment and reaches the S3 server through `floe proxy`, which counts requests per access key:
- floe creates a partitioned merge-on-read table through the service, appends, reads, deletes
  (position delete files), rewrites, expires and finally purges it -- every request it sends to
  S3 is signed with the vended key, none with its own;
- the same read of one of the table's data files by path, outside the catalog, is refused by
  the S3 server (exit 1, one line naming the refusal): the vended key is what reached the objects;
- pyiceberg, given only the endpoint, reads through the same service exactly the rows floe wrote.
Every expected row comes from this script, never from floe's own answers.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import urllib.request

from floe_cli import FLOE, check
from floe_services import create_bucket, gen_rows, s3_env, start_proxy, write_rows_csv

try:
    import pyarrow.fs as pafs
    from pyiceberg.catalog.rest import RestCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"rest_vended: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
REST_SCRIPT = os.path.join(HERE, "..", "..", "scripts", "rest_catalog.sh")



def proxy_clients(proxy):
    with urllib.request.urlopen(f"{proxy}/_floe/stats") as r:
        return json.load(r)["clients"]


def main():
    s3 = s3_env()
    endpoint = s3["FLOE_S3_ENDPOINT"]
    bucket = f"vended{random.getrandbits(32):08x}"
    create_bucket(endpoint, s3, bucket)
    with tempfile.TemporaryDirectory() as work:
        state = os.path.join(work, "rest")
        env_file = os.environ["FLOE_S3_ENV"]
        started = subprocess.run(["bash", REST_SCRIPT, "start", state, "--s3", env_file,
                                  f"s3://{bucket}/wh"], capture_output=True, text=True)
        if started.returncode != 0:
            raise SystemExit(f"the vending REST catalog did not start: {started.stderr.strip()}")
        proxy_proc = None
        try:
            uri = open(os.path.join(state, "env")).read().split("FLOE_REST_URI=")[1].split()[0]
            proxy_proc, proxy = start_proxy(FLOE, endpoint, work)
            run_checks(uri, proxy, s3, bucket, work)
        finally:
            if proxy_proc is not None:
                proxy_proc.kill()
            subprocess.run(["bash", REST_SCRIPT, "stop", state], capture_output=True)


def run_checks(uri, proxy, s3, bucket, work):
    # floe's own identity is a wrong one: only what the catalog vends can reach the bucket.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="floewrongkey", AWS_SECRET_ACCESS_KEY="wrong-secret")
    base = [FLOE, "--catalog", f"rest:{uri}", "--warehouse", os.path.join(work, "local"),
            "--s3-endpoint", proxy, "--s3-path-style", "--quiet"]

    def floe(*args, expect=0):
        r = subprocess.run(base + list(args), capture_output=True, text=True, env=env)
        if r.returncode != expect:
            raise SystemExit(f"floe {' '.join(args)}: exit {r.returncode}, expected {expect}: "
                             f"{r.stderr.strip()}")
        return r

    def rows(table):
        out = floe("query", "--format", "csv", "-e",
                   f"SELECT id, cat, amount FROM {table} ORDER BY id").stdout
        return [(int(a), b, float(c)) for a, b, c in
                (line.split(",") for line in out.strip().splitlines()[1:])]

    t = "vend.events"
    floe("table", "create", t, "--schema",
         '[{"name":"id","type":"long","required":true},{"name":"cat","type":"string"},'
         '{"name":"amount","type":"double"}]', "--partition-by", "bucket(4, id)",
         "--property", "write.delete.mode=merge-on-read")
    expected = gen_rows(0, 2000, cats=5)
    write_rows_csv(os.path.join(work, "a.csv"), expected[:1200])
    write_rows_csv(os.path.join(work, "b.csv"), expected[1200:])
    floe("table", "append", t, os.path.join(work, "a.csv"))
    floe("table", "append", t, os.path.join(work, "b.csv"))
    check(rows(t) == expected, "floe writes and reads a table with the credentials the catalog "
                               "vended (its own keys are wrong)")

    floe("query", "-e", f"DELETE FROM {t} WHERE id % 10 = 3")
    expected = [r for r in expected if r[0] % 10 != 3]
    check(rows(t) == expected, "a merge-on-read DELETE writes and reads its delete files")
    deletes = floe("query", "--format", "csv", "-e",
                   f"SELECT count(*) FROM {t}.delete_files").stdout.strip().splitlines()[1]
    data = floe("query", "--format", "csv", "-e",
                f"SELECT count(*) FROM {t}.data_files").stdout.strip().splitlines()[1]
    check(int(data) == 8 and int(deletes) == 8,
          f"two appends in 4 buckets: 8 data files, each touched: 8 position delete files "
          f"({data}, {deletes})")

    # Through the same service, pyiceberg given only the endpoint reads the same rows.
    cat = RestCatalog("rest", uri=uri, **{"s3.endpoint": proxy, "s3.region": s3["FLOE_S3_REGION"]})
    got = sorted((r["id"], r["cat"], r["amount"])
                 for r in cat.load_table(t).scan().to_arrow().to_pylist())
    check(got == expected, "pyiceberg reads floe's rows with the vended credentials too")

    floe("table", "rewrite", t, "--rewrite-all")
    floe("table", "expire", t, "--older-than", "0s", "--retain-last", "1")
    check(rows(t) == expected, "a rewrite and an expiry through vended credentials keep the rows")

    # One of the table's data files, read by path outside the catalog, with floe's own keys.
    files = floe("query", "--format", "csv", "-e",
                 f"SELECT file_path FROM {t}.files").stdout.strip().splitlines()[1:]
    check(len(files) >= 1 and all(f.startswith(f"s3://{bucket}/wh/") for f in files),
          "the service placed the table's files in its S3 warehouse")
    direct = floe("query", "-e", f"SELECT count(*) FROM read_parquet('{files[0]}')", expect=1)
    message = direct.stderr.strip()
    # versitygw answers an unknown key with 404 XAdminUserNotFound, AWS with 403.
    check(len(message.splitlines()) == 1 and ("403" in message or "access key" in message),
          f"the same file read by path with floe's own keys is refused ({message})")

    floe("table", "drop", t, "--purge")
    fs = pafs.S3FileSystem(endpoint_override=s3["FLOE_S3_ENDPOINT"], scheme="http",
                           access_key=s3["FLOE_S3_ACCESS_KEY"], secret_key=s3["FLOE_S3_SECRET_KEY"],
                           region=s3["FLOE_S3_REGION"])
    left = [i.path for i in fs.get_file_info(pafs.FileSelector(f"{bucket}/wh/vend/events",
                                                               recursive=True, allow_not_found=True))
            if i.type == pafs.FileType.File]
    check(left == [], f"a purge through vended credentials removes the table's objects ({left[:3]})")

    clients = proxy_clients(proxy)
    vended = s3["FLOE_S3_ACCESS_KEY"]
    check(set(clients) == {vended, "floewrongkey"},
          f"the proxy saw the vended key and floe's own ({sorted(clients)})")
    own = clients["floewrongkey"]["requests"]
    check(sum(own.values()) == 1,
          f"floe's own key signed only the refused read by path ({own})")
    mine = clients[vended]["requests"]
    check(mine.get("PUT", 0) >= 10 and mine.get("GET", 0) >= 10 and mine.get("DELETE", 0) >= 1,
          f"every table operation went out with the vended key ({mine})")


if __name__ == "__main__":
    main()
