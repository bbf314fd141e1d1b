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

__all__ = ["Warehouse", "Table", "Result", "FloeError", "sql"]
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

    def sql(self, text: str) -> Result:
        """Runs one SQL statement. A query's rows stream as they are read; any other statement
        (INSERT, DELETE, UPDATE, MERGE, CREATE, CALL, SET) runs to its end here, committed
        whether or not its result is read."""
        return Result(self._warehouse.sql(text))


_default: Optional[Warehouse] = None


def sql(text: str) -> Result:
    """One statement over the default warehouse: $FLOE_WAREHOUSE, else ./floe-warehouse (as the
    floe command line's default)."""
    global _default
    if _default is None:
        _default = Warehouse(os.environ.get("FLOE_WAREHOUSE", "./floe-warehouse"))
    return _default.sql(text)
