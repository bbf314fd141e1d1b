"""floe.ray and floe.spark on real engines, small data: a local Ray cluster of 2 workers writes a
Dataset into floe tables (partitioned and sorted; an OTree) in one commit and reads a table back
through Ray tasks; PySpark local[2] writes a DataFrame the same way. Answers are checked row for
row against the data given, and the OTree layout against a single process's plan of the same
rows. Run by ctest as python.engines (release builds: the engines' own processes do not run
under the sanitizers)."""

import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import floe


def rows(start, stop):
    ids = list(range(start, stop))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "day": pa.array([f"2024-01-0{1 + i % 5}" for i in ids], pa.string()),
        "x": pa.array([(i * 7919) % 1000 for i in ids], pa.int64()),
        "y": pa.array([(i * 104729) % 1000 for i in ids], pa.int64()),
    })


def cubes_of(t):
    """Rows per cube of an OTree table, summed over its files' key-value metadata."""
    out = {}
    for f in pq_files(t):
        kv = pq.read_metadata(f).metadata
        for entry in kv[b"floe.otree.cubes"].decode().split(","):
            name, count, _ = entry.split(":")
            out[name] = out.get(name, 0) + int(count)
    return out


def pq_files(t):
    location = t.describe()["location"].replace("file://", "")
    found = []
    for root, _, files in os.walk(os.path.join(location, "data")):
        found += [os.path.join(root, f) for f in files if f.endswith(".parquet")]
    return sorted(found)


def worker_env(monkeypatch):
    """What the engines' Python workers need to import this build's floe: PYTHONPATH and, under
    the sanitizers, their runtimes preloaded -- which the engines' own processes (Ray's raylet,
    Spark's JVM) are started without."""
    env = {k: os.environ[k] for k in ("PYTHONPATH", "LD_PRELOAD", "ASAN_OPTIONS") if k in os.environ}
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    return env


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    with pytest.MonkeyPatch.context() as mp:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": worker_env(mp)})
    yield ray
    ray.shutdown()


def test_ray_writes_in_tasks_and_commits_once(tmp_path, ray_cluster):
    import floe.ray

    wh = floe.Warehouse(str(tmp_path / "wh"))
    t = wh.create_table("db.events", rows(0, 0).schema, partition_by="day", sort_by="id")
    ds = ray_cluster.data.from_arrow(rows(0, 20000)).repartition(4)
    out = floe.ray.write(ds, t)
    assert out["rows"] == 20000
    snaps = t.snapshots()
    assert len(snaps) == 1 and snaps[0]["operation"] == "append"
    tasks = int(snaps[0]["summary"]["floe.write-tasks"])
    assert tasks >= 2
    # A file per partition per task, each sorted by id.
    files = pq_files(t)
    assert len(files) == out["data_files"] == 5 * tasks
    for f in files:
        ids = pq.read_table(f, columns=["id"]).column("id").to_pylist()
        assert ids == sorted(ids)
    assert sorted(t.scan(columns=["id"]).to_arrow().column("id").to_pylist()) == list(range(20000))

    # Read back through Ray tasks: planned here (partition pruning), files read by tasks.
    back = floe.ray.read(t, filter="day = '2024-01-03' AND id < 10000", columns=["id", "day"])
    got = back.to_arrow_refs()
    table = pa.concat_tables(ray_cluster.get(got))
    assert table.column_names == ["id", "day"]
    assert sorted(table.column("id").to_pylist()) == [i for i in range(10000) if i % 5 == 2]
    assert floe.ray.read(t).count() == 20000
    with pytest.raises(floe.FloeError, match="nope"):
        floe.ray.read(t, filter="nope = 1")


def test_ray_otree_layout_is_a_single_plans(tmp_path, ray_cluster):
    import floe.ray

    props = {"floe.layout": "otree(x, y)", "floe.otree.target-rows-per-file": "1000"}
    wh = floe.Warehouse(str(tmp_path / "wh"))
    by_ray = wh.create_table("db.ray", rows(0, 0).schema, properties=props)
    by_one = wh.create_table("db.one", rows(0, 0).schema, properties=props)
    data = rows(0, 12000)
    floe.ray.write(ray_cluster.data.from_arrow(data).repartition(3), by_ray, expected_rows=12000)
    # The same plan in one process, one task.
    plan = floe.plan_write(by_one, expected_rows=12000)
    plan = plan.with_samples([plan.sample(data)])
    floe.commit_files(by_one, plan, [floe.write_task(plan, data, 0)])
    assert by_ray.properties["floe.otree.revision"] == by_one.properties["floe.otree.revision"]
    cubes = cubes_of(by_ray)
    assert cubes == cubes_of(by_one) and len(cubes) > 4
    assert sum(cubes.values()) == 12000
    assert sorted(by_ray.scan(columns=["id"]).to_arrow().column("id").to_pylist()) == list(range(12000))


def test_ray_writes_a_materialized_dataset_in_plain_tasks(tmp_path, ray_cluster):
    # Its blocks in the object store already: plain Ray tasks, each a share of the blocks of at
    # least rows_per_task rows, numbered in order; an OTree sampled by the same shares.
    import floe.ray

    wh = floe.Warehouse(str(tmp_path / "wh"))
    t = wh.create_table("db.events", rows(0, 0).schema, partition_by="day", sort_by="id")
    ds = ray_cluster.data.from_arrow([rows(i, i + 2500) for i in range(0, 20000, 2500)])
    ds = ds.materialize()
    out = floe.ray.write(ds, t, rows_per_task=10000)
    assert out["rows"] == 20000 and out["data_files"] == 10
    snaps = t.snapshots()
    assert len(snaps) == 1 and snaps[0]["summary"]["floe.write-tasks"] == "2"
    for f in pq_files(t):
        ids = pq.read_table(f, columns=["id"]).column("id").to_pylist()
        assert ids == sorted(ids) and len(ids) == 2000
    assert sorted(t.scan(columns=["id"]).to_arrow().column("id").to_pylist()) == list(range(20000))

    props = {"floe.layout": "otree(x, y)", "floe.otree.target-rows-per-file": "1000"}
    by_ray = wh.create_table("db.ray", rows(0, 0).schema, properties=props)
    by_one = wh.create_table("db.one", rows(0, 0).schema, properties=props)
    data = rows(0, 12000)
    ds = ray_cluster.data.from_arrow(data).repartition(3).materialize()
    floe.ray.write(ds, by_ray)  # the rows counted from the blocks' metadata: every row sampled
    plan = floe.plan_write(by_one)
    plan = plan.with_samples([plan.sample(data)])
    floe.commit_files(by_one, plan, [floe.write_task(plan, data, 0)])
    assert by_ray.properties["floe.otree.revision"] == by_one.properties["floe.otree.revision"]
    assert cubes_of(by_ray) == cubes_of(by_one) and len(cubes_of(by_ray)) > 4

    empty = wh.create_table("db.empty", rows(0, 0).schema)
    assert floe.ray.write(ray_cluster.data.from_arrow(rows(0, 0)).materialize(), empty)["rows"] == 0
    assert empty.snapshots() == []


def test_ray_a_failed_task_commits_nothing_and_removes_the_others_files(tmp_path, ray_cluster):
    import floe.ray

    wh = floe.Warehouse(str(tmp_path / "wh"))
    t = wh.create_table("db.events", rows(0, 0).schema, partition_by="day")
    bad = rows(3000, 4000).set_column(2, "x", pa.array(["?"] * 1000))
    ds = ray_cluster.data.from_arrow([rows(0, 1000), rows(1000, 2000), rows(2000, 3000), bad])
    with pytest.raises(Exception, match="column 'x' has type string"):
        floe.ray.write(ds.materialize(), t, concurrency=2)
    assert t.snapshots() == [] and pq_files(t) == []


def test_spark_writes_in_tasks_and_commits_once(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)  # Spark's Python workers: this one
    from pyspark.sql import SparkSession

    import floe.spark

    builder = (SparkSession.builder.master("local[2]").appName("floe-python")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.memory", "1g"))
    for k, v in worker_env(monkeypatch).items():
        builder = builder.config(f"spark.executorEnv.{k}", v)
    spark = builder.getOrCreate()
    try:
        wh = floe.Warehouse(str(tmp_path / "wh"))
        t = wh.create_table("db.s", rows(0, 0).schema, partition_by="day")
        df = spark.createDataFrame(rows(0, 5000).to_pandas()).repartition(3)
        out = floe.spark.write(df, t)
        assert out["rows"] == 5000
        snaps = t.snapshots()
        assert len(snaps) == 1 and snaps[0]["summary"]["floe.write-tasks"] == "3"
        assert len(pq_files(t)) == out["data_files"] == 15
        got = t.scan(columns=["id", "day"]).to_arrow().sort_by("id")
        assert got.column("id").to_pylist() == list(range(5000))
        assert got.column("day").to_pylist() == rows(0, 5000).column("day").to_pylist()

        props = {"floe.layout": "otree(x, y)", "floe.otree.target-rows-per-file": "500"}
        o = wh.create_table("db.so", rows(0, 0).schema, properties=props)
        one = wh.create_table("db.one", rows(0, 0).schema, properties=props)
        floe.spark.write(df, o)
        plan = floe.plan_write(one, expected_rows=5000)
        plan = plan.with_samples([plan.sample(rows(0, 5000))])
        floe.commit_files(one, plan, [floe.write_task(plan, rows(0, 5000), 0)])
        assert cubes_of(o) == cubes_of(one)
    finally:
        spark.stop()
