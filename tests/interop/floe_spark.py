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
            rest_uri=None, s3=None, catalog_db=None, twins=None):
    """Spark local[cores] on `warehouse` (its catalog.db, or `catalog_db`), scratch files under
    `work`; with `rest_uri`, the `floe` catalog is that Iceberg REST catalog instead. With `s3`
    ({"endpoint", "access_key", "secret_key", "region"}) the catalog's files go through Iceberg's
    S3FileIO to that endpoint (path-style), with iceberg-aws-bundle on the classpath. `twins`
    ({name: {property: value}}) adds catalogs on the same tables with other properties (e.g.
    S3FileIO's analytics accelerator), so one session compares them."""
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
                       "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"))
    props = {}
    if rest_uri:
        props.update({"type": "rest", "uri": rest_uri})
    else:
        props.update({"type": "jdbc", "uri": f"jdbc:sqlite:{catalog_db or warehouse + '/catalog.db'}",
                      "warehouse": warehouse if "://" in warehouse else f"file:{warehouse}",
                      "jdbc.schema-version": "V1", "clients": "1"})
    if s3:
        props.update({"io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
                      "s3.endpoint": s3["endpoint"], "s3.path-style-access": "true",
                      "s3.access-key-id": s3["access_key"], "s3.secret-access-key": s3["secret_key"],
                      "client.region": s3["region"]})
    for catalog, extra in [("floe", {})] + sorted((twins or {}).items()):
        builder = builder.config(f"spark.sql.catalog.{catalog}",
                                 "org.apache.iceberg.spark.SparkCatalog")
        for key, value in {**props, **extra}.items():
            builder = builder.config(f"spark.sql.catalog.{catalog}.{key}", value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def iceberg_catalog(spark):
    """The Iceberg Java catalog behind Spark's `floe` catalog (for the Java API through py4j)."""
    return spark._jsparkSession.sessionState().catalogManager().catalog("floe").icebergCatalog()
