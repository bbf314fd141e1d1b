#!/usr/bin/env python3
"""Scan planning of a point predicate on 10,000 data files in 100 manifests: floe vs pyiceberg.

floe_bench_planning creates the table once in a fresh local warehouse (its SQLite catalog is the
one pyiceberg's SqlCatalog opens). Then each round plans `id = X` (X in a different file every
round) once with floe and once with pyiceberg, each in a fresh process so that neither keeps a
warm manifest cache across rounds; the timed part is load table + plan, measured inside each
process (interpreter and binary start-up excluded). Protocol: --warmup rounds of both arms, then
--rounds rounds interleaved floe, pyiceberg, floe, ...; median and min-max; ratio of medians.

usage: run.py [--bin build/release/bench/floe_bench_planning] [--files 10000] [--manifests 100]
              [--rounds 7] [--warmup 2]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PYICEBERG_PLAN = r"""
import json, sys, time
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import EqualTo
w, x = sys.argv[1], int(sys.argv[2])
t0 = time.perf_counter()
cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
tasks = list(cat.load_table("bench.planning").scan(row_filter=EqualTo("id", x)).plan_files())
ms = (time.perf_counter() - t0) * 1000
print(json.dumps({"ms": ms, "tasks": len(tasks), "path": tasks[0].file.file_path if tasks else None}))
"""


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"run.py: {' '.join(cmd[:3])} failed: {out.stderr.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt(xs):
    return f"{statistics.median(xs):8.1f} ms ({min(xs):.1f}-{max(xs):.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bin", default=os.path.join(here, "..", "..", "build", "release", "bench", "floe_bench_planning"))
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--manifests", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()
    w = tempfile.mkdtemp(prefix="floe-bench-planning-")
    made = run([args.bin, "--warehouse", w, "--create", "--files", str(args.files), "--manifests", str(args.manifests)])
    print(f"table bench.planning: {made['files']:,} data files in {made['manifests']} manifests ({w})")
    python = sys.executable
    floe_ms, py_ms = [], []
    for r in range(args.warmup + args.rounds):
        x = (r * 7919 % made["files"]) * 1000 + 17
        f = run([args.bin, "--warehouse", w, "--plan", "--id", str(x)])
        p = run([python, "-c", PYICEBERG_PLAN, w, str(x)])
        if f["tasks"] != 1 or p["tasks"] != 1:
            sys.exit(f"run.py: id = {x} should match one file; floe planned {f['tasks']}, pyiceberg {p['tasks']}")
        if r >= args.warmup:
            floe_ms.append(f["ms"][0])
            py_ms.append(p["ms"])
    print(f"floe      plan {fmt(floe_ms)}  manifests read {f['manifests_total'] - f['manifests_skipped']} "
          f"of {f['manifests_total']}, files considered {f['data_files_total']:,}, tasks {f['tasks']}")
    print(f"pyiceberg plan {fmt(py_ms)}  tasks {p['tasks']}")
    print(f"ratio: floe plans {statistics.median(py_ms) / statistics.median(floe_ms):.1f}x faster than pyiceberg "
          f"(medians of {args.rounds} interleaved rounds after {args.warmup} warm-up)")


if __name__ == "__main__":
    main()
