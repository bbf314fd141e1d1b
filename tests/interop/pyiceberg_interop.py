#!/usr/bin/env python3
"""floe <-> pyiceberg interop on a local warehouse (run by ctest with the project's .venv).

1. floe creates a partitioned, sorted table and appends CSV twice; pyiceberg opens floe's SQLite
   catalog and must see the same schema, spec, sort order and snapshots, read equal rows, and find
   column bounds in the manifests that match the data files' real min/max (computed by pyarrow).
2. pyiceberg writes a table partitioned by identity, day and bucket; floe must list its files and
   read equal rows (`floe table scan --format json`).
Expected values come from this script's own generator, never from floe.
"""
import datetime as dt
import json
import os
import sys
import tempfile

from floe_cli import check, floe

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestamptzType
except ImportError as e:  # the test must fail, not skip, when the peers are missing
    print(f"pyiceberg_interop: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

CATEGORIES = ["books", "music", "games", "toys"]
START = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
N = 3000


def rows():
    out = []
    for i in range(N):
        out.append({
            "id": i,
            "ts": START + dt.timedelta(minutes=37 * i),
            "category": CATEGORIES[i % 4],
            "amount": None if i % 17 == 0 else i * 0.25,
            "note": None if i % 5 == 0 else f"note-{i % 100:03d}",
        })
    return out


def main():
    passed = 0
    with tempfile.TemporaryDirectory() as w:
        data = rows()
        csv = os.path.join(w, "events.csv")
        with open(csv, "w") as f:
            f.write("id,ts,category,amount,note\n")
            for r in data:
                amount = "" if r["amount"] is None else repr(r["amount"])
                note = "" if r["note"] is None else r["note"]
                f.write(f'{r["id"]},{r["ts"].isoformat()},{r["category"]},{amount},{note}\n')
        schema = json.dumps([
            {"name": "id", "type": "long", "required": True},
            {"name": "ts", "type": "timestamptz"},
            {"name": "category", "type": "string"},
            {"name": "amount", "type": "double"},
            {"name": "note", "type": "string"},
        ])
        floe(w, "table", "create", "shop.events", "--schema", schema,
             "--partition-by", "day(ts), bucket(4, id)", "--sort-by", "category, id DESC")
        floe(w, "table", "append", "shop.events", csv)
        floe(w, "table", "append", "shop.events", csv)

        cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
        t = cat.load_table("shop.events")
        check([(f.field_id, f.name, str(f.field_type), f.required) for f in t.schema().fields] == [
            (1, "id", "long", True), (2, "ts", "timestamptz", False), (3, "category", "string", False),
            (4, "amount", "double", False), (5, "note", "string", False)], "pyiceberg sees floe's schema")
        check([(f.source_id, f.field_id, f.name, str(f.transform)) for f in t.spec().fields] == [
            (2, 1000, "ts_day", "day"), (1, 1001, "id_bucket", "bucket[4]")], "pyiceberg sees floe's partition spec")
        check([(f.source_id, str(f.direction), str(f.null_order)) for f in t.sort_order().fields] == [
            (3, "SortDirection.ASC", "NullOrder.NULLS_FIRST"), (1, "SortDirection.DESC", "NullOrder.NULLS_LAST")]
              or [(f.source_id, f.direction.name, f.null_order.name) for f in t.sort_order().fields] == [
            (3, "ASC", "NULLS_FIRST"), (1, "DESC", "NULLS_LAST")], "pyiceberg sees floe's sort order")
        check(len(t.snapshots()) == 2 and t.current_snapshot().summary.operation.value == "append",
              "two append snapshots")
        got = t.scan().to_arrow().sort_by([("id", "ascending")]).to_pylist()
        want = sorted(data + data, key=lambda r: r["id"])
        check(len(got) == 2 * N, f"pyiceberg reads {2 * N} rows")
        check(all(g == x for g, x in zip(got, want)), "every row pyiceberg reads equals what was appended")
        # A format-version 3 table floe writes (row lineage in its metadata and manifests) is one
        # pyiceberg reads, with the next-row-id floe's appends left.
        floe(w, "table", "create", "shop.v3", "--schema", schema, "--format-version", "3")
        floe(w, "table", "append", "shop.v3", csv)
        floe(w, "table", "append", "shop.v3", csv)
        v3 = cat.load_table("shop.v3")
        got_v3 = v3.scan().to_arrow().sort_by([("id", "ascending")]).to_pylist()
        check(v3.metadata.format_version == 3 and v3.metadata.next_row_id == 2 * N
              and got_v3 == want, f"pyiceberg reads floe's v3 table: version "
              f"{v3.metadata.format_version}, next-row-id {v3.metadata.next_row_id}, "
              f"{len(got_v3)} rows")
        # floe's DELETE and UPDATE in each write mode (copy-on-write, position deletes, deletion
        # vectors): pyiceberg reads the rows they leave.
        want_dml = [dict(r) for r in want if r["id"] % 5 != 0]
        for r in want_dml:
            if r["category"] == "books":
                r["note"] = "checked"
        for name, version, props in (("cow", "2", []),
                                     ("mor", "2", ["write.delete.mode=merge-on-read",
                                                   "write.update.mode=merge-on-read"]),
                                     ("dv", "3", ["write.delete.mode=merge-on-read",
                                                  "write.update.mode=merge-on-read"])):
            table = f"shop.dml_{name}"
            args = ["table", "create", table, "--schema", schema, "--format-version", version,
                    "--partition-by", "bucket(4, id)"]
            for p in props:
                args += ["--property", p]
            floe(w, *args)
            floe(w, "table", "append", table, csv)
            floe(w, "table", "append", table, csv)
            floe(w, "query", "-e", f"DELETE FROM {table} WHERE id % 5 = 0")
            floe(w, "query", "-e", f"UPDATE {table} SET note = 'checked' WHERE category = 'books'")
            got_dml = cat.load_table(table).scan().to_arrow().to_pylist()
            got_dml.sort(key=lambda r: (r["id"], r["note"] or ""))
            want_sorted = sorted(want_dml, key=lambda r: (r["id"], r["note"] or ""))
            check(got_dml == want_sorted,
                  f"pyiceberg reads {table} after floe's DELETE and UPDATE ({len(got_dml)} rows, "
                  f"{len(want_sorted)} expected)")
        # Row filters prune with floe's partition values and metrics, and still return the right rows.
        day = t.scan(row_filter="ts >= '2024-01-02T00:00:00+00:00' and ts < '2024-01-03T00:00:00+00:00'")
        got_day = day.to_arrow().to_pylist()
        want_day = [r for r in want if START + dt.timedelta(days=1) <= r["ts"] < START + dt.timedelta(days=2)]
        check(len(got_day) == len(want_day) and len(got_day) > 0, "a one-day filter returns that day's rows")
        all_files = len(list(t.scan().plan_files()))
        check(len(list(day.plan_files())) < all_files, "pyiceberg prunes floe's files by partition")
        # Manifest bounds against the data files' real contents.
        files = t.inspect.files().to_pylist()
        for f in files:
            table = pq.read_table(f["file_path"].replace("file://", ""))
            check(f["record_count"] == table.num_rows, f"record_count of {os.path.basename(f['file_path'])}")
            ids = table.column("id").to_pylist()
            lower = f["lower_bounds"][1] if isinstance(f["lower_bounds"], dict) else dict(f["lower_bounds"])[1]
            upper = f["upper_bounds"][1] if isinstance(f["upper_bounds"], dict) else dict(f["upper_bounds"])[1]
            check(int.from_bytes(lower, "little", signed=True) == min(ids) and
                  int.from_bytes(upper, "little", signed=True) == max(ids), "id bounds equal the file's min/max")
            nulls = dict(f["null_value_counts"]) if not isinstance(f["null_value_counts"], dict) else f["null_value_counts"]
            check(nulls[4] == table.column("amount").null_count, "null count of amount")
            md = pq.ParquetFile(f["file_path"].replace("file://", "")).metadata
            check(md.schema.to_arrow_schema().field("id").metadata.get(b"PARQUET:field_id") == b"1",
                  "data files carry Iceberg field ids")

        # 2. pyiceberg writes; floe reads.
        py_schema = Schema(
            NestedField(1, "id", LongType(), required=True),
            NestedField(2, "ts", TimestamptzType(), required=False),
            NestedField(3, "category", StringType(), required=False),
            NestedField(4, "amount", DoubleType(), required=False),
            NestedField(5, "note", StringType(), required=False),
        )
        spec = PartitionSpec(
            PartitionField(source_id=3, field_id=1000, transform=IdentityTransform(), name="category"),
            PartitionField(source_id=2, field_id=1001, transform=DayTransform(), name="ts_day"),
            PartitionField(source_id=1, field_id=1002, transform=BucketTransform(8), name="id_bucket"))
        pt = cat.create_table("shop.py_events", schema=py_schema, partition_spec=spec)
        arrow = pa.Table.from_pylist(data, schema=pa.schema([
            pa.field("id", pa.int64(), nullable=False), pa.field("ts", pa.timestamp("us", tz="UTC")),
            pa.field("category", pa.string()), pa.field("amount", pa.float64()), pa.field("note", pa.string())]))
        pt.append(arrow)
        listed = floe(w, "table", "files", "shop.py_events")
        check(listed.strip().endswith(f"{len(list(pt.scan().plan_files()))} data files"),
              "floe lists the files pyiceberg wrote")
        out = json.loads(floe(w, "table", "scan", "shop.py_events", "--format", "json"))
        check(out["columns"] == ["id", "ts", "category", "amount", "note"], "floe reads pyiceberg's columns")
        got = sorted(out["rows"], key=lambda r: r[0])
        exp = [[r["id"], r["ts"].isoformat().replace("+00:00", "Z") if False else None, r["category"], r["amount"],
                r["note"]] for r in data]
        check(len(got) == N, f"floe reads {N} rows of pyiceberg's table")
        ok = True
        for g, r in zip(got, data):
            ts = dt.datetime.fromisoformat(g[1].replace("Z", "+00:00"))
            if g[0] != r["id"] or ts != r["ts"] or g[2] != r["category"] or g[3] != r["amount"] or g[4] != r["note"]:
                ok = False
                print("mismatch", g, r)
                break
        check(ok, "every row floe reads equals what pyiceberg appended")
        where = json.loads(floe(w, "table", "scan", "shop.py_events", "--format", "json",
                                "--where", "category = 'books'", "--stats"))
        check(sorted(r[0] for r in where["rows"]) == [r["id"] for r in data if r["category"] == "books"],
              "a filter on pyiceberg's identity partition returns the right rows")
        check(where["stats"]["data_files_skipped"]["partition"] > 0, "floe prunes pyiceberg's partitions")
    print("pyiceberg interop: all checks passed")


if __name__ == "__main__":
    main()
