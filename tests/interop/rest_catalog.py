#!/usr/bin/env python3
"""floe and pyiceberg on one Iceberg REST catalog (run by ctest with the project's .venv).

The catalog is Iceberg's reference REST server (iceberg-core 1.11's RESTCatalogAdapter over a
JdbcCatalog), started on loopback by ctest (scripts/rest_catalog.sh; FLOE_REST_ENV names its env
file). The service writes every metadata file; floe sends its changes as requirements and updates.
Checked, each against rows this script generates (never against floe's own answers):
- floe creates a partitioned table through the service (placed by it) and appends; pyiceberg,
  through the same service, reads exactly those rows, then appends; floe reads both.
- floe's DELETE (merge-on-read: position delete files), UPDATE (copy-on-write), rewrite and
  expiry land as commits the service wrote; pyiceberg reads the same rows after each.
- two floe processes appending at once both land (a lost requirement is retried), nothing lost.
- a commit whose response is lost after the service applied it is found landed (once, not twice);
  a commit the service failed before applying is reported with exit 1 and leaves the table as it was.
- `floe bench` builds a worksheet's designs through the service;
- bad catalog URIs and an unreachable service are one-line errors with the documented exit codes.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request

from floe_cli import FLOE, check
from floe_services import TINY_WORKSHEET, gen_rows, rest_uri, write_rows_csv

try:
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"rest_catalog: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
PROXY = os.path.join(HERE, "..", "support", "s3_proxy.py")


class Floe:
    def __init__(self, uri, warehouse):
        self.base = [FLOE, "--catalog", f"rest:{uri}", "--warehouse", warehouse, "--quiet"]

    def run(self, *args, expect=0):
        r = subprocess.run(self.base + list(args), capture_output=True, text=True)
        if r.returncode != expect:
            raise SystemExit(f"floe {' '.join(args)}: exit {r.returncode}, expected {expect}: "
                             f"{r.stderr.strip()}")
        return r

    def popen(self, *args):
        return subprocess.Popen(self.base + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def rows(self, table):
        out = self.run("query", "--format", "csv", "-e",
                       f"SELECT id, cat, amount FROM {table} ORDER BY id").stdout
        lines = out.strip().splitlines()[1:]
        return [(int(a), b, float(c)) for a, b, c in (l.split(",") for l in lines)]



def py_rows(cat, table):
    got = cat.load_table(table).scan().to_arrow().to_pylist()
    return sorted((r["id"], r["cat"], r["amount"]) for r in got)


class Proxy:
    """tests/support/s3_proxy.py in front of the service, to lose or fail one request."""

    def __init__(self, upstream, work):
        port_file = os.path.join(work, "proxy.port")
        self.p = subprocess.Popen([sys.executable, PROXY, "--upstream", upstream,
                                   "--port-file", port_file], stdout=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        self.uri = f"http://127.0.0.1:{open(port_file).read().strip()}"

    def stats(self):
        text = urllib.request.urlopen(f"{self.uri}/__proxy/stats").read().decode()
        return {k: int(v) for k, v in (l.split() for l in text.splitlines() if l.strip())}

    def reset(self):
        urllib.request.urlopen(urllib.request.Request(f"{self.uri}/__proxy/reset",
                                                      method="POST")).read()

    def inject(self, query):
        req = urllib.request.Request(f"{self.uri}/__proxy/inject?{query}", method="POST")
        urllib.request.urlopen(req).read()

    def close(self):
        self.p.kill()
        self.p.wait()


def main():
    uri = rest_uri()
    ns = f"rc{random.getrandbits(40):010x}"
    cat = RestCatalog("rest", uri=uri)
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")
        f = Floe(uri, wh)
        t = f"{ns}.events"
        f.run("table", "create", t, "--schema",
              '[{"name":"id","type":"long","required":true},{"name":"cat","type":"string"},'
              '{"name":"amount","type":"double"}]', "--partition-by", "bucket(4, id)",
              "--property", "write.delete.mode=merge-on-read")
        check(not os.path.exists(wh), "a REST warehouse creates nothing in the local directory")
        pt = cat.load_table(t)
        check([fld.name for fld in pt.schema().fields] == ["id", "cat", "amount"],
              "pyiceberg sees the schema floe created")
        check(str(pt.spec()).find("bucket[4]") >= 0, f"pyiceberg sees the spec ({pt.spec()})")
        check(pt.metadata.location.endswith(f"/{ns}/events"), "the service placed the table")

        expected = gen_rows(0, 3000)
        write_rows_csv(os.path.join(work, "a.csv"), expected[:1500])
        write_rows_csv(os.path.join(work, "b.csv"), expected[1500:])
        f.run("table", "append", t, os.path.join(work, "a.csv"))
        f.run("table", "append", t, os.path.join(work, "b.csv"))
        check(py_rows(cat, t) == expected, "pyiceberg reads floe's two appends exactly")
        check(len(cat.load_table(t).snapshots()) == 2, "two snapshots, one per append")

        more = gen_rows(3000, 3500)
        pt = cat.load_table(t)
        pt.append(pa.table({"id": pa.array([r[0] for r in more], pa.int64()),
                            "cat": [r[1] for r in more], "amount": [r[2] for r in more]},
                           schema=pt.schema().as_arrow()))
        expected += more
        check(f.rows(t) == expected, "floe reads pyiceberg's append through the service")

        listed = f.run("table", "list", ns, "--format", "csv").stdout
        check(f"{ns},events" in listed, "floe lists the table")

        # DELETE merge-on-read (position delete files), UPDATE copy-on-write (the default).
        f.run("query", "-e", f"DELETE FROM {t} WHERE id % 10 = 0")
        expected = [r for r in expected if r[0] % 10 != 0]
        files = cat.load_table(t).inspect.delete_files().to_pylist()
        check(len(files) > 0, f"the DELETE wrote {len(files)} position delete files")
        check(py_rows(cat, t) == expected, "pyiceberg reads floe's merge-on-read DELETE")
        f.run("query", "-e", f"UPDATE {t} SET amount = -1 WHERE id < 100")
        expected = [(i, c, -1.0 if i < 100 else a) for i, c, a in expected]
        check(py_rows(cat, t) == expected and f.rows(t) == expected,
              "floe's copy-on-write UPDATE read by both")

        f.run("table", "rewrite", t, "--strategy", "sort", "--sort-by", "id", "--rewrite-all")
        check(py_rows(cat, t) == expected, "pyiceberg reads the rows after floe's rewrite")
        before = len(cat.load_table(t).snapshots())
        f.run("table", "expire", t, "--older-than", "0s", "--retain-last", "1")
        check(len(cat.load_table(t).snapshots()) == 1 < before,
              f"floe's expiry removed {before - 1} snapshots through the service")
        check(py_rows(cat, t) == expected, "the rows survive the expiry")

        # A v3 table: floe's DELETE writes one Puffin file holding a vector per data file.
        v3 = f"{ns}.v3"
        f.run("table", "create", v3, "--format-version", "3", "--schema",
              '[{"name":"id","type":"long","required":true},{"name":"cat","type":"string"},'
              '{"name":"amount","type":"double"}]', "--partition-by", "bucket(4, id)",
              "--property", "write.delete.mode=merge-on-read")
        f.run("table", "append", v3, os.path.join(work, "a.csv"))
        f.run("query", "-e", f"DELETE FROM {v3} WHERE id % 3 = 0")
        v3_rows = [r for r in gen_rows(0, 1500) if r[0] % 3 != 0]
        dvs = cat.load_table(v3).inspect.delete_files().to_pylist()
        check(len(dvs) == 4 and len({d["file_path"] for d in dvs}) == 1,
              f"4 vectors in one Puffin file ({len(dvs)} in {len({d['file_path'] for d in dvs})})")
        check(py_rows(cat, v3) == v3_rows, "pyiceberg reads floe's deletion vectors")

        # Two writers at once: the loser's requirement fails, it rebuilds and lands.
        batches = [gen_rows(10000 + 100 * k, 10100 + 100 * k) for k in range(6)]
        for k, b in enumerate(batches):
            write_rows_csv(os.path.join(work, f"c{k}.csv"), b)
        snaps = len(cat.load_table(t).snapshots())
        procs = []
        for w in range(2):
            script = " && ".join(
                " ".join(f.base + ["table", "append", t, os.path.join(work, f"c{k}.csv")])
                for k in range(w, 6, 2))
            procs.append(subprocess.Popen(["bash", "-c", script], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        for p in procs:
            _, err = p.communicate()
            check(p.returncode == 0, f"a concurrent writer succeeded ({err.strip()[:200]})")
        for b in batches:
            expected += b
        expected.sort()
        check(py_rows(cat, t) == expected, "both writers' 6 appends landed, nothing lost")
        check(len(cat.load_table(t).snapshots()) == snaps + 6, "one snapshot per append")

        # Faults between floe and the service.
        proxy = Proxy(uri, work)
        try:
            pf = Floe(proxy.uri, wh)
            extra = gen_rows(20000, 20050)
            write_rows_csv(os.path.join(work, "d.csv"), extra)
            snaps = len(cat.load_table(t).snapshots())
            proxy.inject("action=truncate&kind=POST&count=1")
            pf.run("table", "append", t, os.path.join(work, "d.csv"))
            expected = sorted(expected + extra)
            check(py_rows(cat, t) == expected and len(cat.load_table(t).snapshots()) == snaps + 1,
                  "a commit applied but whose response was lost is found landed, once")
            extra2 = gen_rows(30000, 30050)
            write_rows_csv(os.path.join(work, "e.csv"), extra2)
            proxy.inject("action=status&status=500&kind=POST&count=1")
            r = pf.run("table", "append", t, os.path.join(work, "e.csv"), expect=1)
            err = r.stderr.strip()
            check(err.count("\n") == 0 and "outcome is unknown" in err and "HTTP 500" in err,
                  f"a failed commit is one line saying its outcome is unknown ({err})")
            check(py_rows(cat, t) == expected and len(cat.load_table(t).snapshots()) == snaps + 1,
                  "the service's failure left the table as it was")
            # OAuth2 client credentials: one token exchange (a POST), then bearer requests.
            proxy.reset()
            env = dict(os.environ, FLOE_REST_CREDENTIAL="floe-client:s3cret")
            r = subprocess.run(pf.base + ["table", "list", ns], capture_output=True, text=True,
                               env=env)
            check(r.returncode == 0 and "events" in r.stdout, f"floe signs in ({r.stderr.strip()})")
            check(proxy.stats().get("requests.POST", 0) == 1,
                  f"one token request per sign-in ({proxy.stats()})")
            proxy.reset()
            pf.run("table", "list", ns)
            check(proxy.stats().get("requests.POST", 0) == 0, "no token request without a credential")
        finally:
            proxy.close()

        # floe bench builds its designs in the service's warehouse.
        sheet = os.path.join(work, "tiny.yaml")
        with open(sheet, "w") as out:
            out.write(TINY_WORKSHEET.replace("b.ev", f"{ns}.ev"))
        r = subprocess.run(f.base + ["bench", sheet, "--tables-at", os.path.join(work, "bench"),
                                     "--rounds", "1", "--warmup", "0", "--json",
                                     os.path.join(work, "tiny.json")], capture_output=True, text=True)
        check(r.returncode == 0, f"floe bench on a REST catalog runs ({r.stderr.strip()[-300:]})")
        d = json.load(open(os.path.join(work, "tiny.json")))
        check([x["data_files"] for x in d["designs"]] == [4, 12], "its designs: 4 and 12 files")
        check(len(cat.load_table(f"{ns}.ev_b").inspect.files().to_pylist()) == 12,
              "pyiceberg sees the design bench built through the service")

        # Bad input.
        r = subprocess.run([FLOE, "--catalog", "rest:ftp://x", "table", "list"], capture_output=True,
                           text=True)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "rest:http://" in r.stderr,
              f"a bad REST URI exits 2 with one line ({r.stderr.strip()})")
        r = subprocess.run([FLOE, "--catalog", "rest:http://127.0.0.1:9", "table", "list"],
                           capture_output=True, text=True)
        check(r.returncode == 1 and "REST catalog http://127.0.0.1:9" in r.stderr,
              f"an unreachable service exits 1 naming it ({r.stderr.strip()})")
        r = subprocess.run([FLOE, "--catalog", f"rest:{uri}?token=abc", "table", "list"],
                           capture_output=True, text=True)
        check(r.returncode == 2 and "FLOE_REST_TOKEN" in r.stderr,
              f"a secret in the URI is refused ({r.stderr.strip()})")
        r = f.run("table", "describe", f"{ns}.missing", expect=1)
        check("does not exist" in r.stderr, f"a missing table is named ({r.stderr.strip()})")

        f.run("table", "drop", t)
        check(not cat.table_exists(t), "floe's drop reaches the service")
    print("rest_catalog: all checks passed")


if __name__ == "__main__":
    main()
