#!/usr/bin/env python3
"""floe's Z-order sorts rows exactly as Spark's: the same rows, rewritten by Iceberg's Spark action
`rewrite_data_files(strategy => 'sort', sort_order => 'zorder(...)')` in one table and by floe
(`floe table rewrite --strategy zorder`, and SQL CALL as Spark spells it) in another, come out
in the same order, row for row.

Spark 4.1 + Iceberg 1.11 on a floe warehouse (tests/interop/floe_spark.py) writes two tables of
the same 3,000 rows: every type Spark's action takes (tinyint .. double, string, binary, boolean,
date, timestamp), with negatives, -0.0, NaN, infinities, NULLs, strings longer than 8 bytes and
multi-byte characters cut at the 8th byte. One output file per partition (a target of 1 GB), so
a table's order is its files' row positions. Each clustering includes one column of distinct
values, so no two rows share a key and the order is unique. Also: identity partition columns
are dropped from the key as Spark drops them, and var-length-contribution is honoured.
Usage: spark_zorder.py FLOE_BINARY [--jars DIR].
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from datetime import date, datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floe_spark  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("floe")
ap.add_argument("--jars", default=floe_spark.DEFAULT_JARS)
args = ap.parse_args()

failed = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, file=sys.stdout if cond else sys.stderr)
    if not cond:
        failed.append(what)


def rows(n, seed):
    rnd = random.Random(seed)
    ids = list(range(-n // 2, n - n // 2))
    rnd.shuffle(ids)
    floats = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan, 1e-300, -1e300, None]
    words = ["", "a", "abcdefgh", "abcdefghij", "abcdefg\u00e9", "abcdefg\u00e8x", "\u20ac\u20ac\u20ac",
             "zz", "Zebra", "\U0001f600abc", None]
    out = []
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        def maybe(v):
            return None if rnd.random() < 0.05 else v
        out.append((
            ids[i],  # distinct: the tie-break of every key
            maybe(rnd.randint(-128, 127)),
            maybe(rnd.randint(-32768, 32767)),
            maybe(rnd.randint(-2**31, 2**31 - 1)),
            maybe(rnd.randint(-2**63, 2**63 - 1)),
            rnd.choice(floats) if rnd.random() < 0.2 else maybe(rnd.uniform(-1e6, 1e6)),
            rnd.choice(floats) if rnd.random() < 0.2 else maybe(rnd.uniform(-1e3, 1e3)),
            rnd.choice(words) if rnd.random() < 0.3 else maybe(
                "".join(rnd.choice("abcdefgh\u00e9\u4e2d") for _ in range(rnd.randint(0, 14)))),
            maybe(bytes(rnd.randint(0, 255) for _ in range(rnd.randint(0, 11)))),
            rnd.random() < 0.5,  # Spark's action fails on a NULL boolean
            maybe(date(1970, 1, 1) + timedelta(days=rnd.randint(-40000, 40000))),
            maybe(epoch + timedelta(microseconds=rnd.randint(-2**50, 2**50))),
            i % 3,
        ))
    return out


def main():
    from pyspark.sql.types import (BinaryType, BooleanType, ByteType, DateType, DoubleType,
                                   FloatType, IntegerType, LongType, ShortType, StringType,
                                   StructField, StructType, TimestampType)
    schema = StructType([
        StructField("id", IntegerType()), StructField("t8", ByteType()),
        StructField("t16", ShortType()), StructField("i", IntegerType()),
        StructField("l", LongType()), StructField("d", DoubleType()),
        StructField("f", FloatType()), StructField("s", StringType()),
        StructField("b", BinaryType()), StructField("flag", BooleanType()),
        StructField("dt", DateType()), StructField("ts", TimestampType()),
        StructField("part", IntegerType()),
    ])
    with tempfile.TemporaryDirectory() as work:
        wh = os.path.join(work, "wh")
        os.makedirs(wh)

        def floe(*a):
            r = subprocess.run([args.floe, "--warehouse", wh, "--quiet", *a], capture_output=True,
                               text=True)
            if r.returncode != 0:
                raise SystemExit(f"floe {' '.join(a)} failed ({r.returncode}): {r.stderr.strip()}")
            return r.stdout

        # floe makes the warehouse's catalog before Spark opens it.
        floe("table", "create", "init.t", "--schema", '[{"name":"x","type":"int"}]')
        spark = floe_spark.session(wh, work, args.jars, "floe-spark-zorder")
        sql = spark.sql
        sql("CREATE NAMESPACE IF NOT EXISTS floe.z")
        df = spark.createDataFrame(rows(3000, 20261203), schema).repartition(4)
        df.createOrReplaceTempView("src")

        def table(name, partitioned=False):
            sql(f"CREATE TABLE floe.z.{name} ({', '.join(f'{f.name} {f.dataType.simpleString()}' for f in schema.fields)}) "
                f"USING iceberg {'PARTITIONED BY (part)' if partitioned else ''} "
                f"TBLPROPERTIES ('write.target-file-size-bytes'='65536')")
            sql(f"INSERT INTO floe.z.{name} SELECT * FROM src")

        def order(name, partitioned):
            """Ids in the table's order: partition, then file (one per partition), then position."""
            got = sql(f"SELECT part, _file, _pos, id FROM floe.z.{name}").collect()
            files = {}
            for r in got:
                files.setdefault(r["part"] if partitioned else 0, set()).add(r["_file"])
            check(all(len(f) == 1 for f in files.values()),
                  f"{name}: one file per partition ({ {k: len(v) for k, v in files.items()} })")
            return [r["id"] for r in
                    sorted(got, key=lambda r: (r["part"] if partitioned else 0, r["_pos"]))]

        cases = [
            # (clustering columns, options, partitioned)
            ("s, ts, i", {}, False),
            ("d, f, flag, dt, l", {}, False),
            ("t8, t16, id", {}, False),
            ("b, s, id", {"var-length-contribution": "3"}, False),
            ("part, s, id", {}, True),  # part: identity partition, dropped from the key
        ]
        for n, (cols, opts, partitioned) in enumerate(cases):
            spark_t, floe_t = f"spark{n}", f"floe{n}"
            table(spark_t, partitioned)
            table(floe_t, partitioned)
            options = {"rewrite-all": "true", "target-file-size-bytes": str(1 << 30), **opts}
            omap = ", ".join(f"'{k}', '{v}'" for k, v in options.items())
            sql(f"CALL floe.system.rewrite_data_files(table => 'z.{spark_t}', strategy => 'sort', "
                f"sort_order => 'zorder({cols})', options => map({omap}))")
            if n % 2 == 0:  # floe's command line
                extra = ["--var-length-contribution", opts["var-length-contribution"]] \
                    if opts else []
                floe("table", "rewrite", f"z.{floe_t}", "--strategy", "zorder", "--columns",
                     cols.replace(" ", ""), "--rewrite-all", "--target-file-size", "1GB", *extra)
            else:  # floe's SQL, as Spark spells it
                floe("query", "-e", f"CALL system.rewrite_data_files(table => 'z.{floe_t}', "
                     f"strategy => 'sort', sort_order => 'zorder({cols})', options => map({omap}))")
            sql(f"REFRESH TABLE floe.z.{floe_t}")
            want, got = order(spark_t, partitioned), order(floe_t, partitioned)
            first = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b), None)
            check(len(want) == 3000 and got == want,
                  f"zorder({cols}) {opts}: floe's order equals Spark's for {len(want)} rows"
                  + ("" if first is None else f" (first difference at row {first}: "
                                               f"spark id {want[first]}, floe id {got[first]})"))
        summary = json.loads(floe("query", "--format", "json", "-e",
                                  "SELECT summary FROM z.floe0.snapshots ORDER BY committed_at DESC "
                                  "LIMIT 1"))["rows"]
        check("zorder(s, ts, i)" in json.dumps(summary),
              f"floe's snapshot summary names the clustering ({summary})")
        spark.stop()
    if failed:
        print(f"{len(failed)} checks failed", file=sys.stderr)
        sys.exit(1)
    print("all checks passed")


main()
