#!/usr/bin/env python3
"""Parquet write (and scan) throughput: floe vs pyarrow, one thread, same rows, same settings.

Tables (the formulas are floe_bench_parquet's, bench_parquet.cc, repeated here in numpy):
  events  10M rows: ts timestamp[us, UTC], customer_id int64 (500 distinct), event_type string
          (8 distinct), amount double, sku string (20,000 distinct), quantity int32
  dim     1M rows x 60 columns: id int64, then 59 attributes cycling string / int32 / int64 / double
          with 5 / 20 / 100 / 1000 distinct values, every eighth column 10% null
Settings on both sides: zstd level 3, row groups of 1 Mi rows, 1 MiB pages of at most 20,000
rows, dictionary on (2 MiB limit), statistics, page index, data page v1.

Protocol: one warm-up run per arm, then the arms interleaved (floe, pyarrow, floe, ...) for
--rounds rounds; median and min-max of the timed part only (floe: open, write, close into memory;
pyarrow: pq.write_table into a BufferOutputStream). Then full scans of both files by DuckDB and
pyarrow (threads=1) and floe (floe_bench_parquet --read, one thread), interleaved;
DuckDB hashes every value (bit_xor(hash(col))) so that it must decode it, streaming; pyarrow
materialises the table; floe decodes every column into Arrow-layout batches, streaming (each batch
dropped before the next), after one unmeasured decode in its process.

usage: run.py [--bin build/.../floe_bench_parquet] [--rounds 5] [--scale 1.0] [--tables events,dim]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
except ImportError as e:
    sys.exit(f"run.py: needs the venv's pyarrow and duckdb (scripts/requirements.txt): {e}")

ROW_GROUP_ROWS = 1 << 20
U64 = pa.uint64()


def u(v):
    return pa.scalar(v, U64)


def mod(x, m):
    return pc.subtract(x, pc.multiply(pc.divide(x, u(m)), u(m)))


def h(i, k):
    """bench_parquet.cc's H(i, k) over a uint64 array (pyarrow's unchecked kernels wrap like C++)."""
    z = pc.add(pc.multiply(i, u(0x9E3779B97F4A7C15)), u((k * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, u(30))), u(0xBF58476D1CE4E5B9))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, u(27))), u(0x94D049BB133111EB))
    return pc.bit_wise_xor(z, pc.shift_right(z, u(31)))


def strings(dictionary, idx, mask=None):
    idx = idx.cast(pa.int64())
    if mask is not None:
        idx = pc.if_else(mask, pa.scalar(None, pa.int64()), idx)
    return pc.take(pa.array(dictionary, pa.string()), idx)


EVENT_TYPES = ["view", "click", "add_to_cart", "purchase", "refund", "search", "login", "logout"]


def events(rows):
    i = pa.array(range(rows), U64)
    ts = pc.add(pc.add(u(1700000000000000), pc.multiply(i, u(77760))), mod(h(i, 0), 1000000))
    skus = [f"SKU-{k:06d}" for k in range(20000)]
    return pa.table({
        "ts": ts.cast(pa.int64()).cast(pa.timestamp("us", tz="UTC")),
        "customer_id": pc.add(mod(h(i, 1), 500), u(1000)).cast(pa.int64()),
        "event_type": strings(EVENT_TYPES, mod(h(i, 2), 8)),
        "amount": pc.divide(mod(h(i, 3), 100000).cast(pa.float64()), 100.0),
        "sku": strings(skus, mod(h(i, 4), 20000)),
        "quantity": pc.add(mod(h(i, 5), 10), u(1)).cast(pa.int32()),
    })


def dim(rows):
    i = pa.array(range(rows), U64)
    cards = [5, 20, 100, 1000]
    cols = {"id": i.cast(pa.int64())}
    for c in range(59):
        salt, card = c + 10, cards[(c // 4) % 4]
        v = h(i, salt)
        kind = c % 4
        if kind == 0:
            mask = pc.equal(mod(h(i, salt + 100), 10), u(0)) if c % 8 == 0 else None
            cols[f"a{c}"] = strings([f"a{c}_{k}" for k in range(card)], mod(v, card), mask)
        elif kind == 1:
            cols[f"a{c}"] = mod(v, card).cast(pa.int32())
        elif kind == 2:
            cols[f"a{c}"] = mod(v, card * 10).cast(pa.int64())
        else:
            cols[f"a{c}"] = pc.divide(mod(v, 1000).cast(pa.float64()), 10.0)
    return pa.table(cols)


def pyarrow_write(table, path=None):
    sink = pa.BufferOutputStream()
    t0 = time.perf_counter()
    pq.write_table(table, sink, row_group_size=ROW_GROUP_ROWS, compression="zstd", compression_level=3,
                   use_dictionary=True, dictionary_pagesize_limit=2 << 20, data_page_size=1 << 20,
                   max_rows_per_page=20000, write_statistics=True, write_page_index=True,
                   data_page_version="1.0")
    buf = sink.getvalue()
    elapsed = time.perf_counter() - t0
    if path:
        with open(path, "wb") as f:
            f.write(buf)
    return elapsed, buf.size


def floe_write(binary, table, rows, path=None):
    cmd = [binary, "--table", table, "--rows", str(rows), "--codec", "zstd", "--level", "3",
           "--row-group-rows", str(ROW_GROUP_ROWS)]
    if path:
        cmd += ["--out", path]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return r["write_seconds"], r["file_bytes"]


def duckdb_scan(path, columns):
    con = duckdb.connect()
    con.execute("SET threads=1")
    # bit_xor(hash(c)) needs every value decoded; min() would be answered from the statistics.
    agg = ", ".join(f'bit_xor(hash("{c}"))' for c in columns)
    t0 = time.perf_counter()
    con.execute(f"SELECT {agg} FROM read_parquet('{path}')").fetchall()
    return time.perf_counter() - t0


def pyarrow_scan(path):
    t0 = time.perf_counter()
    pq.read_table(path, use_threads=False)
    return time.perf_counter() - t0


def floe_scan(binary, path):
    # One unmeasured decode first in the same process: DuckDB's and pyarrow's arms run in this
    # long-lived Python process, whose allocator has already been through scans.
    out = subprocess.run([binary, "--read", path, "--warmup", "1"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["read_seconds"]


def summary(xs):
    return statistics.median(xs), min(xs), max(xs)


def fmt(xs):
    m, lo, hi = summary(xs)
    return f"{m:7.3f} ({lo:.3f}-{hi:.3f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bin", default=os.path.join(here, "..", "..", "build", "release", "bench", "floe_bench_parquet"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scan-rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the row counts")
    ap.add_argument("--tables", default="events,dim")
    args = ap.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"run.py: no floe_bench_parquet at {args.bin} (build it in Release, pass --bin)")
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    tmp = tempfile.mkdtemp(prefix="floe-bench-parquet-")
    results = []
    for name in args.tables.split(","):
        rows = int((10_000_000 if name == "events" else 1_000_000) * args.scale)
        table = events(rows) if name == "events" else dim(rows)
        mb = table.nbytes / 1e6
        floe_file, py_file = os.path.join(tmp, f"{name}.floe.parquet"), os.path.join(tmp, f"{name}.pyarrow.parquet")
        floe_write(args.bin, name, rows, floe_file)  # warm-up, and the file the scans read
        pyarrow_write(table, py_file)
        ft, pt = [], []
        fsize = psize = 0
        for _ in range(args.rounds):
            s, fsize = floe_write(args.bin, name, rows)
            ft.append(s)
            s, psize = pyarrow_write(table)
            pt.append(s)
        results.append((name, rows, mb, ft, pt, fsize, psize))
        print(f"{name}: {rows:,} rows x {table.num_columns} columns, {mb:.0f} MB in Arrow memory", flush=True)
        print(f"  write floe    {fmt(ft)} s  {rows / statistics.median(ft) / 1e6:6.2f} M rows/s  "
              f"{mb / statistics.median(ft):7.1f} MB/s  file {fsize / 1e6:7.2f} MB")
        print(f"  write pyarrow {fmt(pt)} s  {rows / statistics.median(pt) / 1e6:6.2f} M rows/s  "
              f"{mb / statistics.median(pt):7.1f} MB/s  file {psize / 1e6:7.2f} MB")
        print(f"  ratio floe/pyarrow (time): {statistics.median(ft) / statistics.median(pt):.2f}x   "
              f"(file size): {fsize / psize:.2f}x", flush=True)
        # Scans: floe, DuckDB and pyarrow over both files, interleaved round by round after one
        # warm-up each. floe's time is measured inside its process (start-up excluded).
        cols = table.column_names
        readers = {"floe": lambda f: floe_scan(args.bin, f), "duckdb": lambda f: duckdb_scan(f, cols),
                   "pyarrow": pyarrow_scan}
        scans = {(r, w): [] for r in readers for w in ("floe", "pyarrow")}
        for (reader, writer) in scans:  # warm-up
            readers[reader](floe_file if writer == "floe" else py_file)
        for _ in range(args.scan_rounds):
            for (reader, writer), xs in scans.items():
                xs.append(readers[reader](floe_file if writer == "floe" else py_file))
        for (reader, writer), xs in scans.items():
            print(f"  scan {reader:8s} of {writer:7s} file {fmt(xs)} s  {rows / statistics.median(xs) / 1e6:6.2f} M rows/s")
        for writer in ("floe", "pyarrow"):
            f = statistics.median(scans[("floe", writer)])
            print(f"  decode ratio on the {writer} file: floe is {statistics.median(scans[('duckdb', writer)]) / f:.2f}x "
                  f"DuckDB's speed, {statistics.median(scans[('pyarrow', writer)]) / f:.2f}x pyarrow's", flush=True)
        results[-1] = results[-1] + (scans,)
    print()
    print("| table | rows | floe write s (min-max) | pyarrow write s (min-max) | floe/pyarrow | floe MB | pyarrow MB |")
    print("|---|---|---|---|---|---|---|")
    for name, rows, mb, ft, pt, fsize, psize, _ in results:
        print(f"| {name} | {rows:,} | {fmt(ft)} | {fmt(pt)} | {statistics.median(ft) / statistics.median(pt):.2f}x "
              f"| {fsize / 1e6:.2f} | {psize / 1e6:.2f} |")
    print()
    print("| table | file by | floe decode s | DuckDB s | pyarrow s | floe vs DuckDB | floe vs pyarrow |")
    print("|---|---|---|---|---|---|---|")
    for name, rows, mb, ft, pt, fsize, psize, scans in results:
        for w in ("floe", "pyarrow"):
            f, d, p = (scans[(r, w)] for r in ("floe", "duckdb", "pyarrow"))
            print(f"| {name} | {w} | {fmt(f)} | {fmt(d)} | {fmt(p)} | "
                  f"{statistics.median(d) / statistics.median(f):.2f}x | {statistics.median(p) / statistics.median(f):.2f}x |")


if __name__ == "__main__":
    main()
