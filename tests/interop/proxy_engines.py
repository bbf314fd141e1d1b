#!/usr/bin/env python3
"""`floe proxy` counts any engine's S3 requests as floe counts its own (run by ctest with the
project's .venv, against the S3 server ctest starts: FLOE_S3_ENV names its env file).

A floe table is written to the S3 server through `floe proxy`; then, each in a named window of
the proxy's:
- floe's query: the proxy's requests by kind and bytes equal floe's own `--stats`, exactly;
- pyiceberg's scan of the same table (pyarrow's S3 filesystem through the proxy): every row read,
  every data file fetched, and its GET/HEAD pattern per file printed;
- `floe bench --tables-at s3://...` builds and measures a worksheet's designs on the server;
- `floe proxy stats` prints what the proxy's JSON route says; bad arguments are one-line errors;
  SIGTERM stops the proxy with exit 0 and a summary.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.request

from floe_cli import FLOE, check
from floe_services import TINY_WORKSHEET, aws_env, create_bucket, s3_env, start_proxy

try:
    import pyarrow.fs  # noqa: F401  (floe_services.create_bucket)
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"proxy_engines: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)


def get_json(url, method="GET"):
    return json.loads(urllib.request.urlopen(urllib.request.Request(url, method=method)).read())


def main():
    s3 = s3_env()
    env = aws_env(s3)
    bucket = f"floe-proxy-{os.getpid()}"
    with tempfile.TemporaryDirectory() as work:
        proxy, uri = start_proxy(FLOE, s3["FLOE_S3_ENDPOINT"], work)
        try:
            create_bucket(uri, s3, bucket)

            catalog = os.path.join(work, "catalog.db")
            base = [FLOE, "--warehouse", f"s3://{bucket}/wh", "--catalog", f"sqlite:{catalog}",
                    "--s3-endpoint", uri, "--s3-path-style", "--no-simulate-s3", "--quiet"]

            def floe(*args):
                r = subprocess.run(base + list(args), capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    raise SystemExit(f"floe {' '.join(args)} failed: {r.stderr.strip()}")
                return r.stdout

            csv = os.path.join(work, "e.csv")
            with open(csv, "w") as f:
                f.write("id,cat,amount\n")
                for i in range(2000):
                    f.write(f"{i},c{i % 5},{i * 0.5}\n")
            floe("table", "create", "db.events", "--schema",
                 '[{"name":"id","type":"long","required":true},{"name":"cat","type":"string"},'
                 '{"name":"amount","type":"double"}]', "--partition-by", "bucket(4, id)")
            floe("table", "append", "db.events", csv)

            # floe's query, in a window: the proxy saw exactly what floe counted.
            get_json(f"{uri}/_floe/window?name=floe", "POST")
            out = json.loads(floe("query", "--stats", "--format", "json", "-e",
                                  "SELECT cat, sum(amount) FROM db.events GROUP BY cat"))
            seen = get_json(f"{uri}/_floe/stats?window=floe")
            ours = out["stats"]["requests"]
            check(all(seen["requests"][k] == ours[k] for k in ours) and
                  seen["total"] == sum(ours.values()),
                  f"the proxy counts floe's requests as floe does ({ours} / {seen['requests']})")
            check(seen["bytes_out"] == out["stats"]["bytes_fetched"],
                  f"and its bytes ({out['stats']['bytes_fetched']} / {seen['bytes_out']})")

            # pyiceberg's scan of the same table through the proxy.
            get_json(f"{uri}/_floe/window?name=pyiceberg", "POST")
            cat = SqlCatalog("floe", uri=f"sqlite:///{catalog}", **{
                "s3.endpoint": uri, "s3.access-key-id": s3["FLOE_S3_ACCESS_KEY"],
                "s3.secret-access-key": s3["FLOE_S3_SECRET_KEY"], "s3.region": s3["FLOE_S3_REGION"],
                "s3.force-virtual-addressing": "false"})
            table = cat.load_table("db.events")
            rows = table.scan().to_arrow()
            check(rows.num_rows == 2000, "pyiceberg reads the 2000 rows through the proxy")
            data_files = [f.file.file_path for f in table.scan().plan_files()]
            seen = get_json(f"{uri}/_floe/stats?window=pyiceberg&objects=1")
            fetched = {k for k, v in seen["objects"].items() if v["requests"]["GET"] > 0}
            missing = [p for p in data_files if not any(p.endswith(k.split("/", 2)[2]) for k in fetched)]
            check(not missing, f"every data file pyiceberg read went through the proxy ({missing})")
            per_file = [(v["requests"]["GET"], v["requests"]["HEAD"]) for k, v in seen["objects"].items()
                        if k.endswith(".parquet")]
            print(f"info: pyiceberg per data file (GET, HEAD): {sorted(per_file)}; "
                  f"window total {seen['requests']}")

            # floe bench builds and measures its designs on the S3 server, through the proxy.
            sheet = os.path.join(work, "tiny.yaml")
            with open(sheet, "w") as f:
                f.write(TINY_WORKSHEET)
            get_json(f"{uri}/_floe/window?name=bench", "POST")
            r = subprocess.run(base + ["bench", sheet, "--tables-at", f"s3://{bucket}/bench",
                                       "--rounds", "2", "--warmup", "1", "--json",
                                       os.path.join(work, "tiny.json")],
                               capture_output=True, text=True, env=env)
            check(r.returncode == 0, f"floe bench --tables-at s3://... runs ({r.stderr.strip()[-300:]})")
            d = json.load(open(os.path.join(work, "tiny.json")))
            check([x["data_files"] for x in d["designs"]] == [4, 12],
                  "the designs were built on S3: 4 and 12 files")
            res = d["questions"][0]["results"]
            check(res[0]["data_files_opened"] == 4 and res[0]["requests"]["GET"] == 4,
                  f"an unsorted design opens its 4 files with 1 GET each ({res[0]['requests']})")
            seen = get_json(f"{uri}/_floe/stats?window=bench&objects=1")
            built = [k for k in seen["objects"] if k.startswith(f"/{bucket}/bench/") and k.endswith(".parquet")]
            check(len(built) == 16, f"the proxy saw the 16 data files written and read ({len(built)})")

            # The CLI reads the same numbers.
            r = subprocess.run([FLOE, "proxy", "stats", "--proxy", uri, "--window", "pyiceberg",
                                "--format", "json"], capture_output=True, text=True)
            py_seen = get_json(f"{uri}/_floe/stats?window=pyiceberg")
            check(r.returncode == 0 and json.loads(r.stdout)["requests"] == py_seen["requests"],
                  "floe proxy stats prints the proxy's window")
            r = subprocess.run([FLOE, "proxy", "stats", "--proxy", uri], capture_output=True, text=True)
            check(r.returncode == 0 and r.stdout.startswith("total"), "and a line per scope by default")
            r = subprocess.run([FLOE, "proxy", "stats", "--proxy", uri, "--window", "pyiceberg",
                                "--format", "csv"], capture_output=True, text=True)
            rows = [line.split(",") for line in r.stdout.splitlines()]
            head = rows[0] if rows else []
            want = {k: py_seen["requests"].get(k, 0) for k in ("GET", "HEAD", "PUT", "LIST")}
            got = {k: int(rows[1][head.index(k)]) for k in want} if len(rows) > 1 else {}
            check(r.returncode == 0 and head[:3] == ["scope", "name", "requests"]
                  and rows[1][:2] == ["window", "pyiceberg"] and got == want
                  and int(rows[1][2]) == py_seen["total"],
                  f"--format csv: a row per scope, the window's counts by kind ({r.stdout[:200]})")
            r = subprocess.run([FLOE, "proxy", "stats", "--proxy", uri, "--window", "nope"],
                               capture_output=True, text=True)
            check(r.returncode == 1 and r.stderr.count("\n") == 1 and "nope" in r.stderr,
                  f"an unknown window is one line ({r.stderr.strip()})")
        finally:
            proxy.send_signal(signal.SIGTERM)
            out, err = proxy.communicate(timeout=30)
        check(proxy.returncode == 0 and "stopped after" in err,
              f"SIGTERM stops the proxy cleanly ({proxy.returncode}: {err.strip()})")
        r = subprocess.run([FLOE, "proxy"], capture_output=True, text=True)
        check(r.returncode == 2 and "--upstream" in r.stderr, f"no upstream: exit 2 ({r.stderr.strip()})")
        r = subprocess.run([FLOE, "proxy", "--upstream", "ftp://x:1"], capture_output=True, text=True)
        check(r.returncode == 2 and r.stderr.count("\n") == 1, f"a bad upstream: exit 2 ({r.stderr.strip()})")
        r = subprocess.run([FLOE, "proxy", "stats", "--proxy", "http://127.0.0.1:9"],
                           capture_output=True, text=True)
        check(r.returncode == 1 and r.stderr.count("\n") == 1,
              f"a proxy that does not answer: exit 1 ({r.stderr.strip()})")
    print("proxy_engines: all checks passed")


if __name__ == "__main__":
    main()
