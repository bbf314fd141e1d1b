"""A write as plan, tasks and one commit from Python (floe.plan_write, floe.write_task,
floe.commit_files): tasks in other processes, given the plan as a pickle, write files the driver
commits once; an OTree layout fixed from samples is the same however the rows are split; what
cannot be committed leaves the table and its data folder as they were."""

import concurrent.futures as cf
import multiprocessing as mp
import os
import pickle

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import floe


def rows(start, stop):
    ids = list(range(start, stop))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "cat": pa.array([f"c{i % 3}" for i in ids], pa.string()),
        "x": pa.array([(i * 7919) % 1000 for i in ids], pa.int64()),
        "y": pa.array([(i * 104729) % 1000 for i in ids], pa.int64()),
    })


def data_files(path):
    out = []
    for root, _, files in os.walk(path):
        out += [os.path.join(root, f) for f in files if f.endswith(".parquet")]
    return sorted(out)


def task_in_another_process(args):
    plan_pickle, start, stop, task = args
    plan = pickle.loads(plan_pickle)
    return floe.write_task(plan, rows(start, stop), task)


@pytest.fixture
def wh(tmp_path):
    return floe.Warehouse(str(tmp_path / "wh"))


def test_tasks_in_other_processes_and_one_commit(wh, tmp_path):
    t = wh.create_table("db.t", rows(0, 0).schema, partition_by="cat", sort_by="id")
    plan = floe.plan_write(t)
    assert not plan.needs_sample and plan.table == "db.t"
    parts = [(pickle.dumps(plan), k * 1000, (k + 1) * 1000, k) for k in range(4)]
    with cf.ProcessPoolExecutor(2, mp_context=mp.get_context("spawn")) as pool:
        results = list(pool.map(task_in_another_process, parts))
    assert all(isinstance(r, bytes) for r in results)
    # Nothing is in the table until the commit; the files are there, named by task and write.
    assert t.snapshots() == []
    summaries = [floe.task_summary(plan, r) for r in results]
    assert [s["task"] for s in summaries] == [0, 1, 2, 3]
    assert [s["rows"] for s in summaries] == [1000] * 4
    for s in summaries:
        assert len(s["files"]) == 3  # one a partition
        for f in s["files"]:
            name = os.path.basename(f["path"])
            assert name.startswith(f"{s['task']:05d}-") and plan.write_id in name
    out = floe.commit_files(t, plan, results)
    assert out["rows"] == 4000 and out["data_files"] == 12
    snaps = t.snapshots()
    assert len(snaps) == 1 and snaps[0]["snapshot_id"] == out["snapshot_id"]
    assert snaps[0]["summary"]["floe.write-tasks"] == "4"
    got = t.scan().to_arrow().sort_by("id")
    assert got.column("id").to_pylist() == list(range(4000))
    # Sorted by id within each file, as the table's sort order says.
    files = data_files(str(tmp_path / "wh"))
    assert len(files) == 12
    for f in files:
        ids = pq.read_table(f, columns=["id"]).column("id").to_pylist()
        assert ids == sorted(ids)
    r = t.scan(filter="cat = 'c1'", columns=["id"])
    assert sorted(pa.table(r).column("id").to_pylist()) == [i for i in range(4000) if i % 3 == 1]
    assert r.stats["data_files_opened"] == 4 and r.stats["data_files_skipped"]["partition"] == 8


def test_refused_commits_leave_nothing(wh, tmp_path):
    t = wh.create_table("db.r", rows(0, 0).schema)
    plan = floe.plan_write(t)
    r = floe.write_task(plan, rows(0, 10), 0)
    assert len(data_files(str(tmp_path / "wh"))) == 1
    with pytest.raises(floe.FloeError, match="task 0 is reported twice"):
        floe.commit_files(t, plan, [r, r])
    assert data_files(str(tmp_path / "wh")) == [] and t.snapshots() == []
    other = floe.plan_write(t)
    stray = floe.write_task(other, rows(0, 5), 0)
    with pytest.raises(floe.FloeError, match=f"is not of this plan's write \\({plan.write_id}\\)"):
        floe.commit_files(t, plan, [stray])
    with pytest.raises(floe.FloeError, match="not a floe write task's result"):
        floe.commit_files(t, plan, [b"nonsense"])
    with pytest.raises(floe.FloeError, match="not a floe write plan"):
        floe.WritePlan.from_json('{"format": "something else"}')
    # Aborted: the files go, nothing is committed.
    r = floe.write_task(other, rows(0, 5), 3)
    assert len(data_files(str(tmp_path / "wh"))) == 2  # another write's files are not this one's
    floe.abort_write(t, other, [stray, r])
    assert data_files(str(tmp_path / "wh")) == [] and t.snapshots() == []
    with pytest.raises(floe.FloeError, match="column"):
        floe.write_task(plan, pa.table({"id": ["not a number"]}), 1)


def test_an_otree_layout_does_not_depend_on_the_split(wh):
    props = {"floe.layout": "otree(x, y)", "floe.otree.target-rows-per-file": "300"}
    n = 6000
    layouts = []
    for tasks in (1, 2, 3):
        t = wh.create_table(f"db.o{tasks}", rows(0, 0).schema, properties=props)
        plan = floe.plan_write(t, expected_rows=n, sample_rows=1500)
        assert plan.needs_sample and plan.sample_fraction == 0.25
        with pytest.raises(floe.FloeError, match="OTree layout is not fixed yet"):
            floe.write_task(plan, rows(0, 10), 0)
        bounds = [(k * n // tasks, (k + 1) * n // tasks) for k in range(tasks)]
        samples = [plan.sample(rows(a, b)) for a, b in bounds]
        plan = pickle.loads(pickle.dumps(plan.with_samples(samples)))
        assert not plan.needs_sample
        results = [floe.write_task(plan, rows(a, b), k) for k, (a, b) in enumerate(bounds)]
        assert floe.commit_files(t, plan, results)["rows"] == n
        revision = t.properties["floe.otree.revision"]
        # Each row's cube: the rows the cubes of the files hold, summed over files.
        cubes = {}
        for s in (floe.task_summary(plan, r) for r in results):
            for f in s["files"]:
                kv = pq.read_metadata(f["path"].replace("file://", "")).metadata
                for entry in kv[b"floe.otree.cubes"].decode().split(","):
                    name, count, _ = entry.split(":")
                    cubes[name] = cubes.get(name, 0) + int(count)
        layouts.append((revision, cubes))
        assert sum(cubes.values()) == n
        assert sorted(t.scan(columns=["id"]).to_arrow().column("id").to_pylist()) == list(range(n))
    assert layouts[0][0] == layouts[1][0] == layouts[2][0]
    assert layouts[0][1] == layouts[1][1] == layouts[2][1]
    assert len(layouts[0][1]) > 4
