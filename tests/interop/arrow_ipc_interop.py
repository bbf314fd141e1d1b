#!/usr/bin/env python3
"""`floe query --format arrow`: Arrow IPC files and streams that pyarrow, Polars and DuckDB read.

pyarrow writes Parquet files holding every type floe's columns hold (bool, int8..int64, float,
double, narrow and wide decimals, string with NULLs, empty and long values, binary, uuid and
fixed, date, time, timestamps us/ns with and without UTC, list, struct, map). floe exports
`SELECT *` over them -- straight from a file (read_parquet) and from an Iceberg table the files
were appended to -- and over a 150000-row table, whose answer comes in several batches:
- pyarrow.ipc.open_file reads exactly the rows pyarrow reads from the Parquet files, with the
  types the test expects floe to choose (written out below, not taken from floe), every batch
  passing validate(full=True);
- the stream form on standard output reads the same (pyarrow.ipc.open_stream);
- Polars' read_ipc reads the file as it converts pyarrow's table; DuckDB when its Arrow
  extension is present without a download (else a printed skip);
- an empty answer is the schema and no batches;
- bad cases give one exact line: arrow to a terminal, two queries into one file or stream, a
  failing query leaving an earlier FILE as it was.

usage: arrow_ipc_interop.py <floe binary>
"""
import datetime
import decimal
import os
import pty
import random
import subprocess
import sys
import tempfile
import uuid

from floe_cli import FLOE, check, floe

try:
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq
except ImportError as e:  # fail, never skip, when the oracle is missing
    print(f"arrow_ipc_interop: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

N = 1200
FILES = 3
ROW_GROUP = 150  # rows per row group: several batches per answer

LONG = "long value " * 40


def source_table():
    rnd = random.Random(44)

    def maybe(v, p=0.1):
        return None if rnd.random() < p else v

    rows = []
    for i in range(N):
        rows.append({
            "id": i,
            "b": maybe(i % 3 == 0),
            "i8": maybe(rnd.randint(-128, 127)),
            "i16": maybe(rnd.randint(-32768, 32767)),
            "i32": maybe(rnd.randint(-2**31, 2**31 - 1)),
            "i64": maybe(rnd.randint(-2**63, 2**63 - 1)),
            "f32": maybe(rnd.uniform(-1e3, 1e3)),
            "f64": maybe(rnd.uniform(-1e9, 1e9)),
            "dec9": maybe(decimal.Decimal(rnd.randint(-10**8, 10**8)).scaleb(-2)),
            "dec18": maybe(decimal.Decimal(rnd.randint(-10**17, 10**17)).scaleb(-4)),
            "dec38": maybe(decimal.Decimal(rnd.randint(-10**37, 10**37)).scaleb(-9)),
            "s": maybe(["", "a", "héllo", LONG + str(i), f"s{i % 97}"][i % 5]),
            "bin": maybe(bytes(rnd.getrandbits(8) for _ in range(i % 7))),
            "u": maybe(uuid.UUID(int=rnd.getrandbits(128)).bytes),
            "fx": maybe(bytes(rnd.getrandbits(8) for _ in range(3))),
            "d": maybe(datetime.date(1970, 1, 1) + datetime.timedelta(days=rnd.randint(-9000, 30000))),
            "t": maybe(rnd.randint(0, 86400 * 10**6 - 1)),
            "ts": maybe(rnd.randint(-2 * 10**15, 4 * 10**15)),
            "tstz": maybe(rnd.randint(-2 * 10**15, 4 * 10**15)),
            # Whole microseconds: floe's SQL results hold timestamps in microseconds.
            "tsns": maybe(rnd.randint(-2 * 10**15, 4 * 10**15) * 1000),
            "tsnstz": maybe(rnd.randint(-2 * 10**15, 4 * 10**15) * 1000),
            "l": maybe([maybe(rnd.randint(0, 9)) for _ in range(rnd.randint(0, 4))]),
            "st": maybe({"x": maybe(rnd.randint(-50, 50)), "y": maybe(f"y{i % 13}")}),
            "m": maybe([(f"k{j}", maybe(rnd.randint(0, 10**12))) for j in range(rnd.randint(0, 3))]),
        })
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        ("b", pa.bool_()),
        ("i8", pa.int8()), ("i16", pa.int16()), ("i32", pa.int32()), ("i64", pa.int64()),
        ("f32", pa.float32()), ("f64", pa.float64()),
        ("dec9", pa.decimal128(9, 2)), ("dec18", pa.decimal128(18, 4)), ("dec38", pa.decimal128(38, 9)),
        ("s", pa.string()), ("bin", pa.binary()),
        ("u", pa.uuid()), ("fx", pa.binary(3)),
        ("d", pa.date32()), ("t", pa.time64("us")),
        ("ts", pa.timestamp("us")), ("tstz", pa.timestamp("us", tz="UTC")),
        ("tsns", pa.timestamp("ns")), ("tsnstz", pa.timestamp("ns", tz="UTC")),
        ("l", pa.list_(pa.int32())),
        ("st", pa.struct([("x", pa.int32()), ("y", pa.string())])),
        ("m", pa.map_(pa.string(), pa.int64())),
    ])
    return pa.Table.from_pylist(rows, schema=schema)


def run(warehouse, *args, stdout=subprocess.PIPE):
    return subprocess.run([FLOE, "--warehouse", warehouse, "--quiet", *args], stdout=stdout,
                          stderr=subprocess.PIPE)


def read_file(path):
    """The file's table, every batch validated in full."""
    with ipc.open_file(path) as r:
        batches = [r.get_batch(i) for i in range(r.num_record_batches)]
        for b in batches:
            b.validate(full=True)
        return pa.Table.from_batches(batches, schema=r.schema), len(batches)


def main():
    work = tempfile.mkdtemp(prefix="floe-arrow-")
    wh = os.path.join(work, "wh")
    src = source_table()
    step = N // FILES
    paths = []
    for k in range(FILES):
        p = os.path.join(work, f"part{k}.parquet")
        pq.write_table(src.slice(k * step, step), p, row_group_size=ROW_GROUP)
        paths.append(p)
    # The oracle: what pyarrow reads from the same files.
    oracle = pa.concat_tables([pq.read_table(p) for p in paths])
    # The warehouse and a table of the files (step 4).
    floe(wh, "table", "create", "db.t", "--like", paths[0])
    floe(wh, "table", "append", "db.t", *paths)

    # floe's types, as the test expects them (its own statement, not read from floe). A query's
    # result carries top-level integers as long, floats as double and timestamps in microseconds
    # (the `long`, `double`, `timestamp` of `--format json`'s types); nested values keep their
    # Parquet types. Decimals of every precision are decimal128 (floe stores 9- and 18-digit ones
    # in 16 bytes too), the uuid arrives as its storage, fixed_size_binary(16), and timestamptz
    # with the zone "UTC". The oracle's columns are cast to these types for the comparison.
    expected_types = {
        "id": pa.int64(), "b": pa.bool_(), "i8": pa.int64(), "i16": pa.int64(),
        "i32": pa.int64(), "i64": pa.int64(), "f32": pa.float64(), "f64": pa.float64(),
        "dec9": pa.decimal128(9, 2), "dec18": pa.decimal128(18, 4), "dec38": pa.decimal128(38, 9),
        "s": pa.string(), "bin": pa.binary(), "u": pa.binary(16), "fx": pa.binary(3),
        "d": pa.date32(), "t": pa.time64("us"), "ts": pa.timestamp("us"),
        "tstz": pa.timestamp("us", tz="UTC"), "tsns": pa.timestamp("us"),
        "tsnstz": pa.timestamp("us", tz="UTC"),
        "l": pa.list_(pa.field("element", pa.int32())),
        "st": pa.struct([("x", pa.int32()), ("y", pa.string())]),
        "m": pa.map_(pa.field("key", pa.string(), nullable=False), pa.int64()),
    }
    expected_schema = pa.schema([(name, t) for name, t in expected_types.items()])

    def compare(table, what):
        check(table.num_rows == N, f"{what}: {table.num_rows} rows")
        same = table.schema.equals(expected_schema)
        check(same, f"{what}: the schema is the one expected" +
              ("" if same else f"; got\n{table.schema}"))
        for name in oracle.column_names:
            got = table.column(name)
            want = oracle.column(name)
            if want.type != got.type:
                want = want.cast(got.type)
            check(got.equals(want), f"{what}: column {name} holds pyarrow's values")
        as_floe = pa.Table.from_arrays(
            [oracle.column(f.name).cast(f.type) for f in expected_schema], schema=expected_schema)
        check(table.equals(as_floe), f"{what}: pa.Table.equals the files as pyarrow reads them")

    # 1. Straight from the files: every type as pyarrow wrote it.
    whole = os.path.join(work, "all.parquet")
    pq.write_table(src, whole, row_group_size=ROW_GROUP)
    sql = f"SELECT * FROM read_parquet('{whole}')"
    out = os.path.join(work, "files.arrow")
    r = run(wh, "query", "--format", "arrow", "--output", out, "-e", sql)
    check(r.returncode == 0, f"export from read_parquet ({r.stderr.decode().strip()})")
    size = os.path.getsize(out)
    check(r.stdout.decode() == f"exported {N} rows to {out} (arrow, {size} bytes)\n",
          f"the export's line: {r.stdout.decode().strip()}")
    table, batches = read_file(out)
    compare(table, "read_parquet")

    # 2. The stream on standard output: the same table.
    r = run(wh, "query", "--format", "arrow", "-e", sql)
    check(r.returncode == 0 and r.stderr == b"", f"stream to a pipe ({r.stderr.decode().strip()})")
    with ipc.open_stream(r.stdout) as s:
        streamed = s.read_all()
    for b in streamed.to_batches():
        b.validate(full=True)
    check(streamed.equals(table), "open_stream reads what open_file read")

    # 3. Polars, DuckDB.
    try:
        import polars as pl
    except ImportError:
        print("skip: polars is not in .venv")
    else:
        df = pl.read_ipc(out, memory_map=False)
        check(df.shape == (N, len(oracle.column_names)), f"polars.read_ipc: {df.shape}")
        check(df.equals(pl.from_arrow(table)), "polars.read_ipc reads what pyarrow read")
        check(pl.read_ipc_stream(r.stdout).equals(df), "polars.read_ipc_stream reads the stream")
    try:
        import duckdb
        con = duckdb.connect()
        con.sql("SET autoinstall_known_extensions = false")
        con.sql("SET autoload_known_extensions = false")
        con.sql("LOAD nanoarrow")
    except Exception as e:  # noqa: BLE001 -- any failure to load means no reader to ask
        print(f"skip: DuckDB has no Arrow IPC reader here without a download "
              f"({str(e).splitlines()[0]})")
    else:
        got = con.sql(f"SELECT count(*), sum(i64::hugeint), count(s) FROM read_arrow('{out}')").fetchone()
        want = (N, sum(v for v in oracle.column("i64").to_pylist() if v is not None),
                oracle.column("s").drop_null().__len__())
        check(got == want, f"DuckDB read_arrow: {got}")

    # 4. The Iceberg table of the same files: several data files, Iceberg's types.
    out_t = os.path.join(work, "table.arrow")
    r = run(wh, "query", "--format", "arrow", "--output", out_t, "-e", "SELECT * FROM db.t")
    check(r.returncode == 0, f"export from an Iceberg table ({r.stderr.decode().strip()})")
    t2, batches = read_file(out_t)
    t2 = t2.sort_by("id")
    compare(t2, "Iceberg table")

    # Several batches: an answer of more rows than a batch holds (64 Ki), strings of every length.
    many = pa.table({
        "id": pa.array(range(150_000), pa.int64()),
        "s": [None if i % 11 == 0 else "" if i % 11 == 1 else LONG if i % 11 == 2 else f"v{i}"
              for i in range(150_000)],
    })
    many_path = os.path.join(work, "many.parquet")
    pq.write_table(many, many_path, row_group_size=30_000)
    floe(wh, "table", "create", "db.many", "--like", many_path)
    floe(wh, "table", "append", "db.many", many_path)
    out_m = os.path.join(work, "many.arrow")
    r = run(wh, "query", "--format", "arrow", "--output", out_m, "-e", "SELECT * FROM db.many")
    check(r.returncode == 0, f"export of 150000 rows ({r.stderr.decode().strip()})")
    t3, batches = read_file(out_m)
    check(batches > 1, f"several batches ({batches})")
    check(t3.sort_by("id").equals(many), "the batches hold pyarrow's rows")
    r = run(wh, "query", "--format", "arrow", "-e", "SELECT * FROM db.many")
    with ipc.open_stream(r.stdout) as s:
        streamed = list(s)
    for b in streamed:
        b.validate(full=True)
    # Scan workers deliver in the order they finish: the rows compared sorted.
    check(len(streamed) > 1 and pa.Table.from_batches(streamed).sort_by("id").equals(many),
          f"the stream's {len(streamed)} batches hold the same rows")

    # 5. An empty answer: the schema, no batches.
    out_e = os.path.join(work, "empty.arrow")
    r = run(wh, "query", "--format", "arrow", "--output", out_e, "-e",
            "SELECT * FROM db.t WHERE id < 0")
    check(r.returncode == 0 and r.stdout.decode() == f"exported 0 rows to {out_e} (arrow, "
          f"{os.path.getsize(out_e)} bytes)\n", f"empty export: {r.stdout.decode().strip()}")
    empty, batches = read_file(out_e)
    check(batches == 0 and empty.num_rows == 0 and empty.schema.equals(t2.schema),
          "an empty answer: the schema and zero batches")
    r = run(wh, "query", "--format", "arrow", "-e", "SELECT * FROM db.t WHERE id < 0")
    with ipc.open_stream(r.stdout) as s:
        check(s.read_all().num_rows == 0 and s.schema.equals(t2.schema), "an empty stream")

    # 6. Bad cases.
    master, slave = pty.openpty()
    r = run(wh, "query", "--format", "arrow", "-e", "SELECT 1 AS a", stdout=slave)
    os.close(slave)
    os.close(master)
    err = r.stderr.decode()
    check(r.returncode == 2 and err == "floe: invalid input: --format arrow writes binary Arrow "
          "IPC: give --output FILE, or pipe standard output to a reader\n",
          f"--format arrow to a terminal: exit {r.returncode}, {err.strip()}")
    two = os.path.join(work, "two.arrow")
    r = run(wh, "query", "--format", "arrow", "--output", two, "-e",
            "SELECT 1 AS a; SELECT 2 AS b")
    err = r.stderr.decode()
    check(r.returncode == 2 and err == f"floe: invalid input: --output '{two}' --format arrow "
          "holds one query's rows, and an earlier query's are there; run this one on its own\n",
          f"two queries into one file: exit {r.returncode}, {err.strip()}")
    check(read_file(two)[0].to_pydict() == {"a": [1]}, "the first query's rows are the file")
    r = run(wh, "query", "--format", "arrow", "-e", "SELECT 1 AS a; SELECT 2 AS b")
    err = r.stderr.decode()
    check(r.returncode == 2 and err == "floe: invalid input: --format arrow on standard output "
          "holds one query's rows, and an earlier query's are there; run this one on its own\n",
          f"two queries into one stream: exit {r.returncode}, {err.strip()}")
    with ipc.open_stream(r.stdout) as s:
        check(s.read_all().to_pydict() == {"a": [1]}, "the stream holds the first query's rows")
    before = open(out_e, "rb").read()
    r = run(wh, "query", "--format", "arrow", "--output", out_e, "-e", "SELECT nope FROM db.t")
    check(r.returncode != 0 and open(out_e, "rb").read() == before
          and not [f for f in os.listdir(work) if "floe-tmp" in f],
          f"a failing query leaves FILE as it was ({r.stderr.decode().strip()})")
    r = run(wh, "query", "--format", "arrow", "--output", "/dev/full", "-e", "SELECT 1 AS a")
    err = r.stderr.decode()
    check(r.returncode == 1 and err == "floe: io error: --output '/dev/full': write failed: No "
          "space left on device\n", f"--output /dev/full: {err.strip()}")
    print("all arrow IPC checks passed")


if __name__ == "__main__":
    main()
