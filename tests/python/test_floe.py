"""The Python package (python/floe) against pyarrow, pandas, Polars and DuckDB: tables created and
appended from their data, read back through the Arrow stream interface, with floe's numbers and
errors. Run by ctest (tests/CMakeLists.txt) with the build's package first on sys.path and the
floe binary in FLOE_BIN."""

import datetime as dt
import decimal
import json
import os
import subprocess
import sys

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import floe


@pytest.fixture
def wh(tmp_path):
    return floe.Warehouse(str(tmp_path / "wh"))


def typed_table(n=50):
    return pa.table(
        {
            "i8": pa.array([i % 100 - 50 for i in range(n)], pa.int8()),
            "i32": pa.array(range(n), pa.int32()),
            "i64": pa.array([i * 1_000_000_007 for i in range(n)], pa.int64()),
            "f64": pa.array([i / 3 for i in range(n)], pa.float64()),
            "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
            "s": pa.array([None if i % 7 == 0 else f"row {i} " + "x" * (i % 20) for i in range(n)]),
            "bin": pa.array([bytes([i % 256]) * (i % 5) for i in range(n)], pa.binary()),
            "d": pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(n)]),
            "ts": pa.array(
                [dt.datetime(2024, 1, 1) + dt.timedelta(minutes=i) for i in range(n)],
                pa.timestamp("us"),
            ),
            "tstz": pa.array(
                [dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=i) for i in range(n)],
                pa.timestamp("us", tz="UTC"),
            ),
            "dec": pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(10, 2)),
            "tags": pa.array([[j for j in range(i % 4)] for i in range(n)], pa.list_(pa.int64())),
            "point": pa.array(
                [{"x": i, "y": float(i) / 2} for i in range(n)],
                pa.struct([("x", pa.int64()), ("y", pa.float64())]),
            ),
        }
    )


def floe_types(t):
    """What a table of t's columns answers: Iceberg has no int8 (int), no unsigned types."""
    return t.cast(t.schema.set(0, pa.field("i8", pa.int32())))


def test_round_trip_every_type(wh):
    data = typed_table()
    t = wh.create_table("db.typed", data.schema)
    out = t.append(data)
    assert out["rows"] == 50
    assert out["data_files"] == 1
    back = t.scan().to_arrow()
    assert back.column_names == data.column_names
    assert back.equals(floe_types(data).cast(back.schema))
    assert back.schema.field("ts").type == pa.timestamp("us")
    assert back.schema.field("tstz").type == pa.timestamp("us", tz="UTC")
    assert back.schema.field("dec").type == pa.decimal128(10, 2)


def test_sliced_and_chunked_input(wh):
    data = typed_table(40)
    t = wh.create_table("db.sliced", data.schema)
    # Arrays with a non-zero offset (bitmaps off a byte boundary too) and several chunks.
    part = pa.concat_tables([data.slice(3, 11), data.slice(21, 9)])
    t.append(part)
    back = t.scan().to_arrow()
    assert back.equals(floe_types(part).cast(back.schema).combine_chunks())


def test_dictionary_and_large_types(wh):
    n = 30
    data = pa.table(
        {
            "cat": pa.array([["red", "green", None][i % 3] for i in range(n)]).dictionary_encode(),
            "big": pa.array([f"v{i}" for i in range(n)], pa.large_string()),
            "blob": pa.array([b"b" * i for i in range(n)], pa.large_binary()),
            "d64": pa.array([dt.date(2020, 2, 29) - dt.timedelta(days=i) for i in range(n)], pa.date64()),
            "sec": pa.array([i * 86_401 for i in range(n)], pa.timestamp("s")),
        }
    )
    t = wh.create_table("db.large", data.schema)
    t.append(data)
    back = t.scan().to_arrow()
    assert back.schema.field("cat").type == pa.string()
    assert back.column("cat").to_pylist() == [["red", "green", None][i % 3] for i in range(n)]
    assert back.column("big").to_pylist() == [f"v{i}" for i in range(n)]
    assert back.column("blob").to_pylist() == [b"b" * i for i in range(n)]
    assert back.column("d64").to_pylist() == [dt.date(2020, 2, 29) - dt.timedelta(days=i) for i in range(n)]
    assert back.column("sec").to_pylist() == [dt.datetime(1970, 1, 1) + dt.timedelta(seconds=i * 86_401) for i in range(n)]


def test_pandas_and_polars(wh):
    rows = 1000
    pdf = pd.DataFrame(
        {"id": range(rows), "name": [f"name-{i:04d}-long-enough-for-a-view" for i in range(rows)]}
    )
    t = wh.create_table("db.frames", pdf)
    assert t.append(pdf)["rows"] == rows
    # Polars hands strings over as views (some inline, some in data buffers).
    plf = pl.DataFrame({"id": list(range(rows, rows + 5)), "name": ["a", "bb", None, "x" * 13, "y" * 40]})
    assert t.append(plf)["rows"] == 5
    back = t.scan(filter=f"id >= {rows - 2}").to_polars().sort("id")
    assert back["id"].to_list() == [rows - 2, rows - 1] + list(range(rows, rows + 5))
    assert back["name"].to_list() == [
        f"name-{rows - 2:04d}-long-enough-for-a-view",
        f"name-{rows - 1:04d}-long-enough-for-a-view",
        "a", "bb", None, "x" * 13, "y" * 40,
    ]
    assert t.scan(columns=["id"]).to_pandas()["id"].sum() == sum(range(rows + 5))


def test_scan_prunes_and_counts_like_the_cli(wh, tmp_path):
    data = pa.table({"cat": ["a", "b", "c"] * 100, "v": list(range(300))})
    t = wh.create_table("db.parts", data.schema, partition_by="cat")
    assert t.append(data)["data_files"] == 3
    r = t.scan(filter="cat = 'b' AND v > 10", columns=["v"])
    assert not r.stats["complete"]
    got = pa.table(r)
    assert got.column_names == ["v"]
    assert sorted(got.column("v").to_pylist()) == [v for v in range(300) if v % 3 == 1 and v > 10]
    s = r.stats
    assert s["complete"]
    assert s["data_files_opened"] == 1
    assert s["data_files_skipped"]["partition"] == 2
    # The same statement through the floe command line counts the same requests and bytes.
    cli = subprocess.run(
        [os.environ["FLOE_BIN"], "--warehouse", str(tmp_path / "wh"), "query", "--stats",
         "--format", "csv", "-e", "SELECT v FROM db.parts WHERE cat = 'b' AND v > 10"],
        capture_output=True, text=True, check=True,
    )
    stats = json.loads(cli.stdout.strip().splitlines()[-1])
    assert s["requests"]["GET"] == stats["requests"]["GET"]
    assert s["bytes_fetched"] == stats["bytes_fetched"]
    assert s["data_files_opened"] == stats["data_files_opened"]


def test_results_stream_and_can_be_abandoned(wh):
    t = wh.create_table("db.big", pa.schema([("k", pa.int64()), ("s", pa.string())]))
    n = 300_000
    t.append(pa.table({"k": pa.array(range(n), pa.int64()), "s": [str(i) for i in range(n)]}))
    reader = pa.RecordBatchReader.from_stream(t.scan())
    first = reader.read_next_batch()
    assert 0 < first.num_rows < n
    del reader  # the statement stops; nothing hangs
    total = 0
    batches = 0
    for batch in pa.RecordBatchReader.from_stream(t.scan(columns=["k"])):
        total += batch.num_rows
        batches += 1
    assert total == n and batches > 1
    r = t.scan()
    pa.table(r)
    with pytest.raises(floe.FloeError, match="already read"):
        pa.table(r)


def test_duckdb_reads_a_result(wh):
    t = wh.create_table("db.duck", pa.schema([("x", pa.int32())]))
    t.append(pa.table({"x": pa.array(range(10), pa.int32())}))
    r = wh.sql("SELECT x, x * 2 AS y FROM db.duck WHERE x < 5")
    assert duckdb.sql("SELECT sum(y) FROM r").fetchall() == [(20,)]  # DuckDB finds `r` by name
    with pytest.raises(floe.FloeError, match="already read"):
        r.__arrow_c_stream__()


def test_sql_statements_run_at_once(wh):
    t = wh.create_table("db.dml", pa.schema([("x", pa.int64())]))
    t.append(pa.table({"x": list(range(10))}))
    wh.sql("DELETE FROM db.dml WHERE x < 4")  # its result never read
    wh.sql("SET read.strategy = 'eager'")  # holds for the warehouse's later statements
    assert wh.sql("SELECT value FROM floe_settings() WHERE name = 'read.strategy'").to_pylist() == [
        {"value": "eager"}
    ]
    assert wh.sql("SELECT count(*) AS n FROM db.dml").to_pylist() == [{"n": 6}]
    ops = [s["operation"] for s in t.snapshots()]
    assert ops[0] == "append" and len(ops) == 2
    assert t.snapshots()[1]["parent_id"] == t.snapshots()[0]["snapshot_id"]
    assert t.current_snapshot_id == t.snapshots()[1]["snapshot_id"]
    assert wh.tables() == ["db.dml"] and wh.namespaces() == ["db"]


def test_maintenance(wh):
    t = wh.create_table("db.m", pa.schema([("x", pa.int64())]))
    for i in range(3):
        t.append(pa.table({"x": [i]}))
    out = t.rewrite_data_files(options={"min-input-files": 2})
    assert out["rewritten_data_files_count"] == 3
    assert out["added_data_files_count"] == 1
    t.expire_snapshots(older_than="0s", retain_last=1)
    assert len(t.snapshots()) == 1
    assert sorted(t.scan().to_arrow().column("x").to_pylist()) == [0, 1, 2]


def test_errors_are_one_line_and_change_nothing(wh, tmp_path):
    with pytest.raises(floe.FloeError, match="db.missing"):
        wh.load_table("db.missing")
    t = wh.create_table("db.e", pa.schema([("x", pa.int64()), ("s", pa.string())]))
    t.append(pa.table({"x": [1], "s": ["a"]}))
    before = t.snapshots()
    with pytest.raises(floe.FloeError) as e:
        t.append(pa.table({"x": [[1, 2]], "s": ["b"]}))  # a list where the table has a long
    assert "\n" not in str(e.value) and "x" in str(e.value)

    def broken():
        yield pa.record_batch({"x": [2], "s": ["c"]})
        raise ValueError("the producer broke")

    reader = pa.RecordBatchReader.from_batches(pa.schema([("x", pa.int64()), ("s", pa.string())]), broken())
    with pytest.raises(floe.FloeError) as e:
        t.append(reader)
    assert str(e.value) == "reading the Arrow stream: Invalid: the producer broke"
    with pytest.raises(floe.FloeError, match="line 1"):
        wh.sql("SELEC 1")
    with pytest.raises(floe.FloeError, match="nope"):
        t.scan(filter="nope > 1")
    with pytest.raises(TypeError, match="Arrow data"):
        t.append([1, 2, 3])
    with pytest.raises(floe.FloeError):
        wh.create_table("db.bad", pa.schema([("x", pa.int64())]), partition_by="day(missing)")
    assert t.snapshots() == before
    assert wh.tables("db") == ["db.e"]
    with pytest.raises(floe.FloeError, match="not found|does not exist|no warehouse"):
        floe.Warehouse(str(tmp_path / "absent"), create=False)


def test_default_warehouse_sql(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOE_WAREHOUSE", str(tmp_path / "default"))
    monkeypatch.setattr(floe, "_default", None)
    assert floe.sql("SELECT 1 + 1 AS two").to_pylist() == [{"two": 2}]


def test_threads_follow_floe_threads():
    code = "import floe; print(floe.threads())"
    env = dict(os.environ, FLOE_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "1"
    env["FLOE_THREADS"] = "not a number"  # ignored: the CPUs this process may run on
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert int(out.stdout.strip()) == len(os.sched_getaffinity(0))
