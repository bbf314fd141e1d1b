#!/usr/bin/env python3
"""Schema evolution across engines: pyiceberg evolves a table, floe reads every file right; floe
evolves one in SQL, pyiceberg reads every file right.

pyiceberg creates a table in a floe warehouse (id int, name string, score float, dropme string)
and appends rows; then evolves it -- adds `extra`, renames `name` to `label`, widens id int->long
and score float->double, drops `dropme` -- and appends more rows under the new schema. floe must
read both generations of files by field id: old rows with `extra` null, the renamed column under
its new name, widened values equal, the dropped column gone. Then floe appends a Parquet file
with the new schema and pyiceberg must read all rows.

The other way: floe's SQL creates a partitioned table, inserts rows, then ALTERs it as Spark's
Iceberg DDL does (ADD / RENAME / DROP COLUMN, ALTER COLUMN TYPE, ADD / REPLACE PARTITION FIELD,
WRITE ORDERED BY, SET TBLPROPERTIES) and inserts again: pyiceberg must see the same schema (names,
ids, types), both partition specs and the sort order, and read every row of both generations of
files, with filters pruning by each spec. Expected rows come from this script.
"""
import datetime
import json
import os
import sys
import tempfile

from floe_cli import check, floe

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
    from pyiceberg.types import (DoubleType, FloatType, IntegerType, LongType, NestedField, StringType,
                                 TimestampType)
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"pyiceberg_evolution: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)



def main():
    with tempfile.TemporaryDirectory() as w:
        cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
        cat.create_namespace("evo")
        t = cat.create_table("evo.t", Schema(
            NestedField(1, "id", IntegerType(), required=False),
            NestedField(2, "name", StringType(), required=False),
            NestedField(3, "score", FloatType(), required=False),
            NestedField(4, "dropme", StringType(), required=False)))
        old = pa.table({"id": pa.array(range(100), pa.int32()),
                        "name": [f"n{i}" for i in range(100)],
                        "score": pa.array([i * 0.5 for i in range(100)], pa.float32()),
                        "dropme": ["x"] * 100})
        t.append(old)
        first_snapshot = cat.load_table("evo.t").current_snapshot().snapshot_id
        with t.update_schema() as u:
            u.add_column("extra", StringType())
            u.rename_column("name", "label")
            u.update_column("id", LongType())
            u.update_column("score", DoubleType())
            u.delete_column("dropme")
        t = cat.load_table("evo.t")
        new = pa.table({"id": pa.array(range(100, 150), pa.int64()),
                        "label": [f"n{i}" for i in range(100, 150)],
                        "score": [i * 0.5 for i in range(100, 150)],
                        "extra": [f"e{i}" for i in range(100, 150)]})
        t.append(new)

        expected = {i: [i, f"n{i}", i * 0.5, None if i < 100 else f"e{i}"] for i in range(150)}
        out = json.loads(floe(w, "table", "scan", "evo.t", "--format", "json"))
        check(out["columns"] == ["id", "label", "score", "extra"],
              f"floe reads the evolved schema's columns (got {out['columns']})")
        got = {r[0]: r for r in out["rows"]}
        check(len(out["rows"]) == 150 and got == expected,
              "floe reads old files by field id: renamed, widened, added (null) and dropped columns")
        where = json.loads(floe(w, "table", "scan", "evo.t", "--format", "json", "--where", "label = 'n42'"))
        check([r[0] for r in where["rows"]] == [42], "a filter on a renamed column finds the old file's row")
        # Time travel reads the snapshot with its own schema, as Spark does: the old names and the
        # dropped column, the old types.
        then = json.loads(floe(w, "query", "--format", "json", "-e",
                               f"SELECT * FROM evo.t FOR VERSION AS OF {first_snapshot} WHERE name = 'n7'"))
        check(then["columns"] == ["id", "name", "score", "dropme"] and then["rows"] == [[7, "n7", 3.5, "x"]],
              f"time travel uses the snapshot's schema (got {then})")
        now = json.loads(floe(w, "query", "--format", "json", "-e",
                              "SELECT count(*), count(extra) FROM evo.t WHERE label >= 'n'"))
        check(now["rows"] == [[150, 50]], f"the current schema without time travel (got {now['rows']})")

        more = os.path.join(w, "more.parquet")
        pq.write_table(pa.table({"id": pa.array([150], pa.int64()), "label": ["n150"], "score": [75.0],
                                 "extra": ["e150"]}), more)
        floe(w, "table", "append", "evo.t", more)
        rows = cat.load_table("evo.t").scan().to_arrow().sort_by([("id", "ascending")]).to_pylist()
        expected[150] = [150, "n150", 75.0, "e150"]
        check([[r["id"], r["label"], r["score"], r["extra"]] for r in rows] == [expected[i] for i in range(151)],
              "pyiceberg reads every row after floe appends under the evolved schema")
    floe_evolves()
    print("pyiceberg evolution: all checks passed")


def floe_evolves():
    with tempfile.TemporaryDirectory() as w:
        def sql(text):
            return floe(w, "query", "--format", "json", "-e", text)

        sql("CREATE TABLE evo.f (id int NOT NULL, name string, score float, dropme string, ts timestamp) "
            "PARTITIONED BY (bucket(4, id)) TBLPROPERTIES ('k' = 'v')")
        first = os.path.join(w, "first.parquet")
        pq.write_table(pa.table({"id": pa.array(range(100), pa.int32()),
                                 "name": [f"n{i}" for i in range(100)],
                                 "score": pa.array([i * 0.5 for i in range(100)], pa.float32()),
                                 "dropme": ["x"] * 100,
                                 "ts": pa.array([1704067200_000000 + i * 3600_000000 for i in range(100)],
                                                pa.timestamp("us"))}), first)
        sql(f"INSERT INTO evo.f SELECT * FROM read_parquet('{first}')")
        for ddl in ["ALTER TABLE evo.f ADD COLUMN extra string COMMENT 'new' AFTER name",
                    "ALTER TABLE evo.f RENAME COLUMN name TO label",
                    "ALTER TABLE evo.f ALTER COLUMN id TYPE bigint",
                    "ALTER TABLE evo.f ALTER COLUMN score TYPE double",
                    "ALTER TABLE evo.f DROP COLUMN dropme",
                    "ALTER TABLE evo.f REPLACE PARTITION FIELD bucket(4, id) WITH days(ts)",
                    "ALTER TABLE evo.f WRITE ORDERED BY label DESC",
                    "ALTER TABLE evo.f SET TBLPROPERTIES ('write.parquet.compression-codec' = 'zstd')"]:
            sql(ddl)
        sql("INSERT INTO evo.f (id, label, extra, score, ts) VALUES "
            + ", ".join(f"({i}, 'n{i}', 'e{i}', {i * 0.5}, TIMESTAMP '2024-02-01 00:00:00')"
                        for i in range(3000000000, 3000000050)))

        cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
        t = cat.load_table("evo.f")
        got = [(f.field_id, f.name, str(f.field_type), f.required) for f in t.schema().fields]
        check(got == [(1, "id", "long", True), (2, "label", "string", False), (6, "extra", "string", False),
                      (3, "score", "double", False), (5, "ts", "timestamp", False)],
              f"pyiceberg sees floe's evolved schema: ids kept, AFTER honoured (got {got})")
        check(t.schema().find_field("extra").doc == "new", "the column comment reaches pyiceberg")
        specs = {sid: [(f.name, str(f.transform)) for f in s.fields] for sid, s in t.specs().items()}
        check(specs == {0: [("id_bucket", "bucket[4]")], 1: [("ts_day", "day")]},
              f"both partition specs (got {specs})")
        order = [(t.schema().find_column_name(f.source_id), str(f.direction)) for f in t.sort_order().fields]
        check(order == [("label", "DESC")],
              f"the sort order (got {order})")
        check(t.properties.get("k") == "v" and t.properties.get("write.parquet.compression-codec") == "zstd",
              "the table properties")
        rows = t.scan().to_arrow().sort_by([("id", "ascending")]).to_pylist()
        expected = [{"id": i, "label": f"n{i}", "extra": None, "score": i * 0.5,
                     "ts": datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=i)} for i in range(100)]
        expected += [{"id": i, "label": f"n{i}", "extra": f"e{i}", "score": i * 0.5,
                      "ts": datetime.datetime(2024, 2, 1)} for i in range(3000000000, 3000000050)]
        check(rows == expected, "pyiceberg reads both generations of floe's files by field id")
        old = t.scan(row_filter=EqualTo("id", 42)).to_arrow().to_pylist()
        check([r["label"] for r in old] == ["n42"], "a filter on the old spec's source finds the old row")
        new = t.scan(row_filter=GreaterThanOrEqual("ts", "2024-01-20T00:00:00")).plan_files()
        check(len(list(new)) == 1, "a ts filter keeps only the new spec's file")
        files = json.loads(sql("SELECT spec_id, count(*) AS n FROM evo.f.data_files GROUP BY 1 ORDER BY 1"))
        check(files["rows"] == [[0, 4], [1, 1]], f"floe's own view of the files by spec (got {files['rows']})")


if __name__ == "__main__":
    main()
