"""floe on Ray: a ray.data.Dataset written into a floe table, and a table read as a Dataset.

    import ray, floe, floe.ray
    wh = floe.Warehouse("/shared/wh")
    t = wh.load_table("db.events")
    floe.ray.write(ray.data.read_parquet("s3://bucket/raw/"), t)   # tasks write, one commit
    ds = floe.ray.read(t, filter="day >= DATE '2024-01-03'", columns=["id", "amount"])

A write is a plan on the driver (floe.plan_write), one floe.write_task per Ray write task (each
task's blocks become that task's data files, laid out by the table's spec, sort order and layout)
and one commit on the driver when every task has finished; a write that fails commits nothing.
The tasks of a materialized dataset (ds.materialize(): its blocks in the object store, their
rows known) are plain Ray tasks on its blocks; any other dataset streams through ray.data's
write, a Datasink. An OTree table's layout is fixed first from a sample every task
takes of its blocks, so the layout does not depend on how Ray splits the rows.

A read is planned on the driver (the snapshot and the data files the filter keeps, pruned by
partitions, column bounds and an OTree's cubes) and its files are read by Ray tasks, each a share
of the files balanced by bytes.

The workers must reach the table's store (a local warehouse: the same file system; s3: the same
bucket, with AWS keys in their environment). The catalog is used by the driver alone.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import pyarrow as pa
import ray
from ray.data import Datasink
from ray.data.block import BlockAccessor, BlockMetadata
from ray.data.dataset import MaterializedDataset
from ray.data.datasource import Datasource, ReadTask

import floe
from floe import _floe

__all__ = ["write", "read"]


def _arrow(blocks: Iterable[Any]) -> pa.Table:
    tables = [BlockAccessor.for_block(b).to_arrow() for b in blocks]
    tables = [t for t in tables if t.num_columns > 0]
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables, promote_options="default")


class _FloeDatasink(Datasink):
    """One planned write: each Ray write task is a floe write task numbered by its task index;
    the commit runs on the driver once all have finished."""

    def __init__(
        self, table: floe.Table, plan: floe.WritePlan, rows_per_task: Optional[int] = None
    ) -> None:
        self._table: Optional[floe.Table] = table
        self._plan = plan
        self._rows_per_task = rows_per_task
        self.result: Optional[Dict[str, Any]] = None

    def __getstate__(self) -> Dict[str, Any]:
        # Tasks get the plan only: the table (and its catalog) stay on the driver.
        state = dict(self.__dict__)
        state["_table"] = None
        state["result"] = None
        return state

    @property
    def min_rows_per_write(self) -> Optional[int]:
        return self._rows_per_task

    def get_name(self) -> str:
        return "FloeWrite"

    def write(self, blocks: Iterable[Any], ctx: Any) -> Optional[bytes]:
        data = _arrow(blocks)
        if data.num_rows == 0:
            return None
        return floe.write_task(self._plan, data, ctx.task_idx)

    def on_write_complete(self, write_result: Any) -> None:
        results = [r for r in write_result.write_returns if r is not None]
        self.result = floe.commit_files(self._table, self._plan, results)


def _sample(plan: floe.WritePlan):
    def sample(batch: pa.Table) -> pa.Table:
        return plan.sample(batch)

    return sample


def _task_env(num_cpus: int) -> Dict[str, Any]:
    # floe in a task runs on the CPUs Ray gave the task (FLOE_THREADS), not the machine's.
    return {"env_vars": {"FLOE_THREADS": str(max(1, int(num_cpus)))}}


def _materialized_shares(
    dataset: "ray.data.Dataset", rows_per_task: Optional[int]
) -> Optional[Tuple[List[List[Any]], int]]:
    """The blocks of a materialized dataset -- in the object store already, their rows known --
    in the shares the write tasks take (each at least `rows_per_task` rows, the blocks bundled in
    order; else a block each), and its rows; None for any other dataset."""
    if not isinstance(dataset, MaterializedDataset):
        return None
    shares: List[List[Any]] = []
    share: List[Any] = []
    rows = total = 0
    for bundle in dataset.iter_internal_ref_bundles():
        if any(s is not None for s in (getattr(bundle, "slices", None) or ())):
            return None  # a part of a block: not every row of the block is the dataset's
        for ref, meta in zip(bundle.block_refs, bundle.metadata):
            if meta.num_rows is None:
                return None
            if meta.num_rows == 0:
                continue
            share.append(ref)
            rows += meta.num_rows
            total += meta.num_rows
            if not rows_per_task or rows >= rows_per_task:
                shares.append(share)
                share, rows = [], 0
    if share:
        shares.append(share)
    return shares, total


def _sample_share(plan: floe.WritePlan, *blocks: Any) -> pa.Table:
    return plan.sample(_arrow(blocks))


def _write_share(plan: floe.WritePlan, task_id: int, *blocks: Any) -> Optional[bytes]:
    data = _arrow(blocks)
    if data.num_rows == 0:
        return None
    return floe.write_task(plan, data, task_id)


_remote: Dict[Any, Any] = {}


def _run_tasks(
    fn: Any, args: List[List[Any]], options: Dict[str, Any], concurrency: Optional[int]
) -> Tuple[List[Any], Optional[BaseException]]:
    """fn(*args[i]) for every i, each a Ray task (`options`: its resources), at most
    `concurrency` at once: every task's result (None where it failed or did not run) and the
    first error. After an error no task starts; those running are waited for, so that what they
    wrote can be removed."""
    if fn not in _remote:
        _remote[fn] = ray.remote(fn)
    remote = _remote[fn].options(**options)
    results: List[Any] = [None] * len(args)
    running: Dict[Any, int] = {}
    limit = concurrency if concurrency and concurrency > 0 else len(args)
    started = 0
    error: Optional[BaseException] = None
    while running or (error is None and started < len(args)):
        while error is None and started < len(args) and len(running) < limit:
            running[remote.remote(*args[started])] = started
            started += 1
        done, _ = ray.wait(list(running), num_returns=1)
        for ref in done:
            i = running.pop(ref)
            try:
                results[i] = ray.get(ref)
            except Exception as e:  # the first is raised by the caller
                error = error or e
    return results, error


def _write_materialized(
    shares: List[List[Any]],
    table: floe.Table,
    plan: floe.WritePlan,
    num_cpus: int,
    concurrency: Optional[int],
) -> Dict[str, Any]:
    # Plain Ray tasks on the blocks where they are, as many as the shares: a sampling pass first
    # for an OTree, then the writes, then the commit here.
    options = {"num_cpus": num_cpus, "runtime_env": _task_env(num_cpus)}
    if plan.needs_sample and shares:
        samples, error = _run_tasks(_sample_share, [[plan] + s for s in shares], options,
                                    concurrency)
        if error is not None:
            raise error
        plan = plan.with_samples(samples)
    results, error = _run_tasks(
        _write_share, [[plan, i] + s for i, s in enumerate(shares)], options, concurrency
    )
    written = [r for r in results if r is not None]
    if error is not None:
        floe.abort_write(table, plan, written)
        raise error
    return floe.commit_files(table, plan, written)


def write(
    dataset: "ray.data.Dataset",
    table: floe.Table,
    *,
    expected_rows: Optional[int] = None,
    num_cpus: int = 1,
    concurrency: Optional[int] = None,
    rows_per_task: Optional[int] = None,
) -> Dict[str, Any]:
    """Appends every row of `dataset` to `table` in one commit: Ray tasks write the data files
    (each reserving `num_cpus` CPUs, floe running on as many threads; at most `concurrency` at
    once, when given; each given at least `rows_per_task` rows when given -- Ray's blocks
    bundled -- else a block), the driver commits them. A task writes a file per partition it has
    rows of, so fewer, larger tasks make fewer, larger files.
    Returns rows, data files, bytes and the new snapshot's id (None when the dataset has no rows).
    For an OTree table the rows are counted (or `expected_rows` taken) and sampled first: two
    passes over the dataset before the write (materialize() it to read its source once)."""
    materialized = _materialized_shares(dataset, rows_per_task)
    if materialized is not None:
        shares, rows = materialized
        plan = floe.plan_write(table, rows if expected_rows is None else expected_rows)
        return _write_materialized(shares, table, plan, num_cpus, concurrency)
    plan = floe.plan_write(table, expected_rows)
    if plan.needs_sample:
        if expected_rows is None:
            plan = floe.plan_write(table, dataset.count())
        samples = dataset.map_batches(
            _sample(plan), batch_format="pyarrow", batch_size=None, num_cpus=num_cpus,
            concurrency=concurrency, runtime_env=_task_env(num_cpus),
        )
        plan = plan.with_samples([ray.get(ref) for ref in samples.to_arrow_refs()])
    sink = _FloeDatasink(table, plan, rows_per_task)
    dataset.write_datasink(
        sink,
        ray_remote_args={"num_cpus": num_cpus, "runtime_env": _task_env(num_cpus)},
        concurrency=concurrency,
    )
    if sink.result is None:  # pragma: no cover - Ray calls on_write_complete before returning
        raise floe.FloeError(f"write to {table.name}: Ray did not complete the write")
    return sink.result


def _read_files(part: Dict[str, Any], paths: List[str]) -> pa.Table:
    batches = _floe.read_files(
        part["table"],
        part["metadata_location"],
        part["snapshot_id"],
        paths,
        part["filter"],
        part["columns"],
        part["s3_endpoint"],
        part["s3_region"],
        part["s3_path_style"],
    )
    return pa.table(batches)


class _FloeDatasource(Datasource):
    def __init__(self, table: floe.Table, filter: Optional[str], columns: Optional[Sequence[str]]):
        planned = table._table.plan_read(filter or "")
        self._part = {
            "table": planned["table"],
            "metadata_location": planned["metadata_location"],
            "snapshot_id": planned["snapshot_id"],
            "filter": filter or "",
            "columns": list(columns or []),
            "s3_endpoint": planned["s3_endpoint"],
            "s3_region": planned["s3_region"],
            "s3_path_style": planned["s3_path_style"],
        }
        self._files = planned["files"]  # (path, rows, bytes)
        self._schema = table.schema()
        if columns:
            self._schema = pa.schema([self._schema.field(c) for c in columns])

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return sum(f[2] for f in self._files)

    def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None, **kw: Any):
        if not self._files:
            return []
        n = max(1, min(parallelism, len(self._files)))
        # The files in n shares balanced by bytes: the largest first, each to the lightest share.
        shares: List[List[Any]] = [[] for _ in range(n)]
        weight = [0] * n
        for f in sorted(self._files, key=lambda f: -f[2]):
            k = weight.index(min(weight))
            shares[k].append(f)
            weight[k] += f[2]
        part = self._part
        tasks = []
        for share in shares:
            if not share:
                continue
            paths = [f[0] for f in share]
            meta = BlockMetadata(
                num_rows=None,  # deletes and the filter decide
                size_bytes=sum(f[2] for f in share),
                input_files=paths,
                exec_stats=None,
            )

            def read(paths=paths, part=part) -> List[pa.Table]:
                return [_read_files(part, paths)]

            tasks.append(ReadTask(read, meta, schema=self._schema))
        return tasks


def read(
    table: floe.Table,
    filter: Optional[str] = None,
    columns: Optional[Sequence[str]] = None,
    *,
    num_cpus: int = 1,
) -> "ray.data.Dataset":
    """The rows of `table` (as of now) where `filter` holds -- a SQL condition over the table's
    columns that Iceberg's filters express (comparisons, IN, IS NULL, AND/OR/NOT) -- as a
    ray.data.Dataset: planned here, its data files read by Ray tasks (each reserving `num_cpus`
    CPUs), deletes applied."""
    return ray.data.read_datasource(
        _FloeDatasource(table, filter, columns), num_cpus=num_cpus,
        runtime_env=_task_env(num_cpus),
    )
