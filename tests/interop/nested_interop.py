#!/usr/bin/env python3
"""Nested columns through floe's writer (issue 16, point 15).

pyarrow writes a file with struct, list, map, list-of-struct and list-of-list columns (nulls at
every level, empty lists, maps with null values); floe creates tables `--like` it (one plain, one
partitioned and sorted on flat columns, with 2-row pages) and appends it. Then:
- pyarrow and DuckDB read floe's data files and get the source's rows;
- pyiceberg scans the tables as it scans a copy it wrote itself; the manifests' value and null counts
  and column sizes are keyed by leaf field id, and leaves under a list or map have no bounds
  (struct leaves do);
- `floe query` gives the source's answers for select *, a struct field, count(*) and filters on
  flat columns; a CSV append to the nested table is still refused;
- the nested files of the parquet-testing corpus go through the same steps, each read back as
  pyarrow reads the source.

usage: nested_interop.py <floe binary>
"""
import json
import os
import random
import subprocess
import sys
import tempfile

from floe_cli import FLOE, check, floe

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"nested_interop: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

N = 3000
CORPUS = ["list_columns.parquet", "nested_lists.snappy.parquet", "nested_maps.snappy.parquet",
          "repeated_no_annotation.parquet", "old_list_structure.parquet", "map_no_value.parquet"]


def source_table():
    rnd = random.Random(15)

    def maybe(v, p=0.15):
        return None if rnd.random() < p else v

    rows = []
    for i in range(N):
        rows.append({
            "id": i,
            "country": rnd.choice(["US", "DE", "FR", None]),
            "s": maybe({"x": maybe(rnd.randint(-50, 50)), "y": maybe(f"y{i % 17}"),
                        "l": maybe([maybe(rnd.randint(0, 9)) for _ in range(rnd.randint(0, 4))])}),
            "m": maybe([(f"k{j}", maybe(rnd.random())) for j in range(rnd.randint(0, 3))]),
            "ls": maybe([maybe({"a": maybe(rnd.randint(0, 100)), "b": maybe(rnd.choice("pqrs"))})
                         for _ in range(rnd.randint(0, 3))]),
            "ll": maybe([maybe([maybe(rnd.randint(0, 5)) for _ in range(rnd.randint(0, 3))])
                         for _ in range(rnd.randint(0, 3))]),
        })
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("country", pa.string()),
        pa.field("s", pa.struct([("x", pa.int32()), ("y", pa.string()), ("l", pa.list_(pa.int64()))])),
        pa.field("m", pa.map_(pa.string(), pa.float64())),
        pa.field("ls", pa.list_(pa.struct([("a", pa.int32()), ("b", pa.string())]))),
        pa.field("ll", pa.list_(pa.list_(pa.int32()))),
    ])
    return pa.Table.from_pylist(rows, schema=schema)


def plain(v):
    """A pyarrow value as floe's JSON renders it: maps as [key, value] pairs."""
    if isinstance(v, tuple):
        return [plain(x) for x in v]
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def by_id(rows):
    return sorted(rows, key=lambda r: r["id"])


def query_json(w, sql):
    out = floe(w, "query", "--format", "json", "-e", sql)
    doc = json.loads(out)
    return [dict(zip(doc["columns"], r)) for r in doc["rows"]]


def main():
    src = source_table()
    want = by_id(src.to_pylist())
    with tempfile.TemporaryDirectory() as w:
        path = os.path.join(w, "nested.parquet")
        pq.write_table(src, path)
        floe(w, "table", "create", "n.plain", "--like", path)
        floe(w, "table", "append", "n.plain", path)
        floe(w, "table", "create", "n.split", "--like", path, "--partition-by", "country",
             "--sort-by", "id DESC", "--property", "write.parquet.page-row-limit=2",
             )
        floe(w, "table", "append", "n.split", path)
        cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
        # pyiceberg's own reading of the source, through a table it writes itself: its scan
        # turns a NULL list into [] (0.12), so floe's tables are compared with that.
        peer = cat.create_table("n.peer", schema=src.schema)
        peer.append(src)
        want_pyiceberg = by_id(peer.scan().to_arrow().to_pylist())

        for table in ["plain", "split"]:
            files = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(w, "n.db", table))
                     for f in fs if f.endswith(".parquet")]
            check(len(files) >= 1, f"{table}: floe wrote data files")
            got = by_id(pa.concat_tables([pq.read_table(f) for f in files]).to_pylist())
            check(got == want, f"{table}: pyarrow reads floe's files as the source")
            con = duckdb.connect()
            # (no hive partitioning: the country=null folder is not a value)
            q = "select * from read_parquet(?, hive_partitioning = false) order by id"
            check(con.execute(q, [files]).fetchall() == con.execute(q, [path]).fetchall(),
                  f"{table}: DuckDB reads floe's files as the source")
            schema = pq.ParquetFile(files[0]).schema_arrow
            ids = {f.name: f.metadata.get(b"PARQUET:field_id") for f in schema}
            check(all(v is not None for v in ids.values()), f"{table}: every top-level field has an id")

            t = cat.load_table(f"n.{table}")
            got = by_id(t.scan().to_arrow().to_pylist())
            check(got == want_pyiceberg, f"{table}: pyiceberg scans what it scans of its own copy")
            ischema = t.schema()

            def leaf_id(name):
                return ischema.find_field(name).field_id

            repeated = [leaf_id(n) for n in ["s.l.element", "m.key", "m.value", "ls.element.a",
                                             "ls.element.b", "ll.element.element"]]
            struct_leaves = [leaf_id("s.x"), leaf_id("s.y")]
            for f in t.inspect.files().to_pylist():
                vc, nc = dict(f["value_counts"]), dict(f["null_value_counts"])
                sizes = dict(f["column_sizes"])
                lower, upper = dict(f["lower_bounds"] or {}), dict(f["upper_bounds"] or {})
                local = f["file_path"].replace("file://", "")
                data = pq.read_table(local)
                for lid in repeated + struct_leaves:
                    check(lid in vc and lid in nc and lid in sizes, f"{table}: counts and sizes of leaf {lid}")
                check(all(lid not in lower and lid not in upper for lid in repeated),
                      f"{table}: no bounds for leaves under a list or map")
                xs = [r["x"] for r in data.column("s").to_pylist() if r is not None and r["x"] is not None]
                if xs:
                    lo = int.from_bytes(lower[leaf_id("s.x")], "little", signed=True)
                    hi = int.from_bytes(upper[leaf_id("s.x")], "little", signed=True)
                    check((lo, hi) == (min(xs), max(xs)), f"{table}: bounds of struct leaf s.x")
                # s.x: one value per row, nulls where it or its struct is null.
                nulls_x = sum(1 for r in data.column("s").to_pylist() if r is None or r["x"] is None)
                check(vc[leaf_id("s.x")] == data.num_rows and nc[leaf_id("s.x")] == nulls_x,
                      f"{table}: value and null counts of s.x")
                # ll.element.element: one level entry per value, null or empty list.
                entries = nulls = 0
                for outer in data.column("ll").to_pylist():
                    if not outer:
                        entries, nulls = entries + 1, nulls + 1
                        continue
                    for inner in outer:
                        if not inner:
                            entries, nulls = entries + 1, nulls + 1
                            continue
                        entries += len(inner)
                        nulls += sum(v is None for v in inner)
                lid = leaf_id("ll.element.element")
                check(vc[lid] == entries and nc[lid] == nulls, f"{table}: level counts of ll's leaf")

            name = f"n.{table}"
            check(query_json(w, f"select * from {name} order by id") == [plain(r) for r in want],
                  f"{table}: floe's select * equals the source")
            check(query_json(w, f"select count(*) as n from {name}") == [{"n": N}], f"{table}: count(*)")
            us = [r for r in want if r["country"] == "US" and r["id"] < 1000]
            got = query_json(w, f"select id, s, ls from {name} where country = 'US' and id < 1000 order by id")
            check(got == [plain({"id": r["id"], "s": r["s"], "ls": r["ls"]}) for r in us],
                  f"{table}: a filter on flat columns returns the source's nested values")
            got = query_json(w, f"select id, s.x, s.y from {name} where id between 10 and 60 order by id")
            exp = [{"id": r["id"], "x": r["s"]["x"] if r["s"] else None, "y": r["s"]["y"] if r["s"] else None}
                   for r in want if 10 <= r["id"] <= 60]
            check(got == exp, f"{table}: selecting struct fields")
        # CSV still cannot fill a nested column: one line, and the table is as it was.
        csv = os.path.join(w, "rows.csv")
        with open(csv, "w") as f:
            f.write("id,country,s,m,ls,ll\n9999,US,,,,\n")
        r = subprocess.run([FLOE, "--warehouse", w, "--quiet", "table", "append", "n.plain", csv],
                           capture_output=True, text=True)
        check(r.returncode != 0 and r.stderr.strip() == f"floe: unsupported: {csv}: CSV cannot fill nested "
              "column 's' (struct<x: int32, y: string, l: list<element: int64>>)",
              f"CSV into a nested table is refused in one line ({r.stderr.strip()})")
        check(query_json(w, "select count(*) as n from n.plain") == [{"n": N}], "the refused CSV left the table as it was")
        # The corpus's nested files (parquet-testing), each through --like and append.
        corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                              "testdata", "parquet-testing", "data")
        for i, name in enumerate(CORPUS):
            source = os.path.join(corpus, name)
            table = f"n.corpus{i}"
            floe(w, "table", "create", table, "--like", source)
            floe(w, "table", "append", table, source)
            rows = pq.read_table(source).to_pylist()
            canon = lambda rs: sorted(json.dumps(plain(r), sort_keys=True) for r in rs)
            check(canon(query_json(w, f"select * from {table}")) == canon(rows),
                  f"{name}: floe's select * equals pyarrow's reading of the source")
            files = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(w, "n.db", f"corpus{i}"))
                     for f in fs if f.endswith(".parquet")]
            got = pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()
            check(canon(got) == canon(rows), f"{name}: pyarrow reads floe's copy as the source")
    print("nested_interop: all checks passed")


if __name__ == "__main__":
    main()
