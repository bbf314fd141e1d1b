// The statements that make, change and fill tables, as Spark's Iceberg SQL spells them (DuckDB's
// spellings where they differ):
//   CREATE TABLE [IF NOT EXISTS] t (col type [NOT NULL] [COMMENT '...'], ...) [USING iceberg]
//     [PARTITIONED BY (day(ts), bucket(8, id), ...)] [LOCATION '...'] [TBLPROPERTIES ('k' = 'v')]
//     [AS query]                                  -- or without the columns: CREATE TABLE t AS
//     query
//   DROP TABLE [IF EXISTS] t [PURGE]
//   ALTER TABLE t ADD COLUMN[S] ... | RENAME COLUMN a TO b | DROP COLUMN[S] a, b | ALTER [COLUMN] c
//     TYPE t | DROP NOT NULL | COMMENT '...' | SET TBLPROPERTIES (...) | UNSET TBLPROPERTIES [IF
//     EXISTS] (...) | ADD | DROP | REPLACE PARTITION FIELD ... | WRITE [LOCALLY] ORDERED BY ... |
//     WRITE DISTRIBUTED BY PARTITION [LOCALLY ORDERED BY ...] | WRITE UNORDERED | RENAME TO t2
//   INSERT INTO [TABLE] t [(cols)] [BY NAME] query    -- query: SELECT ..., VALUES (...), WITH ...
// Recognised from their first words before libpg_query sees the text (their Spark forms are not
// Postgres syntax); the query of a CTAS or INSERT is run by the engine, errors pointing into the
// whole text. Types take Iceberg's and Spark's names (iceberg::ParseSqlType). The evolution is
// iceberg::AlterTable's; the writes are one append commit each, laid out by the table's spec,
// sort order and floe.layout.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/iceberg/alter_table.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/query.h"

namespace floe::sql {

struct DdlStatement {
  enum class Kind { kCreate, kDrop, kAlter, kRenameTable, kInsert };
  Kind kind = Kind::kCreate;
  std::string table;           // as written: ns.t
  bool if_not_exists = false;  // CREATE
  bool if_exists = false;      // DROP
  bool purge = false;          // DROP
  // CREATE: the columns (empty for CTAS without a column list), spec, location and properties.
  std::vector<iceberg::NestedField> columns;
  std::string partitioned_by;  // the CLI's form, "day(ts), bucket(8, id)"
  std::string location;
  std::map<std::string, std::string> properties;
  // CREATE ... AS and INSERT: the query's text, the statement's prefix blanked so offsets into it
  // are offsets into the statement (errors name the statement's line and column).
  std::string query;
  std::vector<std::string> insert_columns;  // INSERT INTO t (a, b): the columns given, in order
  bool by_name = false;                     // INSERT ... BY NAME: columns matched by name
  std::vector<iceberg::TableAlteration> alterations;  // ALTER
  std::string new_name;                               // ALTER TABLE ... RENAME TO
};

// nullopt when `sql` is not one of these statements; a located error when it starts as one and
// goes astray ("at line 1, column 30: ALTER TABLE: expected COLUMN after RENAME").
std::optional<Result<DdlStatement>> ParseDdlStatement(std::string_view sql);

// Runs a query (the engine's Execute with the caller's options, rows returned, not streamed).
using QueryRunner = std::function<Result<QueryResult>(std::string_view sql)>;

// Runs the statement against the warehouse's catalog: a one-row result (INSERT and CTAS: the
// rows inserted, as DML reports them) and a one-line message naming what changed.
Result<QueryResult> RunDdlStatement(const DdlStatement& statement, iceberg::Warehouse& warehouse,
                                    const QueryRunner& run_query);

}  // namespace floe::sql
