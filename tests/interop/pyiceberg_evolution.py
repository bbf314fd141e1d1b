#!/usr/bin/env python3
"""Schema evolution across engines: pyiceberg evolves a table, floe reads every file right.

pyiceberg creates a table in a floe warehouse (id int, name string, score float, dropme string)
and appends rows; then evolves it -- adds `extra`, renames `name` to `label`, widens id int->long
and score float->double, drops `dropme` -- and appends more rows under the new schema. floe must
read both generations of files by field id: old rows with `extra` null, the renamed column under
its new name, widened values equal, the dropped column gone. Then floe appends a Parquet file
with the new schema and pyiceberg must read all rows. Expected rows come from this script.
"""
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
    from pyiceberg.types import DoubleType, FloatType, IntegerType, LongType, NestedField, StringType
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
    print("pyiceberg evolution: all checks passed")


if __name__ == "__main__":
    main()
