#!/usr/bin/env python3
"""Fuzzes the floe command line for a bounded time: random SQL statements (and mutations of good
ones), CALL arguments, subcommands with random flags and values, table properties, and table
metadata (JSON) and manifests (Avro) damaged on disk. The rule every run must keep:

- floe exits by itself (no signal: rc < 128) within a deadline;
- a failure is exactly one line on stderr, starting "floe: ";
- a failure leaves every table as it was (the catalog's metadata locations and the files under
  the warehouse are unchanged).

Seeded, so a failure reproduces: each report gives the seed and the command.
Usage: fuzz_cli.py FLOE --workdir DIR [--seconds N] [--seed S]
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time

DEADLINE_S = 30  # one command; a dead loop or a 2.3e18 ms sleep shows as a timeout


class Fuzzer:
    def __init__(self, floe, workdir, rng):
        self.floe = floe
        self.workdir = workdir
        self.rng = rng
        self.failures = []
        self.runs = 0

    # ---------------------------------------------------------------- running and checking

    def fingerprint(self, wh):
        """What a failed command must leave alone: catalog rows and every file's size and hash."""
        out = []
        db = os.path.join(wh, "catalog.db")
        if os.path.exists(db):
            con = sqlite3.connect(db)
            try:
                out += sorted(con.execute(
                    "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"))
            except sqlite3.Error:
                out.append("no iceberg_tables")
            con.close()
        for root, _, files in os.walk(wh):
            for f in sorted(files):
                if f == "catalog.db" or f.startswith("catalog.db-"):
                    continue
                p = os.path.join(root, f)
                with open(p, "rb") as fh:
                    out.append((os.path.relpath(p, wh), hashlib.md5(fh.read()).hexdigest()))
        return sorted(map(str, out))

    def run(self, wh, args, stdin=None, what=""):
        self.runs += 1
        before = self.fingerprint(wh)
        # A NUL cannot be in an argument (execve); it still reaches floe through stdin.
        args = [a.replace("\x00", "\\0") for a in args]
        cmd = [self.floe, "--warehouse", wh, "--quiet", *args]
        try:
            r = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                               errors="replace", timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.fail(cmd, stdin, f"no answer within {DEADLINE_S} s", what)
            return None
        if r.returncode < 0 or r.returncode >= 128:
            self.fail(cmd, stdin, f"rc {r.returncode}: {r.stderr.strip()[:400]}", what)
            return r
        if r.returncode != 0:
            lines = r.stderr.splitlines()
            if len(lines) != 1 or not lines[0].startswith("floe: "):
                self.fail(cmd, stdin, f"rc {r.returncode} with stderr {r.stderr[:400]!r}", what)
            if self.fingerprint(wh) != before:
                self.fail(cmd, stdin, f"rc {r.returncode} ({r.stderr.strip()[:200]}) changed the "
                          "warehouse", what)
        return r

    def fail(self, cmd, stdin, why, what):
        self.failures.append(f"{what}: {why}\n    command: {' '.join(cmd)!r}" +
                             (f"\n    stdin: {stdin[:300]!r}" if stdin else ""))

    # ---------------------------------------------------------------- the warehouse

    def build(self, wh):
        shutil.rmtree(wh, ignore_errors=True)
        f = lambda *a: subprocess.run([self.floe, "--warehouse", wh, "--quiet", *a],
                                      capture_output=True, text=True, check=True)
        f("table", "create", "db.ev", "--schema", json.dumps([
            {"name": "id", "type": "long", "required": True}, {"name": "ts", "type": "timestamptz"},
            {"name": "cat", "type": "string"}, {"name": "amount", "type": "decimal(9,2)"},
            {"name": "f", "type": "double"}]), "--partition-by", "day(ts)", "--sort-by", "id")
        f("table", "create", "db.x", "--schema", json.dumps([
            {"name": "k", "type": "int"}, {"name": "v", "type": "string"}]))
        for n in range(3):
            path = os.path.join(self.workdir, f"ev{n}.csv")
            with open(path, "w") as fh:
                fh.write("id,ts,cat,amount,f\n")
                for i in range(50):
                    fv = ["NaN", "-0.0", "0.0", "1.5", "", "inf"][i % 6]
                    fh.write(f"{n * 100 + i},2024-01-0{n + 1}T{i % 24:02d}:00:00Z,"
                             f"{['a', 'b', '', 'dé'][i % 4]},{i}.25,{fv}\n")
            f("table", "append", "db.ev", path)
        path = os.path.join(self.workdir, "x.csv")
        with open(path, "w") as fh:
            fh.write("k,v\n1,one\n2,\n3,three\n")
        f("table", "append", "db.x", path)

    # ---------------------------------------------------------------- generators

    WEIRD = ["0", "-1", "1", "2147483648", "-2147483649", "9223372036854775807",
             "-9223372036854775808", "99999999999999999999", "1e308", "1e309", "-0.0", "'NaN'",
             "'inf'", "NULL", "''", "'x'", "'9999-12-31'", "'2262-04-11 23:47:17'",
             "'0001-01-01'", "'2024-02-30'", "'2024-01-03T00:00:00+99:00'", "'dé'",
             "'\\n'", "2.5", "TRUE", "'a''b'", "0.000000000000000000000000000000000000001",
             "12345678901234567890123456789012345678901"]
    COLS = ["id", "ts", "cat", "amount", "f", "nosuch", "*", "1"]
    OPS = ["=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "||", "LIKE", "AND", "OR"]

    def expr(self, depth=0):
        r = self.rng.random()
        if depth > 2 or r < 0.35:
            return self.rng.choice(self.COLS[:5] + self.WEIRD)
        if r < 0.5:
            return f"cast({self.expr(depth + 1)} as {self.rng.choice(['int', 'bigint', 'tinyint', 'double', 'decimal(3,1)', 'decimal(38,38)', 'date', 'timestamp', 'varchar', 'boolean', 'uuid'])})"
        if r < 0.6:
            fn = self.rng.choice(["lower", "upper", "length", "substring", "abs", "coalesce",
                                  "date_trunc", "year", "round", "sum", "count", "min", "max"])
            args = ", ".join(self.expr(depth + 1) for _ in range(self.rng.randint(0, 3)))
            return f"{fn}({args})"
        if r < 0.7:
            return f"{self.expr(depth + 1)} IN ({', '.join(self.expr(depth + 1) for _ in range(self.rng.randint(0, 3)))})"
        if r < 0.75:
            return f"{self.expr(depth + 1)} BETWEEN {self.expr(depth + 1)} AND {self.expr(depth + 1)}"
        if r < 0.8:
            return f"CASE WHEN {self.expr(depth + 1)} THEN {self.expr(depth + 1)} ELSE {self.expr(depth + 1)} END"
        return f"({self.expr(depth + 1)} {self.rng.choice(self.OPS)} {self.expr(depth + 1)})"

    def select(self):
        table = self.rng.choice(["db.ev", "db.x", "db.ev.files", "db.ev.snapshots", "db.nosuch",
                                 "db.ev FOR VERSION AS OF 1", "db.ev FOR TIMESTAMP AS OF '2000-01-01'"])
        cols = ", ".join(self.expr() for _ in range(self.rng.randint(1, 3)))
        sql = f"SELECT {cols} FROM {table}"
        if self.rng.random() < 0.7:
            sql += f" WHERE {self.expr()}"
        if self.rng.random() < 0.3:
            sql += f" GROUP BY {self.rng.choice(['1', 'cat', 'id', '2'])}"
        if self.rng.random() < 0.3:
            sql += f" ORDER BY {self.rng.choice(['1', 'id DESC NULLS FIRST', 'f', 'nosuch'])}"
        if self.rng.random() < 0.3:
            sql += f" LIMIT {self.rng.choice(self.WEIRD[:8])}"
        if self.rng.random() < 0.2:
            sql += f" OFFSET {self.rng.choice(self.WEIRD[:8])}"
        return sql

    def call(self):
        proc = self.rng.choice(["expire_snapshots", "remove_orphan_files", "rewrite_data_files",
                                "rewrite_manifests", "rollback_to_snapshot"])
        args = ["table => " + self.rng.choice(["'db.ev'", "'db.x'", "'db'", "''", "'a.b.c'", "1"])]
        names = ["older_than", "retain_last", "dry_run", "strategy", "sort_order", "options",
                 "location", "where", "spec_id", "nosuch"]
        for _ in range(self.rng.randint(0, 3)):
            name = self.rng.choice(names)
            if name == "options":
                k = self.rng.choice(["min-input-files", "target-file-size-bytes", "rewrite-all",
                                     "partial-progress.max-commits", "max-file-group-size-bytes",
                                     "nosuch"])
                val = f"map('{k}', '{self.rng.choice(['0', '-1', 'x', '1', '4294967297', 'true'])}')"
            else:
                val = self.rng.choice(self.WEIRD + ["'3d'", "'0s'", "'99999999999999999999d'",
                                                    "'sort'", "'zorder(id)'", "'id DESC'"])
            args.append(f"{name} => {val}")
        return f"CALL system.{proc}({', '.join(args)})"

    def mutate_text(self, sql):
        ops = self.rng.randint(1, 3)
        s = list(sql)
        for _ in range(ops):
            if not s:
                break
            i = self.rng.randrange(len(s))
            choice = self.rng.random()
            if choice < 0.3:
                del s[i]
            elif choice < 0.6:
                s.insert(i, self.rng.choice("()',;*\"\\-+/\x00é\n"))
            else:
                s[i] = self.rng.choice("0'\"()x ")
        return "".join(s)

    def sql_case(self, wh):
        r = self.rng.random()
        if r < 0.5:
            sql = self.select()
        elif r < 0.7:
            sql = self.call()
        elif r < 0.8:
            sql = self.rng.choice(["CREATE TABLE db.y (a int)", "DROP TABLE db.ev", "DELETE FROM db.ev",
                                   "UPDATE db.ev SET id = 1", "EXPLAIN SELECT 1", "SET x = 1",
                                   "WITH a AS (SELECT 1) SELECT * FROM a", "SELECT 1; SELECT 2",
                                   "", ";", "--", "/*", "SELECT '", "SELECT \"", "\x00"])
        else:
            sql = self.mutate_text(self.select())
        mode = self.rng.random()
        if mode < 0.6:
            self.run(wh, ["query", "-e", sql, "--format", self.rng.choice(["json", "csv", "table"])],
                     what="sql")
        else:
            self.run(wh, ["query", "--format", "json"], stdin=sql + ";\n", what="sql (piped)")

    FLAGS = {
        ("table", "rewrite"): ["--strategy", "--sort-by", "--target-file-size", "--min-file-size",
                               "--max-file-size", "--max-file-group-size", "--min-input-files",
                               "--partial-progress", "--where", "--rewrite-all", "--dry-run"],
        ("table", "expire"): ["--older-than", "--retain-last"],
        ("table", "remove-orphans"): ["--older-than", "--dry-run"],
        ("table", "describe"): [], ("table", "snapshots"): [], ("table", "files"): [],
        ("table", "scan"): ["--where", "--format", "--stats", "--limit", "--columns"],
        ("table", "rewrite-manifests"): ["--target-manifest-size"],
        ("query",): ["-e", "--format", "--read-strategy", "--stats", "--set"],
        ("parquet", "inspect"): [], ("parquet", "cat"): ["--columns", "--limit", "--format"],
    }
    VALUES = ["", "0", "-1", "1", "99999999999999999999", "2MB", "-5MiB", "0s", "3d", "x",
              "binpack", "sort", "id", "id DESC", "nosuch", "json", "csv", "table", "floe", "aal",
              "'", "1e9", "4294967297", "2024-01-03", "id = 1", "id >", "9999-12-31T00:00:00Z",
              "read.request-budget=0", "read.whole-file-bytes=64KiB", "read.nope=1", "read.threads="]

    def flag_case(self, wh):
        cmd = self.rng.choice(list(self.FLAGS))
        args = list(cmd)
        if cmd[0] == "table":
            args.append(self.rng.choice(["db.ev", "db.x", "db.nosuch", "db", "", "a..b"]))
        elif cmd[0] == "parquet":
            data = [os.path.join(r, f) for r, _, fs in os.walk(wh) for f in fs if f.endswith(".parquet")]
            args.append(self.rng.choice(data + ["/nonexistent.parquet", "/etc/hostname"]))
        for _ in range(self.rng.randint(0, 3)):
            flags = self.FLAGS[cmd] + ["--simulate-s3", "--no-simulate-s3", "--catalog", "--nosuch"]
            flag = self.rng.choice(flags)
            args.append(flag)
            if flag not in ("--rewrite-all", "--dry-run", "--stats", "--no-simulate-s3"):
                v = self.rng.choice(self.VALUES + ["first_byte_ms=-1", "mbps=0", "concurrency=999999999"])
                if flag == "-e":
                    v = self.select()
                args.append(v)
        if cmd == ("table", "remove-orphans") and "--dry-run" not in args:
            args.append("--dry-run")  # deleting files by age is not what this fuzzes
        self.run(wh, args, what="flags")

    PROPERTIES = ["write.target-file-size-bytes", "write.parquet.row-group-size-bytes",
                  "write.parquet.page-size-bytes", "write.parquet.page-row-limit",
                  "write.parquet.compression-codec", "write.parquet.compression-level",
                  "write.parquet.bloom-filter-enabled.column.id",
                  "write.parquet.bloom-filter-fpp.column.id", "write.metadata.metrics.default",
                  "write.metadata.previous-versions-max", "commit.retry.num-retries",
                  "commit.retry.min-wait-ms", "commit.retry.max-wait-ms", "commit.retry.total-timeout-ms",
                  "commit.manifest.min-count-to-merge", "history.expire.min-snapshots-to-keep",
                  "format-version", "unknown.property"]

    def property_case(self, wh):
        name = f"db.p{self.rng.randrange(10 ** 6)}"
        args = ["table", "create", name, "--schema", '[{"name":"id","type":"long"}]']
        for _ in range(self.rng.randint(1, 3)):
            v = self.rng.choice(self.VALUES + ["truncate(0)", "full", "zstd", "lzo", "true", "0.01"])
            args += ["--property", f"{self.rng.choice(self.PROPERTIES)}={v}"]
        r = self.run(wh, args, what="properties")
        if r is not None and r.returncode == 0:
            path = os.path.join(self.workdir, "p.csv")
            with open(path, "w") as fh:
                fh.write("id\n" + "\n".join(str(i) for i in range(100)) + "\n")
            self.run(wh, ["table", "append", name, path], what="append under fuzzed properties")
            self.run(wh, ["query", "-e", f"select count(*) from {name}"], what="read it back")
            subprocess.run([self.floe, "--warehouse", wh, "--quiet", "table", "drop", name, "--purge"],
                           capture_output=True, timeout=DEADLINE_S)

    # Damaged metadata: a fresh warehouse with one metadata file or manifest changed, then the
    # commands that read and write it.
    def mutate_json(self, value, depth=0):
        if isinstance(value, dict) and value:
            k = self.rng.choice(list(value))
            if self.rng.random() < 0.3 and depth > 0:
                del value[k]
            else:
                value[k] = self.mutate_json(value[k], depth + 1)
            return value
        if isinstance(value, list) and value:
            i = self.rng.randrange(len(value))
            value[i] = self.mutate_json(value[i], depth + 1)
            return value
        return self.rng.choice([None, "x", -1, 0, 2 ** 63, -2 ** 70, 1.5, [], {}, True, "", "NaN"])

    def metadata_case(self, _):
        wh = os.path.join(self.workdir, "damaged")
        self.build(wh)  # fresh: metadata and manifests hold absolute locations
        meta = sorted(os.path.join(r, f) for r, _, fs in os.walk(wh) for f in fs
                      if f.endswith(".metadata.json") or f.endswith(".avro"))
        target = self.rng.choice(meta)
        with open(target, "rb") as fh:
            data = bytearray(fh.read())
        kind = self.rng.random()
        if target.endswith(".json") and kind < 0.6:
            doc = json.loads(data)
            for _ in range(self.rng.randint(1, 3)):
                doc = self.mutate_json(doc)
            data = bytearray(json.dumps(doc).encode())
        elif kind < 0.8 and data:
            for _ in range(self.rng.randint(1, 8)):
                data[self.rng.randrange(len(data))] = self.rng.randrange(256)
        else:
            data = data[: self.rng.randrange(len(data) + 1)]
        with open(target, "wb") as fh:
            fh.write(bytes(data))
        what = f"damaged {os.path.relpath(target, wh)}"
        for args in (["query", "-e", "select count(*), sum(id) from db.ev"],
                     ["query", "-e", "select * from db.ev.snapshots"],
                     ["table", "describe", "db.ev"], ["table", "files", "db.ev"],
                     ["table", "expire", "db.ev", "--older-than", "0s", "--retain-last", "1"],
                     ["table", "rewrite", "db.ev", "--rewrite-all"],
                     ["table", "remove-orphans", "db.ev", "--dry-run"],
                     ["table", "append", "db.ev", os.path.join(self.workdir, "ev0.csv")]):
            self.run(wh, args, what=what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FLOE_FUZZ_SEED", "1")))
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    rng = random.Random(args.seed)
    fz = Fuzzer(os.path.realpath(args.floe), args.workdir, rng)
    work = os.path.join(args.workdir, "wh")
    fz.build(work)
    start = time.time()
    counts = {}
    cases = [("sql", fz.sql_case, work), ("flags", fz.flag_case, work),
             ("properties", fz.property_case, work), ("metadata", fz.metadata_case, None)]
    weights = [5, 3, 1, 2]
    while time.time() - start < args.seconds:
        name, case, wh = rng.choices(cases, weights)[0]
        counts[name] = counts.get(name, 0) + 1
        case(wh)
        if len(fz.failures) >= int(os.environ.get("FLOE_FUZZ_MAX_FAILURES", "20")):
            break
    print(f"fuzzed {fz.runs} floe runs in {time.time() - start:.0f} s (seed {args.seed}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for f in fz.failures:
        print("FAIL", f)
    print(f"{len(fz.failures)} failures")
    return 1 if fz.failures else 0


if __name__ == "__main__":
    sys.exit(main())
