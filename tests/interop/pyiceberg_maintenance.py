#!/usr/bin/env python3
"""floe's table maintenance read back by pyiceberg (run by ctest with the project's .venv).

A table is written by floe in 8 appends of shuffled ids under a declared sort order, then
rewritten (sort with a small target, bin-pack, sort with the default target), its manifests
rewritten, its snapshots expired and its orphans removed. After every step pyiceberg opens floe's
SQLite catalog and must read exactly the generated rows; after the sort rewrite the files' id ranges
(pyiceberg's own readable_metrics) must be disjoint; after expiry every object under data/ must be
a file of a live snapshot and every generated row must still read.
Expected values come from this script's own generator, never from floe.
"""
import datetime as dt
import os
import random
import sys
import tempfile

from floe_cli import check, floe

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:  # the test must fail, not skip, when the peers are missing
    print(f"pyiceberg_maintenance: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

N = 40000
BATCHES = 8


def row(i):
    rng = random.Random(i)
    return {
        "id": i,
        "name": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12)),
        "amount": rng.random() * 1000,
        "qty": rng.randrange(1000),
        "cat": f"c{i % 5}",
    }


def expected():
    return [row(i) for i in range(N)]


def read_rows(cat):
    t = cat.load_table("db.dim")
    got = t.scan().to_arrow().to_pylist()
    got.sort(key=lambda r: r["id"])
    return t, got


def table_objects(wh, sub):
    base = os.path.join(wh, "db.db", "dim", sub)
    out = set()
    for root, _, files in os.walk(base):
        for f in files:
            out.add(os.path.join(root, f))
    return out


def local(path):
    return path[len("file://"):] if path.startswith("file://") else path


def id_ranges(t):
    files = t.inspect.files().to_pylist()
    return sorted((f["readable_metrics"]["id"]["lower_bound"], f["readable_metrics"]["id"]["upper_bound"])
                  for f in files)


def main():
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")
        os.makedirs(wh)
        ids = list(range(N))
        random.Random(7).shuffle(ids)
        paths = []
        for b in range(BATCHES):
            part = [row(i) for i in ids[b::BATCHES]]
            p = os.path.join(work, f"batch{b}.parquet")
            pq.write_table(pa.Table.from_pylist(part), p)
            paths.append(p)
        floe(wh, "table", "create", "db.dim", "--like", paths[0], "--sort-by", "id")
        for p in paths:
            floe(wh, "table", "append", "db.dim", p)
        cat = SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
        want = expected()

        t, got = read_rows(cat)
        check(got == want, "pyiceberg reads the 8 appends")
        ranges = id_ranges(t)
        check(len(ranges) == BATCHES and all(lo < N // 100 and hi > N - N // 100 for lo, hi in ranges),
              "a sort order per write does not cluster: every file spans the id range")

        out = floe(wh, "table", "rewrite", "db.dim", "--strategy", "sort", "--target-file-size", "128KiB")
        check("files in 8 -> out" in out, f"sort rewrite summary: {out.strip()}")
        t, got = read_rows(cat)
        check(got == want, "pyiceberg reads the sort rewrite")
        ranges = id_ranges(t)
        check(len(ranges) >= 3, f"sort rewrite with a small target makes several files ({len(ranges)})")
        check(all(ranges[i][1] < ranges[i + 1][0] for i in range(len(ranges) - 1)),
              "sorted files have disjoint id ranges (pyiceberg's readable_metrics)")
        check(t.current_snapshot().summary.operation.value == "replace", "the rewrite is a replace")
        one = t.scan(row_filter="id == 1234")
        check(len(list(one.plan_files())) == 1, "pyiceberg's point lookup plans exactly one file")
        check(one.to_arrow().to_pylist() == [row(1234)], "point lookup row")

        floe(wh, "table", "rewrite", "db.dim", "--strategy", "binpack", "--rewrite-all")
        t, got = read_rows(cat)
        check(got == want and len(t.inspect.files()) == 1, "pyiceberg reads the bin-pack rewrite (one file)")

        floe(wh, "table", "rewrite", "db.dim", "--strategy", "sort", "--sort-by", "cat DESC, id", "--rewrite-all")
        t, got = read_rows(cat)
        check(got == want, "pyiceberg reads a multi-column sort rewrite")
        raw = t.scan().to_arrow().to_pylist()
        keys = [(r["cat"], -r["id"]) for r in raw]
        check(keys == sorted(keys, reverse=True), "rows come back in cat DESC, id ASC order")

        floe(wh, "table", "rewrite-manifests", "db.dim")
        t, got = read_rows(cat)
        check(got == want and len(t.inspect.manifests()) == 1, "pyiceberg reads after rewrite-manifests")

        before = len(t.inspect.snapshots())
        out = floe(wh, "table", "expire", "db.dim", "--older-than", "0s", "--retain-last", "1")
        t, got = read_rows(cat)
        check(got == want, f"pyiceberg reads after expiry ({out.strip()})")
        check(len(t.inspect.snapshots()) == 1 and before > 1, "expiry keeps only the current snapshot")
        live = {local(f["file_path"]) for f in t.inspect.files().to_pylist()}
        check(table_objects(wh, "data") == live, "expiry leaves no unreferenced data file and loses none")
        meta_avro = {p for p in table_objects(wh, "metadata") if p.endswith(".avro")}
        manifests = {local(m["path"]) for m in t.inspect.manifests().to_pylist()}
        lists = {local(t.current_snapshot().manifest_list)}
        check(meta_avro == manifests | lists, "expiry leaves only the current manifests and manifest list")

        stray_old = os.path.join(wh, "db.db", "dim", "data", "stray-old.parquet")
        stray_new = os.path.join(wh, "db.db", "dim", "data", "stray-new.parquet")
        for p in (stray_old, stray_new):
            with open(p, "wb") as fh:
                fh.write(b"junk")
        four_days_ago = (dt.datetime.now() - dt.timedelta(days=4)).timestamp()
        os.utime(stray_old, (four_days_ago, four_days_ago))
        out = floe(wh, "table", "remove-orphans", "db.dim")
        check(not os.path.exists(stray_old) and os.path.exists(stray_new),
              f"remove-orphans deletes only orphans older than 3 days ({out.strip().splitlines()[-1]})")
        os.remove(stray_new)
        t, got = read_rows(cat)
        check(got == want, "pyiceberg reads after remove-orphans")
        check(table_objects(wh, "data") == live, "remove-orphans deleted no live file")
    print("pyiceberg_maintenance: all checks passed")


if __name__ == "__main__":
    main()
