#!/usr/bin/env python3
"""floe's Parquet reader against pyarrow (and DuckDB where pyarrow cannot read a file).

For every file of parquet-testing's data/ and bad_data/, runs parquet_dump (floe, through the
store read path) and compares its schema and values with what pyarrow reads, in one canonical
form: integers as numbers, floats by their bits (NaN as NaN), decimals as plain strings, dates /
times / timestamps as ISO strings computed here from the integer values, binary as hex, lists as
lists, structs as objects, maps as [key, value] pairs. Each file is read twice: with the default
batch size and 64 KiB tail, and with 3-row batches, an 8-byte tail (a second footer read and
separate data reads) and an unknown length.

Files floe cannot read must fail with the error listed in EXPECTED_ERRORS (so a regression or a
fix shows); bad_data files must fail cleanly or read exactly as pyarrow reads them. A crash (any
exit status but 0 or 2) fails the test. Missing pyarrow or DuckDB fails it too.
"""

import argparse
import datetime
import decimal
import json
import math
import os
import struct
import subprocess
import sys

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as e:  # never skip silently
    print(f"FAIL: the differential test needs pyarrow and duckdb in the venv: {e}", file=sys.stderr)
    print("      run: .venv/bin/pip install -r scripts/requirements.txt", file=sys.stderr)
    sys.exit(1)

# File (relative to the corpus) -> the start of the one-line error floe must give.
EXPECTED_ERRORS = {
    # Two 1 GiB strings: floe's batches use int32 offsets and do not yet split a batch by bytes.
    "data/large_string_map.brotli.parquet":
        "unsupported: parquet file '{uri}': column 'arr.key_value.key' of row group 0: byte array "
        "values exceed 2 GiB in one batch (int32 offsets)",
    # Page bytes that do not match their CRC-32 on purpose: floe verifies checksums by default,
    # pyarrow only when asked.
    "data/datapage_v1-corrupt-checksum.parquet":
        "corrupt: parquet file '{uri}': column 'a' of row group 0: page 0 at offset 4: CRC-32 of "
        "the page is 0f4f6d0a, its header says bbce3b9d",
    "data/rle-dict-uncompressed-corrupt-checksum.parquet":
        "corrupt: parquet file '{uri}': column 'long_field' of row group 0: page 0 at offset 4: "
        "CRC-32 of the page is 6522df69, its header says 6522df6a",
    "bad_data/ARROW-GH-41317.parquet":
        "corrupt: parquet file '{uri}': column 'timestamp_us_no_tz' of row group 0: column chunk "
        "ends after 0 of its 3 values",
    # Page headers are checked before any page is decoded: row group 1's broken header first.
    "bad_data/ARROW-GH-41321.parquet":
        "corrupt: parquet file '{uri}': column 'map_float32.key_value.value' of row group 1: page "
        "0 at offset 32869: PageHeader: DICTIONARY_PAGE num_values is missing or negative",
    "bad_data/ARROW-GH-45185.parquet":
        "corrupt: parquet file '{uri}': column 'x.list.element' of row group 0: page 0 at "
        "offset 4: the page starts with repetition level 1; a row must start at 0",
    "bad_data/ARROW-GH-47662.parquet":
        "corrupt: parquet file '{uri}': column 'flba_field' of row group 0: page 0 at offset 4: "
        "PLAIN FIXED_LEN_BYTE_ARRAY: page ends after 91 of 100 values",
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet":
        "corrupt: parquet file '{uri}': column 'name' of row group 0 claims bytes [129, +322) "
        "outside the data region [4, 291)",
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet":
        "corrupt: parquet file '{uri}': column 'outer.list.item.c' of row group 0: page 1 at "
        "offset 19: page holds 21 values, the chunk only 1 more",
    "bad_data/PARQUET-1481.parquet":
        "corrupt: parquet file '{uri}': FileMetaData: schema element 'Handle' has invalid "
        "physical type -7",
}

# Where floe's types differ from pyarrow's on purpose (see src/floe/parquet/schema.h).
TYPE_NOTES = """
  time32[ms] -> time64[us] (floe's columnar has no time32; values widened);
  timestamps with any zone -> [unit, UTC] (Parquet stores only isAdjustedToUTC);
  large_string/large_binary/dictionary -> string/binary/value type (restored by pyarrow from
  ARROW:schema; floe reads the Parquet types).
"""


def civil(days):
    """Proleptic Gregorian (y, m, d) of a day count since 1970-01-01."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (1 if m <= 2 else 0), m, d


def fmt_year(y):
    return f"{y:04d}" if y >= 0 else "-" + f"{-y:03d}"


def fmt_date(days):
    y, m, d = civil(days)
    return f"{fmt_year(y)}-{m:02d}-{d:02d}"


UNIT_PER_SECOND = {"s": 1, "ms": 1000, "us": 1000000, "ns": 1000000000}
UNIT_DIGITS = {"ms": 3, "us": 6, "ns": 9}


def fmt_time(v, unit):
    ps = UNIT_PER_SECOND[unit]
    secs, frac = divmod(v, ps)
    return (f"{secs // 3600:02d}:{(secs // 60) % 60:02d}:{secs % 60:02d}."
            f"{frac:0{UNIT_DIGITS[unit]}d}")


def fmt_timestamp(v, unit, zoned):
    per_day = UNIT_PER_SECOND[unit] * 86400
    day, rem = divmod(v, per_day)
    return fmt_date(day) + "T" + fmt_time(rem, unit) + ("Z" if zoned else "")


def float_key(v, fmt):
    """A float by its bits after rounding to the column's width; NaN is NaN."""
    if v is None:
        return None
    if isinstance(v, str):
        v = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    if math.isnan(v):
        return "NaN"
    return struct.pack("<" + fmt, v).hex()


def floe_type(t):
    """The floe type string of a pyarrow type (DataType::ToString)."""
    if pa.types.is_dictionary(t):
        return floe_type(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return floe_type(t.storage_type)
    simple = {
        pa.null(): "null", pa.bool_(): "bool", pa.int8(): "int8", pa.int16(): "int16",
        pa.int32(): "int32", pa.int64(): "int64", pa.uint8(): "uint8", pa.uint16(): "uint16",
        pa.uint32(): "uint32", pa.uint64(): "uint64", pa.float16(): "float16",
        pa.float32(): "float", pa.float64(): "double", pa.date32(): "date32",
        pa.string(): "string", pa.large_string(): "string", pa.binary(): "binary",
        pa.large_binary(): "binary",
    }
    if t in simple:
        return simple[t]
    if pa.types.is_decimal(t):
        return f"decimal({t.precision}, {t.scale})"
    if pa.types.is_time32(t):
        return "time64[us]"
    if pa.types.is_time64(t):
        return f"time64[{t.unit}]"
    if pa.types.is_timestamp(t):
        return f"timestamp[{t.unit}, UTC]" if t.tz else f"timestamp[{t.unit}]"
    if pa.types.is_fixed_size_binary(t):
        return f"fixed_size_binary[{t.byte_width}]"
    if pa.types.is_map(t):
        return f"map<{floe_type(t.key_type)}, {floe_type(t.item_type)}>"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list<{t.value_field.name}: {floe_type(t.value_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ", ".join(f"{f.name}: {floe_type(f.type)}" for f in t) + ">"
    return f"?{t}"


def canon_array(arr):
    """Canonical Python values of a pyarrow Array."""
    t = arr.type
    if pa.types.is_dictionary(t):
        return canon_array(arr.dictionary_decode())
    if isinstance(t, pa.ExtensionType):
        return canon_array(arr.storage)
    nulls = arr.is_null().to_pylist()
    if pa.types.is_null(t):
        return [None] * len(arr)
    if pa.types.is_map(t):
        keys = canon_array(arr.keys)
        items = canon_array(arr.items)
        offs = arr.offsets.to_pylist()
        return [None if nulls[i] else [[keys[j], items[j]] for j in range(offs[i], offs[i + 1])]
                for i in range(len(arr))]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        values = canon_array(arr.values)
        offs = arr.offsets.to_pylist()
        return [None if nulls[i] else values[offs[i]:offs[i + 1]] for i in range(len(arr))]
    if pa.types.is_struct(t):
        children = [(t.field(k).name, canon_array(arr.field(k))) for k in range(t.num_fields)]
        return [None if nulls[i] else {name: vals[i] for name, vals in children}
                for i in range(len(arr))]
    if pa.types.is_timestamp(t):
        ints = arr.cast(pa.int64()).to_pylist()
        return [None if v is None else fmt_timestamp(v, t.unit, t.tz is not None) for v in ints]
    if pa.types.is_date32(t):
        return [None if v is None else fmt_date(v) for v in arr.cast(pa.int32()).to_pylist()]
    if pa.types.is_time32(t):
        ints = arr.cast(pa.int32()).to_pylist()
        scale = 1000 if t.unit == "ms" else 1000000
        return [None if v is None else fmt_time(v * scale, "us") for v in ints]
    if pa.types.is_time64(t):
        return [None if v is None else fmt_time(v, t.unit) for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_floating(t):
        fmt = {16: "e", 32: "f", 64: "d"}[t.bit_width]
        return [float_key(v, fmt) for v in arr.to_pylist()]
    if pa.types.is_decimal(t):
        return [None if v is None else format(v, "f") for v in arr.to_pylist()]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return [None if v is None else v.hex() for v in arr.to_pylist()]
    return arr.to_pylist()


def canon_floe(v, t):
    """floe's JSON value, canonicalised with the pyarrow type it is compared with."""
    if v is None:
        return None
    if pa.types.is_dictionary(t):
        return canon_floe(v, t.value_type)
    if isinstance(t, pa.ExtensionType):
        return canon_floe(v, t.storage_type)
    if pa.types.is_floating(t):
        return float_key(v, {16: "e", 32: "f", 64: "d"}[t.bit_width])
    if pa.types.is_map(t):
        return [[canon_floe(k, t.key_type), canon_floe(x, t.item_type)] for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [canon_floe(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: canon_floe(v.get(f.name), f.type) for f in t}
    return v


def canon_duckdb(v):
    if v is None:
        return None
    if isinstance(v, dict):
        return [[canon_duckdb(k), canon_duckdb(x)] for k, x in v.items()]
    if isinstance(v, (list, tuple)):
        return [canon_duckdb(x) for x in v]
    if isinstance(v, float):
        return float_key(v, "d")
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        raise ValueError("temporal DuckDB values are not canonicalised here")
    return v


def expected_from_pyarrow(path):
    table = pq.read_table(path)
    names = [f.name for f in table.schema]
    types = [f.type for f in table.schema]
    columns = []
    for col in table.columns:
        values = []
        for chunk in col.chunks:
            values.extend(canon_array(chunk))
        columns.append(values)
    rows = [list(r) for r in zip(*columns)] if columns else []
    return names, types, rows


def expected_from_duckdb(path):
    con = duckdb.connect()
    rel = con.sql(f"SELECT * FROM read_parquet('{path}')")
    names = rel.columns
    rows = [[canon_duckdb(v) for v in r] for r in rel.fetchall()]
    return names, None, rows


def run_dump(dump, path, extra):
    p = subprocess.run([dump, path] + extra, capture_output=True)
    if p.returncode not in (0, 2):
        return None, f"exit status {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}"
    try:
        return json.loads(p.stdout), None
    except json.JSONDecodeError as e:
        return None, f"unparseable output ({e}): {p.stdout[:300]!r}"


VARIANTS = [[], ["--batch-rows", "3", "--tail-bytes", "8", "--unknown-length"]]


def check_file(dump, corpus, rel):
    """Returns (status, message): status is 'equal', 'expected-error' or 'FAIL'."""
    path = os.path.join(corpus, rel)
    uri = "file://" + os.path.abspath(path)
    expected_error = EXPECTED_ERRORS.get(rel)
    reference = None
    reference_error = None
    if expected_error is None:
        try:
            reference = ("pyarrow",) + expected_from_pyarrow(path)
        except Exception as e:  # pyarrow cannot read it
            reference_error = f"pyarrow: {type(e).__name__}: {e}"
            if rel.startswith("data/"):
                try:
                    reference = ("duckdb",) + expected_from_duckdb(path)
                except Exception as e2:
                    reference_error += f"; duckdb: {type(e2).__name__}: {e2}"
    # An expected failure is checked once; the peers need not read it.
    for extra in VARIANTS if expected_error is None else VARIANTS[:1]:
        out, crash = run_dump(dump, path, extra)
        if crash:
            return "FAIL", f"{rel} {extra}: floe crashed: {crash}"
        if "error" in out:
            if expected_error is not None:
                want = expected_error.format(uri=uri)
                if not out["error"].startswith(want):
                    return "FAIL", f"{rel} {extra}: error\n    {out['error']}\n  expected\n    {want}"
                continue
            if reference is None and rel.startswith("bad_data/"):
                return "FAIL", (f"{rel}: floe's error is not listed in EXPECTED_ERRORS:\n    "
                                f"{out['error']}")
            return "FAIL", f"{rel} {extra}: floe failed: {out['error']}"
        if expected_error is not None:
            return "FAIL", f"{rel} {extra}: floe read it, but EXPECTED_ERRORS says it fails"
        if reference is None:
            return "FAIL", f"{rel}: floe read it but no peer could ({reference_error})"
        peer, names, types, rows = reference
        got_names = [n for n, _ in out["schema"]]
        if got_names != list(names):
            return "FAIL", f"{rel}: columns {got_names} != {peer} {list(names)}"
        if types is not None:
            got_types = [t for _, t in out["schema"]]
            want_types = [floe_type(t) for t in types]
            if got_types != want_types:
                return "FAIL", f"{rel}: types {got_types}\n  != {peer} {want_types}"
        if len(out["rows"]) != len(rows):
            return "FAIL", f"{rel} {extra}: {len(out['rows'])} rows != {peer} {len(rows)}"
        for i, (got, want) in enumerate(zip(out["rows"], rows)):
            if types is not None:
                got = [canon_floe(v, t) for v, t in zip(got, types)]
            else:
                got = [canon_duckdb(v) if not isinstance(v, str) else v for v in got]
            if got != want:
                return "FAIL", f"{rel} {extra}: row {i}\n    floe {got}\n  {peer} {want}"
    if expected_error is not None:
        return "expected-error", rel
    return "equal", f"{rel} ({reference[0]})"


def check_page_pruning(dump, workdir):
    """Page pruning on files pyarrow writes with a page index and small pages, nested columns
    included: for `id = X` floe must return a run of whole rows that contains row X, exactly as
    pyarrow has them, while skipping pages."""
    import random
    n = 30000
    rnd = random.Random(7)
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "tags": pa.array([[f"t{i % 13}"] * (i % 4) if i % 5 else None for i in range(n)],
                         pa.list_(pa.string())),
        "s": pa.array([{"x": i % 11 if i % 9 else None, "ys": [i, -i][: i % 3]} for i in range(n)],
                      pa.struct([("x", pa.int32()), ("ys", pa.list_(pa.int64()))])),
        "m": pa.array([[(f"k{i}", rnd.random())] if i % 2 else [] for i in range(n)],
                      pa.map_(pa.string(), pa.float64())),
    })
    failures = []
    for version in ("1.0", "2.0"):
        path = os.path.join(workdir, f"pages_v{version}.parquet")
        pq.write_table(table, path, row_group_size=12000, data_page_size=512,
                       write_page_index=True, data_page_version=version, compression="snappy")
        names, types, rows = expected_from_pyarrow(path)
        for x in (0, 1, 4321, 11999, 12000, 29999):
            out, crash = run_dump(dump, path, ["--equal", f"id={x}", "--page-index",
                                               "--batch-rows", "7"])
            where = f"page pruning (data page v{version}) id={x}"
            if crash or "error" in out:
                failures.append(f"{where}: {crash or out['error']}")
                continue
            got = [[canon_floe(v, t) for v, t in zip(r, types)] for r in out["rows"]]
            ids = [r[0] for r in got]
            if x not in ids:
                failures.append(f"{where}: row {x} missing")
            elif any(rows[i] != r for i, r in zip(ids, got)):
                failures.append(f"{where}: rows differ from pyarrow's")
            elif ids != sorted(set(ids)) or not out["pages_skipped"] or len(ids) >= n:
                failures.append(f"{where}: {len(ids)} rows, {out['pages_skipped']} pages skipped")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--only", help="check only files whose path contains this")
    args = ap.parse_args()
    files = []
    for sub in ("data", "bad_data"):
        for root, _, names in os.walk(os.path.join(args.corpus, sub)):
            for n in names:
                if n.endswith(".parquet"):
                    files.append(os.path.relpath(os.path.join(root, n), args.corpus))
    files.sort()
    if args.only:
        files = [f for f in files if args.only in f]
    if not files:
        print(f"FAIL: no Parquet files under {args.corpus}", file=sys.stderr)
        return 1
    for rel in EXPECTED_ERRORS:
        if rel not in files and not args.only:
            print(f"FAIL: EXPECTED_ERRORS names {rel}, which is not in the corpus", file=sys.stderr)
            return 1
    counts = {"equal": 0, "expected-error": 0, "FAIL": 0}
    for rel in files:
        status, message = check_file(args.dump, args.corpus, rel)
        counts[status] += 1
        print(f"{status:15s} {message}", flush=True)
    print(f"\n{counts['equal']} files read equal to the peers, {counts['expected-error']} fail "
          f"as expected, {counts['FAIL']} FAIL (of {len(files)})")
    pruning = []
    if not args.only:
        import tempfile
        with tempfile.TemporaryDirectory() as workdir:
            pruning = check_page_pruning(args.dump, workdir)
        for f in pruning:
            print(f"FAIL            {f}")
        print(f"page pruning on pyarrow-written files: {'FAIL' if pruning else 'ok'}")
    return 1 if counts["FAIL"] or pruning else 0


if __name__ == "__main__":
    sys.exit(main())
