"""floe table add-files against the peers: pyarrow writes Parquet files without field ids (a list
and a struct column among them, in Hive `region=...` directories), floe registers them where they
are, and pyiceberg, DuckDB (iceberg_scan, from .venv-tpch) and floe itself read back exactly the
rows pyarrow wrote. pyiceberg's own Table.add_files over the same files is the oracle of the
metrics floe records (counts, sizes, bounds, split offsets) and of the name mapping."""
import json
import os
import subprocess
import sys
import tempfile

from floe_cli import check, floe

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:
    print(f"add_files_interop: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source(start, n, region):
    ids = list(range(start, start + n))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 7 == 0 else f"name-{i:04d}" for i in ids], pa.string()),
        "region": pa.array([region] * n, pa.string()),
        "score": pa.array([i / 4 for i in ids], pa.float64()),
        "tags": pa.array([[i, i + 1] if i % 3 else [] for i in ids], pa.list_(pa.int64())),
        "info": pa.array([{"x": i * 10, "y": f"y{i}"} for i in ids],
                         pa.struct([("x", pa.int64()), ("y", pa.string())])),
    })


def duckdb_rows(metadata):
    """Every row DuckDB's iceberg_scan reads, as JSON, from .venv-tpch's DuckDB and extensions."""
    py = os.path.join(ROOT, ".venv-tpch", "bin", "python")
    code = """
import duckdb, glob, json, os, sys
con = duckdb.connect()
site = os.path.dirname(os.path.dirname(duckdb.__file__))
for ext in ("avro", "iceberg"):
    con.execute("LOAD '%s'" % glob.glob(os.path.join(site, "duckdb_extension_" + ext, "extensions",
                                                     "*", ext + ".duckdb_extension"))[0])
rows = con.execute("select id, name, region, score, tags, info from iceberg_scan('%s') order by id"
                   % sys.argv[1]).fetchall()
print("@rows " + json.dumps([list(r) for r in rows]))
"""
    r = subprocess.run([py, "-c", code, metadata], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: DuckDB's iceberg_scan: {r.stderr.strip()[-600:]}")
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("@rows ")]
    if len(lines) != 1:
        raise SystemExit(f"FAIL: DuckDB's iceberg_scan printed {r.stdout[:300]!r}")
    return json.loads(lines[0][len("@rows "):])


def as_rows(table):
    return [[r["id"], r["name"], r["region"], r["score"], r["tags"], r["info"]]
            for r in sorted(table.to_pylist(), key=lambda r: r["id"])]


def metrics(t):
    """Each data file's metrics as pyiceberg reads them from the manifests, by file path."""
    out = {}
    for task in t.scan().plan_files():
        f = task.file
        out[f.file_path] = {
            "record_count": f.record_count, "file_size_in_bytes": f.file_size_in_bytes,
            "column_sizes": dict(f.column_sizes or {}), "value_counts": dict(f.value_counts or {}),
            "null_value_counts": dict(f.null_value_counts or {}),
            "lower_bounds": dict(f.lower_bounds or {}), "upper_bounds": dict(f.upper_bounds or {}),
            "split_offsets": list(f.split_offsets or []),
            "partition": list(f.partition.record_fields() if hasattr(f.partition, "record_fields")
                              else f.partition._data),
        }
    return out


with tempfile.TemporaryDirectory() as tmp:
    wh = os.path.join(tmp, "wh")
    src = os.path.join(tmp, "src")
    eu, us = source(0, 100, "eu"), source(100, 50, "us")
    os.makedirs(os.path.join(src, "region=eu"))
    os.makedirs(os.path.join(src, "region=us"))
    pq.write_table(eu, os.path.join(src, "region=eu", "part-0.parquet"), row_group_size=30)
    pq.write_table(us, os.path.join(src, "region=us", "part-0.parquet"))
    check(pq.ParquetFile(os.path.join(src, "region=eu", "part-0.parquet")).schema_arrow.field("id").metadata
          is None, "pyarrow wrote the files without field ids")
    want = as_rows(pa.concat_tables([eu, us]))

    floe(wh, "table", "create", "db.t", "--like", os.path.join(src, "region=eu", "part-0.parquet"),
         "--partition-by", "region")
    out = floe(wh, "table", "add-files", "db.t", src)
    check(out.startswith("added 2 files to db.t: 150 rows, ") and "2 partitions, name mapping set" in out,
          f"floe table add-files: {out.strip()}")
    check(sorted(os.listdir(os.path.join(wh, "db.db", "t"))) == ["metadata"],
          "no data file was written under the table")

    cat = SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
    t = cat.load_table("db.t")
    mapping = json.loads(t.properties["schema.name-mapping.default"])
    by_name = {m["names"][0]: m for m in mapping}
    check(set(by_name) == {"id", "name", "region", "score", "tags", "info"}
          and [f["names"] for f in by_name["info"]["fields"]] == [["x"], ["y"]]
          and by_name["tags"]["fields"][0]["names"] == ["element"],
          "the name mapping names every column, nested ones too")
    check(t.current_snapshot().summary.operation.value == "append", "one append")
    got = as_rows(t.scan().to_arrow())
    check(got == want, f"pyiceberg reads the {len(want)} rows pyarrow wrote")
    check(as_rows(t.scan(row_filter="region = 'us'").to_arrow()) == as_rows(us),
          "pyiceberg's partition filter")

    # pyiceberg's own add_files over the same files is the oracle of the metrics.
    floe(wh, "table", "create", "db.oracle", "--like", os.path.join(src, "region=eu", "part-0.parquet"),
         "--partition-by", "region")
    o = cat.load_table("db.oracle")
    o.add_files([os.path.join(src, "region=eu", "part-0.parquet"),
                 os.path.join(src, "region=us", "part-0.parquet")])
    mine, theirs = metrics(cat.load_table("db.t")), metrics(cat.load_table("db.oracle"))
    check(sorted(p.removeprefix("file://") for p in mine) == sorted(p.removeprefix("file://") for p in theirs),
          "the same two files")
    # Counts and sizes of every column outside the list; bounds of the top-level ones (pyiceberg
    # records none for a struct's fields, which floe does, as Iceberg's Java writers do).
    top = {by_name[n]["field-id"] for n in ("id", "name", "region", "score")}
    flat = top | {f["field-id"] for f in by_name["info"]["fields"]}
    for path, m in mine.items():
        p = theirs.get(path) or theirs.get(path.removeprefix("file://")) or theirs["file://" + path]
        for key in ("record_count", "file_size_in_bytes", "split_offsets", "partition"):
            check(m[key] == p[key], f"{os.path.basename(os.path.dirname(path))}: {key} {m[key]} == pyiceberg's")
        for key in ("column_sizes", "value_counts", "null_value_counts", "lower_bounds", "upper_bounds"):
            ids = top if key.endswith("bounds") else flat
            mk = {k: v for k, v in m[key].items() if k in ids}
            pk = {k: v for k, v in p[key].items() if k in ids}
            check(mk == pk and len(mk) == len(ids),
                  f"{os.path.basename(os.path.dirname(path))}: {key} of {sorted(ids)} == pyiceberg's ({mk} vs {pk})")

    check(duckdb_rows(t.metadata_location.removeprefix("file://")) == json.loads(json.dumps(want)),
          "DuckDB's iceberg_scan reads the same rows")

    q = json.loads(floe(wh, "query", "--format", "json", "--stats", "-e",
                        "SELECT id, name, tags, info FROM db.t WHERE id = 121"))
    check(q["rows"] == [[121, "name-0121", [121, 122], {"x": 1210, "y": "y121"}]],
          f"floe reads a row by id: {q['rows']}")
    check(q["stats"]["data_files_opened"] == 1,
          f"the eu file is pruned by the bounds add-files recorded: {q['stats']}")
    n = json.loads(floe(wh, "query", "--format", "json", "-e",
                        "SELECT count(*), count(name), sum(score) FROM db.t"))
    check(n["rows"] == [[150, sum(1 for r in want if r[1] is not None), sum(r[3] for r in want)]],
          f"floe's aggregates over every row: {n['rows']}")

    # A Hive layout as Spark's partitionBy writes it: the partition column only in the directory
    # names, not in the files. By the spec's column projection every reader takes the column's
    # value from the file's partition: floe, pyiceberg and DuckDB alike.
    hive = os.path.join(tmp, "hive")
    for region, table in (("eu", eu), ("us", us)):
        os.makedirs(os.path.join(hive, f"region={region}"))
        pq.write_table(table.drop_columns(["region"]),
                       os.path.join(hive, f"region={region}", "part-0.parquet"))
    floe(wh, "table", "create", "db.hive", "--like", os.path.join(src, "region=eu", "part-0.parquet"),
         "--partition-by", "region")
    out = floe(wh, "table", "add-files", "db.hive", hive)
    check(out.startswith("added 2 files to db.hive: 150 rows, "), out)
    h = cat.load_table("db.hive")
    check(as_rows(h.scan().to_arrow().sort_by("id")) == want,
          "pyiceberg reads the region of files that lack it from their partition")
    check(duckdb_rows(h.metadata_location.removeprefix("file://")) == json.loads(json.dumps(want)),
          "and so does DuckDB's iceberg_scan")
    r = json.loads(floe(wh, "query", "--format", "json", "-e",
                        "SELECT region, count(*), min(id) FROM db.hive GROUP BY 1 ORDER BY 1"))
    check(r["rows"] == [["eu", eu.num_rows, min(eu["id"].to_pylist())],
                        ["us", us.num_rows, min(us["id"].to_pylist())]],
          f"and floe, grouped by it: {r['rows']}")
print("add_files_interop: ok")
