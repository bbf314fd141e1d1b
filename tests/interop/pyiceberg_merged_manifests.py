#!/usr/bin/env python3
"""Merged manifests read by pyiceberg: floe appends five times to a table whose
commit.manifest.min-count-to-merge is 3, so its third and fifth commits merge the manifests
(1, 2, 3->1, 2, 3->1). pyiceberg must find one manifest in the current snapshot, read every row,
and see each data file with the sequence number and snapshot of the append that added it --
merged entries keep what they inherited. Expected values come from this script.
"""
import json
import os
import sys
import tempfile

from floe_cli import check, floe

try:
    from pyiceberg.catalog.sql import SqlCatalog
except ImportError as e:  # fail, never skip, when the peers are missing
    print(f"pyiceberg_merged_manifests: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

APPENDS = 5
ROWS = 40


def main():
    with tempfile.TemporaryDirectory() as w:
        schema = json.dumps([{"name": "id", "type": "long", "required": True}, {"name": "batch", "type": "int"}])
        floe(w, "table", "create", "m.t", "--schema", schema, "--property", "commit.manifest.min-count-to-merge=3")
        for b in range(APPENDS):
            csv = os.path.join(w, f"b{b}.csv")
            with open(csv, "w") as f:
                f.write("id,batch\n")
                for i in range(ROWS):
                    f.write(f"{b * ROWS + i},{b}\n")
            floe(w, "table", "append", "m.t", csv)
        cat = SqlCatalog("floe", uri=f"sqlite:///{w}/catalog.db", warehouse=f"file://{w}")
        t = cat.load_table("m.t")
        snaps = sorted(t.metadata.snapshots, key=lambda s: s.sequence_number)
        check([s.sequence_number for s in snaps] == list(range(1, APPENDS + 1)), "five snapshots, sequence 1..5")
        manifests = t.current_snapshot().manifests(t.io)
        check(len(manifests) == 1, f"the fifth commit merged the manifests into one (found {len(manifests)})")
        rows = t.scan().to_arrow().sort_by([("id", "ascending")]).to_pylist()
        check([(r["id"], r["batch"]) for r in rows] == [(i, i // ROWS) for i in range(APPENDS * ROWS)],
              "pyiceberg reads every row of the merged table")
        entries = t.inspect.entries().to_pylist()
        by_batch = {}
        for e in entries:
            batch = e["readable_metrics"]["batch"]["lower_bound"]
            by_batch[batch] = (e["sequence_number"], e["snapshot_id"], e["status"])
        check(sorted(by_batch) == list(range(APPENDS)), "one data file per append in the merged manifest")
        ok = all(by_batch[b][0] == b + 1 and by_batch[b][1] == snaps[b].snapshot_id for b in range(APPENDS))
        check(ok, f"each file keeps the sequence number and snapshot of its append ({by_batch})")
        check(by_batch[APPENDS - 1][2] == 1 and all(by_batch[b][2] == 0 for b in range(APPENDS - 1)),
              "status ADDED for the last append's file, EXISTING for the merged earlier ones")
    print("pyiceberg merged manifests: all checks passed")


if __name__ == "__main__":
    main()
