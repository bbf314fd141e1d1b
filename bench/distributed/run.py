#!/usr/bin/env python3
"""floe's write on an existing distributed engine: Ray tasks write, the driver commits once
(floe.ray.write) -- throughput on 1 core against 2, and whether the OTree layout depends on the
number of workers.

Workloads (`floe gen`, in --files files each: the Dataset's blocks):
  events       the chapter's events, day(event_ts)-partitioned and sorted by customer_id (design B)
  store_sales  TPC-DS store_sales laid out as an OTree on (ss_item_sk, ss_customer_sk), 500,000
               rows a cube; expected_rows given, so the write is a sampling pass, the tasks, and
               the commit
Arms, each a process tree pinned to its cores (taskset: Ray's raylet, the driver and the workers
all run on them, as on a machine of that size):
  ray, 1 worker    a local Ray cluster of 1 CPU on core 0
  ray, 2 workers   a local Ray cluster of 2 CPUs on cores 0-1
  (each write task reserves 1 CPU and floe runs on 1 thread in it, FLOE_THREADS; the Dataset is
  split into as many tasks as workers, rows_per_task; Ray Data's CPU reservation is off, which on
  2 CPUs otherwise lets one task run at a time)
  floe, 1 core / floe, 2 cores   floe's own single-process append (`floe table append` of the
                   same files), for reference
Each arm process writes once to warm up (its workers started, the caches filled), lets the
cluster settle (3 s) and writes once timed: from the Dataset -- read into Ray's object store before the clock starts -- to the commit,
plan and sampling included. Rounds interleave the arms, the order rotating, after one warm-up
round. Printed: each arm's median (min-max) seconds and rows/s, the 2-worker/1-worker throughput
ratio (target >= 1.8x) and floe's own 2-core/1-core ratio, and, for the OTree, whether the 1- and
2-worker tables hold the same revision and the same rows in every cube.

Usage: .venv/bin/python bench/distributed/run.py FLOE_BINARY [--rows 1000000,4000000]
       [--workloads events,store_sales] [--files 8] [--rounds 3] [--workdir DIR]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.abspath(__file__)


def package_path(floe_bin):
    # The build's package sits beside the binary: <build>/python.
    return os.path.join(os.path.dirname(os.path.abspath(floe_bin)), "python")


def spread(xs):
    return f"{statistics.median(xs):6.2f} s ({min(xs):.2f}-{max(xs):.2f})"


def create_args(workload):
    if workload == "events":
        return dict(partition_by="day(event_ts)", sort_by="customer_id")
    return dict(properties={"floe.layout": "otree(ss_item_sk, ss_customer_sk)",
                            "floe.otree.target-rows-per-file": "500000"})


def cubes_of(location):
    import pyarrow.parquet as pq

    out = {}
    for root, _, files in os.walk(os.path.join(location.replace("file://", ""), "data")):
        for f in files:
            if f.endswith(".parquet"):
                kv = pq.read_metadata(os.path.join(root, f)).metadata
                for entry in kv[b"floe.otree.cubes"].decode().split(","):
                    name, count, _ = entry.split(":")
                    out[name] = out.get(name, 0) + int(count)
    return out


def ray_arm(args):
    """One arm process: a Ray cluster of --workers CPUs, a warm-up write, a timed write."""
    import pyarrow.parquet as pq
    import ray

    import floe
    import floe.ray

    files = sorted(os.path.join(args.src, f) for f in os.listdir(args.src) if f.endswith(".parquet"))
    n = args.expected_rows
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.environ["PYTHONPATH"]}})
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.op_resource_reservation_enabled = False
    wh = floe.Warehouse(args.warehouse)
    schema = pq.read_schema(files[0])
    ds = ray.data.from_arrow([pq.read_table(f) for f in files]).materialize()
    out = {}
    for name in (args.table + "_warmup", args.table):
        if name == args.table:
            # The cluster settled: the processes Ray starts beside the warm-up's workers (its
            # prestarted ones importing, its agents) busy the arm's cores for a second or two
            # after ray.init, whatever the warm-up took.
            time.sleep(3)
        t = wh.create_table(name, schema, **create_args(args.workload))
        t0 = time.perf_counter()
        wrote = floe.ray.write(ds, t, expected_rows=n, concurrency=args.workers,
                               rows_per_task=-(-n // args.workers))
        out = {"seconds": time.perf_counter() - t0, "rows": wrote["rows"],
               "files": wrote["data_files"]}
    wh.drop_table(args.table + "_warmup", purge=True)
    ray.shutdown()
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--rows", default="1000000,4000000")
    ap.add_argument("--workloads", default="events,store_sales")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workdir")
    # One arm (run by main in a pinned process).
    ap.add_argument("--arm-ray", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--src", help=argparse.SUPPRESS)
    ap.add_argument("--warehouse", help=argparse.SUPPRESS)
    ap.add_argument("--table", help=argparse.SUPPRESS)
    ap.add_argument("--workload", help=argparse.SUPPRESS)
    ap.add_argument("--expected-rows", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    floe_bin = os.path.abspath(args.floe)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [package_path(floe_bin)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(0, package_path(floe_bin))
    if args.arm_ray:
        ray_arm(args)
        return
    import floe

    work = args.workdir or tempfile.mkdtemp(prefix="floe-distributed-")
    os.makedirs(work, exist_ok=True)
    summary = []
    for workload in args.workloads.split(","):
        for n in [int(x) for x in args.rows.split(",")]:
            src = os.path.join(work, f"{workload}-{n}")
            if not os.path.isdir(src):
                subprocess.run([floe_bin, "gen", workload, "--rows", str(n), "--out", src,
                                "--files", str(args.files), "--quiet"], check=True)
            files = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".parquet"))
            wh_dir = os.path.join(work, f"wh-{workload}-{n}")
            shutil.rmtree(wh_dir, ignore_errors=True)
            wh = floe.Warehouse(wh_dir)
            import pyarrow.parquet as pq

            schema = pq.read_schema(files[0])
            counter = [0]

            def fresh_name():
                counter[0] += 1
                return f"db.t{counter[0]}"

            def ray_run(workers, cpus):
                def run():
                    name = fresh_name()
                    out = subprocess.run(
                        ["taskset", "-c", cpus, sys.executable, HERE, floe_bin, "--arm-ray",
                         "--workers", str(workers), "--src", src, "--warehouse", wh_dir,
                         "--table", name, "--workload", workload, "--expected-rows", str(n)],
                        check=True, capture_output=True, text=True)
                    got = json.loads(out.stdout.strip().splitlines()[-1])
                    assert got["rows"] == n, got
                    return got["seconds"], name
                return run

            def floe_run(cpus):
                def run():
                    name = fresh_name()
                    wh.create_table(name, schema, **create_args(workload))
                    t0 = time.perf_counter()
                    subprocess.run(["taskset", "-c", cpus, floe_bin, "--warehouse", wh_dir,
                                    "--quiet", "table", "append", name] + files, check=True,
                                   stdout=subprocess.DEVNULL)
                    return time.perf_counter() - t0, name
                return run

            arms = {"ray, 1 worker (1 core)": ray_run(1, "0"),
                    "ray, 2 workers (2 cores)": ray_run(2, "0,1"),
                    "floe table append, 1 core": floe_run("0"),
                    "floe table append, 2 cores": floe_run("0,1")}
            names = list(arms)
            secs = {a: [] for a in names}
            last = {}
            for r in range(args.rounds + 1):
                for a in names[r % len(names):] + names[:r % len(names)]:
                    dt, table = arms[a]()
                    if a in last:
                        wh.drop_table(last[a], purge=True)
                    last[a] = table
                    if r > 0:
                        secs[a].append(dt)
            print(f"\n{workload}, {n:,} rows in {len(files)} files "
                  f"({sum(os.path.getsize(f) for f in files) / 1e6:.1f} MB of Parquet):")
            for a in names:
                med = statistics.median(secs[a])
                print(f"  {a:28s} {spread(secs[a])}  {n / med / 1e6:5.2f}M rows/s")
            med = {a: statistics.median(secs[a]) for a in names}
            ratio = med[names[0]] / med[names[1]]
            own = med[names[2]] / med[names[3]]
            print(f"  ray: 2 workers / 1 worker throughput {ratio:.2f}x (target >= 1.8x); "
                  f"floe alone: 2 cores / 1 core {own:.2f}x")
            line = {"workload": workload, "rows": n, "ray_ratio": round(ratio, 3),
                    "floe_ratio": round(own, 3), "seconds": secs}
            if workload == "store_sales":
                one = wh.load_table(last[names[0]])
                two = wh.load_table(last[names[1]])
                same_revision = (one.properties["floe.otree.revision"] ==
                                 two.properties["floe.otree.revision"])
                c1, c2 = cubes_of(one.describe()["location"]), cubes_of(two.describe()["location"])
                print(f"  OTree written by 1 and by 2 workers: same revision {same_revision}, "
                      f"same cubes {c1 == c2} ({len(c1)} cubes, {sum(c1.values()):,} rows)")
                line["same_revision"] = same_revision
                line["same_cubes"] = c1 == c2
            summary.append(line)
    print("\n" + json.dumps(summary))


if __name__ == "__main__":
    main()
