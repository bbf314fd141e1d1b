"""floe on PySpark: a DataFrame written into a floe table by Spark's own tasks, one commit on the
driver.

    import floe, floe.spark
    t = floe.Warehouse("/shared/wh").load_table("db.events")
    floe.spark.write(spark.read.parquet("s3a://bucket/raw/"), t)

or by hand, as the steps are:

    plan = floe.plan_write(t)
    results = df.mapInArrow(floe.spark.writer(plan), floe.spark.RESULT_SCHEMA).collect()
    floe.commit_files(t, plan, [r.result for r in results])

Each Spark task (a partition of the DataFrame) is one floe write task numbered by its partition
id: its rows become data files laid out by the table's spec, sort order and layout, and it
yields one row -- the task's result. A retried task writes the same files again under the same
names. The executors must reach the table's store; the catalog is used by the driver alone.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterator, Optional

import pyarrow as pa

import floe

__all__ = ["RESULT_SCHEMA", "writer", "sampler", "write"]

# What writer()'s function yields: one row per task, its result.
RESULT_SCHEMA = "result binary"


def _reader(batches: Iterator[pa.RecordBatch]) -> Optional[pa.RecordBatchReader]:
    first = next(batches, None)
    if first is None:
        return None

    def all_batches() -> Iterator[pa.RecordBatch]:
        yield first
        yield from batches

    return pa.RecordBatchReader.from_batches(first.schema, all_batches())


def _use_task_cpus() -> None:
    # floe in a Spark task runs on the task's CPUs (spark.task.cpus), not the executor's machine:
    # read by floe once, at its first use in this Python worker.
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is not None:
        os.environ.setdefault("FLOE_THREADS", str(max(1, ctx.cpus())))


def writer(plan: floe.WritePlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function for DataFrame.mapInArrow(..., RESULT_SCHEMA) that writes each partition as
    one task of `plan`'s write."""

    def write_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        _use_task_cpus()
        reader = _reader(batches)
        if reader is None:
            return
        result = floe.write_task(plan, reader, TaskContext.get().partitionId())
        yield pa.record_batch([pa.array([result], pa.binary())], names=["result"])

    return write_partition


def sampler(plan: floe.WritePlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function for DataFrame.mapInArrow(..., RESULT_SCHEMA) that yields each partition's
    sample of an OTree plan (as Arrow IPC bytes: pa.ipc.open_stream reads it)."""

    def sample_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        _use_task_cpus()
        reader = _reader(batches)
        if reader is None:
            return
        sample = plan.sample(reader)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, sample.schema) as out:
            out.write_table(sample)
        yield pa.record_batch([pa.array([sink.getvalue().to_pybytes()], pa.binary())],
                              names=["result"])

    return sample_partition


def write(df: Any, table: floe.Table, *, expected_rows: Optional[int] = None) -> Dict[str, Any]:
    """Appends every row of the DataFrame `df` to `table` in one commit: Spark's tasks write the
    data files (mapInArrow), the driver commits them. Returns rows, data files, bytes and the
    snapshot id. For an OTree table the rows are counted (unless `expected_rows`) and sampled
    first: two more passes over `df` (cache() it to compute it once)."""
    plan = floe.plan_write(table, expected_rows)
    if plan.needs_sample:
        if expected_rows is None:
            plan = floe.plan_write(table, df.count())
        rows = df.mapInArrow(sampler(plan), RESULT_SCHEMA).collect()
        plan = plan.with_samples([pa.ipc.open_stream(r.result).read_all() for r in rows])
    results = df.mapInArrow(writer(plan), RESULT_SCHEMA).collect()
    return floe.commit_files(table, plan, [bytes(r.result) for r in results])
