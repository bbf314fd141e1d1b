"""One other engine -- Spark + Iceberg, DuckDB with its iceberg extension, or pyiceberg -- as an arm
of `floe bench --engines`: a long-lived process that floe feeds questions (tools/floe/
peer_engines.cc starts it and embeds this file). Every request it makes to the object store goes
to the endpoint floe gives it (floe's counting proxy), so floe counts what it asks for.

Protocol, one JSON object per line. stdin: first the configuration
  {"engine": "spark"|"spark-aal"|"duckdb"|"pyiceberg", "catalog": "sqlite:PATH" | "rest:http://...",
   "warehouse": "s3://...", "s3": {"endpoint", "access_key", "secret_key", "region"},
   "jars": DIR, "scratch": DIR, "threads": N}
then requests: {"op": "prepare", "tables": {"ns.t": metadata location}} (untimed set-up, before
floe opens its counting window) and {"op": "run", "sql": ..., "scans": [{"table", "columns",
"filter"}]}; for an engine that writes designs (Spark), {"op": "build", "table", "writes": [local
Parquet files], "partition_by", "sort_by", "properties", "maintenance": [...]} (reply {"notes"})
and {"op": "statement", "sql"} (a MERGE or CALL; reply {"ms", "row": its first row}). stdout: lines starting "@floe " -- {"ready": true}, {"ok": true} after a prepare,
{"ms": wall ms of the engine's own work, "rows": n, "first": first cell as text} after a run, or
{"error": one line}. Anything else on stdout (an engine's chatter) is ignored by floe.
"""
import datetime
import decimal
import glob
import json
import os
import re
import sys
import time


def reply(obj):
    sys.stdout.write("@floe " + json.dumps(obj) + "\n")
    sys.stdout.flush()


def first_cell(value):
    """A cell as floe prints it: integers plain, floats shortest, timestamps ISO with a space."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, decimal.Decimal)):
        return str(value)
    return str(value)


def catalog_parts(spec):
    """("sqlite", path) or ("rest", uri, warehouse) from floe's --catalog spelling."""
    if spec.startswith("sqlite:"):
        return ("sqlite", spec[len("sqlite:"):])
    if spec.startswith("rest:"):
        uri, _, query = spec[len("rest:"):].partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        return ("rest", uri, params.get("warehouse", ""))
    raise SystemExit(f"catalog '{spec}' is neither sqlite:PATH nor rest:URL")


class Spark:
    """Spark local[threads] + Iceberg's SparkCatalog named `floe` (JdbcCatalog on the SQLite file,
    or the REST catalog), S3FileIO to the proxy, the catalog cache off so every question plans
    from the table's current metadata as a new Spark job does. `accelerated`: S3FileIO reads
    through AWS's Analytics Accelerator Library (`s3.analytics-accelerator.enabled`, shipped in
    iceberg-aws-bundle)."""

    def __init__(self, cfg, accelerated=False):
        from pyspark.sql import SparkSession
        jars = cfg["jars"]

        def jar(pattern):
            found = sorted(glob.glob(os.path.join(jars, pattern)))
            if not found:
                raise SystemExit(f"no {pattern} in {jars}: run scripts/setup.sh")
            return found[-1]

        s3, c = cfg.get("s3"), "spark.sql.catalog.floe."
        b = (SparkSession.builder.master(f"local[{cfg['threads']}]").appName("floe-bench")
             .config("spark.driver.memory", "4g")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", str(cfg["threads"]))
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.warehouse.dir", os.path.join(cfg["scratch"], "spark-warehouse"))
             .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={cfg['scratch']}/derby")
             .config("spark.jars", ",".join([jar("iceberg-spark-runtime-4.1_2.13-*.jar"),
                                             jar("sqlite-jdbc-*.jar")]
                                            + ([jar("iceberg-aws-bundle-*.jar")] if s3 else [])))
             .config("spark.sql.extensions",
                     "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog")
             .config(c + "cache-enabled", "false"))
        if s3:
            b = (b.config(c + "io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
                 .config(c + "s3.endpoint", s3["endpoint"])
                 .config(c + "s3.path-style-access", "true")
                 .config(c + "s3.access-key-id", s3["access_key"])
                 .config(c + "s3.secret-access-key", s3["secret_key"])
                 .config(c + "client.region", s3["region"])
                 .config(c + "s3.analytics-accelerator.enabled",
                         "true" if accelerated else "false"))
        if accelerated:
            # The library keeps fetched blocks and object sizes in the JVM between queries; a
            # repeated question would then be answered from memory. Every engine here reads from
            # the store each time (DuckDB's file cache is off too), so they expire at once.
            for key in ("physicalio.cache.timeout", "physicalio.memory.cleanup.frequency",
                        "physicalio.metadatastore.ttl"):
                b = b.config(c + "s3.analytics-accelerator." + key, "1")
        kind = catalog_parts(cfg["catalog"])
        if kind[0] == "sqlite":
            b = (b.config(c + "type", "jdbc").config(c + "uri", f"jdbc:sqlite:{kind[1]}")
                 .config(c + "warehouse", cfg["warehouse"])
                 .config(c + "jdbc.schema-version", "V1").config(c + "clients", "1"))
        else:
            b = b.config(c + "type", "rest").config(c + "uri", kind[1])
            if kind[2]:
                b = b.config(c + "warehouse", kind[2])
            if os.environ.get("FLOE_REST_CREDENTIAL"):
                b = b.config(c + "credential", os.environ["FLOE_REST_CREDENTIAL"])
            if os.environ.get("FLOE_REST_TOKEN"):
                b = b.config(c + "token", os.environ["FLOE_REST_TOKEN"])
        self.spark = b.getOrCreate()
        self.spark.sparkContext.setLogLevel("ERROR")
        self.spark.sql("USE floe")
        self.views = 0  # temporary views over Parquet files made so far

    def prepare(self, tables):
        pass

    def file_view(self, path):
        """A temporary view over a Parquet file (SQL on files, parquet.`path`, does not resolve
        while the current catalog is an Iceberg one)."""
        self.views += 1
        name = f"floe_file_{self.views}"
        self.spark.read.parquet(path).createOrReplaceTempView(name)
        return name

    def spark_sql(self, sql):
        """floe's spelling of a statement as Spark's: CALL system.x -> CALL floe.system.x, and
        each parquet.`path` a temporary view over the file."""
        sql = re.sub(r"(?i)\bCALL\s+system\.", "CALL floe.system.", sql)
        return re.sub(r"(?i)\bparquet\.`([^`]+)`", lambda m: self.file_view(m.group(1)), sql)

    def run(self, sql, scans):
        t = time.perf_counter()
        rows = self.spark.sql(self.spark_sql(sql)).collect()
        ms = (time.perf_counter() - t) * 1000
        return ms, len(rows), first_cell(rows[0][0] if rows and len(rows[0]) else None)

    def row(self, sql):
        """A write statement (MERGE, CALL): its time and its first row, as text."""
        sql = self.spark_sql(sql)
        t = time.perf_counter()
        rows = self.spark.sql(sql).collect()
        ms = (time.perf_counter() - t) * 1000
        return ms, [first_cell(v) for v in rows[0]] if rows else []

    def build(self, req):
        """A design as the chapter built its tables in Spark SQL: CREATE TABLE ... PARTITIONED BY
        ... TBLPROPERTIES, ALTER TABLE ... WRITE ORDERED BY, one INSERT per write, then the
        design's maintenance as CALL rewrite_data_files. Returns notes for the report."""
        table, writes = req["table"], req["writes"]
        ns = table.rpartition(".")[0]
        self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS floe.{ns}")
        schema = self.spark.read.parquet(writes[0]).schema
        columns = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in schema.fields)
        parts = spark_partitioning(req.get("partition_by", ""))
        props = req.get("properties", {})
        ddl = f"CREATE TABLE floe.{table} ({columns}) USING iceberg"
        if parts:
            ddl += f" PARTITIONED BY ({parts})"
        if props:
            ddl += " TBLPROPERTIES (" + ", ".join(
                f"'{k}'='{str(v)}'" for k, v in sorted(props.items())) + ")"
        self.spark.sql(ddl)
        statements = [f"CREATE TABLE{' PARTITIONED BY (' + parts + ')' if parts else ''}"]
        if req.get("sort_by"):
            self.spark.sql(f"ALTER TABLE floe.{table} WRITE ORDERED BY {req['sort_by']}")
            statements.append(f"WRITE ORDERED BY {req['sort_by']}")
        for path in writes:
            self.spark.sql(f"INSERT INTO floe.{table} SELECT * FROM {self.file_view(path)}")
        statements.append(f"{len(writes)} INSERT{'s' if len(writes) != 1 else ''}")
        notes = ["built by Spark: " + "; ".join(statements)]
        for step in req.get("maintenance", []):
            options = {"rewrite-all": "true", "min-input-files": "1"}
            if step.get("target_file_size"):
                options["target-file-size-bytes"] = str(step["target_file_size"])
            args = [f"table => '{table}'", f"strategy => '{step['strategy']}'"]
            if step.get("sort_by"):
                args.append(f"sort_order => '{step['sort_by']}'")
            args.append("options => map(" + ", ".join(
                f"'{k}', '{v}'" for k, v in options.items()) + ")")
            row = self.spark.sql(f"CALL floe.system.rewrite_data_files({', '.join(args)})").collect()
            notes.append(f"CALL rewrite_data_files {step['strategy']}"
                         f"{' by ' + step['sort_by'] if step.get('sort_by') else ''}: "
                         f"{row[0][0]} files -> {row[0][1]}")
        return notes


def spark_partitioning(spec):
    """floe's partition spec ("day(ts), bucket(8, id), region") as Spark's PARTITIONED BY list."""
    return re.sub(r"\b(year|month|day|hour)\s*\(", lambda m: m.group(1) + "s(", spec.strip())


def load_duckdb_extensions(con, names):
    """LOAD each extension from the duckdb_extension_NAME package beside duckdb (as pip installs
    them), else by name (an extension installed in DuckDB's own directory)."""
    import duckdb
    site = os.path.dirname(os.path.dirname(duckdb.__file__))
    for ext in names:
        found = glob.glob(os.path.join(site, "duckdb_extension_" + ext, "extensions", "*",
                                       ext + ".duckdb_extension"))
        con.execute(f"LOAD '{found[0]}'" if found else f"LOAD {ext}")


class DuckDB:
    """DuckDB with its iceberg and httpfs extensions: each table a view over iceberg_scan of the
    metadata file floe names (refreshed before each question), remote-file caching off so each
    run reads from the store as the other engines do."""

    def __init__(self, cfg):
        import duckdb
        self.con = duckdb.connect()
        self.con.execute(f"SET threads = {int(cfg['threads'])}")
        self.con.execute("SET enable_external_file_cache = false")
        self.con.execute("SET enable_progress_bar = false")
        self.con.execute("SET TimeZone = 'UTC'")
        load_duckdb_extensions(self.con, ("avro", "httpfs", "iceberg"))
        s3 = cfg["s3"]
        endpoint = s3["endpoint"].split("://", 1)[-1]
        use_ssl = "true" if s3["endpoint"].startswith("https://") else "false"
        q = {k: str(v).replace("'", "''") for k, v in s3.items()}
        self.con.execute(
            f"CREATE SECRET floe_s3 (TYPE s3, KEY_ID '{q['access_key']}', "
            f"SECRET '{q['secret_key']}', REGION '{q['region']}', ENDPOINT '{endpoint}', "
            f"URL_STYLE 'path', USE_SSL {use_ssl})")
        self.views = {}

    def prepare(self, tables):
        for name, location in tables.items():
            if self.views.get(name) == location:
                continue
            ns, _, table = name.rpartition(".")
            self.con.execute(f'CREATE SCHEMA IF NOT EXISTS "{ns}"')
            loc = location.replace("'", "''")
            self.con.execute(f'CREATE OR REPLACE VIEW "{ns}"."{table}" AS '
                             f"SELECT * FROM iceberg_scan('{loc}')")
            self.views[name] = location

    def run(self, sql, scans):
        t = time.perf_counter()
        rows = self.con.execute(sql).fetchall()
        ms = (time.perf_counter() - t) * 1000
        return ms, len(rows), first_cell(rows[0][0] if rows and rows[0] else None)


def pyiceberg_filter(node):
    """A floe filter (peer_engines.cc's JSON of an iceberg::Expr) as pyiceberg's expression."""
    from pyiceberg import expressions as e
    if node is None:
        return e.AlwaysTrue()
    op = node["op"]
    if op in ("and", "or"):
        a, b = (pyiceberg_filter(c) for c in node["args"])
        return e.And(a, b) if op == "and" else e.Or(a, b)
    if op == "not":
        return e.Not(pyiceberg_filter(node["args"][0]))
    if op == "true":
        return e.AlwaysTrue()
    if op == "false":
        return e.AlwaysFalse()
    col, values = node["column"], node.get("values", [])
    simple = {"is_null": e.IsNull, "not_null": e.NotNull}
    if op in simple:
        return simple[op](col)
    if op in ("in", "not_in"):
        return (e.In if op == "in" else e.NotIn)(col, set(values))
    return {"eq": e.EqualTo, "not_eq": e.NotEqualTo, "lt": e.LessThan, "lt_eq": e.LessThanOrEqual,
            "gt": e.GreaterThan, "gt_eq": e.GreaterThanOrEqual, "starts_with": e.StartsWith,
            "not_starts_with": e.NotStartsWith}[op](col, values[0])


class PyIceberg:
    """pyiceberg's scan, as its users read a table: load_table, then scan(row_filter=the
    statement's pushable filter, selected_fields=the columns read).to_arrow() for every table the
    statement reads -- timed. The statement itself then runs untimed in DuckDB over those Arrow
    tables, so its answer can be checked against floe's."""

    def __init__(self, cfg):
        kind = catalog_parts(cfg["catalog"])
        s3 = cfg["s3"]
        props = {"s3.endpoint": s3["endpoint"], "s3.access-key-id": s3["access_key"],
                 "s3.secret-access-key": s3["secret_key"], "s3.region": s3["region"],
                 "s3.force-virtual-addressing": "false"}
        if kind[0] == "sqlite":
            from pyiceberg.catalog.sql import SqlCatalog
            self.catalog = SqlCatalog("floe", uri=f"sqlite:///{kind[1]}", **props)
        else:
            from pyiceberg.catalog.rest import RestCatalog
            if kind[2]:
                props["warehouse"] = kind[2]
            for env, key in (("FLOE_REST_CREDENTIAL", "credential"), ("FLOE_REST_TOKEN", "token")):
                if os.environ.get(env):
                    props[key] = os.environ[env]
            self.catalog = RestCatalog("floe", uri=kind[1], **props)
        import duckdb
        self.con = duckdb.connect()

    def prepare(self, tables):
        pass

    def run(self, sql, scans):
        t = time.perf_counter()
        read = []
        for scan in scans:
            table = self.catalog.load_table(scan["table"])
            columns = tuple(scan["columns"]) or (table.schema().fields[0].name,)
            read.append((scan["table"], table.scan(row_filter=pyiceberg_filter(scan.get("filter")),
                                                   selected_fields=columns).to_arrow()))
        ms = (time.perf_counter() - t) * 1000
        for i, (name, arrow) in enumerate(read):
            ns, _, table = name.rpartition(".")
            self.con.register(f"floe_scan_{i}", arrow)
            self.con.execute(f'CREATE SCHEMA IF NOT EXISTS "{ns}"')
            self.con.execute(f'CREATE OR REPLACE VIEW "{ns}"."{table}" AS SELECT * FROM floe_scan_{i}')
        self.con.execute("SET TimeZone = 'UTC'")
        rows = self.con.execute(sql).fetchall()
        return ms, len(rows), first_cell(rows[0][0] if rows and rows[0] else None)


ENGINES = {"spark": Spark, "spark-aal": lambda cfg: Spark(cfg, accelerated=True),
           "duckdb": DuckDB, "pyiceberg": PyIceberg}


def one_line(exc):
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:600]}" if text else type(exc).__name__


def main():
    cfg = json.loads(sys.stdin.readline())
    try:
        engine = ENGINES[cfg["engine"]](cfg)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 -- reported to floe, one line
        reply({"error": f"{cfg['engine']} did not start: {one_line(exc)}"})
        return
    reply({"ready": True})
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "prepare":
                engine.prepare(req.get("tables", {}))
                reply({"ok": True})
            elif req["op"] == "build":
                reply({"notes": engine.build(req)})
            elif req["op"] == "statement":
                ms, row = engine.row(req["sql"])
                reply({"ms": ms, "row": row})
            else:
                ms, rows, first = engine.run(req["sql"], req.get("scans", []))
                reply({"ms": ms, "rows": rows, "first": first})
        except Exception as exc:  # noqa: BLE001 -- the question failed on this engine
            reply({"error": one_line(exc)})


if __name__ == "__main__":
    main()
