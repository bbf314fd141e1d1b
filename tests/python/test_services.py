"""The Python package on the services ctest starts around it: a warehouse on the S3 server (its
SQLite catalog in a local file) and tables in Iceberg's REST catalog, each read back by pyiceberg.
Run by ctest as python.services (tests/CMakeLists.txt) with FLOE_S3_ENV and FLOE_REST_ENV."""

import os
import random
import sys

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog

import floe

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from floe_services import create_bucket, rest_uri, s3_env  # noqa: E402


def rows(n):
    return pa.table({"id": pa.array(range(n), pa.int64()),
                     "cat": pa.array([f"c{i % 4}" for i in range(n)], pa.string())})


def test_s3_warehouse(tmp_path, monkeypatch):
    s3 = s3_env()
    endpoint = s3["FLOE_S3_ENDPOINT"]
    bucket = f"py{random.getrandbits(32):08x}"
    create_bucket(endpoint, s3, bucket)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3["FLOE_S3_ACCESS_KEY"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3["FLOE_S3_SECRET_KEY"])
    monkeypatch.setenv("AWS_REGION", s3["FLOE_S3_REGION"])
    catalog = tmp_path / "catalog.db"
    wh = floe.Warehouse(f"s3://{bucket}/wh", catalog=f"sqlite:{catalog}", s3_endpoint=endpoint,
                        s3_path_style=True)
    t = wh.create_table("db.t", rows(0).schema, partition_by="cat")
    assert t.append(rows(400))["data_files"] == 4
    assert t.describe()["location"] == f"s3://{bucket}/wh/db.db/t"
    r = t.scan(filter="cat = 'c1'", columns=["id"])
    got = sorted(pa.table(r).column("id").to_pylist())
    assert got == [i for i in range(400) if i % 4 == 1]
    s = r.stats
    assert s["data_files_opened"] == 1 and s["data_files_skipped"]["partition"] == 3
    assert s["requests"]["GET"] >= 1 and s["bytes_fetched"] > 0
    # pyiceberg reads the table through the same catalog file and bucket.
    cat = SqlCatalog("floe", uri=f"sqlite:///{catalog}", **{
        "s3.endpoint": endpoint, "s3.access-key-id": s3["FLOE_S3_ACCESS_KEY"],
        "s3.secret-access-key": s3["FLOE_S3_SECRET_KEY"], "s3.region": s3["FLOE_S3_REGION"],
        "s3.force-virtual-addressing": False})
    theirs = cat.load_table("db.t").scan().to_arrow()
    assert sorted(theirs.column("id").to_pylist()) == list(range(400))


def test_rest_catalog(tmp_path):
    uri = rest_uri()
    ns = f"py{random.getrandbits(40):010x}"
    wh = floe.Warehouse(str(tmp_path / "wh"), catalog=f"rest:{uri}")
    t = wh.create_table(f"{ns}.t", rows(0).schema, sort_by="id DESC")
    t.append(rows(50))
    t.append(rows(10))
    assert f"{ns}.t" in wh.tables(ns)
    assert [s["operation"] for s in t.snapshots()] == ["append", "append"]
    n = wh.sql(f"SELECT count(*) AS n FROM {ns}.t WHERE id < 10").to_pylist()
    assert n == [{"n": 20}]
    theirs = RestCatalog("rest", uri=uri).load_table(f"{ns}.t").scan().to_arrow()
    assert theirs.num_rows == 60
    wh.drop_table(f"{ns}.t", purge=True)
    assert wh.tables(ns) == []
