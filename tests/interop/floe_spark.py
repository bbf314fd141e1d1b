"""A Spark 4.1 + Iceberg 1.11 session on a floe warehouse: Iceberg's JdbcCatalog on the
warehouse's catalog.db, catalog name `floe` (HadoopFileIO, so locations read "file:/abs/path"),
with the jars scripts/setup.sh fetched. Shared by the interop test and bench/mor."""
import glob
import os
import sys

try:
    from pyspark.sql import SparkSession
except ImportError as e:  # fail, never skip, when the peer is missing
    print(f"floe_spark: missing Python package ({e}); run scripts/setup.sh", file=sys.stderr)
    sys.exit(1)

DEFAULT_JARS = os.path.expanduser("~/.cache/floe/jars")


def jar(jars, pattern):
    found = sorted(glob.glob(os.path.join(jars, pattern)))
    if not found:
        print(f"floe_spark: no {pattern} in {jars}; run scripts/setup.sh", file=sys.stderr)
        sys.exit(1)
    return found[-1]


def session(warehouse, work, jars=DEFAULT_JARS, name="floe-spark", cores=2, memory="4g",
            rest_uri=None, s3=None, catalog_db=None):
    """Spark local[cores] on `warehouse` (its catalog.db, or `catalog_db`), scratch files under
    `work`; with `rest_uri`, the `floe` catalog is that Iceberg REST catalog instead. With `s3`
    ({"endpoint", "access_key", "secret_key", "region"}) the catalog's files go through Iceberg's
    S3FileIO to that endpoint (path-style), with iceberg-aws-bundle on the classpath."""
    jar_list = [jar(jars, "iceberg-spark-runtime-4.1_2.13-*.jar"), jar(jars, "sqlite-jdbc-*.jar")]
    if s3:
        jar_list.append(jar(jars, "iceberg-aws-bundle-*.jar"))
    builder = (SparkSession.builder.master(f"local[{cores}]").appName(name)
               .config("spark.driver.memory", memory)
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", str(cores))
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.warehouse.dir", os.path.join(work, "spark-warehouse"))
               .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work}/derby")
               .config("spark.jars", ",".join(jar_list))
               .config("spark.sql.extensions",
                       "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
               .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog"))
    if rest_uri:
        builder = (builder.config("spark.sql.catalog.floe.type", "rest")
                   .config("spark.sql.catalog.floe.uri", rest_uri))
    else:
        builder = (builder.config("spark.sql.catalog.floe.type", "jdbc")
                   .config("spark.sql.catalog.floe.uri",
                           f"jdbc:sqlite:{catalog_db or warehouse + '/catalog.db'}")
                   .config("spark.sql.catalog.floe.warehouse",
                           warehouse if "://" in warehouse else f"file:{warehouse}")
                   .config("spark.sql.catalog.floe.jdbc.schema-version", "V1")
                   .config("spark.sql.catalog.floe.clients", "1"))
    if s3:
        c = "spark.sql.catalog.floe."
        builder = (builder.config(c + "io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
                   .config(c + "s3.endpoint", s3["endpoint"])
                   .config(c + "s3.path-style-access", "true")
                   .config(c + "s3.access-key-id", s3["access_key"])
                   .config(c + "s3.secret-access-key", s3["secret_key"])
                   .config(c + "client.region", s3["region"]))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def iceberg_catalog(spark):
    """The Iceberg Java catalog behind Spark's `floe` catalog (for the Java API through py4j)."""
    return spark._jsparkSession.sessionState().catalogManager().catalog("floe").icebergCatalog()
