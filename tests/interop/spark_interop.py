#!/usr/bin/env python3
"""floe reads the tables Spark writes into a floe warehouse, and Spark reads what floe then adds.

Spark 4.1 with Iceberg 1.11's JdbcCatalog on the warehouse's catalog.db (catalog name `floe`,
HadoopFileIO, so every location is spelled "file:/abs/path") writes, in one Spark session:
  sp.events   Spark-created, partitioned by days(ts), two commits (time travel to the first)
  fl.t        created and appended by floe, then appended by Spark, then by floe again
  sp.outside  LOCATION in a directory outside the warehouse
  sp.gz       write.metadata.compression-codec=gzip ("*.gz.metadata.json")
  sp.evo      int -> long, float -> double, decimal(9,2) -> decimal(12,2), with rows on both sides
  fl.evo      created, filled and ALTERed in floe's SQL (columns added, renamed, dropped, widened;
              the spec replaced; a write order), rows on both sides; Spark reads both generations
              and inserts under the evolved schema and spec, floe reads Spark's rows
  fl.nested   created --like and appended by floe from a pyarrow file of list, struct and map
              columns (nulls at every level, empty lists and maps); Spark reads the source's rows
  sp.mor_*    merge-on-read: v2 position deletes by file and by partition, v3 deletion vectors,
              after DELETE, UPDATE and MERGE, and after Spark's rewrite_position_delete_files and
              rewrite_data_files; floe appends to the v3 one (row ids after Spark's)
  sp.eq*      equality deletes built from the spec (global, two-column, NULL keys, by partition)
  fl.v3       created v3 by floe: Spark reads its _row_id and _last_updated_sequence_number,
              deletes with deletion vectors, compacts keeping the row ids; floe appends between
and every answer -- counts, sums, filtered counts, time travel -- is compared between
`floe query --format json` and Spark. floe's remove-orphans must then leave every Spark table as
Spark reads it. Usage: spark_interop.py FLOE_BINARY [--jars DIR] (default ~/.cache/floe/jars).
"""
import argparse
import decimal
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floe_spark  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("floe")
ap.add_argument("--jars", default=floe_spark.DEFAULT_JARS)
args = ap.parse_args()

checks = {"passed": 0, "failed": 0}


def check(cond, what):
    if cond:
        checks["passed"] += 1
        print(f"ok: {what}")
    else:
        checks["failed"] += 1
        print(f"FAIL: {what}", file=sys.stderr)


def norm(v):
    """One form for the values both sides give: ints stay, decimals and floats compare exactly."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float, decimal.Decimal)):
        d = decimal.Decimal(v) if not isinstance(v, float) else decimal.Decimal(repr(v))
        return d.normalize()
    if isinstance(v, str):
        try:
            return decimal.Decimal(v).normalize()
        except decimal.InvalidOperation:
            return v
    return str(v)


def main():
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")
        outside = os.path.join(work, "elsewhere")
        os.makedirs(outside)

        def floe(*a):
            r = subprocess.run([args.floe, "--warehouse", wh, "--quiet", *a], capture_output=True,
                               text=True)
            if r.returncode != 0:
                raise SystemExit(f"floe {' '.join(a)} failed ({r.returncode}): {r.stderr.strip()}")
            return r.stdout

        def floe_rows(sql):
            return [[norm(v) for v in row] for row in json.loads(floe("query", "--format", "json",
                                                                      "-e", sql))["rows"]]

        # floe makes the warehouse and its first table before Spark arrives.
        floe("table", "create", "fl.t", "--schema",
             '[{"name":"id","type":"long","required":true},{"name":"v","type":"double"}]')
        csv = os.path.join(work, "a.csv")
        with open(csv, "w") as f:
            f.write("id,v\n" + "".join(f"{i},{i * 0.5}\n" for i in range(100)))
        floe("table", "append", "fl.t", csv)

        spark = floe_spark.session(wh, work, args.jars, "floe-spark-interop")
        sql = spark.sql

        def spark_rows(q):
            return [[norm(v) for v in row] for row in sql(q).collect()]

        def same(q, what, floe_q=None):
            want = spark_rows(q.replace("FROM ", "FROM floe."))
            got = floe_rows(floe_q or q)
            check(got == want, f"{what}: floe {got} == spark {want}")

        sql("CREATE NAMESPACE IF NOT EXISTS floe.sp")
        # A Spark table, partitioned, in two commits.
        sql("CREATE TABLE floe.sp.events (id bigint, cat string, amount double, ts timestamp) "
            "USING iceberg PARTITIONED BY (days(ts))")
        gen = ("SELECT id, concat('c', id % 5) AS cat, id * 1.25 AS amount, "
               "timestamp_seconds(1704067200 + (id % 9) * 86400 + id) AS ts FROM range({}, {})")
        sql("INSERT INTO floe.sp.events " + gen.format(0, 200))
        first = sql("SELECT snapshot_id FROM floe.sp.events.snapshots ORDER BY committed_at") \
            .collect()[0][0]
        sql("INSERT INTO floe.sp.events " + gen.format(200, 300))
        meta = sql("SELECT file FROM floe.sp.events.metadata_log_entries ORDER BY timestamp DESC") \
            .collect()[0][0]
        check(meta.startswith("file:/") and not meta.startswith("file://"),
              f"Spark records Hadoop-spelled locations ({meta})")
        same("SELECT count(*), sum(amount), min(id), max(id) FROM sp.events", "sp.events totals")
        same("SELECT count(*), sum(amount) FROM sp.events WHERE cat = 'c1'", "sp.events by cat")
        same("SELECT count(*), sum(id) FROM sp.events WHERE ts >= '2024-01-05' AND ts < '2024-01-07'",
             "sp.events by day (partition pruning)")
        same("SELECT cat, count(*), sum(amount) FROM sp.events GROUP BY cat ORDER BY cat",
             "sp.events grouped")
        want = spark_rows(f"SELECT count(*), sum(amount) FROM floe.sp.events VERSION AS OF {first}")
        got = floe_rows(f"SELECT count(*), sum(amount) FROM sp.events FOR VERSION AS OF {first}")
        check(got == want and want[0][0] == 200, f"time travel to the first commit: {got} == {want}")

        # A floe table after Spark committed to it once, then floe again.
        sql("INSERT INTO floe.fl.t SELECT id, id * 0.5 FROM range(100, 150)")
        same("SELECT count(*), sum(v), max(id) FROM fl.t", "fl.t after Spark's commit")
        with open(csv, "w") as f:
            f.write("id,v\n" + "".join(f"{i},{i * 0.5}\n" for i in range(150, 175)))
        floe("table", "append", "fl.t", csv)
        sql("REFRESH TABLE floe.fl.t")
        same("SELECT count(*), sum(v), max(id) FROM fl.t", "fl.t after floe appended again")
        same("SELECT count(*) FROM fl.t WHERE id >= 90 AND id < 160", "fl.t filtered")

        # A table floe's SQL made and evolved: Spark reads both generations of files.
        def fq(text):
            floe("query", "-e", text)
        fq("CREATE TABLE fl.evo (id int NOT NULL, name string, score float, dropme string, ts timestamp) "
           "PARTITIONED BY (bucket(4, id))")
        fq("INSERT INTO fl.evo VALUES " + ", ".join(
            f"({i}, 'n{i}', {i * 0.5}, 'x', TIMESTAMP '2024-01-0{1 + i % 5} 10:00:00')" for i in range(40)))
        for ddl in ["ADD COLUMN extra string AFTER name", "RENAME COLUMN name TO label",
                    "ALTER COLUMN id TYPE bigint", "ALTER COLUMN score TYPE double", "DROP COLUMN dropme",
                    "REPLACE PARTITION FIELD bucket(4, id) WITH days(ts)", "WRITE ORDERED BY label"]:
            fq("ALTER TABLE fl.evo " + ddl)
        fq("INSERT INTO fl.evo (id, label, extra, score, ts) VALUES " + ", ".join(
            f"({i}, 'n{i}', 'e{i}', {i * 0.5}, TIMESTAMP '2024-02-01 10:00:00')"
            for i in range(3000000000, 3000000010)))
        cols = [(r[0], r[1]) for r in sql("DESCRIBE TABLE floe.fl.evo").collect()
                if r[0] and not r[0].startswith("#")][:5]
        check(cols == [("id", "bigint"), ("label", "string"), ("extra", "string"), ("score", "double"),
                       ("ts", "timestamp_ntz")], f"Spark sees floe's evolved schema ({cols})")
        parts = [r[0] for r in sql("SELECT spec_id FROM floe.fl.evo.files ORDER BY spec_id").collect()]
        check(parts.count(0) == 4 and parts.count(1) == 1, f"Spark sees each file in its spec ({parts})")
        same("SELECT count(*), sum(id), sum(score), count(extra), count(label) FROM fl.evo",
             "fl.evo across the evolution")
        same("SELECT label, extra, score FROM fl.evo WHERE id = 7 OR id = 3000000003 ORDER BY label",
             "fl.evo rows of both generations")
        sql("INSERT INTO floe.fl.evo VALUES (5000000000, 'spark', 'e', 1.5, TIMESTAMP_NTZ '2024-03-01 00:00:00')")
        same("SELECT count(*), sum(id), count(extra) FROM fl.evo WHERE ts >= '2024-01-15'",
             "fl.evo after Spark's insert under the evolved spec")

        # A table whose location is outside the warehouse directory.
        sql(f"CREATE TABLE floe.sp.outside (id bigint, s string) USING iceberg "
            f"LOCATION 'file:{outside}/outside'")
        sql("INSERT INTO floe.sp.outside SELECT id, concat('s', id) FROM range(0, 120)")
        check(os.path.isdir(os.path.join(outside, "outside", "data"))
              and not os.path.exists(os.path.join(wh, "sp", "outside")),
              "sp.outside's files are outside the warehouse")
        same("SELECT count(*), sum(id) FROM sp.outside", "sp.outside totals")
        same("SELECT count(*) FROM sp.outside WHERE s = 's42'", "sp.outside filtered")
        stats = json.loads(floe("query", "--format", "json", "--stats", "-e",
                                "SELECT sum(id) FROM sp.outside"))["stats"]
        # Every request went to the store of the other directory, and each is counted: the
        # metadata file, the manifest list, a manifest, and at least one per data file opened.
        check(stats["data_files_opened"] >= 1 and
              stats["requests"]["GET"] >= 3 + stats["data_files_opened"] and
              stats["bytes_fetched"] > 0, f"reads outside the warehouse are counted: {stats}")

        # gzip-compressed table metadata.
        sql("CREATE TABLE floe.sp.gz (id bigint, x double) USING iceberg "
            "TBLPROPERTIES ('write.metadata.compression-codec' = 'gzip')")
        sql("INSERT INTO floe.sp.gz SELECT id, id * 0.25 FROM range(0, 80)")
        gz = glob.glob(os.path.join(wh, "sp", "gz", "metadata", "*.gz.metadata.json"))
        check(len(gz) >= 2, f"Spark wrote gzip metadata ({len(gz)} files)")
        same("SELECT count(*), sum(x) FROM sp.gz", "sp.gz totals")

        # Every promotion the spec allows, with rows written before and after.
        sql("CREATE TABLE floe.sp.evo (i int, f float, d decimal(9,2)) USING iceberg")
        sql("INSERT INTO floe.sp.evo SELECT CAST(id AS int), CAST(id * 0.5 AS float), "
            "CAST(id * 1.25 AS decimal(9,2)) FROM range(0, 100)")
        sql("ALTER TABLE floe.sp.evo ALTER COLUMN i TYPE bigint")
        sql("ALTER TABLE floe.sp.evo ALTER COLUMN f TYPE double")
        sql("ALTER TABLE floe.sp.evo ALTER COLUMN d TYPE decimal(12,2)")
        sql("INSERT INTO floe.sp.evo SELECT 3000000000 + id, id * 0.125, "
            "CAST(90000000 + id * 0.75 AS decimal(12,2)) FROM range(0, 60)")
        same("SELECT count(*), sum(i), sum(f), sum(d) FROM sp.evo", "sp.evo totals across promotions")
        same("SELECT count(*), sum(d) FROM sp.evo WHERE d > 100", "sp.evo filtered on the widened decimal")
        same("SELECT count(*) FROM sp.evo WHERE i > 2147483647", "sp.evo filtered on the widened long")
        same("SELECT count(*) FROM sp.evo WHERE f < 10", "sp.evo filtered on the widened double")

        # A floe table of nested columns, written by floe's own Parquet writer: Spark reads the
        # rows of the file it came from, and floe's answers match Spark's.
        import pyarrow as pa
        import pyarrow.parquet as pq
        n = 120
        src = pa.table({
            "id": pa.array(range(n), pa.int64()),
            "l": pa.array([None if i % 7 == 0 else [j for j in range(i % 4)] for i in range(n)],
                          pa.list_(pa.int32())),
            "s": pa.array([None if i % 5 == 0 else
                           {"a": None if i % 3 == 0 else i, "b": f"b{i % 4}"} for i in range(n)],
                          pa.struct([("a", pa.int64()), ("b", pa.string())])),
            "m": pa.array([None if i % 6 == 0 else
                           [(f"k{j}", None if j == 1 else i * j) for j in range(i % 3)]
                           for i in range(n)], pa.map_(pa.string(), pa.int64())),
            "ls": pa.array([[{"x": i, "y": [i, None]}] if i % 2 else [] for i in range(n)],
                           pa.list_(pa.struct([("x", pa.int32()),
                                               ("y", pa.list_(pa.int64()))]))),
        })
        nested = os.path.join(work, "nested.parquet")
        pq.write_table(src, nested)
        floe("table", "create", "fl.nested", "--like", nested)
        floe("table", "append", "fl.nested", nested)

        def plain(v):
            """Spark's Rows and dicts, pyarrow's dicts and (key, value) pairs: one form."""
            if hasattr(v, "asDict"):
                v = v.asDict()
            if isinstance(v, dict):
                return {k: plain(x) for k, x in sorted(v.items())}
            if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2
                                                and not hasattr(x, "asDict") for x in v):
                return {k: plain(x) for k, x in sorted(v)}
            if isinstance(v, list):
                return [plain(x) for x in v]
            return v

        want = [plain(r) for r in src.to_pylist()]
        rows = sql("SELECT id, l, s, m, ls FROM floe.fl.nested ORDER BY id").collect()
        got = [plain(r.asDict()) for r in rows]
        # pyarrow gives an empty map as [], Spark as {}.
        want = [{k: ({} if k == "m" and v == [] else v) for k, v in r.items()} for r in want]
        check(got == want, "Spark reads floe's nested table as the source file's rows"
              + ("" if got == want else ": first difference: spark {} != source {}".format(
                  *next((a, b) for a, b in zip(got, want) if a != b))))
        same("SELECT count(*), sum(s.a), count(s.b) FROM fl.nested", "fl.nested struct fields")
        same("SELECT count(*) FROM fl.nested WHERE l IS NULL", "fl.nested null lists")
        same("SELECT s.b, count(*) FROM fl.nested WHERE id > 10 GROUP BY s.b ORDER BY s.b NULLS LAST",
             "fl.nested grouped by a struct field")

        # Merge-on-read: Spark's row-level changes on v2 tables (position deletes, by data file
        # as Spark writes them since Iceberg 1.8, and by partition) and on a v3 table (deletion
        # vectors in Puffin files), each DELETE, UPDATE and MERGE merged with the deletes before
        # it; floe answers as Spark does, and opens each delete file once.
        mor = ("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
               "'write.merge.mode'='merge-on-read'")
        mor_tables = {
            "sp.mor_file": f"'format-version'='2', {mor}",
            "sp.mor_part": f"'format-version'='2', {mor}, 'write.delete.granularity'='partition'",
            "sp.mor_dv": f"'format-version'='3', {mor}",
        }
        rows = "SELECT id, concat('c', id % 3) AS cat, id * 0.5 AS v FROM range({}, {})"

        def same_mor(t, when):
            same(f"SELECT count(*), sum(id), sum(v) FROM {t}", f"{t} totals {when}")
            same(f"SELECT cat, count(*), sum(v) FROM {t} GROUP BY cat ORDER BY cat",
                 f"{t} grouped {when}")
            same(f"SELECT count(*), sum(v) FROM {t} WHERE id >= 95 AND id < 140",
                 f"{t} filtered {when}")

        for t, props in mor_tables.items():
            sql(f"CREATE TABLE floe.{t} (id bigint, cat string, v double) USING iceberg "
                f"PARTITIONED BY (bucket(4, id)) TBLPROPERTIES ({props})")
            sql(f"INSERT INTO floe.{t} " + rows.format(0, 600))
            sql(f"INSERT INTO floe.{t} " + rows.format(600, 1000))
            sql(f"DELETE FROM floe.{t} WHERE id % 7 = 0")
            sql(f"UPDATE floe.{t} SET v = v + 1000 WHERE id % 11 = 0")
            sql(f"DELETE FROM floe.{t} WHERE id BETWEEN 100 AND 130")
            sql(f"MERGE INTO floe.{t} t USING (SELECT id, 'm' AS cat, -1.0D AS v "
                f"FROM range(990, 1010)) s ON t.id = s.id "
                f"WHEN MATCHED THEN UPDATE SET t.v = s.v WHEN NOT MATCHED THEN INSERT *")
            files = spark_rows(f"SELECT count(DISTINCT file_path) FROM floe.{t}.delete_files")[0][0]
            check(files > 0, f"{t}: Spark wrote delete files ({files})")
            same_mor(t, "after Spark's deletes, updates and merge")
            # Every deleted position, listed: as many as Spark's delete files record, and for the
            # v2 tables the same positions as Spark's position_deletes table.
            want = spark_rows(f"SELECT sum(record_count) FROM floe.{t}.delete_files")
            got = floe_rows(f"SELECT count(*) FROM {t}.position_deletes")
            check(got == want, f"{t}.position_deletes: floe {got} == spark's delete files {want}")
            if t != "sp.mor_dv":
                same(f"SELECT count(*), count(DISTINCT file_path), sum(pos) FROM "
                     f"{t}.position_deletes", f"{t}.position_deletes")
            stats = json.loads(floe("query", "--format", "json", "--stats", "-e",
                                    f"SELECT sum(v) FROM {t}"))["stats"]
            check(stats.get("delete_files_opened") == files,
                  f"{t}: floe opens each of the {files} live delete files once: {stats}")
            # On simulated S3 a full scan costs one GET per data file, delete file (a Puffin file
            # once), manifest, the manifest list and the metadata file: nothing else.
            data_files = spark_rows(f"SELECT count(*) FROM floe.{t}.files WHERE content = 0")[0][0]
            manifests = spark_rows(  # those listing live files (the others are not read)
                f"SELECT count(*) FROM floe.{t}.manifests WHERE added_data_files_count + "
                "existing_data_files_count + added_delete_files_count + "
                "existing_delete_files_count > 0")[0][0]
            stats = json.loads(floe("--simulate-s3", "query", "--format", "json", "--stats", "-e",
                                    f"SELECT sum(v), count(cat) FROM {t}"))["stats"]
            want_gets = data_files + files + manifests + 2
            check(stats["data_files_opened"] == data_files and stats["requests"]["GET"] == want_gets
                  and stats["requests"]["HEAD"] == 0,
                  f"{t}: {stats['requests']} = {data_files} data files + {files} delete files + "
                  f"{manifests} manifests + list + metadata ({want_gets} GETs)")
        kinds = spark_rows("SELECT DISTINCT file_format FROM floe.sp.mor_dv.delete_files")
        check(kinds == [["PUFFIN"]], f"sp.mor_dv's deletes are deletion vectors ({kinds})")
        kinds = spark_rows("SELECT DISTINCT file_format FROM floe.sp.mor_file.delete_files")
        check(kinds == [["PARQUET"]], f"sp.mor_file's deletes are position delete files ({kinds})")
        # floe appends to Spark's v3 table: Spark reads the rows, each row keeps its own _row_id,
        # and the new rows take theirs from the next-row-id Spark left (spec: "Row Lineage").
        v3csv = os.path.join(work, "v3.csv")
        with open(v3csv, "w") as f:
            f.write("id,cat,v\n" + "".join(f"{i},c{i % 3},{i * 0.5}\n" for i in range(5000, 5100)))
        floe("table", "append", "sp.mor_dv", v3csv)
        sql("REFRESH TABLE floe.sp.mor_dv")
        same_mor("sp.mor_dv", "after floe's append to Spark's v3 table")
        lineage = spark_rows("SELECT count(*), count(DISTINCT _row_id), count(_row_id), "
                             "max(_row_id) FILTER (WHERE id < 5000), "
                             "min(_row_id) FILTER (WHERE id >= 5000), "
                             "max(_last_updated_sequence_number) FILTER (WHERE id < 5000), "
                             "min(_last_updated_sequence_number) FILTER (WHERE id >= 5000), "
                             "max(_last_updated_sequence_number) FILTER (WHERE id >= 5000) "
                             "FROM floe.sp.mor_dv")[0]
        check(lineage[0] == lineage[1] == lineage[2] and lineage[4] > lineage[3]
              and lineage[6] == lineage[7] > lineage[5],
              f"Spark sees a distinct _row_id for every row, floe's appended rows after its own, "
              f"with the append's sequence number: {lineage}")

        # A v3 table floe creates and appends to: Spark reads each row's _row_id as the file's
        # first_row_id plus its position, and _last_updated_sequence_number as its commit's.
        floe("table", "create", "fl.v3", "--format-version", "3", "--schema",
             '[{"name":"id","type":"long","required":true},{"name":"v","type":"double"}]',
             "--property", "write.delete.mode=merge-on-read")
        rows100 = os.path.join(work, "v3rows.csv")
        with open(rows100, "w") as f:
            f.write("id,v\n" + "".join(f"{i},{i * 0.5}\n" for i in range(100)))
        floe("table", "append", "fl.v3", rows100)
        floe("table", "append", "fl.v3", rows100)
        got = spark_rows("SELECT id, _row_id, _last_updated_sequence_number FROM floe.fl.v3 "
                         "ORDER BY _row_id")
        want = [[norm(i % 100), norm(i), norm(1 + i // 100)] for i in range(200)]
        check(got == want, "Spark reads floe's row lineage: _row_id = first_row_id + pos"
              + ("" if got == want else f": first rows {got[:3]}"))
        # Spark deletes with deletion vectors on floe's v3 table; floe reads what remains, appends
        # again, and Spark reads a distinct _row_id for every row.
        sql("DELETE FROM floe.fl.v3 WHERE id % 10 = 0")
        kinds = spark_rows("SELECT DISTINCT file_format FROM floe.fl.v3.delete_files")
        check(kinds == [["PUFFIN"]], f"Spark deletes from floe's v3 table with DVs ({kinds})")
        same("SELECT count(*), sum(id), sum(v) FROM fl.v3", "fl.v3 after Spark's DELETE")
        floe("table", "append", "fl.v3", rows100)
        sql("REFRESH TABLE floe.fl.v3")
        same("SELECT count(*), sum(id), sum(v) FROM fl.v3", "fl.v3 after floe's third append")
        ids = spark_rows("SELECT count(*), count(DISTINCT _row_id), min(_row_id) FILTER "
                         "(WHERE _last_updated_sequence_number = 4) FROM floe.fl.v3")[0]
        check(ids[0] == 280 and ids[1] == 280 and ids[2] == norm(200),
              f"floe's third append takes row ids 200.. after Spark's delete: {ids}")
        # Spark's compaction carries the row ids into its files; floe reads those files. Then
        # floe deletes through Spark's DVs, and floe's own sort rewrite moves every row with its
        # lineage: Spark reads the same _row_id and _last_updated_sequence_number of every row.
        before_ids = spark_rows("SELECT id, v, _row_id FROM floe.fl.v3 ORDER BY _row_id")
        sql("CALL floe.system.rewrite_data_files(table => 'fl.v3', "
            "options => map('rewrite-all', 'true'))")
        check(spark_rows("SELECT id, v, _row_id FROM floe.fl.v3 ORDER BY _row_id") == before_ids,
              "Spark's rewrite_data_files keeps the row ids floe assigned")
        same("SELECT count(*), sum(id), sum(v) FROM fl.v3", "fl.v3 after Spark's rewrite_data_files")
        sql("DELETE FROM floe.fl.v3 WHERE id % 10 = 1")
        lineage_q = ("SELECT id, v, _row_id, _last_updated_sequence_number FROM floe.fl.v3 "
                     "ORDER BY _row_id")
        before_ids = spark_rows(lineage_q)
        floe("table", "rewrite", "fl.v3", "--strategy", "sort", "--sort-by", "id DESC",
             "--rewrite-all")
        sql("REFRESH TABLE floe.fl.v3")
        after_ids = spark_rows(lineage_q)
        check(after_ids == before_ids and len(after_ids) == 250,
              f"floe's sort rewrite of a v3 table keeps every row's lineage as Spark reads it "
              f"({len(after_ids)} rows)" + ("" if after_ids == before_ids else
                                             f": first {after_ids[:2]} vs {before_ids[:2]}"))
        same("SELECT count(*), sum(id), sum(v) FROM fl.v3", "fl.v3 after floe's rewrite")
        # Equality deletes (Flink's kind), built from the spec: Parquet files of the equality
        # columns with their field ids, committed as row deltas through Iceberg's Java API in
        # Spark's JVM. Unpartitioned: global, by one column and by two (a NULL key deletes NULL
        # rows), and rows appended after a delete are not deleted by it (data seq < delete seq).
        # Partitioned: a delete applies within its partition only. floe answers as Spark does.
        import pyarrow as pa
        import pyarrow.parquet as pq
        jvm = spark._jvm
        gateway = spark.sparkContext._gateway
        icat = floe_spark.iceberg_catalog(spark)

        def eq_delete(table, name, columns, partition_path=None):
            fields = {"id": (1, pa.int64()), "cat": (2, pa.string())}
            schema = pa.schema([pa.field(c, fields[c][1], metadata={"PARQUET:field_id":
                                                                   str(fields[c][0])})
                                for c in columns])
            path = os.path.join(work, name)
            pq.write_table(pa.table(columns, schema=schema), path)
            t = icat.loadTable(jvm.org.apache.iceberg.catalog.TableIdentifier.parse("sp." + table))
            ids = gateway.new_array(gateway.jvm.int, len(columns))
            for i, c in enumerate(columns):
                ids[i] = fields[c][0]
            b = (jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(t.spec())
                 .ofEqualityDeletes(ids).withPath("file:" + path)
                 .withFileSizeInBytes(os.path.getsize(path))
                 .withRecordCount(len(next(iter(columns.values())))).withFormat("parquet"))
            if partition_path:
                b = b.withPartitionPath(partition_path)
            t.newRowDelta().addDeletes(b.build()).commit()
            sql(f"REFRESH TABLE floe.sp.{table}")

        eq_rows = ("SELECT id, CASE WHEN id % 10 = 0 THEN NULL ELSE concat('c', id % 3) END AS cat, "
                   "id * 0.5 AS v FROM range({}, {})")
        sql("CREATE TABLE floe.sp.eq (id bigint, cat string, v double) USING iceberg "
            "TBLPROPERTIES ('format-version'='2')")
        sql("INSERT INTO floe.sp.eq " + eq_rows.format(0, 300))
        eq_delete("eq", "eq-ids.parquet", {"id": [5, 6, 7, 1000]})
        eq_delete("eq", "eq-pairs.parquet", {"id": [11, 12, 13, 20], "cat": ["c2", "c0", "zz", None]})
        eq_delete("eq", "eq-null.parquet", {"cat": [None]})
        sql("INSERT INTO floe.sp.eq " + eq_rows.format(0, 20))  # after the deletes: kept
        sql("CREATE TABLE floe.sp.eq_part (id bigint, cat string, v double) USING iceberg "
            "PARTITIONED BY (cat) TBLPROPERTIES ('format-version'='2')")
        sql("INSERT INTO floe.sp.eq_part " + eq_rows.format(0, 300))
        eq_delete("eq_part", "eq-part.parquet", {"id": [1, 2, 4, 5, 7, 8]}, "cat=c1")
        for t in ("sp.eq", "sp.eq_part"):
            n = spark_rows(f"SELECT count(*) FROM floe.{t}.delete_files WHERE content = 2")[0][0]
            check(n > 0, f"{t} has equality delete files ({n})")
            same(f"SELECT count(*), sum(id), sum(v), count(cat) FROM {t}", f"{t} with equality deletes")
            same(f"SELECT cat, count(*), sum(id) FROM {t} GROUP BY cat ORDER BY cat NULLS FIRST",
                 f"{t} grouped, with equality deletes")
            same(f"SELECT id, cat FROM {t} WHERE id < 25 ORDER BY id, cat NULLS FIRST",
                 f"{t}: the rows with ids below 25")

        # floe's rewrite-deletes on Spark's partition-scoped deletes: Spark reads the same rows.
        sql("CREATE TABLE floe.sp.mor_compact (id bigint, cat string, v double) USING iceberg "
            f"PARTITIONED BY (bucket(2, id)) TBLPROPERTIES ('format-version'='2', {mor}, "
            "'write.delete.granularity'='partition')")
        sql("INSERT INTO floe.sp.mor_compact " + rows.format(0, 400))
        for k in range(5):
            sql(f"DELETE FROM floe.sp.mor_compact WHERE id % 13 = {k}")
        want_compact = spark_rows("SELECT count(*), sum(id), sum(v) FROM floe.sp.mor_compact")
        out = floe("table", "rewrite-deletes", "sp.mor_compact")
        sql("REFRESH TABLE floe.sp.mor_compact")
        files_after = spark_rows("SELECT count(*) FROM floe.sp.mor_compact.delete_files")[0][0]
        check(spark_rows("SELECT count(*), sum(id), sum(v) FROM floe.sp.mor_compact") == want_compact
              and files_after == 2,
              f"Spark reads floe's rewrite of its position deletes ({out.strip()}; "
              f"{files_after} delete files, one per partition)")
        same_mor("sp.mor_compact", "after floe's rewrite-deletes")

        # Spark's maintenance: the position deletes rewritten, then the data files with them.
        sql("CALL floe.system.rewrite_position_delete_files(table => 'sp.mor_part', "
            "options => map('rewrite-all', 'true'))")
        same_mor("sp.mor_part", "after Spark's rewrite_position_delete_files")
        sql("CALL floe.system.rewrite_data_files(table => 'sp.mor_file', "
            "options => map('delete-file-threshold', '1'))")
        same_mor("sp.mor_file", "after Spark's rewrite_data_files")

        # floe's DELETE and UPDATE in each write mode: Spark reads the rows floe's SQL says, and
        # floe's and Spark's row-level commits interleave on one table without losing any.
        dml_modes = {
            "fl.dml_cow": ("2", ""),
            "fl.dml_mor": ("2", "write.delete.mode=merge-on-read,write.update.mode=merge-on-read"),
            "fl.dml_part": ("2", "write.delete.mode=merge-on-read,write.update.mode=merge-on-read,"
                                 "write.delete.granularity=partition"),
            "fl.dml_dv": ("3", "write.delete.mode=merge-on-read,write.update.mode=merge-on-read"),
        }
        dml_csv = os.path.join(work, "dml.csv")
        with open(dml_csv, "w") as f:
            f.write("id,day,status,amount\n" + "".join(
                f"{i},2024-01-0{1 + i % 4},{'open' if i % 3 == 0 else 'shipped'},{i * 1.5}\n"
                for i in range(400)))
        for t, (version, props) in dml_modes.items():
            create = ["table", "create", t, "--format-version", version, "--partition-by", "day",
                      "--schema", '[{"name":"id","type":"long","required":true},'
                      '{"name":"day","type":"date"},{"name":"status","type":"string"},'
                      '{"name":"amount","type":"double"}]']
            for p in filter(None, props.split(",")):
                create += ["--property", p]
            floe(*create)
            floe("table", "append", t, dml_csv)
            floe("query", "-e", f"DELETE FROM {t} WHERE id % 7 = 0")
            floe("query", "-e", f"UPDATE {t} SET status = 'paid', amount = amount + 1000 "
                                f"WHERE status = 'open' AND id < 200")
            floe("query", "-e", f"DELETE FROM {t} WHERE id % 7 = 1 OR day = '2024-01-04'")
            sql(f"REFRESH TABLE floe.{t}")
            want = [[norm(v) for v in r] for r in
                    [(i, "paid" if i % 3 == 0 and i < 200 else ("open" if i % 3 == 0 else "shipped"),
                      i * 1.5 + (1000 if i % 3 == 0 and i < 200 else 0))
                     for i in range(400) if i % 7 not in (0, 1) and i % 4 != 3]]
            got = spark_rows(f"SELECT id, status, amount FROM floe.{t} ORDER BY id")
            check(got == want, f"{t}: Spark reads floe's DELETE and UPDATE row for row "
                               f"({len(got)} rows, {len(want)} expected)")
            same(f"SELECT status, count(*), sum(amount) FROM {t} GROUP BY status ORDER BY status",
                 f"{t} after floe's DML, grouped")
        kinds = spark_rows("SELECT DISTINCT file_format FROM floe.fl.dml_dv.delete_files")
        check(kinds == [["PUFFIN"]], f"floe's v3 deletes are deletion vectors ({kinds})")
        # Spark's MERGE and floe's DELETE and UPDATE, one after another on one table.
        sql("MERGE INTO floe.fl.dml_mor t USING (SELECT id, id % 5 AS k FROM range(0, 400, 5)) s "
            "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.amount = -1 "
            "WHEN NOT MATCHED THEN INSERT (id, day, status, amount) "
            "VALUES (s.id, DATE'2024-01-09', 'new', 0)")
        floe("query", "-e", "DELETE FROM fl.dml_mor WHERE amount = -1 AND id % 10 = 0")
        sql("REFRESH TABLE floe.fl.dml_mor")
        sql("UPDATE floe.fl.dml_mor SET status = 'spark' WHERE status = 'new'")
        floe("query", "-e", "UPDATE fl.dml_mor SET amount = 7 WHERE status = 'spark'")
        sql("REFRESH TABLE floe.fl.dml_mor")
        same("SELECT status, count(*), sum(amount), sum(id) FROM fl.dml_mor GROUP BY status "
             "ORDER BY status", "fl.dml_mor after Spark's MERGE and UPDATE and floe's DML")
        # The same MERGE by floe (on fl.dml_dv) and by Spark (on fl.dml_part, which holds the same
        # rows): both tables must then hold the same rows.
        merge = ("MERGE INTO {t} t USING (SELECT id + 1 AS id, status FROM {s} WHERE id < 100) s "
                 "ON t.id = s.id WHEN MATCHED AND s.status = 'paid' THEN DELETE "
                 "WHEN MATCHED THEN UPDATE SET amount = -2 "
                 "WHEN NOT MATCHED THEN INSERT (id, day, status, amount) "
                 "VALUES (s.id, DATE '2024-01-09', 'merged', 0) "
                 "WHEN NOT MATCHED BY SOURCE AND t.id > 390 THEN DELETE")
        sql(f"REFRESH TABLE floe.fl.dml_part")
        check(spark_rows("SELECT * FROM floe.fl.dml_part ORDER BY id") ==
              spark_rows("SELECT * FROM floe.fl.dml_dv ORDER BY id"), "fl.dml_part = fl.dml_dv")
        floe("query", "-e", merge.format(t="fl.dml_dv", s="fl.dml_cow"))
        sql(merge.format(t="floe.fl.dml_part", s="floe.fl.dml_cow"))
        sql("REFRESH TABLE floe.fl.dml_dv")
        want = spark_rows("SELECT id, day, status, amount FROM floe.fl.dml_part ORDER BY id")
        got = spark_rows("SELECT id, day, status, amount FROM floe.fl.dml_dv ORDER BY id")
        check(got == want and any(r[2] == "merged" for r in got),
              f"floe's MERGE leaves the rows Spark's leaves ({len(got)} rows, {len(want)} expected)")
        same("SELECT status, count(*), sum(amount), sum(id) FROM fl.dml_dv GROUP BY status "
             "ORDER BY status", "fl.dml_dv after floe's MERGE, read by floe and Spark")
        # A copy-on-write MERGE that only updates rows: floe rewrites each file in place (its
        # unchanged columns' chunks copied, page index and statistics with them). Spark reads the
        # rows floe reads, and its filters on a copied column still find them.
        out = floe("query", "-e", "MERGE INTO fl.dml_cow t USING (SELECT id, 'moved' AS status "
                                  "FROM fl.dml_cow WHERE id % 5 = 0) s ON t.id = s.id "
                                  "WHEN MATCHED THEN UPDATE SET status = s.status")
        check("rewritten in place" in out, f"floe's update-only MERGE rewrote in place: {out}")
        sql("REFRESH TABLE floe.fl.dml_cow")
        same("SELECT status, count(*), sum(amount), sum(id) FROM fl.dml_cow GROUP BY status "
             "ORDER BY status", "fl.dml_cow after floe's in-place MERGE, read by floe and Spark")
        same("SELECT id, status, amount FROM fl.dml_cow WHERE id BETWEEN 100 AND 140 ORDER BY id",
             "fl.dml_cow's rows 100-140 after the in-place MERGE")
        mor_tables = [*mor_tables, *dml_modes]

        # floe's orphan removal knows Spark's spelling of every referenced file: Spark reads the
        # same answers after it.
        before = {t: spark_rows(f"SELECT count(*), sum(id) FROM floe.{t}")
                  for t in ("sp.events", "fl.t", "sp.outside", "sp.gz", *mor_tables,
                            "sp.mor_compact", "fl.v3", "sp.eq", "sp.eq_part")}
        for t in before:
            floe("table", "remove-orphans", t, "--older-than", "0s", "--unsafe-allow-recent")
        sql("REFRESH TABLE floe.sp.events")
        after = {t: spark_rows(f"SELECT count(*), sum(id) FROM floe.{t}") for t in before}
        check(after == before, f"every table reads the same after floe's remove-orphans: {after}")
        same("SELECT count(*), sum(amount) FROM sp.events", "sp.events after remove-orphans")
        spark.stop()

    print(f"spark interop: {checks['passed']} passed, {checks['failed']} failed")
    sys.exit(1 if checks["failed"] else 0)


if __name__ == "__main__":
    main()
