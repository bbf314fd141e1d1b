"""floe from Python: Iceberg warehouses, tables and SQL, with data as Arrow streams.

    import floe, pyarrow as pa
    wh = floe.Warehouse("./wh")                       # a local warehouse (its SQLite catalog)
    t = wh.create_table("db.events", data.schema, partition_by="day(ts)", sort_by="id")
    t.append(data)                                    # pyarrow, pandas, Polars: one commit
    r = t.scan(filter="id < 100", columns=["id", "ts"])
    pa.table(r), r.stats                              # the rows; files, requests, bytes, ms
    wh.sql("SELECT count(*) FROM db.events").to_arrow()

Data goes in and out through the Arrow PyCapsule interface (`__arrow_c_stream__`), so pyarrow,
Polars, pandas and DuckDB hand floe their data and take floe's without copies where the layouts
agree. floe's errors are `floe.FloeError`, with floe's one-line message.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _floe
from ._floe import FloeError

__all__ = [
    "Warehouse",
    "Table",
    "Result",
    "FloeError",
    "sql",
    "WritePlan",
    "plan_write",
    "write_task",
    "commit_files",
    "abort_write",
    "threads",
]
__version__ = "0.1.0"


def _names(value: Union[None, str, Sequence[str]]) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return ", ".join(value)


def _sql_string(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _stream_capsule(data: Any) -> Any:
    """An ArrowArrayStream capsule of `data`'s rows."""
    if hasattr(data, "__arrow_c_stream__"):
        return data.__arrow_c_stream__()
    if hasattr(data, "__arrow_c_array__"):  # one record batch (pyarrow.RecordBatch)
        import pyarrow as pa

        batch = pa.record_batch(data)
        return pa.RecordBatchReader.from_batches(batch.schema, [batch]).__arrow_c_stream__()
    raise TypeError(
        f"floe takes Arrow data (an object with __arrow_c_stream__: a pyarrow Table or "
        f"RecordBatchReader, a pandas or Polars DataFrame), not {type(data).__name__}"
    )


def _schema_capsule(schema: Any) -> Any:
    """An ArrowSchema capsule of a schema, or of the schema of some data."""
    if hasattr(schema, "__arrow_c_schema__"):
        return schema.__arrow_c_schema__()
    if hasattr(schema, "__arrow_c_stream__"):
        import pyarrow as pa

        return pa.RecordBatchReader.from_stream(schema).schema.__arrow_c_schema__()
    raise TypeError(
        f"a table's schema is an Arrow schema (pyarrow.Schema) or data to take it from, "
        f"not {type(schema).__name__}"
    )


class _SchemaHolder:
    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_schema__(self) -> Any:
        return self._capsule


class Result:
    """A statement's answer: its rows as an Arrow stream, read once (`pa.table(r)`,
    `pl.DataFrame(r)`, `duckdb.sql("FROM r")`), its numbers (`stats`) and, for a statement
    without rows, its one-line `message`. Rows stream as they are read, a few batches ahead."""

    def __init__(self, result: _floe.Result) -> None:
        self._result = result

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._result.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self) -> Any:
        return self._result.__arrow_c_schema__()

    @property
    def stats(self) -> Dict[str, Any]:
        """Data files opened and skipped (by partition, bounds, index, sample, join), row groups,
        pages, requests by kind, bytes fetched and wall time; `complete` once the rows were read
        to the end."""
        return self._result.stats

    @property
    def message(self) -> str:
        return self._result.message

    def to_arrow(self) -> "Any":
        import pyarrow as pa

        return pa.table(self)

    def to_pandas(self) -> "Any":
        return self.to_arrow().to_pandas()

    def to_polars(self) -> "Any":
        import polars as pl

        return pl.DataFrame(self)

    def to_pylist(self) -> List[Dict[str, Any]]:
        return self.to_arrow().to_pylist()


class Table:
    """An Iceberg table of a warehouse, by name; every call reads its current metadata."""

    def __init__(self, table: _floe.Table, warehouse: "Warehouse") -> None:
        self._table = table
        self._warehouse = warehouse

    @property
    def name(self) -> str:
        return self._table.name

    def __repr__(self) -> str:
        return f"floe.Table({self.name!r})"

    def append(self, data: Any) -> Dict[str, Any]:
        """Appends rows (pyarrow Table/RecordBatch/RecordBatchReader, pandas or Polars DataFrame,
        anything with __arrow_c_stream__) in one commit, laid out by the table's spec, sort order
        and layout. Returns rows, data files, bytes and the new snapshot's id (None: no rows, no
        commit)."""
        return self._table.append(_stream_capsule(data))

    def scan(self, filter: Optional[str] = None, columns: Optional[Sequence[str]] = None) -> Result:
        """The table's rows (all columns unless `columns`), those where the SQL condition
        `filter` holds; files, row groups and pages are pruned by it."""
        return Result(self._table.scan(filter, list(columns) if columns is not None else None))

    def to_arrow(self) -> Any:
        return self.scan().to_arrow()

    def schema(self) -> Any:
        """The current schema, as a pyarrow.Schema (field ids in its fields' metadata is not
        carried)."""
        import pyarrow as pa

        return pa.schema(_SchemaHolder(self._table.schema_capsule()))

    def snapshots(self) -> List[Dict[str, Any]]:
        """Every snapshot: id, parent, sequence number, time, operation, summary."""
        return self._table.snapshots()

    def describe(self) -> Dict[str, Any]:
        """Location, metadata file, format version, properties, current snapshot id."""
        return self._table.describe()

    @property
    def properties(self) -> Dict[str, str]:
        return self.describe()["properties"]

    @property
    def current_snapshot_id(self) -> Optional[int]:
        return self.describe()["current_snapshot_id"]

    # --- maintenance: Iceberg's procedures, as `CALL system.*` runs them ---

    def _call(self, procedure: str, **args: Any) -> Dict[str, Any]:
        parts = [f"table => {_sql_string(self.name)}"]
        for key, value in args.items():
            if value is None:
                continue
            if isinstance(value, Mapping):
                entries = ", ".join(f"{_sql_string(k)}, {_sql_string(v)}" for k, v in value.items())
                parts.append(f"{key} => map({entries})")
            elif isinstance(value, bool):
                parts.append(f"{key} => {'true' if value else 'false'}")
            elif isinstance(value, int):
                parts.append(f"{key} => {value}")
            else:
                parts.append(f"{key} => {_sql_string(value)}")
        result = self._warehouse.sql(f"CALL system.{procedure}({', '.join(parts)})")
        rows = result.to_pylist()
        return rows[0] if rows else {"message": result.message}

    def rewrite_data_files(
        self,
        strategy: Optional[str] = None,
        sort_order: Optional[str] = None,
        where: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Compaction (binpack, sort, or `sort_order="zorder(a, b)"`), as Spark's procedure."""
        return self._call(
            "rewrite_data_files", strategy=strategy, sort_order=sort_order, where=where,
            options=options,
        )

    def rewrite_position_delete_files(self, options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        return self._call("rewrite_position_delete_files", options=options)

    def rewrite_manifests(self) -> Dict[str, Any]:
        return self._call("rewrite_manifests")

    def expire_snapshots(
        self, older_than: Optional[str] = None, retain_last: Optional[int] = None
    ) -> Dict[str, Any]:
        """Expires snapshots older than a time or age ("2026-01-01 00:00:00", "3d"; Iceberg's
        default 5 days), keeping at least `retain_last`."""
        return self._call("expire_snapshots", older_than=older_than, retain_last=retain_last)

    def remove_orphan_files(
        self, older_than: Optional[str] = None, dry_run: Optional[bool] = None
    ) -> Dict[str, Any]:
        return self._call("remove_orphan_files", older_than=older_than, dry_run=dry_run)


class Warehouse:
    """A warehouse: a store (a local directory or s3://bucket/prefix) and its catalog -- by
    default the SQLite catalog in <dir>/catalog.db; `catalog="sqlite:PATH"` or
    `catalog="rest:http://host:port"` names another (an s3:// warehouse needs one). As floe's
    `--warehouse` and `--catalog` (CLI.md)."""

    def __init__(
        self,
        uri: str = "./floe-warehouse",
        catalog: Optional[str] = None,
        *,
        create: bool = True,
        s3_endpoint: Optional[str] = None,
        s3_region: Optional[str] = None,
        s3_path_style: bool = False,
    ) -> None:
        self._warehouse = _floe.Warehouse(
            os.fspath(uri), catalog, create, s3_endpoint, s3_region, s3_path_style
        )

    def __repr__(self) -> str:
        return f"floe.Warehouse({self._warehouse.uri!r})"

    def create_table(
        self,
        name: str,
        schema: Any,
        partition_by: Union[None, str, Sequence[str]] = None,
        sort_by: Union[None, str, Sequence[str]] = None,
        properties: Optional[Mapping[str, Any]] = None,
        format_version: Optional[int] = None,
    ) -> Table:
        """Creates `ns.table` (and its namespace) with an Arrow schema (or the schema of some
        data), a partition spec ("day(ts), bucket(8, id)"), a sort order ("id ASC, ts DESC"),
        table properties, and format version 2 (default) or 3."""
        props = {str(k): str(v) for k, v in (properties or {}).items()}
        t = self._warehouse.create_table(
            name, _schema_capsule(schema), _names(partition_by), _names(sort_by), props,
            format_version,
        )
        return Table(t, self)

    def load_table(self, name: str) -> Table:
        return Table(self._warehouse.load_table(name), self)

    def table(self, name: str) -> Table:
        return self.load_table(name)

    def tables(self, namespace: Optional[str] = None) -> List[str]:
        """The tables of a namespace, or of every namespace, as "ns.table"."""
        return self._warehouse.tables(namespace)

    def namespaces(self) -> List[str]:
        return self._warehouse.namespaces()

    def drop_table(self, name: str, purge: bool = False) -> None:
        """Drops a table from the catalog; with purge, deletes its files too."""
        self._warehouse.drop_table(name, purge)

    def plan_write(
        self, name: str, expected_rows: Optional[int] = None, sample_rows: int = 200_000
    ) -> "WritePlan":
        """Plans a write to table `name` (see floe.plan_write)."""
        return WritePlan(self._warehouse.plan_write(name, expected_rows or 0, sample_rows), self)

    def sql(self, text: str) -> Result:
        """Runs one SQL statement. A query's rows stream as they are read; any other statement
        (INSERT, DELETE, UPDATE, MERGE, CREATE, CALL, SET) runs to its end here, committed
        whether or not its result is read."""
        return Result(self._warehouse.sql(text))


_default: Optional[Warehouse] = None


def threads() -> int:
    """The threads floe runs a statement, a write or a task on in this process: the CPUs it may
    run on, or $FLOE_THREADS (read once, at floe's first use) -- floe.ray and floe.spark set it to
    a task's CPUs."""
    return _floe.threads()


def sql(text: str) -> Result:
    """One statement over the default warehouse: $FLOE_WAREHOUSE, else ./floe-warehouse (as the
    floe command line's default)."""
    global _default
    if _default is None:
        _default = Warehouse(os.environ.get("FLOE_WAREHOUSE", "./floe-warehouse"))
    return _default.sql(text)


# --- a write as plan, tasks and one commit (what floe.ray and floe.spark run) ---


class WritePlan:
    """A planned write to one table: what every data file depends on (the table's schema,
    partition spec, sort order and layout as of one metadata version, a write id every file is
    named by), fixed on the driver so that independent tasks -- Ray tasks, Spark's mapInArrow,
    processes of your own -- can each turn rows into data files (floe.write_task) for one commit
    (floe.commit_files). It pickles as its JSON; it holds no secret.

    An OTree table (floe.layout = otree(...)) also needs the cubes rows go to, fixed before any
    task writes: while `needs_sample`, each task samples its rows (`plan.sample(data)`) and the
    driver fixes the layout (`plan = plan.with_samples(samples)`). The layout is then the same
    however the rows are split among tasks."""

    def __init__(self, plan: _floe.WritePlan, warehouse: Optional["Warehouse"] = None) -> None:
        self._plan = plan
        self._warehouse = warehouse

    @classmethod
    def from_json(cls, text: str) -> "WritePlan":
        return cls(_floe.WritePlan.from_json(text))

    def to_json(self) -> str:
        return self._plan.to_json()

    def __reduce__(self) -> Any:
        return (WritePlan.from_json, (self.to_json(),))

    def __repr__(self) -> str:
        return f"floe.WritePlan({self.table!r}, write_id={self.write_id!r})"

    @property
    def table(self) -> str:
        return self._plan.table

    @property
    def write_id(self) -> str:
        return self._plan.write_id

    @property
    def needs_sample(self) -> bool:
        return self._plan.needs_sample

    @property
    def sample_fraction(self) -> float:
        """The share of the rows an OTree plan samples (1.0: every row)."""
        return self._plan.sample_fraction

    def sample(self, data: Any) -> Any:
        """The rows of `data` this plan samples, as a pyarrow Table: run it where the rows are,
        and hand the results to `with_samples` on the driver."""
        import pyarrow as pa

        return pa.table(self._plan.sample(_stream_capsule(data)))

    def with_samples(self, samples: Sequence[Any]) -> "WritePlan":
        """This plan with its OTree layout fixed from the tasks' samples (any order, any split)."""
        return WritePlan(
            self._plan.with_samples([_stream_capsule(s) for s in samples]), self._warehouse
        )


def plan_write(
    table: Table, expected_rows: Optional[int] = None, sample_rows: int = 200_000
) -> WritePlan:
    """Plans a write to `table`. `expected_rows` (about how many rows the write adds) lets an
    OTree plan sample `sample_rows` of them instead of every row."""
    return table._warehouse.plan_write(table.name, expected_rows, sample_rows)


def write_task(plan: WritePlan, data: Any, task_id: int = 0) -> bytes:
    """Writes `data` (pyarrow, pandas, Polars, any Arrow stream) as task `task_id` of the plan's
    write: data files laid out by the table's spec, sort order and layout, named by the write
    and the task (give each task its own id, 0..99999). Runs anywhere that reaches the table's
    store (an s3 table's keys come from the environment). Returns the task's result -- bytes
    to hand to floe.commit_files on the driver."""
    return _floe.write_task(plan._plan, _stream_capsule(data), int(task_id))


def task_summary(plan: WritePlan, result: bytes) -> Dict[str, Any]:
    """What a task's result holds: its task id, rows, and its files (path, rows, bytes)."""
    return _floe.task_summary(plan._plan, result)


def _warehouse_of(table: Union[Table, "Warehouse"]) -> "Warehouse":
    return table._warehouse if isinstance(table, Table) else table


def commit_files(table: Table, plan: WritePlan, results: Sequence[bytes]) -> Dict[str, Any]:
    """Adds every task's files to the table in one append. Refused -- with the tasks' files
    removed -- when a result is of another write, a task is there twice, or the table's schema
    or partition spec changed since the plan. Returns rows, data files, bytes and the snapshot
    id (None when no task wrote a row: nothing is committed)."""
    return _warehouse_of(table)._warehouse.commit_write(plan._plan, [bytes(r) for r in results])


def abort_write(table: Table, plan: WritePlan, results: Sequence[bytes]) -> None:
    """Removes the files of tasks whose write will not be committed."""
    _warehouse_of(table)._warehouse.abort_write(plan._plan, [bytes(r) for r in results])
