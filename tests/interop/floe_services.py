"""The services the interop scripts meet floe through, as ctest starts them: the S3 server
(FLOE_S3_ENV names its env file; versitygw keeps an access log beside it), Iceberg's REST catalog
(FLOE_REST_ENV), and `floe proxy` in front of the S3 server. Also the tiny worksheet several
scripts measure. Shared by tests/interop and bench/engines."""
import os
import random
import subprocess
import time

TINY_WORKSHEET = """name: tiny
table: b.ev
source: {generator: events, rows: 20000, seed: 1, writes: 4}
designs:
  - name: A
  - name: B
    partition_by: day(event_ts)
    sort_by: customer_id
questions:
  - name: customer
    sql: SELECT count(*) FROM {table} WHERE customer_id = 7
    daily: 10
"""


def _env_file(variable, what):
    path = os.environ.get(variable)
    if not path or not os.path.exists(path):
        raise SystemExit(f"{variable} names no running {what}: run through ctest")
    env = {"_dir": os.path.dirname(path)}
    for line in open(path):
        if "=" in line:
            k, v = line.strip().split("=", 1)
            env[k] = v
    return env


def rest_uri():
    """The REST catalog's base URI."""
    return _env_file("FLOE_REST_ENV", "REST catalog")["FLOE_REST_URI"]


def s3_env():
    """FLOE_S3_ENDPOINT, FLOE_S3_ACCESS_KEY, FLOE_S3_SECRET_KEY, FLOE_S3_REGION and `_dir`."""
    return _env_file("FLOE_S3_ENV", "S3 server")


def aws_env(s3):
    """The process environment with the S3 server's credentials as AWS's variables."""
    return dict(os.environ, AWS_ACCESS_KEY_ID=s3["FLOE_S3_ACCESS_KEY"],
                AWS_SECRET_ACCESS_KEY=s3["FLOE_S3_SECRET_KEY"], AWS_REGION=s3["FLOE_S3_REGION"])


def start_proxy(floe, upstream, work, simulate=None):
    """`floe proxy` in front of `upstream`; returns (process, "http://127.0.0.1:PORT")."""
    port_file = os.path.join(work, f"proxy-{time.monotonic_ns()}.port")
    cmd = [floe]
    if simulate is not None:
        cmd.append(f"--simulate-s3={simulate}")
    cmd += ["proxy", "--upstream", upstream, "--port-file", port_file]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if os.path.exists(port_file):
            return proc, f"http://127.0.0.1:{open(port_file).read().strip()}"
        if proc.poll() is not None:
            raise SystemExit(f"floe proxy did not start: {proc.stderr.read().strip()}")
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("floe proxy did not start in 10 s")


def create_bucket(endpoint, s3, bucket):
    """Creates `bucket` through `endpoint` (pyarrow's S3 filesystem)."""
    import pyarrow.fs as pafs
    pafs.S3FileSystem(endpoint_override=endpoint, scheme="http", allow_bucket_creation=True,
                      access_key=s3["FLOE_S3_ACCESS_KEY"], secret_key=s3["FLOE_S3_SECRET_KEY"],
                      region=s3["FLOE_S3_REGION"]).create_dir(bucket)


def gen_rows(lo, hi, cats=7):
    """Rows (id, cat, amount) for ids lo..hi-1, the same for the same lo: the REST scripts' data."""
    rng = random.Random(lo)
    return [(i, f"c{i % cats}", round(rng.random() * 100, 2)) for i in range(lo, hi)]


def write_rows_csv(path, rows):
    """`rows` from gen_rows as a CSV file with the header id,cat,amount."""
    with open(path, "w") as f:
        f.write("id,cat,amount\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]}\n")
