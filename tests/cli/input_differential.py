#!/usr/bin/env python3
"""floe's CSV sniffer and NDJSON reader against DuckDB's read_csv / read_json.

Writes a handful of tricky CSV and NDJSON files (dialects, quotes, headers or none, BOM, CRLF,
NULLs, every sniffed type, nested JSON, gzip and zstd) and a seeded random CSV, then checks that
`floe query --format json -e "SELECT * FROM read_csv('f')"` gives the column names, the types
(DuckDB's names mapped to floe's) and the rows DuckDB's read_csv / read_json give.

Deliberate differences, not compared: DuckDB's JSON type (a key of conflicting types) is floe's
string; DuckDB prints a JSON string value with its quotes, floe without them (files below keep
conflicts to numbers and objects, whose text is the same).

Usage: input_differential.py FLOE --workdir DIR [--seed N]
"""
import argparse
import datetime
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

import duckdb

FILES = {
    "semicolon.csv": 'id;name;price;day\n1;"ann; a";1.5;2024-01-03\n2;bob;;2024-01-04\n3;;2;\n',
    "tab_noheader.tsv": "1\t2.5\tx\n3\t4.5\ty\n5\t\tz\n",
    "quoted.csv": 'a,b,c\n"x, y",1,"two\nlines"\n"say ""hi""",2,plain\n,3,""\n',
    "single_quote.csv": "a,b\n'x,y',2\n'z',3\n",
    "backslash.csv": 'a,b\n"x\\"y",2\n"p,q",3\n',
    "bom_crlf.csv": "\ufeffid,name\r\n1,ann\r\n2,bob",
    "times.csv": "t,tz,d,tm\n2024-01-03 10:00:00,2024-01-03T10:00:00Z,2024-01-03,10:00:00\n"
                 "2024-01-04T11:30:00.25,2024-01-04 11:30:00+02:00,2024-02-29,23:59:59.5\n",
    "bools.csv": "a,b,c\ntrue,0,TRUE\nfalse,1,false\n,true,\n",
    "dup_header.csv": "a,a,,b\n1,2,3,4\n",
    "numbers_only.csv": "1,2\n3,4\n",
    "words.csv": "x,y\nfoo,bar\nbaz,qux\n",
    "pipe.csv": 'a|b\n"x|y"|2\n',
    "mixed_types.csv": "a,b,c\n1,2024-01-01,1.5\nx,2024-01-01 10:00:00,2\n",
    "flat.ndjson": '{"a":1,"b":"x","c":true,"d":1.5}\n{"a":2,"c":false}\n{"b":"y","d":2,"a":null}\n',
    "nested.ndjson": '{"id":1,"p":{"x":1,"y":[1,2]},"tags":["a","b"]}\n'
                     '{"id":2,"p":null,"tags":[]}\n{"id":3,"p":{"x":2.5,"y":null}}\n',
    "dates.ndjson": '{"d":"2024-01-03","t":"2024-01-03 10:00:00"}\n{"d":"2024-02-29","t":null}\n',
    "conflict.ndjson": '{"a":1,"b":[1,2.5]}\n{"a":{"k":[1]},"b":[3]}\n',
    "array.json": '[{"id":1,"v":"a"},{"id":2,"v":"b"}]',
    # DuckDB's typing rules: a leading zero keeps a number text (zip codes); t/f and yes/no are
    # booleans; spaces around a value do not change its type, and a header's names are trimmed,
    # while text keeps its spaces.
    "leading_zero.csv": "zip,n\n007,1\n010,2\n3,3\n",
    "bool_words.csv": "a,b\nt,yes\nf,no\nT,No\n",
    "spaces.csv": "a, b, c\n1, hello , 2024-01-03\n2,  x, 2024-01-04\n",
}

TYPE_NAMES = {"BIGINT": "long", "DOUBLE": "double", "VARCHAR": "string", "BOOLEAN": "boolean",
              "DATE": "date", "TIME": "time", "TIMESTAMP": "timestamp",
              "TIMESTAMP WITH TIME ZONE": "timestamptz", "JSON": "string"}


def floe_type(duck):
    """DuckDB's type name in floe's spelling."""
    duck = duck.strip()
    if duck.endswith("[]"):
        return "list<" + floe_type(duck[:-2]) + ">"
    if duck.startswith("STRUCT("):
        inner, depth, parts, cur = duck[7:-1], 0, [], ""
        for ch in inner:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "("
            depth -= ch == ")"
            cur += ch
        parts.append(cur)
        fields = []
        for p in parts:
            name, t = p.strip().split(" ", 1)
            fields.append(f"{name.strip(chr(34))}: {floe_type(t)}")
        return "struct<" + ", ".join(fields) + ">"
    return TYPE_NAMES.get(duck, duck)


def micros(s):
    """A floe timestamp string as microseconds since the epoch."""
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * 1_000_000)


def norm_floe(v, t):
    if v is None:
        return None
    if t in ("timestamp", "timestamptz"):
        return micros(v)
    if t == "time":
        return datetime.time.fromisoformat(v)
    if t == "double":
        return float(v)
    if t.startswith("list<"):
        return [norm_floe(x, t[5:-1]) for x in v]
    return v


def norm_duck(v, t):
    if v is None:
        return None
    if t == "date":
        return v.isoformat()
    if t == "time":
        return v
    if t == "double":
        return float(v)
    if isinstance(v, dict):
        return {k: (float(x) if isinstance(x, float) else x) for k, x in v.items()}
    return v


def duck_rows(con, fn, path, cols, types):
    exprs = []
    for c, t in zip(cols, types):
        q = '"' + c.replace('"', '""') + '"'
        if t in ("timestamp", "timestamptz"):
            exprs.append(f"epoch_us({q})")
        elif t in ("date", "time"):
            # Taken as values, not CAST to text in SQL: DuckDB pushes such a cast into the CSV
            # reader, which then gives the field's raw text (spaces and all).
            exprs.append(q)
        elif t == "string" and fn == "read_json":
            exprs.append(f"CAST({q} AS VARCHAR)")
        else:
            exprs.append(q)
    rows = con.execute(f"SELECT {', '.join(exprs)} FROM {fn}('{path}')").fetchall()
    return [[norm_duck(v, t) for v, t in zip(r, types)] for r in rows]


def check(floe, wh, path, fn, failures):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    rel = con.execute(f"DESCRIBE SELECT * FROM {fn}('{path}')").fetchall()
    cols = [r[0] for r in rel]
    types = [floe_type(r[1]) for r in rel]
    want_rows = duck_rows(con, fn, path, cols, types)
    out = subprocess.run([floe, "--warehouse", wh, "query", "--format", "json", "-e", f"SELECT * FROM {fn}('{path}')"],
                         capture_output=True, text=True)
    name = os.path.basename(path)
    if out.returncode != 0:
        failures.append(f"{name}: floe failed: {out.stderr.strip()}")
        return
    got = json.loads(out.stdout)
    if got["columns"] != cols or got["types"] != types:
        failures.append(f"{name}: columns {list(zip(got['columns'], got['types']))} != DuckDB's "
                        f"{list(zip(cols, types))}")
        return
    got_rows = [[norm_floe(v, t) for v, t in zip(r, types)] for r in got["rows"]]
    if got_rows != want_rows:
        failures.append(f"{name}: rows {got_rows} != DuckDB's {want_rows}")


def random_csv(rng, rows):
    words = ["apple", "b,c", 'say "x"', "line\nbreak", "", "Zoe"]
    lines = ["id,word,x,flag,day,at"]
    for i in range(rows):
        w = rng.choice(words)
        if any(ch in w for ch in ',"\n'):
            w = '"' + w.replace('"', '""') + '"'
        x = "" if rng.random() < 0.1 else repr(round(rng.uniform(-1e6, 1e6), rng.randint(0, 4)))
        flag = rng.choice(["true", "false", ""])
        day = "" if rng.random() < 0.1 else str(datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 900)))
        at = (datetime.datetime(2024, 1, 1) + datetime.timedelta(seconds=rng.randint(0, 10**8),
                                                                   microseconds=rng.randint(0, 999999)))
        lines.append(f"{i},{w},{x},{flag},{day},{at.isoformat(sep=rng.choice(['T', ' ']))}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    rng = random.Random(args.seed)
    files = dict(FILES)
    files["random.csv"] = random_csv(rng, 300)
    paths = []
    for name, text in files.items():
        p = os.path.join(args.workdir, name)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        paths.append(p)
    # Compressed copies: gzip by name, zstd through DuckDB's own writer (both read them).
    for name in ("semicolon.csv", "quoted.csv", "nested.ndjson"):
        src = os.path.join(args.workdir, name)
        with open(src, "rb") as f, gzip.open(src + ".gz", "wb") as g:
            g.write(f.read())
        paths.append(src + ".gz")
    zst = os.path.join(args.workdir, "random.csv.zst")
    subprocess.run(["zstd", "-q", "-f", os.path.join(args.workdir, "random.csv"), "-o", zst],
                   check=True)
    paths.append(zst)
    # read_csv needs no table, but floe query needs a warehouse.
    wh = os.path.join(args.workdir, "wh")
    subprocess.run([args.floe, "--warehouse", wh, "--quiet", "table", "create", "x.unused", "--schema",
                    '[{"name":"a","type":"int"}]'], check=True, capture_output=True)
    failures = []
    for p in paths:
        base = p.removesuffix(".gz").removesuffix(".zst")
        fn = "read_json" if base.endswith((".ndjson", ".json")) else "read_csv"
        check(args.floe, wh, p, fn, failures)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(paths) - len(failures)} of {len(paths)} files read as DuckDB reads them")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
