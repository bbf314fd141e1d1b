#!/usr/bin/env python3
"""Designs `built_by: spark` in a worksheet: the chapter's orders workload built as the chapter
built it -- Spark SQL CREATE TABLE ... PARTITIONED BY, INSERT, MERGE INTO rounds, CALL
rewrite_position_delete_files / rewrite_data_files -- beside the same designs built by floe, in
bench's own local warehouse (Spark on Iceberg's JdbcCatalog over the same catalog.db), and every
design read by floe. Run by ctest with the project's .venv.

Checked, from the JSON floe writes and from the tables themselves (read with pyiceberg):
- Spark wrote the Spark designs (their snapshots carry Spark's app id; floe's do not), in the
  design's partitioning, and its merge-on-read design holds delete files after the rounds and none
  after compaction, as floe's does;
- after the same change rounds every design holds the same rows (the orders' statuses counted by
  pyarrow from pyiceberg's full scan agree across the four tables), and floe's answers to the
  questions agree across the designs;
- the Spark designs' change rounds are timed (their own clock) and their requests shown as not
  counted (no proxy here);
- a design built by an engine floe cannot start is a one-line error naming it;
- `floe demo --built-by floe,spark` builds each of the chapter's designs both ways, side by side.
"""
import json
import os
import subprocess
import sys
import tempfile

from floe_cli import FLOE, check

try:
    import pyarrow.compute as pc
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"bench_built_by_spark: missing Python package ({e}); run scripts/setup.sh",
          file=sys.stderr)
    sys.exit(1)

SHEET = """name: orders
table: shop.orders
source: {generator: orders, rows: 20000, seed: 5, writes: 2}
designs:
  - name: floe cow
    partition_by: bucket(4, order_id)
  - name: spark cow
    built_by: spark
    partition_by: bucket(4, order_id)
  - name: floe mor
    partition_by: bucket(4, order_id)
    properties: {write.merge.mode: merge-on-read}
  - name: spark mor
    built_by: spark
    partition_by: bucket(4, order_id)
    properties: {write.merge.mode: merge-on-read}
changes:
  sql: >-
    MERGE INTO {table} t USING {changes} s ON t.order_id = s.order_id
    WHEN MATCHED THEN UPDATE SET status = s.status, updated_ts = s.updated_ts
  fraction: 0.02
  rounds: 2
questions:
  - name: by status
    sql: SELECT count(*) FROM {table} WHERE status = 'shipped'
    daily: 10
"""
TABLES = {"floe cow": "shop.orders_floe_cow", "spark cow": "shop.orders_spark_cow",
          "floe mor": "shop.orders_floe_mor", "spark mor": "shop.orders_spark_mor"}


def main():
    with tempfile.TemporaryDirectory() as work:
        sheet = os.path.join(work, "orders.yaml")
        with open(sheet, "w") as f:
            f.write(SHEET)
        bad = os.path.join(work, "bad.yaml")
        with open(bad, "w") as f:
            f.write(SHEET.replace("built_by: spark", "built_by: trino", 1))
        r = subprocess.run([FLOE, "--quiet", "bench", bad], capture_output=True, text=True)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "built_by" in r.stderr
              and "trino" in r.stderr, f"an unknown builder is one line, exit 2 ({r.stderr.strip()})")

        out = os.path.join(work, "out")
        r = subprocess.run([FLOE, "--quiet", "bench", sheet, "--out", out, "--rounds", "2",
                            "--warmup", "1", "--json", os.path.join(work, "orders.json")],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"floe bench with Spark-built designs runs ({r.stderr.strip()[-600:]})")
        print(r.stdout)
        doc = json.load(open(os.path.join(work, "orders.json")))
        designs = {d["name"]: d for d in doc["designs"]}
        for name in ("spark cow", "spark mor"):
            check(any(n.startswith("built by Spark") for n in designs[name]["notes"]),
                  f"{name}: the report says Spark built it ({designs[name]['notes']})")

        cat = SqlCatalog("floe", uri=f"sqlite:///{os.path.join(out, 'warehouse', 'catalog.db')}")
        statuses = {}
        for name, ident in TABLES.items():
            table = cat.load_table(ident)
            snaps = table.metadata.snapshots
            by_spark = [s for s in snaps if s.summary is not None and s.summary["spark.app.id"]]
            # Spark's writes carry its app id; its procedures' commits (operation replace) do not.
            writes = [s for s in snaps if s.summary is None or s.summary.operation.value != "replace"]
            if name.startswith("spark"):
                check(len(by_spark) == len(writes) == 2 + 1 + 2,
                      f"{name}: its 2 INSERTs and 3 MERGEs written by Spark ({len(by_spark)} of "
                      f"{len(writes)})")
            else:
                check(not by_spark, f"{name}: no snapshot written by Spark")
            check(str(table.spec()).count("bucket[4]") == 1, f"{name}: partitioned bucket(4, order_id)")
            rows = table.scan().to_arrow()
            statuses[name] = sorted(pc.value_counts(rows.column("status")).to_pylist(),
                                    key=lambda x: x["values"])
            check(rows.num_rows == 20000, f"{name}: 20000 orders ({rows.num_rows})")
        check(all(v == statuses["floe cow"] for v in statuses.values()),
              f"every design holds the same statuses after the rounds ({statuses})")

        changes = {c["design"]: c for c in doc["changes"]}
        for name in TABLES:
            c = changes[name]
            check("error" not in c, f"{name}: changes and compaction ran ({c.get('error')})")
            check(c["latency_ms"]["runs"] == 2, f"{name}: two timed rounds")
            after, compacted = c["after_changes"], c["after_compaction"]
            if name.endswith("mor"):
                check(after["delete_files"] > 0 and after["data_files"] > 4,
                      f"{name}: the rounds leave delete files and new data files ({after})")
                check(compacted["data_files"] == 4,
                      f"{name}: compaction rewrites the data files with their deletes ({compacted})")
            else:
                check(after["delete_files"] == 0 and after["data_files"] == 4,
                      f"{name}: copy-on-write leaves no delete file ({after})")
        for mode in ("cow", "mor"):
            f, sp = changes[f"floe {mode}"], changes[f"spark {mode}"]
            same = ("data_files", "delete_files", "deleted_positions")  # bytes are each writer's
            check(all(f["after_changes"][k] == sp["after_changes"][k] for k in same)
                  and all(f["after_compaction"][k] == sp["after_compaction"][k] for k in same),
                  f"{mode}: floe's rounds leave the table Spark's do ({f['after_changes']} vs "
                  f"{sp['after_changes']})")
        check(any(n.startswith("Spark CALL rewrite_data_files")
                  for n in changes["spark mor"]["compaction"]["notes"]),
              f"spark mor: compacted by Spark's procedure ({changes['spark mor']['compaction']['notes']})")
        answers = {x["design"]: x["first_value"] for x in doc["questions"][0]["results"]}
        check(len(set(answers.values())) == 1, f"floe answers the same on every design ({answers})")
        md = open(os.path.join(out, "orders.md")).read()
        check("| spark cow | " in md and " - | - |" in md,
              "the report shows the Spark rounds' requests as not counted")

        # floe demo --built-by floe,spark: the chapter's three workloads, each design twice.
        demo = os.path.join(work, "demo")
        r = subprocess.run([FLOE, "--quiet", "demo", "--out", demo, "--scale", "0.02", "--rounds",
                            "1", "--warmup", "0", "--built-by", "floe,spark"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"floe demo --built-by floe,spark runs ({r.stderr.strip()[-600:]})")
        report = open(os.path.join(demo, "report.md")).read()
        for name in ("events", "orders", "dimension"):
            d = json.load(open(os.path.join(demo, f"{name}.json")))
            names = [x["name"] for x in d["designs"]]
            twins = [n for n in names if n.endswith(" (Spark)")]
            check(len(twins) * 2 == len(names) and all(n[:-8] in names for n in twins),
                  f"demo {name}: every design built by floe and by Spark ({names})")
            check(all(any(n.startswith("built by Spark") for n in x["notes"])
                      for x in d["designs"] if x["name"].endswith(" (Spark)")),
                  f"demo {name}: the Spark twins are Spark's")
        check("rebuilt by floe and spark" in report and "| B (Spark) |" in report,
              "the demo's report has both builders' rows")


if __name__ == "__main__":
    main()
