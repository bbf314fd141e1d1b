#!/usr/bin/env python3
"""Seeded differential test of `floe query` against DuckDB.

Writes Parquet files with pyarrow, loads them into a floe table (`floe table create/append`),
generates a few hundred queries (filters, projections, aggregates, GROUP BY, ORDER BY + LIMIT;
joins of every type with a second table, subqueries in FROM and in expressions (correlated or not),
CTEs, set operations, VALUES and window functions),
runs them through `floe query --format json` and through DuckDB over the table's own Parquet data
files, and compares the answers: in order when the query has ORDER BY (always on a unique key, so
the order is total), as multisets otherwise; floats with a relative tolerance.

Usage: differential.py FLOE --workdir DIR [--seed N] [--queries N]
"""
import argparse
import datetime
import glob
import json
import math
import os
import random
import shutil
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

WORDS = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "Apple", "kiwi", None]


def make_data(rng, rows, offset):
    base = datetime.date(2024, 1, 1)
    ids = list(range(offset, offset + rows))
    k = [rng.randint(0, 9) for _ in ids]
    s = [rng.choice(WORDS) for _ in ids]
    x = [None if rng.random() < 0.1 else round(rng.uniform(-100, 100), 3) for _ in ids]
    d = [base + datetime.timedelta(days=rng.randint(0, 40)) for _ in ids]
    flag = [None if rng.random() < 0.05 else rng.random() < 0.5 for _ in ids]
    n = [None if rng.random() < 0.1 else rng.randint(-1000, 1000) for _ in ids]
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "k": pa.array(k, pa.int32()),
        "s": pa.array(s, pa.string()),
        "x": pa.array(x, pa.float64()),
        "d": pa.array(d, pa.date32()),
        "flag": pa.array(flag, pa.bool_()),
        "n": pa.array(n, pa.int64()),
    })


NUM_COLS = ["id", "k", "x", "n"]
INT_COLS = ["id", "k", "n"]


def predicate(rng, depth=0):
    kind = rng.randrange(12 if depth < 2 else 9)
    if kind == 0:
        c = rng.choice(NUM_COLS)
        return f"{c} {rng.choice(['=', '<>', '<', '<=', '>', '>='])} {rng.randint(-50, 60)}"
    if kind == 1:
        return f"s {rng.choice(['=', '<>', '<', '>='])} '{rng.choice(WORDS[:-1])}'"
    if kind == 2:
        day = datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 40))
        return f"d {rng.choice(['=', '<', '>=', '<>'])} DATE '{day.isoformat()}'"
    if kind == 3:
        vals = ", ".join(str(rng.randint(0, 12)) for _ in range(rng.randint(1, 4)))
        return f"k {rng.choice(['IN', 'NOT IN'])} ({vals})"
    if kind == 4:
        lo = rng.randint(-100, 2000)
        return f"{rng.choice(['id', 'x', 'n'])} BETWEEN {lo} AND {lo + rng.randint(0, 800)}"
    if kind == 5:
        return f"{rng.choice(['s', 'x', 'flag', 'n'])} IS {rng.choice(['', 'NOT '])}NULL"
    if kind == 6:
        pat = rng.choice(["a%", "%e", "%an%", "_i%", "A%", "che%", "%"])
        return f"s {rng.choice(['LIKE', 'NOT LIKE'])} '{pat}'"
    if kind == 7:
        if rng.random() < 0.5:
            return f"starts_with(s, '{rng.choice(['a', 'b', 'gr', 'x'])}')"
        pat = rng.choice(["an", "^[a-c]", "e$", "^(apple|fig)$", "p{2}", "[A-Z]"])
        op = rng.choice(["~", "!~", "~*"])
        opt = rng.choice(["", ", 'i'"])
        similar = rng.choice(["a.*", "[a-f]+", "fig|date"])
        return rng.choice([f"s {op} '{pat}'", f"regexp_matches(s, '{pat}'{opt})",
                           f"s SIMILAR TO '{similar}'"])
    if kind == 8:
        return f"{rng.choice(INT_COLS)} % {rng.randint(2, 7)} = {rng.randint(0, 1)}"
    if kind == 9:
        return f"({predicate(rng, depth + 1)} AND {predicate(rng, depth + 1)})"
    if kind == 10:
        return f"({predicate(rng, depth + 1)} OR {predicate(rng, depth + 1)})"
    return f"NOT ({predicate(rng, depth + 1)})"


def scalar(rng):
    kinds = [
        lambda: f"round(x, {rng.randint(-1, 2)})",
        lambda: f"{rng.choice(['floor', 'ceil', 'round', 'sign'])}({rng.choice(['x', 'n'])})",
        lambda: f"{rng.choice(['greatest', 'least'])}(k, n, {rng.randint(-5, 5)})",
        lambda: f"nullif(k, {rng.randint(0, 9)})",
        lambda: f"sqrt(abs(x)) + power(k, 2)",
        lambda: f"if(k < {rng.randint(1, 9)}, s, 'big')",
        lambda: f"concat(s, '-', k)",
        lambda: "concat_ws('/', s, lower(s))",
        lambda: f"{rng.choice(['trim', 'ltrim', 'rtrim'])}(s, '{rng.choice('aeipr')}')",
        lambda: f"replace(s, '{rng.choice('aeipr')}', 'xy')",
        lambda: f"split_part(s, '{rng.choice('aeipr')}', {rng.choice([1, 2, -1])})",
        lambda: f"{rng.choice(['lpad', 'rpad'])}(s, {rng.randint(0, 8)}, '.')",
        lambda: f"{rng.choice(['left', 'right'])}(s, {rng.randint(-2, 4)})",
        lambda: f"strpos(s, '{rng.choice('aeipr')}')",
        lambda: f"reverse(s)",
        lambda: (f"{rng.choice(['date_diff', 'date_sub'])}('{rng.choice(DATE_UNITS)}', d, "
                 f"date '2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}')"),
        lambda: f"date_part('{rng.choice(DATE_PARTS)}', d)",
        lambda: f"date_add(d, k - 4)",
        lambda: f"strftime(d, '{rng.choice(['%Y/%m/%d', '%d %b %Y (%a)', '%j %B %-d', '%c'])}')",
        lambda: "strptime(strftime(d, '%d.%m.%y'), '%d.%m.%y')",
        lambda: f"{rng.choice(['last_day', 'dayname', 'monthname', 'epoch', 'epoch_ms'])}(d)",
        lambda: "make_date(2024, k + 1, k + 10)",
        lambda: f"regexp_replace(s, '[aeiou]', '_'{rng.choice(['', GLOBAL])})",
        lambda: f"regexp_extract(s, '([a-z])([a-z]+)', {rng.randint(0, 2)})",
        lambda: "regexp_replace(s, '(.)(.)', '\\2\\1')",
        lambda: f"TRY_CAST({rng.choice(['s', 'n * 3000000', 'x * 30000000'])} AS INTEGER)",
        lambda: "try_cast(concat('2024-0', k, '-1', k) AS DATE)",
    ]
    kind = rng.randrange(12 + len(kinds))
    if kind >= 12:
        return kinds[kind - 12]()
    return [
        lambda: rng.choice(["id", "k", "s", "x", "d", "flag", "n"]),
        lambda: f"{rng.choice(NUM_COLS)} {rng.choice(['+', '-', '*'])} {rng.randint(1, 9)}",
        lambda: f"x * 2.5",
        lambda: f"{rng.choice(['lower', 'upper', 'length'])}(s)",
        lambda: f"substring(s, {rng.randint(1, 3)}, {rng.randint(0, 4)})",
        lambda: "coalesce(x, -1.0)",
        lambda: f"CASE WHEN k < {rng.randint(1, 9)} THEN 'lo' WHEN s IS NULL THEN 'null' ELSE s END",
        lambda: "CAST(k AS VARCHAR)",
        lambda: f"{rng.choice(['year', 'month', 'day'])}(d)",
        lambda: f"date_trunc('{rng.choice(['month', 'week', 'year'])}', d)",
        lambda: "id % 7",
        lambda: "abs(n)",
    ][kind]()


GLOBAL = ", 'g'"
DATE_UNITS = ["year", "quarter", "month", "week", "day", "hour", "decade"]
DATE_PARTS = ["dow", "isodow", "doy", "week", "yearweek", "quarter", "dayofmonth", "century"]
AGGS = ["count(*)", "count(x)", "count(s)", "count(DISTINCT k)", "count(DISTINCT s)", "sum(id)",
        "sum(n)", "sum(x)", "avg(x)", "avg(n)", "min(s)", "max(s)", "min(d)", "max(x)", "min(n)",
        "count_if(flag)", "count_if(x > 0)", "bool_and(flag)", "bool_or(x > 50)", "stddev(x)",
        "stddev_pop(n)", "var_samp(n)", "var_pop(x)", "median(x)", "median(n)", "median(d)",
        "median(s)", "quantile_cont(x, 0.25)", "quantile_disc(n, 0.9)", "quantile_disc(s, 0.3)",
        "percentile_cont(0.75) WITHIN GROUP (ORDER BY n)", "string_agg(s, '|' ORDER BY s DESC, id)",
        "arg_max(s, id)", "min_by(x, id)", "arg_min(id, n * 1000 + id)", "sum(x) FILTER (WHERE flag)",
        "count(*) FILTER (WHERE k > 4)", "avg(n) FILTER (WHERE s < 'd')",
        "approx_count_distinct(k)"]
KEYS = ["k", "s", "d", "flag", "k % 3", "month(d)", "lower(s)"]


def query(rng):
    where = f" WHERE {predicate(rng)}" if rng.random() < 0.75 else ""
    shape = rng.randrange(4)
    if shape == 0:  # projection (+ filter)
        cols = [scalar(rng) for _ in range(rng.randint(1, 4))]
        sel = ", ".join(f"{c} AS c{i}" for i, c in enumerate(cols))
        return f"SELECT id, {sel} FROM db.t{where}", False
    if shape == 1:  # projection, ORDER BY a unique key + LIMIT (top-N)
        cols = [scalar(rng) for _ in range(rng.randint(1, 3))]
        sel = ", ".join(f"{c} AS c{i}" for i, c in enumerate(cols))
        lead = rng.choice(["x", "s", "d", "k", "n"])
        order = f"{lead} {rng.choice(['ASC', 'DESC'])} NULLS LAST, id {rng.choice(['ASC', 'DESC'])}"
        return (f"SELECT id, {sel} FROM db.t{where} ORDER BY {order} "
                f"LIMIT {rng.randint(1, 40)}"), True
    if shape == 2:  # global aggregates
        aggs = rng.sample(AGGS, rng.randint(1, 4))
        return f"SELECT {', '.join(aggs)} FROM db.t{where}", False
    keys = rng.sample(KEYS, rng.randint(1, 2))
    aggs = rng.sample(AGGS, rng.randint(1, 3))
    cols = [f"{k} AS g{i}" for i, k in enumerate(keys)] + [f"{a} AS a{i}" for i, a in enumerate(aggs)]
    group = ", ".join(keys)
    if rng.random() < 0.25:  # ROLLUP, CUBE, GROUPING SETS, with GROUPING() to tell the sets apart
        sets = [f"({k})" for k in keys] + ["()"]
        group = rng.choice([f"ROLLUP ({group})", f"CUBE ({group})",
                            f"GROUPING SETS ({', '.join(sets)})"])
        cols.append(f"GROUPING({', '.join(keys)}) AS gid")
    sql = f"SELECT {', '.join(cols)} FROM db.t{where} GROUP BY {group}"
    if rng.random() < 0.3:
        sql += f" HAVING count(*) > {rng.randint(1, 30)}"
    if rng.random() < 0.5:
        order = ", ".join(f"{i + 1} {rng.choice(['ASC', 'DESC'])} NULLS LAST" for i in range(len(keys)))
        if cols[-1].endswith(" AS gid"):  # rows of two sets may share their keys
            order += f", {len(cols)}"
        return sql + f" ORDER BY {order} LIMIT {rng.randint(1, 20)}", True
    return sql, False


def make_dim(rng):
    """db.u: a dimension of k (0..11, some twice, one NULL), unique (k, name)."""
    rows = []
    for k in list(range(12)) + [3, 5, 5, None]:
        name = f"{rng.choice(WORDS[:-1])}{len(rows)}"
        w = None if rng.random() < 0.15 else round(rng.uniform(0, 10), 2)
        ud = datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(0, 40))
        rows.append((k, name, w, ud))
    return pa.table({
        "k": pa.array([r[0] for r in rows], pa.int32()),
        "name": pa.array([r[1] for r in rows], pa.string()),
        "w": pa.array([r[2] for r in rows], pa.float64()),
        "ud": pa.array([r[3] for r in rows], pa.date32()),
    })


# FROM clauses over db.t (t) and db.u (u): every join type, keys of several types, residual ON
# conditions, comma joins with WHERE, USING, subqueries, a CTE and three-way joins.
JOIN_FROMS = [
    "db.t t JOIN db.u u ON t.k = u.k",
    "db.t t INNER JOIN db.u u ON u.k = t.k AND t.n > 0",
    "db.t t LEFT JOIN db.u u ON t.k = u.k",
    "db.t t LEFT JOIN db.u u ON t.k = u.k AND u.w > 3",
    "db.t t LEFT JOIN db.u u ON t.k = u.k AND t.n > 100",
    "db.u u RIGHT JOIN db.t t ON t.k = u.k",
    "db.t t RIGHT JOIN db.u u ON t.k = u.k AND t.id < 500",
    "db.t t FULL JOIN db.u u ON t.k = u.k",
    "db.t t FULL OUTER JOIN db.u u ON t.k = u.k AND t.n > u.w * 100",
    "db.t t JOIN db.u u USING (k)",
    "db.t t LEFT JOIN db.u u USING (k)",
    "db.t t JOIN db.u u ON t.d = u.ud",
    "db.t t JOIN db.u u ON lower(t.s) = substr(u.name, 1, length(u.name) - 1)",
    "db.t t JOIN db.u u ON t.k < u.k AND t.id < 60",
    "db.t t, db.u u",
    "db.u u, db.t t",
    "db.t t JOIN db.u u ON t.k = u.k JOIN db.t t2 ON t2.id = t.id + 1",
    "db.t t LEFT JOIN db.u u ON t.k = u.k LEFT JOIN db.u u2 ON u.w = u2.w",
    "db.u u JOIN db.t t ON t.k = u.k JOIN db.u u2 ON u2.k = t.k + 1",
    "db.t t JOIN (SELECT k, count(*) AS c, max(w) AS w, min(name) AS name, min(ud) AS ud "
    "FROM db.u GROUP BY k) u "
    "ON t.k = u.k",
    "(SELECT id, k, n, x, s, d FROM db.t WHERE id % 7 = 0) t LEFT JOIN db.u u ON t.k = u.k",
    "db.t t CROSS JOIN db.u u",
]
# Conditions for WHERE, some of one relation (pushed into its scan where that is right), some of
# both, some on the side an outer join fills with NULLs (never pushed below it).
JOIN_PREDICATES = [
    "t.n > 200", "t.k IN (1, 3, 5)", "t.s = 'apple'", "t.x < 0", "t.id BETWEEN 100 AND 2000",
    "u.w < 5", "u.w IS NULL", "u.name LIKE '%a%'", "u.k >= 4", "coalesce(u.w, -1) < 2",
    "t.x > u.w", "t.id % 5 = u.k % 5", "u.name IS NULL OR t.n < 0", "t.d < u.ud",
]


def join_query(rng):
    frm = rng.choice(JOIN_FROMS)
    conds = []
    if frm in ("db.t t, db.u u", "db.u u, db.t t"):
        conds.append(rng.choice(["t.k = u.k", "u.k = t.k", "t.k = u.k AND t.d <= u.ud"]))
    if "CROSS" in frm or "t.k < u.k" in frm:
        conds.append("t.id < 80")
    if rng.random() < 0.6:
        conds += rng.sample(JOIN_PREDICATES, rng.randint(1, 2))
    where = f" WHERE {' AND '.join(f'({c})' for c in conds)}" if conds else ""
    shape = rng.randrange(4)
    if shape == 0:
        aggs = ["count(*)", "count(u.w)", "sum(t.n)", "min(u.name)", "max(t.x)", "count(t.id)",
                "sum(u.k)", "avg(u.w)"]
        return f"SELECT {', '.join(rng.sample(aggs, rng.randint(1, 4)))} FROM {frm}{where}", False
    if shape == 1:
        key = rng.choice(["u.name", "t.k", "u.k", "t.s"] +
                         ([] if frm.startswith("(SELECT") else ["t.flag"]))
        if "t2" in frm and rng.random() < 0.5:
            key = "t2.k"
        return (f"SELECT {key} AS g, count(*) AS c, sum(t.n) AS sn, max(u.w) AS mw FROM {frm}"
                f"{where} GROUP BY {key}"), False
    if shape == 2:
        return f"SELECT t.id, t.k, u.name, u.w FROM {frm}{where} AND t.id < 400" \
            if where else f"SELECT t.id, t.k, u.name, u.w FROM {frm} WHERE t.id < 400", False
    return (f"SELECT t.id, u.name, u.w, t.s FROM {frm}{where} "
            f"ORDER BY t.id NULLS FIRST, u.name NULLS FIRST LIMIT {rng.randint(1, 30)}"), True


def cte_query(rng):
    n = rng.randint(0, 9)
    return rng.choice([
        (f"WITH g AS (SELECT k, count(*) AS c, sum(n) AS sn FROM db.t GROUP BY k) "
         f"SELECT g.k, g.c, h.sn FROM g JOIN g h ON g.k = h.k - 1 WHERE g.k <> {n}", False),
        (f"WITH big AS (SELECT id, k, x FROM db.t WHERE n > {n * 50}), names AS "
         f"(SELECT k, min(name) AS name FROM db.u GROUP BY k) "
         f"SELECT names.name, count(*), round(sum(big.x), 3) FROM big JOIN names USING (k) "
         f"GROUP BY names.name", False),
        (f"SELECT s.k, s.c FROM (SELECT k, count(*) AS c FROM db.t WHERE k > {n} GROUP BY k) s "
         f"ORDER BY s.k LIMIT 5", True),
        (f"WITH x (a, b) AS (SELECT k, max(id) FROM db.t GROUP BY k) SELECT * FROM x "
         f"WHERE a >= {n}", False),
    ])


def subquery_query(rng):
    """IN, NOT IN, EXISTS and NOT EXISTS (correlated or not) and scalar subqueries."""
    w = rng.randint(0, 9)
    k = rng.randint(0, 11)
    return rng.choice([
        (f"SELECT count(*), sum(n) FROM db.t WHERE k IN (SELECT k FROM db.u WHERE w > {w})",
         False),
        (f"SELECT count(*) FROM db.t WHERE k NOT IN (SELECT k FROM db.u WHERE w < {w})", False),
        (f"SELECT count(*) FROM db.t WHERE k NOT IN (SELECT k FROM db.u WHERE k IS NOT NULL "
         f"AND w < {w})", False),
        (f"SELECT s, count(*) FROM db.t t WHERE EXISTS (SELECT 1 FROM db.u u WHERE u.k = t.k "
         f"AND u.w > t.x / 20) GROUP BY s", False),
        (f"SELECT count(*) FROM db.t t WHERE NOT EXISTS (SELECT 1 FROM db.u u WHERE u.k = t.k "
         f"AND u.w > {w})", False),
        (f"SELECT count(*) FROM db.t WHERE x > (SELECT avg(x) FROM db.t WHERE k = {k % 10})",
         False),
        (f"SELECT k, count(*) FROM db.t t WHERE x > (SELECT avg(x) FROM db.t t2 "
         f"WHERE t2.k = t.k) GROUP BY k", False),
        (f"SELECT id, (SELECT count(*) FROM db.u u WHERE u.k = t.k) AS c, "
         f"(SELECT max(w) FROM db.u u WHERE u.k = t.k) AS m FROM db.t t WHERE id < {50 + w}",
         False),
        (f"SELECT k, sum(n) FROM db.t GROUP BY k HAVING sum(n) > "
         f"(SELECT sum(n) / {w + 5} FROM db.t)", False),
        (f"SELECT count(*) FROM db.t t WHERE t.k IN (SELECT u.k FROM db.u u WHERE u.name "
         f"LIKE '%a%') AND NOT EXISTS (SELECT 1 FROM db.u u2 WHERE u2.k = t.k + {w % 3})",
         False),
        (f"SELECT id FROM db.t WHERE id = (SELECT max(id) FROM db.t WHERE k = {k % 10})", False),
        (f"SELECT t.id, u.name FROM db.t t JOIN db.u u ON t.k = u.k WHERE t.n > "
         f"(SELECT avg(n) FROM db.t t3 WHERE t3.k = u.k) AND t.id < 300", False),
        # Two subqueries (one correlated) among WHERE's conjuncts.
        (f"SELECT count(*) FROM db.t t WHERE t.k >= (SELECT min(k) FROM db.u) AND t.x > "
         f"(SELECT avg(x) FROM db.t t2 WHERE t2.k = t.k) AND t.n > {w * 20}", False),
        # EXISTS and IN inside expressions: mark joins, IN's unknown as NULL.
        (f"SELECT s, count(*) FROM db.t t WHERE t.n < {w * 30} OR EXISTS (SELECT 1 FROM db.u u "
         f"WHERE u.k = t.k AND u.w > {w}) GROUP BY s", False),
        (f"SELECT id, k IN (SELECT k FROM db.u WHERE w > {w}) AS a, k NOT IN (SELECT k FROM "
         f"db.u WHERE w < {w}) AS b FROM db.t WHERE id < {60 + w}", False),
        (f"SELECT id, t.n IN (SELECT u.w * 10 FROM db.u u WHERE u.k = t.k) AS a, CASE WHEN "
         f"EXISTS (SELECT 1 FROM db.u u WHERE u.k = t.k + 1) THEN 'y' ELSE 'n' END AS b "
         f"FROM db.t t WHERE id < {80 + w}", False),
        (f"SELECT k, count_if(n IN (SELECT w FROM db.u WHERE name LIKE '%a%')) FROM db.t "
         f"GROUP BY k", False),
    ])


def setop_query(rng):
    """UNION [ALL], INTERSECT [ALL], EXCEPT [ALL] and VALUES."""
    n = rng.randint(0, 9)
    return rng.choice([
        (f"SELECT k FROM db.t WHERE n > {n * 50} UNION SELECT k FROM db.u", False),
        (f"SELECT k, s FROM db.t WHERE id < 100 UNION ALL SELECT k, name FROM db.u", False),
        (f"SELECT k FROM db.t INTERSECT SELECT k FROM db.u WHERE w > {n}", False),
        (f"SELECT k FROM db.u EXCEPT SELECT k FROM db.t WHERE n > {n * 100}", False),
        (f"SELECT k, flag FROM db.t WHERE id < {200 + n} INTERSECT ALL "
         f"SELECT k, flag FROM db.t WHERE id >= 4300", False),
        (f"SELECT k, flag FROM db.t WHERE id < {200 + n} EXCEPT ALL "
         f"SELECT k, flag FROM db.t WHERE id >= 4300", False),
        (f"SELECT s, count(*) FROM db.t WHERE k > {n} GROUP BY s UNION ALL "
         f"SELECT name, k FROM db.u ORDER BY 1 NULLS FIRST, 2 LIMIT 10", True),
        (f"SELECT x * 2, y FROM (VALUES (1, 'a'), (2, 'b'), (NULL, 'c')) v(x, y) "
         f"WHERE x IS NULL OR x > {n % 2}", False),
        (f"SELECT t.id, v.label FROM db.t t JOIN (VALUES (1, 'one'), (2, 'two'), (3, NULL)) "
         f"v(k, label) ON t.k = v.k WHERE t.id < {100 + n}", False),
        (f"VALUES (1, 2.5::DOUBLE, 'x'), ({n}, 4, NULL)", False),
    ])


def window_query(rng):
    """Window functions: ranking, offsets and aggregates over frames, with and without GROUP BY."""
    n = rng.randint(0, 9)
    part = rng.choice(["", "PARTITION BY k ", "PARTITION BY s ", "PARTITION BY k % 3, flag "])
    order = rng.choice(["ORDER BY id", "ORDER BY x DESC NULLS FIRST, id", "ORDER BY d, id"])
    frame = rng.choice(["", " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                        " ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING",
                        " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                        " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"])
    fn = rng.choice(["row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()",
                     f"ntile({n + 1})", "lag(n)", f"lead(x, {n % 3 + 1}, 0)", "lag(s, 2, 'none')",
                     "first_value(n)", "last_value(s)", "nth_value(x, 2)", "sum(n)", "count(*)",
                     "count(x)", "avg(x)", "min(s)", "max(d)"])
    framed = fn.split("(")[0] in ("first_value", "last_value", "nth_value", "sum", "count", "avg",
                                  "min", "max")
    over = f"OVER ({part}{order}{frame if framed else ''})"
    return rng.choice([
        (f"SELECT id, {fn} {over} AS w FROM db.t WHERE id % {n + 2} = 0", False),
        (f"SELECT id, k, {fn} {over} AS w FROM db.t WHERE n > {n * 40} "
         f"ORDER BY w NULLS FIRST, id LIMIT 20", True),
        (f"SELECT k, sum(n) AS sn, rank() OVER (ORDER BY sum(n) DESC) AS r, "
         f"sum(count(*)) OVER (ORDER BY k) AS running FROM db.t GROUP BY k", False),
        (f"SELECT id, sum(x) OVER (PARTITION BY s) AS total, "
         f"x / sum(x) OVER (PARTITION BY s) AS share FROM db.t WHERE id < {200 + n}", False),
        # In a derived table, read by an outer query that filters on it.
        (f"SELECT * FROM (SELECT id, k, {fn} {over} AS w FROM db.t WHERE id % {n + 2} = 1) q "
         f"WHERE w IS NOT NULL AND k <> {n}", False),
        (f"SELECT k, count(*), max(w) FROM (SELECT k, {fn} {over} AS w FROM db.t) q GROUP BY k",
         False),
        # RANGE frames with offsets over one numeric key (NULL keys: their peers).
        (f"SELECT id, {rng.choice(['sum(id)', 'count(*)', 'min(n)', 'max(x)', 'avg(n)'])} OVER "
         f"({part}ORDER BY {rng.choice(['n', 'n DESC', 'x NULLS FIRST', 'x DESC', 'k'])} RANGE "
         f"BETWEEN {rng.choice(['UNBOUNDED PRECEDING', f'{n * 7} PRECEDING', 'CURRENT ROW'])} "
         f"AND {rng.choice([f'{n * 3 + 1} FOLLOWING', 'CURRENT ROW', 'UNBOUNDED FOLLOWING'])}) "
         f"AS w FROM db.t WHERE id % {n + 3} = 0", False),
    ])


def norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, float):
        return v
    if isinstance(v, int):
        return v
    return str(v)


def as_time(v):
    if isinstance(v, str) and len(v) >= 19 and v[4] == "-" and v[10] == "T":
        try:
            return datetime.datetime.fromisoformat(v.rstrip("Z"))
        except ValueError:
            return None
    return None


def close(a, b):
    ta, tb = as_time(a), as_time(b)
    if ta is not None and tb is not None:
        return ta == tb
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        if isinstance(a, str) or isinstance(b, str):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    return a == b


def rows_equal(got, want, ordered):
    if len(got) != len(want):
        return False
    if not ordered:
        key = lambda r: json.dumps([round(v, 6) if isinstance(v, float) else v for v in r],
                                   default=str)
        got, want = sorted(got, key=key), sorted(want, key=key)
    return all(len(g) == len(w) and all(close(x, y) for x, y in zip(g, w))
               for g, w in zip(got, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--seed", type=int, default=20241129)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    wh = os.path.join(args.workdir, "wh")
    env = dict(os.environ, FLOE_WAREHOUSE=wh)
    inputs = []
    offset = 0
    for i in range(3):
        t = make_data(rng, 1500, offset)
        offset += 1500
        path = os.path.join(args.workdir, f"in{i}.parquet")
        pq.write_table(t, path)
        inputs.append(path)

    def floe(*a, check=True):
        return subprocess.run([args.floe, "--quiet", *a], env=env, capture_output=True, text=True,
                              check=check)

    floe("table", "create", "db.t", "--like", inputs[0], "--partition-by", "bucket(4, id)")
    for p in inputs:
        floe("table", "append", "db.t", p)
    dim = os.path.join(args.workdir, "u.parquet")
    pq.write_table(make_dim(rng), dim)
    floe("table", "create", "db.u", "--like", dim)
    floe("table", "append", "db.u", dim)
    con = duckdb.connect()
    con.execute("CREATE SCHEMA db")
    for name in ("t", "u"):
        data_files = sorted(glob.glob(os.path.join(wh, "db.db", name, "data", "**", "*.parquet"),
                                      recursive=True))
        assert data_files, f"the floe table {name} has no data files"
        con.execute(f"CREATE VIEW db.{name} AS SELECT * FROM read_parquet({data_files!r})")

    def any_query():
        r = rng.random()
        return (join_query(rng) if r < 0.25 else cte_query(rng) if r < 0.3 else
                subquery_query(rng) if r < 0.38 else setop_query(rng) if r < 0.43 else
                window_query(rng) if r < 0.5 else query(rng))

    queries = [any_query() for _ in range(args.queries)]
    script = os.path.join(args.workdir, "queries.sql")
    with open(script, "w") as f:
        for q, _ in queries:
            f.write(q + ";\n")
    out = floe("query", "--format", "json", "-f", script, check=False)
    lines = out.stdout.splitlines()
    if out.returncode != 0 or len(lines) != len(queries):
        # Localise the failure: run one by one.
        lines = []
        for q, _ in queries:
            r = floe("query", "--format", "json", "-e", q, check=False)
            lines.append(r.stdout.strip() if r.returncode == 0 else "ERROR " + r.stderr.strip())

    failures = 0
    for (q, ordered), line in zip(queries, lines):
        want = [[norm(v) for v in row] for row in con.execute(q).fetchall()]
        if line.startswith("ERROR"):
            failures += 1
            print(f"FAIL (floe error) {q}\n  {line}", file=sys.stderr)
            continue
        got = json.loads(line)["rows"]
        if not rows_equal(got, want, ordered):
            failures += 1
            print(f"FAIL {q}\n  floe:   {got[:5]} ({len(got)} rows)\n  duckdb: {want[:5]} "
                  f"({len(want)} rows)", file=sys.stderr)
    print(f"{len(queries) - failures}/{len(queries)} queries agree with DuckDB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
