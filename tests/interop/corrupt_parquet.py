#!/usr/bin/env python3
"""Flipped bytes in committed data files never change floe's answers (issue 16, point 3).

Two tables in one warehouse: one floe wrote (sorted, 1,000-row pages, so its page index prunes),
one whose data file pyarrow wrote with a page index and page CRCs (registered with pyiceberg's
add_files). For a sample of bytes across each file -- footer, column and offset indexes, page
headers and page bytes -- one bit is flipped and a handful of filtered queries run through
`floe query`: each run must print the answers the intact file gives, or fail with one line on
stderr naming the file; never a different answer, never a crash. floe's files carry CRCs of
their footer and page index, so every byte of them is sampled; in pyarrow's file only the
offset index and the pages are (nothing protects pyarrow's footer statistics or column index
values: a flipped bound there prunes wrongly in any reader).

Also the issue's reproduction: the count of a filtered query stays right when the predicate
column's offset index is damaged, and --stats says the index was read around.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from floe_cli import FLOE, check, floe

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, LongType, NestedField, StringType
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"corrupt_parquet: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

ROWS = 30_000


def queries(table):
    return "; ".join([
        f"select count(*) from {table} where customer_id < 170",
        f"select sum(quantity) from {table} where customer_id between 200 and 260",
        f"select count(*), min(customer_id) from {table} where country = 'US'",
        f"select count(*), sum(customer_id) from {table}",
        f"select count(*) from {table} where customer_id > 480 and quantity = 2",
    ])


def run(warehouse, sql, fmt="csv", *extra):
    return subprocess.run([FLOE, "--warehouse", warehouse, "--quiet", "query", "--format", fmt,
                           *extra, "-e", sql], capture_output=True, text=True)


def index_ranges(path):
    """(column index, offset index) byte ranges and the footer's start, from floe's inspect."""
    out = subprocess.run([FLOE, "parquet", "inspect", path], capture_output=True, text=True,
                         check=True).stdout
    pairs = [tuple(map(int, m)) for m in re.findall(
        r"column index \[(\d+), \+(\d+)\) offset index \[(\d+), \+(\d+)\)", out)]
    return pairs


def footer_start(path):
    data = open(path, "rb").read()
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def expect(cond, what):
    """check() without a line per success: thousands of runs would drown the log."""
    if not cond:
        raise SystemExit(f"FAIL: {what}")


def flip_and_check(warehouse, path, table, offsets):
    """Flips one bit at each offset in turn; returns (right, errors)."""
    sql = queries(table)
    good = run(warehouse, sql)
    check(good.returncode == 0, f"{table}: the intact file reads ({good.stderr.strip()})")
    original = open(path, "rb").read()
    right = errors = 0
    name = os.path.basename(path)
    try:
        for i, off in enumerate(offsets):
            b = bytearray(original)
            b[off] ^= 1 << (i % 8)
            with open(path, "wb") as f:
                f.write(b)
            r = run(warehouse, sql)
            where = f"{table}: byte {off} ^ {1 << (i % 8):#04x}"
            if r.returncode == 0:
                expect(r.stdout == good.stdout, f"{where}: the same answers\n{r.stdout}")
                right += 1
            else:
                err = r.stderr.rstrip("\n")
                expect(0 < r.returncode < 128, f"{where}: exit status {r.returncode}")
                expect("\n" not in err and name in err, f"{where}: one line naming the file: {err}")
                errors += 1
    finally:
        with open(path, "wb") as f:
            f.write(original)
    print(f"ok: {table}: {len(offsets)} flipped bytes, {right} answers right, {errors} errors")
    return right, errors


# Under the sanitizers (FLOE_SWEEP_THIN=3, set by tests/CMakeLists.txt for CI's time budget) every
# third of the bytes a release build flips.
THIN = int(os.environ.get("FLOE_SWEEP_THIN", "1"))


def sample(lo, hi, n):
    step = max(1, (hi - lo) // n)
    return list(range(lo, hi, step))


def events():
    ids = [(i * 7919) % 500 for i in range(ROWS)]
    ids.sort()
    countries = ["US", "FR", "DE", "JP", "BR"]
    schema = pa.schema([pa.field(name, typ, metadata={"PARQUET:field_id": str(i + 1)})
                        for i, (name, typ) in enumerate([("customer_id", pa.int32()),
                                                         ("country", pa.string()),
                                                         ("quantity", pa.int32())])])
    return pa.table({
        "customer_id": pa.array(ids, pa.int32()),
        "country": [countries[(i * 31) % 5] for i in range(ROWS)],
        "quantity": pa.array([1 + (i * 13) % 3 for i in range(ROWS)], pa.int32()),
    }, schema=schema)


def main():
    with tempfile.TemporaryDirectory() as w:
        src = os.path.join(w, "events.parquet")
        pq.write_table(events(), src)

        # floe's table: sorted by customer_id, pages of 1,000 rows.
        floe(w, "table", "create", "t.floe", "--like", src, "--sort-by", "customer_id",
             "--property", "write.parquet.page-row-limit=1000")
        floe(w, "table", "append", "t.floe", src)
        floe_file = next(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(w, "t.db", "floe", "data"))
                         for f in fs if f.endswith(".parquet"))

        # The case: the predicate column's offset index damaged, the count unchanged.
        good = run(w, "select count(*) from t.floe where customer_id < 170", "json")
        want = json.loads(good.stdout)["rows"]
        ci, ci_len, oi, oi_len = index_ranges(floe_file)[0]
        original = open(floe_file, "rb").read()
        b = bytearray(original)
        b[oi + oi_len // 2] ^= 0x40
        open(floe_file, "wb").write(b)
        r = run(w, "select count(*) from t.floe where customer_id < 170", "csv", "--stats")
        open(floe_file, "wb").write(original)
        check(r.returncode == 0, f"damaged offset index: the query answers ({r.stderr.strip()})")
        lines = r.stdout.splitlines()
        check(lines[1] == str(want[0][0]), f"damaged offset index: count {lines[1]} == {want[0][0]}")
        stats = json.loads(lines[-1])
        check(stats["metadata_rejected"] == 1, "damaged offset index: --stats counts it")
        check("column 'customer_id' of row group 0: its page index not used: the CRC-32 of its "
              "offset index is" in stats["warning"], f"the warning names it: {stats['warning']}")

        # Every region of floe's file: ~300 bytes spread over it, and every 7th of its page index
        # and footer.
        size = len(original)
        lo = min(r[0] for r in index_ranges(floe_file))
        offsets = sorted(set(sample(0, size, 300) + list(range(lo, size, 7))))
        flip_and_check(w, floe_file, "t.floe", offsets[::THIN])

        # pyarrow's file with a page index and page CRCs, 2 KiB pages, under pyiceberg.
        cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
        cat.create_namespace("p")
        t = cat.create_table("p.arrow", Schema(
            NestedField(1, "customer_id", IntegerType(), required=False),
            NestedField(2, "country", StringType(), required=False),
            NestedField(3, "quantity", IntegerType(), required=False)))
        arrow_file = os.path.join(w, "arrow.parquet")
        pq.write_table(events(), arrow_file, write_page_index=True, write_page_checksum=True,
                       data_page_size=2048, row_group_size=ROWS)
        t.add_files([arrow_file])
        pages_end = min(r[0] for r in index_ranges(arrow_file))
        offsets = sample(4, pages_end, 150)
        for _, _, oi, oi_len in index_ranges(arrow_file):
            offsets += list(range(oi, oi + oi_len, 5))
        flip_and_check(w, arrow_file, "p.arrow", sorted(set(offsets))[::THIN])

        # A flipped field id in pyarrow's footer (no CRC guards it): 'country' now has id 10, so
        # the file seems to lack field 2 -- which would read as a column of nulls, and every
        # filter on it as false. Its manifest entry records values for field 2: an error.
        data = bytearray(open(arrow_file, "rb").read())
        original = bytes(data)
        name = data.index(b"country", footer_start(arrow_file))
        field_id = data.index(b"\x35\x04", name, name + 24)  # field 9 (field_id), zigzag 2
        data[field_id + 1] = 0x14  # 10
        open(arrow_file, "wb").write(data)
        r = run(w, "select count(*) from p.arrow where country = 'US'")
        open(arrow_file, "wb").write(original)
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and arrow_file in r.stderr and
              "has no column with field id 2 ('country'), yet its manifest entry records values "
              "for it" in r.stderr,
              f"a lost field id is an error, not nulls: {r.returncode} {r.stderr.strip()}")
    print("corrupt_parquet: ok")


if __name__ == "__main__":
    main()
