#!/usr/bin/env python3
"""floe's Parquet writer, checked by two independent readers (pyarrow and DuckDB).

floe_parquet_write_fixture writes the fixtures from formulas and a seeded generator; this script
recomputes the expected values from the same formulas (never from floe's output) and compares what
pyarrow and DuckDB read, plus the metadata both report: types, statistics, page index, encodings,
Bloom filters, row groups, and the metrics floe returned at close. It also has floe's Bloom filter
reader probe files written by pyarrow and DuckDB, whose inserted values are known.

usage: writer_interop.py --fixture <floe_parquet_write_fixture> --workdir <dir> [--seeds N]
"""
import argparse
import decimal
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import traceback
import uuid as uuidlib

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as e:  # the test must fail, loudly, not skip
    print(f"writer_interop: FAILED: needs pyarrow and duckdb (pip install -r scripts/requirements.txt "
          f"into .venv): {e}")
    sys.exit(1)

FAILURES = []
CHECKS = 0
decimal.getcontext().prec = 80  # decimal(38, s) values must not round


def check(cond, msg):
    global CHECKS
    CHECKS += 1
    if not cond:
        FAILURES.append(msg)
    return cond


def sql(query, *params):
    con = duckdb.connect()
    con.execute("SET threads=1")
    return con.execute(query, list(params)).fetchall()


# ---- value comparison --------------------------------------------------------------------------

def same_value(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def compare_lists(where, got, want):
    if not check(len(got) == len(want), f"{where}: {len(got)} values, expected {len(want)}"):
        return
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if not same_value(g, w)]
    check(not bad, f"{where}: {len(bad)} values differ, first at row {bad[0] if bad else 0}: "
                   f"got {got[bad[0]] if bad else None!r}, expected {want[bad[0]] if bad else None!r}")


def arrow_values(column):
    """A pyarrow column as Python values; temporal types as their integer counts."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if isinstance(arr.type, pa.BaseExtensionType):
        arr = arr.storage
    t = arr.type
    if pa.types.is_timestamp(t) or pa.types.is_time(t) or pa.types.is_date(t):
        arr = arr.cast(pa.int64() if not pa.types.is_date32(t) else pa.int32())
    return arr.to_pylist()


def dec(unscaled, scale):
    return decimal.Decimal(unscaled).scaleb(-scale)


# ---- the formulas of write_fixture_main.cc -----------------------------------------------------

def i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


# name, pyarrow type, duckdb expression kind, value(i)
ALL_TYPES = [
    ("b", pa.bool_(), "plain", lambda i: i % 3 == 0),
    ("i8", pa.int8(), "plain", lambda i: i % 256 - 128),
    ("i16", pa.int16(), "plain", lambda i: (i * 7) % 65536 - 32768),
    ("i32", pa.int32(), "plain", lambda i: i32(i * 2654435761)),
    ("i64", pa.int64(), "plain", lambda i: i * 1000000007 - 2500000000000),
    ("u8", pa.uint8(), "plain", lambda i: i % 256),
    ("u16", pa.uint16(), "plain", lambda i: (i * 31) % 65536),
    ("u32", pa.uint32(), "plain", lambda i: (i * 2654435761) & 0xFFFFFFFF),
    ("u64", pa.uint64(), "plain", lambda i: (i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF),
    ("f32", pa.float32(), "plain", lambda i: math.nan if i % 50 == 7 else (i % 100) * 0.25 - 10.0),
    ("f64", pa.float64(), "plain",
     lambda i: -0.0 if i == 10 else 0.0 if i == 11 else math.nan if i % 97 == 5 else i * 1.5 - 1000.0),
    ("dec9", pa.decimal128(9, 2), "plain", lambda i: dec((i * 12345) % 1000000000 - 500000000, 2)),
    ("dec18", pa.decimal128(18, 4), "plain", lambda i: dec(i * 123456789012 - 10**17, 4)),
    ("dec38", pa.decimal128(38, 10), "plain",
     lambda i: dec(-(i * 10**25 + 12345) if i % 2 else i * 10**25 + 12345, 10)),
    ("date", pa.date32(), "date", lambda i: i - 2500),
    ("time_us", pa.time64("us"), "epoch_us", lambda i: (i * 1000003) % 86400000000),
    ("time_ns", pa.time64("ns"), "epoch_ns", lambda i: (i * 1000000007) % 86400000000000),
    ("ts_us", pa.timestamp("us"), "epoch_us", lambda i: 1600000000000000 + i * 1000003),
    ("ts_us_utc", pa.timestamp("us", tz="UTC"), "epoch_us", lambda i: 1600000000000000 + i * 1000003 + 7),
    ("ts_ns", pa.timestamp("ns"), "epoch_ns", lambda i: 1600000000000000000 + i * 999999937),
    ("ts_ms_utc", pa.timestamp("ms", tz="UTC"), "epoch_ms", lambda i: 1600000000000 + i * 1000),
    ("str", pa.string(), "plain", lambda i: f"s{i % 97}-" + ("é" if i % 5 == 0 else "")),
    ("uuid", pa.binary(16), "uuid", lambda i: bytes((i * 31 + k * 17) % 256 for k in range(16))),
    ("bin", pa.binary(), "plain", lambda i: bytes((i * k) % 256 for k in range(i % 9))),
    ("fixed", pa.binary(5), "plain", lambda i: bytes((i + k) % 256 for k in range(5))),
    ("req_i64", pa.int64(), "plain", lambda i: i),
    ("req_str", pa.string(), "plain", lambda i: f"r{i % 13}"),
]
NULLABLE_ALL_TYPES = 25  # the first 25 columns; row i of column c is null when (i + c) % 7 == 3


def all_types_expected(n):
    cols = {}
    for c, (name, _, _, fn) in enumerate(ALL_TYPES):
        cols[name] = [None if c < NULLABLE_ALL_TYPES and (i + c) % 7 == 3 else fn(i) for i in range(n)]
    return cols


def duck_expr(name, kind):
    q = f'"{name}"'
    return {
        "plain": q,
        "date": f"({q} - DATE '1970-01-01')",
        "epoch_us": f"epoch_us({q})",
        "epoch_ns": f"epoch_ns({q})",
        "epoch_ms": f"epoch_ms({q})",
        "uuid": f"CAST({q} AS VARCHAR)",
    }[kind]


def duck_expected(kind, v):
    if v is None:
        return None
    if kind == "uuid":
        return str(uuidlib.UUID(bytes=v))
    return v


def duck_columns(path, exprs):
    rows = sql(f"SELECT {', '.join(exprs)} FROM read_parquet(?)", path)
    return [list(col) for col in zip(*rows)] if rows else [[] for _ in exprs]


# ---- a Thrift compact-protocol reader, from the Thrift spec, for what no peer exposes -------------
# (DuckDB 2.0.0 has no parquet_page_index, pyarrow shows only whether a page index exists.) It
# decodes any struct into {field id: value}, so the footer, page indexes and page headers are read
# here without floe's code.

class Compact:
    def __init__(self, buf, pos=0):
        self.buf, self.pos = buf, pos

    def byte(self):
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (1, 2):  # bool inside a struct: the type is the value
            return t == 1
        if t == 3:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if t in (4, 5, 6):
            return self.zigzag()
        if t == 7:
            self.pos += 8
            return struct.unpack("<d", self.buf[self.pos - 8:self.pos])[0]
        if t == 8:
            n = self.varint()
            self.pos += n
            return bytes(self.buf[self.pos - n:self.pos])
        if t in (9, 10):
            head = self.byte()
            n, et = head >> 4, head & 0x0F
            if n == 15:
                n = self.varint()
            if et in (1, 2):  # bools in a list: one byte each, 1 = true
                return [self.byte() == 1 for _ in range(n)]
            return [self.value(et) for _ in range(n)]
        if t == 11:
            n = self.varint()
            if n == 0:
                return {}
            kv = self.byte()
            return {self.value(kv >> 4): self.value(kv & 0x0F) for _ in range(n)}
        if t == 12:
            return self.struct()
        raise ValueError(f"thrift compact: unknown type {t} at {self.pos}")

    def struct(self):
        out, last = {}, 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            delta, t = head >> 4, head & 0x0F
            last = last + delta if delta else self.zigzag()
            out[last] = self.value(t)


def footer_of(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<I", data[-8:-4])[0]
    return data, Compact(data, len(data) - 8 - n).struct()


def page_indexes(path):
    """[(row group, column path, OffsetIndex, ColumnIndex or None, row group rows)], by field id."""
    data, meta = footer_of(path)
    out = []
    for r, rg in enumerate(meta[4]):
        for chunk in rg[1]:
            col = b".".join(chunk[3][3]).decode()
            oi = Compact(data, chunk[4]).struct() if 4 in chunk else None
            ci = Compact(data, chunk[6]).struct() if 6 in chunk else None
            out.append((r, col, oi, ci, rg[3], data))
    return out


# ---- checks ------------------------------------------------------------------------------------

def load_metrics(path):
    with open(path[: -len(".parquet")] + ".metrics.json") as f:
        return json.load(f)


def check_metrics_against_pyarrow(name, path, expected_cols=None):
    """floe's close-time metrics vs the footer as pyarrow parses it (and vs the formulas)."""
    m = load_metrics(path)
    md = pq.ParquetFile(path).metadata
    check(m["file_size"] == os.path.getsize(path), f"{name}: metrics file_size")
    check(m["num_rows"] == md.num_rows, f"{name}: metrics num_rows")
    check(len(m["split_offsets"]) == md.num_row_groups, f"{name}: one split offset per row group")
    for r in range(md.num_row_groups):
        c0 = md.row_group(r).column(0)
        start = c0.dictionary_page_offset if c0.has_dictionary_page else c0.data_page_offset
        check(m["split_offsets"][r] == start, f"{name}: split offset {r} is the first chunk's start")
        check(m["row_group_rows"][r] == md.row_group(r).num_rows, f"{name}: row group {r} rows")
    for j, col in enumerate(m["columns"]):
        total = sum(md.row_group(r).column(j).total_compressed_size for r in range(md.num_row_groups))
        check(col["compressed_size"] == total, f"{name}.{col['path']}: compressed size {col['compressed_size']} vs {total}")
        check(col["num_values"] == md.num_rows, f"{name}.{col['path']}: value count")
        if expected_cols is not None:
            values = expected_cols[col["path"][0]]
            nulls = sum(v is None for v in values)
            check(col["null_count"] == nulls, f"{name}.{col['path']}: null count {col['null_count']} vs {nulls}")
            if col["nan_count"] is not None:
                nans = sum(isinstance(v, float) and math.isnan(v) for v in values)
                check(col["nan_count"] == nans, f"{name}.{col['path']}: NaN count {col['nan_count']} vs {nans}")


def decode_plain(physical, hexbytes):
    b = bytes.fromhex(hexbytes)
    return {"INT32": lambda: struct.unpack("<i", b)[0], "INT64": lambda: struct.unpack("<q", b)[0],
            "FLOAT": lambda: struct.unpack("<f", b)[0], "DOUBLE": lambda: struct.unpack("<d", b)[0],
            }.get(physical, lambda: b)()


def check_all_types(workdir, name, n=5000):
    path = os.path.join(workdir, name + ".parquet")
    want = all_types_expected(n)
    pf = pq.ParquetFile(path)
    table = pf.read()
    check(table.num_rows == n, f"{name}: pyarrow reads {table.num_rows} rows")
    if name == "all_types_plain":  # written with page CRCs: pyarrow verifies every one
        verified = pq.read_table(path, page_checksum_verification=True)
        check(verified.num_rows == n, f"{name}: pyarrow verifies the page checksums")
    for col_name, typ, _, _ in ALL_TYPES:
        col = table.column(col_name)
        t = col.type.storage_type if isinstance(col.type, pa.BaseExtensionType) else col.type
        check(t == typ, f"{name}.{col_name}: pyarrow type {col.type}, expected {typ}")
        compare_lists(f"{name}.{col_name} (pyarrow)", arrow_values(col), want[col_name])
    check(getattr(table.schema.field("uuid").type, "extension_name", None) == "arrow.uuid",
          f"{name}.uuid: pyarrow sees the UUID logical type: {table.schema.field('uuid').type}")
    # Field ids, key-value metadata, created_by, logical and converted types as pyarrow parses them.
    for j, f in enumerate(table.schema):
        check(f.metadata and f.metadata.get(b"PARQUET:field_id") == str(j + 1).encode(),
              f"{name}.{f.name}: field id {f.metadata}")
    kv = pf.metadata.metadata or {}
    check(kv.get(b"floe.test") == b"all_types", f"{name}: key-value metadata passes through: {kv}")
    check(pf.metadata.created_by.startswith("floe version "), f"{name}: created_by {pf.metadata.created_by}")
    schema = pf.schema
    # Converted types as stored (pyarrow re-derives them from the logical type; DuckDB does not).
    expect_types = {
        "i8": ("INT32", "INT_8"), "u32": ("INT32", "UINT_32"), "u64": ("INT64", "UINT_64"),
        "dec9": ("INT32", "DECIMAL"), "dec18": ("INT64", "DECIMAL"), "dec38": ("FIXED_LEN_BYTE_ARRAY", "DECIMAL"),
        "date": ("INT32", "DATE"), "time_us": ("INT64", "TIME_MICROS"), "time_ns": ("INT64", None),
        "ts_us": ("INT64", "TIMESTAMP_MICROS"), "ts_us_utc": ("INT64", "TIMESTAMP_MICROS"),
        "ts_ns": ("INT64", None), "ts_ms_utc": ("INT64", "TIMESTAMP_MILLIS"), "str": ("BYTE_ARRAY", "UTF8"),
        "uuid": ("FIXED_LEN_BYTE_ARRAY", None), "bin": ("BYTE_ARRAY", None), "b": ("BOOLEAN", None),
    }
    stored = {r[0]: r[1:] for r in sql("SELECT name, type, converted_type, field_id FROM parquet_schema(?)", path)}
    for col_name, (phys, conv) in expect_types.items():
        check(stored[col_name][:2] == (phys, conv),
              f"{name}.{col_name}: stored physical/converted {stored[col_name][:2]}, expected {(phys, conv)}")
    check(schema.column(13).length == 16, f"{name}.dec38: FIXED_LEN_BYTE_ARRAY(16)")
    check("isAdjustedToUTC=true" in str(schema.column(18).logical_type), f"{name}.ts_us_utc: {schema.column(18).logical_type}")
    check("isAdjustedToUTC=false" in str(schema.column(17).logical_type), f"{name}.ts_us: {schema.column(17).logical_type}")
    check(str(schema.column(22).logical_type) == "UUID", f"{name}.uuid: {schema.column(22).logical_type}")
    # Page index for every chunk; statistics per row group against the formulas.
    md = pf.metadata
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        first = sum(md.row_group(k).num_rows for k in range(r))
        rows = range(first, first + rg.num_rows)
        for j in range(rg.num_columns):
            cc = rg.column(j)
            check(cc.has_offset_index, f"{name}: row group {r} column {j} has an offset index")
            check(cc.has_column_index, f"{name}: row group {r} column {j} has a column index")
            col_name = ALL_TYPES[j][0]
            vals = [want[col_name][i] for i in rows]
            st = cc.statistics
            check(st is not None and st.has_null_count and st.null_count == sum(v is None for v in vals),
                  f"{name}.{col_name} rg {r}: null count")
            if col_name in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "req_i64", "dec9", "dec18", "dec38"):
                present = [v for v in vals if v is not None]
                check(st.has_min_max and st.min == min(present) and st.max == max(present),
                      f"{name}.{col_name} rg {r}: min/max {st.min}/{st.max} vs {min(present)}/{max(present)}")
            if col_name in ("str", "bin", "fixed", "req_str"):
                present = [v.encode() if isinstance(v, str) else v for v in vals if v is not None]
                lo, hi = min(present), max(present)
                got_lo = st.min.encode() if isinstance(st.min, str) else st.min
                got_hi = st.max.encode() if isinstance(st.max, str) else st.max
                check(st.has_min_max and got_lo == lo and got_hi == hi,
                      f"{name}.{col_name} rg {r}: min/max {got_lo!r}/{got_hi!r} vs {lo!r}/{hi!r}")
            if col_name in ("f32", "f64"):
                present = [v for v in vals if v is not None and not math.isnan(v)]
                check(st.has_min_max and st.min == min(present) and st.max == max(present),
                      f"{name}.{col_name} rg {r}: min/max {st.min}/{st.max}")
    # DuckDB maps every column to the SQL type the annotations mean, and reads the same values.
    duck_types = dict(sql("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))", path))
    want_types = {"b": "BOOLEAN", "i8": "TINYINT", "i16": "SMALLINT", "i32": "INTEGER", "i64": "BIGINT",
                  "u8": "UTINYINT", "u16": "USMALLINT", "u32": "UINTEGER", "u64": "UBIGINT", "f32": "FLOAT",
                  "f64": "DOUBLE", "dec9": "DECIMAL(9,2)", "dec18": "DECIMAL(18,4)", "dec38": "DECIMAL(38,10)",
                  "date": "DATE", "time_us": "TIME", "time_ns": "TIME_NS", "ts_us": "TIMESTAMP",
                  "ts_us_utc": "TIMESTAMP WITH TIME ZONE", "ts_ns": "TIMESTAMP_NS",
                  "ts_ms_utc": "TIMESTAMP WITH TIME ZONE", "str": "VARCHAR", "uuid": "UUID", "bin": "BLOB",
                  "fixed": "BLOB", "req_i64": "BIGINT", "req_str": "VARCHAR"}
    for col_name, t in want_types.items():
        check(duck_types.get(col_name) == t, f"{name}.{col_name}: DuckDB type {duck_types.get(col_name)}, expected {t}")
    exprs = [duck_expr(c, kind) for c, _, kind, _ in ALL_TYPES]
    got = duck_columns(path, exprs)
    for (col_name, _, kind, _), values in zip(ALL_TYPES, got):
        compare_lists(f"{name}.{col_name} (duckdb)", values, [duck_expected(kind, v) for v in want[col_name]])
    # floe's close-time metrics.
    check_metrics_against_pyarrow(name, path, want)
    m = load_metrics(path)
    for col in m["columns"]:
        col_name = col["path"][0]
        present = [v for v in want[col_name] if v is not None and not (isinstance(v, float) and math.isnan(v))]
        phys = pf.schema.column([c[0] for c in ALL_TYPES].index(col_name)).physical_type
        if col_name in ("i32", "i64", "req_i64", "f32", "f64", "date", "ts_us", "ts_ns", "time_us"):
            lo, hi = decode_plain(phys, col["min"]), decode_plain(phys, col["max"])
            check(same_value(float(lo), float(min(present))) and same_value(float(hi), float(max(present))),
                  f"{name}.{col_name}: metrics min/max {lo}/{hi} vs {min(present)}/{max(present)}")
        if col_name == "req_str":
            check(bytes.fromhex(col["min"]) == b"r0" and bytes.fromhex(col["max"]) == b"r9",
                  f"{name}.req_str: metrics bounds")


CODEC_NAMES = {"uncompressed": "UNCOMPRESSED", "snappy": "SNAPPY", "gzip": "GZIP", "zstd": "ZSTD",
               "lz4_raw": "LZ4_RAW", "brotli": "BROTLI", "zstd19": "ZSTD"}


def check_codecs(workdir):
    n = 20000
    want = {"id": list(range(n)), "s": [None if i % 11 == 0 else f"name-{i % 101}" for i in range(n)],
            "d": [i * 0.5 for i in range(n)]}
    for codec, pq_name in CODEC_NAMES.items():
        name = f"codec_{codec}"
        path = os.path.join(workdir, name + ".parquet")
        t = pq.read_table(path)
        for c in want:
            compare_lists(f"{name}.{c} (pyarrow)", arrow_values(t.column(c)), want[c])
        md = pq.ParquetFile(path).metadata
        for r in range(md.num_row_groups):
            for j in range(md.num_columns):
                # pyarrow names LZ4_RAW "LZ4"; DuckDB (below) tells the two apart.
                check(md.row_group(r).column(j).compression == pq_name.replace("LZ4_RAW", "LZ4"),
                      f"{name}: codec {md.row_group(r).column(j).compression}")
        duck_codecs = {r[0] for r in sql("SELECT compression FROM parquet_metadata(?)", path)}
        check(duck_codecs == {pq_name}, f"{name}: DuckDB reads codec {duck_codecs}")
        got = duck_columns(path, ['"id"', '"s"', '"d"'])
        for c, vals in zip(["id", "s", "d"], got):
            compare_lists(f"{name}.{c} (duckdb)", vals, want[c])
        check_metrics_against_pyarrow(name, path, want)


def encoding_stats(path, column):
    """(page_type, encoding) -> count from DuckDB's parse of ColumnMetaData.encoding_stats."""
    rows = sql("SELECT encoding_stats FROM parquet_metadata(?) WHERE path_in_schema = ?", path, column)
    return [r[0] for r in rows]


def check_dict_fallback(workdir):
    name = "dict_fallback"
    path = os.path.join(workdir, name + ".parquet")
    n = 50000
    want = {"hc": [f"user-{i // 2:08d}" for i in range(n)], "lc": [f"c{i % 10}" for i in range(n)],
            "hc_int": [(i // 2) * 7919 % 1000003 for i in range(n)]}
    t = pq.read_table(path)
    for c in want:
        compare_lists(f"{name}.{c} (pyarrow)", arrow_values(t.column(c)), want[c])
    got = duck_columns(path, ['"hc"', '"lc"', '"hc_int"'])
    for c, vals in zip(want, got):
        compare_lists(f"{name}.{c} (duckdb)", vals, want[c])
    md = pq.ParquetFile(path).metadata
    for j, c in enumerate(["hc", "lc", "hc_int"]):
        enc = set(md.row_group(0).column(j).encodings)
        if c in ("hc", "hc_int"):
            check({"RLE_DICTIONARY", "PLAIN"} <= enc or {"RLE_DICTIONARY", "DELTA_BINARY_PACKED"} <= enc,
                  f"{name}.{c}: a dictionary that fell back: encodings {enc}")
            check(md.row_group(0).column(j).has_dictionary_page, f"{name}.{c}: dictionary page kept")
        else:
            check("RLE_DICTIONARY" in enc and "DELTA_BINARY_PACKED" not in enc, f"{name}.lc: encodings {enc}")
    stats = encoding_stats(path, "hc")
    text = str(stats)
    check("RLE_DICTIONARY" in text and "PLAIN" in text, f"{name}.hc: DuckDB's encoding stats {text}")
    hc_stats = sql("SELECT encoding_stats FROM parquet_metadata(?) WHERE path_in_schema='lc'", path)
    check("PLAIN" not in str(hc_stats).replace("DICTIONARY_PAGE', 'encoding': 'PLAIN", ""),
          f"{name}.lc: only dictionary data pages: {hc_stats}")


def check_delta_ints(workdir):
    name = "delta_ints"
    path = os.path.join(workdir, name + ".parquet")
    n = 100000
    want = {"ts": [1700000000000000 + i * 1000 + i % 7 for i in range(n)],
            "seq": [None if i % 1000 == 999 else i for i in range(n)]}
    t = pq.read_table(path)
    for c in want:
        compare_lists(f"{name}.{c} (pyarrow)", arrow_values(t.column(c)), want[c])
    got = duck_columns(path, ['"ts"', '"seq"'])
    for c, vals in zip(want, got):
        compare_lists(f"{name}.{c} (duckdb)", vals, want[c])
    md = pq.ParquetFile(path).metadata
    for j, c in enumerate(want):
        enc = set(md.row_group(0).column(j).encodings)
        check("DELTA_BINARY_PACKED" in enc and "RLE_DICTIONARY" not in enc, f"{name}.{c}: encodings {enc}")
    check_metrics_against_pyarrow(name, path, want)


def page_index_rows(n):
    return {
        "k": list(range(n)), "d": [-i for i in range(n)], "u": [(i * 7919) % 1000 for i in range(n)],
        "s": [f"key-{i:06d}" for i in range(n)],
        "n": [None if (i // 500) % 3 == 1 else i % 1000 for i in range(n)],
        "nanpage": [math.nan if 500 <= i < 1000 else float(i) for i in range(n)],
        "long": [None if i % 3 == 0 else "p" * 70 + str(i // 500) for i in range(n)],
    }


def read_page_index_fixture(workdir, name):
    """The rows of a page-index fixture, checked as pyarrow and DuckDB read them; (path, rows)."""
    path = os.path.join(workdir, name + ".parquet")
    want = page_index_rows(20000)
    t = pq.read_table(path)
    for c in want:
        compare_lists(f"{name}.{c} (pyarrow)", arrow_values(t.column(c)), want[c])
    got = duck_columns(path, [f'"{c}"' for c in want])
    for c, vals in zip(want, got):
        compare_lists(f"{name}.{c} (duckdb)", vals, want[c])
    return path, want


def check_page_index(workdir):
    name = "page_index"
    path, want = read_page_index_fixture(workdir, name)
    md = pq.ParquetFile(path).metadata
    cols = list(want)
    for r in range(md.num_row_groups):
        for j, c in enumerate(cols):
            cc = md.row_group(r).column(j)
            check(cc.has_offset_index, f"{name}.{c} rg {r}: offset index")
            # An all-NaN page has no bounds under TYPE_ORDER, so the spec forbids its column index.
            expect_ci = not (c == "nanpage" and r == 0)
            check(cc.has_column_index == expect_ci, f"{name}.{c} rg {r}: column index present = {cc.has_column_index}")
    i64 = lambda b: struct.unpack("<q", b)[0]
    i32v = lambda b: struct.unpack("<i", b)[0]
    decode = {"k": i64, "d": i64, "u": i32v, "n": i32v, "nanpage": lambda b: struct.unpack("<d", b)[0],
              "s": lambda b: b.decode(), "long": lambda b: b.decode()}
    expected_order = {"k": 1, "d": 2, "u": 0, "s": 1}  # ASCENDING, DESCENDING, UNORDERED
    seen = set()
    for rg, col, oi, ci, rg_rows, data in page_indexes(path):
        seen.add(col)
        check(oi is not None, f"{name}.{col} rg {rg}: offset index parses")
        check((ci is None) == (col == "nanpage" and rg == 0), f"{name}.{col} rg {rg}: column index presence")
        locs = oi[1]
        firsts = [loc[3] for loc in locs] + [rg_rows]
        for p, loc in enumerate(locs):
            # The location points at a page header whose size adds up, holding the rows said.
            c = Compact(data, loc[1])
            header = c.struct()
            check(c.pos - loc[1] + header[3] == loc[2], f"{name}.{col} rg {rg} page {p}: compressed_page_size")
            check(header[1] == 0 and header[5][1] == firsts[p + 1] - firsts[p],
                  f"{name}.{col} rg {rg} page {p}: a v1 data page of {firsts[p + 1] - firsts[p]} rows")
            check(firsts[p + 1] - firsts[p] == 500, f"{name}.{col} rg {rg} page {p}: 500 rows (the page row limit)")
            if ci is None:
                continue
            vals = want[col][rg * 10000 + firsts[p]: rg * 10000 + firsts[p + 1]]
            present = [v for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
            nulls = sum(v is None for v in vals)
            check(ci[5][p] == nulls, f"{name}.{col} rg {rg} page {p}: null count {ci[5][p]} vs {nulls}")
            check(ci[1][p] == (nulls == len(vals)), f"{name}.{col} rg {rg} page {p}: null page flag")
            if ci[1][p]:
                check(ci[2][p] == b"" and ci[3][p] == b"", f"{name}.{col} rg {rg} page {p}: null page bounds empty")
                continue
            lo, hi = decode[col](ci[2][p]), decode[col](ci[3][p])
            if col == "long":
                # 64-byte column index truncation: "p"*64 as min, "p"*63 + "q" as max.
                check(lo == "p" * 64 and hi == "p" * 63 + "q", f"{name}.long page bounds {lo!r}/{hi!r}")
            else:
                check(lo == min(present) and hi == max(present),
                      f"{name}.{col} rg {rg} page {p}: bounds {lo}/{hi} vs {min(present)}/{max(present)}")
        if ci is not None and col in expected_order:
            check(ci[4] == expected_order[col], f"{name}.{col} rg {rg}: boundary order {ci[4]}")
        if ci is not None and col == "nanpage":
            check(ci.get(8) == [0] * len(locs), f"{name}.nanpage rg {rg}: nan_counts {ci.get(8)}")
    check({"k", "d", "u", "s", "n", "long", "nanpage"} <= seen, f"{name}: page indexes of {seen}")
    # DuckDB 2.0.1 and later show the page index too: when there, it must agree.
    has_fn = sql("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'parquet_page_index'")[0][0]
    if has_fn:
        pages = sql("SELECT path_in_schema, null_count FROM parquet_page_index(?) WHERE path_in_schema = 'n'", path)
        check(sum(nc for _, nc in pages) == sum(v is None for v in want["n"]), f"{name}.n: DuckDB page null counts")


def check_colocated(workdir):
    """k and s co-located behind 14 row groups: peers read the same rows, and the layout is as said."""
    name = "colocated"
    path, want = read_page_index_fixture(workdir, name)
    # Filtered reads use the row-group statistics and page indexes of the moved chunks.
    hit = pq.read_table(path, filters=[("k", "==", 12345)]).to_pylist()
    check([r["s"] for r in hit] == ["key-012345"], f"{name}: pyarrow k = 12345 gives {hit[:2]}")
    rows = sql(f"SELECT s, d FROM read_parquet('{path}') WHERE k = 12345")
    check(rows == [("key-012345", -12345)], f"{name}: DuckDB k = 12345 gives {rows}")
    md = pq.ParquetFile(path).metadata
    check(md.num_row_groups == 14, f"{name}: {md.num_row_groups} row groups")
    cols = list(want)
    starts = {}
    for r in range(md.num_row_groups):
        for j, c in enumerate(cols):
            cc = md.row_group(r).column(j)
            start = cc.dictionary_page_offset if cc.has_dictionary_page else cc.data_page_offset
            starts[(r, c)] = (start, start + cc.total_compressed_size)
            check(cc.has_offset_index, f"{name}.{c} rg {r}: offset index")
    moved = [starts[(r, c)] for r in range(md.num_row_groups) for c in ("k", "s")]
    kept = [starts[(r, c)] for r in range(md.num_row_groups) for c in cols if c not in ("k", "s")]
    check(min(b for b, _ in moved) >= max(e for _, e in kept), f"{name}: k and s lie behind the row groups")
    # ... in one run ordered k_0, s_0, k_1, s_1, ..., and each row group's other chunks in one run.
    check(all(moved[i][1] == moved[i + 1][0] for i in range(len(moved) - 1)), f"{name}: co-located run is contiguous")
    for r in range(md.num_row_groups):
        own = sorted(starts[(r, c)] for c in cols if c not in ("k", "s"))
        check(all(own[i][1] == own[i + 1][0] for i in range(len(own) - 1)), f"{name} rg {r}: other chunks contiguous")


def probe(fixture, path, column, rg, typ, values):
    out = subprocess.run([fixture, "probe-bloom", path, column, str(rg), typ] + [str(v) for v in values],
                         capture_output=True, text=True)
    if not check(out.returncode == 0, f"probe-bloom {path} {column}: {out.stderr.strip()}"):
        return [0] * len(values)
    return [int(x) for x in out.stdout.split()]


def duck_probe(path, column, value_sql):
    rows = sql(f"SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, {value_sql}) "
               "ORDER BY 1", path, column)
    return {rg: excl for rg, excl in rows}


def check_bloom(workdir, fixture):
    name = "bloom"
    path = os.path.join(workdir, name + ".parquet")
    n = 30000
    fx = lambda i: struct.pack("<Q", (i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)
    want = {"id64": [i * 7 + 3 for i in range(n)], "id32": [i * 13 for i in range(n)],
            "s": [None if i % 10 == 9 else f"bloom-{i}" for i in range(n)], "fx": [fx(i) for i in range(n)],
            "d": [i * 0.25 for i in range(n)], "f": [i + 0.5 for i in range(n)],
            "lowcard": [f"v{i % 5}" for i in range(n)], "nobloom": list(range(n))}
    t = pq.read_table(path)
    for c in want:
        compare_lists(f"{name}.{c} (pyarrow)", arrow_values(t.column(c)), want[c])
    md = pq.ParquetFile(path).metadata
    check(md.num_row_groups == 3, f"{name}: {md.num_row_groups} row groups")
    for r in range(md.num_row_groups):
        for j, c in enumerate(want):
            d = md.row_group(r).column(j).to_dict()
            has = d.get("bloom_filter_offset") is not None
            check(has == (c != "nobloom"), f"{name}.{c} rg {r}: bloom filter present = {has}")
    # DuckDB probes floe's filters: every value present in a row group must not be excluded there.
    for c, lit in [("id64", lambda v: f"{v}::BIGINT"), ("id32", lambda v: f"{v}::INTEGER"),
                   ("s", lambda v: f"'{v}'"), ("d", lambda v: f"{v}::DOUBLE"), ("f", lambda v: f"{v}::FLOAT"),
                   ("lowcard", lambda v: f"'{v}'")]:
        for r in range(3):
            for i in range(r * 10000, r * 10000 + 10000, 997):
                v = want[c][i]
                if v is None:
                    continue
                res = duck_probe(path, c, lit(v))
                check(res.get(r) is False, f"{name}.{c}: DuckDB excludes present value {v!r} from rg {r}: {res}")
        absent = {"id64": [i * 7 + 4 for i in range(200)], "id32": [i * 13 + 1 for i in range(200)],
                  "s": [f"nope-{i}" for i in range(200)], "d": [i * 0.25 + 0.1 for i in range(200)],
                  "f": [i + 0.25 for i in range(200)], "lowcard": [f"w{i}" for i in range(200)]}[c]
        excluded = sum(duck_probe(path, c, lit(v)).get(0) is True for v in absent)
        check(excluded >= 180, f"{name}.{c}: DuckDB excludes only {excluded}/200 absent values in rg 0")
    # floe's own reader-side check on the same filters.
    for c, typ, fmt in [("id64", "int64", str), ("id32", "int32", str), ("s", "string", str),
                        ("fx", "hex", lambda b: b.hex()), ("d", "double", repr), ("f", "float", repr),
                        ("lowcard", "string", str)]:
        for r in range(3):
            present = [want[c][i] for i in range(r * 10000, r * 10000 + 10000, 101) if want[c][i] is not None]
            res = probe(fixture, path, c, r, typ, [fmt(v) for v in present])
            check(all(res), f"{name}.{c} rg {r}: floe's MightContain misses a present value")
    absent = [i * 7 + 4 for i in range(500)]
    res = probe(fixture, path, "id64", 0, "int64", absent)
    check(sum(res) <= 50, f"{name}.id64: floe's filter passes {sum(res)}/500 absent values")
    # A fixed NDV and no dictionary.
    path2 = os.path.join(workdir, "bloom_ndv.parquet")
    md2 = pq.ParquetFile(path2).metadata
    d = md2.row_group(0).column(0).to_dict()
    check(d.get("bloom_filter_length") and d["bloom_filter_length"] > 131072,
          f"bloom_ndv.id64: ndv 100000 at fpp 0.01 sizes a 128 KiB+ filter: {d.get('bloom_filter_length')}")
    res = probe(fixture, path2, "s", 0, "string", [f"bloom-{i}" for i in range(0, 10000, 7) if i % 10 != 9])
    check(all(res), "bloom_ndv.s: floe's MightContain misses a present value")


def check_peer_bloom_filters(workdir, fixture):
    """floe's Bloom filter reader on files pyarrow and DuckDB wrote: the values are the peers'."""
    path = os.path.join(workdir, "peer_pyarrow_bloom.parquet")
    n = 5000
    t = pa.table({"i": pa.array([i * 3 for i in range(n)], pa.int64()),
                  "j": pa.array([i * 5 for i in range(n)], pa.int32()),
                  "s": pa.array([f"peer-{i}" for i in range(n)]),
                  "d": pa.array([i / 8 for i in range(n)], pa.float64())})
    pq.write_table(t, path, bloom_filter_options={"i": {"ndv": n, "fpp": 0.01}, "j": True,
                                                  "s": {"ndv": n, "fpp": 0.01}, "d": True})
    for c, typ, vals, absent in [
        ("i", "int64", [i * 3 for i in range(0, n, 7)], [i * 3 + 1 for i in range(500)]),
        ("j", "int32", [i * 5 for i in range(0, n, 7)], [i * 5 + 2 for i in range(500)]),
        ("s", "string", [f"peer-{i}" for i in range(0, n, 7)], [f"other-{i}" for i in range(500)]),
        ("d", "double", [repr(i / 8) for i in range(0, n, 7)], [repr(i / 8 + 0.01) for i in range(500)]),
    ]:
        res = probe(fixture, path, c, 0, typ, vals)
        check(all(res), f"pyarrow bloom filter {c}: floe misses a value pyarrow inserted")
        res = probe(fixture, path, c, 0, typ, absent)
        check(sum(res) <= 50, f"pyarrow bloom filter {c}: floe passes {sum(res)}/500 absent values")
    # DuckDB writes Bloom filters for dictionary-encoded columns.
    dpath = os.path.join(workdir, "peer_duckdb_bloom.parquet")
    con = duckdb.connect()
    con.execute(f"COPY (SELECT (range * 11)::BIGINT AS i, 'duck-' || (range % 3000) AS s FROM range(20000)) "
                f"TO '{dpath}' (FORMAT parquet)")
    meta = sql("SELECT path_in_schema, bloom_filter_offset FROM parquet_metadata(?)", dpath)
    have = {p for p, off in meta if off is not None}
    check("s" in have, f"DuckDB wrote no Bloom filter for its dictionary column: {meta}")
    if "s" in have:
        res = probe(fixture, dpath, "s", 0, "string", [f"duck-{k}" for k in range(0, 3000, 13)])
        check(all(res), "duckdb bloom filter s: floe misses a value DuckDB inserted")
        res = probe(fixture, dpath, "s", 0, "string", [f"goose-{k}" for k in range(500)])
        check(sum(res) <= 50, f"duckdb bloom filter s: floe passes {sum(res)}/500 absent values")


def check_many_row_groups(workdir):
    name = "many_row_groups"
    path = os.path.join(workdir, name + ".parquet")
    n = 25000
    want = {"id": list(range(n)), "s": [None if i % 4 == 1 else f"row-{i * 7 % 1000}" for i in range(n)]}
    t = pq.read_table(path)
    for c in want:
        compare_lists(f"{name}.{c} (pyarrow)", arrow_values(t.column(c)), want[c])
    md = pq.ParquetFile(path).metadata
    check(md.num_row_groups == 25, f"{name}: {md.num_row_groups} row groups")
    for r in range(md.num_row_groups):
        st = md.row_group(r).column(0).statistics
        check(md.row_group(r).num_rows == 1000 and st.min == r * 1000 and st.max == r * 1000 + 999,
              f"{name}: row group {r} holds ids {st.min}..{st.max}")
    got = sql("SELECT count(*), sum(id), count(s) FROM read_parquet(?)", path)[0]
    check(got == (n, n * (n - 1) // 2, sum(v is not None for v in want["s"])), f"{name}: DuckDB aggregates {got}")
    check_metrics_against_pyarrow(name, path, want)
    name = "row_group_bytes"
    path = os.path.join(workdir, name + ".parquet")
    n = 200000
    md = pq.ParquetFile(path).metadata
    comp = [sum(md.row_group(r).column(j).total_compressed_size for j in range(2)) for r in range(md.num_row_groups)]
    check(md.num_row_groups >= 5, f"{name}: 256 KiB row groups cut {md.num_row_groups} row groups: {comp}")
    check(max(comp[:-1] or [0]) < 320 << 10 and min(comp[:-1] or [1 << 20]) > 200 << 10,
          f"{name}: row groups should be about 256 KiB: {comp}")
    h = lambda i: (i * 0x9E3779B97F4A7C15) & M64
    ids = [h(i) - (1 << 64) if h(i) >= 1 << 63 else h(i) for i in range(n)]
    got = sql("SELECT count(*), sum(id), count(s), min(s), max(s) FROM read_parquet(?)", path)[0]
    strs = [f"{h(i) >> 3:016x}" for i in range(n) if i % 4 != 1]
    check(got == (n, sum(ids), len(strs), min(strs), max(strs)), f"{name}: DuckDB aggregates {got}")
    check_metrics_against_pyarrow(name, path)


def check_stats_edges(workdir):
    name = "stats_edges"
    path = os.path.join(workdir, name + ".parquet")
    md = pq.ParquetFile(path).metadata
    cols = [md.schema.column(j).name for j in range(md.num_columns)]
    st = {c: md.row_group(0).column(j).statistics for j, c in enumerate(cols)}
    duck = {r[0]: r[1:] for r in sql(
        "SELECT path_in_schema, stats_min_value, stats_max_value, min_is_exact, max_is_exact, stats_nan_count, "
        "stats_null_count FROM parquet_metadata(?)", path)}
    check(st["fz"].has_min_max and st["fz"].min == 0 and math.copysign(1, st["fz"].min) == -1 and st["fz"].max == 1.0,
          f"{name}.fz: zero min written as -0.0: {st['fz'].min}/{st['fz'].max}")
    check(st["fz2"].min == -1.0 and st["fz2"].max == 0 and math.copysign(1, st["fz2"].max) == 1,
          f"{name}.fz2: zero max written as +0.0: {st['fz2'].min}/{st['fz2'].max}")
    check(st["fnan"].min == -3.5 and st["fnan"].max == 2.0, f"{name}.fnan: NaN excluded {st['fnan'].min}/{st['fnan'].max}")
    check(duck["fnan"][4] == 1, f"{name}.fnan: nan_count {duck['fnan'][4]}")
    check(not st["fallnan"].has_min_max and duck["fallnan"][0] is None and duck["fallnan"][4] == 3,
          f"{name}.fallnan: all NaN, no bounds: {duck['fallnan']}")
    check(not st["allnull"].has_min_max and st["allnull"].null_count == 3, f"{name}.allnull")
    # min b"\x01" * 20 (b"\x01\x02" sorts after it) cut to 16 bytes; max b"\x02\xff..." -> b"\x03".
    check(st["lbin"].min == b"\x01" * 16 and st["lbin"].max == b"\x03", f"{name}.lbin: {st['lbin'].min!r}/{st['lbin'].max!r}")
    check(duck["lbin"][2] is False and duck["lbin"][3] is False, f"{name}.lbin exactness {duck['lbin'][2:4]}")
    check(duck["i32"][2] is True and duck["i32"][3] is True, f"{name}.i32 exactness {duck['i32'][2:4]}")
    check(not st["lff"].has_min_max and duck["lff"][1] is None, f"{name}.lff: max of 0xFF bytes dropped {duck['lff']}")
    check(st["lff"].min_raw == b"\xff" * 16 if hasattr(st["lff"], "min_raw") and st["lff"].min_raw else True,
          f"{name}.lff: min truncated to 16 bytes")
    check(st["utf8long"].min == "a" and st["utf8long"].max == "ab" + "é" * 6 + "ê",
          f"{name}.utf8long: {st['utf8long'].min!r}/{st['utf8long'].max!r}")
    check(st["u64"].min == 1 and st["u64"].max == (1 << 63) + 5, f"{name}.u64: unsigned order {st['u64'].min}/{st['u64'].max}")
    check(st["dec38"].min == decimal.Decimal("-1.00") and st["dec38"].max == decimal.Decimal("0.03"),
          f"{name}.dec38: signed order {st['dec38'].min}/{st['dec38'].max}")
    check(st["i32"].min == -20 and st["i32"].max == 10, f"{name}.i32")
    check(st["emoji"].min == "a" + "z" * 15 and st["emoji"].max == "y",
          f"{name}.emoji: U+10FFFF not incremented: {st['emoji'].min!r}/{st['emoji'].max!r}")
    t = pq.read_table(path)
    compare_lists(f"{name}.lff", arrow_values(t.column("lff")), [b"\xff" * (20 + i) for i in range(3)])
    compare_lists(f"{name}.emoji", arrow_values(t.column("emoji")),
                  ["x" + "\U0010ffff" * 5, "w", "a" + "z" * 20])
    m = load_metrics(path)
    by = {c["path"][0]: c for c in m["columns"]}
    check(bytes.fromhex(by["lff"]["max"]) == b"\xff" * 22 and by["lff"]["max_truncated"] is None,
          f"{name}.lff: metrics keep the untruncated max, drop the truncated one")
    check(bytes.fromhex(by["utf8long"]["max"]).decode() == "ab" + "é" * 20, f"{name}.utf8long: metrics max")


def check_empty(workdir):
    path = os.path.join(workdir, "empty.parquet")
    t = pq.read_table(path)
    check(t.num_rows == 0 and t.schema.names == ["id", "s"], f"empty: {t.num_rows} rows, {t.schema.names}")
    check(sql("SELECT count(*) FROM read_parquet(?)", path)[0][0] == 0, "empty: DuckDB count")


# ---- seeded round trip (write_fixture_main.cc: Rng, WriteRoundTrip) -----------------------------

M64 = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        self.state = seed & M64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


KINDS = ["bool", "i32", "i64", "f32", "f64", "str", "bin", "date", "ts", "dec"]


def kind_value(kind, v, card):
    half = card // 2
    if kind == "bool":
        return v % 2 == 1
    if kind == "i32":
        return v - half
    if kind == "i64":
        return v * 1000000007 - card * 500000000
    if kind == "f32":
        return math.nan if v == 3 else (v - half) / 4.0
    if kind == "f64":
        return (v - half) / 8.0
    if kind == "str":
        return f"v{v}" + "ü" * (v % 3)
    if kind == "bin":
        return bytes([v % 256, (v >> 8) % 256, 255])
    if kind == "date":
        return v - 1000
    if kind == "ts":
        return 1700000000000000 + v * 1000000
    return dec(v * 1001 - card * 500, 3)


def roundtrip_case(seed):
    rng = Rng(seed * 1000003 + 17)
    ncols = 1 + rng.below(6)
    spec = []
    for _ in range(ncols):
        kind = KINDS[rng.below(len(KINDS))]
        nullable = rng.below(2) == 1
        per_mille = rng.below(300) if nullable else 0
        card = [2, 50, 1000, 100000][rng.below(4)]
        spec.append((kind, nullable, per_mille, card))
    nrows = rng.below(20000)
    for choices in ([20000, 1000, 37], [1, 2], [1, 2], [0, 5000, 777], range(6), range(2), range(4), range(3)):
        rng.below(len(choices))  # writer options: floe draws them here, the values matter only there
    cols = [[] for _ in range(ncols)]
    for _ in range(nrows):
        for c, (kind, nullable, per_mille, card) in enumerate(spec):
            if nullable and rng.below(1000) < per_mille:
                cols[c].append(None)
            else:
                cols[c].append(kind_value(kind, rng.below(card), card))
    return spec, nrows, cols


DUCK_KIND = {"date": "date", "ts": "epoch_us"}


def check_roundtrips(workdir, seeds):
    for seed in range(seeds):
        name = f"roundtrip_{seed}"
        path = os.path.join(workdir, name + ".parquet")
        spec, nrows, cols = roundtrip_case(seed)
        t = pq.read_table(path)
        check(t.num_rows == nrows, f"{name}: pyarrow reads {t.num_rows} rows, expected {nrows}")
        for c, (kind, _, _, _) in enumerate(spec):
            compare_lists(f"{name}.c{c} {kind} (pyarrow)", arrow_values(t.column(f"c{c}")), cols[c])
        exprs = [duck_expr(f"c{c}", DUCK_KIND.get(kind, "plain")) for c, (kind, _, _, _) in enumerate(spec)]
        got = duck_columns(path, exprs)
        for c, vals in enumerate(got):
            compare_lists(f"{name}.c{c} {spec[c][0]} (duckdb)", vals, cols[c])
        check_metrics_against_pyarrow(name, path, {f"c{c}": cols[c] for c in range(len(spec))})


def nested_expected(n=5000):
    rows = []
    for i in range(n):
        rows.append({
            "id": i,
            "l": None if i % 7 == 3 else [None if (i + k) % 5 == 0 else i * 10 + k for k in range(i % 4)],
            "s": None if i % 9 == 4 else {
                "a": None if i % 3 == 0 else i,
                "t": None if i % 4 == 1 else [f"t{i % 6}"] * (i % 3)},
            "m": None if i % 11 == 0 else [(f"k{j}", None if (i + j) % 4 == 0 else i * j)
                                           for j in range(i % 3)],
        })
    return rows


def check_nested(workdir):
    """list, struct and map columns (v1, v2, v2 without dictionary or compression): pyarrow and
    DuckDB read the formulas' rows; pages hold whole rows (the offset index counts rows in
    50-row pages); level counts, null counts and bounds of the leaves agree with pyarrow."""
    want = nested_expected()
    for name in ["nested", "nested_v2", "nested_v2_plain"]:
        path = os.path.join(workdir, name + ".parquet")
        got = pq.read_table(path).to_pylist()
        check(got == want, f"{name}: pyarrow reads the formulas' rows")
        duck = sql("select id, l, s, m from read_parquet(?) order by id", path)
        duck_want = [(r["id"], r["l"], r["s"], None if r["m"] is None else dict(r["m"])) for r in want]
        check(duck == duck_want, f"{name}: DuckDB reads the formulas' rows")
        md = pq.ParquetFile(path).metadata
        check(md.num_row_groups == 3, f"{name}: 3 row groups")
        schema = pq.ParquetFile(path).schema
        paths = [schema.column(c).path for c in range(md.num_columns)]
        check(paths == ["id", "l.list.element", "s.a", "s.t.list.element", "m.key_value.key",
                        "m.key_value.value"], f"{name}: leaf paths {paths}")
        ids = [schema.column(c).max_definition_level for c in range(md.num_columns)]
        check(ids == [0, 3, 2, 4, 2, 3], f"{name}: max definition levels {ids}")
        reps = [schema.column(c).max_repetition_level for c in range(md.num_columns)]
        check(reps == [0, 1, 0, 1, 1, 1], f"{name}: max repetition levels {reps}")
        start = 0
        for g in range(md.num_row_groups):
            rg = md.row_group(g)
            rows = want[start:start + rg.num_rows]
            start += rg.num_rows
            # l.list.element: a level entry per value, NULL list or empty list.
            entries = sum(max(len(r["l"] or []), 1) for r in rows)
            nulls = sum(1 for r in rows if not r["l"]) + sum(v is None for r in rows for v in (r["l"] or []))
            col = rg.column(1)
            check(col.num_values == entries, f"{name}: rg {g} l num_values {col.num_values} != {entries}")
            check(col.statistics.null_count == nulls, f"{name}: rg {g} l null_count")
            values = [v for r in rows for v in (r["l"] or []) if v is not None]
            check((col.statistics.min, col.statistics.max) == (min(values), max(values)),
                  f"{name}: rg {g} l bounds")
            col = rg.column(2)  # s.a: one per row
            check(col.num_values == rg.num_rows, f"{name}: rg {g} s.a num_values")
            check(col.statistics.null_count == sum(1 for r in rows if r["s"] is None or r["s"]["a"] is None),
                  f"{name}: rg {g} s.a null_count")
        # Every page starts a row: the offset index's first rows step by the page row limit, and
        # v2 headers count those rows (field 8: DataPageHeaderV2, its field 3: num_rows).
        for rg, col, oi, ci, rg_rows, data in page_indexes(path):
            firsts = [loc[3] for loc in oi[1]]
            check(firsts == list(range(0, rg_rows, 50)), f"{name}.{col} rg {rg}: pages start every 50 rows")
            if name != "nested":
                for p, loc in enumerate(oi[1]):
                    header = Compact(data, loc[1]).struct()
                    rows_in_page = min(50, rg_rows - loc[3])
                    check(header[1] == 3 and header[8][3] == rows_in_page,
                          f"{name}.{col} rg {rg} page {p}: a v2 page of {rows_in_page} rows")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--seeds", type=int, default=50)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    out = subprocess.run([args.fixture, "write", args.workdir, "--seeds", str(args.seeds)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"writer_interop: FAILED: the fixture writer failed: {out.stderr.strip()}")
        return 1
    steps = [
        ("all_types", lambda: check_all_types(args.workdir, "all_types")),
        ("all_types_v2", lambda: check_all_types(args.workdir, "all_types_v2")),
        ("all_types_plain", lambda: check_all_types(args.workdir, "all_types_plain")),
        ("all_types_small_groups", lambda: check_all_types(args.workdir, "all_types_small_groups")),
        ("codecs", lambda: check_codecs(args.workdir)),
        ("dict_fallback", lambda: check_dict_fallback(args.workdir)),
        ("delta_ints", lambda: check_delta_ints(args.workdir)),
        ("page_index", lambda: check_page_index(args.workdir)),
        ("colocated", lambda: check_colocated(args.workdir)),
        ("bloom", lambda: check_bloom(args.workdir, args.fixture)),
        ("peer_bloom", lambda: check_peer_bloom_filters(args.workdir, args.fixture)),
        ("row_groups", lambda: check_many_row_groups(args.workdir)),
        ("stats_edges", lambda: check_stats_edges(args.workdir)),
        ("empty", lambda: check_empty(args.workdir)),
        ("nested", lambda: check_nested(args.workdir)),
        ("roundtrips", lambda: check_roundtrips(args.workdir, args.seeds)),
    ]
    for step, fn in steps:
        before = len(FAILURES)
        try:
            fn()
        except Exception:
            FAILURES.append(f"{step}: raised\n{traceback.format_exc()}")
        print(f"{step}: {'ok' if len(FAILURES) == before else 'FAILED'}")
    print(f"pyarrow {pa.__version__}, duckdb {duckdb.__version__}: {CHECKS} checks, {len(FAILURES)} failed")
    for f in FAILURES[:60]:
        print("  FAIL", f)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
